/**
 * Maint routes, for every signed-in user: the status of the market data, the tick source and the projections,
 * and a rebuild check that replays the whole log into scratch read models and compares them with the live ones
 * (as `npm run rebuild` does) without writing to the live read models. One check runs at a time per process;
 * its replay yields to the event loop between pages, so the gateway keeps answering while it runs.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { MarketData } from '../../engine/market/marketData.ts';
import { START, formatPosition, type EventStore } from '../../platform/eventstore/port.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { openSqliteReadModelStore } from '../../platform/readmodels/sqlite.ts';
import { measureLag, type ConsumerLag } from '../../platform/subscriptions/runner.ts';
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

const marketStatus = z.object({
  asOf: z.string(),
  symbols: z.number(),
  bars: z.number(),
  lastTick: z.string().nullable(),
  simulated: z.boolean(),
  from: z.string().nullable(),
  to: z.string().nullable(),
  source: z.enum(['simulated', 'imported', 'mixed']),
  importedSymbols: z.array(z.string()),
});

const statusAnswer = z.object({
  market: marketStatus,
  ticks: z.object({
    source: z.string().nullable(),
    live: z.boolean(),
    ticksPerSec: z.number(),
    ticks: z.number(),
    armedAlerts: z.number(),
  }),
  projections: z.array(
    z.object({
      name: z.string(),
      position: z.string(),
      behind: z.boolean(),
      lagEvents: z.number(),
      lagMs: z.number(),
    }),
  ),
  events: z.object({ head: z.string() }),
});

const differenceSchema = z.object({
  collection: z.string(),
  key: z.string().nullable(),
  kind: z.enum(['changed', 'missing', 'extra']),
  path: z.string(),
  live: z.unknown().optional(),
  rebuilt: z.unknown().optional(),
});

const rebuildAnswer = z.object({
  jobId: z.string().nullable(),
  state: z.enum(['idle', 'running', 'done', 'failed']),
  processed: z.number(),
  total: z.number(),
  differences: z.array(differenceSchema),
  differenceCount: z.number(),
  collections: z.array(
    z.object({
      collection: z.string(),
      compared: z.number(),
      differences: z.number(),
      skipped: z.number(),
      liveCheckpoint: z.string().nullable(),
      liveBehind: z.boolean(),
    }),
  ),
  head: z.string().nullable(),
  eventsPerSec: z.number().nullable(),
  error: z.string().nullable(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});

/** The Maint routes. */
export function maintRoutes(deps: MaintDeps) {
  const projections = deps.projections ?? ALL_PROJECTIONS;
  const checks = new RebuildChecks(deps);

  /** Each projection's lag: from the runners of this process, else from the checkpoints in the shared store. */
  const projectionLags = async () => {
    const running = deps.health?.projections;
    let lags: readonly Omit<ConsumerLag, 'applied'>[];
    if (running) lags = await running.lags();
    else {
      const checkpoints = await deps.readModels.listCheckpoints();
      lags = await Promise.all(
        projections.map((projection) => {
          const consumer = projectionConsumer(projection);
          return measureLag(deps.events, consumer, checkpoints.get(consumer.name)?.position ?? START);
        }),
      );
    }
    return lags.map((lag) => ({
      name: projectionName(lag.name),
      position: formatPosition(lag.checkpoint),
      behind: lag.behind,
      lagEvents: lag.pending,
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
      method: 'GET',
      path: '/api/maint/status',
      summary:
        'Operations status: market data (as-of date, symbols, bars, last tick, simulated or imported), tick source and rate, each projection with its checkpoint and lag, and the head of the log',
      tag: 'maint',
      access: 'user',
      response: statusAnswer,
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
          projections: await projectionLags(),
          events: { head: formatPosition(head) },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/maint/rebuild',
      summary:
        'Start a rebuild check: the whole log replayed into scratch read models and compared with the live ones, which are only read; 409 while one runs',
      tag: 'maint',
      access: 'user',
      status: 202,
      response: z.object({ jobId: z.string(), state: z.literal('running') }),
      handle: async () => {
        const job = checks.start();
        return Promise.resolve({ jobId: job.jobId, state: 'running' as const });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/maint/rebuild',
      summary:
        "The rebuild check running or last run: state, events replayed of the total, and the documents that differ (another user's key and contents shown to auditors only)",
      tag: 'maint',
      access: 'user',
      response: rebuildAnswer,
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
