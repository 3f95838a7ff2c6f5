import { expect } from 'chai';
import type { DailyBar } from '../../domain/market/types.ts';
import { computeIndicatorsOfCloses } from '../indicators/indicators.ts';
import type { QuoteSource } from '../market/quotes.ts';
import { closeInstant } from '../market/series.ts';
import type { Tick } from '../ticks/tick.ts';
import { LiveQuotes } from './liveQuotes.ts';

const T0 = Date.parse('2025-01-02T14:30:00Z');

function barsOf(closes: readonly number[], volume = 1000): DailyBar[] {
  return closes.map((close, i) => {
    const day = new Date(Date.UTC(2024, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
    return { date: day, open: close, high: close + 1, low: close - 1, close, volume: volume + i };
  });
}

function tick(symbol: string, price: number, size = 100, at = 0): Tick {
  return { symbol, price, size, ts: T0 + at };
}

/** 260 closes wandering around 100, each a whole number of cents. */
const CLOSES = Array.from(
  { length: 260 },
  (_, i) => Math.round((100 + 10 * Math.sin(i / 7) + (i % 5) * 0.37) * 100) / 100,
);

describe('live quotes', function () {
  it("names a tick's feed and time on its quote, and the close after the day closes", function () {
    const quotes = new LiveQuotes([{ symbol: 'AAPL', bars: barsOf([190, 200]) }], 'alpaca-sip');
    expect(quotes.quote('AAPL')?.source).to.equal('close');
    quotes.applyTick(tick('AAPL', 201, 300, 1500));
    expect(quotes.quote('AAPL')).to.include({ source: 'alpaca-sip', ts: new Date(T0 + 1500).toISOString() });
    quotes.roll({
      date: '2026-01-05',
      bars: [{ symbol: 'AAPL', date: '2026-01-05', open: 200, high: 201, low: 200, close: 201, volume: 300 }],
    });
    expect(quotes.quote('AAPL')?.source).to.equal('close');
    quotes.applyTick(tick('AAPL', 202, 10, 90_000_000));
    expect(quotes.quote('AAPL')).to.include({ source: 'alpaca-sip', ts: new Date(T0 + 90_000_000).toISOString() });
  });

  it('starts each symbol from its latest finished day, as the last-close quotes do', function () {
    const bars = barsOf([190, 192.5]);
    const quotes = new LiveQuotes([{ symbol: 'AAPL', bars }]);
    expect(quotes.quote('AAPL')).to.deep.equal({
      symbol: 'AAPL',
      price: 192.5,
      change: 2.5,
      changepct: 1.32,
      volume: 1001,
      ts: closeInstant(bars[1]!.date),
      source: 'close',
      prevClose: 190,
      open: 192.5,
      high: 193.5,
      low: 191.5,
    });
  });

  it("starts a new day at the first tick: change from the last close, the range and volume of today's ticks", function () {
    const quotes = new LiveQuotes([{ symbol: 'AAPL', bars: barsOf([190, 200]) }]);
    quotes.applyTick(tick('AAPL', 201, 300));
    quotes.applyTick(tick('AAPL', 198.75, 200, 1000));
    quotes.applyTick(tick('AAPL', 199.5, 50, 2000));
    expect(quotes.quote('AAPL')).to.deep.equal({
      symbol: 'AAPL',
      price: 199.5,
      change: -0.5,
      changepct: -0.25,
      volume: 550,
      ts: new Date(T0 + 2000).toISOString(),
      source: 'feed',
      prevClose: 200,
      // The session's first tick.
      open: 201,
      high: 201,
      low: 198.75,
    });
  });

  it("opens the live session at the day's first tick, against the previous close, until the next one", function () {
    const quotes = new LiveQuotes([{ symbol: 'AAPL', bars: barsOf([190, 200]) }]);
    expect(quotes.session('AAPL'), 'no session before the first tick').to.equal(undefined);
    quotes.applyTick(tick('AAPL', 203.1, 300));
    quotes.applyTick(tick('AAPL', 198.75, 200, 1000));
    expect(quotes.session('AAPL')).to.deep.equal({ open: 203.1, prevClose: 200 });
    quotes.roll({
      date: '2025-01-02',
      bars: [{ symbol: 'AAPL', date: '2025-01-02', open: 203.1, high: 203.1, low: 198.75, close: 198.75, volume: 500 }],
    });
    expect(quotes.session('AAPL'), 'the session that closed, until the next tick').to.deep.equal({
      open: 203.1,
      prevClose: 200,
    });
    quotes.applyTick(tick('AAPL', 197, 20, 86_400_000));
    quotes.applyTick(tick('AAPL', 199, 20, 86_401_000));
    expect(quotes.session('AAPL')).to.deep.equal({ open: 197, prevClose: 198.75 });
    expect(quotes.session('NOPE')).to.equal(undefined);
    // A day that closes without a tick of the symbol tells no session.
    quotes.roll({
      date: '2025-01-03',
      bars: [{ symbol: 'AAPL', date: '2025-01-03', open: 197, high: 199, low: 197, close: 199, volume: 40 }],
    });
    quotes.roll({
      date: '2025-01-06',
      bars: [{ symbol: 'AAPL', date: '2025-01-06', open: 199, high: 199, low: 199, close: 199, volume: 0 }],
    });
    expect(quotes.session('AAPL'), 'no tick since the last close').to.equal(undefined);
    quotes.applyTick(tick('NEW', 12.34, 10));
    expect(quotes.session('NEW'), 'a symbol first seen in a tick').to.deep.equal({ open: 12.34, prevClose: null });
  });

  it('replaces the entry of a symbol on each tick, never adding a second one', function () {
    const quotes = new LiveQuotes([
      { symbol: 'AAPL', bars: barsOf([190]) },
      { symbol: 'MSFT', bars: barsOf([420]) },
    ]);
    const before = quotes.quote('AAPL')!;
    for (let i = 0; i < 100; i++) quotes.applyTick(tick(i % 3 ? 'AAPL' : 'MSFT', 190 + i / 100, 1, i));
    const all = quotes.quotes(quotes.symbols());
    expect(all.map((q) => q.symbol)).to.deep.equal(['AAPL', 'MSFT']);
    expect(quotes.quote('AAPL')).to.not.equal(before);
    expect(before.price, 'an earlier snapshot never changes').to.equal(190);
    expect(Object.isFrozen(before)).to.be.true;
    expect(quotes.quote('AAPL')).to.equal(quotes.quote('AAPL'));
  });

  it('is a QuoteSource: the quotes asked for, in that order, without unknown symbols', function () {
    const source: QuoteSource = new LiveQuotes([
      { symbol: 'AAPL', bars: barsOf([190]) },
      { symbol: 'MSFT', bars: barsOf([420]) },
    ]);
    expect(source.quotes(['MSFT', 'NOPE', 'AAPL']).map((q) => q.symbol)).to.deep.equal(['MSFT', 'AAPL']);
    expect(source.quote('NOPE')).to.equal(undefined);
  });

  it('keeps the prices in whole cents, rounding as the alert thresholds do', function () {
    const quotes = new LiveQuotes();
    expect(quotes.applyTick(tick('AAPL', 190.005)).cents).to.equal(19001);
    expect(quotes.quote('AAPL')!.price).to.equal(190.01);
  });

  it('gives a symbol first seen in a tick a quote without a previous close', function () {
    const quotes = new LiveQuotes();
    const move = quotes.applyTick(tick('NEW', 12.34, 10));
    expect(move.prevCents).to.be.NaN;
    expect(quotes.quote('NEW')).to.deep.include({ price: 12.34, change: 0, changepct: 0, prevClose: null, volume: 10 });
  });

  it('tells each tick how it moved the price, in cents', function () {
    const quotes = new LiveQuotes([{ symbol: 'AAPL', bars: barsOf([190]) }]);
    const first = quotes.applyTick(tick('AAPL', 190.5));
    expect([first.prevCents, first.cents]).to.deep.equal([19000, 19050]);
    const second = quotes.applyTick(tick('AAPL', 189.99));
    expect([second.prevCents, second.cents]).to.deep.equal([19050, 18999]);
  });

  it('keeps the latest trade as the price when a tick is reported late: its size and range count, not its price', function () {
    const quotes = new LiveQuotes([{ symbol: 'AAPL', bars: barsOf([190]) }]);
    quotes.applyTick(tick('AAPL', 190.5, 100, 2000));
    const late = quotes.applyTick(tick('AAPL', 195, 40, 1000));
    expect([late.prevCents, late.cents, late.volume], 'no move').to.deep.equal([19050, 19050, 140]);
    expect(quotes.quote('AAPL')).to.deep.include({
      price: 190.5,
      high: 195,
      low: 190.5,
      volume: 140,
      ts: new Date(T0 + 2000).toISOString(),
    });
    // A tick of the same time as the latest is in sequence.
    expect(quotes.applyTick(tick('AAPL', 189, 10, 2000)).cents).to.equal(18900);
    expect(quotes.quote('AAPL')).to.deep.include({ price: 189, low: 189, volume: 150 });
    // After a close, the next session's first tick starts it whatever its time.
    quotes.roll({
      date: '2025-01-02',
      bars: [{ symbol: 'AAPL', date: '2025-01-02', open: 190.5, high: 195, low: 189, close: 189, volume: 150 }],
    });
    expect(quotes.applyTick(tick('AAPL', 191, 5, 500)).cents).to.equal(19100);
  });

  it('rolls at the close: the quote shows the finished day until the next tick measures from its close', function () {
    const quotes = new LiveQuotes([{ symbol: 'AAPL', bars: barsOf([190, 200]) }]);
    quotes.applyTick(tick('AAPL', 210, 500));
    quotes.roll({
      date: '2025-01-02',
      bars: [{ symbol: 'AAPL', date: '2025-01-02', open: 210, high: 210, low: 205, close: 205, volume: 900 }],
    });
    expect(quotes.quote('AAPL')).to.deep.include({
      price: 205,
      prevClose: 200,
      change: 5,
      changepct: 2.5,
      volume: 500,
    });
    quotes.applyTick(tick('AAPL', 207.05, 20, 86_400_000));
    expect(quotes.quote('AAPL')).to.deep.include({
      price: 207.05,
      prevClose: 205,
      change: 2.05,
      changepct: 1,
      volume: 20,
      high: 207.05,
      low: 207.05,
    });
  });

  it('rolls a day without a tick of its own as quotes seeded from its bar would show it: its range, volume, change', function () {
    const bars = barsOf([190, 200]);
    const closed = { symbol: 'AAPL', date: '2024-01-03', open: 199, high: 204, low: 198, close: 203, volume: 900 };
    const quotes = new LiveQuotes([{ symbol: 'AAPL', bars }]);
    quotes.roll({ date: closed.date, bars: [closed] });
    const seeded = new LiveQuotes([{ symbol: 'AAPL', bars: [...bars, closed] }]);
    expect(quotes.quote('AAPL')).to.deep.equal(seeded.quote('AAPL'));
    expect(quotes.quote('AAPL')).to.deep.include({
      price: 203,
      prevClose: 200,
      change: 3,
      changepct: 1.5,
      volume: 900,
    });
    // A flat day of a symbol that did not trade: no change, not the day before's.
    const flat = { ...closed, date: '2024-01-04', open: 203, high: 203, low: 203, volume: 0 };
    quotes.roll({ date: flat.date, bars: [flat] });
    expect(quotes.quote('AAPL')).to.deep.include({ price: 203, prevClose: 203, change: 0, changepct: 0, volume: 0 });
  });

  it('rolls a trading day once, a day it was seeded with not at all, and a played day always', function () {
    const bars = barsOf([190, 200]);
    const seededDate = bars.at(-1)!.date;
    const quotes = new LiveQuotes([
      { symbol: 'AAPL', bars },
      { symbol: 'MSFT', bars: barsOf([100]) },
    ]);
    const seeded = quotes.quote('AAPL');
    const closeOf = (date: string, close: number, played?: 'replay' | 'demo') => ({
      date,
      bars: [{ symbol: 'AAPL', date, open: close, high: close, low: close, close, volume: 10 }],
      ...(played ? { played } : {}),
    });
    expect(quotes.hasClosed(closeOf(seededDate, 210))).to.equal(true);
    quotes.roll(closeOf(seededDate, 210));
    expect(quotes.quote('AAPL')).to.deep.equal(seeded);

    const next = closeOf('2024-01-03', 203);
    expect(quotes.hasClosed(next)).to.equal(false);
    quotes.roll(next);
    const once = { quote: quotes.quote('AAPL'), indicators: quotes.indicators('AAPL') };
    expect(once.quote).to.deep.include({ price: 203, prevClose: 200 });
    expect(quotes.hasClosed(next)).to.equal(true);
    quotes.roll(next);
    expect({ quote: quotes.quote('AAPL'), indicators: quotes.indicators('AAPL') }).to.deep.equal(once);
    // A close with a symbol whose day is new is not one the quotes have; that symbol alone rolls.
    const both = { date: next.date, bars: [...next.bars, { ...next.bars[0]!, symbol: 'MSFT', close: 101 }] };
    expect(quotes.hasClosed(both)).to.equal(false);
    quotes.roll(both);
    expect(quotes.quote('AAPL')).to.deep.equal(once.quote);
    expect(quotes.quote('MSFT')).to.deep.include({ price: 101, prevClose: 100 });

    // A replayed day, older than the seeded ones, is played at every start: it rolls, and leaves the date alone.
    const replayed = closeOf('2023-12-29', 180, 'replay');
    expect(quotes.hasClosed(replayed)).to.equal(false);
    quotes.roll(replayed);
    expect(quotes.quote('AAPL')).to.deep.include({ price: 180, prevClose: 203 });
    expect(quotes.hasClosed(next)).to.equal(true);
  });

  it("gives the indicators with the live price as today's forming close, then the finished day's after the roll", function () {
    const quotes = new LiveQuotes([{ symbol: 'XYZ', bars: barsOf(CLOSES) }]);
    const expectRow = (closes: number[]): void => {
      const row = computeIndicatorsOfCloses(closes).at(-1)!;
      const live = quotes.indicators('XYZ')!;
      for (const key of Object.keys(row) as (keyof typeof row)[]) {
        expect(live[key], key).to.be.closeTo(row[key]!, 1e-9);
      }
    };
    expectRow(CLOSES);
    quotes.applyTick(tick('XYZ', 111.11));
    quotes.applyTick(tick('XYZ', 95.5));
    expectRow([...CLOSES, 95.5]);
    expect(quotes.sma('XYZ', 50)).to.be.closeTo(computeIndicatorsOfCloses([...CLOSES, 95.5]).at(-1)!.SMA_50!, 1e-9);
    quotes.roll({
      date: '2025-01-02',
      bars: [{ symbol: 'XYZ', date: '2025-01-02', open: 95.5, high: 111.11, low: 95.5, close: 96, volume: 1 }],
    });
    expectRow([...CLOSES, 96]);
    quotes.applyTick(tick('XYZ', 97));
    expectRow([...CLOSES, 96, 97]);
  });

  it('sums the last period − 1 finished closes in cents for each moving average, and moves them on at the roll', function () {
    const quotes = new LiveQuotes([{ symbol: 'XYZ', bars: barsOf(CLOSES) }]);
    const cents = CLOSES.map((c) => Math.round(c * 100));
    const sum = (values: number[]): number => values.reduce((s, v) => s + v, 0);
    for (const period of [20, 50, 100, 200] as const) {
      expect(quotes.smaBase('XYZ', period), `SMA ${period}`).to.equal(sum(cents.slice(-(period - 1))));
    }
    quotes.roll({
      date: '2025-01-02',
      bars: [{ symbol: 'XYZ', date: '2025-01-02', open: 1, high: 1, low: 1, close: 1.01, volume: 1 }],
    });
    expect(quotes.smaBase('XYZ', 20)).to.equal(sum([...cents, 101].slice(-19)));
    expect(quotes.smaBase('XYZ', 200)).to.equal(sum([...cents, 101].slice(-199)));
  });

  it('has no moving average before enough finished closes', function () {
    const quotes = new LiveQuotes([{ symbol: 'NEW', bars: barsOf(CLOSES.slice(0, 18)) }]);
    expect(quotes.smaBase('NEW', 20)).to.equal(null);
    expect(quotes.sma('NEW', 20)).to.equal(null);
    quotes.roll({
      date: '2025-01-02',
      bars: [{ symbol: 'NEW', date: '2025-01-02', open: 1, high: 1, low: 1, close: 1, volume: 1 }],
    });
    expect(quotes.smaBase('NEW', 20)).to.be.a('number');
    expect(quotes.smaBase('NEW', 50)).to.equal(null);
  });

  it('tells listeners which symbol changed, until they unsubscribe', function () {
    const quotes = new LiveQuotes([{ symbol: 'AAPL', bars: barsOf([190]) }]);
    const seen: string[] = [];
    const stop = quotes.onUpdate((symbol) => seen.push(symbol));
    quotes.apply([tick('AAPL', 191), tick('MSFT', 420)]);
    quotes.roll({
      date: '2025-01-02',
      bars: [{ symbol: 'AAPL', date: '2025-01-02', open: 1, high: 1, low: 1, close: 1, volume: 1 }],
    });
    stop();
    quotes.applyTick(tick('AAPL', 192));
    expect(seen).to.deep.equal(['AAPL', 'MSFT', 'AAPL']);
  });

  it('seeds itself from the market store', function () {
    const asked: { symbols: readonly string[]; n: number }[] = [];
    const store = {
      allSymbols: () => ['AAPL', 'KO'],
      lastBars: (symbols: readonly string[], n: number) => {
        asked.push({ symbols, n });
        return new Map(symbols.map((s) => [s, barsOf(s === 'AAPL' ? [190, 191] : [60])]));
      },
    };
    const quotes = LiveQuotes.fromStore(store);
    expect(asked).to.deep.equal([{ symbols: ['AAPL', 'KO'], n: 400 }]);
    expect(quotes.quotes(['AAPL', 'KO']).map((q) => q.price)).to.deep.equal([191, 60]);
    expect(LiveQuotes.fromStore(store, { symbols: ['KO'], days: 10 }).symbols()).to.deep.equal(['KO']);
  });
});
