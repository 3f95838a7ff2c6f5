/**
 * Maint routes, for every signed-in user: the status of the market data, the tick source and the projections,
 * and the rebuild check of `projections/rebuildChecks.ts` (the whole log replayed into scratch read models and
 * compared with the live ones, which are only read): started, and its progress and differences read.
 */
import { maintApi, rebuildNotStarted } from '../../domain/contract/maint.ts';
import type { MarketData } from '../../engine/market/marketData.ts';
import { START, formatPosition, type EventStore } from '../../platform/eventstore/port.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { measureLag, type ConsumerLag } from '../../platform/subscriptions/runner.ts';
import { ALL_PROJECTIONS } from '../../projections/index.ts';
import { projectionConsumer, type Projection } from '../../projections/projection.ts';
import type { DocumentDifference } from '../../projections/rebuild.ts';
import type { RebuildChecks } from '../../projections/rebuildChecks.ts';
import { ApiError } from '../errors.ts';
import { defineRoute } from '../http/route.ts';
import { liveFeedOf, type HealthDeps } from './health.ts';
import { describeProviderHealth } from '../../engine/ticks/providerStream.ts';

/** The provider stream's health line, when the engine runs one. */
function providerHealthOf(engine: HealthDeps['engine']): string | null {
  const health = engine?.sourceHealth?.();
  return health ? describeProviderHealth(health) : null;
}

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
  /** The rebuild checks of this process; the rebuild routes answer 503 without them. */
  readonly rebuildChecks?: Pick<RebuildChecks, 'start' | 'current'> | undefined;
}

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

/** The rebuild checks of a process that runs none. */
const noRebuildChecks: Pick<RebuildChecks, 'start' | 'current'> = {
  start: () => {
    throw new ApiError(503, 'unavailable', 'rebuild checks are not run by this process');
  },
  current: () => null,
};

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

/** The Maint routes. */
export function maintRoutes(deps: MaintDeps) {
  const projections = deps.projections ?? ALL_PROJECTIONS;
  const checks = deps.rebuildChecks ?? noRebuildChecks;

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
            health: providerHealthOf(engine),
            feed: liveFeedOf(engine),
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
            ...rebuildNotStarted(),
            startedAt: null,
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
