/**
 * The settings screen: the user's delivery channels (add a webhook, an email address or this browser's Web Push
 * subscription, send a test, remove, enable a disabled webhook again, rotate a webhook's secret, send an
 * unconfirmed address its confirmation again), each channel's last deliveries, and what this browser does with an
 * alert while its tab is hidden (a system notification, a sound). A webhook's signing secret is shown once, right
 * after it is added or rotated, with a button that copies it.
 */
import { assign, assertEvent, enqueueActions, fromCallback, fromPromise, setup } from 'xstate';
import {
  channelsApi,
  pushKeyApi,
  type AttemptAnswer,
  type ChannelAnswer,
  type ChannelRequest,
  type DeliveryAnswer,
  type RotatedSecret,
} from '../../../domain/contract/channels.ts';
import { fieldRefusal } from '../../components/fieldRefusal.ts';
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
  /** The secret of the webhook just added or rotated, shown once, and whether it was copied. */
  readonly secret: ShownSecret | null;
  /** The channel being removed, tested, enabled, rotated or sent its confirmation again. */
  readonly busyId: string | null;
  /** The email channels sent their confirmation again while the screen is open. */
  readonly resent: readonly string[];
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
  | { type: 'user.enable'; id: string }
  | { type: 'user.rotateSecret'; id: string }
  | { type: 'user.resendConfirmation'; id: string }
  | { type: 'user.copySecret' }
  | { type: 'server.copied' }
  | { type: 'server.copyFailed'; message: string }
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

/** A webhook secret shown once: of a webhook just `added`, or a new one `rotated`. */
export interface ShownSecret {
  readonly channelId: string;
  readonly secret: string;
  readonly reason: 'added' | 'rotated';
  /** Whether the copy button put it on the clipboard. */
  readonly copied: boolean;
}

/** A channel's deliveries, newest first, at most `limit`. */
export function deliveriesOf(deliveries: readonly DeliveryAnswer[], channelId: string, limit = 5): DeliveryAnswer[] {
  return deliveries.filter((d) => d.channelId === channelId).slice(0, limit);
}

/** The add-channel forms' controls by the names the server's refusals give them. */
const CHANNEL_LABELS: Readonly<Record<string, string>> = {
  url: 'Webhook URL',
  name: 'Webhook name',
  address: 'Email address',
};

/** Why a channel could not be added, in the words of the form (`Webhook URL: 10.0.0.1 is not a public address`). */
export function channelRefusal(error: unknown): string {
  return fieldRefusal(errorMessage(error), CHANNEL_LABELS).text;
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
    enableChannel: fromPromise<ChannelAnswer, string>(async ({ input }) =>
      call(channelsApi.postChannelEnable, { params: { id: input } }),
    ),
    rotateSecret: fromPromise<RotatedSecret, string>(async ({ input }) =>
      call(channelsApi.postChannelSecret, { params: { id: input } }),
    ),
    resendConfirmation: fromPromise<unknown, string>(async ({ input }) =>
      call(channelsApi.postChannelConfirmResend, { params: { id: input } }),
    ),
    copyText: fromCallback<SettingsEvent, string>(({ input, sendBack }) => {
      const refused = 'This browser did not let the page copy: select the secret and copy it';
      if (!navigator.clipboard) sendBack({ type: 'server.copyFailed', message: refused });
      else {
        navigator.clipboard.writeText(input).then(
          () => sendBack({ type: 'server.copied' }),
          () => sendBack({ type: 'server.copyFailed', message: refused }),
        );
      }
    }),
    askPermission: fromPromise<NotificationPermission | 'unsupported'>(async () => askNotificationPermission()),
    deliveryChanges: fromCallback(({ sendBack }) =>
      live.onReadModelChanged((change) => {
        if (change.name === 'deliveries' || change.name === 'channels') sendBack({ type: 'server.changed' });
      }),
    ),
  },
  actions: {
    savePrefs: ({ context }) => writeBrowserPrefs(context.prefs),
    // One copy at a time: a copy asked again replaces the one under way.
    copySecret: enqueueActions(({ context, enqueue }) => {
      enqueue.stopChild('copy');
      enqueue.spawnChild('copyText', { id: 'copy', input: context.secret?.secret ?? '' });
    }),
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
    resent: [],
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
        // Copied while anything else goes on: the secret is on screen until dismissed.
        'user.copySecret': { guard: ({ context }) => context.secret !== null, actions: 'copySecret' },
        'server.copied': {
          actions: assign({ secret: ({ context }) => (context.secret ? { ...context.secret, copied: true } : null) }),
        },
        'server.copyFailed': { actions: assign({ saveError: ({ event }) => event.message }) },
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
            'user.enable': { target: 'enabling', actions: assign({ busyId: ({ event }) => event.id }) },
            'user.rotateSecret': { target: 'rotating', actions: assign({ busyId: ({ event }) => event.id }) },
            'user.resendConfirmation': { target: 'resending', actions: assign({ busyId: ({ event }) => event.id }) },
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
                  event.output.secret
                    ? { channelId: event.output.id, secret: event.output.secret, reason: 'added', copied: false }
                    : null,
              }),
            },
            onError: { target: 'idle', actions: assign({ saveError: ({ event }) => channelRefusal(event.error) }) },
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
        enabling: {
          invoke: {
            src: 'enableChannel',
            input: ({ event }) => {
              assertEvent(event, 'user.enable');
              return event.id;
            },
            onDone: { target: 'refreshing', actions: assign({ saveError: null }) },
            onError: { target: 'idle', actions: assign({ saveError: ({ event }) => errorMessage(event.error) }) },
          },
        },
        rotating: {
          invoke: {
            src: 'rotateSecret',
            input: ({ event }) => {
              assertEvent(event, 'user.rotateSecret');
              return event.id;
            },
            onDone: {
              target: 'refreshing',
              actions: assign({
                saveError: null,
                secret: ({ event }) => ({
                  channelId: event.output.id,
                  secret: event.output.secret,
                  reason: 'rotated',
                  copied: false,
                }),
              }),
            },
            onError: { target: 'idle', actions: assign({ saveError: ({ event }) => errorMessage(event.error) }) },
          },
        },
        resending: {
          invoke: {
            src: 'resendConfirmation',
            input: ({ event }) => {
              assertEvent(event, 'user.resendConfirmation');
              return event.id;
            },
            onDone: {
              target: 'refreshing',
              actions: assign({
                saveError: null,
                resent: ({ context }) =>
                  context.busyId === null || context.resent.includes(context.busyId)
                    ? context.resent
                    : [...context.resent, context.busyId],
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
