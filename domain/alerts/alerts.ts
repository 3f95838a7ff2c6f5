/**
 * Alerts: a user arms a condition on a symbol (an operator, a source series and its levels; see
 * `conditions.ts`), with a frequency and an optional expiry; the engine fires it (`AlertTriggered`, which
 * carries the notification's type and message) as often as its frequency allows, and expires it
 * (`AlertExpired`). The user may pause and resume it, and a change re-arms it. The old price and
 * moving-average alerts are conditions too (`greater_than`/`less_than` the price, `crossing_up`/`crossing_down`
 * its SMA) and keep their fields and messages. Price thresholds are compared in integer cents, so no float
 * equality trap decides whether an alert fires.
 */
import { DomainError, eventTypes, type Decider, type DomainEvent, unknownCommand } from '../decider.ts';
import { STOCKPULSE_NAMESPACE, isUuid, uuidV5 } from '../ids.ts';
import { NOTIFICATION_TYPE, type NotificationType } from '../notifications/notifications.ts';
import { SMA_PERIODS, type SmaPeriod } from '../screener/query.ts';
import { parseSymbol } from '../symbol.ts';
import {
  ALERT_PRICE_MAX,
  conditionNotificationType,
  conditionOperands,
  conditionText,
  formatSourceValue,
  isConditionProblem,
  parseCondition,
  parseExpires,
  parseFrequency,
  parseNote,
  priceCondition,
  smaCondition,
  sourceKind,
  sourcePeriod,
  type AlertCondition,
  type AlertFrequency,
  type ConditionProblem,
  type FiredLevels,
} from './conditions.ts';

/** The concern name of alert streams (`alerts-<userId>`). */
export const ALERTS_CONCERN = 'alerts';

/**
 * The key of a user's alert wherever one is kept per alert (the engine's index, the `alerts` and `alerthistory`
 * read models): `<userId>/<alertId>`. User ids never hold a `/` (`USERNAME_PATTERN`), so the first `/` ends the
 * user id.
 */
export function alertKey(userId: string, alertId: string): string {
  return `${userId}/${alertId}`;
}

/** Most alerts one user may hold. */
export const ALERTS_LIMIT = 500;

/** Highest price threshold accepted, in dollars (as high as any level in dollars). */
export const ALERT_THRESHOLD_MAX = ALERT_PRICE_MAX;

/** The moving-average periods an SMA alert may watch. */
export const ALERT_SMA_PERIODS: readonly SmaPeriod[] = SMA_PERIODS;

/** `U` fires on the way up (at or above), `D` on the way down (at or below). */
export type AlertDirection = 'U' | 'D';

/**
 * `PRICE`: the price at or above (`U`) or at or below (`D`) a threshold, once; `SMA`: the price crossing its
 * simple moving average, once; `CONDITION`: any other condition or frequency.
 */
export type AlertKind = 'PRICE' | 'SMA' | 'CONDITION';

/**
 * `armed` waits for its condition (repeating alerts stay armed after firing), `triggered` has fired (once),
 * `paused` was paused by the user, `expired` passed its expiry.
 */
export type AlertStatus = 'armed' | 'triggered' | 'paused' | 'expired';

/** What the user sets on an alert. */
export interface AlertDefinition {
  /** The symbol watched. */
  readonly symbol: string;
  /** What it watches. */
  readonly condition: AlertCondition;
  /** How often it may fire. */
  readonly frequency: AlertFrequency;
  /** When it stops (ISO 8601), or null for open-ended. */
  readonly expires: string | null;
  /** Price, moving-average or other alert (the older alerts' fields below describe the first two). */
  readonly kind: AlertKind;
  /** Price and SMA alerts: direction, `U` up, `D` down; null for other conditions. */
  readonly alerttype: AlertDirection | null;
  /** Price alerts: the threshold in dollars, rounded to the cent; null otherwise. */
  readonly threshold: number | null;
  /** Price alerts: the threshold in integer cents; null otherwise. */
  readonly thresholdCents: number | null;
  /** SMA alerts: the moving-average period in days; null otherwise. */
  readonly period: SmaPeriod | null;
  /** The user's own words about it (what to do when it fires), shown with each firing; null for none. */
  readonly note: string | null;
}

/** One alert of a user. */
export interface Alert extends AlertDefinition {
  /** The alert id, derived from the id of the command that created it. */
  readonly id: string;
  /** Armed or triggered. */
  readonly status: AlertStatus;
  /** When it was created (ISO 8601). */
  readonly createdt: string;
  /** When it was last created, changed or fired (ISO 8601). */
  readonly updatedt: string;
  /** How many times it was armed (1 on creation, one more per change or resume); keys the trigger command id. */
  readonly arming: number;
  /** How many times it fired in its current arming (keys the command id of `every_time` triggers). */
  readonly firings: number;
  /** How many times it fired in all. */
  readonly triggerCount: number;
  /** When it last fired (ISO 8601), or null. */
  readonly lastFired: string | null;
  /** The trading day (`YYYY-MM-DD`) of its last firing in this arming, or null: once per bar fires once a day. */
  readonly lastFiredDay: string | null;
}

/**
 * The alert fields a create or update command carries, as the user sent them: a `condition` (with
 * `frequency` and `expires`), or the older price and SMA fields (`kind`, `alerttype`, `threshold`, `period`).
 */
export interface AlertInput {
  /** The alert id: new (derived from the command id) on create, existing on update. */
  readonly alertId: string;
  /** The symbol; case does not matter. */
  readonly symbol: string;
  /** The condition (see `parseCondition`); when absent the older fields below say what the alert is. */
  readonly condition?: unknown;
  /** `once` (default), `once_per_bar`, `once_per_bar_close` or `every_time`. */
  readonly frequency?: unknown;
  /** An ISO time, or null/absent for open-ended. */
  readonly expires?: unknown;
  /** A note of at most 200 characters (see `parseNote`); null or blank for none; absent on an update keeps it. */
  readonly note?: unknown;
  /** Without a condition: price or moving-average alert. */
  readonly kind?: 'PRICE' | 'SMA' | null;
  /** Without a condition: direction. */
  readonly alerttype?: AlertDirection | null;
  /** Without a condition: the price threshold in dollars; required for price alerts, ignored for SMA alerts. */
  readonly threshold?: number | null;
  /** Without a condition: the moving-average period; required for SMA alerts, ignored for price alerts. */
  readonly period?: number | null;
  /** When the command was issued (ISO 8601). */
  readonly at: string;
}

/** Creates an armed alert. */
export type CreateAlert = DomainEvent<'CreateAlert', AlertInput>;

/** Changes an existing alert and re-arms it. */
export type UpdateAlert = DomainEvent<'UpdateAlert', AlertInput>;

/** Deletes an alert. */
export type DeleteAlert = DomainEvent<'DeleteAlert', { readonly alertId: string }>;

/** Pauses an armed alert: it does not fire until resumed. */
export type PauseAlert = DomainEvent<'PauseAlert', { readonly alertId: string; readonly at: string }>;

/** Resumes a paused alert, re-arming it (its crossing state starts afresh). */
export type ResumeAlert = DomainEvent<'ResumeAlert', { readonly alertId: string; readonly at: string }>;

/** What an action on several alerts does to each: what its own command does. */
export const ALERTS_ACTIONS = ['delete', 'pause', 'resume'] as const;

/** One of {@link ALERTS_ACTIONS}. */
export type AlertsAction = (typeof ALERTS_ACTIONS)[number];

/**
 * Deletes, pauses or resumes several alerts at once, each as its own command would (`DeleteAlert`, `PauseAlert`,
 * `ResumeAlert`), in one append; the alerts those commands refuse are left as they are (see {@link actOnAlerts}).
 */
export type ActOnAlerts = DomainEvent<
  'ActOnAlerts',
  { readonly action: AlertsAction; readonly alertIds: readonly string[]; readonly at: string }
>;

/** Expires an alert whose expiry has passed at `at` (issued by the engine); decides nothing otherwise. */
export type ExpireAlert = DomainEvent<'ExpireAlert', { readonly alertId: string; readonly at: string }>;

/**
 * Fires an armed alert (issued by the engine); decides nothing when the alert is gone, not armed, expired at
 * `at`, already fired on `day` (once per bar, once per bar close), or (every time) when `firing` is not past
 * the firings recorded or `at` is not after the last firing (a replayed tick).
 */
export type TriggerAlert = DomainEvent<
  'TriggerAlert',
  {
    /** The alert. */
    readonly alertId: string;
    /** The price that met the condition. */
    readonly price: number;
    /** The day's change in percent at that price. */
    readonly changepct: number;
    /** When the price was seen (ISO 8601). */
    readonly at: string;
    /** SMA alerts: the moving average that was crossed, for the message. */
    readonly sma?: number | null;
    /** The source's value that met the condition (for the history and the message). */
    readonly value?: number | null;
    /**
     * The level, or the channel's lower bound, when it is another series or a moving level: its value then, in
     * its series' unit (for the message).
     */
    readonly level?: number | null;
    /** The channel's upper bound when it is another series: its value then (for the message). */
    readonly upper?: number | null;
    /** Once per bar (close): the trading day `YYYY-MM-DD` it fires for. */
    readonly day?: string | null;
    /** Every time: which firing of this arming this is (1, 2, …). */
    readonly firing?: number | null;
  }
>;

/** Every command of the alerts concern. */
export type AlertsCommand =
  CreateAlert | UpdateAlert | DeleteAlert | PauseAlert | ResumeAlert | ActOnAlerts | ExpireAlert | TriggerAlert;

/**
 * The definition an event carries: `condition`, `frequency` and `expires` are absent on events written before
 * conditions existed, which are read as the price or SMA alert their older fields describe.
 */
export type AlertEventDefinition = Omit<AlertDefinition, 'condition' | 'frequency' | 'expires' | 'note'> &
  Partial<Pick<AlertDefinition, 'condition' | 'frequency' | 'expires' | 'note'>>;

/** The payload of {@link AlertCreated}. */
export interface AlertCreatedData extends AlertEventDefinition {
  /** The new alert's id. */
  readonly alertId: string;
  /** When it was created. */
  readonly createdt: string;
}

/** The payload of {@link AlertUpdated}: the alert's whole new definition. */
export interface AlertUpdatedData extends AlertEventDefinition {
  /** The alert's id. */
  readonly alertId: string;
  /** When it was changed. */
  readonly updatedt: string;
}

/** The payload of {@link AlertTriggered}: everything the notification needs. */
export interface AlertTriggeredData {
  /** The alert's id. */
  readonly alertId: string;
  /** Its symbol. */
  readonly symbol: string;
  /** Price or SMA alert. */
  readonly kind: AlertKind;
  /** Its direction. */
  readonly alerttype: AlertDirection | null;
  /** Price alerts: the threshold in dollars; null for SMA alerts. */
  readonly threshold: number | null;
  /** SMA alerts: the period; null for price alerts. */
  readonly period: SmaPeriod | null;
  /** The price that met the condition. */
  readonly price: number;
  /** The day's change in percent. */
  readonly changepct: number;
  /** SMA alerts: the moving average crossed, when the engine gave it; null otherwise. */
  readonly sma: number | null;
  /** 1 Price, 2 SMA, 3 EMA, 4 RSI, 5 Volume, 6 Change % (see `conditionNotificationType`). */
  readonly notificationtype: NotificationType;
  /** The notification text, built by {@link alertMessage} or {@link conditionMessage}. */
  readonly message: string;
  /** When it fired (ISO 8601). */
  readonly at: string;
  /** The condition that fired (absent on events written before conditions existed). */
  readonly condition?: AlertCondition;
  /** Its frequency. */
  readonly frequency?: AlertFrequency;
  /** The source's value that met the condition, or null. */
  readonly value?: number | null;
  /** Once per bar (close): the trading day it fired for; null otherwise. */
  readonly day?: string | null;
  /** Which firing of the arming this is (1 for a once alert). */
  readonly firing?: number;
  /** The alert's note when it fired, or null (absent on events written before notes existed). */
  readonly note?: string | null;
}

/** An alert was created, armed. */
export type AlertCreated = DomainEvent<'AlertCreated', AlertCreatedData>;

/** An alert was changed and re-armed. */
export type AlertUpdated = DomainEvent<'AlertUpdated', AlertUpdatedData>;

/** An alert was deleted. */
export type AlertDeleted = DomainEvent<'AlertDeleted', { readonly alertId: string; readonly symbol: string }>;

/** An armed alert fired; a `once` alert stays `triggered` until the user changes it, others stay armed. */
export type AlertTriggered = DomainEvent<'AlertTriggered', AlertTriggeredData>;

/** What the pause, resume and expiry events carry. */
export interface AlertStatusChangeData {
  /** The alert's id. */
  readonly alertId: string;
  /** Its symbol. */
  readonly symbol: string;
  /** When (ISO 8601). */
  readonly at: string;
}

/** The user paused an alert. */
export type AlertPaused = DomainEvent<'AlertPaused', AlertStatusChangeData>;

/** The user resumed a paused alert; it is armed afresh. */
export type AlertResumed = DomainEvent<'AlertResumed', AlertStatusChangeData>;

/** An alert passed its expiry; it no longer fires. */
export type AlertExpired = DomainEvent<'AlertExpired', AlertStatusChangeData>;

/** Every event of the alerts concern. */
export type AlertsEvent =
  AlertCreated | AlertUpdated | AlertDeleted | AlertTriggered | AlertPaused | AlertResumed | AlertExpired;

/** Every event type of the alerts concern, for consumers that read them all. */
export const ALERT_EVENT_TYPES = eventTypes<AlertsEvent>()(
  'AlertCreated',
  'AlertUpdated',
  'AlertDeleted',
  'AlertTriggered',
  'AlertPaused',
  'AlertResumed',
  'AlertExpired',
);

/** A user's alerts, oldest first. */
export interface AlertsState {
  /** The alerts, in the order they were created. */
  readonly alerts: readonly Alert[];
}

/**
 * A dollar amount in integer cents, rounded half up on its shortest decimal form (190.005 → 19001, where
 * `Math.round(190.005 * 100)` would give 19000).
 */
export function toCents(amount: number): number {
  const text = String(amount);
  return Math.round(text.includes('e') ? amount * 100 : Number(`${text}e2`));
}

/** Integer cents as dollars with two decimals and thousands separators: 19000 → `190.00`, 125000 → `1,250.00`. */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.trunc(abs / 100).toLocaleString('en-US')}.${String(abs % 100).padStart(2, '0')}`;
}

/** What breaks the threshold rule of a price alert. */
export type ThresholdProblem = 'not_a_number' | 'below_minimum' | 'above_maximum';

/**
 * The threshold rule of a price alert, for the server and the chart alike: a finite number, at least 0.01 once
 * kept to the cent, at most {@link ALERT_THRESHOLD_MAX}; null when the threshold may be used.
 */
export function thresholdProblem(threshold: number): ThresholdProblem | null {
  if (!Number.isFinite(threshold)) return 'not_a_number';
  if (threshold <= 0 || toCents(threshold) < 1) return 'below_minimum';
  if (threshold > ALERT_THRESHOLD_MAX) return 'above_maximum';
  return null;
}

/** Whether a price alert's condition holds at a price: `U` at or above the threshold, `D` at or below, in cents. */
export function priceAlertFires(alert: Pick<Alert, 'alerttype' | 'thresholdCents'>, price: number): boolean {
  if (alert.thresholdCents === null || !Number.isFinite(price)) return false;
  const cents = toCents(price);
  return alert.alerttype === 'U' ? cents >= alert.thresholdCents : cents <= alert.thresholdCents;
}

/** The notification type of an alert kind: 1 for price alerts, 2 for SMA alerts (others: their condition's). */
export function notificationTypeOf(kind: AlertKind): NotificationType {
  return kind === 'SMA' ? NOTIFICATION_TYPE.SMA : NOTIFICATION_TYPE.PRICE;
}

/** What {@link alertMessage} needs to know of a fired alert. */
export interface AlertMessageInput {
  /** The symbol. */
  readonly symbol: string;
  /** Price or SMA alert. */
  readonly kind: AlertKind;
  /** Direction. */
  readonly alerttype: AlertDirection | null;
  /** Price alerts: the threshold in cents. */
  readonly thresholdCents: number | null;
  /** SMA alerts: the period. */
  readonly period: SmaPeriod | null;
  /** SMA alerts: the moving average crossed, when known. */
  readonly sma: number | null;
  /** The price it fired at, when known. */
  readonly price: number | null;
  /** The day's change in percent. */
  readonly changepct: number;
}

/**
 * The notification text of a fired alert. The event's direction is the sign the message carries: an upward
 * alert's message always contains `+`; a downward one always contains `-` and never `+`. A `-` also appears in
 * symbols (`BF-B`) and in `50-day`, so a reader tells the two apart by looking for `+` first. The day's change is written with its
 * sign when it agrees with the direction (or rounds to 0.00, which takes the direction's sign), e.g.
 * `AAPL rose above 190.00: 190.12 (+1.25% on the day)`, `AAPL fell below 180.00: 179.95 (-2.10% on the day)`,
 * `AAPL crossed above its 50-day SMA 187.32: 187.40 (+0.84% on the day)` (the price it fired at after the colon,
 * as in {@link conditionMessage}); when it disagrees the sign is followed by the change in words:
 * `AAPL rose above 190.00: 190.02 (+, though down 0.50% on the day)`. An alert fires at its level too: a price on
 * the level, to the cent, rose or fell to it (`AAPL fell to 180.00: 180.00 (-2.10% on the day)`).
 */
export function alertMessage(input: AlertMessageInput): string {
  const up = input.alerttype === 'U';
  const price = input.price;
  const known = price !== null && Number.isFinite(price) && price > 0;
  const smaKnown = input.sma !== null && Number.isFinite(input.sma) && input.sma > 0;
  // An alert fires at its level too (at or above, at or below): a price on the level, to the cent, reached it.
  const levelCents = input.kind === 'SMA' ? (smaKnown ? toCents(input.sma) : null) : input.thresholdCents;
  const reached = known && levelCents !== null && toCents(price) === levelCents;
  const level =
    input.kind === 'SMA'
      ? `its ${input.period ?? '?'}-day SMA${smaKnown ? ` ${formatCents(toCents(input.sma))}` : ''}`
      : formatCents(input.thresholdCents ?? 0);
  const crossed = input.kind === 'SMA' ? (up ? 'crossed above' : 'crossed below') : up ? 'rose above' : 'fell below';
  const head = `${input.symbol} ${reached ? (up ? 'rose to' : 'fell to') : crossed} ${level}`;
  const sign = up ? '+' : '-';
  const hundredths = Number.isFinite(input.changepct) ? toCents(Math.abs(input.changepct)) : 0;
  const magnitude = formatCents(hundredths);
  const agrees = hundredths === 0 || (up ? input.changepct > 0 : input.changepct < 0);
  const tail = agrees
    ? `${sign}${magnitude}% on the day`
    : `${sign}, though ${up ? 'down' : 'up'} ${magnitude}% on the day`;
  const at = known ? `: ${formatCents(toCents(price))}` : '';
  return `${head}${at} (${tail})`;
}

/** What {@link conditionMessage} needs to know of a fired alert. */
export interface ConditionMessageInput {
  /** The symbol. */
  readonly symbol: string;
  /** The condition. */
  readonly condition: AlertCondition;
  /** The price when it fired. */
  readonly price: number;
  /** The source's value when it fired, or null. */
  readonly value: number | null;
  /** The day's change in percent. */
  readonly changepct: number;
  /** The values of its levels that are not constants when it fired, if known. */
  readonly levels?: FiredLevels | null;
}

/**
 * The notification text of a condition other than the price and SMA alerts: the condition in words, the
 * source's value when it is not the price, the price and the day's signed change, e.g.
 * `AAPL RSI(14) is at or below 30: 28.41 at 182.50 (-2.10% on the day)`; a level that is another series or a
 * moving level with its value then, when known: `AAPL price crosses above the 50-day SMA (186.42): 186.50 (+0.40%
 * on the day)`.
 */
export function conditionMessage(input: ConditionMessageInput): string {
  const head = conditionText(input.condition, input.symbol, input.levels ?? undefined);
  const source = input.condition.source;
  const value =
    sourceKind(source) === 'price' || input.value === null || !Number.isFinite(input.value)
      ? ''
      : ` ${formatSourceValue(source, input.value)} at`;
  const hundredths = Number.isFinite(input.changepct) ? toCents(Math.abs(input.changepct)) : 0;
  const sign = hundredths === 0 ? '' : input.changepct > 0 ? '+' : '-';
  return `${head}:${value} ${formatCents(toCents(input.price))} (${sign}${formatCents(hundredths)}% on the day)`;
}

/** The alerts still waiting for their condition, for the engine's index. */
export function armedAlerts(state: AlertsState): readonly Alert[] {
  return state.alerts.filter((alert) => alert.status === 'armed');
}

/** Which firing of an alert a trigger is: its arming, and for repeating frequencies the day or the firing count. */
export interface TriggerKey {
  /** The alert's id. */
  readonly id: string;
  /** Its arming. */
  readonly arming: number;
  /** Once per bar (close): the trading day. */
  readonly day?: string | null;
  /** Every time: the firing count in the arming (1, 2, …). */
  readonly firing?: number | null;
}

/**
 * The command id under which the engine fires an alert: the alert and its arming, plus the trading day for
 * `once_per_bar` and `once_per_bar_close` or the firing count for `every_time`. A retried or replayed trigger
 * derives the same id, so it appends nothing new, and a restart the same day cannot fire a once-per-bar alert
 * again.
 */
export function triggerCommandId(key: TriggerKey): string {
  const suffix =
    key.day !== undefined && key.day !== null
      ? `/day/${key.day}`
      : key.firing !== undefined && key.firing !== null
        ? `/firing/${key.firing}`
        : '';
  return uuidV5(`alert-trigger/${key.id}/${key.arming}${suffix}`, STOCKPULSE_NAMESPACE);
}

/** The command id under which the engine expires an alert in an arming. */
export function expireCommandId(alert: Pick<Alert, 'id' | 'arming'>): string {
  return uuidV5(`alert-expire/${alert.id}/${alert.arming}`, STOCKPULSE_NAMESPACE);
}

/** Whether an alert has passed its expiry at an instant (ms since the epoch). */
export function isExpiredAt(alert: Pick<AlertDefinition, 'expires'>, ms: number): boolean {
  return alert.expires !== null && Date.parse(alert.expires) <= ms;
}

/**
 * The older alert fields of a condition: a price alert (`greater_than`/`less_than` a price, once), an SMA alert
 * (the price `crossing_up`/`crossing_down` its SMA, once) or `CONDITION` for anything else.
 */
export function legacyFields(
  condition: AlertCondition,
  frequency: AlertFrequency,
): Pick<AlertDefinition, 'kind' | 'alerttype' | 'threshold' | 'thresholdCents' | 'period'> {
  if (frequency === 'once' && condition.source === 'price') {
    const { op, value } = condition;
    if ((op === 'greater_than' || op === 'less_than') && typeof value === 'number') {
      const thresholdCents = toCents(value);
      return {
        kind: 'PRICE',
        alerttype: op === 'greater_than' ? 'U' : 'D',
        threshold: thresholdCents / 100,
        thresholdCents,
        period: null,
      };
    }
    if (
      (op === 'crossing_up' || op === 'crossing_down') &&
      typeof value === 'object' &&
      value !== null &&
      sourceKind(value.ref) === 'sma'
    ) {
      return {
        kind: 'SMA',
        alerttype: op === 'crossing_up' ? 'U' : 'D',
        threshold: null,
        thresholdCents: null,
        period: sourcePeriod(value.ref) as SmaPeriod,
      };
    }
  }
  return { kind: 'CONDITION', alerttype: null, threshold: null, thresholdCents: null, period: null };
}

function conditionError(problem: ConditionProblem): DomainError {
  const code =
    problem.field === 'frequency'
      ? 'invalid_frequency'
      : problem.field === 'expires'
        ? 'invalid_expires'
        : problem.field === 'note'
          ? 'invalid_note'
          : 'invalid_condition';
  return new DomainError(code, `${problem.field}: ${problem.message}`, problem.field);
}

/**
 * Price levels, and the moves in dollars of the moving operators on a price or an average, are kept to the cent,
 * under the price alerts' threshold rule (at least 0.01 once kept to the cent, at most
 * {@link ALERT_THRESHOLD_MAX}); a move in percent is kept as sent.
 */
function normaliseCondition(condition: AlertCondition): AlertCondition {
  const kind = sourceKind(condition.source);
  if (kind !== 'price' && kind !== 'sma' && kind !== 'ema') return condition;
  if (condition.bars !== null && condition.op.endsWith('_pct')) return condition;
  const cents = (field: 'value' | 'lower' | 'upper'): number | { readonly ref: AlertCondition['source'] } | null => {
    const operand = condition[field];
    if (typeof operand !== 'number') return operand;
    const problem = thresholdProblem(operand);
    if (problem !== null) {
      const what = condition.bars === null ? 'a price' : 'an amount';
      throw conditionError({
        field: `condition.${field}`,
        message:
          problem === 'above_maximum'
            ? `must be at most ${ALERT_THRESHOLD_MAX} (${what} in dollars)`
            : `must be at least 0.01 (${what} in dollars)`,
      });
    }
    return toCents(operand) / 100;
  };
  const next = { ...condition, value: cents('value'), lower: cents('lower'), upper: cents('upper') };
  if (typeof next.lower === 'number' && typeof next.upper === 'number' && !(next.lower < next.upper)) {
    throw conditionError({
      field: 'condition.upper',
      message: `must be above lower (${next.lower}) once kept to the cent`,
    });
  }
  return next;
}

function parseLegacyCondition(input: AlertInput): AlertCondition {
  const kind = input.kind ?? 'PRICE';
  if (kind !== 'PRICE' && kind !== 'SMA') {
    throw new DomainError('invalid_kind', `kind must be PRICE or SMA, got ${JSON.stringify(input.kind)}`, 'kind');
  }
  if (input.alerttype !== 'U' && input.alerttype !== 'D') {
    throw new DomainError(
      'invalid_alerttype',
      `alerttype must be U (up) or D (down), got ${JSON.stringify(input.alerttype)}`,
      'alerttype',
    );
  }
  if (kind === 'SMA') {
    const period = input.period;
    if (typeof period !== 'number' || !(ALERT_SMA_PERIODS as readonly number[]).includes(period)) {
      throw new DomainError(
        'invalid_period',
        `period must be one of ${ALERT_SMA_PERIODS.join(', ')} for an SMA alert, got ${JSON.stringify(period)}`,
        'period',
      );
    }
    return smaCondition(input.alerttype, period as SmaPeriod);
  }
  const threshold = input.threshold;
  const problem = typeof threshold === 'number' ? thresholdProblem(threshold) : 'not_a_number';
  if (problem !== null) {
    const message =
      problem === 'above_maximum'
        ? `threshold ${String(threshold)} is above the highest threshold ${ALERT_THRESHOLD_MAX}`
        : problem === 'below_minimum' && (threshold as number) > 0
          ? `threshold ${String(threshold)} rounds to 0.00; at least 0.01`
          : `threshold must be a number above 0, got ${String(threshold)}`;
    throw new DomainError('invalid_threshold', message, 'threshold');
  }
  return priceCondition(input.alerttype, toCents(threshold as number) / 100);
}

function parseDefinition(input: AlertInput): AlertDefinition {
  const symbol = parseSymbol(input.symbol, 'symbol');
  let condition: AlertCondition;
  if (input.condition === undefined || input.condition === null) {
    condition = parseLegacyCondition(input);
  } else {
    const parsed = parseCondition(input.condition);
    if (isConditionProblem(parsed)) throw conditionError(parsed);
    condition = normaliseCondition(parsed);
  }
  const frequency = parseFrequency(input.frequency);
  if (isConditionProblem(frequency)) throw conditionError(frequency);
  const expires = parseExpires(input.expires);
  if (isConditionProblem(expires)) throw conditionError(expires);
  const note = parseNote(input.note);
  if (isConditionProblem(note)) throw conditionError(note);
  return { symbol, condition, frequency, expires, ...legacyFields(condition, frequency), note };
}

function parseAlertId(alertId: unknown): string {
  if (typeof alertId !== 'string' || !isUuid(alertId)) {
    throw new DomainError('invalid_id', `alertId ${JSON.stringify(alertId)} is not an alert id`, 'alertId');
  }
  return alertId.toLowerCase();
}

function parseAt(at: unknown): number {
  const ms = typeof at === 'string' ? Date.parse(at) : NaN;
  if (!Number.isFinite(ms)) throw new DomainError('invalid_at', `at must be an ISO time, got ${String(at)}`, 'at');
  return ms;
}

function sameDefinition(a: AlertDefinition, b: AlertDefinition): boolean {
  return (
    a.symbol === b.symbol &&
    JSON.stringify(a.condition) === JSON.stringify(b.condition) &&
    a.frequency === b.frequency &&
    a.expires === b.expires &&
    a.note === b.note
  );
}

/** A definition as its event carries it: without a note when it has none, as events written before notes. */
function eventDefinition(definition: AlertDefinition): AlertEventDefinition {
  const { note, ...rest } = definition;
  return note === null ? rest : definition;
}

/**
 * Where each alert of a list is, by id (the first of an id, as `findIndex` finds it): kept beside the list, not in
 * the state, and never changed once made. It is made the first time a list longer than {@link SCANNED_UP_TO} is
 * searched, and shared by the list an event makes by replacing one alert in place (a trigger, a pause, an update),
 * so a command on a user's 500 alerts finds its alert without reading the 499 others (each a separate object in
 * memory). A short list is scanned, as a map would cost more than it saves (the engine folds each event into a
 * list of one alert).
 */
const positions = new WeakMap<readonly Alert[], ReadonlyMap<string, number>>();

/** The longest list searched by reading it rather than by its positions. */
const SCANNED_UP_TO = 16;

/** Where each alert of a list is, by id (the first of an id), read from the list. */
function firstPlaces(alerts: readonly Alert[]): Map<string, number> {
  const at = new Map<string, number>();
  alerts.forEach((alert, i) => {
    if (!at.has(alert.id)) at.set(alert.id, i);
  });
  return at;
}

function positionsOf(alerts: readonly Alert[]): ReadonlyMap<string, number> {
  let at = positions.get(alerts);
  if (at === undefined) positions.set(alerts, (at = firstPlaces(alerts)));
  return at;
}

/**
 * Where the alert `alertId` is in the state's list (its first, by exact id), or -1. `making` false: the list's
 * positions are used if known but not made, for a search that makes a list of another shape next (a new alert's,
 * whose list is one longer): made there, they would be made again for every alert a user arms.
 */
function positionOf(state: AlertsState, alertId: unknown, making = true): number {
  const { alerts } = state;
  const known = positions.get(alerts);
  if (known === undefined && (!making || alerts.length <= SCANNED_UP_TO)) {
    return alerts.findIndex((alert) => alert.id === alertId);
  }
  return typeof alertId === 'string' ? ((known ?? positionsOf(alerts)).get(alertId) ?? -1) : -1;
}

function findAlert(state: AlertsState, alertId: string, making = true): Alert | undefined {
  const index = positionOf(state, alertId, making);
  return index < 0 ? undefined : state.alerts[index];
}

/** The alert of exactly this id in a user's alerts (ids are lower case, as the decider writes them), if any. */
export function alertOf(state: AlertsState, alertId: string): Alert | undefined {
  return findAlert(state, alertId);
}

function requireAlert(state: AlertsState, alertId: string): Alert {
  const alert = findAlert(state, alertId);
  if (!alert) throw new DomainError('not_found', `alertId ${alertId}: no such alert`, 'alertId');
  return alert;
}

function requireFutureExpiry(definition: AlertDefinition, at: string): void {
  if (definition.expires !== null && Date.parse(definition.expires) <= parseAt(at)) {
    throw new DomainError('invalid_expires', `expires: ${definition.expires} is not after now (${at})`, 'expires');
  }
}

function checkNumber(value: unknown, field: string, positive: boolean): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || (positive && value <= 0)) {
    throw new DomainError(
      `invalid_${field}`,
      `${field} must be a ${positive ? 'number above 0' : 'number'}, got ${String(value)}`,
      field,
    );
  }
}

function decideTrigger(command: TriggerAlert, state: AlertsState): AlertsEvent[] {
  const { price, changepct, at } = command.data;
  const sma = command.data.sma ?? null;
  const value = command.data.value ?? null;
  const level = command.data.level ?? null;
  const upper = command.data.upper ?? null;
  const day = command.data.day ?? null;
  const firing = command.data.firing ?? null;
  checkNumber(price, 'price', true);
  checkNumber(changepct, 'changepct', false);
  if (sma !== null) checkNumber(sma, 'sma', true);
  if (value !== null) checkNumber(value, 'value', false);
  if (level !== null) checkNumber(level, 'level', false);
  if (upper !== null) checkNumber(upper, 'upper', false);
  if (day !== null && (typeof day !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(day))) {
    throw new DomainError('invalid_day', `day must be YYYY-MM-DD, got ${String(day)}`, 'day');
  }
  if (firing !== null && (typeof firing !== 'number' || !Number.isSafeInteger(firing) || firing < 1)) {
    throw new DomainError('invalid_firing', `firing must be a whole number from 1, got ${String(firing)}`, 'firing');
  }
  const atMs = parseAt(at);
  const alert = findAlert(state, parseAlertId(command.data.alertId));
  if (!alert || alert.status !== 'armed' || isExpiredAt(alert, atMs)) return [];
  switch (alert.frequency) {
    case 'once_per_bar':
    case 'once_per_bar_close':
      if (day === null || alert.lastFiredDay === day) return [];
      break;
    case 'every_time':
      // A later firing than the last, on a later tick: a retried or replayed trigger decides nothing.
      if (firing === null || firing <= alert.firings) return [];
      if (alert.lastFired !== null && atMs <= Date.parse(alert.lastFired)) return [];
      break;
    default:
      break;
  }
  const isSma = alert.kind === 'SMA';
  const message =
    alert.kind === 'CONDITION'
      ? conditionMessage({
          symbol: alert.symbol,
          condition: alert.condition,
          price,
          value,
          changepct,
          levels: { level, upper },
        })
      : alertMessage({ ...alert, sma: isSma ? sma : null, price, changepct });
  return [
    {
      type: 'AlertTriggered',
      data: {
        alertId: alert.id,
        symbol: alert.symbol,
        kind: alert.kind,
        alerttype: alert.alerttype,
        threshold: alert.threshold,
        period: alert.period,
        price,
        changepct,
        sma: isSma ? sma : null,
        notificationtype: conditionNotificationType(alert.condition),
        message,
        at,
        condition: alert.condition,
        frequency: alert.frequency,
        value,
        day: alert.frequency === 'once_per_bar' || alert.frequency === 'once_per_bar_close' ? day : null,
        firing: alert.frequency === 'every_time' && firing !== null ? firing : alert.firings + 1,
        ...(alert.note === null ? {} : { note: alert.note }),
      },
    },
  ];
}

/** Whether an alert input says what the alert is: a condition, or any of the older body's fields. */
function sendsCondition(input: AlertInput): boolean {
  return [input.condition, input.kind, input.alerttype, input.threshold, input.period].some((v) => v != null);
}

/**
 * An update's fields with the alert's own where the update sends none: its condition when neither a condition
 * nor an older body's field is sent, its frequency when absent or null, its expiry and note when absent
 * (`expires: null` makes the alert open-ended, `note: null` removes the note).
 */
function keptUnlessSent(input: AlertInput, alert: Alert): AlertInput {
  return {
    ...input,
    ...(sendsCondition(input) ? {} : { condition: alert.condition }),
    frequency: input.frequency ?? alert.frequency,
    expires: input.expires === undefined ? alert.expires : input.expires,
    note: input.note === undefined ? alert.note : input.note,
  };
}

function decide(command: AlertsCommand, state: AlertsState): AlertsEvent[] {
  switch (command.type) {
    case 'CreateAlert': {
      const alertId = parseAlertId(command.data.alertId);
      const definition = parseDefinition(command.data);
      requireFutureExpiry(definition, command.data.at);
      if (findAlert(state, alertId, false)) {
        throw new DomainError('taken', `alertId ${alertId}: an alert with this id exists`, 'alertId');
      }
      if (state.alerts.length >= ALERTS_LIMIT) {
        throw new DomainError(
          'limit',
          `alerts: already ${state.alerts.length} held; at most ${ALERTS_LIMIT}, delete one first`,
          'alerts',
        );
      }
      return [{ type: 'AlertCreated', data: { alertId, ...eventDefinition(definition), createdt: command.data.at } }];
    }
    case 'UpdateAlert': {
      const alertId = parseAlertId(command.data.alertId);
      const existing = findAlert(state, alertId);
      // An update that leaves the condition out is of an alert that exists.
      if (!existing && !sendsCondition(command.data)) requireAlert(state, alertId);
      const definition = parseDefinition(existing ? keptUnlessSent(command.data, existing) : command.data);
      if (existing && definition.symbol !== existing.symbol) {
        // An alert's levels, firings and history are of its symbol: another symbol is another alert.
        throw new DomainError(
          'invalid_symbol',
          `symbol: the alert is on ${existing.symbol}; an update keeps its symbol (create an alert on ` +
            `${definition.symbol} instead)`,
          'symbol',
        );
      }
      if (existing && command.data.expires === undefined && definition.expires !== null) {
        // The alert's own expiry, kept: one that has passed needs another.
        if (Date.parse(definition.expires) <= parseAt(command.data.at)) {
          throw new DomainError(
            'invalid_expires',
            `expires: the alert's own, ${definition.expires}, has passed; send a later one, or null for none`,
            'expires',
          );
        }
      }
      requireFutureExpiry(definition, command.data.at);
      const alert = requireAlert(state, alertId);
      if (alert.status === 'armed' && sameDefinition(alert, definition)) return [];
      return [{ type: 'AlertUpdated', data: { alertId, ...eventDefinition(definition), updatedt: command.data.at } }];
    }
    case 'DeleteAlert': {
      const alert = requireAlert(state, parseAlertId(command.data.alertId));
      return [{ type: 'AlertDeleted', data: { alertId: alert.id, symbol: alert.symbol } }];
    }
    case 'PauseAlert': {
      const alert = requireAlert(state, parseAlertId(command.data.alertId));
      parseAt(command.data.at);
      if (alert.status === 'paused') return [];
      if (alert.status !== 'armed') {
        throw new DomainError('not_armed', `alertId ${alert.id}: the alert is ${alert.status}, not armed`, 'alertId');
      }
      return [{ type: 'AlertPaused', data: { alertId: alert.id, symbol: alert.symbol, at: command.data.at } }];
    }
    case 'ResumeAlert': {
      const alert = requireAlert(state, parseAlertId(command.data.alertId));
      const atMs = parseAt(command.data.at);
      if (alert.status === 'armed') return [];
      if (alert.status !== 'paused') {
        throw new DomainError('not_paused', `alertId ${alert.id}: the alert is ${alert.status}, not paused`, 'alertId');
      }
      if (isExpiredAt(alert, atMs)) {
        throw new DomainError('expired', `alertId ${alert.id}: the alert expired at ${alert.expires ?? ''}`, 'alertId');
      }
      return [{ type: 'AlertResumed', data: { alertId: alert.id, symbol: alert.symbol, at: command.data.at } }];
    }
    case 'ActOnAlerts':
      return actOnAlerts(command.data, state).events;
    case 'ExpireAlert': {
      const alert = findAlert(state, parseAlertId(command.data.alertId));
      const atMs = parseAt(command.data.at);
      if (!alert || alert.status === 'expired' || !isExpiredAt(alert, atMs)) return [];
      return [{ type: 'AlertExpired', data: { alertId: alert.id, symbol: alert.symbol, at: command.data.at } }];
    }
    case 'TriggerAlert':
      return decideTrigger(command, state);
    default:
      throw unknownCommand(command, 'alerts');
  }
}

/** An alert an action on several left as it was, and why: the refusal its own command meets. */
export interface AlertRefusal {
  /** The id as given, in lower case (alert ids are UUIDs, whose case does not matter). */
  readonly alertId: string;
  /** The refusal's code (`not_found`, `not_armed`, `not_paused`, `expired`, `invalid_id`). */
  readonly code: string;
  /** The reason, without the alert's id (`the alert is triggered, not armed`). */
  readonly message: string;
}

/** The command an action on several alerts runs for one of them. */
function commandOf(action: AlertsAction, alertId: string, at: string): AlertsCommand {
  if (action === 'delete') return { type: 'DeleteAlert', data: { alertId } };
  return { type: action === 'pause' ? 'PauseAlert' : 'ResumeAlert', data: { alertId, at } };
}

/**
 * What {@link ActOnAlerts} decides: for each alert, in the order given, the events of its own command against
 * `state` (the alerts are distinct, so no decision sees another's), and the alerts those commands refuse, with
 * the reason. The list itself is refused when it is empty, longer than {@link ALERTS_LIMIT}, names an alert
 * twice, or the action or time is not one.
 */
export function actOnAlerts(
  data: ActOnAlerts['data'],
  state: AlertsState,
): { events: AlertsEvent[]; refused: AlertRefusal[] } {
  if (!(ALERTS_ACTIONS as readonly unknown[]).includes(data.action)) {
    throw new DomainError('invalid_action', `action must be one of ${ALERTS_ACTIONS.join(', ')}`, 'action');
  }
  parseAt(data.at);
  const ids: readonly unknown[] = Array.isArray(data.alertIds) ? data.alertIds : [];
  if (ids.length === 0 || ids.length > ALERTS_LIMIT) {
    throw new DomainError('invalid_ids', `alertIds: must name 1 to ${ALERTS_LIMIT} alerts`, 'alertIds');
  }
  const seen = new Set<string>();
  ids.forEach((id, k) => {
    const key = typeof id === 'string' ? id.toLowerCase() : String(id);
    if (seen.has(key)) {
      throw new DomainError('duplicate', `alertIds[${k}]: ${JSON.stringify(id)} is listed twice`, `alertIds[${k}]`);
    }
    seen.add(key);
  });
  const events: AlertsEvent[] = [];
  const refused: AlertRefusal[] = [];
  for (const id of ids) {
    try {
      events.push(...decide(commandOf(data.action, id as string, data.at), state));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const alertId = typeof id === 'string' ? id.toLowerCase() : String(id);
      const message = error.message.replace(/^alertId \S+:? /, '');
      refused.push({ alertId, code: error.code, message });
    }
  }
  return { events, refused };
}

/**
 * What an {@link ActOnAlerts} did, told from the events it appended and the state after them (so a retried request
 * answers as the first did): the alerts it changed, or found as asked (a paused alert paused again), in the order
 * given, and those it left, with the reason their own command meets.
 */
export function actionReport(
  data: ActOnAlerts['data'],
  state: AlertsState,
  events: readonly AlertsEvent[],
): { done: string[]; refused: AlertRefusal[] } {
  const changed = new Set(events.map((event) => (event.data as { alertId?: string }).alertId));
  const done: string[] = [];
  const refused: AlertRefusal[] = [];
  for (const id of data.alertIds) {
    const alertId = id.toLowerCase();
    if (changed.has(alertId)) {
      done.push(alertId);
      continue;
    }
    const left = actOnAlerts({ ...data, alertIds: [id] }, state).refused[0];
    if (left === undefined) done.push(alertId);
    else refused.push(left);
  }
  return { done, refused };
}

/** The definition an event carries; events written before conditions existed are read as price or SMA alerts. */
function definitionOf(data: AlertEventDefinition): AlertDefinition {
  const condition =
    data.condition ??
    (data.kind === 'SMA'
      ? smaCondition(data.alerttype ?? 'U', data.period ?? 50)
      : priceCondition(data.alerttype ?? 'U', data.threshold ?? 0));
  const frequency = data.frequency ?? 'once';
  return {
    symbol: data.symbol,
    condition,
    frequency,
    expires: data.expires ?? null,
    ...legacyFields(condition, frequency),
    note: data.note ?? null,
  };
}

/** A fresh arming: armed, with no firing yet. */
const rearmed = { status: 'armed', firings: 0, lastFiredDay: null } as const;

/**
 * One alert after one of its events, or undefined when there is no alert (deleted, or an event about an alert
 * never created): the decider's {@link evolve} folds each event into the alert it names with this, and a read
 * model keeping one document per alert folds it with this alone, so both follow one set of rules. An event
 * that does not apply (a creation of an alert that exists, a change of one that does not) leaves it as it is.
 */
export function evolveAlert(alert: Alert | undefined, event: AlertsEvent): Alert | undefined {
  switch (event.type) {
    case 'AlertCreated':
      return (
        alert ?? {
          id: event.data.alertId,
          ...definitionOf(event.data),
          ...rearmed,
          createdt: event.data.createdt,
          updatedt: event.data.createdt,
          arming: 1,
          triggerCount: 0,
          lastFired: null,
        }
      );
    case 'AlertDeleted':
      return undefined;
    default:
      return alert && changedAlert(alert, event);
  }
}

/** An existing alert after an event that changes it. */
function changedAlert(alert: Alert, event: Exclude<AlertsEvent, AlertCreated | AlertDeleted>): Alert {
  switch (event.type) {
    case 'AlertUpdated':
      return {
        ...alert,
        ...definitionOf(event.data),
        ...rearmed,
        updatedt: event.data.updatedt,
        arming: alert.arming + 1,
      };
    case 'AlertTriggered':
      return {
        ...alert,
        status: alert.frequency === 'once' ? 'triggered' : alert.status,
        updatedt: event.data.at,
        firings: Math.max(alert.firings + 1, event.data.firing ?? 0),
        triggerCount: alert.triggerCount + 1,
        lastFired: event.data.at,
        lastFiredDay: event.data.day ?? alert.lastFiredDay,
      };
    case 'AlertPaused':
      return { ...alert, status: 'paused', updatedt: event.data.at };
    case 'AlertResumed':
      return { ...alert, ...rearmed, updatedt: event.data.at, arming: alert.arming + 1 };
    case 'AlertExpired':
      return { ...alert, status: 'expired', updatedt: event.data.at };
    default: {
      // An event type this version does not know leaves the alert as it is, so replaying the log never fails.
      const _exhaustive: never = event;
      return alert;
    }
  }
}

/** The user's alerts after an event: the alert it names folded with {@link evolveAlert}, in creation order. */
function evolve(state: AlertsState, event: AlertsEvent): AlertsState {
  const alertId = (event.data as { alertId?: unknown } | null)?.alertId;
  const index = positionOf(state, alertId, event.type !== 'AlertCreated');
  const before = index < 0 ? undefined : state.alerts[index];
  const after = evolveAlert(before, event);
  if (after === before) return state;
  if (after === undefined) return { alerts: state.alerts.filter((_, i) => i !== index) };
  if (before === undefined) return { alerts: [...state.alerts, after] };
  const alerts = [...state.alerts];
  alerts[index] = after;
  // The same ids in the same places: the new list's positions, once known, are the old one's.
  const known = positions.get(state.alerts);
  if (known !== undefined) positions.set(alerts, known);
  return { alerts };
}

/**
 * The user's alerts after several events, exactly as {@link evolve} one event at a time gives them, copying the
 * list once instead of once per event: a user's stream of many firings (every one a copy of up to 500 alerts)
 * folds in time linear in its length.
 */
function evolveAll(state: AlertsState, events: readonly AlertsEvent[]): AlertsState {
  if (events.length < 2) return events.length === 0 ? state : evolve(state, events[0]!);
  const alerts: (Alert | undefined)[] = [...state.alerts];
  // Where each alert is, by id: the first of an id, as `evolve`'s `findIndex` finds it. A copy of the list's
  // positions when they are known (this map changes as the events fold), else read from the list.
  const known = positions.get(state.alerts);
  const at: Map<unknown, number> = known === undefined ? firstPlaces(state.alerts) : new Map(known);
  let changed = false;
  for (const event of events) {
    const alertId = (event.data as { alertId?: unknown } | null)?.alertId;
    const index = at.get(alertId);
    const before = index === undefined ? undefined : alerts[index];
    const after = evolveAlert(before, event);
    if (after === before) continue;
    changed = true;
    if (after === undefined) {
      alerts[index!] = undefined;
      at.delete(alertId);
    } else if (before === undefined) {
      if (!at.has(after.id)) at.set(after.id, alerts.length);
      alerts.push(after);
    } else {
      alerts[index!] = after;
    }
  }
  if (!changed) return state;
  const kept = alerts.filter((alert): alert is Alert => alert !== undefined);
  // Nothing deleted: every alert is where `at` says (the first of each id), so the list's positions are known.
  if (kept.length === alerts.length && kept.length > SCANNED_UP_TO)
    positions.set(kept, at as ReadonlyMap<string, number>);
  return { alerts: kept };
}

/**
 * The alerts' rules: validation of symbol, condition (see `parseCondition`), frequency, expiry and the older
 * price and SMA fields, at most {@link ALERTS_LIMIT} per user; an alert fires as its frequency allows (once per
 * arming, once per trading day, or once per firing count), pauses, resumes (re-armed) and expires.
 */
export const alertsDecider: Decider<AlertsCommand, AlertsEvent, AlertsState> = {
  initialState: Object.freeze({ alerts: Object.freeze([]) }),
  decide,
  evolve,
  evolveAll,
};

export { conditionOperands };
