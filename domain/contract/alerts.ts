/**
 * The alert routes of the API: create, change (re-arm), pause, resume, delete and read alerts and their trigger
 * history. An alert is a condition on a symbol (an operator, a source series, its levels), a frequency and an
 * optional expiry; the older price and moving-average bodies (`close`, `alerttype`, `kind`, `period`) keep
 * working and are conditions too.
 */
import { z } from './zod.ts';
import {
  ALERTS_ACTIONS,
  ALERTS_LIMIT,
  ALERT_SMA_PERIODS,
  ALERT_THRESHOLD_MAX,
  thresholdProblem,
} from '../alerts/alerts.ts';
import {
  ALERT_BARS_MAX,
  ALERT_EMA_PERIODS,
  ALERT_FREQUENCIES,
  ALERT_OPS,
  ALERT_RSI_PERIOD,
  isConditionProblem,
  parseCondition,
  parseExpires,
  parseFrequency,
  parseNote,
  ALERT_NOTE_MAX,
  type AlertOp,
  type AlertOperand,
  type AlertSource,
} from '../alerts/conditions.ts';
import { deletedAnswer, idParams, symbolParams, symbolSchema } from './common.ts';
import { route } from './route.ts';
import { alertChannelsField } from './channels.ts';

/**
 * The operators, each with an example, for the reference (the README lists the same). Levels are in the
 * source's unit: dollars for `price`, `sma:*` and `ema:*`, points for `rsi:14`, shares for `volume`, percent
 * for `changepct`; a level of a series in dollars may be another series in dollars of the symbol,
 * `{"ref": "sma:50"}`.
 */
export const ALERT_OP_EXAMPLES: Readonly<Record<AlertOp, string>> = Object.freeze({
  crossing:
    '`{"op":"crossing","value":190}`: the previous value was below 190 and the new one is at or above it, or the previous above and the new at or below',
  crossing_up:
    '`{"op":"crossing_up","value":{"ref":"sma:50"}}`: the price was below its 50-day SMA and is now at or above it (the first tick after arming only sets the previous value); `{"op":"crossing_up","source":"sma:50","value":{"ref":"sma:200"}}` is the golden cross',
  crossing_down:
    '`{"op":"crossing_down","source":"ema:12","value":{"ref":"ema:26"}}`: the 12-day EMA was above the 26-day EMA and is now at or below it',
  greater_than: '`{"op":"greater_than","value":190}`: the price is at or above 190.00',
  less_than: '`{"op":"less_than","source":"rsi:14","value":30}`: RSI(14) is at or below 30',
  entering_channel:
    '`{"op":"entering_channel","lower":180,"upper":190}`: the price was outside 180–190 and is now inside (bounds included)',
  exiting_channel:
    '`{"op":"exiting_channel","lower":180,"upper":190}`: the price was inside 180–190 and is now outside',
  inside_channel:
    '`{"op":"inside_channel","lower":{"ref":"sma:50"},"upper":200}`: the price is between its 50-day SMA and 200',
  outside_channel:
    '`{"op":"outside_channel","source":"changepct","lower":-2,"upper":2}`: the day\'s change is below -2% or above +2%',
  moving_up:
    '`{"op":"moving_up","value":5,"bars":3}`: the price is at least 5.00 above the close before its last 3 daily bars (today\'s forming bar included; bars defaults to 1, i.e. since the last close)',
  moving_down:
    '`{"op":"moving_down","source":"volume","value":1000000}`: volume is at least 1,000,000 below the last bar\'s',
  moving_up_pct: '`{"op":"moving_up_pct","value":3,"bars":5}`: the price is at least 3% above the close 5 bars ago',
  moving_down_pct: '`{"op":"moving_down_pct","value":2}`: the price is at least 2% below the last close',
});

/** A condition as it is answered: every field present, null when the operator does not use it. */
export const conditionAnswer = z.object({
  op: z.enum(ALERT_OPS),
  source: z.string(),
  value: z.union([z.number(), z.object({ ref: z.string() })]).nullable(),
  lower: z.union([z.number(), z.object({ ref: z.string() })]).nullable(),
  upper: z.union([z.number(), z.object({ ref: z.string() })]).nullable(),
  bars: z.number().nullable(),
});

/**
 * An alert as the API answers it. `condition` says what it watches (`conditiontext` in words), `frequency` how
 * often it may fire, `expires` when it stops (null: never); `status` is `armed` (waiting; repeating alerts stay
 * armed after firing), `triggered` (a once alert that fired), `paused` or `expired`; `lastfired` and
 * `triggercount` tell its firings. The older fields stay: `kind` `PRICE` (with `threshold` and `alerttype`),
 * `SMA` (with `period` and `alerttype`) or `CONDITION` (threshold and alerttype null) for any other alert.
 */
export const alertAnswer = z.object({
  id: z.string(),
  symbol: z.string(),
  threshold: z.number().nullable(),
  alerttype: z.enum(['U', 'D']).nullable(),
  kind: z.enum(['PRICE', 'SMA', 'CONDITION']),
  period: z.number().optional(),
  status: z.enum(['armed', 'triggered', 'paused', 'expired']),
  createdt: z.string(),
  condition: conditionAnswer,
  conditiontext: z.string(),
  frequency: z.enum(ALERT_FREQUENCIES),
  expires: z.string().nullable(),
  lastfired: z.string().nullable(),
  triggercount: z.number().int(),
  /** The user's note, shown with each firing, or null. */
  note: z.string().nullable(),
  /** The ids of the channels its triggers are delivered to besides the bell, or null for every channel. */
  channels: z.array(z.string()).nullable(),
});

/** What the API answers for an alert. */
export type AlertAnswer = z.infer<typeof alertAnswer>;

/** One firing of an alert, as its history lists it. */
export const alertTriggerAnswer = z.object({
  /**
   * The trigger's id: its notification's id in the bell, and what its deliveries name (`triggerId`); null for a
   * firing kept before triggers were identified in the history.
   */
  id: z.string().nullable(),
  /** When it fired (ISO 8601). */
  at: z.string(),
  /** The price then. */
  price: z.number(),
  /** The source's value that met the condition (the price for price alerts), or null when unknown. */
  value: z.number().nullable(),
  /** The notification text. */
  message: z.string(),
  /** The notification type (1 Price, 2 SMA, 3 EMA, 4 RSI, 5 Volume, 6 Change %). */
  notificationtype: z.number().int(),
  /** The alert's note when it fired, or null. */
  note: z.string().nullable(),
});

/** One firing of an alert. */
export type AlertTriggerAnswer = z.infer<typeof alertTriggerAnswer>;

/** What the API says of a threshold that breaks the rule of {@link thresholdProblem}. */
export const THRESHOLD_MESSAGES = {
  not_a_number: 'must be a number',
  below_minimum: 'must be at least 0.01',
  above_maximum: `must be at most ${ALERT_THRESHOLD_MAX}`,
} as const;

/** The body of `POST /personalize/stockalerts` in its checked form (upper-case codes), as the web app sends it. */
export type AlertRequest = z.output<typeof alertBody>;

/** A condition as a client writes it: `source` defaults to `price`, unused fields may be left out. */
export interface AlertConditionBody {
  readonly op: AlertOp;
  readonly source?: AlertSource | null;
  readonly value?: AlertOperand | null;
  readonly lower?: AlertOperand | null;
  readonly upper?: AlertOperand | null;
  readonly bars?: number | null;
}

/** A level in the reference: a number, or another series of the same symbol as `{ref}`. */
const OPERAND_JSON_SCHEMA = {
  anyOf: [
    { type: 'number' },
    {
      type: 'object',
      properties: { ref: { type: 'string', description: 'price, sma:<period> or ema:<period>' } },
      required: ['ref'],
    },
    { type: 'null' },
  ],
};

/**
 * The shape of a condition in the reference (the API reads it with `parseCondition`, which names the field it
 * refuses; the reference says what it takes).
 */
const CONDITION_JSON_SCHEMA = {
  type: 'object',
  properties: {
    op: { type: 'string', enum: [...ALERT_OPS] },
    source: {
      type: ['string', 'null'],
      description: `price (default), sma:<${ALERT_SMA_PERIODS.join('|')}>, ema:<${ALERT_EMA_PERIODS.min}..${ALERT_EMA_PERIODS.max}>, rsi:${ALERT_RSI_PERIOD}, volume or changepct`,
    },
    value: OPERAND_JSON_SCHEMA,
    lower: OPERAND_JSON_SCHEMA,
    upper: OPERAND_JSON_SCHEMA,
    bars: { type: ['integer', 'null'], minimum: 1, maximum: ALERT_BARS_MAX },
  },
  required: ['op'],
  additionalProperties: false,
};

const upperCase = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.string().trim().toUpperCase().pipe(z.enum(values));

/**
 * The alert data. With `condition` (`{op, source?, value?, lower?, upper?, bars?}`, see {@link ALERT_OP_EXAMPLES})
 * the alert is any condition, with `frequency` (`once` default, `once_per_bar`, `once_per_bar_close`,
 * `every_time`) and `expires` (ISO time or null); a refusal names the field (`condition.upper: …`), also for a
 * level or a move the source can never make (an RSI above 100, a price at or below 0). Without it,
 * the chart's older body: `close` is the threshold of a price alert (required, above 0, at most 1,000,000;
 * kept to the cent) and is accepted but ignored on an SMA alert, which needs `period` instead; `alerttype`
 * (`U`/`D`) is required.
 */
const alertBody = z
  // A field of no alert is refused rather than left out: a misspelt `frequncy` would make an alert that fires once.
  .strictObject({
    symbol: symbolSchema,
    condition: z.custom<AlertConditionBody>().meta(CONDITION_JSON_SCHEMA).nullish(),
    frequency: z
      .custom<(typeof ALERT_FREQUENCIES)[number]>()
      .meta({ type: 'string', enum: [...ALERT_FREQUENCIES] })
      .nullish(),
    expires: z.string().nullish(),
    note: z
      .string()
      .nullish()
      .describe(`the user's own words, shown with each firing: one line of at most ${ALERT_NOTE_MAX} characters`),
    close: z.number().nullish(),
    alerttype: upperCase(['U', 'D']).nullish(),
    id: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters').nullish(),
    update: z.boolean().nullish(),
    kind: upperCase(['PRICE', 'SMA']).nullish(),
    period: z.number().nullish(),
    /** The channels its triggers are delivered to; absent: every channel of the user. */
    channels: alertChannelsField,
  })
  .superRefine((body, ctx) => {
    const refuse = (field: string, message: string): void =>
      ctx.addIssue({ code: 'custom', path: field.split('.'), message });
    if (body.update === true && (body.id === null || body.id === undefined))
      refuse('id', 'is required with update: true');
    const frequency = parseFrequency(body.frequency);
    if (isConditionProblem(frequency)) refuse(frequency.field, frequency.message);
    const expires = parseExpires(body.expires);
    if (isConditionProblem(expires)) refuse(expires.field, expires.message);
    const note = parseNote(body.note);
    if (isConditionProblem(note)) refuse(note.field, note.message);
    if (body.condition !== null && body.condition !== undefined) {
      // The older body's fields would be ignored: say so rather than make an alert other than the one meant.
      for (const field of ['close', 'alerttype', 'kind', 'period'] as const) {
        if (body[field] !== null && body[field] !== undefined) refuse(field, 'is not used with condition');
      }
      const condition = parseCondition(body.condition);
      if (isConditionProblem(condition)) refuse(condition.field, condition.message);
      return;
    }
    const older = [body.close, body.alerttype, body.kind, body.period].some((v) => v !== null && v !== undefined);
    // An update that sends neither keeps the alert's condition.
    if (body.update === true && !older) return;
    if (body.alerttype === null || body.alerttype === undefined) {
      refuse('alerttype', 'is required (U or D) for a price or SMA alert; or send a condition');
      return;
    }
    if (body.kind === 'SMA') {
      if (typeof body.period !== 'number' || !(ALERT_SMA_PERIODS as readonly number[]).includes(body.period)) {
        refuse('period', `must be one of ${ALERT_SMA_PERIODS.join(', ')} for an SMA alert`);
      }
      return;
    }
    const close = body.close;
    if (close === null || close === undefined) {
      refuse('close', 'is required for a price alert (the threshold)');
    } else {
      const problem = thresholdProblem(close);
      if (problem !== null) refuse('close', THRESHOLD_MESSAGES[problem]);
    }
  });

/**
 * The body of an action on several alerts: `delete`, `pause` or `resume`, and the alerts (1 to
 * {@link ALERTS_LIMIT} ids, each once).
 */
const alertsActionBody = z
  .strictObject({
    action: z
      .string({ error: `must be one of ${ALERTS_ACTIONS.join(', ')}` })
      .trim()
      .toLowerCase()
      .pipe(z.enum(ALERTS_ACTIONS, { error: `must be one of ${ALERTS_ACTIONS.join(', ')}` })),
    ids: z
      .array(z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'))
      .min(1, 'must name at least one alert')
      .max(ALERTS_LIMIT, `must name at most ${ALERTS_LIMIT} alerts`),
  })
  .superRefine((body, ctx) => {
    const seen = new Map<string, number>();
    body.ids.forEach((id, k) => {
      const first = seen.get(id.toLowerCase());
      if (first !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['ids', k], message: `is ids[${first}] again` });
      }
      seen.set(id.toLowerCase(), first ?? k);
    });
  });

/** What an action on several alerts answers. */
export const alertsActionAnswer = z.object({
  action: z.enum(ALERTS_ACTIONS),
  /** The alerts done (changed, or already as asked: a paused alert paused again), in the order sent. */
  done: z.array(z.string()),
  /** For a pause or a resume, the alerts done as they now are, in the same order; empty for a delete. */
  alerts: z.array(alertAnswer),
  /** The alerts left as they were, and why (the refusal of the alert's own route). */
  failed: z.array(z.object({ id: z.string(), message: z.string() })),
});

/** What an action on several alerts answers. */
export type AlertsActionAnswer = z.infer<typeof alertsActionAnswer>;

const alertOpsDescription = ALERT_OPS.map((op) => `${op}: ${ALERT_OP_EXAMPLES[op]}`).join('; ');

/** The alerts routes. */
export const alertsApi = {
  postStockalerts: route({
    method: 'POST',
    path: '/personalize/stockalerts',
    summary: `Create an alert, or with update: true and an id change one and re-arm it (a condition, frequency, expires or note it leaves out stays the alert's own: sending neither condition nor the older body's fields keeps the condition). Body {symbol, condition: {op, source?, value?, lower?, upper?, bars?}, frequency?, expires?, note?, id?, update?}; sources price, sma:20|50|100|200, ema:<2..200>, rsi:14, volume, changepct; frequencies once, once_per_bar, once_per_bar_close, every_time; expires an ISO time with its zone or null; note the user's own words shown with each firing (one line, at most ${ALERT_NOTE_MAX} characters; null clears it); a level {ref} names price, sma or ema and only on those sources. Operators: ${alertOpsDescription}. The older body {symbol, close, alerttype, kind?, period?} still makes price and SMA alerts`,
    tag: 'alerts',
    access: 'user',
    body: alertBody,
    response: alertAnswer,
  }),
  getStockalerts: route({
    method: 'GET',
    path: '/personalize/stockalerts',
    summary: "All the user's alerts, oldest first",
    tag: 'alerts',
    access: 'user',
    response: z.array(alertAnswer),
  }),
  getStockalertsBySymbol: route({
    method: 'GET',
    path: '/personalize/stockalerts/:symbol',
    summary:
      "The user's alerts on one symbol, oldest first; a symbol the universe does not hold is refused (400 naming params.symbol) unless the user has alerts on it",
    tag: 'alerts',
    access: 'user',
    params: symbolParams,
    response: z.array(alertAnswer),
  }),
  postDeletealertById: route({
    method: 'POST',
    path: '/personalize/deletealert/:id',
    summary: "Delete one of the user's alerts",
    tag: 'alerts',
    access: 'user',
    params: idParams,
    response: deletedAnswer,
  }),
  postStockalertsPause: route({
    method: 'POST',
    path: '/personalize/stockalerts/:id/pause',
    summary: 'Pause an armed alert: it does not fire until resumed (pausing a paused alert changes nothing)',
    tag: 'alerts',
    access: 'user',
    params: idParams,
    response: alertAnswer,
  }),
  postStockalertsResume: route({
    method: 'POST',
    path: '/personalize/stockalerts/:id/resume',
    summary: 'Resume a paused alert, armed afresh (its crossing state starts again; an expired alert is refused)',
    tag: 'alerts',
    access: 'user',
    params: idParams,
    response: alertAnswer,
  }),
  postStockalertsBulk: route({
    method: 'POST',
    path: '/personalize/stockalerts/bulk',
    summary: `Delete, pause or resume several of the user's alerts in one request and one append. Body {action: "delete"|"pause"|"resume", ids: [1 to ${ALERTS_LIMIT} alert ids, each once]}. Each alert is treated as its own route would treat it; those it refuses (no such alert, not armed, not paused, expired) are left as they are and listed in failed with the reason, the others are done. Answers {action, done: the ids done in the order sent, alerts: for pause and resume the alerts done as they now are, failed: [{id, message}]}`,
    tag: 'alerts',
    access: 'user',
    body: alertsActionBody,
    response: alertsActionAnswer,
  }),
  getStockalertsHistory: route({
    method: 'GET',
    path: '/personalize/stockalerts/:id/history',
    summary:
      "The firings of one of the user's alerts, newest first (its latest 1,000): id (what its deliveries name as triggerId), time, price, the source's value, message",
    tag: 'alerts',
    access: 'user',
    params: idParams,
    response: z.array(alertTriggerAnswer),
  }),
};
