/**
 * The alert language: an operator, the series it watches (its source) and the levels it compares with, each a
 * number or another series of the same symbol; how often it may fire (its frequency) and when it stops.
 * Pure and shared: the gateway checks bodies with {@link conditionProblem}, the decider checks commands with it,
 * the engine evaluates what it accepts, and the web app and the bell write a condition in words with
 * {@link conditionText}.
 */
import { formatFixed, formatPrice } from '../format.ts';
import { NOTIFICATION_TYPE, type NotificationType } from '../notifications/notifications.ts';
import { SMA_PERIODS, type SmaPeriod } from '../screener/query.ts';
import { PLAIN_TEXT_MESSAGE, isPlainText } from '../text.ts';

/** The operators, TradingView's thirteen. */
export const ALERT_OPS = [
  'crossing',
  'crossing_up',
  'crossing_down',
  'greater_than',
  'less_than',
  'entering_channel',
  'exiting_channel',
  'inside_channel',
  'outside_channel',
  'moving_up',
  'moving_down',
  'moving_up_pct',
  'moving_down_pct',
] as const;

/** An operator. */
export type AlertOp = (typeof ALERT_OPS)[number];

/** How often an alert may fire. */
export const ALERT_FREQUENCIES = ['once', 'once_per_bar', 'once_per_bar_close', 'every_time'] as const;

/** A frequency: `once` (then `triggered`), at most once per trading day, on the day's closing bar, on every new truth. */
export type AlertFrequency = (typeof ALERT_FREQUENCIES)[number];

/** Shortest and longest EMA period a source may name. */
export const ALERT_EMA_PERIODS = Object.freeze({ min: 2, max: 200 });

/** The RSI period a source may name. */
export const ALERT_RSI_PERIOD = 14;

/** Longest window of the moving operators, in daily bars (today's forming bar included). */
export const ALERT_BARS_MAX = 200;

/** Largest absolute number a level may be. */
export const ALERT_LEVEL_MAX = 1_000_000_000_000;

/** Highest price, average or move in dollars a level may be (the price alerts' highest threshold). */
export const ALERT_PRICE_MAX = 1_000_000;

/**
 * A series of the symbol: `price`, `sma:<20|50|100|200>`, `ema:<2..200>`, `rsi:14`, `volume` (the day's shares)
 * or `changepct` (the day's change in percent). Indicators take today's forming bar as their last close.
 */
export type AlertSource =
  'price' | `sma:${SmaPeriod}` | `ema:${number}` | `rsi:${typeof ALERT_RSI_PERIOD}` | 'volume' | 'changepct';

/** A level: a number in the source's unit, or another series of the same symbol (`{"ref": "sma:50"}`). */
export type AlertOperand = number | { readonly ref: AlertSource };

/** What an alert watches. */
export interface AlertCondition {
  /** The operator. */
  readonly op: AlertOp;
  /** The series watched (default `price`). */
  readonly source: AlertSource;
  /** The level (crossing, greater/less) or the amount (moving; percent for the `_pct` ones); null otherwise. */
  readonly value: AlertOperand | null;
  /** Channel operators: the channel's lower bound; null otherwise. */
  readonly lower: AlertOperand | null;
  /** Channel operators: the channel's upper bound; null otherwise. */
  readonly upper: AlertOperand | null;
  /** Moving operators: the window in daily bars, today's forming bar included (default 1); null otherwise. */
  readonly bars: number | null;
}

/** The kinds of series, each with its notification type. */
export type AlertSourceKind = 'price' | 'sma' | 'ema' | 'rsi' | 'volume' | 'changepct';

/**
 * Notification types of fired alerts, by the kind of series that decided them: 1 Price and 2 SMA (as before),
 * 3 EMA, 4 RSI, 5 Volume, 6 Change %. A price compared with a series takes that series' type (price crossing
 * its 50-day SMA is an SMA notification).
 */
export const SOURCE_NOTIFICATION_TYPE: Readonly<Record<AlertSourceKind, NotificationType>> = Object.freeze({
  price: NOTIFICATION_TYPE.PRICE,
  sma: NOTIFICATION_TYPE.SMA,
  ema: NOTIFICATION_TYPE.EMA,
  rsi: NOTIFICATION_TYPE.RSI,
  volume: NOTIFICATION_TYPE.VOLUME,
  changepct: NOTIFICATION_TYPE.CHANGE,
});

/** Operators comparing with one level (`value`). */
export const LEVEL_OPS: readonly AlertOp[] = ['crossing', 'crossing_up', 'crossing_down', 'greater_than', 'less_than'];

/** Operators on a channel (`lower`, `upper`). */
export const CHANNEL_OPS: readonly AlertOp[] = [
  'entering_channel',
  'exiting_channel',
  'inside_channel',
  'outside_channel',
];

/** Operators on a move over a window of bars (`value`, `bars`). */
export const MOVING_OPS: readonly AlertOp[] = ['moving_up', 'moving_down', 'moving_up_pct', 'moving_down_pct'];

/**
 * The way the source goes for a condition with `op` to hold: `up` (crossing up, greater than, moving up by an
 * amount or a percent), `down` (their mirrors), or null (crossing either way, the channels).
 */
export function opDirection(op: AlertOp): 'up' | 'down' | null {
  if (op === 'crossing_up' || op === 'greater_than' || op === 'moving_up' || op === 'moving_up_pct') return 'up';
  if (op === 'crossing_down' || op === 'less_than' || op === 'moving_down' || op === 'moving_down_pct') return 'down';
  return null;
}

/** Operators that fire on a change between two ticks, never on the first tick after arming. */
export const EDGE_OPS: readonly AlertOp[] = [
  'crossing',
  'crossing_up',
  'crossing_down',
  'entering_channel',
  'exiting_channel',
];

const SOURCE_PATTERN = /^(price|volume|changepct|sma:(\d{1,3})|ema:(\d{1,3})|rsi:(\d{1,3}))$/;

/** The kind of a source. */
export function sourceKind(source: AlertSource): AlertSourceKind {
  const colon = source.indexOf(':');
  return (colon < 0 ? source : source.slice(0, colon)) as AlertSourceKind;
}

/** The period of an indicator source (`sma:50` → 50), or null. */
export function sourcePeriod(source: AlertSource): number | null {
  const colon = source.indexOf(':');
  return colon < 0 ? null : Number(source.slice(colon + 1));
}

/**
 * A source written by a user, as the product reads it (`SMA:50` and `sma:050` → `sma:50`), or a message naming
 * what is wrong.
 */
export function parseSource(text: unknown): AlertSource | { readonly problem: string } {
  const expected = `must be price, sma:<${SMA_PERIODS.join('|')}>, ema:<${ALERT_EMA_PERIODS.min}..${ALERT_EMA_PERIODS.max}>, rsi:${ALERT_RSI_PERIOD}, volume or changepct`;
  if (typeof text !== 'string') return { problem: expected };
  const source = text.trim().toLowerCase();
  const match = SOURCE_PATTERN.exec(source);
  const emaPeriod = `ema period must be a whole number from ${ALERT_EMA_PERIODS.min} to ${ALERT_EMA_PERIODS.max}`;
  // An EMA of a period that is no number (`ema:abc`, `ema:`) is told as one, not as an unknown series.
  if (!match) return { problem: source.startsWith('ema:') ? emaPeriod : expected };
  if (match[2] !== undefined) {
    const period = Number(match[2]);
    if (!(SMA_PERIODS as readonly number[]).includes(period)) {
      return { problem: `sma period must be one of ${SMA_PERIODS.join(', ')}` };
    }
    return `sma:${period as SmaPeriod}`;
  }
  if (match[3] !== undefined) {
    const period = Number(match[3]);
    if (period < ALERT_EMA_PERIODS.min || period > ALERT_EMA_PERIODS.max) {
      return { problem: emaPeriod };
    }
    return `ema:${period}`;
  }
  if (match[4] !== undefined) {
    if (Number(match[4]) !== ALERT_RSI_PERIOD) return { problem: `rsi period must be ${ALERT_RSI_PERIOD}` };
    return `rsi:${ALERT_RSI_PERIOD}`;
  }
  return source as AlertSource;
}

/** A refusal of a condition: the field (`condition.upper`) and what is wrong with it. */
export interface ConditionProblem {
  /** The field, from the body's root (`condition.upper`, `frequency`). */
  readonly field: string;
  /** What is wrong. */
  readonly message: string;
}

/** A condition as a body or a command carries it: anything, until {@link parseCondition} accepts it. */
export interface ConditionInput {
  readonly op?: unknown;
  readonly source?: unknown;
  readonly value?: unknown;
  readonly lower?: unknown;
  readonly upper?: unknown;
  readonly bars?: unknown;
}

/** Whether a source is in dollars: the price and its averages, the only series compared with one another. */
export function isPriceLike(source: AlertSource): boolean {
  const kind = sourceKind(source);
  return kind === 'price' || kind === 'sma' || kind === 'ema';
}

function parseOperand(value: unknown, field: string, source: AlertSource): AlertOperand | ConditionProblem {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { field, message: 'must be a finite number' };
    if (isPriceLike(source)) {
      if (value > ALERT_PRICE_MAX) return { field, message: `must be at most ${ALERT_PRICE_MAX} (a price in dollars)` };
    } else if (Math.abs(value) > ALERT_LEVEL_MAX) {
      return { field, message: `must be at most ${ALERT_LEVEL_MAX} in size` };
    }
    return value;
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (keys.length !== 1 || keys[0] !== 'ref') {
      return { field, message: 'must be a number or {"ref": "<source>"}' };
    }
    // Another series is a level only where both are in dollars: RSI points, shares or percent would be compared
    // with a price in cents as if they were one unit.
    if (!isPriceLike(source)) {
      return {
        field,
        message: `must be a number for ${sourceText(source)} (only prices and their averages take a series as level)`,
      };
    }
    const ref = parseSource((value as { ref: unknown }).ref);
    if (typeof ref !== 'string') return { field: `${field}.ref`, message: ref.problem };
    if (ref === source) return { field: `${field}.ref`, message: 'must name a series other than the source' };
    if (!isPriceLike(ref)) {
      return {
        field: `${field}.ref`,
        message: `must be price, an SMA or an EMA (a level of ${sourceText(source)} is in dollars)`,
      };
    }
    return { ref };
  }
  return { field, message: 'must be a number or {"ref": "<source>"}' };
}

/**
 * Why a constant level can never be met by a source's values, or null: prices and their averages are above 0,
 * RSI from 0 to 100, volume 0 or more, and the day's change above −100%.
 */
function levelOutside(source: AlertSource, level: number): string | null {
  switch (sourceKind(source)) {
    case 'price':
    case 'sma':
    case 'ema':
      return level > 0 ? null : `must be above 0 for ${source === 'price' ? 'a price' : sourceText(source)}`;
    case 'rsi':
      return level >= 0 && level <= 100 ? null : `must be from 0 to 100 for ${sourceText(source)}`;
    case 'volume':
      return level >= 0 ? null : 'must be 0 or more for volume';
    default:
      return level > -100 ? null : "must be above -100 for the day's change in percent";
  }
}

/** Why a moving operator's amount can never be met, or null: RSI moves less than 100 points, nothing falls 100%. */
function amountBeyond(source: AlertSource, op: AlertOp, amount: number): string | null {
  const kind = sourceKind(source);
  if (kind === 'rsi' && !op.endsWith('_pct') && amount >= 100) {
    return `must be below 100 for ${sourceText(source)} (it moves within 0 to 100)`;
  }
  if (op === 'moving_down_pct' && kind !== 'changepct' && amount >= 100) {
    return 'must be below 100 (a fall of 100% or more cannot happen)';
  }
  return null;
}

function isProblem(value: unknown): value is ConditionProblem {
  return typeof value === 'object' && value !== null && 'field' in value && 'message' in value;
}

/** The fields a condition may have. */
const CONDITION_FIELDS = [
  'op',
  'source',
  'value',
  'lower',
  'upper',
  'bars',
] as const satisfies readonly (keyof ConditionInput)[];

const absent = (value: unknown): boolean => value === undefined || value === null;

/**
 * Reads a condition: the operator, the source (default `price`) and the fields the operator needs, refusing
 * the first field that is wrong or does not belong (`condition.upper: is required for entering_channel`).
 * A price level must be above 0; a constant channel must have `lower` below `upper`; `bars` is 1 to
 * {@link ALERT_BARS_MAX}; moving amounts are above 0 and numbers.
 */
export function parseCondition(input: unknown, prefix = 'condition'): AlertCondition | ConditionProblem {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { field: prefix, message: 'must be an object {op, source?, value?, lower?, upper?, bars?}' };
  }
  // A field of no condition is refused rather than left out: a misspelt `sorce` would make a price alert.
  const unknown = Object.keys(input).find((key) => !(CONDITION_FIELDS as readonly string[]).includes(key));
  if (unknown !== undefined) {
    return { field: `${prefix}.${unknown}`, message: `is not a field of a condition (${CONDITION_FIELDS.join(', ')})` };
  }
  const body = input as ConditionInput;
  const op = typeof body.op === 'string' ? body.op.trim().toLowerCase() : body.op;
  if (typeof op !== 'string' || !(ALERT_OPS as readonly string[]).includes(op)) {
    return { field: `${prefix}.op`, message: `must be one of ${ALERT_OPS.join(', ')}` };
  }
  const alertOp = op as AlertOp;
  const source = absent(body.source) ? 'price' : parseSource(body.source);
  if (typeof source !== 'string') return { field: `${prefix}.source`, message: source.problem };
  const level = (value: unknown, field: string): AlertOperand | ConditionProblem => {
    const operand = parseOperand(value, `${prefix}.${field}`, source);
    if (isProblem(operand) || typeof operand !== 'number') return operand;
    const outside = levelOutside(source, operand);
    return outside === null ? operand : { field: `${prefix}.${field}`, message: outside };
  };
  const refuse = (field: string): ConditionProblem => ({
    field: `${prefix}.${field}`,
    message: `is not used by ${alertOp}`,
  });
  const need = (field: string): ConditionProblem => ({
    field: `${prefix}.${field}`,
    message: `is required for ${alertOp}`,
  });
  if (LEVEL_OPS.includes(alertOp)) {
    if (absent(body.value)) return need('value');
    for (const field of ['lower', 'upper', 'bars'] as const) if (!absent(body[field])) return refuse(field);
    const value = level(body.value, 'value');
    if (isProblem(value)) return value;
    return { op: alertOp, source, value, lower: null, upper: null, bars: null };
  }
  if (CHANNEL_OPS.includes(alertOp)) {
    if (absent(body.lower)) return need('lower');
    if (absent(body.upper)) return need('upper');
    for (const field of ['value', 'bars'] as const) if (!absent(body[field])) return refuse(field);
    const lower = level(body.lower, 'lower');
    if (isProblem(lower)) return lower;
    const upper = level(body.upper, 'upper');
    if (isProblem(upper)) return upper;
    if (typeof lower === 'number' && typeof upper === 'number' && !(lower < upper)) {
      return { field: `${prefix}.upper`, message: `must be above lower (${lower})` };
    }
    if (typeof lower !== 'number' && typeof upper !== 'number' && lower.ref === upper.ref) {
      return { field: `${prefix}.upper`, message: 'must name a series other than lower' };
    }
    return { op: alertOp, source, value: null, lower, upper, bars: null };
  }
  if (absent(body.value)) return need('value');
  for (const field of ['lower', 'upper'] as const) if (!absent(body[field])) return refuse(field);
  const value = body.value;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    return {
      field: `${prefix}.value`,
      message: `must be a number above 0 (${alertOp.endsWith('_pct') ? 'percent' : 'an amount'})`,
    };
  }
  const inDollars = isPriceLike(source) && !alertOp.endsWith('_pct');
  if (value > (inDollars ? ALERT_PRICE_MAX : ALERT_LEVEL_MAX)) {
    return {
      field: `${prefix}.value`,
      message: inDollars
        ? `must be at most ${ALERT_PRICE_MAX} (an amount in dollars)`
        : `must be at most ${ALERT_LEVEL_MAX}`,
    };
  }
  const beyond = amountBeyond(source, alertOp, value);
  if (beyond !== null) return { field: `${prefix}.value`, message: beyond };
  const bars = absent(body.bars) ? 1 : body.bars;
  if (typeof bars !== 'number' || !Number.isInteger(bars) || bars < 1 || bars > ALERT_BARS_MAX) {
    return { field: `${prefix}.bars`, message: `must be a whole number from 1 to ${ALERT_BARS_MAX}` };
  }
  return { op: alertOp, source, value, lower: null, upper: null, bars };
}

/**
 * A moving operator's level from the value back then (`base`) and its amount (in the feed's unit, or a percent
 * when `pct`): non-decreasing in the amount when `up`, non-increasing otherwise, in floating point too (each step
 * is a rounded monotonic operation), so alerts sorted by amount keep their levels sorted whatever the base.
 */
export function movingLevelOf(up: boolean, pct: boolean, base: number, amount: number): number {
  if (Number.isNaN(base)) return NaN;
  const move = pct ? (Math.abs(base) * amount) / 100 : amount;
  return up ? base + move : base - move;
}

/** Reads a frequency (default `once`), or a refusal naming `frequency`. */
export function parseFrequency(input: unknown): AlertFrequency | ConditionProblem {
  if (absent(input)) return 'once';
  const text = typeof input === 'string' ? input.trim().toLowerCase() : input;
  if (typeof text !== 'string' || !(ALERT_FREQUENCIES as readonly string[]).includes(text)) {
    return { field: 'frequency', message: `must be one of ${ALERT_FREQUENCIES.join(', ')}` };
  }
  return text as AlertFrequency;
}

/** The latest expiry an alert may have: the last millisecond of year 9999 (UTC). */
const LATEST_EXPIRY_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** An ISO time with its zone: date, hours and minutes, seconds and their fraction optional, `Z` or an offset. */
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

/**
 * Reads an expiry: null (open-ended) or an ISO time with its zone, normalised to `toISOString()`; or a refusal
 * naming `expires`. A day or a time that does not exist (`2027-02-30`, `24:00`) is refused rather than rolled over
 * to another, and a time without a zone, which the server would read in its own, is refused too.
 */
export function parseExpires(input: unknown): string | null | ConditionProblem {
  if (absent(input)) return null;
  const text = typeof input === 'string' ? input.trim() : '';
  const match = ISO_TIME.exec(text);
  if (!match) {
    return { field: 'expires', message: 'must be an ISO time with its zone (2026-12-31T21:00:00Z) or null' };
  }
  const part = (i: number): number => Number(match[i] ?? 0);
  const [month, day] = [part(2), part(3)];
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(part(1), month, 0)).getUTCDate()) {
    return { field: 'expires', message: `${text.slice(0, 10)} is not a date` };
  }
  if (part(4) > 23 || part(5) > 59 || part(6) > 59 || part(7) > 23 || part(8) > 59) {
    return { field: 'expires', message: `${text.slice(11)} is not a time of day with its zone` };
  }
  const instant = Date.parse(text);
  // Beyond year 9999 the instant's ISO form takes six digits and a sign (`+010000-01-01T…`), which no reader of
  // four-digit years (this one included, on the alert's next update) takes back.
  if (instant > LATEST_EXPIRY_MS) {
    return { field: 'expires', message: `must be no later than ${new Date(LATEST_EXPIRY_MS).toISOString()}` };
  }
  return new Date(instant).toISOString();
}

/**
 * The longest note an alert may carry, in characters as a reader counts them (grapheme clusters: an emoji is one,
 * a family, a flag or one with its skin tone too).
 */
export const ALERT_NOTE_MAX = 200;
/**
 * Code points a note may hold at most: a character may take several (a family emoji up to 7), but not without
 * bound (a letter under a thousand combining marks is one character too).
 */
const NOTE_CODE_POINTS_MAX = ALERT_NOTE_MAX * 8;
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** Characters as a reader counts them (grapheme clusters). */
function characters(text: string): number {
  let count = 0;
  for (const _ of graphemes.segment(text)) count += 1;
  return count;
}

/**
 * Reads an alert's note (the user's own words, shown with each of its firings): null when absent or blank, else
 * the text trimmed, one line of at most {@link ALERT_NOTE_MAX} characters; or a refusal naming `note`.
 */
export function parseNote(input: unknown): string | null | ConditionProblem {
  if (absent(input)) return null;
  if (typeof input !== 'string') return { field: 'note', message: 'must be text or null' };
  const text = input.trim();
  if (text === '') return null;
  const codePoints = [...text].length;
  if (codePoints > NOTE_CODE_POINTS_MAX) {
    return { field: 'note', message: `must be at most ${ALERT_NOTE_MAX} characters, got ${codePoints} code points` };
  }
  const length = characters(text);
  if (length > ALERT_NOTE_MAX) {
    return { field: 'note', message: `must be at most ${ALERT_NOTE_MAX} characters, got ${length}` };
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(text)) {
    return { field: 'note', message: 'must be one line, without control characters' };
  }
  if (!isPlainText(text)) return { field: 'note', message: PLAIN_TEXT_MESSAGE };
  return text;
}

/** Whether a value is a refusal rather than what was read. */
export function isConditionProblem(value: unknown): value is ConditionProblem {
  return isProblem(value);
}

/** The notification type of a condition: its source's kind, or for a price compared with a series, that series'. */
export function conditionNotificationType(condition: AlertCondition): NotificationType {
  if (condition.source === 'price') {
    for (const operand of [condition.value, condition.lower, condition.upper]) {
      if (typeof operand === 'object' && operand !== null) return SOURCE_NOTIFICATION_TYPE[sourceKind(operand.ref)];
    }
  }
  return SOURCE_NOTIFICATION_TYPE[sourceKind(condition.source)];
}

/** A source in words: `price`, `50-day SMA`, `12-day EMA`, `RSI(14)`, `volume`, `change %`. */
export function sourceText(source: AlertSource): string {
  const period = sourcePeriod(source);
  switch (sourceKind(source)) {
    case 'sma':
      return `${period}-day SMA`;
    case 'ema':
      return `${period}-day EMA`;
    case 'rsi':
      return `RSI(${period})`;
    case 'volume':
      return 'volume';
    case 'changepct':
      return 'change %';
    default:
      return 'price';
  }
}

function numberText(value: number, source: AlertSource): string {
  const kind = sourceKind(source);
  if (kind === 'price' || kind === 'sma' || kind === 'ema') return formatPrice(value);
  if (kind === 'changepct') return `${value}%`;
  if (kind === 'volume') return value.toLocaleString('en-US');
  return String(value);
}

/**
 * The amount of a moving condition: percent of the series' value for the `_pct` operators (`5%`), else in the
 * series' unit (`2.50` dollars, `10` RSI points, `1,000` shares), the day's change in percentage points (`1 pt`,
 * `2.5 pts`) so that it does not read as the percent of its value.
 */
function movingAmount(condition: AlertCondition): string {
  const value = condition.value as number;
  if (condition.op.endsWith('_pct')) return `${value}%`;
  if (sourceKind(condition.source) === 'changepct') return `${value} ${value === 1 ? 'pt' : 'pts'}`;
  return numberText(value, condition.source);
}

/**
 * A value of a series as a trigger's message and the alert's history show it: volume in whole shares, the day's
 * change in percent, the others with two decimals, dollars with thousands separators too (`1,250.00`). A value
 * that rounds to zero shows no sign (a change of -0.001% is `0.00%`, not `-0.00%`).
 */
export function formatSourceValue(source: AlertSource, value: number): string {
  const kind = sourceKind(source);
  if (kind === 'volume') return Math.round(value).toLocaleString('en-US');
  if (kind === 'changepct') return `${formatFixed(value)}%`;
  const fixed = formatFixed(value);
  return kind === 'rsi' || Number(fixed) === 0 ? fixed : formatPrice(value);
}

/**
 * The values, when an alert fired, of its levels that are not constants, in their series' unit: another series
 * (`{"ref": "sma:50"}`) or a moving operator's level. Null where the level is a constant or was unknown.
 */
export interface FiredLevels {
  /** The level, or the channel's lower bound; a moving operator's level. */
  readonly level: number | null;
  /** The channel's upper bound. */
  readonly upper: number | null;
}

/** An operand in words; another series with its value when it fired (`the 50-day SMA (186.42)`), when given. */
function operandText(operand: AlertOperand | null, source: AlertSource, fired: number | null = null): string {
  if (operand === null) return '?';
  if (typeof operand === 'number') return numberText(operand, source);
  const value = fired !== null && Number.isFinite(fired) ? ` (${formatSourceValue(operand.ref, fired)})` : '';
  return `the ${sourceText(operand.ref)}${value}`;
}

/** The words of each operator, between the source and its level. */
const OP_WORDS: Readonly<Record<AlertOp, string>> = Object.freeze({
  crossing: 'crosses',
  crossing_up: 'crosses above',
  crossing_down: 'crosses below',
  greater_than: 'is at or above',
  less_than: 'is at or below',
  entering_channel: 'enters the channel',
  exiting_channel: 'exits the channel',
  inside_channel: 'is inside the channel',
  outside_channel: 'is outside the channel',
  moving_up: 'moves up by',
  moving_down: 'moves down by',
  moving_up_pct: 'moves up by',
  moving_down_pct: 'moves down by',
});

/**
 * A condition in words, e.g. `Price crosses above 190.00`, `Price crosses above the 50-day SMA`,
 * `RSI(14) is at or below 30`, `Price enters the channel 180.00 – 190.00`, `Price moves up by 5% in 3 bars`;
 * with `symbol` it starts with it (`AAPL price crosses above 190.00`). With `fired`, the levels that are not
 * constants say what they were when it fired: `Price crosses above the 50-day SMA (186.42)`, `Price moves up by
 * 5% in 3 bars (to 191.10)`.
 */
export function conditionText(condition: AlertCondition, symbol?: string, fired?: FiredLevels): string {
  const subject = sourceText(condition.source);
  const head = symbol === undefined ? subject.charAt(0).toUpperCase() + subject.slice(1) : `${symbol} ${subject}`;
  const words = OP_WORDS[condition.op];
  const level = fired?.level ?? null;
  if (CHANNEL_OPS.includes(condition.op)) {
    const lower = operandText(condition.lower, condition.source, level);
    return `${head} ${words} ${lower} – ${operandText(condition.upper, condition.source, fired?.upper ?? null)}`;
  }
  if (MOVING_OPS.includes(condition.op)) {
    const amount = movingAmount(condition);
    const bars = condition.bars ?? 1;
    const to = level !== null && Number.isFinite(level) ? ` (to ${formatSourceValue(condition.source, level)})` : '';
    return `${head} ${words} ${amount} in ${bars === 1 ? '1 bar' : `${bars} bars`}${to}`;
  }
  return `${head} ${words} ${operandText(condition.value, condition.source, level)}`;
}

/** A source as a chart's tag writes it: `SMA 50`, `EMA 12`, `RSI 14`, `Volume`, `Change %`, `Price`. */
export function sourceTag(source: AlertSource): string {
  const period = sourcePeriod(source);
  switch (sourceKind(source)) {
    case 'sma':
      return `SMA ${period}`;
    case 'ema':
      return `EMA ${period}`;
    case 'rsi':
      return `RSI ${period}`;
    case 'volume':
      return 'Volume';
    case 'changepct':
      return 'Change %';
    default:
      return 'Price';
  }
}

/** Each operator as a tag writes it, before its level (a moving one's before its amount). */
const OP_TAGS: Readonly<Record<AlertOp, string>> = Object.freeze({
  crossing: 'Cross',
  crossing_up: 'Cross ▲',
  crossing_down: 'Cross ▼',
  greater_than: '≥',
  less_than: '≤',
  entering_channel: 'Enter',
  exiting_channel: 'Exit',
  inside_channel: 'Inside',
  outside_channel: 'Outside',
  moving_up: '▲',
  moving_down: '▼',
  moving_up_pct: '▲',
  moving_down_pct: '▼',
});

/** A crossing's operator in a brief tag: its direction only, before its level (`▲ 190.00`). */
const BRIEF_CROSSINGS: Readonly<Partial<Record<AlertOp, string>>> = Object.freeze({
  crossing: '↕',
  crossing_up: '▲',
  crossing_down: '▼',
});

/** An operand as a tag writes it: a number in its source's unit, or another series' short name. */
function operandTag(operand: AlertOperand | null, source: AlertSource): string {
  if (operand === null) return '?';
  return typeof operand === 'number' ? numberText(operand, source) : sourceTag(operand.ref);
}

/**
 * A condition as the chart's tag on its line or band writes it, short enough to sit right of the latest candle
 * (the words are {@link conditionText}'s): `Cross ▲ 190.00`, `≥ SMA 50`, `Enter 180.00 – 190.00`,
 * `▲ 5% in 3 bars`; a source other than the price first (`RSI 14 ≤ 30`, `SMA 50 Cross SMA 200`). `brief`, where
 * even that is too wide (a phone's chart): a channel's operator without its bounds, which its band shows
 * (`Enter`), a move without its window (`▲ 5%`), a crossing's direction without the word (`▲ 190.00`, `↕ SMA
 * 50`); a level's tag is brief already (`≥ 190.00`).
 */
export function conditionTag(condition: AlertCondition, brief = false): string {
  const head = condition.source === 'price' ? '' : `${sourceTag(condition.source)} `;
  const op = OP_TAGS[condition.op];
  if (CHANNEL_OPS.includes(condition.op)) {
    if (brief) return `${head}${op}`;
    const lower = operandTag(condition.lower, condition.source);
    return `${head}${op} ${lower} – ${operandTag(condition.upper, condition.source)}`;
  }
  if (MOVING_OPS.includes(condition.op)) {
    const amount = movingAmount(condition);
    if (brief) return `${head}${op} ${amount}`;
    const bars = condition.bars ?? 1;
    return `${head}${op} ${amount} in ${bars === 1 ? '1 bar' : `${bars} bars`}`;
  }
  const shown = brief ? (BRIEF_CROSSINGS[condition.op] ?? op) : op;
  return `${head}${shown} ${operandTag(condition.value, condition.source)}`;
}

/** A frequency in words. */
export const FREQUENCY_TEXT: Readonly<Record<AlertFrequency, string>> = Object.freeze({
  once: 'Only once',
  once_per_bar: 'Once per bar',
  once_per_bar_close: 'Once per bar close',
  every_time: 'Every time',
});

/** The condition of a price alert (`U` at or above, `D` at or below a threshold in dollars). */
export function priceCondition(alerttype: 'U' | 'D', threshold: number): AlertCondition {
  return {
    op: alerttype === 'U' ? 'greater_than' : 'less_than',
    source: 'price',
    value: threshold,
    lower: null,
    upper: null,
    bars: null,
  };
}

/** The condition of a moving-average alert: the price crossing its SMA upward (`U`) or downward (`D`). */
export function smaCondition(alerttype: 'U' | 'D', period: SmaPeriod): AlertCondition {
  return {
    op: alerttype === 'U' ? 'crossing_up' : 'crossing_down',
    source: 'price',
    value: { ref: `sma:${period}` },
    lower: null,
    upper: null,
    bars: null,
  };
}

/** The operands a condition compares with, for walking its references. */
export function conditionOperands(condition: AlertCondition): AlertOperand[] {
  return [condition.value, condition.lower, condition.upper].filter((o): o is AlertOperand => o !== null);
}

/** The condition's identity as text (same text, same condition), e.g. to group alerts that share one. */
export function conditionKey(condition: AlertCondition): string {
  const operand = (o: AlertOperand | null): string =>
    o === null ? '' : typeof o === 'number' ? String(o) : `@${o.ref}`;
  return `${condition.op}|${condition.source}|${operand(condition.value)}|${operand(condition.lower)}|${operand(condition.upper)}|${condition.bars ?? ''}`;
}
