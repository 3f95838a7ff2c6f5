/**
 * An alert condition as a form holds it while the user writes it (numbers as typed text, a level either a
 * number or another series), turned into the body of `POST /personalize/stockalerts` and checked with the
 * contract's own body schema, so the form refuses exactly what the server would, naming the same field.
 *
 * API: `newDraft(symbol, patch?)`, `draftOf(alert)` (to edit one), `requestOf(draft, id?)`,
 * `draftProblem(draft, id?, now?)` (`{field, message}` or null), `refusalField(message)` (the field a server
 * refusal names), `opFields(op)`, `sourceChipsOf(source)`, `seriesChoicesFor(source)`, `withSource(draft, source)`
 * (a change of source), `levelView(level, source, also?)` (a level's control as shown), `seriesLabel(series)`, and
 * the choices the builder offers (`SOURCE_CHIPS`, `SERIES_CHOICES`, `OP_LABELS`).
 */
import { alertsApi, type AlertAnswer } from '../../domain/contract/alerts.ts';
import {
  ALERT_OPS,
  CHANNEL_OPS,
  LEVEL_OPS,
  type AlertFrequency,
  type AlertOp,
  type AlertOperand,
  type AlertSource,
  type AlertSourceKind,
  isPriceLike,
  sourceKind,
  sourcePeriod,
  sourceTag,
} from '../../domain/alerts/conditions.ts';
import type { BodyOf } from '../../domain/contract/route.ts';
import { withoutGrouping } from '../../domain/format.ts';
import { formatDateTime, fromFieldValue, toFieldValue } from '../services/time.ts';
import { refusalParts } from './fieldRefusal.ts';

/** The body the alert routes take. */
export type AlertBody = BodyOf<typeof alertsApi.postStockalerts>;

/** A level as typed: a number, or another series of the symbol. */
export interface OperandDraft {
  readonly kind: 'number' | 'series';
  /** The number as typed. */
  readonly number: string;
  /** The series referred to. */
  readonly series: AlertSource;
}

/** A condition being written. */
export interface ConditionDraft {
  readonly symbol: string;
  readonly op: AlertOp;
  readonly source: AlertSource;
  readonly value: OperandDraft;
  readonly lower: OperandDraft;
  readonly upper: OperandDraft;
  /** The window of the moving operators, as typed. */
  readonly bars: string;
  readonly frequency: AlertFrequency;
  /** The expiry as a `datetime-local` value in the viewer's zone, '' for none. */
  readonly expires: string;
  /** The note as typed, '' for none. */
  readonly note: string;
  /** The ids of the channels its triggers go to besides the bell, or null for every channel of the user. */
  readonly channels: readonly string[] | null;
}

/** The source chips: the price, the four SMAs, two EMAs, RSI(14), volume and the day's change. */
export const SOURCE_CHIPS: readonly { readonly source: AlertSource; readonly label: string }[] = Object.freeze([
  { source: 'price', label: 'Price' },
  { source: 'sma:20', label: 'SMA 20' },
  { source: 'sma:50', label: 'SMA 50' },
  { source: 'sma:100', label: 'SMA 100' },
  { source: 'sma:200', label: 'SMA 200' },
  { source: 'ema:12', label: 'EMA 12' },
  { source: 'ema:26', label: 'EMA 26' },
  { source: 'rsi:14', label: 'RSI 14' },
  { source: 'volume', label: 'Volume' },
  { source: 'changepct', label: 'Change %' },
]);

/**
 * The source chips as the builder shows them for a draft's source: a chip is pressed only when the source is
 * exactly its own, so an EMA of a typed period (`ema:9`) presses none (its period field says which).
 */
export function sourceChipsOf(
  source: AlertSource,
): { readonly source: AlertSource; readonly label: string; readonly pressed: boolean }[] {
  return SOURCE_CHIPS.map((chip) => ({ ...chip, pressed: chip.source === source }));
}

/** The series a level may refer to. */
export const SERIES_CHOICES: readonly AlertSource[] = Object.freeze(SOURCE_CHIPS.map((chip) => chip.source));

/**
 * The series a level of `source` may be, as the server allows them: for a source in dollars (price, SMA, EMA)
 * the other series in dollars; for RSI, volume and the day's change none (their levels are numbers).
 */
export function seriesChoicesFor(source: AlertSource): readonly AlertSource[] {
  return isPriceLike(source) ? SERIES_CHOICES.filter((s) => s !== source && isPriceLike(s)) : [];
}

/** A series as the builder names it: its chip's label (`SMA 50`), else in the chips' style (`ema:9` → `EMA 9`). */
export function seriesLabel(series: AlertSource): string {
  return SOURCE_CHIPS.find((chip) => chip.source === series)?.label ?? sourceTag(series);
}

const KIND_ORDER: readonly string[] = ['price', 'sma', 'ema', 'rsi', 'volume', 'changepct'];

/** Series in the chips' order: by kind (price, SMA, EMA, …), then by period (`ema:9` before `ema:12`). */
function bySeries(a: AlertSource, b: AlertSource): number {
  const rank = (s: AlertSource) => KIND_ORDER.indexOf(sourceKind(s));
  return rank(a) - rank(b) || (sourcePeriod(a) ?? 0) - (sourcePeriod(b) ?? 0);
}

const LEVEL_UNITS: Readonly<Record<AlertSourceKind, string>> = {
  price: 'price',
  sma: 'price',
  ema: 'price',
  rsi: '0 to 100',
  volume: 'shares',
  changepct: '% on the day',
};

/** What a level's number is of the source (its number box's placeholder): a price, RSI's 0 to 100, shares, %. */
export function levelUnit(source: AlertSource): string {
  return LEVEL_UNITS[sourceKind(source)];
}

/** A level's control as the builder shows it, always what {@link requestOf} sends for it. */
export interface LevelView {
  /** Whether the select of a number or a series shows (not for RSI, volume, the day's change: "Value" only). */
  readonly select: boolean;
  /** The select's options: `number` ("Value"), then the series, each with its label. */
  readonly options: readonly { readonly value: 'number' | AlertSource; readonly label: string }[];
  /** The option selected, always one of `options`: `number`, or the series sent. */
  readonly selected: 'number' | AlertSource;
  /** Whether the number box shows: exactly when a number is sent. */
  readonly numberBox: boolean;
}

/**
 * A level of `source` as its control shows it. The series offered are the chips' ones the source may be compared
 * with, the series the level holds (an EMA of any period, `ema:9`), and the ones in `also` (those of the alert
 * being changed, so one may go back to them): each only where it is a valid level, except the one the level
 * refers to, which is shown as it is even when refused, so the screen never says other than what is sent.
 */
export function levelView(level: OperandDraft, source: AlertSource, also: readonly AlertSource[] = []): LevelView {
  const base = seriesChoicesFor(source);
  const value = { value: 'number' as const, label: 'Value' };
  if (base.length === 0) return { select: false, options: [value], selected: 'number', numberBox: true };
  const offered = new Set<AlertSource>(base);
  for (const series of [level.series, ...also]) if (series !== source && isPriceLike(series)) offered.add(series);
  if (level.kind === 'series') offered.add(level.series);
  const options = [
    value,
    ...[...offered].sort(bySeries).map((series) => ({ value: series, label: seriesLabel(series) })),
  ];
  const selected = level.kind === 'series' ? level.series : 'number';
  return { select: true, options, selected, numberBox: selected === 'number' };
}

/**
 * A draft with another source. A level that referred to the new source itself (the level `SMA 50`, then the
 * source `SMA 50`) goes back to its number, as typed before, since a series is never its own level.
 */
export function withSource(draft: ConditionDraft, source: AlertSource): ConditionDraft {
  const fallBack = (level: OperandDraft): OperandDraft =>
    level.kind === 'series' && level.series === source ? { ...level, kind: 'number' } : level;
  return {
    ...draft,
    source,
    value: fallBack(draft.value),
    lower: fallBack(draft.lower),
    upper: fallBack(draft.upper),
  };
}

/** The operators' names, as TradingView writes them. */
export const OP_LABELS: Readonly<Record<AlertOp, string>> = Object.freeze({
  crossing: 'Crossing',
  crossing_up: 'Crossing Up',
  crossing_down: 'Crossing Down',
  greater_than: 'Greater Than',
  less_than: 'Less Than',
  entering_channel: 'Entering Channel',
  exiting_channel: 'Exiting Channel',
  inside_channel: 'Inside Channel',
  outside_channel: 'Outside Channel',
  moving_up: 'Moving Up',
  moving_down: 'Moving Down',
  moving_up_pct: 'Moving Up %',
  moving_down_pct: 'Moving Down %',
});

/** The operators in the builder's order. */
export const OPS: readonly AlertOp[] = ALERT_OPS;

/** Which fields an operator uses: one level, a channel, or an amount over bars. */
export function opFields(op: AlertOp): 'level' | 'channel' | 'moving' {
  if (LEVEL_OPS.includes(op)) return 'level';
  if (CHANNEL_OPS.includes(op)) return 'channel';
  return 'moving';
}

const emptyOperand: OperandDraft = Object.freeze({ kind: 'number', number: '', series: 'sma:50' });

/** An operand as the draft holds it (`null`: nothing typed yet). */
export function operandDraft(operand: AlertOperand | null): OperandDraft {
  if (operand === null) return emptyOperand;
  return typeof operand === 'number'
    ? { kind: 'number', number: String(operand), series: 'sma:50' }
    : { kind: 'series', number: '', series: operand.ref };
}

/** A fresh draft: Crossing on the price, once, never expiring, with the patch applied. */
export function newDraft(symbol: string, patch: Partial<ConditionDraft> = {}): ConditionDraft {
  return {
    symbol,
    op: 'crossing',
    source: 'price',
    value: emptyOperand,
    lower: emptyOperand,
    upper: emptyOperand,
    bars: '1',
    frequency: 'once',
    expires: '',
    note: '',
    channels: null,
    ...patch,
  };
}

/** The draft of an existing alert, to change it. */
export function draftOf(alert: AlertAnswer): ConditionDraft {
  const { condition } = alert;
  return newDraft(alert.symbol, {
    op: condition.op,
    source: condition.source as AlertSource,
    value: operandDraft(condition.value as AlertOperand | null),
    lower: operandDraft(condition.lower as AlertOperand | null),
    upper: operandDraft(condition.upper as AlertOperand | null),
    bars: condition.bars === null ? '1' : String(condition.bars),
    frequency: alert.frequency,
    expires: alert.expires === null ? '' : toFieldValue(alert.expires),
    note: alert.note ?? '',
    channels: alert.channels,
  });
}

/**
 * A typed number: undefined when nothing is typed (the field is then missing), NaN when it is not a number (a
 * decimal comma, `0,5`, included: commas only group thousands).
 */
function numberOf(text: string): number | undefined {
  const trimmed = withoutGrouping(text);
  return trimmed === '' ? undefined : Number(trimmed);
}

/** A level as sent: the series chosen, where the source may take one; else the number typed. */
function operandOf(draft: OperandDraft, source: AlertSource): AlertOperand | undefined {
  return draft.kind === 'series' && seriesChoicesFor(source).length > 0
    ? { ref: draft.series }
    : numberOf(draft.number);
}

/**
 * The body of a draft: the fields its operator uses, the frequency, the expiry (an unreadable expiry is sent as
 * typed, for the schema to refuse), the note (null when blank, which clears it on a change) and the channels (left
 * out of a new alert delivered to every channel; null on a change, every channel again). With `id`, a change of
 * that alert (`update: true`).
 */
export function requestOf(draft: ConditionDraft, id?: string): AlertBody {
  const fields = opFields(draft.op);
  const condition =
    fields === 'level'
      ? { op: draft.op, source: draft.source, value: operandOf(draft.value, draft.source) }
      : fields === 'channel'
        ? {
            op: draft.op,
            source: draft.source,
            lower: operandOf(draft.lower, draft.source),
            upper: operandOf(draft.upper, draft.source),
          }
        : {
            op: draft.op,
            source: draft.source,
            value: numberOf(draft.value.number),
            bars: numberOf(draft.bars),
          };
  const typed = draft.expires.trim();
  const expires = typed === '' ? null : fromFieldValue(typed) || typed;
  return {
    symbol: draft.symbol,
    condition,
    frequency: draft.frequency,
    expires,
    note: draft.note.trim() === '' ? null : draft.note,
    ...(id === undefined && draft.channels === null ? {} : { channels: draft.channels && [...draft.channels] }),
    ...(id === undefined ? {} : { id, update: true }),
  };
}

/** A refusal of a form: the field, as the server names it (`condition.upper`), and what is wrong. */
export interface FieldProblem {
  readonly field: string;
  readonly message: string;
}

/** What the contract's body schema refuses in a body, naming the field as the server does, or null. */
export function bodyProblem(body: unknown): FieldProblem | null {
  const result = alertsApi.postStockalerts.body.safeParse(body);
  if (result.success) return null;
  const issue = result.error.issues[0];
  if (!issue) return null;
  const field = issue.path.map(String).join('.');
  return { field: field || 'body', message: issue.message };
}

/**
 * What is wrong with a draft, as the server would say it, or null when it may be sent; an expiry not after `now`
 * is refused here already, with now in the zone the form is in (the server's refusal names both in UTC).
 */
export function draftProblem(draft: ConditionDraft, id?: string, now: number = Date.now()): FieldProblem | null {
  const body = requestOf(draft, id);
  const problem = bodyProblem(body);
  if (problem !== null) return problem;
  if (typeof body.expires === 'string' && Date.parse(body.expires) <= now) {
    return { field: 'expires', message: `is not after now (${formatDateTime(now)}): set a later time, or clear it` };
  }
  return null;
}

/**
 * The label of a moving condition's amount: `By (%)` for the `_pct` operators (percent of the series' value),
 * `By (points)` for the day's change (in percentage points), else `By` (in the series' unit).
 */
export function movingLabel(op: AlertOp, source: AlertSource): string {
  if (op.endsWith('_pct')) return 'By (%)';
  return sourceKind(source) === 'changepct' ? 'By (points)' : 'By';
}

/**
 * The words of the form's control a refused field is in (`condition.upper.ref` → `Upper`), as the builder labels
 * them for `op`; the field itself for one the form does not show.
 */
export function fieldLabel(field: string, op: AlertOp, source: AlertSource = 'price'): string {
  const [head, part] = field.split('.');
  if (head !== 'condition') {
    const labels: Record<string, string> = {
      symbol: 'Symbol',
      frequency: 'Frequency',
      expires: 'Expires',
      note: 'Note',
      channels: 'Deliver to',
    };
    return labels[field] ?? labels[head!] ?? field;
  }
  switch (part) {
    case 'op':
      return 'Operator';
    case 'source':
      return 'Source';
    case 'lower':
      return 'Lower';
    case 'upper':
      return 'Upper';
    case 'bars':
      return 'Bars';
    case 'value':
      return opFields(op) === 'moving' ? movingLabel(op, source) : 'Level';
    default:
      return field;
  }
}

/**
 * A problem as the builder shows it: the field by its control's words, then the reason (`Upper: must be above
 * lower (190)`); a refusal of the whole request (`body`: the account's alert limit, a lost connection) as its own
 * words, capitalised (`Alerts: already 500 held; at most 500, delete one first`).
 */
export function problemText(problem: FieldProblem, op: AlertOp, source?: AlertSource): string {
  if (problem.field === 'body') return problem.message.charAt(0).toUpperCase() + problem.message.slice(1);
  return `${fieldLabel(problem.field, op, source)}: ${opsInWords(problem.message)}`;
}

/** A refusal's operators as the builder names them (`is required for greater_than` → `… for Greater Than`). */
function opsInWords(message: string): string {
  return message.replace(/\b(for|by) ([a-z_]+)\b/g, (whole, word: string, op: string) =>
    op in OP_LABELS ? `${word} ${OP_LABELS[op as AlertOp]}` : whole,
  );
}

/** The field a server refusal names (`body.condition.upper: must be …` → `condition.upper`), or null. */
export function refusalField(message: string): string | null {
  const parts = refusalParts(message);
  return parts === null || parts.part !== 'body' || parts.path === '' ? null : parts.path;
}
