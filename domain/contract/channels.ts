/**
 * The delivery routes of the API: the user's channels (webhook, email, Web Push), a test message through one,
 * a webhook enabled again or its secret rotated, the email confirmation link (and sending it again), an alert
 * email's unsubscribe link, and the record of deliveries; and the JSON a webhook receives.
 */
import { z } from './zod.ts';
import { CHANNEL_NAME_MAX, CHANNEL_TYPES, CHANNEL_URL_MAX, CHANNELS_LIMIT } from '../channels/channels.ts';
import { isUuid } from '../ids.ts';
import { notificationTypeSchema } from './notifications.ts';
import { idParams, wholeNumber } from './common.ts';
import { route } from './route.ts';

/** Most deliveries one read answers, and the default. */
export const DELIVERY_PAGE = Object.freeze({ max: 200, default: 50 });

/** The header a webhook's signature comes in: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`. */
export const SIGNATURE_HEADER = 'StockPulse-Signature';

/** The JSON body of a webhook delivery (and, as `message`, what an email and a push notification say). */
export const webhookPayload = z.object({
  /** The delivery id, also the `Idempotency-Key` header: the same on every retry. */
  id: z.string(),
  alertId: z.string().nullable(),
  symbol: z.string(),
  message: z.string(),
  /** The alert's notification type, 0 for a message that is no alert. */
  notificationtype: z.union([notificationTypeSchema, z.literal(0)]),
  price: z.number().nullable(),
  at: z.string(),
  /** The trigger's place in the log (`commit/prepare`), empty for a test message. */
  position: z.string(),
  /** The alert's note (the user's own words) when it fired; null when it has none or for a test message. */
  note: z.string().nullable(),
});

/** What a webhook receives. */
export type WebhookPayload = z.infer<typeof webhookPayload>;

const text = (max: number) =>
  z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

/** The body of `POST /personalize/channels`. */
const channelBody = z.discriminatedUnion(
  'type',
  [
    z.strictObject({
      type: z.literal('webhook'),
      url: text(CHANNEL_URL_MAX),
      name: z.string().max(CHANNEL_NAME_MAX).nullish(),
    }),
    z.strictObject({ type: z.literal('email'), address: text(254) }),
    z.strictObject({
      type: z.literal('webpush'),
      subscription: z.object({
        endpoint: text(CHANNEL_URL_MAX),
        keys: z.object({ p256dh: text(100), auth: text(32) }),
        expirationTime: z.number().nullish(),
      }),
    }),
  ],
  { error: `must be one of ${CHANNEL_TYPES.join(', ')}` },
);

/** The body of `POST /personalize/channels`, as the web app sends it. */
export type ChannelRequest = z.input<typeof channelBody>;

/** A channel as the API answers it (never its secret, nor a browser's keys). */
export const channelAnswer = z.object({
  id: z.string(),
  type: z.enum(CHANNEL_TYPES),
  name: z.string(),
  url: z.string().optional(),
  address: z.string().optional(),
  /** Web Push: the push service endpoint, so a browser finds its own channel. */
  endpoint: z.string().optional(),
  /** Whether it receives alerts (an email address once confirmed). */
  confirmed: z.boolean(),
  createdt: z.string(),
  /**
   * A webhook whose receiver answered 410 Gone: the status and when. It receives nothing until enabled again
   * (`POST /personalize/channels/{id}/enable`).
   */
  disabled: z.object({ status: z.number().int(), at: z.string() }).optional(),
  /** An email address whose holder unsubscribed through an alert email, and when; unconfirmed until confirmed again. */
  unsubscribedAt: z.string().optional(),
});

/** A channel as the API answers it. */
export type ChannelAnswer = z.infer<typeof channelAnswer>;

/** The answer of adding a channel: a webhook's signing secret is in it, and only in it. */
const addedAnswer = channelAnswer.extend({ secret: z.string().optional() });

/** The answer of rotating a webhook's secret: the new secret, shown this once. */
const rotatedAnswer = channelAnswer.extend({ secret: z.string() });

/** What a webhook's secret rotation answers: the channel and its new secret. */
export type RotatedSecret = z.infer<typeof rotatedAnswer>;

/** One attempt's outcome, as the test route answers it. */
export const attemptAnswer = z.object({
  deliveryId: z.string(),
  ok: z.boolean(),
  status: z.number().nullable(),
  error: z.string().nullable(),
});

/** What a test message's attempt gave. */
export type AttemptAnswer = z.infer<typeof attemptAnswer>;

/** One delivery as the API answers it: where it stands after its last attempt. */
export const deliveryAnswer = z.object({
  id: z.string(),
  kind: z.enum(['alert', 'test', 'confirm', 'reset']),
  alertId: z.string().nullable(),
  /** The trigger an alert's delivery carries (its id in the alert's history and the bell), else null. */
  triggerId: z.string().nullable(),
  channelId: z.string(),
  channelType: z.enum(CHANNEL_TYPES),
  status: z.enum(['pending', 'succeeded', 'failed']),
  attempts: z.number().int(),
  lastStatus: z.number().nullable(),
  lastError: z.string().nullable(),
  retryAt: z.string().nullable(),
  createdt: z.string(),
  updatedt: z.string(),
});

/** One delivery as the API answers it. */
export type DeliveryAnswer = z.infer<typeof deliveryAnswer>;

const uuid = (what: string) =>
  z
    .string()
    .trim()
    .refine((v) => isUuid(v), `must be ${what}`)
    .transform((v) => v.toLowerCase());

const deliveriesQuery = z.strictObject({
  alertId: uuid('an alert id').optional(),
  channelId: uuid('a channel id').optional(),
  limit: wholeNumber(1, DELIVERY_PAGE.max).default(DELIVERY_PAGE.default),
});

/**
 * The user, channel and token of a confirmation link. Unlike the API's other queries it lets parameters of its own
 * through: the link is opened from an e-mail, whose client or link checker may add some (`utm_source`).
 */
export const confirmQuery = z.object({
  user: text(64),
  channel: uuid('a channel id'),
  token: z
    .string()
    .trim()
    .regex(/^[0-9a-f]{64}$/, 'must be the token of the confirmation link'),
});

/**
 * The user, channel and token of an alert email's unsubscribe link (`List-Unsubscribe`); parameters a mail client
 * adds are let through, as for the confirmation link.
 */
export const unsubscribeQuery = z.object({
  user: text(64),
  channel: uuid('a channel id'),
  token: z
    .string()
    .trim()
    .regex(/^[0-9a-f]{64}$/, 'must be the token of the unsubscribe link'),
});

/** The user, channel and token of an unsubscribe link. */
export type UnsubscribeLink = z.input<typeof unsubscribeQuery>;

/**
 * The body of the one-click unsubscribe (RFC 8058): `List-Unsubscribe=One-Click`, form-encoded as a mail client
 * sends it (`application/x-www-form-urlencoded` or `multipart/form-data`), or as JSON.
 */
const oneClickBody = z.object({
  'List-Unsubscribe': z.literal('One-Click', { error: 'must be One-Click' }),
});

/** The channel choice of an alert on `POST /personalize/stockalerts` (absent: every channel of the user). */
export const alertChannelsField = z
  .array(uuid('a channel id'))
  // An empty choice would deliver the alert nowhere, unsaid.
  .min(1, 'must name at least one channel; leave it out for every channel')
  .max(CHANNELS_LIMIT, `must name at most ${CHANNELS_LIMIT} channels`)
  .nullish();

/** The delivery routes. */
export const channelsApi = {
  postChannels: route({
    method: 'POST',
    path: '/personalize/channels',
    summary:
      'Add a delivery channel: a webhook (answers its signing secret, once), an email address (sent a confirmation link) or a Web Push subscription',
    tag: 'delivery',
    access: 'user',
    body: channelBody,
    response: addedAnswer,
  }),
  getChannels: route({
    method: 'GET',
    path: '/personalize/channels',
    summary: "The user's delivery channels, oldest first",
    tag: 'delivery',
    access: 'user',
    response: z.array(channelAnswer),
  }),
  postDelchannelById: route({
    method: 'POST',
    path: '/personalize/delchannel/:id',
    summary: 'Remove a delivery channel',
    tag: 'delivery',
    access: 'user',
    params: idParams,
    response: z.object({ id: z.string(), deleted: z.literal(true) }),
  }),
  postChannelTest: route({
    method: 'POST',
    path: '/personalize/channels/:id/test',
    summary: "Send a test message through a channel; answers the attempt's outcome",
    tag: 'delivery',
    access: 'user',
    params: idParams,
    response: attemptAnswer,
  }),
  postChannelEnable: route({
    method: 'POST',
    path: '/personalize/channels/:id/enable',
    summary:
      'Enable a webhook that was disabled when its receiver answered 410 Gone: the alerts triggered from now on ' +
      'reach it (the deliveries that ended meanwhile stay failed)',
    tag: 'delivery',
    access: 'user',
    params: idParams,
    response: channelAnswer,
  }),
  postChannelSecret: route({
    method: 'POST',
    path: '/personalize/channels/:id/secret',
    summary:
      "Rotate a webhook's signing secret: answers the new secret, once; deliveries signed from now on use it " +
      '(webhooks only)',
    tag: 'delivery',
    access: 'user',
    params: idParams,
    response: rotatedAnswer,
  }),
  postChannelConfirmResend: route({
    method: 'POST',
    path: '/personalize/channels/:id/confirm/resend',
    summary:
      'Send an unconfirmed email address its confirmation link again (the same link); counted with the test ' +
      'messages, 429 with Retry-After past the hour’s limit',
    tag: 'delivery',
    access: 'user',
    params: idParams,
    response: z.object({ id: z.string(), resent: z.literal(true) }),
  }),
  getDeliveries: route({
    method: 'GET',
    path: '/personalize/deliveries',
    summary:
      "The user's latest deliveries, newest first, optionally of one alert or one channel; an alert's delivery names the firing it carries (triggerId, the id in the alert's history)",
    tag: 'delivery',
    access: 'user',
    query: deliveriesQuery,
    response: z.array(deliveryAnswer),
  }),
  getConfirmChannel: route({
    method: 'GET',
    path: '/api/channels/confirm',
    summary:
      'The link of a confirmation email sent before the confirmation page: 303 to that page (`/ConfirmEmail`), ' +
      'which confirms with a POST; opening a link (a mail scanner does) confirms nothing',
    tag: 'delivery',
    access: 'public',
    query: confirmQuery,
    response: z.string(),
    status: 303,
    contentType: 'text/plain',
  }),
  postConfirmChannel: route({
    method: 'POST',
    path: '/api/channels/confirm',
    summary: "Confirm an email channel's address with the user, channel and token of its confirmation link",
    tag: 'delivery',
    access: 'public',
    body: confirmQuery,
    response: z.object({ id: z.string(), confirmed: z.literal(true) }),
  }),
  getUnsubscribe: route({
    method: 'GET',
    path: '/api/channels/unsubscribe',
    summary:
      "An alert email's unsubscribe link opened: 303 to the page `/Unsubscribe`, which unsubscribes with a POST; " +
      'opening the link (a mail scanner does) changes nothing',
    tag: 'delivery',
    access: 'public',
    query: unsubscribeQuery,
    response: z.string(),
    status: 303,
    contentType: 'text/plain',
  }),
  postUnsubscribe: route({
    method: 'POST',
    path: '/api/channels/unsubscribe',
    summary:
      "Unsubscribe an email address from its user's alerts, as the one-click POST of an alert email's " +
      '`List-Unsubscribe` (RFC 8058, body `List-Unsubscribe=One-Click`, form-encoded or JSON); answers a short text',
    tag: 'delivery',
    access: 'public',
    query: unsubscribeQuery,
    body: oneClickBody,
    response: z.string(),
    contentType: 'text/plain',
  }),
};

/** The key a browser subscribes to Web Push with. */
export const pushKeyApi = {
  getPushKey: route({
    method: 'GET',
    path: '/personalize/channels/pushkey',
    summary: "The server's VAPID public key, for PushManager.subscribe",
    tag: 'delivery',
    access: 'user',
    response: z.object({ publicKey: z.string() }),
  }),
};
