import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { DailyBar } from '../../domain/market/types.ts';
import { capturedLogger } from '../../platform/testing/capturedLog.ts';
import { connectRedis } from '../../platform/redis.ts';
import { startTestRedis } from '../../platform/testing/redisServer.ts';
import { loadConfig } from '../../platform/config.ts';
import { LiveQuotes } from '../quotes/liveQuotes.ts';
import { ManualClock } from './clock.ts';
import { DayCloser, memoryDayCloseClaims } from './dayCloser.ts';
import {
  KEPT_SESSION_FILE,
  KeptSessionError,
  SessionKeeper,
  fileSessionStore,
  keptClose,
  keptSessionTicks,
  missedSession,
  parseKeptSession,
  redisSessionStore,
  resumeSession,
  type SessionStore,
} from './keptSession.ts';
import { regularMarketClock, regularSession } from './marketClock.ts';
import { keptMinuteStore, keptSessionStore } from './sources.ts';
import type { ClosedDay, Tick } from './tick.ts';

const MINUTE_MS = 60_000;
/** The last stored day, and the session the tests trade in (Tuesday 4 March 2025, 9:30 to 16:00 New York). */
const STORED = '2025-03-03';
const SESSION = regularSession('2025-03-04');

function history(close: number): DailyBar[] {
  return [
    { date: '2025-02-28', open: close - 1, high: close, low: close - 2, close: close - 1, volume: 1_000 },
    { date: STORED, open: close - 1, high: close + 1, low: close - 2, close, volume: 1_000 },
  ];
}

const SEEDS = [
  { symbol: 'AAPL', bars: history(100) },
  { symbol: 'MSFT', bars: history(400) },
];

function tick(symbol: string, price: number, size: number, minute: number): Tick {
  return { symbol, price, size, ts: SESSION.start + minute * MINUTE_MS };
}

/** A store whose saves can be awaited one at a time: each write resolves the next `written()`. */
function watched(store: SessionStore): SessionStore & { written(): Promise<string> } {
  let waiters: ((text: string) => void)[] = [];
  return {
    load: () => store.load(),
    save: async (text) => {
      await store.save(text);
      const now = waiters;
      waiters = [];
      for (const resolve of now) resolve(text);
    },
    written: () => new Promise((resolve) => waiters.push(resolve)),
  };
}

/** The engine's side of a run: the day closer over the calendar, its bars kept in `store` by a keeper. */
function engineRun(store: SessionStore, clock: ManualClock, appended?: () => Promise<void>) {
  const closes: ClosedDay[] = [];
  const closer = new DayCloser({
    sessions: regularMarketClock(STORED),
    claims: memoryDayCloseClaims(),
    lastPrices: [
      ['AAPL', 100],
      ['MSFT', 400],
    ],
    clock,
  });
  closer.start({ onTicks: () => undefined, onDayClosed: (day) => closes.push(day) });
  const keeper = new SessionKeeper(closer, store, { clock, ...(appended ? { appended } : {}) });
  return { closer, keeper, closes };
}

describe('the open session kept across a restart (feed route, Finnhub)', function () {
  let dir: string;

  beforeEach(function () {
    dir = mkdtempSync(join(tmpdir(), 'sp-kept-'));
  });

  afterEach(function () {
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes the bars only once the alerts their ticks fired are in the log, so a crash before never keeps them', async function () {
    const clock = new ManualClock(SESSION.start + 30 * MINUTE_MS);
    const store = watched(fileSessionStore(dir));
    let told!: () => void;
    const asked = new Promise<void>((resolve) => (told = resolve));
    let append!: () => void;
    const run = engineRun(store, clock, () => {
      told();
      return new Promise<void>((resolve) => (append = resolve));
    });
    run.keeper.start();
    run.closer.observe([tick('AAPL', 101, 500, 1)]);
    let saved = false;
    const written = store.written().then((text) => {
      saved = true;
      return text;
    });
    clock.advance(1000);
    await asked;
    await new Promise(setImmediate);
    // The engine's appends of what those ticks fired are under way: a crash now takes back the bars before them.
    expect(saved).to.equal(false);
    append();
    const kept = JSON.parse(await written) as { bars: Record<string, object> };
    expect(kept.bars.AAPL).to.deep.include({ close: 101, volume: 500 });
    await run.keeper.stop();
  });

  it('takes the bars back after a crash: the quotes show the whole day and its close publishes the whole bar', async function () {
    const clock = new ManualClock(SESSION.start + 30 * MINUTE_MS);
    const store = watched(fileSessionStore(dir));
    const first = engineRun(store, clock);
    first.keeper.start();
    first.closer.observe([
      tick('AAPL', 101, 500, 1),
      tick('AAPL', 104.5, 300, 5),
      tick('AAPL', 99.25, 200, 10),
      tick('MSFT', 398, 1_000, 2),
      tick('AAPL', 102, 100, 20),
    ]);
    const written = store.written();
    clock.advance(1000);
    expect(JSON.parse(await written)).to.deep.equal({
      date: '2025-03-04',
      bars: {
        AAPL: {
          open: 101,
          high: 104.5,
          low: 99.25,
          close: 102,
          volume: 1_100,
          first: SESSION.start + MINUTE_MS,
          last: SESSION.start + 20 * MINUTE_MS,
        },
        MSFT: {
          open: 398,
          high: 398,
          low: 398,
          close: 398,
          volume: 1_000,
          first: SESSION.start + 2 * MINUTE_MS,
          last: SESSION.start + 2 * MINUTE_MS,
        },
      },
    });
    // The process dies here: no stop, no last write.

    const now = SESSION.start + 31 * MINUTE_MS;
    const quotes = new LiveQuotes(SEEDS);
    quotes.keepMinutes();
    const { logger, lines } = capturedLogger();
    const resumed = await resumeSession(fileSessionStore(dir), regularMarketClock(STORED), quotes, logger, { now });
    expect(resumed).to.have.length(8);
    expect(lines.join('')).to.contain('the bars of 2025-03-04 so far taken back from the last run');
    expect(quotes.quote('AAPL')).to.include({
      price: 102,
      open: 101,
      high: 104.5,
      low: 99.25,
      volume: 1_100,
      prevClose: 100,
      change: 2,
      changepct: 2,
    });
    expect(quotes.quote('AAPL')!.ts).to.equal(new Date(SESSION.start + 20 * MINUTE_MS).toISOString());
    // The 1D chart's candles start at the next tick, with that tick's own volume.
    expect(quotes.minutes('AAPL')!.candles).to.deep.equal([]);
    quotes.applyTick(tick('AAPL', 103, 50, 32));
    expect(quotes.quote('AAPL')).to.include({ volume: 1_150, high: 104.5, open: 101 });
    expect(quotes.minutes('AAPL')!.candles.map((c) => [c.open, c.close, c.volume, c.sessionVolume])).to.deep.equal([
      [103, 103, 50, 1_150],
    ]);

    clock.advanceTo(now);
    const second = engineRun(fileSessionStore(dir), clock);
    second.closer.observe(resumed);
    second.closer.observe([tick('AAPL', 103, 50, 32), tick('AAPL', 98, 10, 300)]);
    clock.advanceTo(SESSION.end + 1000);
    await second.closer.settled();
    expect(second.closes).to.have.length(1);
    expect(second.closes[0]!.date).to.equal('2025-03-04');
    expect(second.closes[0]!.bars).to.deep.equal([
      { symbol: 'AAPL', date: '2025-03-04', open: 101, high: 104.5, low: 98, close: 98, volume: 1_160 },
      { symbol: 'MSFT', date: '2025-03-04', open: 398, high: 398, low: 398, close: 398, volume: 1_000 },
    ]);
    await first.keeper.stop();
  });

  it('takes back a session whose feed reported a tick late, earlier than the one before it', async function () {
    const clock = new ManualClock(SESSION.start + 30 * MINUTE_MS);
    const { closer, keeper } = engineRun(fileSessionStore(dir), clock);
    closer.observe([tick('AAPL', 101, 500, 10), tick('AAPL', 102, 50, 12), tick('AAPL', 99, 100, 4)]);
    await keeper.stop();
    const kept = parseKeptSession(readFileSync(join(dir, KEPT_SESSION_FILE), 'utf8'));
    expect(kept.bars['AAPL']).to.deep.equal({
      open: 101,
      high: 102,
      low: 99,
      // The latest trade's, not the late one's.
      close: 102,
      volume: 650,
      first: SESSION.start + 4 * MINUTE_MS,
      last: SESSION.start + 12 * MINUTE_MS,
    });
    const quotes = new LiveQuotes(SEEDS);
    const { logger } = capturedLogger();
    const at = SESSION.start + 31 * MINUTE_MS;
    expect(
      await resumeSession(fileSessionStore(dir), regularMarketClock(STORED), quotes, logger, { now: at }),
    ).to.have.length(4);
    expect(quotes.quote('AAPL')).to.include({ open: 101, low: 99, high: 102, price: 102, volume: 650 });
  });

  it('writes the last ticks when the engine stops, and nothing while the bars do not move', async function () {
    const clock = new ManualClock(SESSION.start + MINUTE_MS);
    const texts: string[] = [];
    const file = fileSessionStore(dir);
    const store: SessionStore = { load: () => file.load(), save: (text) => (texts.push(text), file.save(text)) };
    const { closer, keeper } = engineRun(store, clock);
    keeper.start();
    closer.observe([tick('AAPL', 101, 500, 1)]);
    await keeper.save();
    expect(texts).to.have.length(1);
    clock.advance(5000);
    await keeper.save();
    expect(texts, 'no write while nothing moved').to.have.length(1);
    closer.observe([tick('AAPL', 105, 20, 2)]);
    await keeper.stop();
    expect(texts).to.have.length(2);
    const kept = parseKeptSession(readFileSync(join(dir, KEPT_SESSION_FILE), 'utf8'));
    expect(kept.bars['AAPL']).to.include({ open: 101, high: 105, close: 105, volume: 520 });
    clock.advance(5000);
    expect(texts, 'no write after the stop').to.have.length(2);
  });

  it('keeps nothing of a closed session: after the close the next session is kept, with no bar yet', async function () {
    const clock = new ManualClock(SESSION.start + MINUTE_MS);
    const { closer, keeper } = engineRun(fileSessionStore(dir), clock);
    closer.observe([tick('AAPL', 101, 500, 1)]);
    await keeper.save();
    clock.advanceTo(SESSION.end + 1000);
    await closer.settled();
    await keeper.save();
    expect(parseKeptSession(readFileSync(join(dir, KEPT_SESSION_FILE), 'utf8'))).to.deep.equal({
      date: '2025-03-05',
      bars: {},
    });
  });

  it('takes nothing back from another session, between sessions or when nothing is kept', async function () {
    const store = fileSessionStore(dir);
    const sessions = regularMarketClock(STORED);
    expect(await keptSessionTicks(store, sessions, SESSION.start + MINUTE_MS)).to.deep.equal([]);
    const bar = { open: 101, high: 101, low: 101, close: 101, volume: 5, first: SESSION.start, last: SESSION.start };
    await store.save(JSON.stringify({ date: '2025-03-04', bars: { AAPL: bar } }));
    expect(await keptSessionTicks(store, sessions, SESSION.start + MINUTE_MS)).to.have.length(4);
    // The next morning, before the open and during the next session: the kept day was closed or missed.
    expect(await keptSessionTicks(store, sessions, SESSION.end + 10 * MINUTE_MS)).to.deep.equal([]);
    const next = regularSession('2025-03-05');
    expect(await keptSessionTicks(store, sessions, next.start + MINUTE_MS)).to.deep.equal([]);
    // Before the open of the kept session's own day.
    expect(await keptSessionTicks(store, sessions, SESSION.start - MINUTE_MS)).to.deep.equal([]);
  });

  it('tells a session over with ticks kept, and makes its close as the day closer would', async function () {
    const store = fileSessionStore(dir);
    const at = (minute: number) => SESSION.start + minute * MINUTE_MS;
    const aapl = { open: 101, high: 104, low: 99, close: 103, volume: 900, first: at(1), last: at(200) };
    await store.save(JSON.stringify({ date: '2025-03-04', bars: { AAPL: aapl } }));
    const after = SESSION.end + 60 * MINUTE_MS;
    const kept = await missedSession(store, after);
    expect(kept).to.deep.equal({ date: '2025-03-04', bars: { AAPL: aapl } });
    expect(
      keptClose(kept!, [
        ['AAPL', 100],
        ['MSFT', 400],
      ]),
    ).to.deep.equal({
      date: '2025-03-04',
      bars: [
        { symbol: 'AAPL', date: '2025-03-04', open: 101, high: 104, low: 99, close: 103, volume: 900 },
        { symbol: 'MSFT', date: '2025-03-04', open: 400, high: 400, low: 400, close: 400, volume: 0 },
      ],
    });
    // Still open (the start takes the bars back instead), or a session with no tick at all.
    expect(await missedSession(store, SESSION.end - 1)).to.equal(null);
    await store.save(JSON.stringify({ date: '2025-03-04', bars: {} }));
    expect(await missedSession(store, after), 'no flat bars made up for a day never seen').to.equal(null);
    await store.save(JSON.stringify({ date: '2025-03-04', bars: { AAPL: { ...aapl, last: SESSION.end } } }));
    let refused: unknown;
    await missedSession(store, after).catch((error: unknown) => (refused = error));
    expect(refused).to.be.instanceOf(KeptSessionError).with.property('message').that.contains('bars.AAPL');
  });

  it('refuses a kept text that is not a session of bars, naming the field, and the quotes start afresh', async function () {
    const good = { open: 101, high: 102, low: 100, close: 101, volume: 5, first: SESSION.start, last: SESSION.start };
    const refusals: [unknown, string][] = [
      ['{', 'not JSON'],
      [[], 'not an object'],
      [{ date: '4 March', bars: {} }, 'date:'],
      [{ date: '2025-03-04', bars: [] }, 'bars: not an object'],
      [{ date: '2025-03-04', bars: { AAPL: 5 } }, 'bars.AAPL: not an object'],
      [{ date: '2025-03-04', bars: { AAPL: { ...good, volume: -1 } } }, 'bars.AAPL.volume'],
      [{ date: '2025-03-04', bars: { AAPL: { ...good, close: 'x' } } }, 'bars.AAPL.close'],
      [{ date: '2025-03-04', bars: { AAPL: { ...good, high: 100.5 } } }, 'bars.AAPL: its low and high'],
      [{ date: '2025-03-04', bars: { AAPL: { ...good, last: good.first - 1 } } }, 'bars.AAPL.last'],
    ];
    for (const [value, field] of refusals) {
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      expect(() => parseKeptSession(text), text).to.throw(KeptSessionError, field);
    }
    // What the bars are played as must be ticks the feed would take.
    const ticks: [unknown, string][] = [
      [{ date: '2025-03-04', bars: { AAPL: { ...good, low: 0, open: 0 } } }, 'price must be a number above 0'],
      [{ date: '2025-03-04', bars: { AAPL: { ...good, volume: 2.5 } } }, 'size must be a whole number'],
      [{ date: '2025-03-04', bars: { aapl: good } }, 'bars.aapl: the symbol is not upper case'],
      [{ date: '2025-03-04', bars: { 'NOT A SYMBOL': good } }, 'is not a symbol'],
    ];
    for (const [value, message] of ticks) {
      const text = JSON.stringify(value);
      expect(() => parseKeptSession(text), text).to.throw(KeptSessionError, message);
    }
    // A key named like an object's prototype is refused as any other that is not a symbol, and pollutes nothing.
    expect(() => parseKeptSession(`{"date":"2025-03-04","bars":{"__proto__":${JSON.stringify(good)}}}`)).to.throw(
      KeptSessionError,
      'bars.__proto__',
    );
    expect(({} as Record<string, unknown>)['open']).to.equal(undefined);

    const store = fileSessionStore(dir);
    const late = { ...good, last: SESSION.end + MINUTE_MS };
    await store.save(JSON.stringify({ date: '2025-03-04', bars: { AAPL: late } }));
    const quotes = new LiveQuotes(SEEDS);
    const { logger, lines } = capturedLogger();
    const at = SESSION.start + MINUTE_MS;
    expect(await resumeSession(store, regularMarketClock(STORED), quotes, logger, { now: at })).to.deep.equal([]);
    expect(lines.join('')).to.contain('bars.AAPL: its ticks are outside the session of 2025-03-04');
    expect(quotes.quote('AAPL')).to.include({ price: 100, volume: 1_000 });
    writeFileSync(join(dir, KEPT_SESSION_FILE), '{"date":');
    expect(await resumeSession(store, regularMarketClock(STORED), quotes, logger, { now: at })).to.deep.equal([]);
    expect(lines.join('')).to.contain('the kept session is not JSON');
  });

  it('is kept for the feed route and Finnhub only: in DATA_DIR, or in Redis when engines share one', async function () {
    const config = (env: Record<string, string>) => loadConfig({ DATA_DIR: dir, ...env });
    expect(keptSessionStore(config({ TICK_SOURCE: 'simulator' }), null)).to.equal(null);
    expect(keptSessionStore(config({ TICK_SOURCE: 'replay', TICK_FILE: join(dir, 'ticks.csv') }), null)).to.equal(null);
    expect(
      keptSessionStore(config({ TICK_SOURCE: 'alpaca', ALPACA_KEY_ID: 'K', ALPACA_SECRET_KEY: 'S' }), null),
      "Alpaca's sessions come back from its minute bars",
    ).to.equal(null);
    expect(keptSessionStore(config({ TICK_SOURCE: 'finnhub', FINNHUB_TOKEN: 'T' }), null)).to.not.equal(null);
    // The minute candles are kept where the bars are, for the same sources.
    expect(keptMinuteStore(config({ TICK_SOURCE: 'simulator' }), null)).to.equal(null);
    expect(keptMinuteStore(config({ TICK_SOURCE: 'finnhub', FINNHUB_TOKEN: 'T' }), null)).to.not.equal(null);
    const feed = keptSessionStore(config({ TICK_SOURCE: 'feed' }), null)!;
    await feed.save('{"date":"2025-03-04","bars":{}}');
    expect(readFileSync(join(dir, KEPT_SESSION_FILE), 'utf8')).to.equal('{"date":"2025-03-04","bars":{}}');

    const server = await startTestRedis();
    const redis = await connectRedis(server.url);
    try {
      const key = `test:${randomUUID()}`;
      const shared = redisSessionStore(redis, key);
      expect(await shared.load()).to.equal(null);
      await shared.save('{"date":"2025-03-04","bars":{}}');
      expect(await redis.get(key)).to.equal('{"date":"2025-03-04","bars":{}}');
      expect(await shared.load()).to.equal('{"date":"2025-03-04","bars":{}}');
      expect(keptSessionStore(config({ TICK_SOURCE: 'feed' }), redis)).to.not.equal(null);
    } finally {
      await redis.quit();
      await server.stop();
    }
  });
});
