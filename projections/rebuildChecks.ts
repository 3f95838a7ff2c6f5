/**
 * Rebuild checks while the process serves: the whole log replayed into scratch read models and compared with
 * the live ones (as `npm run rebuild` does) without writing to the live read models. One check runs at a time
 * per process; its replay yields to the event loop between pages, so the process keeps answering while it runs.
 */
import { rebuildNotStarted } from '../domain/contract/maint.ts';
import { randomUUID } from 'node:crypto';
import { DomainError } from '../domain/decider.ts';
import { formatPosition, type EventStore } from '../platform/eventstore/port.ts';
import type { ReadModelStore } from '../platform/readmodels/port.ts';
import { ALL_PROJECTIONS } from './index.ts';
import type { Projection } from './projection.ts';
import { compareReadModels, rebuildReadModels, type CollectionComparison, type DocumentDifference } from './rebuild.ts';

/** What the rebuild checks need. */
export interface RebuildCheckDeps {
  /** The event log. */
  readonly events: EventStore;
  /** The live read models, only read. */
  readonly readModels: ReadModelStore;
  /** Opens the scratch store a check replays into (the composition root's choice, e.g. an in-memory SQLite store). */
  readonly scratchReadModels: () => ReadModelStore;
  /** The projections checked (every projection when absent). */
  readonly projections?: readonly Projection<unknown>[];
  /** Events read per slice of a check's replay (1000 when absent). */
  readonly rebuildPageSize?: number;
}

/** Most differences a rebuild check keeps and answers; `differenceCount` tells how many there were. */
export const REBUILD_DIFFERENCES_KEPT = 100;

/** The states of a rebuild check. */
export type RebuildState = 'idle' | 'running' | 'done' | 'failed';

/** A rebuild check as it runs and when it has finished. */
export interface RebuildJob {
  readonly jobId: string;
  state: Exclude<RebuildState, 'idle'>;
  processed: number;
  total: number;
  differences: DocumentDifference[];
  differenceCount: number;
  collections: CollectionComparison[];
  head: string | null;
  eventsPerSec: number | null;
  error: string | null;
  readonly startedAt: string;
  finishedAt: string | null;
}

const pause = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The event store as the replay reads it: each page is read in a turn of the event loop of its own. */
function slicedEvents(events: EventStore): EventStore {
  return {
    appendToStream: (stream, data, options) => events.appendToStream(stream, data, options),
    readStream: (stream, options) => events.readStream(stream, options),
    readAll: async (options) => {
      await pause();
      return events.readAll(options);
    },
    subscribeToAll: (handlers, options) => events.subscribeToAll(handlers, options),
    headPosition: () => events.headPosition(),
    close: () => events.close(),
  };
}

/** A read-model store whose lists and commits each start in a turn of the event loop of their own. */
function slicedStore(store: ReadModelStore): ReadModelStore {
  return {
    get: (collection, key) => store.get(collection, key),
    list: async (collection, options) => {
      await pause();
      return store.list(collection, options);
    },
    readCheckpoint: (consumer) => store.readCheckpoint(consumer),
    listCheckpoints: () => store.listCheckpoints(),
    commit: async (consumer, checkpoint, writes) => {
      await pause();
      return store.commit(consumer, checkpoint, writes);
    },
    reset: (consumer, collections) => store.reset(consumer, collections),
    close: () => store.close(),
  };
}

/** Runs rebuild checks one at a time and remembers the last one. */
export class RebuildChecks {
  private job: RebuildJob | null = null;
  private running: Promise<void> = Promise.resolve();

  constructor(private readonly deps: RebuildCheckDeps) {}

  /** The check running or last run, or null when none ran in this process. */
  current(): Readonly<RebuildJob> | null {
    return this.job;
  }

  /** Starts a check; refuses (`conflict`) while one runs. */
  start(): Readonly<RebuildJob> {
    const running = this.job;
    if (running?.state === 'running') {
      throw new DomainError(
        'conflict',
        `a rebuild check is already running: job ${running.jobId}, started ${running.startedAt}, ${running.processed} of ${running.total} events replayed`,
      );
    }
    const job: RebuildJob = {
      jobId: randomUUID(),
      state: 'running',
      ...rebuildNotStarted(),
      startedAt: new Date().toISOString(),
    };
    this.job = job;
    this.running = this.run(job);
    return job;
  }

  /** Resolves once the check under way, if any, has finished (done or failed). */
  settled(): Promise<void> {
    return this.running;
  }

  private async run(job: RebuildJob): Promise<void> {
    const projections = this.deps.projections ?? ALL_PROJECTIONS;
    let scratch: ReadModelStore | undefined;
    try {
      await pause();
      scratch = this.deps.scratchReadModels();
      const result = await rebuildReadModels(slicedEvents(this.deps.events), slicedStore(scratch), projections, {
        pageSize: this.deps.rebuildPageSize ?? 1000,
        onProgress: ({ events, position, head }) => {
          job.processed = events;
          // On the embedded store a position counts the events before it; elsewhere the share read estimates it.
          job.total =
            position.commit > 0 ? Math.max(events, Math.round((events * head.commit) / position.commit)) : events;
        },
      });
      job.processed = result.events;
      job.total = result.events;
      job.head = formatPosition(result.head);
      job.eventsPerSec = result.eventsPerSec;
      const comparison = await compareReadModels(
        slicedStore(this.deps.readModels),
        slicedStore(scratch),
        result.head,
        projections,
      );
      job.collections = [...comparison.collections];
      job.differenceCount = comparison.differences.length;
      job.differences = comparison.differences.slice(0, REBUILD_DIFFERENCES_KEPT);
      job.state = 'done';
    } catch (error) {
      job.error = error instanceof Error ? error.message : String(error);
      job.state = 'failed';
    } finally {
      job.finishedAt = new Date().toISOString();
      await scratch?.close().catch(() => undefined);
    }
  }
}
