/**
 * Delivery routes: add, list and remove channels, send a test message through one, enable a disabled webhook
 * again or rotate its secret, confirm an email address (and send its confirmation again), unsubscribe an address
 * through an alert email's link, and read the deliveries; plus the Web Push key browsers subscribe with.
 */
import { randomUUID } from 'node:crypto';
import {
  CHANNELS_CONCERN,
  addsEmailChannel,
  channelsDecider,
  type Channel,
  type ChannelSpec,
  type ChannelsCommand,
  type ChannelsState,
} from '../../domain/channels/channels.ts';
import { channelsApi, pushKeyApi, type ChannelAnswer } from '../../domain/contract/channels.ts';
import { DomainError, isDomainError, type CommandMeta } from '../../domain/decider.ts';
import { STOCKPULSE_NAMESPACE, isUuid, uuidV5 } from '../../domain/ids.ts';
import { forbiddenLiteralHost, isAllowedHost } from '../../engine/delivery/guard.ts';
import { DEFAULT_RETRY_POLICY } from '../../engine/delivery/retry.ts';
import { attemptDelivery, noticePayload } from '../../engine/delivery/processor.ts';
import type { DeliverySetup } from '../../engine/delivery/setup.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { channelsProjection, readDelivery, readDeliveries } from '../../projections/delivery/delivery.projection.ts';
import { readDocument } from '../../projections/projection.ts';
import type { EventStore } from '../../platform/eventstore/port.ts';
import type { CommandService } from '../commands.ts';
import { ApiError, DOMAIN_ERROR_STATUS, ERROR_CODES, notFound } from '../errors.ts';
import type { Context } from 'koa';
import { SENDS_ON_REQUEST_PER_HOUR, refuseIfWaiting, type AuthLimiter } from '../auth/limits.ts';
import { defineRoute, markPosition, requestIdOf } from '../http/route.ts';

/** What the delivery routes need. */
export interface ChannelsDeps {
  readonly commands: CommandService;
  readonly events: EventStore;
  readonly readModels: ReadModelStore;
  /** The secrets and senders; the routes that need them answer 503 without. */
  readonly delivery: DeliverySetup | undefined;
  /** Counts the messages a user has sent on request (tests, confirmation emails). */
  readonly limiter: Pick<AuthLimiter, 'sendOnRequest'>;
}

/** Refuses, 429 with `Retry-After`, a message on request beyond the user's hour ({@link SENDS_ON_REQUEST_PER_HOUR}). */
async function countSend(deps: ChannelsDeps, ctx: Context, userId: string): Promise<void> {
  refuseIfWaiting(
    ctx,
    await deps.limiter.sendOnRequest(userId),
    `at most ${SENDS_ON_REQUEST_PER_HOUR} test and confirmation messages an hour`,
  );
}

const concern = { concern: CHANNELS_CONCERN, decider: channelsDecider };

/** A channel in the API's shape: no secret, no browser keys. */
export function channelView(channel: Channel): ChannelAnswer {
  return {
    id: channel.id,
    type: channel.type,
    name: channel.name,
    ...(channel.url !== null ? { url: channel.url } : {}),
    ...(channel.address !== null ? { address: channel.address } : {}),
    ...(channel.subscription !== null ? { endpoint: channel.subscription.endpoint } : {}),
    confirmed: channel.confirmed,
    createdt: channel.createdt,
    ...(channel.disabled !== undefined ? { disabled: channel.disabled } : {}),
    ...(channel.unsubscribedAt !== undefined ? { unsubscribedAt: channel.unsubscribedAt } : {}),
  };
}

/** A channel id of a path, lower case; 404 naming `params.id` when it is no channel id at all. */
function channelIdOf(id: string): string {
  const channelId = id.toLowerCase();
  if (!isUuid(channelId)) throw notFound(`params.id: no such channel ${id}`);
  return channelId;
}

/** The channel a command left in the state; 404 when it was removed meanwhile. */
function channelIn(state: ChannelsState, channelId: string): Channel {
  const channel = state.channels.find((c) => c.id === channelId);
  if (!channel) throw notFound(`params.id: no such channel ${channelId}`);
  return channel;
}

/**
 * A domain refusal of the body, restated with the body's field name in front: 409 for the channel limit and a
 * URL already taken (as `errors.ts` answers `taken`), 400 for the rest.
 */
function bodyRefusal(error: unknown): unknown {
  if (isDomainError(error) && error.field !== undefined && error.code !== 'not_found') {
    const status = error.code === 'limit' ? 409 : (DOMAIN_ERROR_STATUS[error.code] ?? 400);
    return new ApiError(status, ERROR_CODES[status] ?? 'bad_request', `body.${error.field}: ${error.message}`);
  }
  return error;
}

/**
 * Refuses a webhook URL or push endpoint that the address check would refuse when sending, when that is known
 * without DNS: its host is an address that is not public, or `localhost`, and not in `WEBHOOK_ALLOWED_HOSTS`
 * (`forbiddenLiteralHost`, the senders' own rule). A host name is checked when each message is sent, since the
 * addresses it resolves to may change after it is added. A push endpoint must be https unless its host is allowed.
 * What is no http(s) URL is left to the decider.
 */
function refuseInsideAddress(spec: ChannelSpec, allowedHosts: ReadonlySet<string>): void {
  const target =
    spec.type === 'webhook'
      ? { text: spec.url, field: 'url' }
      : spec.type === 'webpush'
        ? { text: spec.subscription.endpoint, field: 'subscription.endpoint' }
        : null;
  if (target === null || !URL.canParse(target.text)) return;
  const url = new URL(target.text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return;
  // Push services speak https (RFC 8030); plain http only to a host allowed for tests and private setups.
  const plainPush =
    spec.type === 'webpush' && url.protocol === 'http:' && !isAllowedHost(url, allowedHosts)
      ? 'a push service is reached over https'
      : null;
  const reason = forbiddenLiteralHost(url, allowedHosts) ?? plainPush;
  if (reason !== null) {
    throw bodyRefusal(
      new DomainError(
        'forbidden_address',
        `${target.field} ${JSON.stringify(target.text)} is never reached: ${reason}`,
        target.field,
      ),
    );
  }
}

function needDelivery(delivery: DeliverySetup | undefined): DeliverySetup {
  if (!delivery) throw new ApiError(503, 'unavailable', 'delivery is not set up on this server');
  return delivery;
}

/** The channels of a user, as the read model holds them. */
export async function readChannels(readModels: ReadModelStore, userId: string): Promise<ChannelsState> {
  const doc = await readDocument<ChannelsState>(readModels, channelsProjection, userId);
  return doc?.value ?? channelsDecider.initialState;
}

/** The delivery routes. */
export function channelsRoutes(deps: ChannelsDeps) {
  const channelOf = async (userId: string, id: string): Promise<Channel> => {
    const channelId = id.toLowerCase();
    const channel = isUuid(channelId)
      ? (await readChannels(deps.readModels, userId)).channels.find((c) => c.id === channelId)
      : undefined;
    if (!channel) throw notFound(`params.id: no channel ${JSON.stringify(id)}`);
    return channel;
  };
  return [
    defineRoute({
      ...channelsApi.postChannels,
      handle: async ({ body, ctx, userId, meta }) => {
        const m = meta();
        const channelId = uuidV5(`${m.commandId}/channel`, STOCKPULSE_NAMESPACE);
        const spec: ChannelSpec =
          body.type === 'webhook'
            ? { type: 'webhook', url: body.url, name: body.name ?? '' }
            : body.type === 'email'
              ? { type: 'email', address: body.address }
              : {
                  type: 'webpush',
                  subscription: {
                    endpoint: body.subscription.endpoint,
                    p256dh: body.subscription.keys.p256dh,
                    auth: body.subscription.keys.auth,
                  },
                };
        refuseInsideAddress(spec, deps.delivery?.allowedHosts ?? new Set());
        // An email address is sent its confirmation at once: counted when one is added, not for an address refused
        // or added already (the command answers those).
        if (addsEmailChannel(await readChannels(deps.readModels, userId), spec, m.at))
          await countSend(deps, ctx, userId);
        const outcome = await deps.commands
          .execute(concern, { type: 'AddChannel', data: { channelId, spec, at: m.at } }, m)
          .catch((error: unknown) => {
            throw bodyRefusal(error);
          });
        const added = outcome.events.find((e) => e.type === 'ChannelAdded');
        const id = added?.type === 'ChannelAdded' ? added.data.channelId : channelId;
        // Nothing added: the same browser or address is already a channel, which is answered.
        const channel =
          outcome.state.channels.find((c) => c.id === id) ??
          outcome.state.channels.find(
            (c) =>
              (spec.type === 'webpush' && c.subscription?.endpoint === new URL(spec.subscription.endpoint).href) ||
              (spec.type === 'email' && c.address?.toLowerCase() === spec.address.trim().toLowerCase()),
          );
        if (!channel) throw notFound(`body: the channel was removed meanwhile`);
        const secret =
          channel.type === 'webhook' ? needDelivery(deps.delivery).secrets.webhookSecret(channel.id) : undefined;
        return { ...channelView(channel), ...(secret !== undefined ? { secret } : {}) };
      },
    }),
    defineRoute({
      ...channelsApi.getChannels,
      handle: async ({ userId, ctx }) => {
        const doc = await readDocument<ChannelsState>(deps.readModels, channelsProjection, userId);
        markPosition(ctx, doc?.position);
        return (doc?.value.channels ?? []).map(channelView);
      },
    }),
    defineRoute({
      ...channelsApi.postDelchannelById,
      handle: async ({ params, meta }) => {
        const channelId = params.id.toLowerCase();
        if (!isUuid(channelId)) throw notFound(`params.id: no channel ${JSON.stringify(params.id)}`);
        await deps.commands.execute(concern, { type: 'RemoveChannel', data: { channelId } }, meta());
        return { id: channelId, deleted: true as const };
      },
    }),
    defineRoute({
      ...channelsApi.postChannelTest,
      handle: async ({ params, userId, ctx, meta }) => {
        const delivery = needDelivery(deps.delivery);
        const channel = await channelOf(userId, params.id);
        if (!channel.confirmed) {
          throw new ApiError(409, 'conflict', `params.id: the address of channel ${channel.id} is not confirmed yet`);
        }
        await countSend(deps, ctx, userId);
        const m = meta();
        const deliveryId = uuidV5(`${m.commandId}/test`, STOCKPULSE_NAMESPACE);
        const result = await attemptDelivery(
          { ...delivery, events: deps.events, retry: DEFAULT_RETRY_POLICY, now: Date.now, random: Math.random },
          {
            deliveryId,
            userId,
            kind: 'test',
            alertId: null,
            triggerId: null,
            payload: noticePayload(deliveryId, `Test message from StockPulse to ${channel.name}`, m.at),
          },
          channel,
          1,
        );
        if (result === null) {
          // A retried request: its attempt is already recorded, so it answers what the record says.
          const recorded = await readDelivery(deps.readModels, userId, deliveryId);
          return {
            deliveryId,
            ok: recorded?.status === 'succeeded',
            status: recorded?.lastStatus ?? null,
            error: recorded?.lastError ?? null,
          };
        }
        return { deliveryId, ok: result.ok, status: result.status, error: result.error };
      },
    }),
    defineRoute({
      ...channelsApi.postChannelEnable,
      handle: async ({ params, meta }) => {
        const channelId = channelIdOf(params.id);
        const m = meta();
        const outcome = await deps.commands.execute(
          concern,
          { type: 'EnableWebhook', data: { channelId, at: m.at } },
          m,
        );
        return channelView(channelIn(outcome.state, channelId));
      },
    }),
    defineRoute({
      ...channelsApi.postChannelSecret,
      handle: async ({ params, meta }) => {
        const { secrets } = needDelivery(deps.delivery);
        const channelId = channelIdOf(params.id);
        const m = meta();
        const outcome = await deps.commands.execute(
          concern,
          { type: 'RotateWebhookSecret', data: { channelId, at: m.at } },
          m,
        );
        const channel = channelIn(outcome.state, channelId);
        // The generation this request recorded (a retried request's too), not one recorded since.
        const rotated = outcome.events.find((e) => e.type === 'WebhookSecretRotated');
        const generation =
          rotated?.type === 'WebhookSecretRotated' ? rotated.data.generation : (channel.secretGeneration ?? 0);
        return { ...channelView(channel), secret: secrets.webhookSecret(channel.id, generation) };
      },
    }),
    defineRoute({
      ...channelsApi.postChannelConfirmResend,
      handle: async ({ params, userId, ctx, meta }) => {
        needDelivery(deps.delivery);
        const channelId = channelIdOf(params.id);
        const m = meta();
        const command: ChannelsCommand = { type: 'ResendEmailConfirmation', data: { channelId, at: m.at } };
        // Refused before it is counted, as the decider refuses it on the channels as last read.
        channelsDecider.decide(command, await readChannels(deps.readModels, userId));
        await countSend(deps, ctx, userId);
        await deps.commands.execute(concern, command, m);
        return { id: channelId, resent: true as const };
      },
    }),
    defineRoute({
      ...channelsApi.getDeliveries,
      handle: async ({ query, userId, ctx }) => {
        const { deliveries, position } = await readDeliveries(deps.readModels, userId);
        markPosition(ctx, position);
        return deliveries
          .filter(
            (d) =>
              (query.alertId === undefined || d.alertId === query.alertId) &&
              (query.channelId === undefined || d.channelId === query.channelId),
          )
          .slice(0, query.limit);
      },
    }),
    defineRoute({
      ...channelsApi.getConfirmChannel,
      handle: ({ query, ctx }) => {
        // Only a page a person acts on confirms: a link opened by a mail scanner or a preview changes nothing.
        const page = `/ConfirmEmail?${new URLSearchParams(query).toString()}`;
        ctx.set('Location', page);
        ctx.set('Cache-Control', 'no-store');
        ctx.type = 'text/plain; charset=utf-8';
        return Promise.resolve(`Confirm the address on ${page}`);
      },
    }),
    defineRoute({
      ...channelsApi.postConfirmChannel,
      handle: async ({ body, ctx }) => {
        const delivery = needDelivery(deps.delivery);
        // A wrong token is answered like an unknown channel, so links cannot be probed.
        if (!delivery.secrets.checkConfirmToken(body.user, body.channel, body.token)) {
          throw notFound('body.token: no such confirmation link');
        }
        const at = new Date().toISOString();
        await deps.commands
          .execute(
            concern,
            { type: 'ConfirmEmailChannel', data: { channelId: body.channel, at } },
            {
              // Not one id per channel: an address unsubscribed is confirmed again by the same link.
              commandId: randomUUID(),
              userId: body.user,
              at,
              actor: `user:${body.user}`,
              correlationId: ctx.state.requestId as string | undefined,
            },
          )
          .catch((error: unknown) => {
            throw isDomainError(error) ? notFound('body.channel: no such confirmation link') : error;
          });
        return { id: body.channel, confirmed: true as const };
      },
    }),
    defineRoute({
      ...channelsApi.getUnsubscribe,
      handle: ({ query, ctx }) => {
        // Only a page a person acts on unsubscribes: a link opened by a mail scanner or a preview changes nothing.
        const page = `/Unsubscribe?${new URLSearchParams(query).toString()}`;
        ctx.set('Location', page);
        ctx.set('Cache-Control', 'no-store');
        ctx.type = 'text/plain; charset=utf-8';
        return Promise.resolve(`Unsubscribe on ${page}`);
      },
    }),
    defineRoute({
      ...channelsApi.postUnsubscribe,
      handle: async ({ query, ctx }) => {
        const delivery = needDelivery(deps.delivery);
        if (!delivery.secrets.checkUnsubscribeToken(query.user, query.channel, query.token)) {
          throw new ApiError(400, 'bad_request', 'query.token: not the token of this unsubscribe link');
        }
        const at = new Date().toISOString();
        // Recorded as the address holder's: whoever holds the address's mail, not necessarily the user.
        const outcome = await deps.commands.execute(
          concern,
          { type: 'UnsubscribeEmailChannel', data: { channelId: query.channel, at } },
          {
            commandId: randomUUID(),
            userId: query.user,
            at,
            actor: `address:${query.channel}`,
            correlationId: requestIdOf(ctx),
          },
        );
        const channel = outcome.state.channels.find((c) => c.id === query.channel && c.type === 'email');
        ctx.type = 'text/plain; charset=utf-8';
        ctx.set('Cache-Control', 'no-store');
        return channel === undefined
          ? 'StockPulse sends no alerts to this address: it is no longer one of its user’s channels.'
          : `Unsubscribed: StockPulse sends no more alerts to ${channel.address ?? 'this address'}.`;
      },
    }),
    defineRoute({
      ...pushKeyApi.getPushKey,
      handle: () => Promise.resolve({ publicKey: needDelivery(deps.delivery).vapidPublicKey }),
    }),
  ];
}

/** Refuses channel ids that are not the user's, naming the first (`body.channels[i]`). */
export async function requireChannels(
  readModels: ReadModelStore,
  userId: string,
  ids: readonly string[],
): Promise<void> {
  const { channels } = await readChannels(readModels, userId);
  const missing = ids.findIndex((id) => !channels.some((c) => c.id === id));
  if (missing >= 0) {
    throw new ApiError(400, 'bad_request', `body.channels[${missing}]: no channel ${JSON.stringify(ids[missing])}`);
  }
}

/**
 * Records the channels an alert's triggers go to (null: every channel again), on the user's channels stream;
 * answers the user's channels after it.
 */
export async function chooseChannels(
  commands: CommandService,
  alertId: string,
  channelIds: readonly string[] | null,
  meta: CommandMeta,
): Promise<ChannelsState> {
  const outcome = await commands
    .execute(
      concern,
      { type: 'ChooseAlertChannels', data: { alertId, channelIds } },
      { ...meta, commandId: `${meta.commandId}/channels`, requestHash: undefined },
    )
    .catch((error: unknown) => {
      throw bodyRefusal(error);
    });
  return outcome.state;
}
