/**
 * The settings screen: the user's delivery channels (add a webhook, an email address or this browser's Web Push
 * subscription, send a test, remove), each channel's last deliveries, and what this browser does with an alert
 * while its tab is hidden (a system notification, a sound). A webhook's signing secret is shown once, right
 * after it is added.
 */
import { assign, assertEvent, fromCallback, fromPromise, setup } from 'xstate';
import {
  channelsApi,
  pushKeyApi,
  type AttemptAnswer,
  type ChannelAnswer,
  type ChannelRequest,
  type DeliveryAnswer,
} from '../../../domain/contract/channels.ts';
import { call, errorMessage } from '../../services/api.ts';
import {
  askNotificationPermission,
  notificationPermission,
  readBrowserPrefs,
  subscribePush,
  writeBrowserPrefs,
  type BrowserAlertPrefs,
} from '../../services/browserAlerts.ts';
import { live } from '../../services/live.ts';

/** What the settings screen holds. */
export interface SettingsContext {
  readonly channels: readonly ChannelAnswer[];
  readonly deliveries: readonly DeliveryAnswer[];
  /** The secret of the webhook just added, shown once. */
  readonly secret: { readonly channelId: string; readonly secret: string } | null;
  /** The channel being removed or tested. */
  readonly busyId: string | null;
  /** The outcome of the last test of each channel, by channel id. */
  readonly tests: Readonly<Record<string, AttemptAnswer>>;
  /** This browser's preferences and permission. */
  readonly prefs: BrowserAlertPrefs;
  readonly permission: NotificationPermission | 'unsupported';
  /** Why the screen could not load. */
  readonly error: string | null;
  /** Why the last change failed. */
  readonly saveError: string | null;
  /**
   * Whether the server said the channels or deliveries changed while a request was under way (the list read then
   * may be older): they are read again once it is done.
   */
  readonly stale: boolean;
}

/** Events of the settings screen. */
export type SettingsEvent =
  | { type: 'user.addChannel'; channel: ChannelRequest }
  | { type: 'user.addThisBrowser' }
  | { type: 'user.remove'; id: string }
  | { type: 'user.test'; id: string }
  | { type: 'user.setNotify'; on: boolean }
  | { type: 'user.setSound'; on: boolean }
  | { type: 'user.dismissSecret' }
  | { type: 'user.dismissError' }
  | { type: 'user.retry' }
  | { type: 'server.changed' };

/** What a load answers. */
export interface SettingsLoad {
  readonly channels: readonly ChannelAnswer[];
  readonly deliveries: readonly DeliveryAnswer[];
}

/** The answer of adding a channel. */
export type AddedChannel = ChannelAnswer & { readonly secret?: string | undefined };

/** A channel's deliveries, newest first, at most `limit`. */
export function deliveriesOf(deliveries: readonly DeliveryAnswer[], channelId: string, limit = 5): DeliveryAnswer[] {
  return deliveries.filter((d) => d.channelId === channelId).slice(0, limit);
}

/** The settings screen's machine. */
export const settingsMachine = setup({
  types: { context: {} as SettingsContext, events: {} as SettingsEvent },
  actors: {
    loadSettings: fromPromise<SettingsLoad>(async () => {
      const [channels, deliveries] = await Promise.all([
        call(channelsApi.getChannels),
        call(channelsApi.getDeliveries, { query: { limit: 200 } }),
      ]);
      return { channels, deliveries };
    }),
    addChannel: fromPromise<AddedChannel, ChannelRequest>(async ({ input }) =>
      call(channelsApi.postChannels, { body: input }),
    ),
    addThisBrowser: fromPromise<AddedChannel>(async () => {
      const { publicKey } = await call(pushKeyApi.getPushKey);
      const subscription = await subscribePush(publicKey);
      const { endpoint, keys } = subscription;
      if (!endpoint || !keys?.p256dh || !keys.auth) throw new Error('This browser gave no push subscription');
      return call(channelsApi.postChannels, {
        body: { type: 'webpush', subscription: { endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth } } },
      });
    }),
    removeChannel: fromPromise<unknown, string>(async ({ input }) =>
      call(channelsApi.postDelchannelById, { params: { id: input } }),
    ),
    testChannel: fromPromise<AttemptAnswer, string>(async ({ input }) =>
      call(channelsApi.postChannelTest, { params: { id: input } }),
    ),
    askPermission: fromPromise<NotificationPermission | 'unsupported'>(async () => askNotificationPermission()),
    deliveryChanges: fromCallback(({ sendBack }) =>
      live.onReadModelChanged((change) => {
        if (change.name === 'deliveries' || change.name === 'channels') sendBack({ type: 'server.changed' });
      }),
    ),
  },
  actions: {
    savePrefs: ({ context }) => writeBrowserPrefs(context.prefs),
  },
  guards: {
    granted: (_, params: { permission: string }) => params.permission === 'granted',
    stale: ({ context }) => context.stale,
  },
}).createMachine({
  id: 'settings',
  initial: 'loading',
  context: () => ({
    channels: [],
    deliveries: [],
    secret: null,
    tests: {},
    busyId: null,
    prefs: readBrowserPrefs(),
    permission: notificationPermission(),
    error: null,
    saveError: null,
    stale: false,
  }),
  states: {
    loading: {
      invoke: {
        src: 'loadSettings',
        onDone: {
          target: 'ready',
          actions: assign({
            channels: ({ event }) => event.output.channels,
            deliveries: ({ event }) => event.output.deliveries,
            error: null,
          }),
        },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => errorMessage(event.error) }) },
      },
    },
    failed: { on: { 'user.retry': 'loading' } },
    ready: {
      invoke: { src: 'deliveryChanges' },
      initial: 'idle',
      on: {
        'user.dismissSecret': { actions: assign({ secret: null }) },
        'user.dismissError': { actions: assign({ saveError: null }) },
        'user.setSound': {
          actions: [assign({ prefs: ({ context, event }) => ({ ...context.prefs, sound: event.on }) }), 'savePrefs'],
        },
        // Kept for when the request under way is done (idle reads the lists again at once).
        'server.changed': { actions: assign({ stale: true }) },
      },
      states: {
        idle: {
          always: { guard: 'stale', target: 'refreshing' },
          on: {
            'user.addChannel': 'adding',
            'user.addThisBrowser': 'subscribing',
            'user.remove': { target: 'removing', actions: assign({ busyId: ({ event }) => event.id }) },
            'user.test': { target: 'testing', actions: assign({ busyId: ({ event }) => event.id }) },
            'user.setNotify': [
              {
                guard: ({ event }) => !event.on,
                actions: [assign({ prefs: ({ context }) => ({ ...context.prefs, notify: false }) }), 'savePrefs'],
              },
              { target: 'asking' },
            ],
            'server.changed': 'refreshing',
          },
        },
        adding: {
          invoke: {
            src: 'addChannel',
            input: ({ event }) => {
              assertEvent(event, 'user.addChannel');
              return event.channel;
            },
            onDone: {
              target: 'refreshing',
              actions: assign({
                saveError: null,
                secret: ({ event }) =>
                  event.output.secret ? { channelId: event.output.id, secret: event.output.secret } : null,
              }),
            },
            onError: { target: 'idle', actions: assign({ saveError: ({ event }) => errorMessage(event.error) }) },
          },
        },
        subscribing: {
          invoke: {
            src: 'addThisBrowser',
            onDone: { target: 'refreshing', actions: assign({ saveError: null }) },
            onError: { target: 'idle', actions: assign({ saveError: ({ event }) => errorMessage(event.error) }) },
          },
        },
        removing: {
          invoke: {
            src: 'removeChannel',
            input: ({ event }) => {
              assertEvent(event, 'user.remove');
              return event.id;
            },
            onDone: { target: 'refreshing', actions: assign({ saveError: null }) },
            onError: { target: 'idle', actions: assign({ saveError: ({ event }) => errorMessage(event.error) }) },
          },
        },
        testing: {
          invoke: {
            src: 'testChannel',
            input: ({ event }) => {
              assertEvent(event, 'user.test');
              return event.id;
            },
            onDone: {
              target: 'refreshing',
              actions: assign({
                saveError: null,
                tests: ({ context, event }) => ({ ...context.tests, [context.busyId ?? '']: event.output }),
              }),
            },
            onError: { target: 'idle', actions: assign({ saveError: ({ event }) => errorMessage(event.error) }) },
          },
        },
        asking: {
          invoke: {
            src: 'askPermission',
            onDone: [
              {
                guard: { type: 'granted', params: ({ event }) => ({ permission: event.output }) },
                target: 'idle',
                actions: [
                  assign({ permission: 'granted', prefs: ({ context }) => ({ ...context.prefs, notify: true }) }),
                  'savePrefs',
                ],
              },
              {
                target: 'idle',
                actions: assign({
                  permission: ({ event }) => event.output,
                  saveError:
                    'This browser does not allow notifications from StockPulse: allow them in its site settings',
                }),
              },
            ],
            onError: { target: 'idle', actions: assign({ saveError: ({ event }) => errorMessage(event.error) }) },
          },
        },
        refreshing: {
          // A change said from now on may be after what this read finds: it is kept for another read.
          entry: assign({ stale: false }),
          invoke: {
            src: 'loadSettings',
            onDone: {
              target: 'idle',
              actions: assign({
                channels: ({ event }) => event.output.channels,
                deliveries: ({ event }) => event.output.deliveries,
              }),
            },
            onError: 'idle',
          },
        },
      },
    },
  },
});
