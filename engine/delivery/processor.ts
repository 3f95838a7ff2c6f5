/**
 * The delivery processor: a checkpointed consumer of the log turns each `AlertTriggered` into one queued
 * delivery per channel of the alert (each new email channel, and each `EmailConfirmationResent`, into a
 * confirmation, and each `PasswordResetRequested` into a reset link to every confirmed email address of the
 * user), and a worker sends what is due. A webhook whose receiver answers 410 Gone is disabled
 * (`WebhookDisabled`), and a delivery due to a channel that receives nothing (disabled, or an address
 * unconfirmed or unsubscribed) ends failed, unsent. Both the queue and the channels the processor sends to are
 * documents committed with its checkpoint, so a restart resumes exactly where the log says.
 *
 * Exactly once: a delivery's id comes from the trigger and the channel; before each attempt the worker records
 * `DeliveryAttempted` through the deliveries decider with a command id made of the delivery id and the attempt
 * number, and sends only when that command decided the event itself. A second processor, or this one after a
 * restart, finds the attempt recorded and leaves it; an attempt with no outcome after `lostAfterMs` (the process
 * died while waiting) is followed by the next, with the same `Idempotency-Key`.
 *
 * Isolation: sending is asynchronous, bounded by `concurrency`, and never on the path of the engine or the
 * socket push, which only append and read the log. Fairness: each channel has at most `perChannel` attempts in
 * flight, so a slow receiver with many deliveries waiting delays its own deliveries only; a due delivery of a
 * channel at its cap waits for that channel, and is taken again when one of its attempts ends.
 *
 * Digest: once an alert email of an alert was sent to an address, that alert's next emails to it within
 * `emailCooldownMs` are held until the cooldown ends, then go as one email listing each firing (each delivery
 * still records its own attempt and outcome). The cooldown is read from the log's attempts (a document of the
 * consumer), so a restarted processor holds and sends the same way.
 *
 * Sharing: with a `partition`, a processor sends only the deliveries of the users it takes and parks the others
 * until the processes alive change; every processor still keeps the whole queue, so it can take any user over.
 */
import { PASSWORD_RESET_TTL_MS, type PasswordResetRequested } from '../../domain/accounts/accounts.ts';
import type { AlertDeleted, AlertTriggeredData } from '../../domain/alerts/alerts.ts';
import {
  CHANNELS_CONCERN,
  CHANNELS_EVENT_TYPES,
  channelsDecider,
  channelsForAlert,
  receivesAlerts,
  type Channel,
  type ChannelType,
  type ChannelsEvent,
  type ChannelsState,
} from '../../domain/channels/channels.ts';
import type { WebhookPayload } from '../../domain/contract/channels.ts';
import type { CommandMeta } from '../../domain/decider.ts';
import {
  DELIVERIES_EVENT_TYPES,
  deliveryIdOf,
  type DeliveriesEvent,
  type DeliveryAbandoned,
  type DeliveryAttempted,
  type DeliveryKind,
} from '../../domain/deliveries/deliveries.ts';
import { streamName } from '../../domain/ids.ts';
import { handleCommand } from '../../platform/commandHandler.ts';
import {
  formatPosition,
  isAfter,
  parsePosition,
  type EventStore,
  type RecordedEvent,
} from '../../platform/eventstore/port.ts';
import type { DocumentWrite, ReadModelStore } from '../../platform/readmodels/port.ts';
import { type Consumer, type ConsumerRunner, type ConsumerTx } from '../../platform/subscriptions/runner.ts';
import { superviseConsumer } from '../../platform/subscriptions/supervisor.ts';
import { cachedDeliveryLog, directDeliveryLog, type DeliveryLog } from './deliveryLog.ts';
import { WHOLE_PARTITION, type DeliveryPartition } from './partition.ts';
import { DEFAULT_RETRY_POLICY, maxAttempts, retryAfterMs, retryDelay, type RetryPolicy } from './retry.ts';
import type { DeliverySecrets } from './secrets.ts';
import type { AttemptResult, OutgoingMessage, Sender } from './senders.ts';
import { ATTEMPT_TIMEOUT_MS } from './senders.ts';

/** The consumer name of the processor (plus `:<instance>`). */
export const DELIVERY_CONSUMER = 'delivery';

/** Version of its documents; a change rebuilds them from the whole log. */
export const DELIVERY_VERSION = 3;

/** The event types the processor reads. */
export const DELIVERY_EVENT_TYPES: readonly string[] = Object.freeze([
  'AlertTriggered',
  ...CHANNELS_EVENT_TYPES,
  ...DELIVERIES_EVENT_TYPES,
  'PasswordResetRequested',
  'AlertDeleted',
] satisfies (
  | ChannelsEvent['type']
  | DeliveriesEvent['type']
  | 'AlertTriggered'
  | AlertDeleted['type']
  | PasswordResetRequested['type']
)[]);

/** One queued delivery, as committed with the processor's checkpoint. */
export interface QueuedDelivery {
  readonly deliveryId: string;
  readonly userId: string;
  readonly kind: DeliveryKind;
  readonly channelId: string;
  readonly channelType: ChannelType;
  readonly alertId: string | null;
  readonly triggerId: string | null;
  /** The password reset request whose link a `reset` delivery carries (the token is derived when sending). */
  readonly requestId?: string;
  readonly payload: WebhookPayload;
  /** Attempts started. */
  readonly attempts: number;
  /** The last attempt whose outcome is recorded. */
  readonly answered: number;
  /** When the last attempt started (ms since the epoch), null before the first. */
  readonly attemptedAt: number | null;
  /** When the next attempt is due (ms since the epoch). */
  readonly dueAt: number;
}

/** The senders by channel type. */
export interface Senders {
  readonly webhook: Sender;
  readonly email: Sender;
  readonly webpush: Sender;
}

/** Options of {@link startDeliveryProcessor}. */
export interface DeliveryProcessorOptions {
  readonly events: EventStore;
  readonly readModels: ReadModelStore;
  readonly senders: Senders;
  readonly secrets: DeliverySecrets;
  /** The origin the links of messages point at (`PUBLIC_ORIGIN`), read at each send. */
  readonly publicOrigin: () => string;
  /** Distinguishes processors sharing one read-model store (lower-case letters and digits). */
  readonly instance?: string;
  /** When failed attempts are retried (default {@link DEFAULT_RETRY_POLICY}). */
  readonly retry?: RetryPolicy;
  /** After how long an attempt with no recorded outcome counts as lost (default the timeout + 2 s). */
  readonly lostAfterMs?: number;
  /** Most attempts in flight at once (default 256). */
  readonly concurrency?: number;
  /** Most attempts in flight at once to one channel (default {@link DEFAULT_PER_CHANNEL}); one email counts one. */
  readonly perChannel?: number;
  /**
   * How long after an alert email of an alert to an address that alert's next emails to it are held, to go
   * together as one (default {@link DEFAULT_EMAIL_COOLDOWN_MS}).
   */
  readonly emailCooldownMs?: number;
  /** Milliseconds now (default `Date.now`). */
  readonly now?: () => number;
  /**
   * Calls `wake` after `delayMs` on the clock of `now`, answering what cancels it (default `setTimeout`, which
   * does not keep the process alive).
   */
  readonly setTimer?: (wake: () => void, delayMs: number) => () => void;
  /** A number in [0, 1) for the jitter (default `Math.random`). */
  readonly random?: () => number;
  /** Which users' deliveries this processor sends (default all; see `partition.ts`). */
  readonly partition?: DeliveryPartition;
  /** Users whose delivery state the log keeps in memory (default 10,000; see `deliveryLog.ts`). */
  readonly maxCachedUsers?: number;
  /** Called when another processor had already recorded the attempt this one was about to make. */
  readonly onTaken?: (delivery: QueuedDelivery) => void;
  /** Called after each recorded outcome, with the attempt's number and whether it ended the delivery. */
  readonly onOutcome?: (delivery: QueuedDelivery, result: AttemptResult, attempt: AttemptOutcome) => void;
  /** Called after a delivery ended without its next attempt being sent (its channel receives nothing), with why. */
  readonly onUnsent?: (delivery: QueuedDelivery, why: string) => void;
  readonly onError?: (error: Error) => void;
}

/** Where an attempt left its delivery. */
export interface AttemptOutcome {
  /** The attempt's number (1 for the first). */
  readonly attempt: number;
  /** Whether no attempt follows: it succeeded, or failed for good. */
  readonly final: boolean;
}

/** A running processor. */
export interface DeliveryProcessor {
  /** Resolves once the consumer has caught up with the log at the start and the queue is loaded. */
  readonly caughtUp: Promise<void>;
  /** The consumer (for lag and `waitFor`). */
  readonly runner: ConsumerRunner;
  /** Deliveries queued and not finished. */
  pending(): number;
  /** Attempts in flight. */
  inFlight(): number;
  /** Deliveries left to other processes (see {@link DeliveryProcessorOptions.partition}). */
  parked(): number;
  /** Due deliveries waiting for their channel, which has {@link DeliveryProcessorOptions.perChannel} in flight. */
  waiting(): number;
  /** Users and deliveries whose state the log holds in memory. */
  cached(): { users: number; deliveries: number };
  /** Stops taking work, waits for the attempts in flight, then stops the consumer. */
  stop(): Promise<void>;
}

/** Attempts in flight to one channel at most, by default. */
export const DEFAULT_PER_CHANNEL = 4;

/** How long an alert's further emails to an address are held after one was sent, by default: 5 minutes. */
export const DEFAULT_EMAIL_COOLDOWN_MS = 5 * 60_000;

/**
 * The collections of a processor instance: the channels, the queue, when an alert email of each alert was last
 * attempted to each address (`<channelId>/<alertId>`, {@link EmailSent}), and which alerts have such a record per
 * address (`<channelId>`, {@link EmailedAlerts}), so that deleting the alert or removing the address deletes them.
 */
export function deliveryCollections(instance?: string): {
  channels: string;
  queue: string;
  emailed: string;
  emailedBy: string;
} {
  const suffix = instance ? `_${instance}` : '';
  return {
    channels: `deliverychannels${suffix}`,
    queue: `deliveryqueue${suffix}`,
    emailed: `deliveryemailed${suffix}`,
    emailedBy: `deliveryemailedby${suffix}`,
  };
}

/** The alerts with an {@link EmailSent} record for one address. */
export interface EmailedAlerts {
  readonly alertIds: readonly string[];
}

/** When the latest alert email of an alert to an address was attempted, as the log records it. */
export interface EmailSent {
  /** Milliseconds since the epoch. */
  readonly at: number;
}

/** What an alert email's delivery is held and carried together by (`<channelId>/<alertId>`), or null. */
function digestKeyOf(job: Pick<QueuedDelivery, 'kind' | 'channelType' | 'channelId' | 'alertId'>): string | null {
  return job.kind === 'alert' && job.channelType === 'email' && job.alertId !== null
    ? `${job.channelId}/${job.alertId}`
    : null;
}

function userOf(event: RecordedEvent): string | null {
  const userId = event.metadata.userId;
  return typeof userId === 'string' ? userId : null;
}

/** The webhook payload of a trigger. */
export function triggerPayload(deliveryId: string, event: RecordedEvent): WebhookPayload {
  const data = event.data as AlertTriggeredData;
  return {
    id: deliveryId,
    alertId: data.alertId,
    symbol: data.symbol,
    message: data.message,
    notificationtype: data.notificationtype,
    price: data.price,
    at: data.at,
    position: formatPosition(event.position),
    note: data.note ?? null,
  };
}

/** The payload of a message that is no alert (a test, a confirmation, a reset link): no symbol, no price. */
export function noticePayload(id: string, message: string, at: string, position = ''): WebhookPayload {
  return { id, alertId: null, symbol: '', message, notificationtype: 0, price: null, at, position, note: null };
}

/** The consumer that keeps the channels and the queue. */
function deliveryConsumer(instance: string | undefined, now: () => number): Consumer {
  const { channels: channelsCollection, queue, emailed, emailedBy } = deliveryCollections(instance);
  /** Deletes the cooldown records of the alerts `drop` accepts among those e-mailed through `channelId`. */
  const forgetEmailed = async (tx: ConsumerTx, channelId: string, drop: (alertId: string) => boolean) => {
    const known = await tx.get<EmailedAlerts>(emailedBy, channelId);
    if (!known) return;
    const kept = known.alertIds.filter((alertId) => !drop(alertId));
    if (kept.length === known.alertIds.length) return;
    for (const alertId of known.alertIds) if (drop(alertId)) tx.delete(emailed, `${channelId}/${alertId}`);
    if (kept.length === 0) tx.delete(emailedBy, channelId);
    else tx.put(emailedBy, channelId, { alertIds: kept } satisfies EmailedAlerts);
  };
  return {
    name: instance ? `${DELIVERY_CONSUMER}:${instance}` : DELIVERY_CONSUMER,
    version: DELIVERY_VERSION,
    collections: [channelsCollection, queue, emailed, emailedBy],
    filter: { eventTypes: DELIVERY_EVENT_TYPES },
    handle: async (event, tx) => {
      const userId = userOf(event);
      if (userId === null) return;
      const enqueue = (job: Omit<QueuedDelivery, 'attempts' | 'answered' | 'attemptedAt' | 'dueAt'>): void =>
        tx.put(queue, job.deliveryId, { ...job, attempts: 0, answered: 0, attemptedAt: null, dueAt: now() });
      switch (event.type) {
        case 'AlertTriggered': {
          const state = (await tx.get<ChannelsState>(channelsCollection, userId)) ?? channelsDecider.initialState;
          const { alertId } = event.data as AlertTriggeredData;
          for (const channel of channelsForAlert(state, alertId)) {
            const deliveryId = deliveryIdOf(event.id, channel.id);
            enqueue({
              deliveryId,
              userId,
              kind: 'alert',
              channelId: channel.id,
              channelType: channel.type,
              alertId,
              triggerId: event.id,
              payload: triggerPayload(deliveryId, event),
            });
          }
          return;
        }
        case 'PasswordResetRequested': {
          const { requestId, at } = event.data as PasswordResetRequested['data'];
          // A request read long after it was made (a rebuild of the queue) sends nothing: its link has expired.
          if (resetExpired(at, now())) return;
          const state = (await tx.get<ChannelsState>(channelsCollection, userId)) ?? channelsDecider.initialState;
          for (const channel of state.channels) {
            if (channel.type !== 'email' || !channel.confirmed) continue;
            const deliveryId = deliveryIdOf(event.id, channel.id);
            enqueue({
              deliveryId,
              userId,
              kind: 'reset',
              channelId: channel.id,
              channelType: 'email',
              alertId: null,
              triggerId: null,
              requestId,
              payload: noticePayload(deliveryId, 'Reset your StockPulse password', at, formatPosition(event.position)),
            });
          }
          return;
        }
        case 'AlertDeleted': {
          // A deleted alert sends no more: its cooldown records go (an id used again starts afresh).
          const { alertId } = event.data as AlertDeleted['data'];
          const state = (await tx.get<ChannelsState>(channelsCollection, userId)) ?? channelsDecider.initialState;
          for (const channel of state.channels) {
            if (channel.type === 'email') await forgetEmailed(tx, channel.id, (id) => id === alertId);
          }
          return;
        }
        case 'DeliveryAbandoned':
          // Ended before its first attempt: it leaves the queue.
          tx.delete(queue, (event.data as DeliveryAbandoned['data']).deliveryId);
          return;
        case 'DeliveryAttempted':
        case 'DeliverySucceeded':
        case 'DeliveryFailed': {
          const data = event.data as Exclude<DeliveriesEvent, DeliveryAbandoned>['data'];
          if (event.type === 'DeliveryAttempted') {
            // An alert email was sent: that alert's next emails to the address are held for the cooldown.
            const key = digestKeyOf(event.data as DeliveryAttempted['data']);
            const at = Date.parse((event.data as DeliveryAttempted['data']).at);
            if (key !== null && Number.isFinite(at)) {
              const last = await tx.get<EmailSent>(emailed, key);
              if (!last || last.at < at) tx.put(emailed, key, { at } satisfies EmailSent);
              if (!last) {
                const { channelId, alertId } = event.data as DeliveryAttempted['data'];
                const known = (await tx.get<EmailedAlerts>(emailedBy, channelId))?.alertIds ?? [];
                tx.put(emailedBy, channelId, { alertIds: [...known, alertId!] } satisfies EmailedAlerts);
              }
            }
          }
          const job = await tx.get<QueuedDelivery>(queue, data.deliveryId);
          if (!job) return;
          if (event.type === 'DeliveryAttempted') {
            if (data.attempt > job.attempts) {
              tx.put(queue, job.deliveryId, { ...job, attempts: data.attempt, attemptedAt: Date.parse(data.at) });
            }
          } else if (event.type === 'DeliverySucceeded' || (event.data as { final: boolean }).final) {
            tx.delete(queue, job.deliveryId);
          } else {
            const retryAt = (event.data as { retryAt: string | null }).retryAt;
            tx.put(queue, job.deliveryId, {
              ...job,
              attempts: Math.max(job.attempts, data.attempt),
              answered: data.attempt,
              dueAt: retryAt === null ? now() : Date.parse(retryAt),
            });
          }
          return;
        }
        default: {
          const state = (await tx.get<ChannelsState>(channelsCollection, userId)) ?? channelsDecider.initialState;
          const channelEvent = { type: event.type, data: event.data } as ChannelsEvent;
          tx.put(channelsCollection, userId, channelsDecider.evolve(state, channelEvent));
          // A removed address keeps no cooldown record.
          if (channelEvent.type === 'ChannelRemoved') await forgetEmailed(tx, channelEvent.data.channelId, () => true);
          // The address hears of StockPulse to confirm it (once when added, again each time its user asks);
          // alerts follow only after. A confirmation sent again is a delivery of its own (its id from this
          // event's), with the same link.
          const confirmation =
            channelEvent.type === 'ChannelAdded' && channelEvent.data.type === 'email'
              ? { channelId: channelEvent.data.channelId, at: channelEvent.data.createdt }
              : channelEvent.type === 'EmailConfirmationResent' &&
                  state.channels.some((c) => c.id === channelEvent.data.channelId)
                ? channelEvent.data
                : null;
          if (confirmation !== null) {
            const deliveryId = deliveryIdOf(event.id, confirmation.channelId);
            enqueue({
              deliveryId,
              userId,
              kind: 'confirm',
              channelId: confirmation.channelId,
              channelType: 'email',
              alertId: null,
              triggerId: null,
              payload: noticePayload(
                deliveryId,
                'Confirm your StockPulse alert address',
                confirmation.at,
                formatPosition(event.position),
              ),
            });
          }
        }
      }
    },
  };
}

/**
 * Why a queued delivery is no longer sent to its channel, or null: a webhook disabled meanwhile (410 Gone), or
 * an address unsubscribed or unconfirmed, which hears of nothing but its confirmation.
 */
function unreachable(job: QueuedDelivery, channel: Channel): string | null {
  if (channel.disabled !== undefined) {
    const { status } = channel.disabled;
    return `the webhook is disabled: its receiver answered ${status}${status === 410 ? ' Gone' : ''}`;
  }
  if (job.kind === 'confirm' || receivesAlerts(channel)) return null;
  return channel.unsubscribedAt !== undefined ? 'the address holder unsubscribed' : 'the address is not confirmed';
}

/** Whether a password reset request made at `at` can no longer be used at `nowMs`. */
function resetExpired(at: string, nowMs: number): boolean {
  return !(nowMs - Date.parse(at) <= PASSWORD_RESET_TTL_MS);
}

function engineMeta(userId: string, commandId: string, at: string): CommandMeta {
  return { commandId, userId, at, actor: 'engine' };
}

/** The confirmation link of an email channel: the page that confirms it when the person asks (`/ConfirmEmail`). */
export function confirmLinkOf(origin: string, secrets: DeliverySecrets, userId: string, channelId: string): string {
  const query = new URLSearchParams({
    user: userId,
    channel: channelId,
    token: secrets.confirmToken(userId, channelId),
  });
  return `${origin.replace(/\/$/, '')}/ConfirmEmail?${query.toString()}`;
}

/**
 * The unsubscribe link of an alert email to an email channel (`List-Unsubscribe`): its one-click POST
 * (RFC 8058) unsubscribes; opened (a GET) it answers 303 to the page `/Unsubscribe`, which asks first.
 */
export function unsubscribeLinkOf(origin: string, secrets: DeliverySecrets, userId: string, channelId: string): string {
  const query = new URLSearchParams({
    user: userId,
    channel: channelId,
    token: secrets.unsubscribeToken(userId, channelId),
  });
  return `${origin.replace(/\/$/, '')}/api/channels/unsubscribe?${query.toString()}`;
}

/**
 * The link of a password reset: the page that sets the new password (`/ResetPassword`), with the user, the
 * request and its token.
 */
export function resetLinkOf(origin: string, secrets: DeliverySecrets, userId: string, requestId: string): string {
  const query = new URLSearchParams({
    user: userId,
    request: requestId,
    token: secrets.resetToken(userId, requestId),
  });
  return `${origin.replace(/\/$/, '')}/ResetPassword?${query.toString()}`;
}

/** What one attempt needs besides the queue: the log, the senders and the clock. */
export interface AttemptDeps {
  readonly events: EventStore;
  readonly senders: Senders;
  readonly secrets: DeliverySecrets;
  /** As {@link DeliveryProcessorOptions.publicOrigin}. */
  readonly publicOrigin: () => string;
  readonly retry: RetryPolicy;
  readonly now: () => number;
  readonly random: () => number;
  /** Where attempts and outcomes are recorded (default {@link directDeliveryLog}). */
  readonly log?: DeliveryLog;
}

/** A delivery as an attempt sends it. */
export type AttemptedDelivery = Pick<
  QueuedDelivery,
  'deliveryId' | 'userId' | 'kind' | 'alertId' | 'triggerId' | 'requestId' | 'payload'
>;

/** What one attempt answers: how it ended, and whether no attempt follows. */
export type AttemptAnswer = AttemptResult & { readonly final: boolean };

/**
 * Makes attempt `attempt` of a delivery through a channel: records its start (sending only when this call
 * recorded it), sends, records the outcome (with the next attempt's time after a retryable failure) and, when a
 * push service says the subscription is gone, removes it, or when a webhook receiver answers 410 Gone, disables
 * the webhook. Answers null when the attempt was not this call's.
 */
export async function attemptDelivery(
  deps: AttemptDeps,
  delivery: AttemptedDelivery,
  channel: Channel,
  attempt: number,
): Promise<AttemptAnswer | null> {
  const [answer] = await attemptDeliveries(deps, [{ delivery, attempt }], channel);
  return answer ?? null;
}

/** The order the firings of a digest are listed in: the log's, else their time. */
function firingOrder(a: WebhookPayload, b: WebhookPayload): number {
  const pa = parsePosition(a.position);
  const pb = parsePosition(b.position);
  if (pa && pb) return isAfter(pa, pb) ? 1 : isAfter(pb, pa) ? -1 : 0;
  return Date.parse(a.at) - Date.parse(b.at);
}

/**
 * Makes one attempt of each delivery, all through one channel in one message: each start is recorded, and the
 * message carries the deliveries whose start this call recorded (alert emails of one alert: one email listing
 * each firing, {@link OutgoingMessage.digest}), then each outcome is recorded (those retried, at one time).
 * Answers each delivery's attempt in the order given, null for one that was not this call's.
 */
export async function attemptDeliveries(
  deps: AttemptDeps,
  attempts: readonly { readonly delivery: AttemptedDelivery; readonly attempt: number }[],
  channel: Channel,
): Promise<(AttemptAnswer | null)[]> {
  const log = deps.log ?? directDeliveryLog(deps.events);
  const startedAt = new Date(deps.now()).toISOString();
  const claims = await Promise.all(
    attempts.map(({ delivery, attempt }) =>
      log.record(
        delivery.userId,
        {
          type: 'RecordDeliveryAttempt',
          data: {
            deliveryId: delivery.deliveryId,
            attempt,
            kind: delivery.kind,
            alertId: delivery.alertId,
            triggerId: delivery.triggerId,
            channelId: channel.id,
            channelType: channel.type,
            at: startedAt,
          },
        },
        engineMeta(delivery.userId, `${delivery.deliveryId}/attempt/${attempt}`, startedAt),
      ),
    ),
  );
  const mine = attempts.filter((_, i) => claims[i]!.length > 0);
  const first = mine[0];
  if (first === undefined) return attempts.map(() => null);
  const delivery = first.delivery;
  // Read now, not when the processor started: the server's port may be known only after that.
  const origin = deps.publicOrigin();
  const message: OutgoingMessage =
    delivery.kind === 'confirm'
      ? {
          channel,
          payload: delivery.payload,
          origin,
          confirmLink: confirmLinkOf(origin, deps.secrets, delivery.userId, channel.id),
        }
      : delivery.kind === 'reset' && delivery.requestId !== undefined
        ? {
            channel,
            payload: delivery.payload,
            origin,
            resetLink: resetLinkOf(origin, deps.secrets, delivery.userId, delivery.requestId),
          }
        : delivery.kind === 'alert' && channel.type === 'email'
          ? {
              channel,
              payload: delivery.payload,
              origin,
              unsubscribeLink: unsubscribeLinkOf(origin, deps.secrets, delivery.userId, channel.id),
              ...(mine.length > 1 ? { digest: mine.map((m) => m.delivery.payload).sort(firingOrder) } : {}),
            }
          : { channel, payload: delivery.payload, origin };
  let result: AttemptResult;
  try {
    result = await deps.senders[channel.type]({ ...message, triggerId: delivery.triggerId });
  } catch (error) {
    result = {
      ok: false,
      status: null,
      error: error instanceof Error ? error.message : String(error),
      retryable: true,
    };
  }
  const endedAt = deps.now();
  // A receiver that said when to come back (`Retry-After`) is tried then, within the bounds of `retryDelay`.
  // One draw of the jitter for the whole message, so the deliveries it carried are retried together.
  const random = deps.random();
  const answers = new Map<string, AttemptAnswer>();
  await Promise.all(
    mine.map(async ({ delivery: carried, attempt }) => {
      const delay =
        result.ok || !result.retryable || carried.kind === 'test'
          ? null
          : retryDelay(deps.retry, attempt, random, retryAfterMs(result.retryAfter, endedAt));
      await log.record(
        carried.userId,
        {
          type: 'RecordDeliveryOutcome',
          data: {
            deliveryId: carried.deliveryId,
            attempt,
            ok: result.ok,
            status: result.status,
            error: result.error,
            final: !result.ok && delay === null,
            retryAt: delay === null ? null : new Date(endedAt + delay).toISOString(),
            at: new Date(endedAt).toISOString(),
          },
        },
        engineMeta(carried.userId, `${carried.deliveryId}/outcome/${attempt}`, new Date(endedAt).toISOString()),
      );
      answers.set(carried.deliveryId, { ...result, final: result.ok || delay === null });
    }),
  );
  if (result.gone && (channel.type === 'webpush' || channel.type === 'webhook')) {
    const at = new Date(endedAt).toISOString();
    await handleCommand(
      deps.events,
      channelsDecider,
      streamName(CHANNELS_CONCERN, delivery.userId),
      channel.type === 'webpush'
        ? { type: 'DropPushSubscription', data: { channelId: channel.id, reason: result.error ?? 'gone' } }
        : { type: 'DisableWebhook', data: { channelId: channel.id, status: result.status ?? 410, at } },
      engineMeta(delivery.userId, `${delivery.deliveryId}/gone`, at),
      { maxRetries: 10 },
    );
  }
  return attempts.map((a, i) => (claims[i]!.length > 0 ? (answers.get(a.delivery.deliveryId) ?? null) : null));
}

/** Starts the processor: the consumer from its checkpoint, then the worker over the queue. */
export async function startDeliveryProcessor(options: DeliveryProcessorOptions): Promise<DeliveryProcessor> {
  const now = options.now ?? Date.now;
  const retry = options.retry ?? DEFAULT_RETRY_POLICY;
  const lostAfterMs = options.lostAfterMs ?? ATTEMPT_TIMEOUT_MS + 2000;
  const concurrency = options.concurrency ?? 256;
  const perChannel = Math.max(1, options.perChannel ?? DEFAULT_PER_CHANNEL);
  const cooldownMs = options.emailCooldownMs ?? DEFAULT_EMAIL_COOLDOWN_MS;
  const setTimer =
    options.setTimer ??
    ((wake: () => void, delayMs: number): (() => void) => {
      const timer = setTimeout(wake, delayMs);
      timer.unref();
      return () => clearTimeout(timer);
    });
  const { channels: channelsCollection, queue, emailed } = deliveryCollections(options.instance);
  const deps: AttemptDeps = {
    events: options.events,
    senders: options.senders,
    secrets: options.secrets,
    publicOrigin: options.publicOrigin,
    retry,
    now,
    random: options.random ?? Math.random,
    log: cachedDeliveryLog(options.events, {
      ...(options.maxCachedUsers !== undefined ? { maxUsers: options.maxCachedUsers } : {}),
    }),
  };
  const partition = options.partition ?? WHOLE_PARTITION;
  /** Due deliveries of users another process takes; scheduled again when the processes alive change. */
  const parked = new Set<string>();
  const jobs = new Map<string, QueuedDelivery>();
  const running = new Map<string, Promise<void>>();
  /** Messages in flight per channel. */
  const busy = new Map<string, number>();
  /** Due deliveries of a channel at its cap, oldest first: taken again, as many as it has room, when one ends. */
  const waiting = new Map<string, Set<string>>();
  /** The queued alert emails of each alert to each address (`<channelId>/<alertId>`), which go together. */
  const digests = new Map<string, Set<string>>();
  /** When an alert email of each alert was last attempted to each address, while it matters. */
  const lastEmailed = new Map<string, number>();
  /** When each of those cooldowns ends, to forget the ones no queued email needs. */
  const cooldownEnds = new DueHeap();
  let loaded = false;
  let stopped = false;
  let cancelTimer: (() => void) | undefined;
  let timerAt = Infinity;

  const report = (error: unknown): void => options.onError?.(error instanceof Error ? error : new Error(String(error)));

  const dueAt = (job: QueuedDelivery): number =>
    job.attempts > job.answered ? (job.attemptedAt ?? 0) + lostAfterMs : job.dueAt;

  /** Files a queued delivery (as the consumer committed it or the queue was loaded) by its alert and address. */
  const keep = (deliveryId: string, job: QueuedDelivery): void => {
    jobs.set(deliveryId, job);
    const key = digestKeyOf(job);
    if (key === null) return;
    let group = digests.get(key);
    if (!group) digests.set(key, (group = new Set()));
    group.add(deliveryId);
  };

  const forget = (deliveryId: string): void => {
    const job = jobs.get(deliveryId);
    jobs.delete(deliveryId);
    ready.delete(deliveryId);
    parked.delete(deliveryId);
    if (!job) return;
    const channelWaiting = waiting.get(job.channelId);
    if (channelWaiting?.delete(deliveryId) && channelWaiting.size === 0) waiting.delete(job.channelId);
    const key = digestKeyOf(job);
    const group = key === null ? undefined : digests.get(key);
    if (!group?.delete(deliveryId) || group.size > 0) return;
    digests.delete(key!);
    const last = lastEmailed.get(key!);
    if (last !== undefined && last + cooldownMs <= now()) lastEmailed.delete(key!);
  };

  /**
   * Until when an alert email never attempted is held: the end of the cooldown of its alert's last email to its
   * address, or null when none lasts.
   */
  const heldUntil = (job: QueuedDelivery, at: number): number | null => {
    const key = digestKeyOf(job);
    if (key === null || job.attempts > 0) return null;
    const last = lastEmailed.get(key);
    return last !== undefined && last + cooldownMs > at ? last + cooldownMs : null;
  };

  const emailedAt = (key: string, at: number): void => {
    const last = lastEmailed.get(key);
    if (last !== undefined && last >= at) return;
    lastEmailed.set(key, at);
    cooldownEnds.push(at + cooldownMs, key);
  };

  /** Forgets the cooldowns that ended, of alerts with no email queued to the address. */
  const forgetCooldowns = (at: number): void => {
    for (let top = cooldownEnds.peek(); top && top.at <= at; top = cooldownEnds.peek()) {
      cooldownEnds.pop();
      const last = lastEmailed.get(top.id);
      if (last !== undefined && last + cooldownMs <= at && !digests.has(top.id)) lastEmailed.delete(top.id);
    }
  };

  /**
   * Records that a delivery ends without a further attempt: its channel is gone, or its attempts ran out. One
   * whose last attempt was answered ends on it, unsent (no attempt is added); one never attempted ends
   * abandoned (`DeliveryAbandoned`, no attempt recorded, as none was made), which its delivery history lists.
   */
  const abandon = async (job: QueuedDelivery, error: string): Promise<void> => {
    const log = deps.log!;
    const at = new Date(now()).toISOString();
    if (job.attempts > 0 && job.attempts === job.answered) {
      await log.record(
        job.userId,
        {
          type: 'RecordDeliveryOutcome',
          data: {
            deliveryId: job.deliveryId,
            attempt: job.attempts,
            ok: false,
            status: null,
            error,
            final: true,
            retryAt: null,
            at,
            unsent: true,
          },
        },
        engineMeta(job.userId, `${job.deliveryId}/unsent/${job.attempts}`, at),
      );
      return;
    }
    if (job.attempts === 0) {
      await log.record(
        job.userId,
        {
          type: 'RecordDeliveryAbandoned',
          data: {
            deliveryId: job.deliveryId,
            kind: job.kind,
            alertId: job.alertId,
            triggerId: job.triggerId,
            channelId: job.channelId,
            channelType: job.channelType,
            error,
            at,
          },
        },
        engineMeta(job.userId, `${job.deliveryId}/abandoned`, at),
      );
      return;
    }
    const attempt = job.attempts;
    await log.record(
      job.userId,
      {
        type: 'RecordDeliveryOutcome',
        data: { deliveryId: job.deliveryId, attempt, ok: false, status: null, error, final: true, retryAt: null, at },
      },
      engineMeta(job.userId, `${job.deliveryId}/outcome/${attempt}`, at),
    );
  };

  /** Why a delivery due now to `channel` is not sent, or null. */
  const refusal = (job: QueuedDelivery, channel: Channel | undefined): string | null => {
    if (!channel) return 'the channel was removed';
    const unreachableWhy = unreachable(job, channel);
    if (unreachableWhy !== null) return unreachableWhy;
    if (job.attempts + 1 > maxAttempts(retry)) return 'no outcome was recorded and no attempt is left';
    // A reset link that could no longer be used when it arrived is not sent.
    if (job.kind === 'reset' && resetExpired(job.payload.at, now())) return 'the password reset request expired';
    return null;
  };

  /** Makes the next attempt of each delivery of `group` (one channel), together in one message. */
  const run = async (group: readonly QueuedDelivery[]): Promise<void> => {
    const first = group[0]!;
    const state = await options.readModels.get<ChannelsState>(channelsCollection, first.userId);
    const channel = state?.channels.find((c) => c.id === first.channelId);
    const sending: QueuedDelivery[] = [];
    for (const job of group) {
      // Finished meanwhile (by another processor, whose events the consumer has just committed).
      if (!jobs.has(job.deliveryId)) continue;
      // Marked locally until the consumer commits what the attempt recorded.
      jobs.set(job.deliveryId, { ...job, attempts: job.attempts + 1, attemptedAt: now() });
      const why = refusal(job, channel);
      if (why !== null) {
        await abandon(job, why);
        options.onUnsent?.(job, why);
      } else sending.push(job);
    }
    if (sending.length === 0 || !channel) return;
    const answers = await attemptDeliveries(
      deps,
      sending.map((job) => ({ delivery: job, attempt: job.attempts + 1 })),
      channel,
    );
    sending.forEach((job, i) => {
      const result = answers[i];
      const attempt = job.attempts + 1;
      if (!result) {
        options.onTaken?.(job);
        return;
      }
      const latest = jobs.get(job.deliveryId);
      // Until the consumer commits the outcome; a commit that came first already holds the next due time.
      if (latest && latest.answered < attempt)
        jobs.set(job.deliveryId, { ...latest, answered: attempt, dueAt: Infinity });
      options.onOutcome?.(job, result, { attempt, final: result.final });
    });
  };

  // Deliveries due now, oldest first, and the later ones by due time: taking work never walks the queue.
  const ready = new Set<string>();
  const later = new DueHeap();

  /** Files a delivery under when it is due (again); one waiting for its outcome's commit is filed by that commit. */
  const schedule = (deliveryId: string): void => {
    const job = jobs.get(deliveryId);
    if (!job || running.has(deliveryId)) return;
    const due = dueAt(job);
    if (due <= now()) ready.add(deliveryId);
    else if (Number.isFinite(due)) later.push(due, deliveryId);
  };

  /** Takes again as many deliveries waiting for `channelId` as it has room for. */
  const release = (channelId: string): void => {
    const channelWaiting = waiting.get(channelId);
    if (!channelWaiting) return;
    let room = perChannel - (busy.get(channelId) ?? 0);
    for (const deliveryId of channelWaiting) {
      if (room <= 0) break;
      channelWaiting.delete(deliveryId);
      if (!jobs.has(deliveryId) || running.has(deliveryId) || ready.has(deliveryId)) continue;
      schedule(deliveryId);
      if (ready.has(deliveryId)) room -= 1;
    }
    if (channelWaiting.size === 0) waiting.delete(channelId);
  };

  /**
   * The deliveries one message carries with `job`: an alert email held until its cooldown ended goes with the
   * others of its alert to its address held with it, and a retry with the others due again; an email sent as its
   * firing is read goes alone (the firings read with it are held by the cooldown it starts).
   */
  const groupOf = (job: QueuedDelivery, at: number): QueuedDelivery[] => {
    const key = digestKeyOf(job);
    const group = [job];
    if (key === null) return group;
    const last = lastEmailed.get(key);
    const together = (other: QueuedDelivery): boolean =>
      other.attempts > 0 || (last !== undefined && other.dueAt < last + cooldownMs && last + cooldownMs <= at);
    if (!together(job)) return group;
    for (const deliveryId of digests.get(key) ?? []) {
      const other = jobs.get(deliveryId);
      if (!other || other === job || running.has(deliveryId) || dueAt(other) > at || !together(other)) continue;
      group.push(other);
    }
    return group;
  };

  const start = (job: QueuedDelivery, at: number): void => {
    const group = groupOf(job, at);
    const { channelId } = job;
    busy.set(channelId, (busy.get(channelId) ?? 0) + 1);
    // The cooldown starts now, before the consumer reads the attempt the log will say: a next firing waits.
    const key = digestKeyOf(job);
    if (key !== null) emailedAt(key, at);
    const work = run(group)
      .catch(report)
      .finally(() => {
        const left = (busy.get(channelId) ?? 1) - 1;
        if (left > 0) busy.set(channelId, left);
        else busy.delete(channelId);
        for (const member of group) running.delete(member.deliveryId);
        for (const member of group) schedule(member.deliveryId);
        release(channelId);
        pump();
      });
    const channelWaiting = waiting.get(channelId);
    for (const member of group) {
      ready.delete(member.deliveryId);
      channelWaiting?.delete(member.deliveryId);
      running.set(member.deliveryId, work);
    }
    if (channelWaiting?.size === 0) waiting.delete(channelId);
  };

  const pump = (): void => {
    if (stopped || !loaded) return;
    const at = now();
    for (let top = later.peek(); top && top.at <= at; top = later.peek()) {
      later.pop();
      schedule(top.id);
    }
    forgetCooldowns(at);
    for (const deliveryId of ready) {
      if (running.size >= concurrency) break;
      ready.delete(deliveryId);
      const job = jobs.get(deliveryId);
      if (!job || running.has(deliveryId)) continue;
      if (!partition.owns(job.userId)) {
        parked.add(deliveryId);
        continue;
      }
      const due = dueAt(job);
      if (due > at) {
        if (Number.isFinite(due)) later.push(due, deliveryId);
        continue;
      }
      const held = heldUntil(job, at);
      if (held !== null) {
        later.push(held, deliveryId);
        continue;
      }
      if ((busy.get(job.channelId) ?? 0) >= perChannel) {
        let channelWaiting = waiting.get(job.channelId);
        if (!channelWaiting) waiting.set(job.channelId, (channelWaiting = new Set()));
        channelWaiting.add(deliveryId);
        continue;
      }
      start(job, at);
    }
    const next = later.peek()?.at ?? Infinity;
    if (next < timerAt) {
      cancelTimer?.();
      timerAt = next;
      cancelTimer = setTimer(
        () => {
          cancelTimer = undefined;
          timerAt = Infinity;
          pump();
        },
        Math.min(Math.max(0, next - now()), 60_000),
      );
    }
  };

  const apply = (writes: readonly DocumentWrite[]): void => {
    for (const write of writes) {
      if (write.collection === emailed) {
        if (write.doc !== null) emailedAt(write.key, (write.doc as EmailSent).at);
        continue;
      }
      if (write.collection !== queue) continue;
      if (write.doc === null) forget(write.key);
      else {
        keep(write.key, write.doc as QueuedDelivery);
        schedule(write.key);
      }
    }
    pump();
  };

  // Started again from its checkpoint after a failure: a store that lost the queue has it rebuilt from the log.
  const runner = await superviseConsumer(options.events, options.readModels, deliveryConsumer(options.instance, now), {
    onCommit: (_position, writes) => apply(writes),
    onError: report,
  });
  const caughtUp = runner.caughtUp.then(async () => {
    for (const { key, doc } of await options.readModels.list<QueuedDelivery>(queue)) {
      if (!jobs.has(key)) keep(key, doc);
    }
    // The last email of each alert with emails queued to an address: they are held, or go together, by it.
    for (const key of [...digests.keys()]) {
      const sent = await options.readModels.get<EmailSent>(emailed, key);
      if (sent) emailedAt(key, sent.at);
    }
    for (const key of jobs.keys()) schedule(key);
    loaded = true;
    pump();
  });
  caughtUp.catch(report);
  const unlisten = partition.onChange(() => {
    const moved = [...parked];
    parked.clear();
    for (const deliveryId of moved) schedule(deliveryId);
    pump();
  });
  return {
    caughtUp,
    runner,
    pending: () => jobs.size,
    inFlight: () => running.size,
    parked: () => parked.size,
    waiting: () => {
      let count = 0;
      for (const channelWaiting of waiting.values()) count += channelWaiting.size;
      return count;
    },
    cached: () => deps.log!.cached?.() ?? { users: 0, deliveries: 0 },
    stop: async () => {
      stopped = true;
      unlisten();
      cancelTimer?.();
      await Promise.allSettled([...running.values()]);
      await runner.stop();
    },
  };
}

/** A binary min-heap of delivery ids by due time; entries that went stale are checked when they come out. */
class DueHeap {
  private readonly items: { at: number; id: string }[] = [];

  push(at: number, id: string): void {
    const items = this.items;
    items.push({ at, id });
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (items[parent]!.at <= items[i]!.at) break;
      [items[parent], items[i]] = [items[i]!, items[parent]!];
      i = parent;
    }
  }

  peek(): { at: number; id: string } | undefined {
    return this.items[0];
  }

  pop(): void {
    const items = this.items;
    const last = items.pop();
    if (!last || items.length === 0) return;
    items[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < items.length && items[l]!.at < items[m]!.at) m = l;
      if (r < items.length && items[r]!.at < items[m]!.at) m = r;
      if (m === i) return;
      [items[m], items[i]] = [items[i]!, items[m]!];
      i = m;
    }
  }
}
