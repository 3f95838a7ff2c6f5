import { randomUUID } from 'node:crypto';
import { connectRedis } from '../redis.ts';
import { startTestRedis, type TestRedis } from '../testing/redisServer.ts';
import { RedisSessionStore } from './redis.ts';
import { sessionStoreContract } from './sessionStore.contract.ts';

describe('Redis session store', function () {
  let redis: TestRedis;
  before(async function () {
    redis = await startTestRedis();
  });
  after(async function () {
    await redis.stop();
  });

  sessionStoreContract('redis', async () => {
    const store = new RedisSessionStore(await connectRedis(redis.url), `test:${randomUUID()}`);
    return { store, close: () => store.close() };
  });
});
