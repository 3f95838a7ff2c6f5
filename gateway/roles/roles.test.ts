import { expect } from 'chai';
import { ReadModelsInUseError, WriterLeaseLostError, writerLeaseKey } from '../../platform/readmodels/writerLease.ts';
import { connectRedis } from '../../platform/redis.ts';
import { startTestRedis, type TestRedis } from '../../platform/testing/redisServer.ts';
import { marketTemplate, startTestGateway } from '../testing/harness.ts';

const TOKEN = 'feed-token-0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };

async function until<T>(probe: () => Promise<T | undefined>, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('system on Redis (REDIS_URL)', function () {
  let redis: TestRedis;
  before(async function () {
    // The market is built once per test process; on a busy machine that outlasts a test's time.
    this.timeout(180_000);
    marketTemplate(42);
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

  it('lets a gateway publish feed ticks on the Redis tick bus, and serves their quotes', async function () {
    const projections = await startTestGateway({ env: { REDIS_URL: redis.url, ROLE: 'projections' } });
    const gateway = await startTestGateway({
      dataDir: projections.dataDir,
      env: { REDIS_URL: redis.url, ROLE: 'gateway', FEED_TOKEN: TOKEN },
    });
    try {
      const user = await gateway.user();
      const feed = await gateway.client().post('/api/feed/ticks', [{ symbol: 'AAPL', price: 123.45, size: 7 }], AUTH);
      expect(feed.status).to.equal(202, feed.text);
      const client = await connectRedis(redis.url);
      const entries = await client.sendCommand<[string, string[]][]>(['XRANGE', 'ticks', '-', '+']);
      await client.quit();
      expect(entries.map(([, fields]) => fields[1])).to.include('ticks');
      const quote = await until(async () => {
        const quotes = (await user.get('/api/quotes?symbols=AAPL')).body as { price: number }[];
        return quotes[0]?.price === 123.45 ? quotes[0] : undefined;
      });
      expect(quote.price).to.equal(123.45);
    } finally {
      await gateway.close({ keepData: true });
      await projections.close();
    }
  });

  it('refuses a second process running the projections on the same Redis, naming the first, and lets a gateway start', async function () {
    const first = await startTestGateway({ env: { REDIS_URL: redis.url } });
    try {
      for (const role of ['all', 'projections']) {
        let refused: unknown;
        await startTestGateway({ env: { REDIS_URL: redis.url, ROLE: role } }).then(
          (second) => second.close(),
          (error: unknown) => (refused = error),
        );
        expect(refused, role).to.be.instanceOf(ReadModelsInUseError);
        expect((refused as Error).message, role).to.match(
          new RegExp(
            `^the read models in Redis are in use: another StockPulse process \\(.+ pid ${process.pid} .+\\) runs the projections on them; `,
          ),
        );
      }
      // A gateway runs none: it reads what the first one's projections write.
      const gateway = await startTestGateway({
        dataDir: first.dataDir,
        env: { REDIS_URL: redis.url, ROLE: 'gateway' },
      });
      try {
        const user = await gateway.user();
        await user.post('/personalize/createwatchlist', ['NVDA', 'KO']);
        expect((await user.get('/personalize/watchlist')).body).to.deep.equal(['NVDA', 'KO']);
      } finally {
        await gateway.close({ keepData: true });
      }
    } finally {
      await first.close();
    }
    // Stopped, the first leaves the lease: the next one starts at once.
    const next = await startTestGateway({ env: { REDIS_URL: redis.url } });
    await next.close();
  });

  it('stops by itself when another process took its lease of the projections, and says why', async function () {
    const gw = await startTestGateway({ env: { REDIS_URL: redis.url } });
    try {
      const client = await connectRedis(redis.url);
      // As a second process does once this one was held up past the lease's life and the lease ran out.
      await client.set(writerLeaseKey('projections'), 'elsewhere pid 7 0badcafe', { PX: 60_000 });
      const failure = await gw.running.failure;
      expect(failure).to.be.instanceOf(WriterLeaseLostError);
      expect(failure.message).to.equal(
        'the lease of the projections on the read models in Redis was taken by another StockPulse process ' +
          '(elsewhere pid 7 0badcafe) while this one was held up past its life: this one stops, so that one ' +
          'process writes them',
      );
      // Stopped: it serves no more, and it left the other's lease as it was.
      let refused: unknown;
      await fetch(`${gw.url}/healthz`).catch((error: unknown) => (refused = error));
      expect(refused).to.be.instanceOf(Error);
      expect(await client.get(writerLeaseKey('projections'))).to.equal('elsewhere pid 7 0badcafe');
      await client.quit();
    } finally {
      await gw.close();
    }
  });

  it('refuses a second delivery process of the same ENGINE_NAME on the same Redis, naming it, and starts one of another name', async function () {
    const env = {
      REDIS_URL: redis.url,
      ROLE: 'delivery',
      PUBLIC_ORIGIN: 'http://127.0.0.1:3000',
      ENGINE_NAME: 'mail1',
    };
    const first = await startTestGateway({ env });
    try {
      // ROLE=all runs a delivery too, under the same name.
      for (const role of ['delivery', 'all']) {
        let refused: unknown;
        await startTestGateway({ env: { ...env, ROLE: role } }).then(
          (second) => second.close(),
          (error: unknown) => (refused = error),
        );
        expect(refused, role).to.be.instanceOf(ReadModelsInUseError);
        expect((refused as Error).message, role).to.match(
          new RegExp(
            `^the read models in Redis are in use: another StockPulse process \\(.+ pid ${process.pid} .+\\) runs the delivery named mail1 on them; give each delivery process an ENGINE_NAME of its own`,
          ),
        );
      }
      const other = await startTestGateway({ env: { ...env, ENGINE_NAME: 'mail2' } });
      await other.close();
    } finally {
      await first.close();
    }
  });

  it('runs the engine of ROLE=all as a member of the Redis tick bus: a fed tick fires an alert once', async function () {
    const gw = await startTestGateway({ env: { REDIS_URL: redis.url, FEED_TOKEN: TOKEN, ENGINE_NAME: 'solo' } });
    try {
      const user = await gw.user();
      const quotes = (await user.get('/api/quotes?symbols=KO')).body as { price: number }[];
      const threshold = Math.round((quotes[0]!.price + 1) * 100) / 100;
      expect(
        (await user.post('/personalize/stockalerts', { symbol: 'KO', close: threshold, alerttype: 'U' })).status,
      ).to.equal(200);
      for (let i = 0; i < 2; i++) {
        expect((await gw.client().post('/api/feed/ticks', [{ symbol: 'KO', price: threshold }], AUTH)).status).to.equal(
          202,
        );
      }
      const listed = await until(async () => {
        const list = (await user.get('/personalize/usernotifications/ALL')).body as unknown[];
        return list.length > 0 ? list : undefined;
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await user.get('/personalize/usernotifications/ALL')).body).to.deep.equal(listed);
      expect(listed).to.have.length(1);
    } finally {
      await gw.close();
    }
  });

  it('answers 503 while Redis is out of reach, says so on /readyz, and lists, indexes and fires alerts again once it is back empty', async function () {
    this.timeout(90_000);
    const gw = await startTestGateway({ env: { REDIS_URL: redis.url, FEED_TOKEN: TOKEN, ENGINE_NAME: 'solo' } });
    try {
      const user = await gw.user();
      const created = await user.post('/personalize/stockalerts', {
        symbol: 'KO',
        condition: { op: 'greater_than', value: 1 },
      });
      expect(created.status).to.equal(200, created.text);
      expect((await gw.client().get('/readyz')).body).to.nested.include({ 'checks.redis.ok': true });

      await redis.stop();
      const list = await user.get('/personalize/stockalerts');
      expect(list.status).to.equal(503, list.text);
      expect(list.body).to.include({ error: 'unavailable' });
      expect((list.body as { message: string }).message).to.match(/cannot reach its data store/);
      expect(list.headers.get('retry-after')).to.equal('5');
      const ready = await gw.client().get('/readyz');
      expect(ready.status).to.equal(503);
      expect(ready.body).to.nested.include({ 'checks.redis.ok': false });

      // Started again without its data: the sessions, the tick stream and the engine's group are gone.
      redis = await startTestRedis(redis.port);
      await until(async () => ((await gw.client().get('/readyz')).status === 200 ? true : undefined), 30_000);
      expect((await user.get('/personalize/stockalerts')).status, 'the session went with the data').to.equal(401);
      const login = await user.post('/api/login', { username: user.username, password: 'correct horse' });
      expect(login.status).to.equal(200, login.text);
      // An alert made now is indexed (the engine writes its index back whole) and listed with the first (the
      // read models are built again from the log).
      const second = await user.post('/personalize/stockalerts', {
        symbol: 'KO',
        condition: { op: 'less_than', value: 1000 },
      });
      expect(second.status).to.equal(200, second.text);
      const listed = await until(async () => {
        const alerts = (await user.get('/personalize/stockalerts')).body as { id: string }[];
        return alerts.length === 2 ? alerts : undefined;
      }, 20_000);
      expect(listed.map((a) => a.id).sort()).to.deep.equal(
        [(created.body as { id: string }).id, (second.body as { id: string }).id].sort(),
      );
      const fired: string[] = [];
      const stop = gw.running.system.engine!.onTrigger((trigger) => fired.push(trigger.event.data.alertId));
      try {
        const feed = await gw.client().post('/api/feed/ticks', [{ symbol: 'KO', price: 70 }], AUTH);
        expect(feed.status).to.equal(202, feed.text);
        await until(() => Promise.resolve(fired.length >= 2 ? true : undefined), 10_000);
        expect(fired.sort()).to.deep.equal(listed.map((a) => a.id).sort());
      } finally {
        stop();
      }
    } finally {
      await gw.close();
    }
  });
});

describe('roles without Redis', function () {
  it('answers 404 on the feed route of a gateway that has no bus to publish on', async function () {
    const gw = await startTestGateway({ env: { ROLE: 'gateway', FEED_TOKEN: TOKEN } });
    try {
      const res = await gw.client().post('/api/feed/ticks', [{ symbol: 'AAPL', price: 1 }], AUTH);
      expect(res.status).to.equal(404);
    } finally {
      await gw.close();
    }
  });

  it('serves only the health routes in an engine, projections or delivery process', async function () {
    for (const role of ['engine', 'projections', 'delivery']) {
      const gw = await startTestGateway({
        env: {
          ROLE: role,
          FEED_TOKEN: TOKEN,
          ...(role === 'delivery' ? { PUBLIC_ORIGIN: 'http://127.0.0.1:3000' } : {}),
        },
      });
      try {
        expect((await gw.client().get('/healthz')).status).to.equal(200);
        expect((await gw.client().get('/readyz')).status).to.equal(200);
        const metrics = await gw.client().get('/metrics');
        expect(metrics.status).to.equal(200);
        // A delivery process has no engine or projection figures of its own.
        if (role !== 'delivery') expect(metrics.text).to.match(/^# TYPE/m);
        expect((await gw.client().get('/api/quotes?symbols=AAPL')).status).to.equal(404);
        expect((await gw.client().post('/api/feed/ticks', [{ symbol: 'AAPL', price: 1 }], AUTH)).status).to.equal(404);
        expect(gw.running.realtime).to.equal(null);
      } finally {
        await gw.close();
      }
    }
  });
});
