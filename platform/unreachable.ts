/**
 * Whether a failure came from a shared store being out of reach for a moment (Redis, EventStoreDB), which a
 * caller answers as unavailable and may retry, rather than from the request or the code.
 */
import { isEventStoreUnreachable } from './eventstore/esdb.ts';
import { isRedisUnreachable } from './redis.ts';

/** Whether `error` says a shared store (Redis, EventStoreDB) could not be reached or did not answer in time. */
export function isStoreUnreachable(error: unknown): boolean {
  return isRedisUnreachable(error) || isEventStoreUnreachable(error);
}
