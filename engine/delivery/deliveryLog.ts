/**
 * Where the processor records attempts and outcomes: each user's `deliveries-<userId>` stream, decided by the
 * deliveries decider exactly as `handleCommand` would, but against the state this process already folded. A
 * command costs one append (plus a read of only the events it has not seen after a conflict), not a read of the
 * user's whole delivery history.
 *
 * Safe against other writers (a second processor, the test route): the append expects the revision the state
 * was folded at, so a stale state can never be decided on; a conflict reads the new events and decides again.
 * An empty decision on a state that may be stale is checked against the stream before it is believed.
 *
 * Its event ids are derived from the command id and this log's own writer id. Two processors recording the
 * same command therefore write different ids, so the one that comes second fails the revision check and decides
 * again on what the first recorded; with ids derived from the command alone, the store would take the second
 * append for a retry of the first and answer it as done, and both would send.
 */
import { randomUUID } from 'node:crypto';
import type { CommandMeta } from '../../domain/decider.ts';
import {
  DELIVERIES_CONCERN,
  deliveriesDecider,
  applyDeliveryEvents,
  foldDeliveries,
  type DeliveriesCommand,
  type DeliveriesEvent,
  type DeliveriesState,
} from '../../domain/deliveries/deliveries.ts';
import { eventIdFor, streamName } from '../../domain/ids.ts';
import { chainKeyOf } from '../../platform/audit/chainKey.ts';
import { chainEvents } from '../../platform/audit/hashChain.ts';
import { handleCommand, metadataOf } from '../../platform/commandHandler.ts';
import {
  StreamNotFoundError,
  WrongExpectedRevisionError,
  isSystemEventType,
  type EventMetadata,
  type EventStore,
  type RecordedEvent,
} from '../../platform/eventstore/port.ts';

/** Records deliveries commands; answers the events the command appended (none when it was already recorded). */
export interface DeliveryLog {
  record(userId: string, command: DeliveriesCommand, meta: CommandMeta): Promise<readonly DeliveriesEvent[]>;
  /** Users and deliveries whose state is held in memory (none for a log that holds nothing). */
  cached?(): { users: number; deliveries: number };
}

/** A log that reads the whole stream on every command (`handleCommand`): for one-off attempts such as tests. */
export function directDeliveryLog(events: EventStore): DeliveryLog {
  return {
    record: async (userId, command, meta) => {
      const outcome = await handleCommand(
        events,
        deliveriesDecider,
        streamName(DELIVERIES_CONCERN, userId),
        command,
        meta,
        { maxRetries: 10 },
      );
      return outcome.replayed ? [] : outcome.events;
    },
  };
}

/** Options of {@link cachedDeliveryLog}. */
export interface CachedDeliveryLogOptions {
  /** Users whose state is kept in memory; the least recently used beyond it are read again when next needed. */
  readonly maxUsers?: number;
  /**
   * Deliveries kept in memory, all users together (a user's state holds each delivery it ever had): the least
   * recently used users go first beyond it, though the one just used always stays.
   */
  readonly maxDeliveries?: number;
  /** Conflicts retried before the error is thrown. */
  readonly maxRetries?: number;
}

interface Folded {
  readonly state: DeliveriesState;
  /** How many deliveries the state holds. */
  readonly size: number;
  /** The stream's last event, which the next append expects and chains to. */
  readonly last: { readonly revision: number; readonly metadata: EventMetadata } | undefined;
}

/**
 * The state after the events just appended: a state of the log's own (folded here, held by no one else, its
 * deliveries not frozen as the decider's initial state's are) is updated in place, since a user's state holds
 * every delivery they ever had and a copy of it for each event grows with them (about 12 ms an event at 20,000
 * deliveries); any other is folded into a new one.
 */
function advance(state: DeliveriesState, events: readonly DeliveriesEvent[]): DeliveriesState {
  if (Object.isFrozen(state.deliveries)) return foldDeliveries(state, events);
  applyDeliveryEvents(state.deliveries, events);
  return state;
}

/** How many deliveries a state of `size` holds after `events`: those they name that it did not hold yet added. */
function sizeAfter(state: DeliveriesState, size: number, events: readonly DeliveriesEvent[]): number {
  const added = new Set<string>();
  for (const { data } of events) if (!Object.hasOwn(state.deliveries, data.deliveryId)) added.add(data.deliveryId);
  return size + added.size;
}

/** A log that keeps each user's folded state, with one command at a time per user stream. */
export function cachedDeliveryLog(events: EventStore, options: CachedDeliveryLogOptions = {}): DeliveryLog {
  const maxUsers = options.maxUsers ?? 10_000;
  const maxDeliveries = options.maxDeliveries ?? 1_000_000;
  const maxRetries = options.maxRetries ?? 10;
  const writer = randomUUID();
  const folded = new Map<string, Folded>();
  const tails = new Map<string, Promise<unknown>>();

  /** One command at a time per stream, in call order. */
  const serialize = <T>(stream: string, run: () => Promise<T>): Promise<T> => {
    const next = (tails.get(stream) ?? Promise.resolve()).then(run, run);
    const tail = next.catch(() => undefined);
    tails.set(stream, tail);
    void tail.then(() => {
      if (tails.get(stream) === tail) tails.delete(stream);
    });
    return next;
  };

  let deliveries = 0;
  const forget = (stream: string): void => {
    const entry = folded.get(stream);
    if (!entry) return;
    folded.delete(stream);
    deliveries -= entry.size;
  };
  // Least recently used first: `folded` keeps insertion order, and every use inserts again.
  const remember = (stream: string, entry: Folded): void => {
    forget(stream);
    folded.set(stream, entry);
    deliveries += entry.size;
    while (folded.size > 1 && (folded.size > maxUsers || deliveries > maxDeliveries)) {
      forget(folded.keys().next().value!);
    }
  };

  /** Folds the events after `entry` (all of them without one). */
  const catchUp = async (stream: string, entry: Folded | undefined): Promise<Folded> => {
    let recorded: RecordedEvent[];
    try {
      recorded = await events.readStream(stream, { fromRevision: entry?.last ? entry.last.revision + 1 : 'start' });
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
      recorded = [];
    }
    const before = entry?.state ?? deliveriesDecider.initialState;
    const domainEvents = recorded
      .filter((event) => !isSystemEventType(event.type))
      .map((event) => ({ type: event.type, data: event.data }) as DeliveriesEvent);
    const last = recorded.at(-1);
    return {
      state: foldDeliveries(before, domainEvents),
      size: sizeAfter(before, entry?.size ?? 0, domainEvents),
      last: last ? { revision: last.revision, metadata: last.metadata } : entry?.last,
    };
  };

  return {
    cached: () => ({ users: folded.size, deliveries }),
    record: (userId, command, meta) => {
      const stream = streamName(DELIVERIES_CONCERN, userId);
      return serialize(stream, async () => {
        const cached = folded.get(stream);
        let entry = cached ?? (await catchUp(stream, undefined));
        let fresh = cached === undefined;
        const idKey = `${stream}/${meta.commandId}/${writer}`;
        const metadata = metadataOf(meta);
        for (let attempt = 0; ; attempt++) {
          const decided = deliveriesDecider.decide(command, entry.state);
          if (decided.length === 0) {
            if (!fresh) {
              entry = await catchUp(stream, entry);
              fresh = true;
              continue;
            }
            remember(stream, entry);
            return decided;
          }
          const toAppend = chainEvents(
            stream,
            entry.last,
            decided.map((event, i) => ({ id: eventIdFor(idKey, i), type: event.type, data: event.data, metadata })),
            chainKeyOf(events),
          );
          try {
            const appended = await events.appendToStream(stream, toAppend, {
              expectedRevision: entry.last ? entry.last.revision : 'no_stream',
            });
            // Counted before the state moves on (in place, see `advance`).
            const size = sizeAfter(entry.state, entry.size, decided);
            remember(stream, {
              state: advance(entry.state, decided),
              size,
              last: { revision: appended.nextExpectedRevision, metadata: toAppend.at(-1)!.metadata! },
            });
            return decided;
          } catch (error) {
            if (!(error instanceof WrongExpectedRevisionError) || attempt >= maxRetries) {
              forget(stream);
              throw error;
            }
            entry = await catchUp(stream, entry);
            fresh = true;
          }
        }
      });
    },
  };
}
