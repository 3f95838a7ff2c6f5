import { join } from 'node:path';
import type { Config } from '../config.ts';
import type { RedisClient } from '../redis.ts';
import type { SessionStore } from './port.ts';
import { RedisSessionStore } from './redis.ts';
import { openSqliteSessionStore } from './sqlite.ts';

/** File name of the embedded sessions inside `DATA_DIR`. */
export const SESSIONS_FILE = 'sessions.db';

/**
 * Opens the configured session store: Redis when the process has a Redis connection (`REDIS_URL`, which
 * stays the caller's to close), else the SQLite file in `DATA_DIR`.
 */
export function openSessionStore(config: Pick<Config, 'dataDir'>, redis: RedisClient | null): SessionStore {
  return redis
    ? new RedisSessionStore(redis, undefined, false)
    : openSqliteSessionStore(join(config.dataDir, SESSIONS_FILE));
}
