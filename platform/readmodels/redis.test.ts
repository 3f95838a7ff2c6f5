import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { connectRedis, type RedisClient } from '../redis.ts';
import { startTestRedis, type TestRedis } from '../testing/redisServer.ts';
import { ReadModelStateLostError } from './port.ts';
import { readModelStoreContract } from './readModelStore.contract.ts';
import { RedisReadModelStore } from './redis.ts';

let redis: TestRedis | undefined;

readModelStoreContract('redis', async () => {
  redis = await startTestRedis();
  const url = redis.url;
  const client = await connectRedis(url);
  const namespace = `test:${randomUUID()}`;
  const store = new RedisReadModelStore(client, namespace);
  return {
    store,
    openAnother: async () => new RedisReadModelStore(await connectRedis(url), namespace),
    close: async () => {
      await store.close();
      await redis?.stop();
    },
  };
});

describe('Redis read-model store', function () {
  let server: TestRedis;
  let client: RedisClient;
  let admin: RedisClient;

  before(async function () {
    server = await startTestRedis();
    client = await connectRedis(server.url);
    admin = await connectRedis(server.url);
  });

  after(async function () {
    await client?.quit();
    await admin?.quit();
    await server?.stop();
  });

  it('refuses the next commit of every consumer it wrote once Redis lost its data (FLUSHALL)', async function () {
    const store = new RedisReadModelStore(client, `test:${randomUUID()}`, false);
    const at = (n: number) => ({ position: { commit: n, prepare: n }, version: 1 });
    await store.commit('projection:watchlist', at(4), [{ collection: 'watchlist', key: 'ada', doc: { n: 1 } }]);
    await store.commit('projection:alerts', at(4), []);
    await admin.flushAll();
    for (const consumer of ['projection:watchlist', 'projection:alerts']) {
      let error: unknown;
      try {
        await store.commit(consumer, at(5), [{ collection: 'watchlist', key: 'bob', doc: { n: 2 } }]);
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(ReadModelStateLostError);
      expect((error as Error).message).to.equal(
        `the read models of consumer "${consumer}" were lost or changed behind this store: expected checkpoint ` +
          '4/4 (version 1), found no checkpoint',
      );
    }
    expect(await admin.dbSize()).to.equal(0);
  });
});
