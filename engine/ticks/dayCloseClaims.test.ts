import { expect } from 'chai';
import { connectRedis, type RedisClient } from '../../platform/redis.ts';
import { startTestRedis, type TestRedis } from '../../platform/testing/redisServer.ts';
import { redisDayCloseClaims } from './dayCloser.ts';

describe('day close claims on Redis', function () {
  let redis: TestRedis;
  let clients: RedisClient[];

  before(async function () {
    redis = await startTestRedis();
    clients = [await connectRedis(redis.url), await connectRedis(redis.url)];
  });

  after(async function () {
    for (const client of clients) await client.quit();
    await redis.stop();
  });

  it('lets exactly one of two engines claim a date, each date on its own, with an expiry', async function () {
    const [a, b] = clients.map((client) => redisDayCloseClaims(client, 'test:dayclose:'));
    const first = await Promise.all([a!.claim('2026-11-24'), b!.claim('2026-11-24')]);
    expect(first.filter(Boolean)).to.have.length(1);
    expect(await a!.claim('2026-11-24')).to.equal(false);
    expect(await b!.claim('2026-11-25')).to.equal(true);
    const ttl = await clients[0]!.ttl('test:dayclose:2026-11-24');
    expect(ttl)
      .to.be.greaterThan(86_400)
      .and.at.most(60 * 86_400);
  });

  it('lets a claim given back (its close not delivered) be won again, once', async function () {
    const [a, b] = clients.map((client) => redisDayCloseClaims(client, 'test:dayclose:'));
    expect(await a!.claim('2026-11-27')).to.equal(true);
    await a!.release('2026-11-27');
    const again = await Promise.all([a!.claim('2026-11-27'), b!.claim('2026-11-27')]);
    expect(again.filter(Boolean)).to.have.length(1);
    // Giving back a date never claimed does nothing.
    await b!.release('2026-12-01');
    expect(await clients[0]!.exists('test:dayclose:2026-12-01')).to.equal(0);
  });
});
