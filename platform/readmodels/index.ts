import { join } from 'node:path';
import type { Config } from '../config.ts';
import type { RedisClient } from '../redis.ts';
import type { ReadModelStore } from './port.ts';
import { RedisReadModelStore } from './redis.ts';
import { openSqliteReadModelStore } from './sqlite.ts';

/** File name of the embedded read models inside `DATA_DIR`. */
export const READ_MODELS_FILE = 'readmodels.db';

/**
 * Opens the configured read-model store: Redis when the process has a Redis connection (`REDIS_URL`, which
 * stays the caller's to close), else the SQLite file in `DATA_DIR`.
 */
export function openReadModelStore(config: Pick<Config, 'dataDir'>, redis: RedisClient | null): ReadModelStore {
  return redis
    ? new RedisReadModelStore(redis, undefined, false)
    : openSqliteReadModelStore({ file: join(config.dataDir, READ_MODELS_FILE) });
}
