import { expect } from 'chai';
import { connectRedis } from '../platform/redis.ts';
import { startTestRedis, type TestRedis } from '../platform/testing/redisServer.ts';
import { startTestGateway } from './testing/harness.ts';

describe('system on Redis (REDIS_URL)', function () {
  let redis: TestRedis;
  before(async function () {
    redis = await startTestRedis();
  });
  after(async function () {
    await redis.stop();
  });
  beforeEach(async function () {
    // Each test starts a new event log, so read models and checkpoints of an earlier one must go.
    const client = await connectRedis(redis.url);
    await client.flushAll();
    await client.quit();
  });

  it('keeps sessions and read models in Redis', async function () {
    const gw = await startTestGateway({ env: { REDIS_URL: redis.url } });
    const user = await gw.user();
    await user.post('/personalize/createwatchlist', ['NVDA']);
    expect((await user.get('/personalize/watchlist')).body).to.deep.equal(['NVDA']);
    await gw.close();
    const client = await connectRedis(redis.url);
    const keys = await client.keys('sp:*');
    expect(keys.some((k) => k.startsWith('sp:session:'))).to.equal(true);
    expect(await client.hGet('sp:rm:doc:watchlist', user.username)).to.include('NVDA');
    await client.quit();
  });

  it('serves a gateway without projections from read models another process keeps', async function () {
    const projections = await startTestGateway({ env: { REDIS_URL: redis.url, ROLE: 'projections' } });
    const gateway = await startTestGateway({
      dataDir: projections.dataDir,
      env: { REDIS_URL: redis.url, ROLE: 'gateway' },
    });
    expect(gateway.running.system.projections).to.equal(null);
    const user = await gateway.user();
    expect((await user.post('/personalize/createwatchlist', ['AAPL'])).body).to.deep.equal(['AAPL']);
    expect((await user.get('/personalize/watchlist')).body).to.deep.equal(['AAPL']);
    await gateway.close({ keepData: true });
    await projections.close();
  });
});
