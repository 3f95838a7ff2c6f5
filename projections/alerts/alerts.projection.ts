import {
  ALERT_EVENT_TYPES,
  alertKey,
  evolveAlert,
  type Alert,
  type AlertTriggeredData,
  type AlertsEvent,
} from '../../domain/alerts/alerts.ts';
import type { LogPosition, RecordedEvent } from '../../platform/eventstore/port.ts';
import { userKey, type Projection } from '../projection.ts';

/**
 * The start of the keys of every alert document of a user: `<userId>/`. The `/` keeps a user whose id starts
 * with another's (`ada`, `adam`) out of the other's listing.
 */
export function alertsPrefix(userId: string): string {
  return `${userId}/`;
}

/** The key of the documents an alert event changes, or null when the event names no user or alert. */
function alertKeyOf(event: RecordedEvent): string | null {
  const userId = userKey(event);
  const alertId = (event.data as { alertId?: unknown } | null)?.alertId;
  return userId === null || typeof alertId !== 'string' ? null : alertKey(userId, alertId);
}

/** One alert's document in `alerts`. */
export interface AlertDocument {
  /** The alert, folded with the decider's own rules (`evolveAlert`). */
  readonly alert: Alert;
  /**
   * The log position of its `AlertCreated`: a user's alerts are listed in this order, the order they were
   * created (the decider's), which neither the keys nor the creation times (a clock, to the millisecond) give.
   */
  readonly created: LogPosition;
}

/**
 * `GET /personalize/stockalerts` and `GET /personalize/stockalerts/{symbol}`: each alert of each user with its
 * status, condition, frequency, expiry, last firing and trigger count, one document per alert (key
 * `<userId>/<alertId>`), folded with the decider's own per-alert rules and dropped with the alert. A trigger
 * rewrites only its alert's document, not the user's other alerts.
 */
export const alertsProjection: Projection<AlertDocument> = {
  name: 'alerts',
  version: 3,
  handles: ALERT_EVENT_TYPES,
  key: alertKeyOf,
  evolve: (doc, event) => {
    const alert = evolveAlert(doc?.alert, { type: event.type, data: event.data } as AlertsEvent);
    if (alert === undefined) return null;
    return alert === doc?.alert ? doc : { alert, created: doc?.created ?? event.position };
  },
};

/** Most firings one alert's history keeps (the oldest go first). */
export const ALERT_HISTORY_LIMIT = 1000;

/** One firing of an alert, as its history keeps it. */
export interface AlertHistoryEntry {
  /** When it fired (ISO 8601). */
  readonly at: string;
  /** The price then. */
  readonly price: number;
  /** The source's value that met the condition, or null when the event does not say. */
  readonly value: number | null;
  /** The notification text. */
  readonly message: string;
  /** The notification type. */
  readonly notificationtype: number;
}

/** An alert's firings, oldest first. */
export interface AlertHistory {
  /** The firings, oldest first, at most {@link ALERT_HISTORY_LIMIT}. */
  readonly triggers: readonly AlertHistoryEntry[];
}

/**
 * `GET /personalize/stockalerts/{id}/history`: every firing of each alert (time, price, the source's value,
 * message), one document per alert, dropped with the alert.
 */
export const alertHistoryProjection: Projection<AlertHistory> = {
  name: 'alerthistory',
  version: 1,
  handles: ['AlertTriggered', 'AlertDeleted'],
  key: alertKeyOf,
  evolve: (doc, event) => {
    if (event.type === 'AlertDeleted') return null;
    const data = event.data as AlertTriggeredData;
    const value = typeof data.value === 'number' ? data.value : data.kind === 'PRICE' ? data.price : (data.sma ?? null);
    const entry: AlertHistoryEntry = {
      at: data.at,
      price: data.price,
      value,
      message: data.message,
      notificationtype: data.notificationtype,
    };
    const triggers = [...(doc?.triggers ?? []), entry];
    return { triggers: triggers.length > ALERT_HISTORY_LIMIT ? triggers.slice(-ALERT_HISTORY_LIMIT) : triggers };
  },
};
