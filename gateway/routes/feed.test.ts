import { expect } from 'chai';
import type { AlertTriggerAnswer } from '../../domain/contract/alerts.ts';
import type { EngineTrigger } from '../../engine/alerts/alertEngine.ts';
import { regularMarketClock } from '../../engine/ticks/marketClock.ts';
import { startTestGateway, type TestClient, type TestGateway } from '../testing/harness.ts';
import { FEED_MAX_TICKS, FEED_PATH } from './feed.ts';

const TOKEN = 'feed-token-0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };

interface QuoteAnswer {
  symbol: string;
  price: number;
  volume: number;
}

interface NotificationAnswer {
  id: string;
  symbol: string;
  notificationtype: number;
  notifcationmessage: string;
}

async function quote(client: TestClient, symbol: string): Promise<QuoteAnswer> {
  const res = await client.get(`/api/quotes?symbols=${symbol}`);
  expect(res.status).to.equal(200, res.text);
  return (res.body as QuoteAnswer[])[0]!;
}

async function notifications(client: TestClient): Promise<NotificationAnswer[]> {
  const res = await client.get('/personalize/usernotifications/ALL');
  expect(res.status).to.equal(200, res.text);
  return res.body as NotificationAnswer[];
}

/** Resolves with the next trigger the engine appends, once the read models include it. */
async function nextTrigger(gw: TestGateway): Promise<EngineTrigger> {
  const { engine, projections } = gw.running.system;
  const trigger = await new Promise<EngineTrigger>((resolve) => {
    const stop = engine!.onTrigger((t) => {
      stop();
      resolve(t);
    });
  });
  await projections!.waitFor(trigger.position!, ['AlertTriggered']);
  return trigger;
}

/** Resolves once the engine has settled every trigger under way and the read models include the whole log. */
async function settled(gw: TestGateway): Promise<void> {
  const { engine, events, projections } = gw.running.system;
  await engine!.alerts.flush();
  await projections!.waitFor(await events.headPosition(), ['AlertTriggered']);
}

/** Arms a price alert of `user` a dollar above AAPL's price; answers its threshold. */
async function alertAbove(user: TestClient): Promise<number> {
  const { price } = await quote(user, 'AAPL');
  const threshold = Math.round((price + 1) * 100) / 100;
  const created = await user.post('/personalize/stockalerts', { symbol: 'AAPL', close: threshold, alerttype: 'U' });
  expect(created.status).to.equal(200, created.text);
  return threshold;
}

describe('feed ingestion route', function () {
  let gw: TestGateway;
  beforeEach(async function () {
    gw = await startTestGateway({ env: { FEED_TOKEN: TOKEN } });
  });
  afterEach(async function () {
    await gw.close();
  });

  it('is off (404) when no token is configured', async function () {
    const off = await startTestGateway();
    try {
      const res = await off.client().post(FEED_PATH, [{ symbol: 'AAPL', price: 1 }], AUTH);
      expect(res.status).to.equal(404);
      expect(off.running.system.engine?.bus).to.not.equal(undefined);
    } finally {
      await off.close();
    }
  });

  it('refuses a missing or wrong bearer token with 401', async function () {
    const client = gw.client();
    expect((await client.post(FEED_PATH, [{ symbol: 'AAPL', price: 1 }])).status).to.equal(401);
    const wrong = await client.post(FEED_PATH, [{ symbol: 'AAPL', price: 1 }], { authorization: 'Bearer nope' });
    expect(wrong.status).to.equal(401);
    expect(wrong.headers.get('www-authenticate')).to.equal('Bearer');
  });

  it('moves the live quote, which replaces the last-close quote', async function () {
    const user = await gw.user();
    const before = await quote(user, 'AAPL');
    const price = Math.round(before.price * 1.01 * 100) / 100;
    const res = await gw.client().post(FEED_PATH, [{ symbol: 'aapl', price, size: 300 }], AUTH);
    expect(res.status).to.equal(202, res.text);
    expect(res.body).to.deep.equal({ accepted: 1 });
    const after = await quote(user, 'AAPL');
    expect(after.price).to.equal(price);
    expect(after.volume).to.equal(300);
  });

  const bad: [string, unknown, RegExp][] = [
    ['not a list', { symbol: 'AAPL', price: 1 }, /^body: /],
    ['an empty list', [], /^body: must hold at least one tick/],
    ['no symbol', [{ price: 1 }], /^body\[0\]\.symbol: /],
    ['a bad symbol', [{ symbol: 'NOT A SYMBOL', price: 1 }], /^body\[0\]\.symbol: /],
    [
      'an unknown symbol',
      [
        { symbol: 'AAPL', price: 1 },
        { symbol: 'ZZZZZZ', price: 1 },
      ],
      /^body\[1\]\.symbol: unknown/,
    ],
    [
      'a zero price',
      [{ symbol: 'AAPL', price: 0 }],
      /^body\[0\]\.price: must be a number of dollars from 0\.01 to 1000000$/,
    ],
    ['a string price', [{ symbol: 'AAPL', price: '12' }], /^body\[0\]\.price: must be a number of dollars from 0\.01/],
    [
      'a price under a cent',
      [{ symbol: 'AAPL', price: 0.004 }],
      /^body\[0\]\.price: must be a number of dollars from 0\.01/,
    ],
    [
      'a fractional size',
      [{ symbol: 'AAPL', price: 1, size: 1.5 }],
      /^body\[0\]\.size: must be a whole number of shares, 0 or more$/,
    ],
    [
      'a size as text',
      [{ symbol: 'AAPL', price: 1, size: '10' }],
      /^body\[0\]\.size: must be a whole number of shares/,
    ],
    [
      'a negative ts',
      [{ symbol: 'AAPL', price: 1, ts: -1 }],
      /^body\[0\]\.ts: must be a whole number of milliseconds since the epoch$/,
    ],
    // A trade that has not happened yet: its minute would hold every later tick of the session.
    [
      'a ts in 2100',
      [
        { symbol: 'AAPL', price: 1 },
        { symbol: 'AAPL', price: 1, ts: Date.UTC(2100, 0, 1) },
      ],
      /^body\[1\]\.ts: 2100-01-01T00:00:00\.000Z is [\d,]+ s ahead of the server's clock; at most 5 s$/,
    ],
    // A day, not a minute: the table is made when the file loads, maybe long before the test runs.
    ['a ts a day ahead', [{ symbol: 'AAPL', price: 1, ts: Date.now() + 86_400_000 }], /^body\[0\]\.ts: .* ahead/],
    [
      'a ts past the last time a date holds',
      [{ symbol: 'AAPL', price: 1, ts: Number.MAX_SAFE_INTEGER }],
      /^body\[0\]\.ts: 9007199254740991 is [\d,]+ s ahead/,
    ],
    [
      `more than ${FEED_MAX_TICKS} ticks`,
      Array.from({ length: FEED_MAX_TICKS + 1 }, () => ({ symbol: 'AAPL', price: 1 })),
      /^body: must hold at most 5000 ticks/,
    ],
  ];
  it('refuses bad bodies naming the field, and moves nothing', async function () {
    const user = await gw.user();
    const before = await quote(user, 'AAPL');
    for (const [what, body, message] of bad) {
      const res = await gw.client().post(FEED_PATH, body, AUTH);
      expect(res.status, what).to.equal(400, res.text);
      expect((res.body as { message: string }).message, what).to.match(message);
    }
    expect(await quote(user, 'AAPL')).to.deep.equal(before);
  });

  it('refuses a compressed body with 415 naming the header', async function () {
    const res = await gw.client().request('POST', FEED_PATH, {
      raw: JSON.stringify([{ symbol: 'AAPL', price: 190 }]),
      headers: { ...AUTH, 'content-type': 'application/json', 'content-encoding': 'br' },
    });
    expect(res.status).to.equal(415, res.text);
    expect((res.body as { message: string }).message).to.match(/^headers\.content-encoding: br is not accepted/);
  });

  it(`accepts ${FEED_MAX_TICKS} ticks in one request`, async function () {
    const ticks = Array.from({ length: FEED_MAX_TICKS }, (_, i) => ({ symbol: 'MSFT', price: 400 + (i % 7), size: 1 }));
    const res = await gw.client().post(FEED_PATH, ticks, AUTH);
    expect(res.status).to.equal(202, res.text);
    expect(res.body).to.deep.equal({ accepted: FEED_MAX_TICKS });
  });

  it('answers 202 once the alerts the ticks fired are in the log, so an answered batch survives a crash', async function () {
    const user = await gw.user();
    const { price } = await quote(user, 'AAPL');
    // Many alerts of one user, whose triggers are appended one after the other: far longer than an answer takes.
    const thresholds = Array.from({ length: 40 }, (_, i) => Math.round((price + 1 + i / 100) * 100) / 100);
    for (const close of thresholds) {
      const created = await user.post('/personalize/stockalerts', { symbol: 'AAPL', close, alerttype: 'U' });
      expect(created.status).to.equal(200, created.text);
    }
    const ticks = [
      { symbol: 'AAPL', price: thresholds[0]! - 0.01 },
      { symbol: 'AAPL', price: thresholds.at(-1)!, size: 100 },
    ];
    expect((await gw.client().post(FEED_PATH, ticks, AUTH)).status).to.equal(202);
    // Read at once, without waiting for the engine: the answer came after the appends.
    const recorded = await gw.running.system.events.readStream(`alerts-${user.username}`);
    expect(recorded.filter((e) => e.type === 'AlertTriggered')).to.have.length(thresholds.length);
    const dataDir = gw.dataDir;
    await gw.close({ keepData: true });
    gw = await startTestGateway({ dataDir, env: { FEED_TOKEN: TOKEN } });
    const again = gw.client();
    Object.assign(again, { cookies: user.cookies });
    await settled(gw);
    expect(await notifications(again)).to.have.length(thresholds.length);
  });

  it('takes a tick reported late into the volume, not the price, and fires no alert on it', async function () {
    const user = await gw.user();
    const threshold = await alertAbove(user);
    const now = Date.now();
    const ticks = [
      { symbol: 'AAPL', price: threshold - 0.5, size: 100, ts: now - 1000 },
      // A trade of a second earlier, reported after the one above.
      { symbol: 'AAPL', price: threshold, size: 40, ts: now - 2000 },
    ];
    expect((await gw.client().post(FEED_PATH, ticks, AUTH)).status).to.equal(202);
    const triggers = async (): Promise<number> =>
      (await gw.running.system.events.readStream(`alerts-${user.username}`)).filter((e) => e.type === 'AlertTriggered')
        .length;
    // Read at once: the answer comes after the appends of what the ticks fired.
    expect(await triggers()).to.equal(0);
    const after = await quote(user, 'AAPL');
    expect(after.price).to.equal(threshold - 0.5);
    expect(after.volume).to.equal(140);
    // The same price in sequence fires it.
    expect((await gw.client().post(FEED_PATH, [{ symbol: 'AAPL', price: threshold, ts: now }], AUTH)).status).to.equal(
      202,
    );
    expect(await triggers()).to.equal(1);
  });

  it('evaluates no alert on a late tick: one armed since the latest trade waits for the next, a daily one stays fired', async function () {
    const user = await gw.user();
    const now = Date.now();
    expect(
      (await gw.client().post(FEED_PATH, [{ symbol: 'AAPL', price: 320, ts: now - 60_000 }], AUTH)).status,
    ).to.equal(202);
    const create = async (frequency: string): Promise<string> => {
      const body = { symbol: 'AAPL', condition: { op: 'greater_than', value: 315 }, frequency };
      const created = await user.post('/personalize/stockalerts', body);
      expect(created.status).to.equal(200, created.text);
      return (created.body as { id: string }).id;
    };
    const once = await create('once');
    const daily = await create('once_per_bar');
    const history = async (id: string): Promise<AlertTriggerAnswer[]> => {
      const res = await user.get(`/personalize/stockalerts/${id}/history`);
      expect(res.status).to.equal(200, res.text);
      return res.body as AlertTriggerAnswer[];
    };
    // Both armed while the price is above their level; a trade of two minutes ago, reported now, is not a price.
    expect(
      (await gw.client().post(FEED_PATH, [{ symbol: 'AAPL', price: 300, ts: now - 120_000 }], AUTH)).status,
    ).to.equal(202);
    await settled(gw);
    expect(await history(once)).to.deep.equal([]);
    expect(await history(daily)).to.deep.equal([]);
    // The next trade in sequence fires both, at its own time.
    expect((await gw.client().post(FEED_PATH, [{ symbol: 'AAPL', price: 321, ts: now }], AUTH)).status).to.equal(202);
    await settled(gw);
    const fired = await history(daily);
    expect(fired.map((t) => [t.at, t.price])).to.deep.equal([[new Date(now).toISOString(), 321]]);
    expect(await history(once)).to.have.length(1);
    // A late trade dated another day does not make that day's bar for the daily one.
    expect((await gw.client().post(FEED_PATH, [{ symbol: 'AAPL', price: 330, ts: 86_400_000 }], AUTH)).status).to.equal(
      202,
    );
    await settled(gw);
    expect(await history(daily)).to.have.length(1);
  });

  it('measures the alerts from the last price before a restart: the first tick after it fires the crossing it makes', async function () {
    // The kept session is taken back while it is open only (the process reads the wall clock, as in production):
    // between sessions there is nothing to take back. The same at fixed times: `engine/running.test.ts`.
    const start = Date.now();
    const session = regularMarketClock().sessionAt(start);
    if (start < session.start + 5_000 || start >= session.end - 60_000) this.skip();
    const user = await gw.user();
    const { price } = await quote(user, 'AAPL');
    const level = Math.round((price + 1) * 100) / 100;
    const create = async (condition: object, frequency: string): Promise<string> => {
      const created = await user.post('/personalize/stockalerts', { symbol: 'AAPL', condition, frequency });
      expect(created.status).to.equal(200, created.text);
      return (created.body as { id: string }).id;
    };
    const crossing = await create({ op: 'crossing_up', value: level + 2 }, 'once');
    const repeating = await create({ op: 'greater_than', value: level }, 'every_time');
    const fired = async (client: TestClient, id: string): Promise<number[]> => {
      const res = await client.get(`/personalize/stockalerts/${id}/history`);
      expect(res.status).to.equal(200, res.text);
      return (res.body as AlertTriggerAnswer[]).map((t) => t.price);
    };
    const now = Date.now();
    const before = [
      { symbol: 'AAPL', price: level - 0.5, ts: now - 3000 },
      { symbol: 'AAPL', price: level + 0.5, ts: now - 2000 },
      { symbol: 'AAPL', price: level - 0.5, ts: now - 1000 },
    ];
    expect((await gw.client().post(FEED_PATH, before, AUTH)).status).to.equal(202);
    await settled(gw);
    expect(await fired(user, repeating)).to.deep.equal([level + 0.5]);
    expect(await fired(user, crossing)).to.deep.equal([]);
    const dataDir = gw.dataDir;
    await gw.close({ keepData: true });
    gw = await startTestGateway({ dataDir, env: { FEED_TOKEN: TOKEN } });
    const again = gw.client();
    Object.assign(again, { cookies: user.cookies });
    // From the last price before the restart, below both levels, to above them.
    const above = [{ symbol: 'AAPL', price: level + 2.5, ts: now }];
    expect((await gw.client().post(FEED_PATH, above, AUTH)).status).to.equal(202);
    await settled(gw);
    expect(await fired(again, crossing)).to.deep.equal([level + 2.5]);
    expect(await fired(again, repeating)).to.deep.equal([level + 2.5, level + 0.5]);
  });

  it('fires a price alert exactly once, and it is still there once after a restart', async function () {
    const user = await gw.user();
    const threshold = await alertAbove(user);
    expect(await notifications(user)).to.deep.equal([]);

    const below = await gw.client().post(FEED_PATH, [{ symbol: 'AAPL', price: threshold - 0.01 }], AUTH);
    expect(below.status).to.equal(202);
    const atThreshold = [{ symbol: 'AAPL', price: threshold, size: 100 }];
    const trigger = nextTrigger(gw);
    expect((await gw.client().post(FEED_PATH, atThreshold, AUTH)).status).to.equal(202);
    expect((await trigger).userId).to.equal(user.username);
    const fired = await notifications(user);
    expect(fired).to.have.length(1);
    expect(fired[0]).to.include({ symbol: 'AAPL', notificationtype: 1 });
    expect(fired[0]!.notifcationmessage).to.include('+');

    expect((await gw.client().post(FEED_PATH, atThreshold, AUTH)).status).to.equal(202);
    await settled(gw);
    expect(await notifications(user)).to.have.length(1);

    const dataDir = gw.dataDir;
    await gw.close({ keepData: true });
    gw = await startTestGateway({ dataDir, env: { FEED_TOKEN: TOKEN } });
    const again = gw.client();
    Object.assign(again, { cookies: user.cookies });
    expect((await gw.client().post(FEED_PATH, atThreshold, AUTH)).status).to.equal(202);
    await settled(gw);
    const afterRestart = await notifications(again);
    expect(afterRestart).to.have.length(1);
    expect(afterRestart[0]!.id).to.equal(fired[0]!.id);
  });
});
