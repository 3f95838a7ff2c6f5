/**
 * Notification routes: the bell's list (newest first, by type, paged), its unread count, and marking read.
 */
import { notificationsApi } from '../../domain/contract/notifications.ts';
import type { Context } from 'koa';
import { type NotificationAnswer } from '../../domain/contract/notifications.ts';
import { isUuid } from '../../domain/ids.ts';
import {
  NOTIFICATIONS_CONCERN,
  notificationsDecider,
  readTest,
  type Notification,
  type NotificationsState,
} from '../../domain/notifications/notifications.ts';
import { comparePositions, type LogPosition } from '../../platform/eventstore/port.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import {
  notificationPrefix,
  notificationReadsProjection,
  notificationsProjection,
} from '../../projections/notifications/notifications.projection.ts';
import { projectionConsumer, readDocument, type StoredDocument } from '../../projections/projection.ts';
import type { CommandService } from '../commands.ts';
import { notFound } from '../errors.ts';
import { keptAnswer } from '../http/keptAnswer.ts';
import { defineRoute, markPosition } from '../http/route.ts';

/** What the notification routes need. */
export interface NotificationsDeps {
  /** Runs the commands on the user's stream. */
  readonly commands: CommandService;
  /** The read models the GET routes answer from. */
  readonly readModels: ReadModelStore;
}

export { NOTIFICATION_PAGE, type NotificationAnswer } from '../../domain/contract/notifications.ts';

const concern = { concern: NOTIFICATIONS_CONCERN, decider: notificationsDecider };

type StoredNotification = StoredDocument<Notification>;

/** A user's notifications, newest first (by log position). */
async function listNotifications(readModels: ReadModelStore, userId: string): Promise<StoredNotification[]> {
  const docs = await readModels.list<StoredNotification>(notificationsProjection.name, {
    prefix: notificationPrefix(userId),
  });
  return docs.map((d) => d.doc).sort((a, b) => comparePositions(b.position, a.position));
}

async function readState(
  readModels: ReadModelStore,
  userId: string,
): Promise<{ state: NotificationsState; position?: LogPosition }> {
  const doc = await readDocument<NotificationsState>(readModels, notificationReadsProjection, userId);
  return { state: doc?.value ?? notificationsDecider.initialState, position: doc?.position };
}

/** Whether each stored notification is read in a state. */
function readOf(state: NotificationsState): (stored: StoredNotification) => boolean {
  const isRead = readTest(state);
  return (stored) => isRead(stored.value.id, stored.position);
}

function unreadCount(state: NotificationsState, notifications: readonly StoredNotification[]): number {
  const isRead = readOf(state);
  return notifications.filter((n) => !isRead(n)).length;
}

/** The name of the notifications projection's checkpoint. */
const NOTIFICATIONS_CONSUMER = projectionConsumer(notificationsProjection).name;

/**
 * How far the notifications read model is known to reach before it is read: every trigger up to the answer is in
 * what is read next, so a client that reconnects with it (`auth.since`) is sent exactly the triggers after.
 * Before the projection's first checkpoint, the start of the log.
 */
async function notificationsReach(readModels: ReadModelStore): Promise<LogPosition> {
  const checkpoint = await readModels.readCheckpoint(NOTIFICATIONS_CONSUMER);
  return checkpoint?.position ?? { commit: 0, prepare: 0 };
}

function newest(...positions: (LogPosition | undefined)[]): LogPosition | undefined {
  return positions
    .filter((p): p is LogPosition => p !== undefined)
    .sort(comparePositions)
    .at(-1);
}

function markNewest(ctx: Context, ...positions: (LogPosition | undefined)[]): void {
  markPosition(ctx, newest(...positions));
}

/** The notification routes. */
export function notificationsRoutes(deps: NotificationsDeps) {
  return [
    defineRoute({
      ...notificationsApi.getUsernotificationsUnreadcount,
      handle: async ({ userId, ctx }) => {
        const [notifications, read] = await Promise.all([
          listNotifications(deps.readModels, userId),
          readState(deps.readModels, userId),
        ]);
        markNewest(ctx, notifications[0]?.position, read.position);
        return { unread: unreadCount(read.state, notifications) };
      },
    }),
    defineRoute({
      ...notificationsApi.getUsernotificationsByType,
      handle: ({ params, query, userId }) =>
        keptAnswer(
          deps.readModels,
          `notifications\u0000${userId}\u0000${params.type}\u0000${query.before}\u0000${query.limit}`,
          {
            collections: [notificationsProjection.name],
            documents: [[notificationReadsProjection.name, userId]],
            checkpoints: [NOTIFICATIONS_CONSUMER],
          },
          async () => {
            const reach = await notificationsReach(deps.readModels);
            const [all, read] = await Promise.all([
              listNotifications(deps.readModels, userId),
              readState(deps.readModels, userId),
            ]);
            let page = all;
            if (query.before !== undefined) {
              if (isUuid(query.before)) {
                const id = query.before.toLowerCase();
                const anchor = all.find((n) => n.value.id === id);
                if (!anchor) throw notFound(`query.before: no notification ${id}`);
                page = page.filter((n) => comparePositions(n.position, anchor.position) < 0);
              } else {
                const before = Date.parse(query.before);
                page = page.filter((n) => Date.parse(n.value.createdt) < before);
              }
            }
            if (params.type !== null) page = page.filter((n) => n.value.notificationtype === params.type);
            const isRead = readOf(read.state);
            const body = page.slice(0, query.limit).map((n): NotificationAnswer => ({
              id: n.value.id,
              symbol: n.value.symbol,
              notificationtype: n.value.notificationtype,
              notifcationmessage: n.value.notifcationmessage,
              createdt: n.value.createdt,
              read: isRead(n),
              note: n.value.note ?? null,
            }));
            // The newest position the list reflects, with no trigger before it missing: what a tab catches up from.
            return { body, position: newest(all[0]?.position, reach) };
          },
        ),
    }),
    defineRoute({
      ...notificationsApi.postReadnotifications,
      handle: async ({ body, userId, meta }) => {
        const [notifications, read] = await Promise.all([
          listNotifications(deps.readModels, userId),
          readState(deps.readModels, userId),
        ]);
        let state = read.state;
        if (body.ids !== undefined) {
          const byId = new Map(notifications.map((n) => [n.value.id, n]));
          const ids = body.ids.map((text, i) => {
            const id = text.toLowerCase();
            if (!byId.has(id)) throw notFound(`body.ids[${i}]: no notification ${JSON.stringify(text)}`);
            return id;
          });
          const isRead = readOf(state);
          const unread = ids.filter((id) => !isRead(byId.get(id)!));
          if (unread.length > 0) {
            // Where each trigger is in the log, so that the read state can forget it once it is no longer kept
            // (the decider records each as `{commit, prepare}`).
            const positions = unread.map((id) => byId.get(id)!.position);
            const outcome = await deps.commands.execute(
              concern,
              { type: 'MarkNotificationsRead', data: { ids: unread, positions } },
              meta(),
            );
            state = outcome.state;
          }
        } else {
          const newest = notifications[0];
          if (newest !== undefined) {
            const upTo = { commit: newest.position.commit, prepare: newest.position.prepare };
            const outcome = await deps.commands.execute(
              concern,
              { type: 'MarkAllNotificationsRead', data: { upTo } },
              meta(),
            );
            state = outcome.state;
          }
        }
        const latest = await listNotifications(deps.readModels, userId);
        return { unread: unreadCount(state, latest) };
      },
    }),
  ];
}
