import {
  ALERT_EVENT_TYPES,
  alertsDecider,
  type AlertTriggeredData,
  type AlertsState,
} from '../../domain/alerts/alerts.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import { deciderProjection, userKey, type Projection } from '../projection.ts';

/**
 * `GET /personalize/stockalerts` and `GET /personalize/stockalerts/{symbol}`: each user's alerts with their
 * status, condition, frequency, expiry, last firing and trigger count, folded with the decider's own `evolve`.
 */
export const alertsProjection: Projection<AlertsState> = deciderProjection(
  'alerts',
  2,
  alertsDecider,
  ALERT_EVENT_TYPES,
);

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

/** The key of an alert's history document: `<userId>/<alertId>`. */
export function alertHistoryKey(userId: string, alertId: string): string {
  return `${userId}/${alertId}`;
}

/**
 * `GET /personalize/stockalerts/{id}/history`: every firing of each alert (time, price, the source's value,
 * message), one document per alert, dropped with the alert.
 */
export const alertHistoryProjection: Projection<AlertHistory> = {
  name: 'alerthistory',
  version: 1,
  handles: ['AlertTriggered', 'AlertDeleted'],
  key: (event: RecordedEvent) => {
    const userId = userKey(event);
    const alertId = (event.data as { alertId?: unknown } | null)?.alertId;
    return userId === null || typeof alertId !== 'string' ? null : alertHistoryKey(userId, alertId);
  },
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
