/**
 * Price and moving-average alerts: a user arms an alert on a symbol; the engine fires it once (`AlertTriggered`,
 * which carries the notification's type and message) until the user changes it, which re-arms it.
 * Thresholds are compared in integer cents, so no float equality trap decides whether an alert fires.
 */
import { DomainError, type Decider, type DomainEvent } from '../decider.ts';
import { STOCKPULSE_NAMESPACE, isUuid, uuidV5 } from '../ids.ts';
import { NOTIFICATION_TYPE, type NotificationType } from '../notifications/notifications.ts';
import { SMA_PERIODS, type SmaPeriod } from '../screener/query.ts';
import { parseSymbol } from '../symbol.ts';

/** The concern name of alert streams (`alerts-<userId>`). */
export const ALERTS_CONCERN = 'alerts';

/** Most alerts one user may hold. */
export const ALERTS_LIMIT = 500;

/** Highest price threshold accepted, in dollars. */
export const ALERT_THRESHOLD_MAX = 1_000_000;

/** The moving-average periods an SMA alert may watch. */
export const ALERT_SMA_PERIODS: readonly SmaPeriod[] = SMA_PERIODS;

/** `U` fires on the way up (at or above), `D` on the way down (at or below). */
export type AlertDirection = 'U' | 'D';

/** `PRICE` compares the price with a fixed threshold; `SMA` with the symbol's simple moving average. */
export type AlertKind = 'PRICE' | 'SMA';

/** Whether an alert still waits for its condition (`armed`) or has fired (`triggered`). */
export type AlertStatus = 'armed' | 'triggered';

/** What the user sets on an alert. */
export interface AlertDefinition {
  /** The symbol watched. */
  readonly symbol: string;
  /** Price or moving-average alert. */
  readonly kind: AlertKind;
  /** Direction: `U` up, `D` down. */
  readonly alerttype: AlertDirection;
  /** Price alerts: the threshold in dollars, rounded to the cent; null for SMA alerts. */
  readonly threshold: number | null;
  /** Price alerts: the threshold in integer cents, what the engine compares; null for SMA alerts. */
  readonly thresholdCents: number | null;
  /** SMA alerts: the moving-average period in days; null for price alerts. */
  readonly period: SmaPeriod | null;
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
  /** How many times it was armed (1 on creation, one more per change); keys the engine's trigger command id. */
  readonly arming: number;
}

/** The alert fields a create or update command carries, as the user sent them. */
export interface AlertInput {
  /** The alert id: new (derived from the command id) on create, existing on update. */
  readonly alertId: string;
  /** The symbol; case does not matter. */
  readonly symbol: string;
  /** Price or moving-average alert. */
  readonly kind: AlertKind;
  /** Direction. */
  readonly alerttype: AlertDirection;
  /** The price threshold in dollars; required for price alerts, ignored for SMA alerts. */
  readonly threshold: number | null;
  /** The moving-average period; required for SMA alerts, ignored for price alerts. */
  readonly period: number | null;
  /** When the command was issued (ISO 8601). */
  readonly at: string;
}

/** Creates an armed alert. */
export type CreateAlert = DomainEvent<'CreateAlert', AlertInput>;

/** Changes an existing alert and re-arms it. */
export type UpdateAlert = DomainEvent<'UpdateAlert', AlertInput>;

/** Deletes an alert. */
export type DeleteAlert = DomainEvent<'DeleteAlert', { readonly alertId: string }>;

/** Fires an armed alert (issued by the engine); decides nothing when the alert is gone or already fired. */
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
  }
>;

/** Every command of the alerts concern. */
export type AlertsCommand = CreateAlert | UpdateAlert | DeleteAlert | TriggerAlert;

/** The payload of {@link AlertCreated}. */
export interface AlertCreatedData extends AlertDefinition {
  /** The new alert's id. */
  readonly alertId: string;
  /** When it was created. */
  readonly createdt: string;
}

/** The payload of {@link AlertUpdated}: the alert's whole new definition. */
export interface AlertUpdatedData extends AlertDefinition {
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
  readonly alerttype: AlertDirection;
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
  /** 1 = Price, 2 = SMA. */
  readonly notificationtype: NotificationType;
  /** The notification text, built by {@link alertMessage}. */
  readonly message: string;
  /** When it fired (ISO 8601). */
  readonly at: string;
}

/** An alert was created, armed. */
export type AlertCreated = DomainEvent<'AlertCreated', AlertCreatedData>;

/** An alert was changed and re-armed. */
export type AlertUpdated = DomainEvent<'AlertUpdated', AlertUpdatedData>;

/** An alert was deleted. */
export type AlertDeleted = DomainEvent<'AlertDeleted', { readonly alertId: string; readonly symbol: string }>;

/** An armed alert fired; it stays `triggered` until the user changes it. */
export type AlertTriggered = DomainEvent<'AlertTriggered', AlertTriggeredData>;

/** Every event of the alerts concern. */
export type AlertsEvent = AlertCreated | AlertUpdated | AlertDeleted | AlertTriggered;

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

/** Integer cents as dollars with two decimals, e.g. 19000 → `190.00`. */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
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

/** The notification type of an alert kind: 1 for price alerts, 2 for SMA alerts. */
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
  readonly alerttype: AlertDirection;
  /** Price alerts: the threshold in cents. */
  readonly thresholdCents: number | null;
  /** SMA alerts: the period. */
  readonly period: SmaPeriod | null;
  /** SMA alerts: the moving average crossed, when known. */
  readonly sma: number | null;
  /** The day's change in percent. */
  readonly changepct: number;
}

/**
 * The notification text of a fired alert. The event's direction is the sign the message carries: an upward
 * alert's message always contains `+`; a downward one always contains `-` and never `+`. A `-` also appears in
 * symbols (`BF-B`) and in `50-day`, so a reader tells the two apart by looking for `+` first. The day's change is written with its
 * sign when it agrees with the direction (or rounds to 0.00, which takes the direction's sign), e.g.
 * `AAPL rose above 190.00 (+1.25% on the day)`, `AAPL fell below 180.00 (-2.10% on the day)`,
 * `AAPL crossed above its 50-day SMA 187.32 (+0.84% on the day)`; when it disagrees the sign is followed by
 * the change in words: `AAPL rose above 190.00 (+, though down 0.50% on the day)`.
 */
export function alertMessage(input: AlertMessageInput): string {
  const up = input.alerttype === 'U';
  const head =
    input.kind === 'SMA'
      ? `${input.symbol} crossed ${up ? 'above' : 'below'} its ${input.period ?? '?'}-day SMA${
          input.sma !== null && Number.isFinite(input.sma) && input.sma > 0 ? ` ${formatCents(toCents(input.sma))}` : ''
        }`
      : `${input.symbol} ${up ? 'rose above' : 'fell below'} ${formatCents(input.thresholdCents ?? 0)}`;
  const sign = up ? '+' : '-';
  const hundredths = Number.isFinite(input.changepct) ? toCents(Math.abs(input.changepct)) : 0;
  const magnitude = formatCents(hundredths);
  const agrees = hundredths === 0 || (up ? input.changepct > 0 : input.changepct < 0);
  const tail = agrees
    ? `${sign}${magnitude}% on the day`
    : `${sign}, though ${up ? 'down' : 'up'} ${magnitude}% on the day`;
  return `${head} (${tail})`;
}

/** The alerts still waiting for their condition, for the engine's index. */
export function armedAlerts(state: AlertsState): readonly Alert[] {
  return state.alerts.filter((alert) => alert.status === 'armed');
}

/**
 * The command id under which the engine fires an alert in its current arming: a retried or replayed trigger
 * derives the same id, so it appends nothing new.
 */
export function triggerCommandId(alert: Pick<Alert, 'id' | 'arming'>): string {
  return uuidV5(`alert-trigger/${alert.id}/${alert.arming}`, STOCKPULSE_NAMESPACE);
}

function parseDefinition(input: AlertInput): AlertDefinition {
  const symbol = parseSymbol(input.symbol, 'symbol');
  if (input.kind !== 'PRICE' && input.kind !== 'SMA') {
    throw new DomainError('invalid_kind', `kind must be PRICE or SMA, got ${JSON.stringify(input.kind)}`, 'kind');
  }
  if (input.alerttype !== 'U' && input.alerttype !== 'D') {
    throw new DomainError(
      'invalid_alerttype',
      `alerttype must be U (up) or D (down), got ${JSON.stringify(input.alerttype)}`,
      'alerttype',
    );
  }
  if (input.kind === 'SMA') {
    const period = input.period;
    if (typeof period !== 'number' || !(ALERT_SMA_PERIODS as readonly number[]).includes(period)) {
      throw new DomainError(
        'invalid_period',
        `period must be one of ${ALERT_SMA_PERIODS.join(', ')} for an SMA alert, got ${JSON.stringify(period)}`,
        'period',
      );
    }
    return {
      symbol,
      kind: 'SMA',
      alerttype: input.alerttype,
      threshold: null,
      thresholdCents: null,
      period: period as SmaPeriod,
    };
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
  const thresholdCents = toCents(threshold as number);
  return {
    symbol,
    kind: 'PRICE',
    alerttype: input.alerttype,
    threshold: thresholdCents / 100,
    thresholdCents,
    period: null,
  };
}

function parseAlertId(alertId: unknown): string {
  if (typeof alertId !== 'string' || !isUuid(alertId)) {
    throw new DomainError('invalid_id', `alertId ${JSON.stringify(alertId)} is not an alert id`, 'alertId');
  }
  return alertId.toLowerCase();
}

function sameDefinition(a: AlertDefinition, b: AlertDefinition): boolean {
  return (
    a.symbol === b.symbol &&
    a.kind === b.kind &&
    a.alerttype === b.alerttype &&
    a.thresholdCents === b.thresholdCents &&
    a.period === b.period
  );
}

function findAlert(state: AlertsState, alertId: string): Alert | undefined {
  return state.alerts.find((alert) => alert.id === alertId);
}

function requireAlert(state: AlertsState, alertId: string): Alert {
  const alert = findAlert(state, alertId);
  if (!alert) throw new DomainError('not_found', `alertId ${alertId}: no such alert`, 'alertId');
  return alert;
}

function decide(command: AlertsCommand, state: AlertsState): AlertsEvent[] {
  switch (command.type) {
    case 'CreateAlert': {
      const alertId = parseAlertId(command.data.alertId);
      const definition = parseDefinition(command.data);
      if (findAlert(state, alertId)) {
        throw new DomainError('taken', `alertId ${alertId}: an alert with this id exists`, 'alertId');
      }
      if (state.alerts.length >= ALERTS_LIMIT) {
        throw new DomainError('limit', `alerts: already ${state.alerts.length}; at most ${ALERTS_LIMIT}`, 'alerts');
      }
      return [{ type: 'AlertCreated', data: { alertId, ...definition, createdt: command.data.at } }];
    }
    case 'UpdateAlert': {
      const alertId = parseAlertId(command.data.alertId);
      const definition = parseDefinition(command.data);
      const alert = requireAlert(state, alertId);
      if (alert.status === 'armed' && sameDefinition(alert, definition)) return [];
      return [{ type: 'AlertUpdated', data: { alertId, ...definition, updatedt: command.data.at } }];
    }
    case 'DeleteAlert': {
      const alert = requireAlert(state, parseAlertId(command.data.alertId));
      return [{ type: 'AlertDeleted', data: { alertId: alert.id, symbol: alert.symbol } }];
    }
    case 'TriggerAlert': {
      const { price, changepct, at } = command.data;
      const sma = command.data.sma ?? null;
      if (typeof price !== 'number' || !Number.isFinite(price) || price <= 0) {
        throw new DomainError('invalid_price', `price must be a number above 0, got ${String(price)}`, 'price');
      }
      if (typeof changepct !== 'number' || !Number.isFinite(changepct)) {
        throw new DomainError('invalid_changepct', `changepct must be a number, got ${String(changepct)}`, 'changepct');
      }
      if (sma !== null && (typeof sma !== 'number' || !Number.isFinite(sma) || sma <= 0)) {
        throw new DomainError('invalid_sma', `sma must be a number above 0, got ${String(sma)}`, 'sma');
      }
      const alert = findAlert(state, parseAlertId(command.data.alertId));
      if (!alert || alert.status !== 'armed') return [];
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
            sma: alert.kind === 'SMA' ? sma : null,
            notificationtype: notificationTypeOf(alert.kind),
            message: alertMessage({ ...alert, sma: alert.kind === 'SMA' ? sma : null, changepct }),
            at,
          },
        },
      ];
    }
    default: {
      const _exhaustive: never = command;
      throw new DomainError(
        'unknown_command',
        `type ${JSON.stringify((_exhaustive as { type?: unknown }).type)} is not an alerts command`,
        'type',
      );
    }
  }
}

function definitionOf(data: AlertDefinition): AlertDefinition {
  return {
    symbol: data.symbol,
    kind: data.kind,
    alerttype: data.alerttype,
    threshold: data.threshold,
    thresholdCents: data.thresholdCents,
    period: data.period,
  };
}

function replaceAlert(state: AlertsState, alertId: string, change: (alert: Alert) => Alert): AlertsState {
  const index = state.alerts.findIndex((alert) => alert.id === alertId);
  if (index < 0) return state;
  const alerts = [...state.alerts];
  alerts[index] = change(alerts[index]!);
  return { alerts };
}

function evolve(state: AlertsState, event: AlertsEvent): AlertsState {
  switch (event.type) {
    case 'AlertCreated': {
      if (findAlert(state, event.data.alertId)) return state;
      const alert: Alert = {
        id: event.data.alertId,
        ...definitionOf(event.data),
        status: 'armed',
        createdt: event.data.createdt,
        updatedt: event.data.createdt,
        arming: 1,
      };
      return { alerts: [...state.alerts, alert] };
    }
    case 'AlertUpdated':
      return replaceAlert(state, event.data.alertId, (alert) => ({
        ...alert,
        ...definitionOf(event.data),
        status: 'armed',
        updatedt: event.data.updatedt,
        arming: alert.arming + 1,
      }));
    case 'AlertDeleted':
      return findAlert(state, event.data.alertId)
        ? { alerts: state.alerts.filter((alert) => alert.id !== event.data.alertId) }
        : state;
    case 'AlertTriggered':
      return replaceAlert(state, event.data.alertId, (alert) => ({
        ...alert,
        status: 'triggered',
        updatedt: event.data.at,
      }));
    default: {
      // An event type this version does not know leaves the state as it is, so replaying the log never fails.
      const _exhaustive: never = event;
      return state;
    }
  }
}

/**
 * The alerts' rules: validation of symbol, kind, direction, threshold (0 < t <= 1,000,000, in cents) and SMA
 * period, at most {@link ALERTS_LIMIT} per user, and an alert fires once per arming.
 */
export const alertsDecider: Decider<AlertsCommand, AlertsEvent, AlertsState> = {
  initialState: Object.freeze({ alerts: Object.freeze([]) }),
  decide,
  evolve,
};
