/**
 * Maint routes, for every signed-in user: the status of the market data, the tick source and the projections,
 * and a rebuild check that replays the whole log into scratch read models and compares them with the live ones
 * (as `npm run rebuild` does) without writing to the live read models. One check runs at a time per process;
 * its replay yields to the event loop between pages, so the gateway keeps answering while it runs.
 */
import { maintApi } from '../../domain/contract/maint.ts';
import { randomUUID } from 'node:crypto';
import type { MarketData } from '../../engine/market/marketData.ts';
import {
  START,
  comparePositions,
  formatPosition,
  isAfter,
  type EventStore,
  type LogPosition,
} from '../../platform/eventstore/port.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { openSqliteReadModelStore } from '../../platform/readmodels/sqlite.ts';
import { ALL_PROJECTIONS } from '../../projections/index.ts';
import { projectionConsumer, type Projection } from '../../projections/projection.ts';
import {
  compareReadModels,
  rebuildReadModels,
  type CollectionComparison,
  type DocumentDifference,
} from '../../projections/rebuild.ts';
import { ApiError } from '../errors.ts';
import { defineRoute } from '../http/route.ts';
import type { HealthDeps } from './health.ts';

/** What the Maint routes need. */
export interface MaintDeps {
  /** The event log. */
  readonly events: EventStore;
  /** The live read models. */
  readonly readModels: ReadModelStore;
  /** The market data. */
  readonly market: Pick<MarketData, 'status' | 'quotes' | 'companies'>;
  /** The projections and the engine this process runs (none when absent). */
  readonly health?: HealthDeps | undefined;
  /** The projections checked (every projection when absent). */
  readonly projections?: readonly Projection<unknown>[];
  /** Opens the scratch store a rebuild check replays into (an in-memory SQLite store when absent). */
  readonly scratchReadModels?: () => ReadModelStore;
  /** Events read per slice of a rebuild check's replay (1000 when absent). */
  readonly rebuildPageSize?: number;
}

/** Most events counted per projection for `lagEvents`; a projection further behind shows this number. */
export const LAG_EVENTS_COUNTED = 10_000;

/** Most differences a rebuild check keeps and answers; `differenceCount` tells how many there were. */
export const REBUILD_DIFFERENCES_KEPT = 100;

/** The states of a rebuild check. */
export type RebuildState = 'idle' | 'running' | 'done' | 'failed';

/** One difference as the API answers it. */
export interface DifferenceAnswer {
  /** The collection (the projection's name). */
  readonly collection: string;
  /** The document key, or null when it is another user's (shown to auditors only). */
  readonly key: string | null;
  /** `changed`, `missing` from the live read models, or `extra` in them. */
  readonly kind: DocumentDifference['kind'];
  /** The first differing path, or `(document)`. */
  readonly path: string;
  /** The live document, when the key is shown. */
  readonly live?: unknown;
  /** The rebuilt document, when the key is shown. */
  readonly rebuilt?: unknown;
}

/** A rebuild check as it runs and when it has finished. */
interface RebuildJob {
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

  constructor(private readonly deps: MaintDeps) {}

  /** The check running or last run, or null when none ran in this process. */
  current(): Readonly<RebuildJob> | null {
    return this.job;
  }

  /** Starts a check; refuses with 409 while one runs. */
  start(): Readonly<RebuildJob> {
    const running = this.job;
    if (running?.state === 'running') {
      throw new ApiError(
        409,
        'conflict',
        `a rebuild check is already running: job ${running.jobId}, started ${running.startedAt}, ${running.processed} of ${running.total} events replayed`,
      );
    }
    const job: RebuildJob = {
      jobId: randomUUID(),
      state: 'running',
      processed: 0,
      total: 0,
      differences: [],
      differenceCount: 0,
      collections: [],
      head: null,
      eventsPerSec: null,
      error: null,
      startedAt: new Date().toISOString(),
      finishedAt: null,
    };
    this.job = job;
    void this.run(job);
    return job;
  }

  private async run(job: RebuildJob): Promise<void> {
    const projections = this.deps.projections ?? ALL_PROJECTIONS;
    let scratch: ReadModelStore | undefined;
    try {
      await pause();
      scratch = (this.deps.scratchReadModels ?? (() => openSqliteReadModelStore({ file: ':memory:' })))();
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

/** A difference as shown to a caller: another user's document key and contents only to auditors. */
export function differenceAnswer(difference: DocumentDifference, userId: string, auditor: boolean): DifferenceAnswer {
  const { collection, key, kind, path } = difference;
  if (!auditor && key !== userId) return { collection, key: null, kind, path };
  return { collection, key, kind, path, live: difference.live, rebuilt: difference.rebuilt };
}

/** The projection name of a projection consumer's name (`projection:watchlist` → `watchlist`). */
function projectionName(consumer: string): string {
  return consumer.startsWith('projection:') ? consumer.slice('projection:'.length) : consumer;
}

interface LagInput {
  readonly name: string;
  readonly checkpoint: LogPosition;
  readonly head: LogPosition;
  readonly behind: boolean;
  readonly lagMs: number;
}

/** The Maint routes. */
export function maintRoutes(deps: MaintDeps) {
  const projections = deps.projections ?? ALL_PROJECTIONS;
  const checks = new RebuildChecks(deps);

  /** Each projection's lag: from the runners of this process, else from the checkpoints in the shared store. */
  const lagInputs = async (head: LogPosition): Promise<LagInput[]> => {
    const running = deps.health?.projections;
    if (running) return running.lags();
    const checkpoints = await deps.readModels.listCheckpoints();
    return Promise.all(
      projections.map(async (projection) => {
        const name = projectionConsumer(projection).name;
        const checkpoint = checkpoints.get(name)?.position ?? START;
        const behind = isAfter(head, checkpoint);
        let lagMs = 0;
        if (behind) {
          const [next] = await deps.events.readAll({ fromPosition: checkpoint, maxCount: 1 });
          if (next) lagMs = Math.max(0, Date.now() - Date.parse(next.created));
        }
        return { name, checkpoint, head, behind, lagMs };
      }),
    );
  };

  const projectionLags = async (head: LogPosition) => {
    const lags = await lagInputs(head);
    const behind = lags.filter((lag) => lag.behind);
    // One read from the furthest-behind checkpoint counts the events each projection has still to apply.
    const from = behind.reduce<LogPosition | null>(
      (min, lag) => (min === null || comparePositions(lag.checkpoint, min) < 0 ? lag.checkpoint : min),
      null,
    );
    const tail = from === null ? [] : await deps.events.readAll({ fromPosition: from, maxCount: LAG_EVENTS_COUNTED });
    return lags.map((lag) => ({
      name: projectionName(lag.name),
      position: formatPosition(lag.checkpoint),
      behind: lag.behind,
      lagEvents: lag.behind
        ? tail.filter((event) => isAfter(event.position, lag.checkpoint) && !isAfter(event.position, lag.head)).length
        : 0,
      lagMs: lag.lagMs,
    }));
  };

  /** The time of the latest quote, once the engine has evaluated a tick. */
  const lastTick = (): string | null => {
    const engine = deps.health?.engine;
    if (!engine || engine.alerts.stats().ticks === 0) return null;
    let latest: string | null = null;
    for (const quote of deps.market.quotes.quotes(deps.market.companies.map((c) => c.symbol))) {
      if (latest === null || quote.ts > latest) latest = quote.ts;
    }
    return latest;
  };

  return [
    defineRoute({
      ...maintApi.getMaintStatus,
      handle: async () => {
        const status = deps.market.status();
        const engine = deps.health?.engine ?? null;
        const stats = engine?.alerts.stats();
        const head = await deps.events.headPosition();
        return {
          market: {
            asOf: status.asOf,
            symbols: status.symbols,
            bars: status.bars,
            lastTick: lastTick(),
            simulated: status.source !== 'imported',
            from: status.from,
            to: status.to,
            source: status.source,
            importedSymbols: [...status.importedSymbols],
          },
          ticks: {
            source: engine?.source ?? null,
            live: engine?.live() ?? false,
            ticksPerSec: stats?.ticksPerSec ?? 0,
            ticks: stats?.ticks ?? 0,
            armedAlerts: stats?.armed ?? 0,
          },
          projections: await projectionLags(head),
          events: { head: formatPosition(head) },
        };
      },
    }),
    defineRoute({
      ...maintApi.postMaintRebuild,
      handle: async () => {
        const job = checks.start();
        return Promise.resolve({ jobId: job.jobId, state: 'running' as const });
      },
    }),
    defineRoute({
      ...maintApi.getMaintRebuild,
      handle: async ({ session, userId }) => {
        const job = checks.current();
        if (!job) {
          return {
            jobId: null,
            state: 'idle' as const,
            processed: 0,
            total: 0,
            differences: [],
            differenceCount: 0,
            collections: [],
            head: null,
            eventsPerSec: null,
            error: null,
            startedAt: null,
            finishedAt: null,
          };
        }
        const auditor = session?.roles.includes('auditor') ?? false;
        return Promise.resolve({
          ...job,
          differences: job.differences.map((d) => differenceAnswer(d, userId, auditor)),
          collections: [...job.collections],
        });
      },
    }),
  ];
}
