import {
  START,
  comparePositions,
  isAfter,
  matchesFilter,
  type EventStore,
  type LogPosition,
  type RecordedEvent,
  type Subscription,
  type SubscriptionFilter,
} from '../eventstore/port.ts';
import {
  ReadModelStateLostError,
  type Checkpoint,
  type DocumentWrite,
  type ReadModelStore,
} from '../readmodels/port.ts';
import { repeat } from '../repeat.ts';

/** What a consumer sees of its documents while it applies events: reads see its own uncommitted writes. */
export interface ConsumerTx {
  /** The document as it stands, including writes not yet committed. */
  get<T>(collection: string, key: string): Promise<T | undefined>;
  /** Replaces (or creates) a document. */
  put(collection: string, key: string, doc: unknown): void;
  /** Deletes a document. */
  delete(collection: string, key: string): void;
}

/** A named, durable reader of the log: projections and the engine's alert index are consumers. */
export interface Consumer {
  /** Unique name; the checkpoint is stored under it. */
  readonly name: string;
  /** Version of the consumer's code; a change clears its collections and replays the whole log. */
  readonly version: number;
  /** The collections it owns (cleared on a version change or a rebuild). */
  readonly collections: readonly string[];
  /** Which events it wants; all non-system events when absent. */
  readonly filter?: SubscriptionFilter;
  /** Applies one event; its writes commit together with the checkpoint past this event. */
  handle(event: RecordedEvent, tx: ConsumerTx): void | Promise<void>;
  /**
   * Every document of its collections as it holds them in memory, for a consumer that holds them all: when the
   * store lost what it had committed ({@link ReadModelStateLostError}), they are written back whole with the
   * checkpoint and it carries on; without it, the consumer fails (to be started again from the log).
   */
  restore?(): readonly DocumentWrite[];
}

/** How far a consumer is behind the log. */
export interface ConsumerLag {
  /** Consumer name. */
  readonly name: string;
  /** The durable checkpoint (START when none). */
  readonly checkpoint: LogPosition;
  /** The last position of the log. */
  readonly head: LogPosition;
  /**
   * Whether the log holds events past the checkpoint that the consumer takes; events it skips leave nothing to
   * apply, so a consumer with only those past its checkpoint is not behind.
   */
  readonly behind: boolean;
  /** How many events past the checkpoint it still has to apply, among the next {@link LAG_SCAN_EVENTS} of the log. */
  readonly pending: number;
  /** Age in ms of the oldest event it still has to apply (0 when not behind). */
  readonly lagMs: number;
  /** Events applied since the runner started. */
  readonly applied: number;
}

/** Most events read past a checkpoint to find those a consumer still has to apply. */
export const LAG_SCAN_EVENTS = 10_000;

/**
 * How far a consumer whose durable checkpoint is `checkpoint` is behind the log: the events past it that its
 * `filter` takes, counted among the next {@link LAG_SCAN_EVENTS}. When none of those is its own but the log
 * goes on past them, it is behind by an unknown count, aged from the first event read.
 */
export async function measureLag(
  events: EventStore,
  consumer: Pick<Consumer, 'name' | 'filter'>,
  checkpoint: LogPosition,
  now: () => number = Date.now,
): Promise<Omit<ConsumerLag, 'applied'>> {
  const head = await events.headPosition();
  let pending = 0;
  let oldest: string | undefined;
  let unknown = false;
  if (isAfter(head, checkpoint)) {
    const tail = await events.readAll({ fromPosition: checkpoint, maxCount: LAG_SCAN_EVENTS });
    for (const event of tail) {
      if (isAfter(event.position, head)) break;
      if (!matchesFilter(event.streamId, event.type, consumer.filter)) continue;
      oldest ??= event.created;
      pending += 1;
    }
    const last = tail.at(-1);
    if (pending === 0 && tail.length === LAG_SCAN_EVENTS && last && isAfter(head, last.position)) {
      unknown = true;
      oldest = tail[0]!.created;
    }
  }
  return {
    name: consumer.name,
    checkpoint,
    head,
    behind: pending > 0 || unknown,
    pending,
    lagMs: oldest === undefined ? 0 : Math.max(0, now() - Date.parse(oldest)),
  };
}

/** Options of {@link startConsumer}. */
export interface RunnerOptions {
  /** Most events applied in one commit (default 1000). */
  readonly batchSize?: number;
  /** Called after each commit with the new checkpoint and the keys written, e.g. to push `readmodel:changed`. */
  readonly onCommit?: (position: LogPosition, writes: readonly DocumentWrite[]) => void;
  /** Called when the subscription or a handler fails; the runner stops. */
  readonly onError?: (error: Error) => void;
  /**
   * Milliseconds between checks that the store still holds the checkpoint last committed (default
   * {@link VERIFY_CHECKPOINT_MS}; 0 for none). A store that lost it (Redis restarted empty, flushed) is otherwise
   * noticed only by the next commit, which waits for an event of the consumer's: until then its lists are empty.
   */
  readonly verifyMs?: number;
}

/** Milliseconds between a runner's checks that the store still holds its checkpoint. */
export const VERIFY_CHECKPOINT_MS = 5000;

/** A running consumer. */
export interface ConsumerRunner {
  /** Resolves when the consumer has applied and committed everything in the log at its start; rejects if it fails. */
  readonly caughtUp: Promise<void>;
  /** Resolves once the committed checkpoint is at or past `position`; rejects once the consumer failed. */
  waitFor(position: LogPosition): Promise<void>;
  /** The durable checkpoint as last committed. */
  checkpoint(): LogPosition;
  /** How far behind the log it is. */
  lag(): Promise<ConsumerLag>;
  /**
   * Commits what is pending and stops; a last commit the store refuses because it lost the consumer's state
   * ({@link ReadModelStateLostError}) goes to `onError` instead of rejecting.
   */
  stop(): Promise<void>;
}

const key = (collection: string, docKey: string): string => `${collection}\u0000${docKey}`;

/** How long (ms) a checkpoint that only passes skipped events may wait before it is committed. */
export const IDLE_CHECKPOINT_MS = 100;

/**
 * The checkpoints held back while idle, of every consumer of this process: one timer commits them together, so
 * that they go in one group commit of the read-model store rather than one each (an append passes most
 * consumers, each of which would otherwise commit its checkpoint on a timer of its own).
 */
const idleFlushes = new Set<() => void>();
let idleFlushTimer: NodeJS.Timeout | undefined;

/** Runs `flush` with the other consumers' held checkpoints, at most `IDLE_CHECKPOINT_MS` from now. */
function holdIdle(flush: () => void): void {
  idleFlushes.add(flush);
  idleFlushTimer ??= setTimeout(() => {
    idleFlushTimer = undefined;
    const due = [...idleFlushes];
    idleFlushes.clear();
    for (const run of due) run();
  }, IDLE_CHECKPOINT_MS).unref();
}

/**
 * A runner's check that the store still holds its checkpoint, in two steps: before the store is listed it notes
 * what it last committed (or answers that it has nothing to check now), then it judges the listing.
 */
type CheckpointCheck = () => ((listed: ReadonlyMap<string, Checkpoint>) => Promise<void>) | undefined;

/**
 * The checks of the consumers of this process, by store and period: one timer per store and period lists the
 * store's checkpoints once for all of them, rather than each consumer listing them all on a timer of its own.
 */
const checkGroups = new WeakMap<ReadModelStore, Map<number, { checks: Set<CheckpointCheck>; stop: () => void }>>();

/** Runs `check` every `everyMs` with the others on `store`, until the answered function is called. */
function watchCheckpoint(store: ReadModelStore, everyMs: number, check: CheckpointCheck): () => void {
  let byPeriod = checkGroups.get(store);
  if (!byPeriod) {
    byPeriod = new Map();
    checkGroups.set(store, byPeriod);
  }
  let group = byPeriod.get(everyMs);
  if (!group) {
    const checks = new Set<CheckpointCheck>();
    const stop = repeat(everyMs, async () => {
      // Every check notes what it committed before the listing is asked for, so none judges an older listing.
      const judges = [...checks].map((begin) => begin()).filter((judge) => judge !== undefined);
      if (judges.length === 0) return;
      const listed = await store.listCheckpoints();
      await Promise.all(judges.map((judge) => judge(listed).catch(() => undefined)));
    });
    group = { checks, stop };
    byPeriod.set(everyMs, group);
  }
  const { checks } = group;
  checks.add(check);
  return () => {
    if (!checks.delete(check) || checks.size > 0) return;
    group.stop();
    if (byPeriod.get(everyMs) === group) byPeriod.delete(everyMs);
  };
}

/**
 * Starts a consumer from its durable checkpoint: it applies each event at most once to its documents,
 * because the documents and the checkpoint past the event are committed in one transaction. A consumer without
 * a checkpoint (or of another version) has its collections cleared and replays the whole log. It stops for good
 * at its first failure (`superviseConsumer` in `supervisor.ts` starts it again).
 */
export async function startConsumer(
  events: EventStore,
  readModels: ReadModelStore,
  consumer: Consumer,
  options: RunnerOptions = {},
): Promise<ConsumerRunner> {
  const batchSize = options.batchSize ?? 1000;
  let stored: Checkpoint | null = await readModels.readCheckpoint(consumer.name);
  // Without a checkpoint it replays the whole log: whatever its collections still hold (left by a store that
  // lost the checkpoint but not every document) goes first, as on a version change.
  if (!stored || stored.version !== consumer.version) {
    await readModels.reset(consumer.name, consumer.collections);
    stored = null;
  }
  let committed: LogPosition = stored?.position ?? START;
  let seen: LogPosition = committed;
  let applied = 0;
  let staged = new Map<string, DocumentWrite>();
  /** The writes of the commit under way: an event applied meanwhile reads them, not the store's older copies. */
  let committing: Map<string, DocumentWrite> | undefined;
  let pendingEvents = 0;
  let flushing: Promise<void> | undefined;
  let scheduled = false;
  let failed: Error | undefined;
  /** Set while a lost state is cleared ({@link verify}), which no commit may build on. */
  let clearing = false;
  const waiters: { position: LogPosition; resolve: () => void; reject: (error: Error) => void }[] = [];

  const tx: ConsumerTx = {
    get: async <T>(collection: string, docKey: string): Promise<T | undefined> => {
      const k = key(collection, docKey);
      const write = staged.get(k) ?? committing?.get(k);
      if (write) return (write.doc ?? undefined) as T | undefined;
      return readModels.get<T>(collection, docKey);
    },
    put: (collection, docKey, doc) => {
      staged.set(key(collection, docKey), { collection, key: docKey, doc });
    },
    delete: (collection, docKey) => {
      staged.set(key(collection, docKey), {
        collection,
        key: docKey,
        doc: null,
      });
    },
  };

  /** Commits, or, the store having lost the consumer's state, writes back what it holds when it can. */
  const commitOrRestore = async (checkpoint: Checkpoint, writes: readonly DocumentWrite[]): Promise<void> => {
    try {
      await readModels.commit(consumer.name, checkpoint, writes);
    } catch (error) {
      if (!(error instanceof ReadModelStateLostError) || !consumer.restore) throw error;
      await readModels.reset(consumer.name, consumer.collections);
      await readModels.commit(consumer.name, checkpoint, consumer.restore());
    }
  };

  const flush = (): Promise<void> => {
    // Stopped for good, or clearing a lost state: nothing more is committed.
    if (failed || clearing) return Promise.resolve();
    // Events applied while a commit is under way are committed by another one right after it.
    if (flushing) return flushing.then(flush);
    if (!isAfter(seen, committed)) return Promise.resolve();
    const position = seen;
    committing = staged;
    staged = new Map();
    const writes = [...committing.values()];
    pendingEvents = 0;
    flushing = commitOrRestore({ position, version: consumer.version }, writes)
      .then(() => {
        committed = position;
        options.onCommit?.(position, writes);
        for (let i = waiters.length - 1; i >= 0; i--) {
          if (comparePositions(committed, waiters[i]!.position) >= 0) waiters.splice(i, 1)[0]!.resolve();
        }
      })
      .finally(() => {
        committing = undefined;
        flushing = undefined;
      });
    return flushing;
  };

  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    idleFlushes.delete(idleFlush);
    setImmediate(() => {
      scheduled = false;
      flush().catch(fail);
    });
  };

  // A checkpoint past events this consumer skips changes none of its documents and nobody waits for it:
  // it is committed a little later, together with whatever comes next and with the other consumers' held
  // checkpoints, instead of one commit per append.
  // Held while in the shared timer's set (`idleFlushes`), which the timer empties when it runs them.
  const idleFlush = (): void => {
    flush().catch(fail);
  };
  const scheduleIdle = (): void => {
    if (!scheduled) holdIdle(idleFlush);
  };

  // Set right after subscribing; a failure can only be reported once events flow.
  const running: { subscription?: Subscription } = {};
  let rejectFailed!: (error: Error) => void;
  const failure = new Promise<never>((_, reject) => (rejectFailed = reject));
  failure.catch(() => undefined);
  const fail = (error: unknown): void => {
    if (failed) return;
    failed = error instanceof Error ? error : new Error(String(error));
    options.onError?.(failed);
    rejectFailed(failed);
    // Stopped for good: nobody waiting for a later position would ever be answered.
    for (const waiter of waiters.splice(0)) waiter.reject(failed);
    void running.subscription?.stop();
  };

  const subscription = events.subscribeToAll(
    {
      onEvent: async (event) => {
        if (flushing) await flushing;
        if (!isAfter(event.position, seen)) return;
        try {
          await consumer.handle(event, tx);
        } catch (error) {
          fail(error);
          throw error;
        }
        seen = event.position;
        applied += 1;
        pendingEvents += 1;
        if (pendingEvents >= batchSize) await flush();
        else schedule();
      },
      onCheckpoint: (position) => {
        if (isAfter(position, seen)) {
          seen = position;
          if (pendingEvents > 0 || staged.size > 0 || waiters.length > 0) schedule();
          else scheduleIdle();
        }
      },
      onError: fail,
    },
    consumer.filter ? { fromPosition: committed, filter: consumer.filter } : { fromPosition: committed },
  );
  running.subscription = subscription;

  /**
   * Fails the runner when the store no longer holds the checkpoint it last committed (gone, behind, of another
   * version): what remains of its collections is cleared first, so the start that follows (`superviseConsumer`)
   * finds no checkpoint and replays the log, rebuilding them, instead of waiting for a commit to be refused. The
   * checkpoints are listed from the store itself, past any cache, once for every consumer on it
   * ({@link watchCheckpoint}). A consumer that can write its documents back (`restore`, the alert engine's index)
   * does so at its next commit and is not checked.
   */
  const verify: CheckpointCheck = () => {
    const at = committed;
    if (failed || flushing || clearing || consumer.restore || !isAfter(at, START)) return undefined;
    return async (listed) => {
      const found = listed.get(consumer.name) ?? null;
      // A commit made or begun meanwhile changed what is stored: the next check reads it.
      if (failed || flushing || clearing || committed !== at) return;
      if (found && found.version === consumer.version && comparePositions(found.position, at) >= 0) return;
      clearing = true;
      const lost = new ReadModelStateLostError(consumer.name, { position: at, version: consumer.version }, found);
      try {
        await readModels.reset(consumer.name, consumer.collections);
      } finally {
        fail(lost);
      }
    };
  };
  const verifyMs = options.verifyMs ?? VERIFY_CHECKPOINT_MS;
  const unwatch = verifyMs > 0 ? watchCheckpoint(readModels, verifyMs, verify) : () => undefined;
  failure.catch(unwatch);

  const caughtUp = Promise.race([subscription.caughtUp.then(() => flush()), failure]);

  return {
    caughtUp,
    checkpoint: () => committed,
    waitFor: (position) => {
      if (comparePositions(committed, position) >= 0) return Promise.resolve();
      if (failed) return Promise.reject(failed);
      // Someone waits: a checkpoint held back for later is committed now.
      if (idleFlushes.has(idleFlush) && !isAfter(position, seen)) schedule();
      return new Promise<void>((resolve, reject) => waiters.push({ position, resolve, reject }));
    },
    lag: async () => ({ ...(await measureLag(events, consumer, committed)), applied }),
    stop: async () => {
      unwatch();
      idleFlushes.delete(idleFlush);
      await subscription.stop();
      try {
        if (flushing) await flushing;
        if (!failed) await flush();
      } catch (error) {
        // The store lost what the consumer had committed: there is nothing to commit on, and its next start
        // replays the log anyway. Reported, as any failure, rather than failing the stop.
        if (!(error instanceof ReadModelStateLostError)) throw error;
        fail(error);
      }
    },
  };
}
