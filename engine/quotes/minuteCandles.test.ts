import { expect } from 'chai';
import type { DailyBar } from '../../domain/market/types.ts';
import type { Tick } from '../ticks/tick.ts';
import { LiveQuotes } from './liveQuotes.ts';
import { MinuteBook } from './minuteCandles.ts';

/** 10:00:00 New York (EST) on 2026-01-05. */
const T0 = Date.UTC(2026, 0, 5, 15, 0, 0);

const BARS: DailyBar[] = [
  { date: '2026-01-01', open: 99, high: 100, low: 98, close: 99.5, volume: 1000 },
  { date: '2026-01-02', open: 99.5, high: 101, low: 99, close: 100.5, volume: 1200 },
];

function tick(price: number, size: number, seconds: number): Tick {
  return { symbol: 'AAPL', price, size, ts: T0 + seconds * 1000 };
}

function liveQuotes(): LiveQuotes {
  const quotes = new LiveQuotes([{ symbol: 'AAPL', bars: BARS }]);
  quotes.keepMinutes();
  return quotes;
}

describe('minute candles of the live session', function () {
  it('opens a candle at the first tick of its New York minute and closes it at the last, with its volume', function () {
    const quotes = liveQuotes();
    expect(quotes.minutes('AAPL'), 'before the first tick').to.equal(undefined);
    for (const t of [tick(100, 10, 10), tick(101.5, 5, 30), tick(99.25, 20, 50), tick(100.75, 7, 70)]) {
      quotes.applyTick(t);
    }
    expect(quotes.minutes('AAPL')).to.deep.equal({
      symbol: 'AAPL',
      prevClose: 100.5,
      candles: [
        {
          time: '2026-01-05 10:00',
          start: '2026-01-05T15:00:00.000Z',
          open: 100,
          high: 101.5,
          low: 99.25,
          close: 99.25,
          volume: 35,
          sessionVolume: 35,
        },
        {
          time: '2026-01-05 10:01',
          start: '2026-01-05T15:01:00.000Z',
          open: 100.75,
          high: 100.75,
          low: 100.75,
          close: 100.75,
          volume: 7,
          sessionVolume: 42,
        },
      ],
    });
  });

  it("widens the range of a late tick's own minute and counts its size last, but closes no candle with it", function () {
    const quotes = liveQuotes();
    quotes.applyTick(tick(100, 10, 10));
    quotes.applyTick(tick(100.75, 7, 70));
    // Reported late: a trade of the first minute (at 0:55) after one of the second (1:10).
    quotes.applyTick(tick(102, 1, 55));
    // Late within the last minute: a trade at 1:05 after the one at 1:10.
    quotes.applyTick(tick(99.5, 2, 65));
    expect(quotes.minutes('AAPL')?.candles).to.deep.equal([
      {
        time: '2026-01-05 10:00',
        start: '2026-01-05T15:00:00.000Z',
        open: 100,
        high: 102,
        low: 100,
        close: 100,
        volume: 10,
        sessionVolume: 10,
      },
      {
        time: '2026-01-05 10:01',
        start: '2026-01-05T15:01:00.000Z',
        open: 100.75,
        high: 100.75,
        low: 99.5,
        close: 100.75,
        volume: 10,
        sessionVolume: 20,
      },
    ]);
    expect(quotes.quote('AAPL')).to.include({ price: 100.75, high: 102, low: 99.5, volume: 20 });
    // The next trade in sequence closes the candle as before.
    quotes.applyTick(tick(101, 1, 75));
    expect(quotes.minutes('AAPL')?.candles.at(-1)).to.include({ close: 101, volume: 11, sessionVolume: 21 });
  });

  it("keeps the closed session's candles until the next session's first tick starts afresh", function () {
    const quotes = liveQuotes();
    quotes.applyTick(tick(100, 10, 10));
    quotes.applyTick(tick(101, 10, 70));
    quotes.roll({
      date: '2026-01-05',
      bars: [{ symbol: 'AAPL', date: '2026-01-05', open: 100, high: 101, low: 100, close: 101, volume: 20 }],
    });
    expect(quotes.minutes('AAPL')?.candles.map((c) => c.time)).to.deep.equal(['2026-01-05 10:00', '2026-01-05 10:01']);
    quotes.applyTick(tick(101.5, 3, 86_400));
    expect(quotes.minutes('AAPL')).to.deep.equal({
      symbol: 'AAPL',
      prevClose: 101,
      candles: [
        {
          time: '2026-01-06 10:00',
          start: '2026-01-06T15:00:00.000Z',
          open: 101.5,
          high: 101.5,
          low: 101.5,
          close: 101.5,
          volume: 3,
          sessionVolume: 3,
        },
      ],
    });
  });

  it('labels minutes on the New York clock in summer too, and keeps the latest ones only', function () {
    const book = new MinuteBook(3);
    // 09:30 New York (EDT) on 2026-07-01, then a minute each.
    const open = Date.UTC(2026, 6, 1, 13, 30, 0);
    for (let m = 0; m < 5; m++) book.record('MSFT', 1, 40_000 + m, 100 * (m + 1), open + m * 60_000, 39_900);
    expect(book.candles('MSFT')?.candles.map((c) => [c.time, c.close, c.volume])).to.deep.equal([
      ['2026-07-01 09:32', 400.02, 100],
      ['2026-07-01 09:33', 400.03, 100],
      ['2026-07-01 09:34', 400.04, 100],
    ]);
    expect(book.candles('MSFT')?.prevClose).to.equal(399);
  });

  it("keeps none for quotes that were not asked to (the alert engine's own)", function () {
    const quotes = new LiveQuotes([{ symbol: 'AAPL', bars: BARS }]);
    quotes.applyTick(tick(100, 10, 10));
    expect(quotes.minutes('AAPL')).to.equal(undefined);
  });
});
