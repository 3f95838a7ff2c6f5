/**
 * The notifications bell: the unread count (live from the socket), the panel with the newest notifications,
 * and "opening marks them read": the ones the panel lists (by id), and those pushed while it is open; unread
 * ones older than the newest {@link BELL_LOAD_LIMIT} stay unread (the panel says how many) until the user marks
 * them read too. Beside them, the user's latest deliveries (webhook, email, Web Push), read again when one moves
 * on, so that a notification whose delivery failed, or waits for a retry after a failed attempt, says so.
 */
import { byChannelType } from '../../components/channelWords.ts';
import { DELIVERY_PAGE, channelsApi, type DeliveryAnswer } from '../../../domain/contract/channels.ts';
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
  /** The user's latest deliveries (at most {@link DELIVERY_PAGE}'s `max`), newest first; none when unreadable. */
  readonly deliveries: readonly DeliveryAnswer[];
  /** The deliveries changed on the server while they were being read: read them again after. */
  readonly deliveriesStale: boolean;
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
  | { type: 'server.changed' }
  | { type: 'server.delivered' };

/** Adds a pushed notification at the top unless it is already listed. */
export function withNotification(
  list: readonly BellNotification[],
  notification: BellNotification,
): readonly BellNotification[] {
  if (list.some((n) => n.id === notification.id)) return list;
  return [notification, ...list].slice(0, BELL_LOAD_LIMIT);
}

/**
 * Whether the bell warns of a delivery: it failed for good, or it waits for a retry after a failed attempt.
 * A delivery made, or on its first attempt, says nothing.
 */
export function deliveryNeedsWarning(delivery: DeliveryAnswer): boolean {
  return delivery.status === 'failed' || (delivery.status === 'pending' && delivery.retryAt !== null);
}

/**
 * The deliveries the bell warns of, by the id of the listed notification they carry (a trigger's id is its
 * notification's), each notification's in channel-type order (webhook, email, Web Push); a notification with
 * none is not in the map.
 */
export function deliveryWarnings(
  notifications: readonly BellNotification[],
  deliveries: readonly DeliveryAnswer[],
): ReadonlyMap<string, readonly DeliveryAnswer[]> {
  const listed = new Set(notifications.map((n) => n.id));
  const warnings = new Map<string, DeliveryAnswer[]>();
  for (const delivery of deliveries) {
    const id = delivery.triggerId;
    if (id === null || !listed.has(id) || !deliveryNeedsWarning(delivery)) continue;
    const list = warnings.get(id);
    if (list) list.push(delivery);
    else warnings.set(id, [delivery]);
  }
  for (const list of warnings.values()) {
    list.sort(byChannelType);
  }
  return warnings;
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
    loadDeliveries: fromPromise<readonly DeliveryAnswer[]>(async ({ signal }) =>
      call(channelsApi.getDeliveries, { query: { limit: DELIVERY_PAGE.max }, signal }),
    ),
    /**
     * Marks notifications read on the server. A failure (the session ended, the network dropped) leaves the
     * server's flags as they were: the notifications are read again, so the bell shows them as the server has
     * them (a spawned request that failed unhandled would stop the bell).
     */
    markRead: fromCallback<BellEvent, { ids: readonly string[] }>(({ input, sendBack }) => {
      if (input.ids.length === 0) return;
      call(notificationsApi.postReadnotifications, { body: { ids: [...input.ids] } }).then(
        () => undefined,
        () => sendBack({ type: 'server.changed' }),
      );
    }),
    markAllRead: fromPromise(async () => call(notificationsApi.postReadnotifications, { body: { all: true } })),
    liveNotifications: fromCallback<BellEvent>(({ sendBack }) => {
      const offPush = live.onNotification((notification) => sendBack({ type: 'server.notification', notification }));
      const offChange = live.onReadModelChanged((change) => {
        if (change.name === 'notificationreads') sendBack({ type: 'server.changed' });
        // A delivery moved on (sent, failed, retried): only the deliveries are read again.
        if (change.name === 'deliveries') sendBack({ type: 'server.delivered' });
      });
      return () => {
        offPush();
        offChange();
      };
    }),
  },
  actions: {
    /** A pushed notification listed, and counted unread unless it was listed already. */
    addUnread: assign(({ context, event }) => {
      assertEvent(event, 'server.notification');
      if (context.notifications.some((n) => n.id === event.notification.id)) return {};
      return { notifications: withNotification(context.notifications, event.notification), unread: context.unread + 1 };
    }),
    /** The listed ones read; the count keeps the unread ones not listed (older than the newest loaded). */
    markListedReadLocally: assign({
      unread: ({ context }) => Math.max(0, context.unread - context.notifications.filter((n) => !n.read).length),
      notifications: ({ context }) => context.notifications.map((n) => (n.read ? n : { ...n, read: true })),
    }),
  },
  guards: {
    deliveriesStale: ({ context }) => context.deliveriesStale,
    /** Whether a pushed notification is not listed yet. */
    notListed: ({ context, event }) => {
      assertEvent(event, 'server.notification');
      return !context.notifications.some((n) => n.id === event.notification.id);
    },
  },
}).createMachine({
  id: 'bell',
  context: { notifications: [], deliveries: [], deliveriesStale: false, unread: 0, error: null },
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
              guard: 'notListed',
              actions: [
                assign(({ context, event }) => {
                  assertEvent(event, 'server.notification');
                  return {
                    notifications: withNotification(context.notifications, { ...event.notification, read: true }),
                  };
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
    deliveries: {
      initial: 'loading',
      states: {
        loading: {
          entry: assign({ deliveriesStale: false }),
          invoke: {
            src: 'loadDeliveries',
            onDone: { target: 'ready', actions: assign({ deliveries: ({ event }) => event.output }) },
            // The notifications are shown all the same, without warnings.
            onError: { target: 'unavailable', actions: assign({ deliveries: [] }) },
          },
          on: { 'server.delivered': { actions: assign({ deliveriesStale: true }) } },
        },
        ready: {
          always: { guard: 'deliveriesStale', target: 'loading' },
          on: { 'server.delivered': 'loading' },
        },
        unavailable: {
          always: { guard: 'deliveriesStale', target: 'loading' },
          on: { 'server.delivered': 'loading', 'user.retry': 'loading' },
        },
      },
    },
  },
});
