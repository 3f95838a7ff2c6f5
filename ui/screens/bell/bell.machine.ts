/**
 * The notifications bell: the unread count (live from the socket), the panel with the newest notifications,
 * and "opening marks them read": the ones the panel lists (by id), and those pushed while it is open; unread
 * ones older than the newest {@link BELL_LOAD_LIMIT} stay unread (the panel says how many) until the user marks
 * them read too.
 */
import { notificationsApi } from '../../../domain/contract/notifications.ts';
import { assertEvent, assign, fromCallback, fromPromise, setup, spawnChild } from 'xstate';
import type { NotificationPush } from '../../../domain/contract/socket.ts';
import { call, callPositioned, errorMessage } from '../../services/api.ts';
import { live } from '../../services/live.ts';

/** A notification as the bell lists it. */
export type BellNotification = Omit<NotificationPush, 'position'> & { readonly position?: string };

/** How many notifications the panel loads. */
export const BELL_LOAD_LIMIT = 200;

/** The bell's state. */
export interface BellContext {
  readonly notifications: readonly BellNotification[];
  readonly unread: number;
  readonly error: string | null;
}

/** Events of the bell. */
export type BellEvent =
  | { type: 'user.open' }
  | { type: 'user.close' }
  | { type: 'user.retry' }
  | { type: 'user.markAll' }
  | { type: 'server.notification'; notification: BellNotification }
  | { type: 'server.changed' };

/** Adds a pushed notification at the top unless it is already listed. */
export function withNotification(
  list: readonly BellNotification[],
  notification: BellNotification,
): readonly BellNotification[] {
  if (list.some((n) => n.id === notification.id)) return list;
  return [notification, ...list].slice(0, BELL_LOAD_LIMIT);
}

/** The bell's machine. */
export const bellMachine = setup({
  types: { context: {} as BellContext, events: {} as BellEvent },
  actors: {
    loadNotifications: fromPromise<{ notifications: BellNotification[]; unread: number }>(async () => {
      const [listed, count] = await Promise.all([
        callPositioned(notificationsApi.getUsernotificationsByType, {
          params: { type: 'ALL' },
          query: { limit: BELL_LOAD_LIMIT },
        }),
        call(notificationsApi.getUsernotificationsUnreadcount),
      ]);
      // The live connection catches up from here after a reconnect, even before its first push.
      if (listed.position) live.notePosition(listed.position);
      return { notifications: listed.body, unread: count.unread };
    }),
    markRead: fromPromise<{ unread: number } | null, { ids: readonly string[] }>(async ({ input }) =>
      input.ids.length === 0 ? null : call(notificationsApi.postReadnotifications, { body: { ids: [...input.ids] } }),
    ),
    markAllRead: fromPromise(async () => call(notificationsApi.postReadnotifications, { body: { all: true } })),
    liveNotifications: fromCallback<BellEvent>(({ sendBack }) => {
      const offPush = live.onNotification((notification) => sendBack({ type: 'server.notification', notification }));
      const offChange = live.onReadModelChanged((change) => {
        if (change.name === 'notificationreads') sendBack({ type: 'server.changed' });
      });
      return () => {
        offPush();
        offChange();
      };
    }),
  },
  actions: {
    addUnread: assign({
      notifications: ({ context, event }) =>
        event.type === 'server.notification'
          ? withNotification(context.notifications, event.notification)
          : context.notifications,
      unread: ({ context, event }) =>
        event.type === 'server.notification' && !context.notifications.some((n) => n.id === event.notification.id)
          ? context.unread + 1
          : context.unread,
    }),
    /** The listed ones read; the count keeps the unread ones not listed (older than the newest loaded). */
    markListedReadLocally: assign({
      unread: ({ context }) => Math.max(0, context.unread - context.notifications.filter((n) => !n.read).length),
      notifications: ({ context }) => context.notifications.map((n) => (n.read ? n : { ...n, read: true })),
    }),
  },
}).createMachine({
  id: 'bell',
  context: { notifications: [], unread: 0, error: null },
  invoke: { src: 'liveNotifications' },
  type: 'parallel',
  states: {
    data: {
      initial: 'loading',
      states: {
        loading: {
          invoke: {
            src: 'loadNotifications',
            onDone: {
              target: 'ready',
              actions: assign({
                notifications: ({ event }) => event.output.notifications,
                unread: ({ event }) => event.output.unread,
                error: null,
              }),
            },
            onError: { target: 'failed', actions: assign({ error: ({ event }) => errorMessage(event.error) }) },
          },
        },
        ready: {
          on: { 'server.changed': 'loading' },
        },
        failed: {
          on: { 'user.retry': 'loading' },
        },
      },
    },
    panel: {
      initial: 'closed',
      states: {
        closed: {
          on: {
            'user.open': 'open',
            'server.notification': { actions: 'addUnread' },
          },
        },
        open: {
          initial: 'marking',
          // The ids are the listed unread ones, taken before the entry marks them read locally.
          entry: [
            spawnChild('markRead', {
              input: ({ context }) => ({ ids: context.notifications.filter((n) => !n.read).map((n) => n.id) }),
            }),
            'markListedReadLocally',
          ],
          states: {
            marking: {},
            markingAll: {
              invoke: {
                src: 'markAllRead',
                onDone: { target: 'marking', actions: assign({ unread: 0 }) },
                onError: {
                  target: 'marking',
                  actions: assign({ error: ({ event }) => errorMessage(event.error) }),
                },
              },
            },
          },
          on: {
            'user.close': 'closed',
            'user.markAll': '.markingAll',
            'server.notification': {
              // Seen as it arrives: read on the server too, unless it was already listed.
              guard: ({ context, event }) => !context.notifications.some((n) => n.id === event.notification.id),
              actions: [
                assign({
                  notifications: ({ context, event }) =>
                    withNotification(context.notifications, { ...event.notification, read: true }),
                }),
                spawnChild('markRead', {
                  input: ({ event }) => {
                    assertEvent(event, 'server.notification');
                    return { ids: [event.notification.id] };
                  },
                }),
              ],
            },
          },
        },
      },
    },
  },
});
