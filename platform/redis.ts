import { createClient } from 'redis';

/** Connects to Redis at `url`; errors after the first connect go to `onError` (the client reconnects itself). */
export async function connectRedis(url: string, onError: (error: Error) => void = () => undefined) {
  const client = createClient({ url });
  client.on('error', onError);
  await client.connect();
  return client;
}

/** A connected node-redis client. */
export type RedisClient = Awaited<ReturnType<typeof connectRedis>>;
