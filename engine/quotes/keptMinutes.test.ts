import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { DailyBar } from '../../domain/market/types.ts';
import { capturedLogger } from '../../platform/testing/capturedLog.ts';
import { connectRedis } from '../../platform/redis.ts';
import { startTestRedis } from '../../platform/testing/redisServer.ts';
import { ManualClock } from '../ticks/clock.ts';
import { fileSessionStore, resumeSession } from '../ticks/keptSession.ts';
import { regularMarketClock, regularSession } from '../ticks/marketClock.ts';
import type { Tick } from '../ticks/tick.ts';
import {
  KEPT_MINUTES_DIR,
  KeptMinutesError,
  MinuteKeeper,
  fileMinuteStore,
  parseKeptMinutes,
  redisMinuteStore,
  type MinuteStore,
} from './keptMinutes.ts';
import { LiveQuotes } from './liveQuotes.ts';

const MINUTE_MS = 60_000;
/** The last stored day, and the session the tests trade in (Tuesday 4 March 2025, 9:30 to 16:00 New York). */
const STORED = '2025-03-03';
const SESSION = regularSession('2025-03-04');
/** The minute (since the epoch) the session opens at. */
const OPEN = SESSION.start / MINUTE_MS;

const SEEDS: { symbol: string; bars: DailyBar[] }[] = ['AAPL', 'MSFT'].map((symbol, i) => ({
  symbol,
  bars: [{ date: STORED, open: 99 + i, high: 101 + i, low: 98 + i, close: 100 + i, volume: 1_000 }],
}));

function tick(symbol: string, price: number, size: number, minute: number, second = 0): Tick {
  return { symbol, price, size, ts: SESSION.start + minute * MINUTE_MS + second * 1000 };
}

function minuteQuotes(): LiveQuotes {
  const quotes = new LiveQuotes(SEEDS);
  quotes.keepMinutes();
  return quotes;
}

/** A store whose appends can be awaited: each append resolves the next `appended()` with its lines. */
function watched(store: MinuteStore): MinuteStore & { appended(): Promise<readonly string[]> } {
  let waiters: ((lines: readonly string[]) => void)[] = [];
  return {
    load: (date) => store.load(date),
    append: async (date, lines) => {
      await store.append(date, lines);
      const now = waiters;
      waiters = [];
      for (const resolve of now) resolve(lines);
    },
    appended: () => new Promise((resolve) => waiters.push(resolve)),
  };
}

describe('the open session minute candles kept across a restart (feed route, Finnhub)', function () {
  let dir: string;

  beforeEach(function () {
    dir = mkdtempSync(join(tmpdir(), 'sp-minutes-'));
  });

  afterEach(function () {
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps each finished candle once and takes them back after a crash: the 1D chart draws the whole session', async function () {
    const clock = new ManualClock(SESSION.start + 30 * MINUTE_MS);
    const store = watched(fileMinuteStore(dir));
    const first = minuteQuotes();
    const keeper = new MinuteKeeper(first, store, { clock }).start();
    first.apply([
      tick('AAPL', 101, 500, 1),
      tick('AAPL', 104.5, 300, 1, 30),
      tick('MSFT', 398, 1_000, 2),
      tick('AAPL', 99.25, 200, 5),
      tick('AAPL', 102, 100, 20),
    ]);
    let appended = store.appended();
    clock.advance(1000);
    // AAPL's candles of minutes 1 and 5; not minute 20's, which a tick may still move, nor MSFT's only one.
    expect(await appended).to.deep.equal([
      `AAPL,${OPEN + 1},10100,10450,10100,10450,800,800`,
      `AAPL,${OPEN + 5},9925,9925,9925,9925,200,1000`,
    ]);
    first.apply([tick('AAPL', 102.5, 40, 20, 30), tick('AAPL', 103, 60, 21)]);
    appended = store.appended();
    await keeper.save();
    expect(await appended).to.deep.equal([`AAPL,${OPEN + 20},10200,10250,10200,10250,140,1140`]);
    // Nothing moved: nothing written again.
    await keeper.save();
    const file = join(dir, KEPT_MINUTES_DIR, '2025-03-04.csv');
    expect(readFileSync(file, 'utf8').split('\n')).to.have.length(4);
    // The process dies here: minute 21's candle is lost, its trades are in the session's bar.
    await fileSessionStore(dir).save(
      JSON.stringify({
        date: '2025-03-04',
        bars: {
          AAPL: {
            open: 101,
            high: 104.5,
            low: 99.25,
            close: 103,
            volume: 1_200,
            first: tick('AAPL', 0, 0, 1).ts,
            last: tick('AAPL', 0, 0, 21).ts,
          },
        },
      }),
    );

    const second = minuteQuotes();
    const { logger, lines } = capturedLogger();
    const now = SESSION.start + 31 * MINUTE_MS;
    const resumed = await resumeSession(fileSessionStore(dir), regularMarketClock(STORED), second, logger, {
      now,
      minutes: fileMinuteStore(dir),
    });
    expect(resumed).to.have.length(4);
    expect(lines.join('')).to.contain('"minutes":3');
    const before = first.minutes('AAPL')!.candles;
    expect(second.minutes('AAPL')!.candles).to.deep.equal(before.slice(0, -1));
    expect(second.minutes('AAPL')!.prevClose).to.equal(100);
    // A keeper of the new run, started as the run starts, takes the candles taken back as written.
    const again = watched(fileMinuteStore(dir));
    new MinuteKeeper(second, again, { clock }).start();
    // The next candle's volume is its own ticks', not the lost minute's 60 shares counted again.
    second.applyTick(tick('AAPL', 104, 25, 32));
    expect(second.minutes('AAPL')!.candles.at(-1)).to.include({ open: 104, volume: 25, sessionVolume: 1_225 });
    expect(second.quote('AAPL')).to.include({ volume: 1_225, open: 101, high: 104.5 });

    // Only the new candles are appended.
    second.applyTick(tick('AAPL', 104.25, 5, 33));
    appended = again.appended();
    clock.advance(1000);
    expect(await appended).to.deep.equal([`AAPL,${OPEN + 32},10400,10400,10400,10400,25,1225`]);
    expect(readFileSync(file, 'utf8').split('\n')).to.have.length(5);
  });

  it('leaves out a last line a crash cut short, and counts a candle kept twice once', async function () {
    const store = fileMinuteStore(dir);
    await store.append('2025-03-04', [
      `AAPL,${OPEN + 1},10100,10450,10100,10450,800,800`,
      `AAPL,${OPEN + 2},10400,10400,10300,10300,50,850`,
      `AAPL,${OPEN + 1},10100,10450,10100,10450,800,800`,
    ]);
    writeFileSync(join(dir, KEPT_MINUTES_DIR, '2025-03-04.csv'), `AAPL,${OPEN + 3},103`, { flag: 'a' });
    const kept = parseKeptMinutes(await store.load('2025-03-04'), '2025-03-04');
    expect([...kept.keys()]).to.deep.equal(['AAPL']);
    expect(kept.get('AAPL')!.map((candle) => candle.minute)).to.deep.equal([OPEN + 1, OPEN + 2]);
    expect(await store.load('2025-03-05')).to.deep.equal([]);
  });

  it("removes the last session's file when the next session's first candles are kept", async function () {
    const store = fileMinuteStore(dir);
    await store.append('2025-03-04', [`AAPL,${OPEN + 1},10100,10100,10100,10100,1,1`]);
    const next = regularSession('2025-03-05').start / MINUTE_MS;
    await fileMinuteStore(dir).append('2025-03-05', [`AAPL,${next},10100,10100,10100,10100,1,1`]);
    expect(existsSync(join(dir, KEPT_MINUTES_DIR, '2025-03-04.csv'))).to.equal(false);
    expect(await store.load('2025-03-05')).to.have.length(1);
  });

  it('refuses kept candles that are not as written, naming the line and the field', function () {
    const good = `AAPL,${OPEN + 1},10100,10450,10100,10450,800,800`;
    const cases: [string, string][] = [
      [`aapl,${OPEN + 1},10100,10450,10100,10450,800,800`, 'line 2: symbol "aapl" is not a symbol'],
      [`AAPL,${OPEN + 1},10100,10450,10100,10450,800`, 'line 2: 7 fields, 8 expected'],
      [`AAPL,${OPEN + 1},10100,10450,10100,10450,-800,800`, 'line 2.volume: not a whole number'],
      [`AAPL,${OPEN + 1},0,10450,0,10450,800,800`, 'line 2.open: not a whole number above 0'],
      [`AAPL,${OPEN + 1},10100,10450,10100,1e4,800,800`, 'line 2.close: not a whole number above 0'],
      [`AAPL,${OPEN + 1},10100,10000,10100,10450,800,800`, 'line 2: its low and high do not hold its open and close'],
      [
        `AAPL,${OPEN + 24 * 60},10100,10450,10100,10450,800,800`,
        'line 2.minute: not a minute of 2025-03-04 in New York',
      ],
    ];
    for (const [line, message] of cases) {
      expect(() => parseKeptMinutes([good, line], '2025-03-04'), line)
        .to.throw(KeptMinutesError)
        .with.property('message', message);
    }
  });

  it('takes the bars back without the candles when these cannot be read: the candles start at the next tick', async function () {
    const minutes = fileMinuteStore(dir);
    await minutes.append('2025-03-04', [`AAPL,${OPEN + 1},10100,10450,10100,10450,800`]);
    const bar = { open: 101, high: 104.5, low: 101, close: 104.5, volume: 800 };
    const kept = { ...bar, first: tick('AAPL', 0, 0, 1).ts, last: tick('AAPL', 0, 0, 1).ts };
    await fileSessionStore(dir).save(JSON.stringify({ date: '2025-03-04', bars: { AAPL: kept } }));
    const quotes = minuteQuotes();
    const { logger, lines } = capturedLogger();
    const now = SESSION.start + 10 * MINUTE_MS;
    const resumed = await resumeSession(fileSessionStore(dir), regularMarketClock(STORED), quotes, logger, {
      now,
      minutes,
    });
    expect(resumed).to.have.length(4);
    expect(lines.join('')).to.contain('the minute candles so far were not taken back').and.contain('line 1: 7 fields');
    expect(quotes.quote('AAPL')).to.include({ volume: 800, high: 104.5 });
    expect(quotes.minutes('AAPL')!.candles).to.deep.equal([]);
  });

  it('keeps them in one Redis hash per session that every quote feed writes, each candle once', async function () {
    const redis = await startTestRedis();
    const client = await connectRedis(redis.url);
    try {
      const prefix = `test:${randomUUID()}:`;
      const clock = new ManualClock(SESSION.start + 30 * MINUTE_MS);
      // Two gateways' quote feeds read the same ticks and keep the same candles.
      const feeds = [minuteQuotes(), minuteQuotes()];
      const keepers = feeds.map((quotes) => new MinuteKeeper(quotes, redisMinuteStore(client, prefix), { clock }));
      for (const quotes of feeds) {
        quotes.apply([tick('AAPL', 101, 500, 1), tick('AAPL', 102, 100, 2), tick('MSFT', 400, 5, 2)]);
        quotes.apply([tick('MSFT', 401, 5, 3), tick('AAPL', 103, 1, 3)]);
      }
      await Promise.all(keepers.map((keeper) => keeper.stop()));
      const lines = await redisMinuteStore(client, prefix).load('2025-03-04');
      expect(lines).to.have.members([
        `AAPL,${OPEN + 1},10100,10100,10100,10100,500,500`,
        `AAPL,${OPEN + 2},10200,10200,10200,10200,100,600`,
        `MSFT,${OPEN + 2},40000,40000,40000,40000,5,5`,
      ]);
      expect(await client.ttl(`${prefix}2025-03-04`)).to.be.above(3 * 24 * 3600);
      expect(parseKeptMinutes(lines, '2025-03-04').get('AAPL')).to.have.length(2);
    } finally {
      await client.quit();
      await redis.stop();
    }
  });
});
