/**
 * Notifications: what a fired alert tells its user, and which of those the user has read. The notifications
 * themselves come from `AlertTriggered` (alerts concern); this concern records only the read state, on
 * `notifications-<userId>`.
 */
import { DomainError, type Decider, type DomainEvent, eventTypes, unknownCommand } from '../decider.ts';
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

/** The name of a notification type, or `Type n` for one this version does not know. */
export function notificationTypeName(type: number): string {
  return NOTIFICATION_TYPE_NAMES[type as NotificationType] ?? `Type ${type}`;
}

/** Most ids one mark-as-read command may name. */
export const MARK_READ_LIMIT = 200;

/**
 * Most notifications the bell keeps per user, the newest (every trigger stays in the log and in its alert's
 * history). A notification read one by one that this many newer read ones follow is no longer kept, so the read
 * state forgets it.
 */
export const NOTIFICATIONS_KEPT = 1000;

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
  /** The alert's note when it fired, or null (absent from notifications kept before notes existed). */
  readonly note?: string | null;
}

/**
 * Marks the named notifications as read; ones already read are dropped. `positions[i]`, when given, is where
 * `ids[i]`'s trigger is in the log, which lets the read state forget it once it is covered or no longer kept.
 */
export type MarkNotificationsRead = DomainEvent<
  'MarkNotificationsRead',
  { readonly ids: readonly string[]; readonly positions?: readonly ReadCursor[] }
>;

/** Marks every notification up to a place in the log as read. */
export type MarkAllNotificationsRead = DomainEvent<'MarkAllNotificationsRead', { readonly upTo: ReadCursor }>;

/** Every command of the notifications concern. */
export type NotificationsCommand = MarkNotificationsRead | MarkAllNotificationsRead;

/**
 * The user read these notifications; `positions` (parallel to `ids`) where their triggers are in the log, absent
 * in events recorded before it was.
 */
export type NotificationsMarkedRead = DomainEvent<
  'NotificationsMarkedRead',
  { readonly ids: readonly string[]; readonly positions?: readonly ReadCursor[] }
>;

/** The user read every notification up to `upTo` in the log. */
export type AllNotificationsMarkedRead = DomainEvent<'AllNotificationsMarkedRead', { readonly upTo: ReadCursor }>;

/** Every event of the notifications concern. */
export type NotificationsEvent = NotificationsMarkedRead | AllNotificationsMarkedRead;

/** Every event type of the notifications read concern. */
export const NOTIFICATIONS_EVENT_TYPES = eventTypes<NotificationsEvent>()(
  'NotificationsMarkedRead',
  'AllNotificationsMarkedRead',
);

/**
 * A user's read state: notifications read one by one, and the place up to which all are read. It holds no id
 * that `upTo` covers, and at most {@link NOTIFICATIONS_KEPT} ids with a known position: the newest by position
 * (an older one is no longer in the bell); ids recorded without a position stay.
 */
export interface NotificationsState {
  /** Ids read one by one and not covered by `upTo`, in the order they were read. */
  readonly readIds: readonly string[];
  /** Where each of `readIds`' triggers is in the log, or null when the event did not record it. */
  readonly readPositions: readonly (ReadCursor | null)[];
  /** Every notification at or before this place is read; null until the user marks all as read. */
  readonly upTo: ReadCursor | null;
}

/** Orders two cursors: negative when `a` is before `b`, 0 when equal, positive after. */
export function compareCursors(a: ReadCursor, b: ReadCursor): number {
  return a.commit !== b.commit ? a.commit - b.commit : a.prepare - b.prepare;
}

/** Whether the notification `id`, recorded at `position` in the log, is read in a state. */
export function isNotificationRead(state: NotificationsState, id: string, position: ReadCursor): boolean {
  return readTest(state)(id, position);
}

/** {@link isNotificationRead} for many notifications of one state: the ids looked up in a set made once. */
export function readTest(state: NotificationsState): (id: string, position: ReadCursor) => boolean {
  const { upTo } = state;
  const read = new Set(state.readIds);
  return (id, position) => (upTo !== null && compareCursors(position, upTo) <= 0) || read.has(id);
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
      const { positions } = command.data;
      if (positions !== undefined && (!Array.isArray(positions) || positions.length !== ids.length)) {
        throw new DomainError('invalid_cursor', 'positions must give one place in the log per id', 'positions');
      }
      const read = new Set(state.readIds);
      const fresh: string[] = [];
      const freshPositions: ReadCursor[] = [];
      ids.forEach((id, i) => {
        if (typeof id !== 'string' || !isUuid(id)) {
          throw new DomainError('invalid_id', `ids[${i}] ${JSON.stringify(id)} is not a notification id`, `ids[${i}]`);
        }
        const position: unknown = positions?.[i];
        if (positions !== undefined && !isCursor(position)) {
          throw new DomainError(
            'invalid_cursor',
            `positions[${i}] must be a place in the log {commit, prepare}`,
            `positions[${i}]`,
          );
        }
        const normalised = id.toLowerCase();
        if (read.has(normalised)) return;
        read.add(normalised);
        if (isCursor(position)) {
          // Read already, as every notification up to `upTo`.
          if (state.upTo !== null && compareCursors(position, state.upTo) <= 0) return;
          freshPositions.push({ commit: position.commit, prepare: position.prepare });
        }
        fresh.push(normalised);
      });
      if (fresh.length === 0) return [];
      return [
        {
          type: 'NotificationsMarkedRead',
          data: positions === undefined ? { ids: fresh } : { ids: fresh, positions: freshPositions },
        },
      ];
    }
    case 'MarkAllNotificationsRead': {
      const { upTo } = command.data;
      if (!isCursor(upTo)) {
        throw new DomainError('invalid_cursor', 'upTo must be a place in the log {commit, prepare}', 'upTo');
      }
      if (state.upTo !== null && compareCursors(upTo, state.upTo) <= 0) return [];
      return [{ type: 'AllNotificationsMarkedRead', data: { upTo: { commit: upTo.commit, prepare: upTo.prepare } } }];
    }
    default:
      throw unknownCommand(command, 'notifications');
  }
}

/**
 * The state without the ids it need not hold: those `upTo` covers, and those with a known position that
 * {@link NOTIFICATIONS_KEPT} newer read ones follow (no longer kept in the bell).
 */
function forgetUnkept(state: NotificationsState): NotificationsState {
  const { upTo, readPositions } = state;
  const placed = readPositions.filter((p): p is ReadCursor => p !== null);
  // The oldest position still kept, when more are placed than the bell keeps.
  const oldestKept =
    placed.length > NOTIFICATIONS_KEPT ? placed.sort(compareCursors)[placed.length - NOTIFICATIONS_KEPT]! : null;
  const keep = (p: ReadCursor | null): boolean =>
    p === null ||
    ((upTo === null || compareCursors(p, upTo) > 0) && (oldestKept === null || compareCursors(p, oldestKept) >= 0));
  if (readPositions.every(keep)) return state;
  return {
    ...state,
    readIds: state.readIds.filter((_, i) => keep(readPositions[i]!)),
    readPositions: readPositions.filter(keep),
  };
}

function evolve(state: NotificationsState, event: NotificationsEvent): NotificationsState {
  switch (event.type) {
    case 'NotificationsMarkedRead': {
      const { ids, positions } = event.data;
      const read = new Set(state.readIds);
      const readIds = [...state.readIds];
      const readPositions = [...state.readPositions];
      ids.forEach((id, i) => {
        if (read.has(id)) return;
        read.add(id);
        readIds.push(id);
        readPositions.push(positions?.[i] ?? null);
      });
      return readIds.length === state.readIds.length ? state : forgetUnkept({ ...state, readIds, readPositions });
    }
    case 'AllNotificationsMarkedRead':
      return state.upTo !== null && compareCursors(event.data.upTo, state.upTo) <= 0
        ? state
        : forgetUnkept({ ...state, upTo: event.data.upTo });
    default: {
      // An event type this version does not know leaves the state as it is, so replaying the log never fails.
      const _exhaustive: never = event;
      return state;
    }
  }
}

/** The read-state rules: marking read is idempotent and the "all read up to" place only moves forward. */
export const notificationsDecider: Decider<NotificationsCommand, NotificationsEvent, NotificationsState> = {
  initialState: Object.freeze({ readIds: Object.freeze([]), readPositions: Object.freeze([]), upTo: null }),
  decide,
  evolve,
};
