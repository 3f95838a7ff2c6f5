import * as redis from 'redis';

/** Connects to Redis at `url`; errors after the first connect go to `onError` (the client reconnects itself). */
export async function connectRedis(url: string, onError: (error: Error) => void = () => undefined) {
  const client = redis.createClient({ url });
  client.on('error', onError);
  await client.connect();
  return client;
}

/** A connected node-redis client. */
export type RedisClient = Awaited<ReturnType<typeof connectRedis>>;

/** The client's errors for a server it cannot reach or that did not answer in time. */
const UNREACHABLE = [
  redis.ClientClosedError,
  redis.ClientOfflineError,
  redis.ConnectionTimeoutError,
  redis.ReconnectStrategyError,
  redis.SocketClosedUnexpectedlyError,
  redis.SocketTimeoutError,
  redis.TimeoutError,
];

/**
 * Whether a command failed because the Redis server was out of reach (down, restarting, or not answering within
 * the client's command timeout), not because the server refused it: the same command may succeed a moment later.
 */
export function isRedisUnreachable(error: unknown): boolean {
  return UNREACHABLE.some((type) => error instanceof type);
}
