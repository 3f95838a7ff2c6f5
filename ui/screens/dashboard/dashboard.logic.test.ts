import { expect } from 'chai';
import type { Quote } from '../../../domain/market/types.ts';
import fc from 'fast-check';
import {
  axisTicks,
  cardAlertMarks,
  addLayout,
  addStock,
  cardAverage,
  applyQuote,
  breadth,
  capList,
  changeSince,
  DEFAULT_LAYOUT,
  EMPTY_LIVE,
  followedWatchlist,
  watchlistCopy,
  keepLive,
  listSource,
  patternLabel,
  peRatio,
  performanceBars,
  periodBars,
  paddedRange,
  priceRange,
  removeLayout,
  shownStocks,
  sliderLabel,
  sliderMonths,
  toggleComponent,
  todayLine,
  TRAIL_MAX,
} from './dashboard.logic.ts';

/** A quote of a session whose previous close is `prevClose`. */
function q(symbol: string, price: number, changepct = 0, ts = `t${price}`, prevClose = 100): Quote {
  const change = Math.round((price - prevClose) * 10_000) / 10_000;
  return { symbol, price, change, changepct, volume: 1, ts, source: 'simulated' };
}

const NO_FLAGS = { sectorflag: false, watchlistflag: false };
const SECTOR = { sectorflag: true, watchlistflag: false };
const WATCHLIST = { sectorflag: false, watchlistflag: true };

describe('dashboard rules', () => {
  describe('layouts', () => {
    it('toggles a component: appended when absent, removed when present, other layouts untouched', () => {
      const added = toggleComponent(DEFAULT_LAYOUT, 1, 4);
      expect(added).to.deep.equal([
        { layoutId: 1, compId: [1, 4] },
        { layoutId: 2, compId: [2] },
        { layoutId: 3, compId: [3] },
      ]);
      expect(toggleComponent(added, 1, 1)[0]).to.deep.equal({ layoutId: 1, compId: [4] });
      expect(toggleComponent(added, 9, 1)).to.deep.equal(added);
    });

    it('adds a layout with the next free id up to 12, and removes one', () => {
      let layouts = DEFAULT_LAYOUT;
      for (let i = 0; i < 12; i += 1) layouts = addLayout(layouts);
      expect(layouts).to.have.length(12);
      expect(layouts.at(-1)).to.deep.equal({ layoutId: 12, compId: [] });
      expect(removeLayout(layouts, 2).map((l) => l.layoutId)).to.not.include(2);
    });
  });

  describe('stock list', () => {
    const portfolio = ['AAPL', 'MSFT'];
    const watchlist = ['NVDA'];

    it('keeps the first 30 without repeats', () => {
      const many = [...Array.from({ length: 40 }, (_, i) => `S${i}`), 'S0'];
      expect(capList(many)).to.have.length(30);
      expect(capList(['A', 'B', 'A'])).to.deep.equal(['A', 'B']);
    });

    it('shows the portfolio while no list is saved, else the saved list', () => {
      expect(shownStocks({ saved: [], portfolio, watchlist })).to.deep.equal(portfolio);
      expect(shownStocks({ saved: ['XOM'], portfolio, watchlist })).to.deep.equal(['XOM']);
    });

    it('names the source the list matches', () => {
      expect(listSource({ saved: [], portfolio, watchlist }, NO_FLAGS)).to.equal('portfolio');
      expect(listSource({ saved: ['AAPL', 'MSFT'], portfolio, watchlist }, NO_FLAGS)).to.equal('portfolio');
      expect(listSource({ saved: ['NVDA'], portfolio, watchlist }, NO_FLAGS)).to.equal('watchlist');
      expect(listSource({ saved: ['NVDA', 'XOM'], portfolio, watchlist }, NO_FLAGS)).to.equal('custom');
      expect(listSource({ saved: ['XOM'], portfolio, watchlist }, SECTOR)).to.equal('sector');
      expect(listSource({ saved: ['XOM'], portfolio, watchlist }, WATCHLIST), 'its flag on').to.equal('watchlist');
    });

    it('follows the watch list it showed: the first 30 of the one read again, unless the list was changed', () => {
      const before = { saved: ['AAPL', 'KO'], portfolio: ['NVDA'], watchlist: ['AAPL', 'KO'] };
      const moved = { ...before, watchlist: ['AAPL', 'XOM'] };
      expect(followedWatchlist(before, moved, NO_FLAGS)).to.deep.equal(['AAPL', 'XOM']);
      const long = Array.from({ length: 40 }, (_, i) => `W${i}`);
      expect(followedWatchlist(before, { ...before, watchlist: long }, NO_FLAGS)).to.deep.equal(long.slice(0, 30));
      expect(followedWatchlist(before, before, NO_FLAGS), 'the watch list did not move').to.equal(null);
      expect(followedWatchlist(before, { ...moved, saved: ['TSLA'] }, NO_FLAGS), 'the list was set meanwhile').to.equal(
        null,
      );
      expect(followedWatchlist(before, { ...moved, watchlist: [] }, NO_FLAGS), 'an empty watch list').to.equal(null);
      expect(followedWatchlist({ ...before, saved: ['TSLA'] }, moved, NO_FLAGS), 'a list of its own').to.equal(null);
      expect(followedWatchlist(before, moved, SECTOR), 'a sector shown').to.equal(null);
    });

    it('takes the watch list as it is now when the dashboard follows it and its copy lags', () => {
      const lagging = { saved: ['AAPL', 'KO'], portfolio: ['NVDA'], watchlist: ['AAPL', 'XOM'] };
      expect(watchlistCopy(lagging, WATCHLIST)).to.deep.equal(['AAPL', 'XOM']);
      expect(watchlistCopy(lagging, NO_FLAGS), 'not followed').to.equal(null);
      expect(watchlistCopy({ ...lagging, saved: ['AAPL', 'XOM'] }, WATCHLIST), 'in step').to.equal(null);
      expect(watchlistCopy({ ...lagging, watchlist: [] }, WATCHLIST), 'an empty watch list').to.equal(null);
    });

    it('adds a new symbol at the end and refuses a repeat or a 31st', () => {
      expect(addStock(['A'], 'B')).to.deep.equal({ list: ['A', 'B'] });
      expect(addStock(['A'], 'A')).to.deep.equal({ refused: 'A is already on the dashboard' });
      const full = Array.from({ length: 30 }, (_, i) => `S${i}`);
      expect(addStock(full, 'X')).to.have.property('refused');
    });
  });

  describe('slider', () => {
    it('turns the slider into months from 1 to 60', () => {
      expect(sliderMonths({ type: 'M', val: 3 })).to.equal(3);
      expect(sliderMonths({ type: 'Y', val: 2 })).to.equal(24);
      expect(sliderMonths({ type: 'Y', val: 10 })).to.equal(60);
      expect(sliderMonths({ type: 'W', val: 5 })).to.equal(2);
      expect(sliderMonths({ type: 'D', val: 5 })).to.equal(1);
      expect(sliderLabel({ type: 'M', val: 1 })).to.equal('1 month');
      expect(sliderLabel({ type: 'M', val: 3 })).to.equal('3 months');
    });
  });

  describe('live quotes', () => {
    it('does not flash the first quote, flashes moves, and not a repeat of the same price', () => {
      let state = applyQuote(EMPTY_LIVE, q('A', 10));
      expect(state.flashes).to.deep.equal({});
      state = applyQuote(state, q('A', 9));
      expect(state.flashes.A).to.deep.equal({ dir: 'down', seq: 1 });
      state = applyQuote(state, q('A', 9, 0, 'later'));
      expect(state.flashes.A).to.deep.equal({ dir: 'down', seq: 1 });
      expect(state.trails.A?.map((p) => p.price)).to.deep.equal([10, 9, 9]);
    });

    it("starts a symbol's trail over with a quote of a later session, the demo clock's of a few minutes too", () => {
      let state = applyQuote(EMPTY_LIVE, q('A', 10, 0, 't1', 9.5));
      state = applyQuote(state, q('A', 10.2, 0, 't2', 9.5));
      state = applyQuote(state, q('B', 5, 0, 't2', 5));
      // The session closed at 10.2; the next one's first quote.
      state = applyQuote(state, q('A', 10.3, 0, 't3', 10.2));
      expect(state.trails.A?.map((p) => p.price)).to.deep.equal([10.3]);
      expect(state.trails.B?.map((p) => p.price)).to.deep.equal([5]);
      // A change rounded to 4 decimals is the same session.
      state = applyQuote(state, { ...q('A', 10.41, 0, 't4', 10.2), change: 0.2100001 });
      expect(state.trails.A?.map((p) => p.price)).to.deep.equal([10.3, 10.41]);
    });

    it("draws Today as the session's minutes from the server up to the first live price, then the live prices", () => {
      const minute = (start: string, close: number) => ({
        time: '',
        start,
        open: close,
        high: close,
        low: close,
        close,
        volume: 1,
        sessionVolume: 1,
      });
      const session = {
        symbol: 'A',
        prevClose: 9.5,
        candles: [
          minute('2026-01-05T14:30:00.000Z', 9.8),
          minute('2026-01-05T14:31:00.000Z', 9.9),
          minute('2026-01-05T14:32:00.000Z', 10.1),
        ],
      };
      const trail = [
        { ts: '2026-01-05T14:32:10.000Z', price: 10, prevClose: 9.5 },
        { ts: '2026-01-05T14:32:20.000Z', price: 10.05, prevClose: 9.5 },
      ];
      expect(todayLine(session, trail)).to.deep.equal([
        { ts: '2026-01-05T14:30:00.000Z', price: 9.8, prevClose: 9.5 },
        { ts: '2026-01-05T14:31:00.000Z', price: 9.9, prevClose: 9.5 },
        { ts: '2026-01-05T14:32:00.000Z', price: 10.1, prevClose: 9.5 },
        ...trail,
      ]);
      expect(
        todayLine(session, []).map((p) => p.price),
        'no live price yet',
      ).to.deep.equal([9.8, 9.9, 10.1]);
      const later = [{ ts: '2026-01-05T14:40:00.000Z', price: 10.3, prevClose: 10.2 }];
      expect(todayLine(session, later), "another session's live prices").to.equal(later);
      expect(todayLine(null, trail), 'no minutes').to.equal(trail);
    });

    it('keeps at most the trail limit of prices and drops symbols no longer shown', () => {
      let state = EMPTY_LIVE;
      for (let i = 0; i < TRAIL_MAX + 5; i += 1) state = applyQuote(state, q('A', 100 + i));
      expect(state.trails.A).to.have.length(TRAIL_MAX);
      state = applyQuote(state, q('B', 1));
      expect(Object.keys(keepLive(state, ['B']).quotes)).to.deep.equal(['B']);
    });

    it('counts the breadth of the shown stocks that have a quote', () => {
      const quotes = { A: q('A', 1, 2), B: q('B', 1, -1), C: q('C', 1, 0) };
      expect(breadth(['A', 'B', 'C', 'D'], quotes)).to.deep.equal({ up: 1, down: 1, flat: 1, averagePct: 0.33 });
      expect(breadth([], quotes).averagePct).to.equal(null);
    });
  });

  describe('figures', () => {
    it('computes the change since a close, and nothing without a close', () => {
      expect(changeSince(100, 110)).to.deep.equal({ change: 10, pct: 10 });
      expect(changeSince(200, 150)).to.deep.equal({ change: -50, pct: -25 });
      expect(changeSince(null, 110)).to.equal(null);
      expect(changeSince(0, 110)).to.equal(null);
    });

    it('computes P/E only for positive earnings', () => {
      expect(peRatio(150, 6)).to.equal(25);
      expect(peRatio(150, -2)).to.equal(null);
      expect(peRatio(150, null)).to.equal(null);
    });

    it('labels patterns as people read them', () => {
      expect(patternLabel('bullish_engulfing')).to.equal('Bullish engulfing');
      expect(patternLabel('new_shape')).to.equal('new shape');
    });

    it('finds the range of bars', () => {
      expect(
        priceRange([
          { low: 5, high: 9 },
          { low: 3, high: 7 },
        ]),
      ).to.deep.equal({ low: 3, high: 9 });
      expect(priceRange([])).to.equal(null);
    });

    it("pads a small chart's price axis a tenth of the span each side, a flat series half a percent", () => {
      expect(paddedRange([200, 240, 220])).to.deep.equal([196, 244]);
      // An alert line above the prices widens the axis to it; a missing threshold is no value.
      expect(paddedRange([10, 20, 30, NaN])).to.deep.equal([8, 32]);
      expect(paddedRange([100, 100])).to.deep.equal([99.5, 100.5]);
      expect(paddedRange([0])).to.deep.equal([-0.01, 0.01]);
      expect(paddedRange([])).to.equal(null);
      expect(paddedRange([NaN])).to.equal(null);
    });

    it("labels a small chart's price axis two to five times, at round steps within it", () => {
      // Plotly under a cap of four labels gave this range one label, 500.
      expect(axisTicks([455, 545])).to.deep.equal([460, 480, 500, 520, 540]);
      expect(axisTicks([196, 244])).to.deep.equal([200, 210, 220, 230, 240]);
      expect(axisTicks([99.5, 100.5])).to.deep.equal([99.6, 99.8, 100, 100.2, 100.4]);
      expect(axisTicks([-0.01, 0.01])).to.deep.equal([-0.01, -0.005, 0, 0.005, 0.01]);
      expect(axisTicks([3, 3])).to.deep.equal([]);
      expect(axisTicks([Number.NaN, 3])).to.deep.equal([]);
      fc.assert(
        fc.property(
          fc.double({ min: 0.01, max: 1e6, noNaN: true }),
          fc.double({ min: 1e-3, max: 10, noNaN: true }),
          (price, share) => {
            const range: [number, number] = paddedRange([price, price * (1 + share)])!;
            const ticks = axisTicks(range);
            expect(ticks.length).to.be.within(2, 5);
            for (const t of ticks) expect(t).to.be.within(range[0], range[1]);
            const steps = ticks.slice(1).map((t, i) => t - ticks[i]!);
            for (const step of steps) expect(step).to.be.closeTo(steps[0]!, steps[0]! * 1e-6);
          },
        ),
        { numRuns: 500, seed: 5 },
      );
    });

    it('takes the last known % change of each series, highest first', () => {
      expect(
        performanceBars([
          { symbol: 'A', values: [0, 2, null] },
          { symbol: 'B', values: [0, 5] },
          { symbol: 'C', values: [null, null] },
          { symbol: 'D', values: [0, -3] },
        ]),
      ).to.deep.equal([
        { symbol: 'B', pct: 5 },
        { symbol: 'A', pct: 2 },
        { symbol: 'D', pct: -3 },
      ]);
    });
  });

  it("gives a card today's averages at its live quote, today's price counted, and the last bar's without one", () => {
    const bars = [{ date: '2026-01-05', close: 100, SMA_50: 100, SMA_200: null }];
    const next = { after: '2026-01-05', SMA_20: null, SMA_50: 4900, SMA_100: null, SMA_200: null, rsi_14: null };
    const at = (price: number, ts: string) => ({ price, ts });
    expect(cardAverage(50, bars, next, at(150, '2026-01-06T15:00:00Z'))).to.equal(101);
    expect(cardAverage(50, bars, next, at(110, '2026-01-05T19:00:00Z'))).to.be.closeTo(100.2, 1e-9);
    expect(cardAverage(50, bars, next, undefined)).to.equal(100);
    expect(cardAverage(50, bars, next, at(90, '2026-01-02T19:00:00Z')), 'an older quote').to.equal(100);
    expect(cardAverage(200, bars, next, at(150, '2026-01-06T15:00:00Z')), 'too short a history').to.equal(null);
    expect(cardAverage(50, [], next, at(150, '2026-01-06T15:00:00Z'))).to.equal(null);
  });
  it("ends a card's period at the live price: today's bar formed from the quote, the last bar moved by its own", () => {
    const averages = { SMA_20: null, SMA_50: null, SMA_100: null, SMA_200: null, rsi_14: null };
    const bar = (date: string, close: number) => ({ date, open: close, high: close, low: close, close, volume: 9 });
    const bars = [
      { ...bar('2026-01-02', 98), ...averages },
      { ...bar('2026-01-05', 100), ...averages },
    ];
    const next = { after: '2026-01-05', ...averages };
    expect(periodBars(bars, next, undefined)).to.equal(bars);
    // The next session (its change from 100) forms 2026-01-06's bar at the price.
    const today = periodBars(bars, next, q('AAPL', 103, 3, '2026-01-06T15:00:00Z'));
    expect(today.map((b) => [b.date, b.close])).to.deep.equal([
      ['2026-01-02', 98],
      ['2026-01-05', 100],
      ['2026-01-06', 103],
    ]);
    // A late quote of the last bar's own session (its change from 98) moves that bar's close.
    const late = periodBars(bars, next, q('AAPL', 101, 3, '2026-01-05T20:59:00Z', 98));
    expect(late.map((b) => [b.date, b.close])).to.deep.equal([
      ['2026-01-02', 98],
      ['2026-01-05', 101],
    ]);
    // A quote long after the last bar (a market whose stored days stopped): no line across the missing days.
    expect(periodBars(bars, next, q('AAPL', 103, 3, '2026-03-02T15:00:00Z'))).to.equal(bars);
    // After a long weekend (Friday's bar, Tuesday's session) the day's bar forms.
    expect(periodBars(bars.slice(0, 1), next, q('AAPL', 99, 1, '2026-01-06T15:00:00Z', 98)).at(-1)).to.include({
      date: '2026-01-06',
      close: 99,
    });
  });

  it("marks a card's price levels and channels of the price with their tags, and nothing of other series", () => {
    const condition = (patch: Record<string, unknown>) => ({
      kind: 'CONDITION' as const,
      threshold: null,
      alerttype: null,
      condition: {
        op: 'crossing_up' as const,
        source: 'price',
        value: null,
        lower: null,
        upper: null,
        bars: null,
        ...patch,
      },
    });
    const price = {
      kind: 'PRICE' as const,
      threshold: 190.5,
      alerttype: 'U' as const,
      condition: { op: 'greater_than' as const, source: 'price', value: 190.5, lower: null, upper: null, bars: null },
    };
    const marks = cardAlertMarks([
      price,
      condition({ value: 180 }),
      condition({ op: 'less_than', value: 170.25 }),
      condition({ op: 'entering_channel', lower: 150, upper: 160 }),
      // Not on the card's price axis: another series, a bound that is a series, a move.
      condition({ source: 'rsi:14', value: 30 }),
      condition({ op: 'inside_channel', lower: { ref: 'sma:50' }, upper: 200 }),
      condition({ op: 'moving_up_pct', value: 3, bars: 2 }),
      condition({ value: { ref: 'sma:50' } }),
    ]);
    expect(marks.levels).to.deep.equal([
      { y: 190.5, text: '▲ 190.50' },
      { y: 180, text: '▲ 180.00' },
      { y: 170.25, text: '≤ 170.25' },
    ]);
    expect(marks.bands).to.deep.equal([{ lower: 150, upper: 160, text: 'Enter' }]);
  });
});
