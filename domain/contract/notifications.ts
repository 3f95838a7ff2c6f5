/**
 * The notification routes of the API: the user's notifications, the unread count, marking them read.
 */
import { z } from './zod.ts';
import { isUuid } from '../ids.ts';
import { MARK_READ_LIMIT, NOTIFICATION_TYPE, type NotificationType } from '../notifications/notifications.ts';
import { wholeNumber } from './common.ts';
import { route } from './route.ts';

/** Most notifications one page may hold, and the default page size. */
export const NOTIFICATION_PAGE = Object.freeze({ max: 200, default: 50 });

/** A notification's type: 1 Price, 2 SMA, 3 EMA, 4 RSI, 5 Volume, 6 Change %. */
export const notificationTypeSchema = z.union([
  z.literal(NOTIFICATION_TYPE.PRICE),
  z.literal(NOTIFICATION_TYPE.SMA),
  z.literal(NOTIFICATION_TYPE.EMA),
  z.literal(NOTIFICATION_TYPE.RSI),
  z.literal(NOTIFICATION_TYPE.VOLUME),
  z.literal(NOTIFICATION_TYPE.CHANGE),
]);

/** A notification as the API answers it. */
export const notificationAnswer = z.object({
  id: z.string(),
  symbol: z.string(),
  /** 1 Price, 2 SMA, 3 EMA, 4 RSI, 5 Volume, 6 Change % (names in `NOTIFICATION_TYPE_NAMES`). */
  notificationtype: notificationTypeSchema,
  notifcationmessage: z.string(),
  createdt: z.string(),
  read: z.boolean(),
  /** The alert's note (the user's own words) when it fired, or null. */
  note: z.string().nullable(),
});

/** A notification as the API answers it. */
export type NotificationAnswer = z.infer<typeof notificationAnswer>;

/**
 * What a system notification of a firing shows (a Web Push one, or the browser's own for a hidden tab): the symbol
 * in the title (none for a test), the message and, on a line of its own, the alert's note.
 */
export function firingNotificationText(
  symbol: string,
  message: string,
  note: string | null,
): { readonly title: string; readonly body: string } {
  return {
    title: symbol === '' ? 'StockPulse' : `StockPulse: ${symbol}`,
    body: note === null ? message : `${message}\n${note}`,
  };
}

const unreadAnswer = z.object({ unread: z.number().int() });

const isoTime = z.iso.datetime({ offset: true });

/** The notification types a filter may name, by name or number (any case). */
const TYPE_FILTERS: Readonly<Record<string, NotificationType | null>> = Object.freeze({
  ALL: null,
  PRICE: NOTIFICATION_TYPE.PRICE,
  SMA: NOTIFICATION_TYPE.SMA,
  EMA: NOTIFICATION_TYPE.EMA,
  RSI: NOTIFICATION_TYPE.RSI,
  VOLUME: NOTIFICATION_TYPE.VOLUME,
  CHANGE: NOTIFICATION_TYPE.CHANGE,
  ...Object.fromEntries(Object.values(NOTIFICATION_TYPE).map((type) => [String(type), type])),
});

/** `ALL`, a type's name (`PRICE`, `SMA`, `EMA`, `RSI`, `VOLUME`, `CHANGE`) or its number (1–6), any case. */
const typeParams = z.object({
  type: z
    .string()
    .trim()
    .toUpperCase()
    .refine(
      (type) => Object.hasOwn(TYPE_FILTERS, type),
      'must be ALL, PRICE (or 1), SMA (or 2), EMA (or 3), RSI (or 4), VOLUME (or 5) or CHANGE (or 6)',
    )
    .transform((type) => TYPE_FILTERS[type] ?? null),
});

const pageQuery = z.strictObject({
  limit: wholeNumber(1, NOTIFICATION_PAGE.max).default(NOTIFICATION_PAGE.default),
  before: z
    .string()
    .trim()
    .refine((v) => isUuid(v) || isoTime.safeParse(v).success, 'must be a notification id or an ISO 8601 time')
    .optional(),
});

const readBody = z
  .strictObject({
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

/** The notifications routes. */
export const notificationsApi = {
  getUsernotificationsUnreadcount: route({
    method: 'GET',
    path: '/personalize/usernotifications/unreadcount',
    summary: "How many of the user's notifications (the latest 1,000) are unread (the bell's badge)",
    tag: 'notifications',
    access: 'user',
    response: unreadAnswer,
  }),
  getUsernotificationsByType: route({
    method: 'GET',
    path: '/personalize/usernotifications/:type',
    summary:
      "The user's latest 1,000 notifications, newest first: type ALL, PRICE (1) or SMA (2); limit 1-200 (50), before an id or time",
    tag: 'notifications',
    access: 'user',
    params: typeParams,
    query: pageQuery,
    response: z.array(notificationAnswer),
  }),
  postReadnotifications: route({
    method: 'POST',
    path: '/personalize/readnotifications',
    summary: 'Mark notifications read, by id or all; answers how many are still unread',
    tag: 'notifications',
    access: 'user',
    body: readBody,
    response: unreadAnswer,
  }),
};
