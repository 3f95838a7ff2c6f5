/**
 * The EventStore port: the one durable log of everything users did and everything the system decided
 * for them. Adapters: SQLite (embedded, `sqlite.ts`) and EventStoreDB (`esdb.ts`). Both pass
 * `eventStore.contract.ts`.
 */
import { LOG_POSITION_PATTERN } from '../../domain/contract/common.ts';

/**
 * A place in the global log. EventStoreDB positions are sparse `{commit, prepare}` pairs (byte offsets
 * of the transaction file); SQLite uses its global sequence for both. Compare with {@link comparePositions},
 * never add or subtract. Offsets stay below 2^53 (9 PB of log), so plain numbers are exact.
 */
export interface LogPosition {
  /** Commit offset of the transaction that wrote the event. */
  readonly commit: number;
  /** Prepare offset of the event itself. */
  readonly prepare: number;
}

/** The position before the first event: reading or subscribing from it starts at the beginning. */
export const START: LogPosition = Object.freeze({ commit: -1, prepare: -1 });

/** Orders two positions: negative when `a` is before `b`, 0 when equal, positive after. */
export function comparePositions(a: LogPosition, b: LogPosition): number {
  return a.commit !== b.commit ? a.commit - b.commit : a.prepare - b.prepare;
}

/** Whether position `a` comes strictly after `b`. */
export function isAfter(a: LogPosition, b: LogPosition): boolean {
  return comparePositions(a, b) > 0;
}

/** A position as a compact string (`commit/prepare`), for JSON documents, URLs and pushes. */
export function formatPosition(p: LogPosition): string {
  return `${p.commit}/${p.prepare}`;
}

/** Parses {@link formatPosition}'s output; returns `null` for anything else. */
export function parsePosition(text: string): LogPosition | null {
  const m = LOG_POSITION_PATTERN.exec(text);
  if (!m) return null;
  return { commit: Number(m[1]), prepare: Number(m[2]) };
}

/** JSON-compatible value carried as event data or metadata. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Metadata map of an event (see architecture: userId, commandId, correlationId, causationId, actor, at). */
export type EventMetadata = { [key: string]: JsonValue };

/** An event to append. `id` is a UUID; appending the same ids again is a no-op (idempotency). */
export interface EventData<D = unknown> {
  /** UUID of the event; deterministic ids make retried appends idempotent. */
  readonly id: string;
  /** PascalCase past-tense name, e.g. `SymbolAddedToWatchlist`. Types starting with `$` are reserved. */
  readonly type: string;
  /** The JSON payload. */
  readonly data: D;
  /** The JSON metadata. */
  readonly metadata?: EventMetadata;
}

/** An event as stored in the log. */
export interface RecordedEvent<D = unknown> {
  /** UUID given at append. */
  readonly id: string;
  /** Event type. */
  readonly type: string;
  /** The stream it belongs to. */
  readonly streamId: string;
  /** Its 0-based revision within that stream. */
  readonly revision: number;
  /** Its position in the global log. */
  readonly position: LogPosition;
  /** The JSON payload. */
  readonly data: D;
  /** The JSON metadata (empty object when none was given). */
  readonly metadata: EventMetadata;
  /** When the store recorded it (ISO 8601, UTC). */
  readonly created: string;
}

/**
 * What the writer expects of the stream: `any` (no check), `no_stream` (must not exist),
 * `stream_exists` (must exist), or the revision of its last event.
 */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | number;

/** Options of {@link EventStore.appendToStream}. */
export interface AppendOptions {
  /** Optimistic concurrency check; `any` when absent. */
  readonly expectedRevision?: ExpectedRevision;
}

/** What an append answers. */
export interface AppendResult {
  /** The revision of the stream's last event after the append (pass it as the next expected revision). */
  readonly nextExpectedRevision: number;
  /** The log position of the last appended event. */
  readonly position: LogPosition;
}

/** Options of {@link EventStore.readStream}. */
export interface ReadStreamOptions {
  /** `forwards` (default) or `backwards`. */
  readonly direction?: 'forwards' | 'backwards';
  /** First revision to read, inclusive; `start` (default forwards) or `end` (default backwards). */
  readonly fromRevision?: number | 'start' | 'end';
  /** Most events to return; all when absent. */
  readonly maxCount?: number;
}

/** Options of {@link EventStore.readAll}. */
export interface ReadAllOptions {
  /** Read events strictly after this position; {@link START} (default) reads from the beginning. */
  readonly fromPosition?: LogPosition;
  /** Most events to return; all when absent. */
  readonly maxCount?: number;
}

/** Options of {@link EventStore.chainHeads}. */
export interface ChainHeadsOptions {
  /** Scan the events strictly after this position. */
  readonly fromPosition: LogPosition;
  /** Most events to scan, in log order. */
  readonly maxCount: number;
}

/** The last event of one stream, among the events scanned, whose metadata carries a chain hash. */
export interface ChainHead {
  readonly streamId: string;
  readonly revision: number;
  /** Its `metadata.hash`. */
  readonly hash: string;
}

/** What {@link EventStore.chainHeads} scanned. */
export interface ChainHeadsPage {
  /** One per stream that has such an event among those scanned, in no particular order. */
  readonly heads: readonly ChainHead[];
  /** How many events were scanned: fewer than `maxCount` when the log ended. */
  readonly scanned: number;
  /** The position of the last event scanned (`fromPosition` when none was). */
  readonly through: LogPosition;
}

/** Which events a subscription delivers. System events (type starting with `$`) are never delivered. */
export interface SubscriptionFilter {
  /** Deliver only events of streams whose id starts with one of these prefixes. */
  readonly streamPrefixes?: readonly string[];
  /** Deliver only events of these types. */
  readonly eventTypes?: readonly string[];
}

/** Options of {@link EventStore.subscribeToAll}. */
export interface SubscribeOptions {
  /** Deliver events strictly after this position; {@link START} (default) from the beginning. */
  readonly fromPosition?: LogPosition;
  /** Which events to deliver; all non-system events when absent. */
  readonly filter?: SubscriptionFilter;
}

/** Callbacks of a subscription. Each is awaited before the next event is delivered. */
export interface SubscriptionHandlers {
  /** Called for each matching event, in log order. */
  onEvent(event: RecordedEvent): void | Promise<void>;
  /** Called once when the subscription has delivered every event that existed when it started. */
  onCaughtUp?(): void | Promise<void>;
  /**
   * Called now and then with a position up to which all events were considered (including filtered-out
   * ones), so a consumer can store progress although nothing matched.
   */
  onCheckpoint?(position: LogPosition): void | Promise<void>;
  /** Called when the subscription fails and stops; not called after {@link Subscription.stop}. */
  onError?(error: Error): void;
}

/** A running catch-up subscription. */
export interface Subscription {
  /** Resolves once the subscription has caught up with the log (after `onCaughtUp` returned). */
  readonly caughtUp: Promise<void>;
  /** Stops delivery; resolves when no handler runs any more. */
  stop(): Promise<void>;
}

/** The durable, append-only event log. */
export interface EventStore {
  /**
   * Appends events atomically to one stream, checking `expectedRevision`.
   * Retrying with the same event ids appends nothing and answers the original result.
   * @throws WrongExpectedRevisionError when the stream is not where the writer expected.
   */
  appendToStream(stream: string, events: readonly EventData[], options?: AppendOptions): Promise<AppendResult>;

  /**
   * Reads a stream's events in revision order (or reverse).
   * @throws StreamNotFoundError when the stream has no events.
   */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;

  /** Reads the global log forwards after a position, system events excluded. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;

  /**
   * Optional: the heads of the hash-chained streams among the events after a position (each stream's last event
   * with a `metadata.hash`, with that hash), read without parsing the events: what a seal records. A store
   * without it is read with {@link readAll}, which gives the same heads.
   */
  chainHeads?(options: ChainHeadsOptions): Promise<ChainHeadsPage>;

  /**
   * Optional: whether `stream` holds an event of id `eventId`, by a lookup of the id. A command handler asks it
   * instead of keeping the id of every event of a long stream (see `platform/commandHandler.ts`); without it, the
   * handler keeps them all.
   */
  hasEvent?(stream: string, eventId: string): Promise<boolean>;

  /**
   * Optional: the revision of the stream's last event (`no_stream` when it has none), looked up alone, no event
   * read. A command handler that kept a stream's state asks it to learn that nothing was appended since, instead
   * of reading the last event again (see `platform/commandHandler.ts`); without it, the handler reads it.
   */
  streamRevision?(stream: string): Promise<number | 'no_stream'>;

  /** Catch-up subscription to the global log: history after `fromPosition`, then live events. */
  subscribeToAll(handlers: SubscriptionHandlers, options?: SubscribeOptions): Subscription;

  /** The position of the last event in the log, or {@link START} when the log is empty. */
  headPosition(): Promise<LogPosition>;

  /** Releases connections and stops every subscription. */
  close(): Promise<void>;
}

/** Base of the typed errors of the port. */
export class EventStoreError extends Error {}

/** The stream was not at the revision the writer expected (optimistic concurrency conflict). */
export class WrongExpectedRevisionError extends EventStoreError {
  override readonly name = 'WrongExpectedRevisionError';
  constructor(
    /** The stream written to. */
    readonly stream: string,
    /** What the writer expected. */
    readonly expected: ExpectedRevision,
    /** The stream's actual last revision, or `no_stream`. */
    readonly actual: number | 'no_stream',
  ) {
    super(`stream ${stream}: expected revision ${String(expected)}, actual ${String(actual)}`);
  }
}

/** The stream read does not exist. */
export class StreamNotFoundError extends EventStoreError {
  override readonly name = 'StreamNotFoundError';
  constructor(
    /** The stream read. */
    readonly stream: string,
  ) {
    super(`stream ${stream} not found`);
  }
}

/** Whether an event type is a system event of the store (EventStoreDB's `$…` types). */
export function isSystemEventType(type: string): boolean {
  return type.startsWith('$');
}

/** {@link matchesFilter} for one filter, made once for a subscription that tests every event of the log. */
export function filterMatcher(filter: SubscriptionFilter | undefined): (streamId: string, type: string) => boolean {
  const types = filter?.eventTypes && new Set(filter.eventTypes);
  const prefixes = filter?.streamPrefixes;
  return (streamId, type) =>
    !isSystemEventType(type) &&
    (!types || types.has(type)) &&
    (!prefixes || prefixes.some((p) => streamId.startsWith(p)));
}

/** Whether an event passes a subscription filter (system events never do). */
export function matchesFilter(streamId: string, type: string, filter: SubscriptionFilter | undefined): boolean {
  if (isSystemEventType(type)) return false;
  if (filter?.eventTypes && !filter.eventTypes.includes(type)) return false;
  if (filter?.streamPrefixes && !filter.streamPrefixes.some((p) => streamId.startsWith(p))) return false;
  return true;
}
