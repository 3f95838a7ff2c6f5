import {
  ALERT_EVENT_TYPES,
  alertKey,
  evolveAlert,
  type Alert,
  type AlertTriggeredData,
  type AlertsEvent,
} from '../../domain/alerts/alerts.ts';
import { isAfter, type LogPosition, type RecordedEvent } from '../../platform/eventstore/port.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { userKey, type DocumentProjection, type StoredDocument, type WriterProjection } from '../projection.ts';

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
export const alertsProjection: DocumentProjection<AlertDocument> = {
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
  /** The trigger's id (its event's id, which its deliveries and its notification name); absent from old entries. */
  readonly id?: string;
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
  /** The alert's note when it fired, or null (absent from entries kept before notes existed). */
  readonly note?: string | null;
}

/**
 * How many firings one page of an alert's history holds. A firing parses and rewrites its alert's last page:
 * small pages keep that small (a page of 100 firings is about 20 kB) for an alert that fires all day, at the cost
 * of more pages to read when the history is opened.
 */
export const ALERT_HISTORY_PAGE = 10;

/**
 * The document of an alert's history at its key: which pages (`<key>#<page>`, numbered from `first` to `last`,
 * every one full but the last) hold how many firings. A page past the latest {@link ALERT_HISTORY_LIMIT}
 * firings is dropped whole, so between 1,000 and 1,009 are kept and the latest 1,000 served.
 */
export interface AlertHistoryPages {
  readonly first: number;
  readonly last: number;
  readonly count: number;
}

/** One page of an alert's history: its firings, oldest first. */
export interface AlertHistoryPage {
  readonly triggers: readonly AlertHistoryEntry[];
}

const HISTORY = 'alerthistory';

/** The key of one page of the history whose document is at `key`. */
function pageKey(key: string, page: number): string {
  return `${key}#${page}`;
}

/** A trigger as its alert's history keeps it. */
function historyEntry(id: string, data: AlertTriggeredData): AlertHistoryEntry {
  const value = typeof data.value === 'number' ? data.value : data.kind === 'PRICE' ? data.price : (data.sma ?? null);
  return {
    id,
    at: data.at,
    price: data.price,
    value,
    message: data.message,
    notificationtype: data.notificationtype,
    note: data.note ?? null,
  };
}

/**
 * `GET /personalize/stockalerts/{id}/history`: every firing of each alert (time, price, the source's value,
 * message), dropped with the alert. Kept in pages of {@link ALERT_HISTORY_PAGE}, so a firing rewrites its
 * alert's last page and the page list, not the whole history (up to 1,000 firings, about 140 kB).
 */
export const alertHistoryProjection: WriterProjection = {
  name: HISTORY,
  version: 4,
  handles: ['AlertTriggered', 'AlertDeleted'],
  write: async (event, tx) => {
    const key = alertKeyOf(event);
    if (key === null) return;
    const stored = await tx.get<StoredDocument<AlertHistoryPages>>(HISTORY, key);
    if (stored && !isAfter(event.position, stored.position)) return;
    if (event.type === 'AlertDeleted') {
      if (!stored) return;
      for (let page = stored.value.first; page <= stored.value.last; page++) tx.delete(HISTORY, pageKey(key, page));
      tx.delete(HISTORY, key);
      return;
    }
    const position = event.position;
    let { first, last, count } = stored?.value ?? { first: 0, last: 0, count: 0 };
    const page = stored ? await tx.get<StoredDocument<AlertHistoryPage>>(HISTORY, pageKey(key, last)) : undefined;
    let triggers = page?.value.triggers ?? [];
    if (triggers.length >= ALERT_HISTORY_PAGE) {
      last += 1;
      triggers = [];
    }
    tx.put(HISTORY, pageKey(key, last), {
      position,
      value: { triggers: [...triggers, historyEntry(event.id, event.data as AlertTriggeredData)] },
    } satisfies StoredDocument<AlertHistoryPage>);
    count += 1;
    // The first page goes once the others hold the latest 1,000 without it.
    while (first < last && count - ALERT_HISTORY_PAGE >= ALERT_HISTORY_LIMIT) {
      tx.delete(HISTORY, pageKey(key, first));
      first += 1;
      count -= ALERT_HISTORY_PAGE;
    }
    tx.put(HISTORY, key, { position, value: { first, last, count } } satisfies StoredDocument<AlertHistoryPages>);
  },
};

/** The latest {@link ALERT_HISTORY_LIMIT} firings of the alert at `key`, newest first (none when it has none). */
export async function readAlertHistory(
  readModels: ReadModelStore,
  key: string,
): Promise<(Omit<AlertHistoryEntry, 'id'> & { readonly id: string | null; readonly note: string | null })[]> {
  const pages = await readModels.get<StoredDocument<AlertHistoryPages>>(HISTORY, key);
  if (!pages) return [];
  const { first, last } = pages.value;
  const read = await Promise.all(
    Array.from({ length: last - first + 1 }, (_, k) =>
      readModels.get<StoredDocument<AlertHistoryPage>>(HISTORY, pageKey(key, first + k)),
    ),
  );
  const triggers = read.flatMap((page) => page?.value.triggers ?? []);
  return triggers
    .slice(-ALERT_HISTORY_LIMIT)
    .reverse()
    .map((entry) => ({ ...entry, id: entry.id ?? null, note: entry.note ?? null }));
}
