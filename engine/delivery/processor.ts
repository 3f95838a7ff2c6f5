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
 * socket push, which only append and read the log.
 *
 * Sharing: with a `partition`, a processor sends only the deliveries of the users it takes and parks the others
 * until the processes alive change; every processor still keeps the whole queue, so it can take any user over.
 */
import { PASSWORD_RESET_TTL_MS, type PasswordResetRequested } from '../../domain/accounts/accounts.ts';
import type { AlertTriggeredData } from '../../domain/alerts/alerts.ts';
import {
  CHANNELS_CONCERN,
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
import { deliveryIdOf, type DeliveriesEvent, type DeliveryKind } from '../../domain/deliveries/deliveries.ts';
import { streamName } from '../../domain/ids.ts';
import { handleCommand } from '../../platform/commandHandler.ts';
import { formatPosition, type EventStore, type RecordedEvent } from '../../platform/eventstore/port.ts';
import type { DocumentWrite, ReadModelStore } from '../../platform/readmodels/port.ts';
import { startConsumer, type Consumer, type ConsumerRunner } from '../../platform/subscriptions/runner.ts';
import { cachedDeliveryLog, directDeliveryLog, type DeliveryLog } from './deliveryLog.ts';
import { WHOLE_PARTITION, type DeliveryPartition } from './partition.ts';
import { DEFAULT_RETRY_POLICY, maxAttempts, retryAfterMs, retryDelay, type RetryPolicy } from './retry.ts';
import type { DeliverySecrets } from './secrets.ts';
import type { AttemptResult, OutgoingMessage, Sender } from './senders.ts';
import { ATTEMPT_TIMEOUT_MS } from './senders.ts';

/** The consumer name of the processor (plus `:<instance>`). */
export const DELIVERY_CONSUMER = 'delivery';

/** Version of its documents; a change rebuilds them from the whole log. */
export const DELIVERY_VERSION = 1;

/** The event types the processor reads. */
export const DELIVERY_EVENT_TYPES: readonly string[] = Object.freeze([
  'AlertTriggered',
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
  'DeliveryAttempted',
  'DeliverySucceeded',
  'DeliveryFailed',
  'PasswordResetRequested',
] satisfies (ChannelsEvent['type'] | DeliveriesEvent['type'] | 'AlertTriggered' | PasswordResetRequested['type'])[]);

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
  /** Milliseconds now (default `Date.now`). */
  readonly now?: () => number;
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
  /** Users and deliveries whose state the log holds in memory. */
  cached(): { users: number; deliveries: number };
  /** Stops taking work, waits for the attempts in flight, then stops the consumer. */
  stop(): Promise<void>;
}

/** The collections of a processor instance. */
export function deliveryCollections(instance?: string): { channels: string; queue: string } {
  const suffix = instance ? `_${instance}` : '';
  return { channels: `deliverychannels${suffix}`, queue: `deliveryqueue${suffix}` };
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
  const { channels: channelsCollection, queue } = deliveryCollections(instance);
  return {
    name: instance ? `${DELIVERY_CONSUMER}:${instance}` : DELIVERY_CONSUMER,
    version: DELIVERY_VERSION,
    collections: [channelsCollection, queue],
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
        case 'DeliveryAttempted':
        case 'DeliverySucceeded':
        case 'DeliveryFailed': {
          const data = event.data as DeliveriesEvent['data'];
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

/**
 * Makes attempt `attempt` of a delivery through a channel: records its start (sending only when this call
 * recorded it), sends, records the outcome (with the next attempt's time after a retryable failure) and, when a
 * push service says the subscription is gone, removes it, or when a webhook receiver answers 410 Gone, disables
 * the webhook. Answers null when the attempt was not this call's.
 */
export async function attemptDelivery(
  deps: AttemptDeps,
  delivery: Pick<QueuedDelivery, 'deliveryId' | 'userId' | 'kind' | 'alertId' | 'triggerId' | 'requestId' | 'payload'>,
  channel: Channel,
  attempt: number,
): Promise<(AttemptResult & { readonly final: boolean }) | null> {
  const log = deps.log ?? directDeliveryLog(deps.events);
  const startedAt = new Date(deps.now()).toISOString();
  const claim = await log.record(
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
  );
  if (claim.length === 0) return null;
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
  const delay =
    result.ok || !result.retryable || delivery.kind === 'test'
      ? null
      : retryDelay(deps.retry, attempt, deps.random(), retryAfterMs(result.retryAfter, endedAt));
  await log.record(
    delivery.userId,
    {
      type: 'RecordDeliveryOutcome',
      data: {
        deliveryId: delivery.deliveryId,
        attempt,
        ok: result.ok,
        status: result.status,
        error: result.error,
        final: !result.ok && delay === null,
        retryAt: delay === null ? null : new Date(endedAt + delay).toISOString(),
        at: new Date(endedAt).toISOString(),
      },
    },
    engineMeta(delivery.userId, `${delivery.deliveryId}/outcome/${attempt}`, new Date(endedAt).toISOString()),
  );
  const final = result.ok || delay === null;
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
  return { ...result, final };
}

/** Starts the processor: the consumer from its checkpoint, then the worker over the queue. */
export async function startDeliveryProcessor(options: DeliveryProcessorOptions): Promise<DeliveryProcessor> {
  const now = options.now ?? Date.now;
  const retry = options.retry ?? DEFAULT_RETRY_POLICY;
  const lostAfterMs = options.lostAfterMs ?? ATTEMPT_TIMEOUT_MS + 2000;
  const concurrency = options.concurrency ?? 256;
  const { channels: channelsCollection, queue } = deliveryCollections(options.instance);
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
  let loaded = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Infinity;

  const report = (error: unknown): void => options.onError?.(error instanceof Error ? error : new Error(String(error)));

  const dueAt = (job: QueuedDelivery): number =>
    job.attempts > job.answered ? (job.attemptedAt ?? 0) + lostAfterMs : job.dueAt;

  /** Records that a delivery ends without a further attempt: its channel is gone, or its attempts ran out. */
  const abandon = async (job: QueuedDelivery, error: string): Promise<void> => {
    const log = deps.log!;
    const at = new Date(now()).toISOString();
    let attempt = job.attempts;
    if (job.attempts === job.answered) {
      attempt = job.attempts + 1;
      await log.record(
        job.userId,
        {
          type: 'RecordDeliveryAttempt',
          data: {
            deliveryId: job.deliveryId,
            attempt,
            kind: job.kind,
            alertId: job.alertId,
            triggerId: job.triggerId,
            channelId: job.channelId,
            channelType: job.channelType,
            at,
          },
        },
        engineMeta(job.userId, `${job.deliveryId}/attempt/${attempt}`, at),
      );
    }
    await log.record(
      job.userId,
      {
        type: 'RecordDeliveryOutcome',
        data: { deliveryId: job.deliveryId, attempt, ok: false, status: null, error, final: true, retryAt: null, at },
      },
      engineMeta(job.userId, `${job.deliveryId}/outcome/${attempt}`, at),
    );
  };

  const run = async (job: QueuedDelivery): Promise<void> => {
    const state = await options.readModels.get<ChannelsState>(channelsCollection, job.userId);
    const channel = state?.channels.find((c) => c.id === job.channelId);
    const attempt = job.attempts + 1;
    // Finished meanwhile (by another processor, whose events the consumer has just committed).
    if (!jobs.has(job.deliveryId)) return;
    // Marked locally until the consumer commits what the attempt recorded.
    jobs.set(job.deliveryId, { ...job, attempts: attempt, attemptedAt: now() });
    if (!channel) return abandon(job, 'the channel was removed');
    const refusal = unreachable(job, channel);
    if (refusal !== null) return abandon(job, refusal);
    if (attempt > maxAttempts(retry)) return abandon(job, 'no outcome was recorded and no attempt is left');
    // A reset link that could no longer be used when it arrived is not sent.
    if (job.kind === 'reset' && resetExpired(job.payload.at, now())) {
      return abandon(job, 'the password reset request expired');
    }
    const result = await attemptDelivery(deps, job, channel, attempt);
    if (result) {
      const latest = jobs.get(job.deliveryId);
      // Until the consumer commits the outcome; a commit that came first already holds the next due time.
      if (latest && latest.answered < attempt)
        jobs.set(job.deliveryId, { ...latest, answered: attempt, dueAt: Infinity });
      options.onOutcome?.(job, result, { attempt, final: result.final });
    } else options.onTaken?.(job);
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

  const pump = (): void => {
    if (stopped || !loaded) return;
    const at = now();
    for (let top = later.peek(); top && top.at <= at; top = later.peek()) {
      later.pop();
      schedule(top.id);
    }
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
      const work = run(job)
        .catch(report)
        .finally(() => {
          running.delete(deliveryId);
          schedule(deliveryId);
          pump();
        });
      running.set(deliveryId, work);
    }
    const next = later.peek()?.at ?? Infinity;
    if (next < timerAt) {
      if (timer) clearTimeout(timer);
      timerAt = next;
      timer = setTimeout(
        () => {
          timer = undefined;
          timerAt = Infinity;
          pump();
        },
        Math.min(Math.max(0, next - now()), 60_000),
      );
      timer.unref();
    }
  };

  const apply = (writes: readonly DocumentWrite[]): void => {
    for (const write of writes) {
      if (write.collection !== queue) continue;
      if (write.doc === null) {
        jobs.delete(write.key);
        ready.delete(write.key);
        parked.delete(write.key);
      } else {
        jobs.set(write.key, write.doc as QueuedDelivery);
        schedule(write.key);
      }
    }
    pump();
  };

  const runner = await startConsumer(options.events, options.readModels, deliveryConsumer(options.instance, now), {
    onCommit: (_position, writes) => apply(writes),
    onError: report,
  });
  const caughtUp = runner.caughtUp.then(async () => {
    for (const { key, doc } of await options.readModels.list<QueuedDelivery>(queue)) {
      if (!jobs.has(key)) jobs.set(key, doc);
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
    cached: () => deps.log!.cached?.() ?? { users: 0, deliveries: 0 },
    stop: async () => {
      stopped = true;
      unlisten();
      if (timer) clearTimeout(timer);
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
