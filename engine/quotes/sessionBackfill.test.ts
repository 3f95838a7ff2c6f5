import { expect } from 'chai';
import type { DailyBar } from '../../domain/market/types.ts';
import { ProviderError, type AlpacaDataOptions } from '../marketdata/alpacaBars.ts';
import { FakeAlpaca } from '../marketdata/alpacaTesting.ts';
import { LiveQuotes } from './liveQuotes.ts';
import { createLogger } from '../../platform/logger.ts';
import { BackfillTimeout, backfillSession, pickUpSession } from './sessionBackfill.ts';

/** Wednesday 2025-03-12, 10:03:20 in New York: its session opened at 13:30 UTC (summer time). */
const NOW = Date.parse('2025-03-12T14:03:20Z');
const OPEN = '2025-03-12T13:30:00Z';

/** A one-minute bar as Alpaca answers it. */
function minute(t: string, o: number, h: number, l: number, c: number, v: number) {
  return { t, o, h, l, c, v, n: 10, vw: (h + l) / 2 };
}

function bar(date: string, close: number): DailyBar {
  return { date, open: close, high: close, low: close, close, volume: 1_000 };
}

describe('picking up the open session from the provider at start', function () {
  let alpaca: FakeAlpaca;
  let api: AlpacaDataOptions;
  let quotes: LiveQuotes;

  beforeEach(async function () {
    alpaca = new FakeAlpaca();
    await alpaca.start();
    api = { keyId: 'key-id', secretKey: 'secret', baseUrl: alpaca.url };
    quotes = new LiveQuotes([{ symbol: 'AAPL', bars: [bar('2025-03-10', 230), bar('2025-03-11', 220)] }], 'alpaca-iex');
    quotes.keepMinutes();
  });
  afterEach(async function () {
    await alpaca.stop();
  });

  it("plays the session's minute bars so far into the quotes and the 1D candles, every page", async function () {
    alpaca.answer(
      {
        body: {
          bars: {
            AAPL: [
              minute('2025-03-12T13:30:00Z', 221, 223, 220.5, 222, 5_000),
              minute(OPEN.replace(':30:', ':31:'), 222, 222.5, 219, 219.5, 3_000),
            ],
          },
          next_page_token: 'QUFQTHwy',
        },
      },
      {
        body: {
          bars: { AAPL: [minute('2025-03-12T14:03:00Z', 219.5, 224, 219.5, 223.25, 700)], MSFT: [] },
          next_page_token: null,
        },
      },
    );
    const result = await backfillSession(quotes, {
      api,
      symbols: ['AAPL', 'MSFT'],
      after: '2025-03-11',
      now: () => NOW,
    });
    expect(result).to.deep.include({ date: '2025-03-12', open: true, symbols: 1, bars: 3 });
    // Four ticks a minute, the minute's volume on its close, in time order: what the day closer takes too.
    expect(result.played.map((t) => [t.price, t.size, new Date(t.ts).toISOString()])).to.deep.equal([
      [221, 0, '2025-03-12T13:30:00.000Z'],
      [223, 0, '2025-03-12T13:30:00.001Z'],
      [220.5, 0, '2025-03-12T13:30:00.002Z'],
      [222, 5_000, '2025-03-12T13:30:59.999Z'],
      [222, 0, '2025-03-12T13:31:00.000Z'],
      [222.5, 0, '2025-03-12T13:31:00.001Z'],
      [219, 0, '2025-03-12T13:31:00.002Z'],
      [219.5, 3_000, '2025-03-12T13:31:59.999Z'],
      [219.5, 0, '2025-03-12T14:03:00.000Z'],
      [224, 0, '2025-03-12T14:03:00.001Z'],
      [219.5, 0, '2025-03-12T14:03:00.002Z'],
      [223.25, 700, '2025-03-12T14:03:20.000Z'],
    ]);
    const asked = alpaca.requests.map((url) => Object.fromEntries(url.searchParams));
    expect(asked[0]).to.deep.include({
      symbols: 'AAPL,MSFT',
      timeframe: '1Min',
      start: '2025-03-12T13:30:00.000Z',
      end: '2025-03-12T14:03:20.001Z',
      feed: 'iex',
    });
    expect(asked[1]).to.deep.include({ page_token: 'QUFQTHwy' });
    expect(quotes.quote('AAPL')).to.deep.include({
      price: 223.25,
      prevClose: 220,
      change: 3.25,
      open: 221,
      high: 224,
      low: 219,
      volume: 8_700,
      source: 'alpaca-iex',
      ts: '2025-03-12T14:03:20.000Z',
    });
    const candles = quotes.minutes('AAPL')!.candles;
    expect(candles.map((c) => [c.time, c.open, c.high, c.low, c.close, c.volume])).to.deep.equal([
      ['2025-03-12 09:30', 221, 223, 220.5, 222, 5_000],
      ['2025-03-12 09:31', 222, 222.5, 219, 219.5, 3_000],
      ['2025-03-12 10:03', 219.5, 224, 219.5, 223.25, 700],
    ]);
    // The live ticks go on from there: the same minute's candle, the day's volume.
    quotes.applyTick({ symbol: 'AAPL', price: 224.5, size: 50, ts: NOW + 10_000 });
    expect(quotes.quote('AAPL')).to.deep.include({ high: 224.5, volume: 8_750, open: 221 });
    expect(quotes.minutes('AAPL')!.candles.at(-1)).to.deep.include({ high: 224.5, close: 224.5, volume: 750 });
    expect(quotes.quote('MSFT')).to.equal(undefined);
  });

  it("between sessions, takes the finished day's minute candles only, until the next session's first tick", async function () {
    // Wednesday 18:00 and Thursday 09:00 in New York, Wednesday stored: its session, not the quotes.
    for (const now of [Date.parse('2025-03-12T22:00:00Z'), Date.parse('2025-03-13T13:00:00Z')]) {
      quotes = new LiveQuotes(
        [{ symbol: 'AAPL', bars: [bar('2025-03-11', 220), bar('2025-03-12', 223.25)] }],
        'alpaca-iex',
      );
      quotes.keepMinutes();
      const before = quotes.quote('AAPL');
      alpaca.answer({
        body: {
          bars: {
            AAPL: [
              minute('2025-03-12T13:30:00Z', 221, 223, 220.5, 222, 5_000),
              minute('2025-03-12T19:59:00Z', 223, 223.5, 223, 223.25, 9_000),
            ],
          },
          next_page_token: null,
        },
      });
      const result = await backfillSession(quotes, { api, symbols: ['AAPL'], after: '2025-03-12', now: () => now });
      expect(result).to.deep.equal({ date: '2025-03-12', open: false, symbols: 1, bars: 2, played: [] });
      expect(Object.fromEntries(alpaca.requests.at(-1)!.searchParams)).to.deep.include({
        timeframe: '1Min',
        start: '2025-03-12T13:30:00.000Z',
        end: '2025-03-12T20:00:00.000Z',
      });
      expect(quotes.quote('AAPL')).to.deep.equal(before);
      const answer = quotes.minutes('AAPL')!;
      expect(answer.prevClose).to.equal(220);
      expect(answer.candles.map((c) => [c.time, c.open, c.high, c.low, c.close, c.volume])).to.deep.equal([
        ['2025-03-12 09:30', 221, 223, 220.5, 222, 5_000],
        ['2025-03-12 15:59', 223, 223.5, 223, 223.25, 9_000],
      ]);
    }
    // Quotes that keep no minute candles (a shared engine's) ask for no finished day.
    const asked = alpaca.requests.length;
    const bare = new LiveQuotes([{ symbol: 'AAPL', bars: [bar('2025-03-11', 220), bar('2025-03-12', 223.25)] }]);
    const thursday = Date.parse('2025-03-13T13:00:00Z');
    expect(
      await backfillSession(bare, { api, symbols: ['AAPL'], after: '2025-03-12', now: () => thursday }),
    ).to.deep.include({ date: null, bars: 0 });
    expect(alpaca.requests).to.have.length(asked);
    // The next session's first tick starts its candles afresh.
    quotes.applyTick({ symbol: 'AAPL', price: 224, size: 10, ts: Date.parse('2025-03-13T13:30:05Z') });
    expect(quotes.minutes('AAPL')!.candles.map((c) => [c.time, c.close, c.volume])).to.deep.equal([
      ['2025-03-13 09:30', 224, 10],
    ]);
    expect(quotes.minutes('AAPL')!.prevClose).to.equal(223.25);
  });

  it('asks nothing for no symbol, a session already stored, or a day missed', async function () {
    const before = quotes.quote('AAPL');
    const cases: [string, number, readonly string[]][] = [
      // No symbol carried.
      ['2025-03-11', NOW, []],
      // Wednesday's session stored already (the day rolled): not reopened, and it is not over.
      ['2025-03-12', NOW, ['AAPL']],
      // Saturday with Wednesday the last day stored: Thursday and Friday were missed.
      ['2025-03-12', Date.parse('2025-03-15T15:00:00Z'), ['AAPL']],
      // Wednesday before its open with Monday the last day stored: Tuesday was missed.
      ['2025-03-10', Date.parse('2025-03-12T13:29:59Z'), ['AAPL']],
    ];
    for (const [after, now, symbols] of cases) {
      expect(await backfillSession(quotes, { api, symbols, after, now: () => now })).to.deep.equal({
        date: null,
        open: false,
        symbols: 0,
        bars: 0,
        played: [],
      });
    }
    expect(alpaca.requests).to.have.length(0);
    expect(quotes.quote('AAPL')).to.deep.equal(before);
    expect(quotes.minutes('AAPL')).to.equal(undefined);
  });

  it('refuses a bad page whole, naming the row and field, and plays nothing', async function () {
    const good = minute('2025-03-12T13:30:00Z', 221, 223, 220.5, 222, 5_000);
    const cases: [unknown[], string][] = [
      [
        [good, minute('2025-03-12T14:05:00Z', 222, 223, 221, 222, 1)],
        'page 1: bars.AAPL[1].t: 2025-03-12T14:05:00Z is outside the span asked',
      ],
      [[good, good], 'page 1: bars.AAPL[1].t: 2025-03-12T13:30:00Z is not after the bar before'],
      [
        [minute('2025-03-12T13:30:00Z', 221, 220, 219, 222, 5)],
        'page 1: bars.AAPL[0]: low 219 and high 220 do not hold open 221 and close 222',
      ],
      [[{ ...good, v: -1 }], 'page 1: bars.AAPL[0].v: must not be negative'],
    ];
    for (const [rows, message] of cases) {
      alpaca.answer({ body: { bars: { AAPL: rows }, next_page_token: null } });
      const refusal = await backfillSession(quotes, {
        api,
        symbols: ['AAPL'],
        after: '2025-03-11',
        now: () => NOW,
      }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(refusal).to.be.instanceOf(ProviderError);
      expect((refusal as Error).message).to.equal(message);
    }
    expect(quotes.quote('AAPL')).to.deep.include({ price: 220, source: 'close' });
    expect(quotes.minutes('AAPL')).to.equal(undefined);
  });

  it('gives up after its timeout and drops bars that arrive later', async function () {
    // The provider asks for a wait longer than the backfill gives it.
    alpaca.answer(
      { status: 429, headers: { 'retry-after': '1' }, body: { message: 'too many requests' } },
      {
        body: { bars: { AAPL: [minute('2025-03-12T13:30:00Z', 221, 223, 220.5, 222, 5_000)] }, next_page_token: null },
      },
    );
    const refusal = await backfillSession(quotes, {
      api,
      symbols: ['AAPL'],
      after: '2025-03-11',
      now: () => NOW,
      timeoutMs: 50,
    }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refusal).to.be.instanceOf(BackfillTimeout);
    // The retry after the wait gets its bars, which nothing plays.
    const deadline = Date.now() + 5_000;
    while (alpaca.requests.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(alpaca.requests).to.have.length(2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(quotes.quote('AAPL')).to.deep.include({ price: 220, source: 'close' });
  });

  it("asks for the symbols the stream carries, up to the plan's limit, and logs what it did or why not", async function () {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const config = {
      alpaca: { keyId: 'key-id', secretKey: 'secret', feed: 'iex' as const, streamUrl: 'ws://127.0.0.1:1' },
      alpacaDataUrl: alpaca.url,
    };
    // 35 symbols wanted (one invalid, one twice in another case): the free plan's stream carries the first 30.
    const wanted = Array.from({ length: 34 }, (_, i) => `S${String.fromCharCode(65 + (i % 26))}${i >= 26 ? 'X' : ''}`);
    const demand = { symbols: () => [...wanted, 'sa', 'not a symbol'] };
    // Between sessions on Thursday morning, Wednesday stored: the finished day's candles.
    const thursday = Date.parse('2025-03-13T13:00:00Z');
    alpaca.answer({ body: { bars: { SA: [minute('2025-03-12T13:30:00Z', 1, 1, 1, 1, 1)] }, next_page_token: null } });
    expect(await pickUpSession(config, quotes, demand, '2025-03-12', logger, () => thursday)).to.deep.equal([]);
    alpaca.answer({ status: 403, body: { message: 'forbidden' } });
    expect(await pickUpSession(config, quotes, demand, '2025-03-12', logger, () => thursday)).to.deep.equal([]);
    const asked = alpaca.requests[0]!.searchParams.get('symbols')!.split(',');
    expect(asked).to.have.length(30);
    expect(asked).to.deep.equal([...new Set([...wanted, 'SA'])].sort().slice(0, 30));
    const logged = lines.map((line) => JSON.parse(line) as { level: string; msg: string; err?: { message: string } });
    expect(logged[0]).to.deep.include({
      level: 'info',
      msg: "minute candles of 2025-03-12 picked up from the provider's minute bars",
      date: '2025-03-12',
      open: false,
      symbols: 0,
      bars: 0,
    });
    expect(logged[1]).to.deep.include({
      level: 'warn',
      msg: 'the session so far was not picked up: the quotes start from the next tick',
    });
    expect(logged[1]!.err!.message).to.equal(
      'page 1: the provider answered 403: forbidden (check ALPACA_KEY_ID and ALPACA_SECRET_KEY)',
    );
    // Without a provider, nothing is asked.
    expect(
      await pickUpSession({ alpaca: null, alpacaDataUrl: alpaca.url }, quotes, demand, '2025-03-12', logger),
    ).to.deep.equal([]);
    expect(alpaca.requests).to.have.length(2);
  });
});
