/**
 * Opens every port the configuration names and starts the parts of the system the role runs. `main.ts`
 * listens on top of it; tests use it with a temporary `DATA_DIR` and port 0.
 */
import { join } from 'node:path';
import { openMarketData, type MarketData, type MarketPhase, type MarketProgress } from '../engine/market/marketData.ts';
import type { Config } from '../platform/config.ts';
import { openEventStore } from '../platform/eventstore/index.ts';
import type { EventStore } from '../platform/eventstore/port.ts';
import { componentLogger, type Logger } from '../platform/logger.ts';
import type { ReadModelStore } from '../platform/readmodels/port.ts';
import { connectRedis } from '../platform/redis.ts';
import { RedisReadModelStore } from '../platform/readmodels/redis.ts';
import { openSqliteReadModelStore } from '../platform/readmodels/sqlite.ts';
import { RedisSessionStore } from '../platform/sessions/redis.ts';
import type { SessionStore } from '../platform/sessions/port.ts';
import { openSqliteSessionStore } from '../platform/sessions/sqlite.ts';
import { checkpointSync, startProjections, type RunningProjections } from '../projections/index.ts';
import type { AppDeps } from './app.ts';
import { cacheSessions } from './auth/sessionCache.ts';
import { cacheReadModels } from './readModelCache.ts';
import { progressBar, renderProgress, type ProgressBar } from '../scripts/progress.ts';

/** File names inside `DATA_DIR`. */
export const DATA_FILES = Object.freeze({ readModels: 'readmodels.db', sessions: 'sessions.db' });

/** The opened ports and started parts. */
export interface System {
  /** The event log. */
  readonly events: EventStore;
  /** The read models. */
  readonly readModels: ReadModelStore;
  /** Sessions. */
  readonly sessions: SessionStore;
  /** The projections, when this process runs them. */
  readonly projections: RunningProjections | null;
  /** The market data (built on first start, reused after). */
  readonly market: MarketData;
  /** What the gateway needs. */
  readonly appDeps: AppDeps;
  /** Stops what was started and closes the ports. */
  close(): Promise<void>;
}

const PHASE_LABELS: Readonly<Record<MarketPhase, string>> = {
  build: 'building market data',
  analyse: 'analysing market data',
};

/**
 * How opening the market data shows its progress: a progress bar on a terminal (standard error), else a log
 * line at each tenth; nothing when logging is off.
 */
function marketProgress(config: Config, logger: Logger): MarketProgress | undefined {
  if (config.logLevel === 'silent') return undefined;
  if (process.stderr.isTTY === true) {
    let current: { phase: MarketPhase; bar: ProgressBar } | undefined;
    return (phase, done, total) => {
      if (current?.phase !== phase) current = { phase, bar: progressBar(PHASE_LABELS[phase]) };
      current.bar.update(done, total);
      if (done >= total) current.bar.finish();
    };
  }
  let last = { phase: '', tenth: -1 };
  return (phase, done, total) => {
    const tenth = total > 0 ? Math.floor((10 * done) / total) : 10;
    if (last.phase === phase && tenth <= last.tenth) return;
    last = { phase, tenth };
    logger.info({ phase, done, total }, renderProgress(PHASE_LABELS[phase], done, total));
  };
}

/** Opens the ports and starts the projections (roles `all` and `projections`). */
export async function openSystem(config: Config, logger: Logger): Promise<System> {
  // Built on first start (seconds), reused after; opened first so that a failure leaves nothing else open.
  const marketLogger = componentLogger(logger, 'market');
  const market = openMarketData({
    dataDir: config.dataDir,
    seed: config.marketSeed,
    logger: marketLogger,
    onProgress: marketProgress(config, marketLogger),
  });
  const events = await openEventStore(config);
  const redis = config.redisUrl
    ? await connectRedis(config.redisUrl, (error) => logger.error({ err: error }, 'redis connection error'))
    : null;
  const storedReadModels: ReadModelStore = redis
    ? new RedisReadModelStore(redis, undefined, false)
    : openSqliteReadModelStore({ file: join(config.dataDir, DATA_FILES.readModels) });
  // Every authenticated request looks its session up: a one-second cache keeps that off the store.
  const sessions: SessionStore = cacheSessions(
    redis
      ? new RedisSessionStore(redis, undefined, false)
      : openSqliteSessionStore(join(config.dataDir, DATA_FILES.sessions)),
  );
  const runsProjections = config.role === 'all' || config.role === 'projections';
  // A process running the projections commits every document it serves, so it can keep them in memory.
  const readModels = runsProjections ? cacheReadModels(storedReadModels) : storedReadModels;
  const projections = runsProjections
    ? await startProjections(events, readModels, undefined, {
        onError: (name, error) => logger.error({ err: error, projection: name }, 'projection stopped'),
      })
    : null;
  if (projections) await projections.caughtUp;
  const appDeps: AppDeps = {
    logger,
    events,
    readModels,
    sessions,
    symbols: market,
    market,
    readModelSync: projections ?? checkpointSync(readModels),
  };
  return {
    events,
    readModels,
    sessions,
    projections,
    market,
    appDeps,
    close: async () => {
      await projections?.stop();
      await events.close();
      await readModels.close();
      await sessions.close();
      if (redis?.isOpen) await redis.quit();
      market.close();
    },
  };
}
