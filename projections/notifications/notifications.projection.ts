/**
 * The bell's read models: one document per notification (made from `AlertTriggered`) in a ring of the latest
 * {@link NOTIFICATIONS_KEPT} per user, listed by the user's prefix, and one read-state document per user
 * (folded with the notifications decider). A notification is read when the read state says so for its id
 * or for the log position its document carries.
 */
import type { AlertTriggeredData } from '../../domain/alerts/alerts.ts';
import {
  NOTIFICATIONS_KEPT,
  notificationsDecider,
  type Notification,
  type NotificationsEvent,
  type NotificationsState,
} from '../../domain/notifications/notifications.ts';
import {
  deciderProjection,
  eventTime,
  userKey,
  type Projection,
  type StoredDocument,
  type WriterProjection,
} from '../projection.ts';
import { ringPrefix, takeRingSlot } from '../ring.ts';

const NOTIFICATIONS = 'notifications';

export { NOTIFICATIONS_KEPT };

/** The key prefix of every notification document of a user: `<userId>/#` (their ring's slots). */
export const notificationPrefix: (userId: string) => string = ringPrefix;

/**
 * `GET /personalize/usernotifications/{type}`: the latest {@link NOTIFICATIONS_KEPT} fired alerts of each user,
 * in a ring of that many slots (`<userId>/#<slot>`, each stamped with its trigger's log position, by which the
 * bell orders them), and the user's count at `<userId>`: a trigger takes the next slot, replacing the oldest
 * once there are as many, so a user's bell reads at most that many documents however long their alerts fire.
 * A notification's id is its trigger event's id.
 */
export const notificationsProjection: WriterProjection = {
  name: NOTIFICATIONS,
  version: 2,
  handles: ['AlertTriggered'],
  write: async (event, tx) => {
    const userId = userKey(event);
    if (userId === null) return;
    const taken = await takeRingSlot(tx, NOTIFICATIONS, userId, event.position, NOTIFICATIONS_KEPT);
    if (taken === null) return;
    const data = event.data as AlertTriggeredData;
    tx.put(NOTIFICATIONS, taken.key, {
      position: event.position,
      value: {
        id: event.id,
        symbol: data.symbol,
        notificationtype: data.notificationtype,
        notifcationmessage: data.message,
        createdt: typeof data.at === 'string' ? data.at : eventTime(event),
        note: data.note ?? null,
      },
    } satisfies StoredDocument<Notification>);
  },
};

/** Which notifications each user has read (`POST /personalize/readnotifications`, the unread count). */
export const notificationReadsProjection: Projection<NotificationsState> = deciderProjection(
  'notificationreads',
  2,
  notificationsDecider,
  ['NotificationsMarkedRead', 'AllNotificationsMarkedRead'] satisfies NotificationsEvent['type'][],
);
