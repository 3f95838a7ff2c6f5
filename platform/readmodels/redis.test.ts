import { randomUUID } from 'node:crypto';
import { connectRedis } from '../redis.ts';
import { startTestRedis, type TestRedis } from '../testing/redisServer.ts';
import { readModelStoreContract } from './readModelStore.contract.ts';
import { RedisReadModelStore } from './redis.ts';

let redis: TestRedis | undefined;

readModelStoreContract('redis', async () => {
  redis = await startTestRedis();
  const client = await connectRedis(redis.url);
  const store = new RedisReadModelStore(client, `test:${randomUUID()}`);
  return {
    store,
    close: async () => {
      await store.close();
      await redis?.stop();
    },
  };
});
