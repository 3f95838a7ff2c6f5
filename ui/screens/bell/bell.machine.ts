/**
 * The notifications bell: the unread count (live from the socket), the panel with the newest notifications,
 * and "opening marks them read".
 */
import { assign, fromCallback, fromPromise, setup } from 'xstate';
import type { NotificationPush } from '../../../domain/contract/socket.ts';
import { errorMessage, get, getPositioned, post } from '../../services/api.ts';
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
    loadNotifications: fromPromise(async () => {
      const [listed, count] = await Promise.all([
        getPositioned<BellNotification[]>(`/personalize/usernotifications/ALL?limit=${BELL_LOAD_LIMIT}`),
        get<{ unread: number }>('/personalize/usernotifications/unreadcount'),
      ]);
      // The live connection catches up from here after a reconnect, even before its first push.
      if (listed.position) live.notePosition(listed.position);
      return { notifications: listed.body, unread: count.unread };
    }),
    markAllRead: fromPromise(async () => post<{ unread: number }>('/personalize/readnotifications', { all: true })),
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
    markAllReadLocally: assign({
      unread: 0,
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
          entry: 'markAllReadLocally',
          invoke: {
            src: 'markAllRead',
            onError: { actions: assign({ error: ({ event }) => errorMessage(event.error) }) },
          },
          on: {
            'user.close': 'closed',
            'server.notification': {
              actions: assign({
                notifications: ({ context, event }) =>
                  withNotification(context.notifications, { ...event.notification, read: true }),
              }),
            },
          },
        },
      },
    },
  },
});
