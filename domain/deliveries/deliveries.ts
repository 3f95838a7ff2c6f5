/**
 * Deliveries: each trigger carried to each of its channels, exactly once. A delivery's id is derived from the
 * trigger and the channel, so a restart, a retry or a second processor addresses the same delivery; each
 * attempt and its outcome are events on `deliveries-<userId>`, and an attempt is decided only once, so the
 * processor that records it is the only one that sends it.
 */
import { DomainError, type Decider, type DomainEvent, eventTypes, unknownCommand } from '../decider.ts';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../ids.ts';
import type { ChannelType } from '../channels/channels.ts';

/** The concern name of delivery streams (`deliveries-<userId>`). */
export const DELIVERIES_CONCERN = 'deliveries';

/** The id of the delivery of one trigger (the `AlertTriggered` event id) to one channel. */
export function deliveryIdOf(triggerId: string, channelId: string): string {
  return uuidV5(`delivery/${triggerId.toLowerCase()}/${channelId.toLowerCase()}`, STOCKPULSE_NAMESPACE);
}

/**
 * What a delivery carries: an alert's trigger, a channel test, an email address's confirmation link, or a
 * password reset link (to a confirmed email address).
 */
export type DeliveryKind = 'alert' | 'test' | 'confirm' | 'reset';

/** Records that attempt `attempt` of a delivery starts. */
export type RecordDeliveryAttempt = DomainEvent<
  'RecordDeliveryAttempt',
  {
    readonly deliveryId: string;
    readonly attempt: number;
    readonly kind: DeliveryKind;
    readonly alertId: string | null;
    readonly triggerId: string | null;
    readonly channelId: string;
    readonly channelType: ChannelType;
    readonly at: string;
  }
>;

/** Records how an attempt ended. */
export type RecordDeliveryOutcome = DomainEvent<
  'RecordDeliveryOutcome',
  {
    readonly deliveryId: string;
    readonly attempt: number;
    readonly ok: boolean;
    /** The receiver's HTTP status (or SMTP reply code), when it answered. */
    readonly status: number | null;
    /** What went wrong, when it did. */
    readonly error: string | null;
    /** Whether no further attempt follows a failure. */
    readonly final: boolean;
    /** When the next attempt is due, after a failure that is not final. */
    readonly retryAt: string | null;
    readonly at: string;
    /**
     * The delivery ends, failed, before its next attempt is made (its channel no longer receives it): the
     * outcome is recorded against its last attempt, already answered, and no attempt is added.
     */
    readonly unsent?: boolean;
  }
>;

/**
 * Records that a delivery ends before any attempt of it was made (its channel was removed, or stopped receiving,
 * while it waited): nothing was sent, so no attempt is recorded.
 */
export type RecordDeliveryAbandoned = DomainEvent<
  'RecordDeliveryAbandoned',
  Omit<RecordDeliveryAttempt['data'], 'attempt'> & {
    /** Why it was not sent. */
    readonly error: string;
  }
>;

/** Every command of the deliveries concern. */
export type DeliveriesCommand = RecordDeliveryAttempt | RecordDeliveryOutcome | RecordDeliveryAbandoned;

/** An attempt of a delivery started. */
export type DeliveryAttempted = DomainEvent<'DeliveryAttempted', RecordDeliveryAttempt['data']>;
/** An attempt reached its receiver, which accepted it: the delivery is done. */
export type DeliverySucceeded = DomainEvent<
  'DeliverySucceeded',
  { readonly deliveryId: string; readonly attempt: number; readonly status: number | null; readonly at: string }
>;
/** An attempt failed; `final` when no other follows. */
export type DeliveryFailed = DomainEvent<'DeliveryFailed', Omit<RecordDeliveryOutcome['data'], 'ok'>>;

/** A delivery ended, failed, before its first attempt: nothing was sent. */
export type DeliveryAbandoned = DomainEvent<'DeliveryAbandoned', RecordDeliveryAbandoned['data']>;

/** Every event of the deliveries concern. */
export type DeliveriesEvent = DeliveryAttempted | DeliverySucceeded | DeliveryFailed | DeliveryAbandoned;

/** Every event type of the deliveries concern. */
export const DELIVERIES_EVENT_TYPES = eventTypes<DeliveriesEvent>()(
  'DeliveryAttempted',
  'DeliverySucceeded',
  'DeliveryFailed',
  'DeliveryAbandoned',
);

/** Where one delivery stands. */
export interface DeliveryProgress {
  /** Attempts started. */
  readonly attempts: number;
  /** The last attempt whose outcome is recorded (0 when none). */
  readonly answered: number;
  /** `pending` until it succeeded or failed for good. */
  readonly status: 'pending' | 'succeeded' | 'failed';
}

/** A user's deliveries, by id. */
export interface DeliveriesState {
  /** Every delivery's progress. */
  readonly deliveries: Readonly<Record<string, DeliveryProgress>>;
}

function decide(command: DeliveriesCommand, state: DeliveriesState): DeliveriesEvent[] {
  const { deliveryId } = command.data;
  const progress = state.deliveries[deliveryId];
  if (command.type === 'RecordDeliveryAbandoned') {
    // Only a delivery of which nothing is recorded yet: one attempted ends on its attempts (`unsent`).
    return progress ? [] : [{ type: 'DeliveryAbandoned', data: command.data }];
  }
  const { attempt } = command.data;
  if (!Number.isSafeInteger(attempt) || attempt < 1) {
    throw new DomainError('invalid_attempt', `attempt ${attempt} is not a whole number >= 1`, 'attempt');
  }
  switch (command.type) {
    case 'RecordDeliveryAttempt':
      // A delivery that is done, or an attempt already started (by this or another processor), is not sent again.
      if (progress && (progress.status !== 'pending' || attempt <= progress.attempts)) return [];
      return [{ type: 'DeliveryAttempted', data: command.data }];
    case 'RecordDeliveryOutcome': {
      if (command.data.unsent === true) {
        // Ends a delivery waiting for its next attempt, which is never made: once, final, nothing in flight.
        if (
          !progress ||
          progress.status !== 'pending' ||
          attempt !== progress.attempts ||
          progress.answered !== attempt
        ) {
          return [];
        }
        const { ok: _ok, ...outcome } = command.data;
        return [{ type: 'DeliveryFailed', data: { ...outcome, final: true, retryAt: null } }];
      }
      if (!progress || progress.status !== 'pending' || attempt !== progress.attempts || progress.answered >= attempt) {
        return [];
      }
      const { ok, ...outcome } = command.data;
      return ok
        ? [{ type: 'DeliverySucceeded', data: { deliveryId, attempt, status: outcome.status, at: outcome.at } }]
        : [{ type: 'DeliveryFailed', data: outcome }];
    }
    default:
      throw unknownCommand(command, 'deliveries');
  }
}

/** One delivery's progress after an event of it; undefined for an event type this version does not know. */
function evolveDelivery(progress: DeliveryProgress | undefined, event: DeliveriesEvent): DeliveryProgress | undefined {
  const current = progress ?? { attempts: 0, answered: 0, status: 'pending' as const };
  switch (event.type) {
    case 'DeliveryAttempted':
      return { ...current, attempts: Math.max(current.attempts, event.data.attempt) };
    case 'DeliverySucceeded':
      return { ...current, answered: event.data.attempt, status: 'succeeded' };
    case 'DeliveryFailed':
      return { ...current, answered: event.data.attempt, status: event.data.final ? 'failed' : 'pending' };
    case 'DeliveryAbandoned':
      return { ...current, status: 'failed' };
    default: {
      // An event type this version does not know leaves the state as it is, so replaying the log never fails.
      const _exhaustive: never = event;
      return undefined;
    }
  }
}

function evolve(state: DeliveriesState, event: DeliveriesEvent): DeliveriesState {
  const { deliveryId } = event.data;
  const next = evolveDelivery(state.deliveries[deliveryId], event);
  return next === undefined ? state : { deliveries: { ...state.deliveries, [deliveryId]: next } };
}

/**
 * The state after `events`, as folding them one by one with the decider's `evolve` gives it, the deliveries
 * copied once instead of once per event: a user's stream of many deliveries (the state keeps every one, as a
 * delivery once done is never attempted again) folds in time linear in its length, not in its square.
 */
export function foldDeliveries(state: DeliveriesState, events: readonly DeliveriesEvent[]): DeliveriesState {
  if (events.length === 0) return state;
  const deliveries = { ...state.deliveries };
  applyDeliveryEvents(deliveries, events);
  return { deliveries };
}

/**
 * Applies `events` to deliveries the caller owns, in place, as `evolve` would one by one: for a fold's own copy
 * ({@link foldDeliveries}) or a state no one else holds (the delivery log's).
 */
export function applyDeliveryEvents(
  deliveries: Record<string, DeliveryProgress>,
  events: readonly DeliveriesEvent[],
): void {
  for (const event of events) {
    const { deliveryId } = event.data;
    const next = evolveDelivery(deliveries[deliveryId], event);
    if (next === undefined) continue;
    // As the object literal of `evolve` defines it, an own property whatever the id (`__proto__` included).
    Object.defineProperty(deliveries, deliveryId, {
      value: next,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
}

/**
 * The delivery rules: one recorded start per attempt, one outcome per attempt (a delivery waiting for its next
 * attempt may end unsent, on its last), nothing after the end.
 */
export const deliveriesDecider: Decider<DeliveriesCommand, DeliveriesEvent, DeliveriesState> = {
  initialState: Object.freeze({ deliveries: Object.freeze({}) }),
  decide,
  evolve,
  evolveAll: (state, events) => foldDeliveries(state, events),
};
