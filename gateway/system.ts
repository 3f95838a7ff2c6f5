/**
 * Opens every port the configuration names and starts the parts of the system the role runs. `main.ts`
 * listens on top of it; tests use it with a temporary `DATA_DIR` and port 0.
 */
import { join } from 'node:path';
import { universeBySymbol } from '../engine/marketdata/universe.ts';
import type { Config } from '../platform/config.ts';
import { openEventStore } from '../platform/eventstore/index.ts';
import type { EventStore } from '../platform/eventstore/port.ts';
import type { Logger } from '../platform/logger.ts';
import type { ReadModelStore } from '../platform/readmodels/port.ts';
import { connectRedis } from '../platform/redis.ts';
import { RedisReadModelStore } from '../platform/readmodels/redis.ts';
import { openSqliteReadModelStore } from '../platform/readmodels/sqlite.ts';
import { RedisSessionStore } from '../platform/sessions/redis.ts';
import type { SessionStore } from '../platform/sessions/port.ts';
import { openSqliteSessionStore } from '../platform/sessions/sqlite.ts';
import { checkpointSync, startProjections, type RunningProjections } from '../projections/index.ts';
import type { AppDeps } from './app.ts';

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
  /** What the gateway needs. */
  readonly appDeps: AppDeps;
  /** Stops what was started and closes the ports. */
  close(): Promise<void>;
}

/** Opens the ports and starts the projections (roles `all` and `projections`). */
export async function openSystem(config: Config, logger: Logger): Promise<System> {
  const events = await openEventStore(config);
  const redis = config.redisUrl
    ? await connectRedis(config.redisUrl, (error) => logger.error({ err: error }, 'redis connection error'))
    : null;
  const readModels: ReadModelStore = redis
    ? new RedisReadModelStore(redis, undefined, false)
    : openSqliteReadModelStore({ file: join(config.dataDir, DATA_FILES.readModels) });
  const sessions: SessionStore = redis
    ? new RedisSessionStore(redis, undefined, false)
    : openSqliteSessionStore(join(config.dataDir, DATA_FILES.sessions));
  const runsProjections = config.role === 'all' || config.role === 'projections';
  const projections = runsProjections
    ? await startProjections(events, readModels, undefined, {
        onError: (name, error) => logger.error({ err: error, projection: name }, 'projection stopped'),
      })
    : null;
  if (projections) await projections.caughtUp;
  const universe = universeBySymbol();
  const appDeps: AppDeps = {
    logger,
    events,
    readModels,
    sessions,
    symbols: { has: (symbol) => universe.has(symbol) },
    readModelSync: projections ?? checkpointSync(readModels),
  };
  return {
    events,
    readModels,
    sessions,
    projections,
    appDeps,
    close: async () => {
      await projections?.stop();
      await events.close();
      await readModels.close();
      await sessions.close();
      if (redis?.isOpen) await redis.quit();
    },
  };
}
