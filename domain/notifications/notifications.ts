/**
 * Notifications: what a fired alert tells its user, and which of those the user has read. The notifications
 * themselves come from `AlertTriggered` (alerts concern); this concern records only the read state, on
 * `notifications-<userId>`.
 */
import { DomainError, type Decider, type DomainEvent } from '../decider.ts';
import { isUuid } from '../ids.ts';

/** The concern name of notification read-state streams (`notifications-<userId>`). */
export const NOTIFICATIONS_CONCERN = 'notifications';

/**
 * Notification types of the product, by the series that decided the alert: 1 = Price, 2 = SMA, 3 = EMA,
 * 4 = RSI, 5 = Volume, 6 = Change % (the day's change).
 */
export const NOTIFICATION_TYPE = Object.freeze({ PRICE: 1, SMA: 2, EMA: 3, RSI: 4, VOLUME: 5, CHANGE: 6 } as const);

/** A notification type: 1 (Price), 2 (SMA), 3 (EMA), 4 (RSI), 5 (Volume) or 6 (Change %). */
export type NotificationType = (typeof NOTIFICATION_TYPE)[keyof typeof NOTIFICATION_TYPE];

/** The name the bell shows for each notification type. */
export const NOTIFICATION_TYPE_NAMES: Readonly<Record<NotificationType, string>> = Object.freeze({
  1: 'Price',
  2: 'SMA',
  3: 'EMA',
  4: 'RSI',
  5: 'Volume',
  6: 'Change %',
});

/** Most ids one mark-as-read command may name. */
export const MARK_READ_LIMIT = 200;

/** A place in the event log (`{commit, prepare}`), ordered by commit then prepare; marks "read up to here". */
export interface ReadCursor {
  /** Commit offset. */
  readonly commit: number;
  /** Prepare offset. */
  readonly prepare: number;
}

/** One notification as the bell lists it (the keys keep the product's spelling, `notifcationmessage`). */
export interface Notification {
  /** The notification id: the id of the `AlertTriggered` event it comes from. */
  readonly id: string;
  /** The symbol of the alert. */
  readonly symbol: string;
  /** 1 = Price, 2 = SMA. */
  readonly notificationtype: NotificationType;
  /** The message, with `+` for an upward event and `-` for a downward one. */
  readonly notifcationmessage: string;
  /** When the alert fired (ISO 8601). */
  readonly createdt: string;
}

/** Marks the named notifications as read; ones already read are dropped. */
export type MarkNotificationsRead = DomainEvent<'MarkNotificationsRead', { readonly ids: readonly string[] }>;

/** Marks every notification up to a place in the log as read. */
export type MarkAllNotificationsRead = DomainEvent<'MarkAllNotificationsRead', { readonly upTo: ReadCursor }>;

/** Every command of the notifications concern. */
export type NotificationsCommand = MarkNotificationsRead | MarkAllNotificationsRead;

/** The user read these notifications. */
export type NotificationsMarkedRead = DomainEvent<'NotificationsMarkedRead', { readonly ids: readonly string[] }>;

/** The user read every notification up to `upTo` in the log. */
export type AllNotificationsMarkedRead = DomainEvent<'AllNotificationsMarkedRead', { readonly upTo: ReadCursor }>;

/** Every event of the notifications concern. */
export type NotificationsEvent = NotificationsMarkedRead | AllNotificationsMarkedRead;

/** A user's read state: notifications read one by one, and the place up to which all are read. */
export interface NotificationsState {
  /** Ids read one by one, in the order they were read. */
  readonly readIds: readonly string[];
  /** Every notification at or before this place is read; null until the user marks all as read. */
  readonly upTo: ReadCursor | null;
}

/** Orders two cursors: negative when `a` is before `b`, 0 when equal, positive after. */
export function compareCursors(a: ReadCursor, b: ReadCursor): number {
  return a.commit !== b.commit ? a.commit - b.commit : a.prepare - b.prepare;
}

/** Whether the notification `id`, recorded at `position` in the log, is read in a state. */
export function isNotificationRead(state: NotificationsState, id: string, position: ReadCursor): boolean {
  return (state.upTo !== null && compareCursors(position, state.upTo) <= 0) || state.readIds.includes(id);
}

function isCursor(value: unknown): value is ReadCursor {
  if (typeof value !== 'object' || value === null) return false;
  const { commit, prepare } = value as { commit?: unknown; prepare?: unknown };
  return Number.isSafeInteger(commit) && Number.isSafeInteger(prepare) && (commit as number) >= 0;
}

function decide(command: NotificationsCommand, state: NotificationsState): NotificationsEvent[] {
  switch (command.type) {
    case 'MarkNotificationsRead': {
      const { ids } = command.data;
      if (!Array.isArray(ids) || ids.length === 0) {
        throw new DomainError('empty', 'ids must name at least one notification', 'ids');
      }
      if (ids.length > MARK_READ_LIMIT) {
        throw new DomainError('limit', `ids names ${ids.length} notifications; at most ${MARK_READ_LIMIT}`, 'ids');
      }
      const read = new Set(state.readIds);
      const fresh: string[] = [];
      ids.forEach((id, i) => {
        if (typeof id !== 'string' || !isUuid(id)) {
          throw new DomainError('invalid_id', `ids[${i}] ${JSON.stringify(id)} is not a notification id`, `ids[${i}]`);
        }
        const normalised = id.toLowerCase();
        if (!read.has(normalised)) {
          read.add(normalised);
          fresh.push(normalised);
        }
      });
      return fresh.length === 0 ? [] : [{ type: 'NotificationsMarkedRead', data: { ids: fresh } }];
    }
    case 'MarkAllNotificationsRead': {
      const { upTo } = command.data;
      if (!isCursor(upTo)) {
        throw new DomainError('invalid_cursor', 'upTo must be a place in the log {commit, prepare}', 'upTo');
      }
      if (state.upTo !== null && compareCursors(upTo, state.upTo) <= 0) return [];
      return [{ type: 'AllNotificationsMarkedRead', data: { upTo: { commit: upTo.commit, prepare: upTo.prepare } } }];
    }
    default: {
      const _exhaustive: never = command;
      throw new DomainError(
        'unknown_command',
        `type ${JSON.stringify((_exhaustive as { type?: unknown }).type)} is not a notifications command`,
        'type',
      );
    }
  }
}

function evolve(state: NotificationsState, event: NotificationsEvent): NotificationsState {
  switch (event.type) {
    case 'NotificationsMarkedRead': {
      const fresh = event.data.ids.filter((id) => !state.readIds.includes(id));
      return fresh.length === 0 ? state : { ...state, readIds: [...state.readIds, ...fresh] };
    }
    case 'AllNotificationsMarkedRead':
      return state.upTo !== null && compareCursors(event.data.upTo, state.upTo) <= 0
        ? state
        : { ...state, upTo: event.data.upTo };
    default: {
      // An event type this version does not know leaves the state as it is, so replaying the log never fails.
      const _exhaustive: never = event;
      return state;
    }
  }
}

/** The read-state rules: marking read is idempotent and the "all read up to" place only moves forward. */
export const notificationsDecider: Decider<NotificationsCommand, NotificationsEvent, NotificationsState> = {
  initialState: Object.freeze({ readIds: Object.freeze([]), upTo: null }),
  decide,
  evolve,
};
