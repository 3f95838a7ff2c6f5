/**
 * Counters shared by the gateways: `rate-limiter-flexible` limiters kept in Redis when the system has Redis
 * (every gateway sees the same counts), in this process's memory otherwise. A Redis limiter falls back to an
 * in-memory one of the same limits while Redis cannot be reached, so an outage does not lift the limits.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisClient } from '../../platform/redis.ts';

/** One limiter: `points` per `durationS` seconds under each key. */
export interface LimiterSpec {
  /** Names the counters (the Redis key prefix). */
  readonly name: string;
  /** Points allowed per window. */
  readonly points: number;
  /** Window length in seconds. */
  readonly durationS: number;
}

/** Makes limiters on the system's store. */
export type LimiterFactory = (spec: LimiterSpec) => RateLimiterAbstract;

/** Limiters in this process's memory. */
export const memoryLimiters: LimiterFactory = ({ name, points, durationS }) =>
  new RateLimiterMemory({ keyPrefix: `sp-${name}`, points, duration: durationS });

/** Limiters in Redis, shared by every gateway on it. */
export function redisLimiters(redis: RedisClient): LimiterFactory {
  return (spec) =>
    new RateLimiterRedis({
      storeClient: redis,
      useRedisPackage: true,
      keyPrefix: `sp-${spec.name}`,
      points: spec.points,
      duration: spec.durationS,
      insuranceLimiter: memoryLimiters(spec),
    });
}

/** Seconds until a refused key may try again (at least 1). */
export function secondsOf(res: RateLimiterRes): number {
  return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
}

/**
 * Takes one point from `key`: answers 0, or the seconds to wait when the key has none left. Store failures
 * (without an insurance limiter) are rethrown.
 */
export async function take(limiter: RateLimiterAbstract, key: string): Promise<number> {
  try {
    await limiter.consume(key);
    return 0;
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return secondsOf(rejection);
    throw rejection;
  }
}
