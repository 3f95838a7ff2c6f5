/**
 * Notification routes: the bell's list (newest first, by type, paged), its unread count, and marking read.
 */
import type { Context } from 'koa';
import { z } from 'zod';
import { isUuid } from '../../domain/ids.ts';
import {
  MARK_READ_LIMIT,
  NOTIFICATIONS_CONCERN,
  NOTIFICATION_TYPE,
  isNotificationRead,
  notificationsDecider,
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
import { defineRoute, markPosition } from '../http/route.ts';

/** What the notification routes need. */
export interface NotificationsDeps {
  /** Runs the commands on the user's stream. */
  readonly commands: CommandService;
  /** The read models the GET routes answer from. */
  readonly readModels: ReadModelStore;
}

/** Most notifications one page may hold, and the default page size. */
export const NOTIFICATION_PAGE = Object.freeze({ max: 200, default: 50 });

const concern = { concern: NOTIFICATIONS_CONCERN, decider: notificationsDecider };

const notificationAnswer = z.object({
  id: z.string(),
  symbol: z.string(),
  notificationtype: z.union([z.literal(NOTIFICATION_TYPE.PRICE), z.literal(NOTIFICATION_TYPE.SMA)]),
  notifcationmessage: z.string(),
  createdt: z.string(),
  read: z.boolean(),
});

/** A notification as the API answers it. */
export type NotificationAnswer = z.infer<typeof notificationAnswer>;

const unreadAnswer = z.object({ unread: z.number().int() });

const isoTime = z.iso.datetime({ offset: true });

/** `ALL`, `PRICE` or `1`, `SMA` or `2` (any case), as the notification types they select. */
const typeParams = z.object({
  type: z
    .string()
    .trim()
    .toUpperCase()
    .pipe(z.enum(['ALL', 'PRICE', 'SMA', '1', '2'], 'must be ALL, PRICE (or 1) or SMA (or 2)'))
    .transform((type) =>
      type === 'ALL' ? null : type === 'PRICE' || type === '1' ? NOTIFICATION_TYPE.PRICE : NOTIFICATION_TYPE.SMA,
    ),
});

const pageQuery = z.object({
  limit: z.coerce
    .number()
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(NOTIFICATION_PAGE.max, `must be at most ${NOTIFICATION_PAGE.max}`)
    .default(NOTIFICATION_PAGE.default),
  before: z
    .string()
    .trim()
    .refine((v) => isUuid(v) || isoTime.safeParse(v).success, 'must be a notification id or an ISO 8601 time')
    .optional(),
});

const readBody = z
  .object({
    ids: z
      .array(z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'))
      .min(1, 'must name at least one notification')
      .max(MARK_READ_LIMIT, `must name at most ${MARK_READ_LIMIT} notifications`)
      .optional(),
    all: z.boolean().optional(),
  })
  .superRefine((body, ctx) => {
    if (body.all === true && body.ids !== undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'give either ids or all: true, not both' });
    } else if (body.all === false && body.ids === undefined) {
      ctx.addIssue({ code: 'custom', path: ['all'], message: 'must be true to mark every notification read' });
    } else if (body.all === undefined && body.ids === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'must be {ids: [...]} or {all: true}' });
    }
  });

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

function isRead(state: NotificationsState, stored: StoredNotification): boolean {
  return isNotificationRead(state, stored.value.id, stored.position);
}

function unreadCount(state: NotificationsState, notifications: readonly StoredNotification[]): number {
  return notifications.filter((n) => !isRead(state, n)).length;
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

function markNewest(ctx: Context, ...positions: (LogPosition | undefined)[]): void {
  const known = positions.filter((p): p is LogPosition => p !== undefined);
  markPosition(ctx, known.sort(comparePositions).at(-1));
}

/** The notification routes. */
export function notificationsRoutes(deps: NotificationsDeps) {
  return [
    defineRoute({
      method: 'GET',
      path: '/personalize/usernotifications/unreadcount',
      summary: "How many of the user's notifications are unread (the bell's badge)",
      tag: 'notifications',
      access: 'user',
      response: unreadAnswer,
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
      method: 'GET',
      path: '/personalize/usernotifications/:type',
      summary:
        "The user's notifications, newest first: type ALL, PRICE (1) or SMA (2); limit 1-200 (50), before an id or time",
      tag: 'notifications',
      access: 'user',
      params: typeParams,
      query: pageQuery,
      response: z.array(notificationAnswer),
      handle: async ({ params, query, userId, ctx }) => {
        const reach = await notificationsReach(deps.readModels);
        const [all, read] = await Promise.all([
          listNotifications(deps.readModels, userId),
          readState(deps.readModels, userId),
        ]);
        // The newest position the list reflects, with no trigger before it missing: what a tab catches up from.
        markNewest(ctx, all[0]?.position, reach);
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
        return page.slice(0, query.limit).map((n): NotificationAnswer => ({
          id: n.value.id,
          symbol: n.value.symbol,
          notificationtype: n.value.notificationtype,
          notifcationmessage: n.value.notifcationmessage,
          createdt: n.value.createdt,
          read: isRead(read.state, n),
        }));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/personalize/readnotifications',
      summary: 'Mark notifications read, by id or all; answers how many are still unread',
      tag: 'notifications',
      access: 'user',
      body: readBody,
      response: unreadAnswer,
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
          const unread = ids.filter((id) => !isRead(state, byId.get(id)!));
          if (unread.length > 0) {
            const outcome = await deps.commands.execute(
              concern,
              { type: 'MarkNotificationsRead', data: { ids: unread } },
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
