/**
 * Runs one command against one stream: read, fold, decide, append with the revision decided on. Conflicts
 * are retried by re-reading and re-deciding; a retried command (same command id) appends nothing and
 * answers what it answered the first time. Every appended event is hash-chained to the previous event of
 * its stream (`platform/audit/hashChain.ts`).
 *
 * The state a stream was folded to is kept (for the most recently used streams of each store), and moved on
 * past each command's own events once appended, so the next command on it reads and folds only the events
 * appended since by any other writer, plus the last one kept (read again to check it is still the stream's):
 * a user's 500th alert costs what the first did, instead of reading and folding the 499 before it again. A store
 * that tells a stream's revision (`streamRevision`, the SQLite log) is asked that instead, and the stream is read
 * only when something was appended since.
 */
import { fold, type CommandMeta, type Decider, type DomainEvent } from '../domain/decider.ts';
import { eventIdFor } from '../domain/ids.ts';
import { chainKeyOf } from './audit/chainKey.ts';
import { chainEvents } from './audit/hashChain.ts';
import {
  StreamNotFoundError,
  WrongExpectedRevisionError,
  isSystemEventType,
  type AppendResult,
  type EventData,
  type EventMetadata,
  type EventStore,
  type LogPosition,
  type RecordedEvent,
} from './eventstore/port.ts';

/** Options of {@link handleCommand}. */
export interface HandleCommandOptions {
  /** How many times a concurrency conflict is retried before its error is thrown (default 3). */
  readonly maxRetries?: number;
}

/** What a handled command answers. */
export interface CommandOutcome<E, S> {
  /** The stream's state right after the command's events (or as read, when it decided none). */
  readonly state: S;
  /** The events the command produced: just appended, or found in the stream when it was a retry. */
  readonly events: readonly E[];
  /** The stream's revision that `state` reflects, or `no_stream` when the stream still has no events. */
  readonly revision: number | 'no_stream';
  /** The log position that `state` reflects (for read-your-writes); absent when the stream has no events. */
  readonly position?: LogPosition;
  /** Whether the command had already been recorded, so nothing was decided or appended this time. */
  readonly replayed: boolean;
}

const DEFAULT_MAX_RETRIES = 3;

/** A command id (idempotency key) already recorded for another request: the new one is refused, not replayed. */
export class IdempotencyKeyReusedError extends Error {
  override readonly name = 'IdempotencyKeyReusedError';
  constructor(readonly eventId: string) {
    super(`the command of event ${eventId} was recorded for another request`);
  }
}

async function readWholeStream(store: EventStore, stream: string): Promise<RecordedEvent[]> {
  try {
    return await store.readStream(stream);
  } catch (error) {
    if (error instanceof StreamNotFoundError) return [];
    throw error;
  }
}

/** What a memo keeps of the last event it folded: read from the store, or just appended by this process. */
type StreamEnd = Pick<RecordedEvent, 'id' | 'revision' | 'position' | 'metadata'>;

/**
 * What {@link handleCommand} keeps of a stream it read or appended to: the state folded up to `last`, the last
 * event read or appended, and the ids of every event up to it (so a retried command is still recognised), or, for
 * a stream of more than {@link MEMO_IDS_LIMIT} events on a store that can tell (`EventStore.hasEvent`), none.
 */
interface StreamMemo {
  /** The fold it was made with: `evolve` and `initialState` of the decider (compared by identity). */
  readonly evolve: unknown;
  readonly initialState: unknown;
  readonly state: unknown;
  readonly last: StreamEnd;
  /**
   * Only ever grows (ids of events the stream holds), so memos that share it stay right; null once the store is
   * asked instead.
   */
  readonly ids: Set<string> | null;
}

/**
 * Most event ids a memo keeps for its stream where the store can tell whether a stream holds an event: past it
 * the store is asked (one lookup by id) instead, so a long-lived process does not keep an id for every event of
 * every busy stream (a user's triggers through a day, say). A store that cannot tell is never asked.
 */
export const MEMO_IDS_LIMIT = 1_024;

/** The ids a memo keeps once `added` are in: null past {@link MEMO_IDS_LIMIT} when the store can tell instead. */
function keptIds(
  store: EventStore,
  ids: Set<string> | null,
  added: readonly { readonly id: string }[],
): Set<string> | null {
  if (ids === null) return null;
  for (const event of added) ids.add(event.id);
  return ids.size > MEMO_IDS_LIMIT && store.hasEvent !== undefined ? null : ids;
}

/** Whether the memo's stream holds the event `id` up to the memo's end (beyond it too, when the store is asked). */
function holds(store: EventStore, stream: string, memo: StreamMemo, id: string): boolean | Promise<boolean> {
  return memo.ids === null ? store.hasEvent!(stream, id) : memo.ids.has(id);
}

/** Streams whose folded state is kept, per store; the least recently used go first. */
export const STREAM_MEMO_LIMIT = 1_000;

const memos = new WeakMap<EventStore, Map<string, StreamMemo>>();

function memosOf(store: EventStore): Map<string, StreamMemo> {
  let streams = memos.get(store);
  if (!streams) memos.set(store, (streams = new Map<string, StreamMemo>()));
  return streams;
}

/** A decider's fold step, as a memo records it (compared by identity, never called from there). */
function evolveOf(decider: Decider<unknown, never, unknown>): unknown {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- only compared by identity
  return decider.evolve;
}

/** Whether a memo was folded with this decider's `evolve` and initial state. */
function foldedWith(memo: StreamMemo, decider: Decider<unknown, never, unknown>): boolean {
  return memo.evolve === evolveOf(decider) && memo.initialState === decider.initialState;
}

function remember(store: EventStore, stream: string, memo: StreamMemo): void {
  const streams = memosOf(store);
  streams.delete(stream);
  streams.set(stream, memo);
  if (streams.size > STREAM_MEMO_LIMIT) streams.delete(streams.keys().next().value!);
}

/**
 * The stream as far as a kept memo and the events after it tell, or null when there is no memo, it no longer
 * matches the stream (its last event is not there), or the command may have been recorded already: then the
 * whole stream is read.
 */
async function readOnFromMemo<C, E extends DomainEvent, S>(
  store: EventStore,
  decider: Decider<C, E, S>,
  stream: string,
  firstId: string,
): Promise<{ state: S; last: StreamEnd } | null> {
  const streams = memosOf(store);
  const memo = streams.get(stream);
  if (!memo || !foldedWith(memo, decider as Decider<unknown, never, unknown>)) return null;
  if (await holds(store, stream, memo, firstId)) return null;
  // Nothing appended since (a stream's revisions are never reused): the memo is the stream, no event read.
  if (store.streamRevision !== undefined && (await store.streamRevision(stream)) === memo.last.revision) {
    remember(store, stream, memo);
    return { state: memo.state as S, last: memo.last };
  }
  let tail: RecordedEvent[];
  try {
    tail = await store.readStream(stream, { fromRevision: memo.last.revision });
  } catch (error) {
    if (error instanceof StreamNotFoundError) return null;
    throw error;
  }
  if (tail[0]?.id !== memo.last.id) {
    streams.delete(stream);
    return null;
  }
  const after = tail.slice(1);
  if (after.some((event) => event.id === firstId)) return null;
  const state = fold(
    decider,
    after.filter((event) => !isSystemEventType(event.type)).map((event) => toDomainEvent<E>(event)),
    memo.state as S,
  );
  const last = tail.at(-1)!;
  const ids = keptIds(store, memo.ids, after);
  remember(store, stream, after.length > 0 || ids !== memo.ids ? { ...memo, state, last, ids } : memo);
  return { state, last };
}

/**
 * After an append, the stream's memo moves on to the events just appended and the state after them, so the next
 * command reads only the last of them again (to check it is still the stream's end) instead of reading and
 * folding them. Only when the memo is still the one the command read from (or the stream was new): a command
 * that raced ahead and moved it further on is left as it is.
 */
function rememberAppended<C, E extends DomainEvent, S>(
  store: EventStore,
  decider: Decider<C, E, S>,
  stream: string,
  readEnd: StreamEnd | undefined,
  appendedEvents: readonly EventData[],
  appended: AppendResult,
  state: S,
): void {
  const memo = memosOf(store).get(stream);
  const folded = memo !== undefined && foldedWith(memo, decider as Decider<unknown, never, unknown>);
  if (readEnd === undefined ? memo !== undefined : !folded || memo.last.id !== readEnd.id) return;
  const end = appendedEvents.at(-1)!;
  const ids = keptIds(store, memo === undefined ? new Set<string>() : memo.ids, appendedEvents);
  remember(store, stream, {
    evolve: evolveOf(decider as Decider<unknown, never, unknown>),
    initialState: decider.initialState,
    state,
    last: { id: end.id, revision: appended.nextExpectedRevision, position: appended.position, metadata: end.metadata! },
    ids,
  });
}

function toDomainEvent<E extends DomainEvent>(recorded: RecordedEvent): E {
  // The stream holds only this decider's events, written by this handler from the same union.
  return { type: recorded.type, data: recorded.data } as E;
}

/**
 * The outcome of a command already in the stream: its events are the consecutive ids derived from its
 * stream and command id, and the answer is the state right after them, as it was the first time.
 */
function replayedOutcome<C, E extends DomainEvent, S>(
  decider: Decider<C, E, S>,
  recorded: readonly RecordedEvent[],
  idKey: string,
  requestHash: string | undefined,
): CommandOutcome<E, S> | null {
  const first = eventIdFor(idKey, 0);
  const start = recorded.findIndex((event) => event.id === first);
  if (start < 0) return null;
  const recordedHash = recorded[start]!.metadata.requestHash;
  if (requestHash !== undefined && recordedHash !== undefined && recordedHash !== requestHash) {
    throw new IdempotencyKeyReusedError(recorded[start]!.id);
  }
  let end = start + 1;
  while (end < recorded.length && recorded[end]!.id === eventIdFor(idKey, end - start)) end++;
  const last = recorded[end - 1]!;
  const history = recorded.slice(0, end).filter((event) => !isSystemEventType(event.type));
  return {
    state: fold(
      decider,
      history.map((event) => toDomainEvent<E>(event)),
    ),
    events: recorded.slice(start, end).map((event) => toDomainEvent<E>(event)),
    revision: last.revision,
    position: last.position,
    replayed: true,
  };
}

/** The metadata every event of a command carries. */
export function metadataOf(meta: CommandMeta): EventMetadata {
  return {
    userId: meta.userId,
    commandId: meta.commandId,
    correlationId: meta.correlationId ?? meta.commandId,
    causationId: meta.causationId ?? meta.commandId,
    actor: meta.actor,
    at: meta.at,
    ...(meta.requestHash !== undefined ? { requestHash: meta.requestHash } : {}),
  };
}

/**
 * Handles one command on one stream with optimistic concurrency and idempotency: a `DomainError` from the
 * decider propagates with nothing appended, and a conflict that outlasts `maxRetries` rethrows
 * {@link WrongExpectedRevisionError}.
 */
export async function handleCommand<C, E extends DomainEvent, S>(
  store: EventStore,
  decider: Decider<C, E, S>,
  stream: string,
  command: C,
  meta: CommandMeta,
  { maxRetries = DEFAULT_MAX_RETRIES }: HandleCommandOptions = {},
): Promise<CommandOutcome<E, S>> {
  if (!Number.isSafeInteger(maxRetries) || maxRetries < 0) {
    throw new RangeError(`maxRetries ${maxRetries} is not a whole number >= 0`);
  }
  const metadata = metadataOf(meta);
  // The stream is part of the key: two users (or two streams) may send the same command id.
  const idKey = `${stream}/${meta.commandId}`;
  const firstId = eventIdFor(idKey, 0);
  for (let attempt = 0; ; attempt++) {
    let read = await readOnFromMemo(store, decider, stream, firstId);
    if (!read) {
      const recorded = await readWholeStream(store, stream);
      const replayed = replayedOutcome(decider, recorded, idKey, meta.requestHash);
      if (replayed) return replayed;
      const history = recorded.filter((event) => !isSystemEventType(event.type));
      const folded = fold(
        decider,
        history.map((event) => toDomainEvent<E>(event)),
      );
      const end = recorded.at(-1);
      if (end) {
        const ids = keptIds(store, new Set<string>(), recorded);
        remember(store, stream, {
          evolve: evolveOf(decider as Decider<unknown, never, unknown>),
          initialState: decider.initialState,
          state: folded,
          last: end,
          ids,
        });
        read = { state: folded, last: end };
      }
    }
    const state = read?.state ?? decider.initialState;
    const events = decider.decide(command, state);
    const last = read?.last;
    const expectedRevision = last ? last.revision : 'no_stream';
    if (events.length === 0) {
      return { state, events, revision: expectedRevision, position: last?.position, replayed: false };
    }

    const toAppend: EventData[] = chainEvents(
      stream,
      last,
      events.map((event, i) => ({ id: eventIdFor(idKey, i), type: event.type, data: event.data, metadata })),
      chainKeyOf(store),
    );
    try {
      const appended = await store.appendToStream(stream, toAppend, { expectedRevision });
      const after = fold(decider, events, state);
      rememberAppended(store, decider, stream, last, toAppend, appended, after);
      return {
        state: after,
        events,
        revision: appended.nextExpectedRevision,
        position: appended.position,
        replayed: false,
      };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= maxRetries) throw error;
    }
  }
}
