import {
  ANY,
  BACKWARDS,
  DeadlineExceededError,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START as ESDB_START,
  NotLeaderError,
  STREAM_EXISTS,
  StreamNotFoundError as EsdbStreamNotFoundError,
  TimeoutError as EsdbTimeoutError,
  UnavailableError,
  WrongExpectedVersionError,
  eventTypeFilter,
  excludeSystemEvents,
  jsonEvent,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendExpectedRevision,
  type Filter,
  type JSONType,
  type Position,
  type ReadPosition,
  type ResolvedEvent,
} from '@eventstore/db-client';
import {
  EventStoreError,
  START,
  StreamNotFoundError,
  WrongExpectedRevisionError,
  isAfter,
  isSystemEventType,
  matchesFilter,
  type AppendOptions,
  type AppendResult,
  type EventData,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  type LogPosition,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
  type SubscriptionFilter,
  type SubscriptionHandlers,
} from './port.ts';

/** Largest page asked of `$all` in one read. */
const MAX_PAGE = 4096;

function toLogPosition(p: Position): LogPosition {
  return { commit: Number(p.commit), prepare: Number(p.prepare) };
}

function toEsdbPosition(p: LogPosition): Position {
  return { commit: BigInt(p.commit), prepare: BigInt(p.prepare) };
}

function isStart(p: LogPosition): boolean {
  return p.commit < 0 && p.prepare < 0;
}

function toEsdbExpected(expected: ExpectedRevision): AppendExpectedRevision {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      if (!Number.isSafeInteger(expected) || expected < 0) {
        throw new EventStoreError(`expected revision must be a non-negative integer, got ${expected}`);
      }
      return BigInt(expected);
  }
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function toRecorded(resolved: ResolvedEvent): RecordedEvent {
  const e = resolved.event;
  if (!e) throw new EventStoreError('EventStoreDB returned a read result without an event');
  const position =
    e.position ??
    (resolved.commitPosition === undefined
      ? undefined
      : { commit: resolved.commitPosition, prepare: resolved.commitPosition });
  if (!position)
    throw new EventStoreError('EventStoreDB returned an event without a position (server older than 22.6?)');
  const metadata = e.metadata;
  return {
    id: e.id,
    type: e.type,
    streamId: e.streamId,
    revision: Number(e.revision),
    position: toLogPosition(position),
    data: e.isJson ? e.data : Buffer.from(e.data).toString('utf8'),
    metadata:
      metadata && typeof metadata === 'object' && !(metadata instanceof Uint8Array) && !Array.isArray(metadata)
        ? (metadata as EventMetadata)
        : {},
    created: e.created.toISOString(),
  };
}

/**
 * Collects a read to its end. Leaving a client read early would leave its gRPC call unconsumed, and the client
 * then waits for it forever when disposed.
 */
async function readToEnd<T>(read: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of read) out.push(item);
  return out;
}

/**
 * Whether a call failed because EventStoreDB was out of reach (down, electing a leader, or not answering in time),
 * not because it refused the call: the same call may succeed a moment later.
 */
export function isEventStoreUnreachable(error: unknown): boolean {
  return (
    error instanceof UnavailableError ||
    error instanceof DeadlineExceededError ||
    error instanceof EsdbTimeoutError ||
    error instanceof NotLeaderError
  );
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * EventStore on EventStoreDB through the official gRPC client. Revisions and positions travel as bigints and
 * are mapped to numbers; system events (`$…` types) are filtered out of `readAll` and subscriptions.
 */
export class EsdbEventStore implements EventStore {
  private readonly subscriptions = new Set<EsdbSubscription>();
  private closed = false;

  /** Wraps a connected client; the store owns it and disposes of it on {@link EsdbEventStore.close}. */
  constructor(private readonly client: EventStoreDBClient) {}

  /** Appends with the server's concurrency check; a retry it recognises answers the original revision and position. */
  async appendToStream(
    stream: string,
    events: readonly EventData[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    this.assertOpen();
    if (!stream) throw new EventStoreError('stream name must not be empty');
    for (const e of events) {
      if (isSystemEventType(e.type)) throw new EventStoreError(`event type ${e.type} is reserved for the store`);
    }
    const expected = options.expectedRevision ?? 'any';
    const esdbExpected = toEsdbExpected(expected);
    if (events.length === 0) return this.emptyAppend(stream, expected);
    try {
      const result = await this.client.appendToStream(
        stream,
        events.map((e) =>
          jsonEvent({
            id: e.id,
            type: e.type,
            data: (e.data === undefined ? null : e.data) as JSONType,
            metadata: e.metadata ?? {},
          }),
        ),
        { expectedRevision: esdbExpected },
      );
      const revision = Number(result.nextExpectedRevision);
      // A retry the server recognised as already written may come back without a position.
      const position = result.position ? toLogPosition(result.position) : await this.positionOf(stream, revision);
      return { nextExpectedRevision: revision, position };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const actual = error.actualVersion;
        throw new WrongExpectedRevisionError(
          stream,
          expected,
          typeof actual === 'bigint' ? Number(actual) : 'no_stream',
        );
      }
      throw error;
    }
  }

  private async emptyAppend(stream: string, expected: ExpectedRevision): Promise<AppendResult> {
    const last = await this.lastEventOf(stream);
    const actual = last ? last.revision : 'no_stream';
    const ok =
      expected === 'any' ||
      (expected === 'no_stream' && actual === 'no_stream') ||
      (expected === 'stream_exists' && actual !== 'no_stream') ||
      expected === actual;
    if (!ok) throw new WrongExpectedRevisionError(stream, expected, actual);
    return last
      ? { nextExpectedRevision: last.revision, position: last.position }
      : { nextExpectedRevision: -1, position: await this.headPosition() };
  }

  private async lastEventOf(stream: string): Promise<RecordedEvent | undefined> {
    try {
      return (await this.readStream(stream, { direction: 'backwards', maxCount: 1 }))[0];
    } catch (error) {
      if (error instanceof StreamNotFoundError) return undefined;
      throw error;
    }
  }

  private async positionOf(stream: string, revision: number): Promise<LogPosition> {
    const [event] = await this.readStream(stream, { fromRevision: revision, maxCount: 1 });
    if (!event) throw new EventStoreError(`stream ${stream} has no event at revision ${revision}`);
    return event.position;
  }

  /** Reads a stream through the client, mapping a missing stream to {@link StreamNotFoundError}. */
  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const backwards = options.direction === 'backwards';
    const from = options.fromRevision ?? (backwards ? 'end' : 'start');
    const wanted = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    const out: RecordedEvent[] = [];
    try {
      const read = this.client.readStream(stream, {
        direction: backwards ? BACKWARDS : FORWARDS,
        fromRevision: from === 'start' ? ESDB_START : from === 'end' ? END : BigInt(from),
        // A count of at least one keeps the not-found answer for a missing stream.
        maxCount: Math.max(1, wanted),
      });
      for await (const resolved of read) {
        if (out.length < wanted) out.push(toRecorded(resolved));
      }
    } catch (error) {
      if (error instanceof EsdbStreamNotFoundError) throw new StreamNotFoundError(stream);
      throw error;
    }
    return out;
  }

  /** Reads `$all` page by page after `fromPosition`, leaving out system events until `maxCount` are found. */
  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const from = options.fromPosition ?? START;
    const wanted = options.maxCount ?? Number.POSITIVE_INFINITY;
    const out: RecordedEvent[] = [];
    let last = from;
    while (out.length < wanted) {
      // The client reads from a position inclusively; one extra slot covers the event at `last` itself.
      const pageSize = Math.min(MAX_PAGE, wanted - out.length + 1);
      const read = this.client.readAll({
        direction: FORWARDS,
        fromPosition: isStart(last) ? ESDB_START : toEsdbPosition(last),
        maxCount: pageSize,
      });
      let received = 0;
      for await (const resolved of read) {
        received++;
        const e = toRecorded(resolved);
        if (!isAfter(e.position, last)) continue;
        last = e.position;
        if (isSystemEventType(e.type) || out.length >= wanted) continue;
        out.push(e);
      }
      if (received < pageSize) break;
    }
    return out;
  }

  /** Subscribes to `$all`, filtering on the server where it can and checking every event here as well. */
  subscribeToAll(handlers: SubscriptionHandlers, options: SubscribeOptions = {}): Subscription {
    this.assertOpen();
    const subscription = new EsdbSubscription(this.client, handlers, options, () =>
      this.subscriptions.delete(subscription),
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  /** The position of the last record in `$all`, system events included. */
  async headPosition(): Promise<LogPosition> {
    this.assertOpen();
    const [last] = await readToEnd(this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 }));
    return last ? toRecorded(last).position : START;
  }

  /** Stops every subscription, then disposes of the client. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    await this.client.dispose();
  }

  private assertOpen(): void {
    if (this.closed) throw new EventStoreError('event store is closed');
  }
}

/** The server-side part of a port filter: one criterion the server can apply; the rest is checked here. */
function serverFilter(filter: SubscriptionFilter | undefined, checkpointReached: Filter['checkpointReached']): Filter {
  const base = { checkpointInterval: 1, checkpointReached };
  if (filter?.eventTypes) {
    const regex = filter.eventTypes.length ? `^(?:${filter.eventTypes.map(escapeRegex).join('|')})$` : '(?!)';
    return eventTypeFilter({ ...base, regex });
  }
  if (filter?.streamPrefixes) {
    return filter.streamPrefixes.length
      ? streamNameFilter({ ...base, prefixes: [...filter.streamPrefixes] })
      : streamNameFilter({ ...base, regex: '(?!)' });
  }
  return excludeSystemEvents(base);
}

/**
 * A catch-up subscription on the client's `$all` subscription. Events are read from the client stream one at a
 * time and each handler is awaited before the next read. Checkpoints and the caught-up signal reach the client
 * out of band, so each is pinned to the number of events received before it and runs after exactly those.
 */
class EsdbSubscription implements Subscription {
  readonly caughtUp: Promise<void>;
  private resolveCaughtUp!: () => void;
  private readonly from: LogPosition;
  private readonly filter: SubscriptionFilter | undefined;
  private last: LogPosition;
  private stopped = false;
  private caughtUpSignalled = false;
  private source: AllStreamSubscription | undefined;
  private received = 0;
  private queued = 0;
  private markers: Array<{ after: number; run: () => void | Promise<void> }> = [];
  private lane: Promise<void> = Promise.resolve();
  private wake: (() => void) | undefined;
  private readonly done: Promise<void>;

  constructor(
    private readonly client: EventStoreDBClient,
    private readonly handlers: SubscriptionHandlers,
    options: SubscribeOptions,
    private readonly onFinished: () => void,
  ) {
    this.caughtUp = new Promise<void>((resolve) => (this.resolveCaughtUp = resolve));
    this.from = options.fromPosition ?? START;
    this.last = this.from;
    this.filter = options.filter;
    this.done = this.run().catch((error: unknown) => this.fail(toError(error)));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.source?.unsubscribe();
    await this.done;
    await this.lane;
    this.onFinished();
  }

  private async run(): Promise<void> {
    const start = await this.serverStart();
    if (this.stopped) return;
    const source = this.client.subscribeToAll({
      fromPosition: start,
      filter: serverFilter(this.filter, (sub, position) =>
        this.mark(sub, () => this.checkpoint(toLogPosition(position))),
      ),
    });
    this.source = source;
    source.on('caughtUp', () => this.mark(source, () => this.signalCaughtUp()));
    let ended = false;
    let failure: Error | undefined;
    const onChange = (): void => {
      const w = this.wake;
      this.wake = undefined;
      w?.();
    };
    source.on('readable', onChange);
    source.on('end', () => {
      ended = true;
      onChange();
    });
    source.on('error', (error: Error) => {
      failure = error;
      onChange();
    });
    while (!this.stopped) {
      if (failure) throw failure;
      const resolved = source.read() as AllStreamResolvedEvent | null;
      if (resolved === null) {
        if (ended) throw new EventStoreError('EventStoreDB ended the subscription');
        await new Promise<void>((resolve) => (this.wake = resolve));
        continue;
      }
      this.received++;
      this.enqueue(() => this.deliver(resolved));
      this.queued = this.received;
      this.flushMarkers();
      await this.lane;
    }
  }

  /**
   * Where to ask the server to start. EventStoreDB starts a subscription after the first event at or past the
   * given position, which skips an event when the position (say, a checkpoint) falls between events; starting
   * from the last event before it, and dropping what is not after it here, is exact either way.
   */
  private async serverStart(): Promise<ReadPosition> {
    if (isStart(this.from)) return ESDB_START;
    const [before] = await readToEnd(
      this.client.readAll({ direction: BACKWARDS, fromPosition: toEsdbPosition(this.from), maxCount: 1 }),
    );
    return before?.event?.position ?? ESDB_START;
  }

  private mark(source: AllStreamSubscription, run: () => void | Promise<void>): void {
    this.markers.push({ after: this.received + source.readableLength, run });
    this.flushMarkers();
  }

  private flushMarkers(): void {
    while (this.markers.length > 0 && this.markers[0]!.after <= this.queued) {
      this.enqueue(this.markers.shift()!.run);
    }
  }

  private enqueue(task: () => void | Promise<void>): void {
    this.lane = this.lane.then(async () => {
      if (this.stopped) return;
      try {
        await task();
      } catch (error) {
        this.fail(toError(error));
      }
    });
  }

  private async deliver(resolved: AllStreamResolvedEvent): Promise<void> {
    const event = toRecorded(resolved);
    if (!isAfter(event.position, this.from)) return;
    if (isAfter(event.position, this.last)) this.last = event.position;
    if (!matchesFilter(event.streamId, event.type, this.filter)) return;
    await this.handlers.onEvent(event);
  }

  private async checkpoint(position: LogPosition): Promise<void> {
    if (!isAfter(position, this.last)) return;
    this.last = position;
    await this.handlers.onCheckpoint?.(position);
  }

  private async signalCaughtUp(): Promise<void> {
    if (this.caughtUpSignalled) return;
    this.caughtUpSignalled = true;
    await this.handlers.onCaughtUp?.();
    this.resolveCaughtUp();
  }

  private fail(error: Error): void {
    if (this.stopped) return;
    this.stopped = true;
    this.wake?.();
    void this.source?.unsubscribe();
    this.onFinished();
    this.handlers.onError?.(error);
  }
}

/** Connects to EventStoreDB with a connection string such as `esdb://localhost:2113?tls=false`. */
export function createEsdbEventStore(connectionString: string): EsdbEventStore {
  return new EsdbEventStore(EventStoreDBClient.connectionString(connectionString));
}
