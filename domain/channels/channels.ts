/**
 * Delivery channels: where a user's alerts go besides the bell (a webhook, an email address, a browser's Web
 * Push subscription), and which of them each alert uses. Every change is an event on `channels-<userId>`.
 */
import { DomainError, type Decider, type DomainEvent, eventTypes, unknownCommand } from '../decider.ts';
import { isUuid } from '../ids.ts';
import { PLAIN_TEXT_MESSAGE, isPlainText } from '../text.ts';

/** The concern name of channel streams (`channels-<userId>`). */
export const CHANNELS_CONCERN = 'channels';

/** Most channels one user may hold. */
export const CHANNELS_LIMIT = 20;

/** Longest accepted URL (webhook or push endpoint). */
export const CHANNEL_URL_MAX = 2000;

/** Longest channel name. */
export const CHANNEL_NAME_MAX = 60;

/** The kinds of channel. */
export const CHANNEL_TYPES = ['webhook', 'email', 'webpush'] as const;

/** A kind of channel. */
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** Each kind of channel in the screens' words. */
export const CHANNEL_TYPE_LABELS: Readonly<Record<ChannelType, string>> = Object.freeze({
  webhook: 'Webhook',
  email: 'Email',
  webpush: 'Browser push',
});

/** What a browser's `PushManager.subscribe` gives: the push service endpoint and the keys to encrypt for. */
export interface PushSubscriptionKeys {
  /** The push service URL of this browser. */
  readonly endpoint: string;
  /** The browser's P-256 public key (base64url). */
  readonly p256dh: string;
  /** The browser's 16-byte authentication secret (base64url). */
  readonly auth: string;
}

/** What the user asks for when adding a channel. */
export type ChannelSpec =
  | { readonly type: 'webhook'; readonly url: string; readonly name: string }
  | { readonly type: 'email'; readonly address: string }
  | { readonly type: 'webpush'; readonly subscription: PushSubscriptionKeys };

/** One channel of a user. */
export interface Channel {
  /** The channel id, derived from the command that added it. */
  readonly id: string;
  /** Webhook, email or Web Push. */
  readonly type: ChannelType;
  /** A name the user recognises it by. */
  readonly name: string;
  /** Webhooks: the URL posted to. */
  readonly url: string | null;
  /** Email: the address. */
  readonly address: string | null;
  /** Web Push: the browser's subscription. */
  readonly subscription: PushSubscriptionKeys | null;
  /** Whether it receives alerts: emails only once their address is confirmed, others at once. */
  readonly confirmed: boolean;
  /** When it was added (ISO 8601). */
  readonly createdt: string;
  /** Webhooks: which signing secret signs its deliveries, 1 after the first rotation; absent: the first (0). */
  readonly secretGeneration?: number;
  /** Webhooks: set once its receiver answered 410 Gone; nothing is sent to it until it is enabled again. */
  readonly disabled?: ChannelDisabled;
  /** Email: when the address holder unsubscribed through an alert email (the address is unconfirmed again). */
  readonly unsubscribedAt?: string;
}

/** Why and since when a webhook receives nothing: its receiver answered `status` (410 Gone) at `at`. */
export interface ChannelDisabled {
  /** The HTTP status the receiver answered. */
  readonly status: number;
  /** When (ISO 8601). */
  readonly at: string;
}

/** The fields of a channel that its later events set, not the event that added it. */
type LaterFields = 'id' | 'confirmed' | 'secretGeneration' | 'disabled' | 'unsubscribedAt';

/** Adds a channel. */
export type AddChannel = DomainEvent<
  'AddChannel',
  { readonly channelId: string; readonly spec: ChannelSpec; readonly at: string }
>;
/** Removes a channel. */
export type RemoveChannel = DomainEvent<'RemoveChannel', { readonly channelId: string }>;
/** Confirms an email channel's address (its link was followed). */
export type ConfirmEmailChannel = DomainEvent<
  'ConfirmEmailChannel',
  { readonly channelId: string; readonly at: string }
>;
/** Drops a Web Push subscription its push service no longer knows (404 or 410). */
export type DropPushSubscription = DomainEvent<
  'DropPushSubscription',
  { readonly channelId: string; readonly reason: string }
>;
/** Names the channels one alert uses; null: every channel of the user again (the choice of an alert naming none). */
export type ChooseAlertChannels = DomainEvent<
  'ChooseAlertChannels',
  { readonly alertId: string; readonly channelIds: readonly string[] | null }
>;
/** Disables a webhook whose receiver answered `status` (410 Gone): issued by the delivery processor. */
export type DisableWebhook = DomainEvent<
  'DisableWebhook',
  { readonly channelId: string; readonly status: number; readonly at: string }
>;
/** Enables a disabled webhook again (its user fixed the receiver). */
export type EnableWebhook = DomainEvent<'EnableWebhook', { readonly channelId: string; readonly at: string }>;
/** Replaces a webhook's signing secret with the next one. */
export type RotateWebhookSecret = DomainEvent<
  'RotateWebhookSecret',
  { readonly channelId: string; readonly at: string }
>;
/** Sends an unconfirmed email address its confirmation link again. */
export type ResendEmailConfirmation = DomainEvent<
  'ResendEmailConfirmation',
  { readonly channelId: string; readonly at: string }
>;
/** The address holder's unsubscription, through the link of an alert email (RFC 2369, RFC 8058). */
export type UnsubscribeEmailChannel = DomainEvent<
  'UnsubscribeEmailChannel',
  { readonly channelId: string; readonly at: string }
>;

/** Every command of the channels concern. */
export type ChannelsCommand =
  | AddChannel
  | RemoveChannel
  | ConfirmEmailChannel
  | DropPushSubscription
  | ChooseAlertChannels
  | DisableWebhook
  | EnableWebhook
  | RotateWebhookSecret
  | ResendEmailConfirmation
  | UnsubscribeEmailChannel;

/** A channel was added. */
export type ChannelAdded = DomainEvent<'ChannelAdded', Omit<Channel, LaterFields> & { readonly channelId: string }>;
/** A channel was removed by its user. */
export type ChannelRemoved = DomainEvent<'ChannelRemoved', { readonly channelId: string }>;
/** An email channel's address was confirmed (again, after an unsubscription: alerts reach it again). */
export type EmailChannelConfirmed = DomainEvent<
  'EmailChannelConfirmed',
  { readonly channelId: string; readonly at: string }
>;
/** A Web Push subscription was removed because its push service answered that it is gone. */
export type PushSubscriptionRemoved = DomainEvent<
  'PushSubscriptionRemoved',
  { readonly channelId: string; readonly reason: string }
>;
/** An alert's channels were chosen. */
export type AlertChannelsChosen = DomainEvent<
  'AlertChannelsChosen',
  { readonly alertId: string; readonly channelIds: readonly string[] }
>;

/** An alert's choice was dropped: its triggers go to every channel of the user again. */
export type AlertChannelsCleared = DomainEvent<'AlertChannelsCleared', { readonly alertId: string }>;

/**
 * A webhook's receiver answered `status` (410 Gone: the endpoint is gone for good), so the webhook was disabled:
 * no delivery is queued to it, and the ones pending end failed, until its user enables it again. Its channel
 * stays listed, saying why.
 */
export type WebhookDisabled = DomainEvent<
  'WebhookDisabled',
  { readonly channelId: string; readonly status: number; readonly at: string }
>;
/** A disabled webhook was enabled again by its user: the alerts triggered from then on reach it. */
export type WebhookEnabled = DomainEvent<'WebhookEnabled', { readonly channelId: string; readonly at: string }>;
/**
 * A webhook's signing secret was replaced: deliveries signed from then on use the secret of `generation`,
 * derived from the deployment key, the channel and the generation (the secret itself is never in the log).
 */
export type WebhookSecretRotated = DomainEvent<
  'WebhookSecretRotated',
  { readonly channelId: string; readonly generation: number; readonly at: string }
>;
/**
 * An unconfirmed email address was sent its confirmation again, on its user's request: the delivery processor
 * queues a confirmation delivery of its own (its id derived from this event's), with the same link as before.
 */
export type EmailConfirmationResent = DomainEvent<
  'EmailConfirmationResent',
  { readonly channelId: string; readonly at: string }
>;
/**
 * The address holder unsubscribed through the link of an alert email: the address is unconfirmed again, so
 * nothing but a confirmation reaches it until its holder confirms it again (its user may have one sent).
 */
export type EmailChannelUnsubscribed = DomainEvent<
  'EmailChannelUnsubscribed',
  { readonly channelId: string; readonly at: string }
>;

/** Every event of the channels concern. */
export type ChannelsEvent =
  | ChannelAdded
  | ChannelRemoved
  | EmailChannelConfirmed
  | PushSubscriptionRemoved
  | AlertChannelsChosen
  | AlertChannelsCleared
  | WebhookDisabled
  | WebhookEnabled
  | WebhookSecretRotated
  | EmailConfirmationResent
  | EmailChannelUnsubscribed;

/** Every event type of the delivery channels concern. */
export const CHANNELS_EVENT_TYPES = eventTypes<ChannelsEvent>()(
  'ChannelAdded',
  'ChannelRemoved',
  'EmailChannelConfirmed',
  'PushSubscriptionRemoved',
  'AlertChannelsChosen',
  'AlertChannelsCleared',
  'WebhookDisabled',
  'WebhookEnabled',
  'WebhookSecretRotated',
  'EmailConfirmationResent',
  'EmailChannelUnsubscribed',
);

/** A user's channels and the alerts that name theirs. */
export interface ChannelsState {
  /** The channels, oldest first. */
  readonly channels: readonly Channel[];
  /** The channels each alert that named some uses, by alert id. */
  readonly alertChannels: Readonly<Record<string, readonly string[]>>;
}

// The mailbox: no spaces or separators, and none that shows nothing (a zero-width space, a soft hyphen, a
// joiner): an address a reader cannot see is not one they can check.
const EMAIL_PATTERN =
  /^[^\s\p{Cf}\p{Z}@<>()",;:]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/u;
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

function httpUrl(text: string, field: string, schemes: readonly string[]): string {
  if (text.length > CHANNEL_URL_MAX) {
    throw new DomainError('invalid_url', `${field} is longer than ${CHANNEL_URL_MAX} characters`, field);
  }
  // The URL parser would drop a tab, a line break or a space at either end and keep another URL than the one sent.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f]/.test(text)) {
    throw new DomainError('invalid_url', `${field} must not hold spaces, line breaks or control characters`, field);
  }
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw new DomainError('invalid_url', `${field} ${JSON.stringify(text)} is not a URL`, field);
  }
  if (!schemes.includes(parsed.protocol)) {
    throw new DomainError(
      'invalid_url',
      `${field} must start with ${schemes.map((s) => `${s}//`).join(' or ')}`,
      field,
    );
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new DomainError('invalid_url', `${field} must not carry a user name or password`, field);
  }
  return parsed.href;
}

/** The field prime and the constant `b` of the curve P-256 (`y² = x³ − 3x + b`). */
const P256_P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
const P256_B = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn;

/**
 * Whether a base64url text is a point of P-256 written uncompressed (`0x04`, x, y: 65 bytes), as a browser's
 * push key is: a key off the curve would make every delivery to it fail, so it is refused when added.
 */
function isP256Point(key: string): boolean {
  const bytes = [...atob(key.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/'))].map((c) => c.charCodeAt(0));
  if (bytes.length !== 65 || bytes[0] !== 4) return false;
  const number = (from: number): bigint =>
    bytes.slice(from, from + 32).reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);
  const x = number(1);
  const y = number(33);
  if (x >= P256_P || y >= P256_P) return false;
  const mod = (n: bigint): bigint => ((n % P256_P) + P256_P) % P256_P;
  return mod(y * y) === mod(x * x * x - 3n * x + P256_B);
}

function checkedSpec(spec: ChannelSpec): {
  name: string;
  url: string | null;
  address: string | null;
  subscription: PushSubscriptionKeys | null;
} {
  switch (spec.type) {
    case 'webhook': {
      const url = httpUrl(spec.url, 'url', ['https:', 'http:']);
      const name = spec.name.trim();
      if (name.length > CHANNEL_NAME_MAX) {
        throw new DomainError('invalid_name', `name is longer than ${CHANNEL_NAME_MAX} characters`, 'name');
      }
      if (!isPlainText(name)) throw new DomainError('invalid_name', `name ${PLAIN_TEXT_MESSAGE}`, 'name');
      return { name: name === '' ? new URL(url).host : name, url, address: null, subscription: null };
    }
    case 'email': {
      const address = spec.address.trim();
      // Control characters would reach the mail server as another address (`a\u0000b@…` as `ab@…`).
      if (address.length > 254 || !isPlainText(address) || !EMAIL_PATTERN.test(address)) {
        throw new DomainError(
          'invalid_address',
          `address ${JSON.stringify(spec.address)} is not an email address`,
          'address',
        );
      }
      return { name: address, url: null, address, subscription: null };
    }
    case 'webpush': {
      const { endpoint, p256dh, auth } = spec.subscription;
      const url = httpUrl(endpoint, 'subscription.endpoint', ['https:', 'http:']);
      if (!BASE64URL.test(p256dh) || p256dh.length < 80 || p256dh.length > 100 || !isP256Point(p256dh)) {
        throw new DomainError(
          'invalid_key',
          'subscription.keys.p256dh must be a base64url P-256 public key (a point of the curve, uncompressed)',
          'subscription.keys.p256dh',
        );
      }
      if (!BASE64URL.test(auth) || auth.length < 16 || auth.length > 32) {
        throw new DomainError(
          'invalid_key',
          'subscription.keys.auth must be a base64url 16-byte secret',
          'subscription.keys.auth',
        );
      }
      return {
        name: `browser at ${new URL(url).host}`,
        url: null,
        address: null,
        subscription: { endpoint: url, p256dh, auth },
      };
    }
    default: {
      const _exhaustive: never = spec;
      throw new DomainError('invalid_type', `type must be one of ${CHANNEL_TYPES.join(', ')}`, 'type');
    }
  }
}

function findChannel(state: ChannelsState, channelId: string): Channel | undefined {
  const id = channelId.toLowerCase();
  return state.channels.find((c) => c.id === id);
}

/** A channel's kind in a sentence: `a webhook`, `an email address`, `a browser push subscription`. */
const KIND_WORDS: Readonly<Record<ChannelType, string>> = Object.freeze({
  webhook: 'a webhook',
  email: 'an email address',
  webpush: 'a browser push subscription',
});

/** The channel a user's command names, of the kind it applies to; refused naming `channelId` otherwise. */
function channelOfKind(state: ChannelsState, channelId: string, type: ChannelType, only: string): Channel {
  const channel = findChannel(state, channelId);
  if (!channel) throw new DomainError('not_found', `channelId ${String(channelId)}: no such channel`, 'channelId');
  if (channel.type !== type) {
    throw new DomainError(
      `not_${type}`,
      `channelId ${channel.id}: ${only}, and this channel is ${KIND_WORDS[channel.type]}`,
      'channelId',
    );
  }
  return channel;
}

function decide(command: ChannelsCommand, state: ChannelsState): ChannelsEvent[] {
  switch (command.type) {
    case 'AddChannel': {
      const { channelId, spec, at } = command.data;
      const checked = checkedSpec(spec);
      // The same browser subscribing again, or the same address added twice, is the channel already there.
      const same = state.channels.find(
        (c) =>
          (checked.subscription !== null && c.subscription?.endpoint === checked.subscription.endpoint) ||
          (checked.address !== null && c.address?.toLowerCase() === checked.address.toLowerCase()),
      );
      if (same) return [];
      // A second channel to the same webhook would post every alert there twice. URLs are compared as the URL
      // parser writes them (`checkedSpec` keeps that form), so `HTTPS://Hooks.Example.com:443/a` is `…com/a`.
      const sameUrl = checked.url === null ? undefined : state.channels.find((c) => c.url === checked.url);
      if (sameUrl) {
        throw new DomainError(
          'taken',
          `url ${JSON.stringify(checked.url)} is already the webhook of channel ${JSON.stringify(sameUrl.name)}`,
          'url',
        );
      }
      if (state.channels.length >= CHANNELS_LIMIT) {
        throw new DomainError('limit', `a user may have at most ${CHANNELS_LIMIT} channels`, 'type');
      }
      return [{ type: 'ChannelAdded', data: { channelId, type: spec.type, ...checked, createdt: at } }];
    }
    case 'RemoveChannel': {
      const channel = findChannel(state, command.data.channelId);
      if (!channel)
        throw new DomainError('not_found', `channelId ${String(command.data.channelId)}: no channel`, 'channelId');
      return [{ type: 'ChannelRemoved', data: { channelId: channel.id } }];
    }
    case 'ConfirmEmailChannel': {
      const channel = findChannel(state, command.data.channelId);
      if (!channel || channel.type !== 'email') {
        throw new DomainError(
          'not_found',
          `channel: no email channel ${JSON.stringify(command.data.channelId)}`,
          'channel',
        );
      }
      return channel.confirmed
        ? []
        : [{ type: 'EmailChannelConfirmed', data: { channelId: channel.id, at: command.data.at } }];
    }
    case 'DropPushSubscription': {
      const channel = findChannel(state, command.data.channelId);
      if (!channel || channel.type !== 'webpush') return [];
      return [{ type: 'PushSubscriptionRemoved', data: { channelId: channel.id, reason: command.data.reason } }];
    }
    case 'DisableWebhook': {
      const channel = findChannel(state, command.data.channelId);
      if (!channel || channel.type !== 'webhook' || channel.disabled) return [];
      const { status, at } = command.data;
      return [{ type: 'WebhookDisabled', data: { channelId: channel.id, status, at } }];
    }
    case 'EnableWebhook': {
      const channel = channelOfKind(state, command.data.channelId, 'webhook', 'only a webhook is disabled');
      return channel.disabled ? [{ type: 'WebhookEnabled', data: { channelId: channel.id, at: command.data.at } }] : [];
    }
    case 'RotateWebhookSecret': {
      const channel = channelOfKind(state, command.data.channelId, 'webhook', 'only a webhook has a signing secret');
      const generation = (channel.secretGeneration ?? 0) + 1;
      return [{ type: 'WebhookSecretRotated', data: { channelId: channel.id, generation, at: command.data.at } }];
    }
    case 'ResendEmailConfirmation': {
      const channel = channelOfKind(state, command.data.channelId, 'email', 'only an email address is confirmed');
      if (channel.confirmed) {
        throw new DomainError(
          'confirmed',
          `channelId ${channel.id}: the address is confirmed already; nothing to send again`,
          'channelId',
        );
      }
      return [{ type: 'EmailConfirmationResent', data: { channelId: channel.id, at: command.data.at } }];
    }
    case 'UnsubscribeEmailChannel': {
      const channel = findChannel(state, command.data.channelId);
      // A channel removed meanwhile, or unsubscribed and not confirmed since, has nothing more to stop.
      if (!channel || channel.type !== 'email' || (channel.unsubscribedAt !== undefined && !channel.confirmed)) {
        return [];
      }
      return [{ type: 'EmailChannelUnsubscribed', data: { channelId: channel.id, at: command.data.at } }];
    }
    case 'ChooseAlertChannels': {
      const { alertId, channelIds } = command.data;
      if (!isUuid(alertId))
        throw new DomainError('invalid_id', `alertId ${JSON.stringify(alertId)} is not an alert id`, 'alertId');
      const key = alertId.toLowerCase();
      if (channelIds === null) {
        return Object.hasOwn(state.alertChannels, key)
          ? [{ type: 'AlertChannelsCleared', data: { alertId: key } }]
          : [];
      }
      const chosen: string[] = [];
      channelIds.forEach((id, i) => {
        const channel = findChannel(state, id);
        if (!channel) {
          throw new DomainError(
            'unknown_channel',
            `channels[${i}]: no channel ${JSON.stringify(id)}`,
            `channels[${i}]`,
          );
        }
        if (!chosen.includes(channel.id)) chosen.push(channel.id);
      });
      const before = state.alertChannels[key];
      if (before && before.length === chosen.length && before.every((id, i) => id === chosen[i])) return [];
      return [{ type: 'AlertChannelsChosen', data: { alertId: key, channelIds: chosen } }];
    }
    default:
      throw unknownCommand(command, 'channels');
  }
}

/**
 * The state without a channel, and without it in the alerts that named it: an alert that named only channels
 * removed since goes back to every channel of the user (as one that names none), rather than to none, which no
 * request can ask for (`channels: []` is refused).
 */
function without(state: ChannelsState, channelId: string): ChannelsState {
  const channels = state.channels.filter((c) => c.id !== channelId);
  const naming = Object.entries(state.alertChannels).filter(([, named]) => named.includes(channelId));
  if (naming.length === 0) return { ...state, channels };
  const alertChannels: Record<string, readonly string[]> = { ...state.alertChannels };
  for (const [alertId, named] of naming) {
    const kept = named.filter((id) => channels.some((c) => c.id === id));
    if (kept.length > 0) alertChannels[alertId] = kept;
    else delete alertChannels[alertId];
  }
  return { channels, alertChannels };
}

/** The state with one channel changed by `change`. */
function changed(state: ChannelsState, channelId: string, change: (channel: Channel) => Channel): ChannelsState {
  return { ...state, channels: state.channels.map((c) => (c.id === channelId ? change(c) : c)) };
}

function evolve(state: ChannelsState, event: ChannelsEvent): ChannelsState {
  switch (event.type) {
    case 'ChannelAdded': {
      const { channelId, ...rest } = event.data;
      if (state.channels.some((c) => c.id === channelId)) return state;
      return { ...state, channels: [...state.channels, { id: channelId, ...rest, confirmed: rest.type !== 'email' }] };
    }
    case 'ChannelRemoved':
    case 'PushSubscriptionRemoved':
      return without(state, event.data.channelId);
    case 'EmailChannelConfirmed':
      return changed(state, event.data.channelId, ({ unsubscribedAt: _gone, ...c }) => ({ ...c, confirmed: true }));
    case 'WebhookDisabled':
      return changed(state, event.data.channelId, (c) => ({
        ...c,
        disabled: { status: event.data.status, at: event.data.at },
      }));
    case 'WebhookEnabled':
      return changed(state, event.data.channelId, ({ disabled: _gone, ...c }) => c);
    case 'WebhookSecretRotated':
      return changed(state, event.data.channelId, (c) => ({ ...c, secretGeneration: event.data.generation }));
    case 'EmailConfirmationResent':
      // The processor queues the confirmation; the channel itself is as it was.
      return state;
    case 'EmailChannelUnsubscribed':
      return changed(state, event.data.channelId, (c) => ({ ...c, confirmed: false, unsubscribedAt: event.data.at }));
    case 'AlertChannelsChosen':
      return { ...state, alertChannels: { ...state.alertChannels, [event.data.alertId]: event.data.channelIds } };
    case 'AlertChannelsCleared': {
      const { [event.data.alertId]: _dropped, ...kept } = state.alertChannels;
      return { ...state, alertChannels: kept };
    }
    default: {
      // An event type this version does not know leaves the state as it is, so replaying the log never fails.
      const _exhaustive: never = event;
      return state;
    }
  }
}

/**
 * The channel rules: validated targets, the {@link CHANNELS_LIMIT} cap, one channel per browser or address (the
 * same one again is the channel already there), and one per webhook URL (the same URL again is refused, `taken`).
 * Only a webhook is disabled (once, by the processor), enabled again, or has its secret rotated; only an
 * unconfirmed email address is sent its confirmation again; an unsubscription needs no more than its channel.
 */
export const channelsDecider: Decider<ChannelsCommand, ChannelsEvent, ChannelsState> = {
  initialState: Object.freeze({ channels: Object.freeze([]), alertChannels: Object.freeze({}) }),
  decide,
  evolve,
};

/**
 * Whether adding `spec` to `state` adds an email address, which is sent its confirmation at once: not an address
 * refused, nor one that is a channel already (what counts against the hourly budget of such messages).
 */
export function addsEmailChannel(state: ChannelsState, spec: ChannelSpec, at: string): boolean {
  if (spec.type !== 'email') return false;
  try {
    const events = decide({ type: 'AddChannel', data: { channelId: 'probe', spec, at } }, state);
    return events.some((e) => e.type === 'ChannelAdded');
  } catch {
    return false;
  }
}

/** Whether a channel receives alerts: confirmed (an email address) and not disabled (a webhook). */
export function receivesAlerts(channel: Channel): boolean {
  return channel.confirmed && channel.disabled === undefined;
}

/**
 * The channels a trigger of `alertId` goes to: the ones the alert named that still exist, or every channel when
 * it named none; emails only once confirmed, webhooks only while not disabled.
 */
export function channelsForAlert(state: ChannelsState, alertId: string): Channel[] {
  const named = state.alertChannels[alertId];
  const candidates = named ? state.channels.filter((c) => named.includes(c.id)) : state.channels;
  return candidates.filter(receivesAlerts);
}
