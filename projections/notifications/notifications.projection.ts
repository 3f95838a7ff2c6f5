/**
 * The bell's read models: one document per notification (made from `AlertTriggered`), keyed
 * `<userId>/<notificationId>` so a user's notifications are listed by prefix, and one read-state document per
 * user (folded with the notifications decider). A notification is read when the read state says so for its id
 * or for the log position its document carries.
 */
import type { AlertTriggeredData } from '../../domain/alerts/alerts.ts';
import {
  notificationsDecider,
  type Notification,
  type NotificationsEvent,
  type NotificationsState,
} from '../../domain/notifications/notifications.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import { deciderProjection, eventTime, userKey, type Projection } from '../projection.ts';

/** The key of a notification document: `<userId>/<notificationId>`. */
export function notificationKey(userId: string, notificationId: string): string {
  return `${userId}/${notificationId}`;
}

/** The key prefix of every notification document of a user. */
export function notificationPrefix(userId: string): string {
  return `${userId}/`;
}

function keyOf(event: RecordedEvent): string | null {
  const userId = userKey(event);
  return userId === null ? null : notificationKey(userId, event.id);
}

/** `GET /personalize/usernotifications/{type}`: one document per fired alert; its id is the event's id. */
export const notificationsProjection: Projection<Notification> = {
  name: 'notifications',
  version: 1,
  handles: ['AlertTriggered'],
  key: keyOf,
  evolve: (doc, event) => {
    if (doc) return doc;
    const data = event.data as AlertTriggeredData;
    return {
      id: event.id,
      symbol: data.symbol,
      notificationtype: data.notificationtype,
      notifcationmessage: data.message,
      createdt: typeof data.at === 'string' ? data.at : eventTime(event),
    };
  },
};

/** Which notifications each user has read (`POST /personalize/readnotifications`, the unread count). */
export const notificationReadsProjection: Projection<NotificationsState> = deciderProjection(
  'notificationreads',
  1,
  notificationsDecider,
  ['NotificationsMarkedRead', 'AllNotificationsMarkedRead'] satisfies NotificationsEvent['type'][],
);
