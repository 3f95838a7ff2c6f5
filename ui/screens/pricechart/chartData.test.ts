import { expect } from 'chai';
import type { Quote } from '../../../domain/market/types.ts';
import {
  addQuoteToIntraday,
  intradayOf,
  alertElement,
  applyQuote,
  formedDayClosed,
  barsOfDuration,
  chartNote,
  chartView,
  closeElement,
  compareElement,
  defaultDirection,
  durationMonths,
  holdsAlready,
  LEVEL_COLORS,
  marketDate,
  marketMinute,
  movingLevelToday,
  patternElement,
  placePatternLabels,
  rightOffset,
  quoteText,
  levelElements,
  supportResistance,
  thresholdProblem,
  type ChartAlert,
  type PatternRow,
  type SmaPeriod,
} from './chartData.ts';
import {
  CHART_MARGIN,
  buildFigure,
  chartHeight,
  intradayCandles,
  intradayRange,
  intradayX,
  keptInside,
  pointOfPrice,
  priceAtPoint,
  offViewText,
  priceNearOf,
  priceView,
  volumeTicks,
} from './chartFigure.ts';
import {
  LABEL_HEIGHT_PX,
  MAX_LABEL_SHARE,
  fittedLabel,
  labelWidth,
  renderElements,
  rightLabelShare,
  type ChartElement,
} from './chartElements.ts';
import { bar, channelElement, conditionAlert, figureState, priceAlert } from './chartFixtures.ts';

function quote(price: number, ts: string, change = 1, volume = 5000): Quote {
  return { symbol: 'AAPL', price, change, changepct: 0.5, volume, ts, source: 'simulated' };
}

describe('price chart data', () => {
  it('loads months per duration and shows the last five bars on 5D', () => {
    expect(durationMonths('1D')).to.equal(1);
    expect(durationMonths('5D')).to.equal(1);
    expect(durationMonths('1Y')).to.equal(12);
    expect(durationMonths('5Y')).to.equal(60);
    const bars = ['01', '02', '05', '06', '07', '08', '09'].map((d) => bar(`2026-01-${d}`, 10));
    expect(barsOfDuration('5D', bars).map((b) => b.date)).to.deep.equal([
      '2026-01-05',
      '2026-01-06',
      '2026-01-07',
      '2026-01-08',
      '2026-01-09',
    ]);
    expect(barsOfDuration('1M', bars)).to.have.length(7);
  });

  it('reads instants in New York time', () => {
    expect(marketMinute('2026-01-05T14:31:10Z')).to.equal('2026-01-05 09:31');
    expect(marketDate('2026-01-06T03:00:00Z'), 'still the 5th in New York').to.equal('2026-01-05');
    expect(marketDate('not a time')).to.equal(null);
  });

  it("moves the last bar with a quote of its session and forms today's bar with a later one", () => {
    const bars = [bar('2026-01-02', 100), bar('2026-01-05', 101)];
    // Its change is from 100, the close before the bar: the bar's own session.
    const same = applyQuote(bars, quote(103.5, '2026-01-05T19:00:00Z', 3.5));
    expect(same).to.have.length(2);
    expect(same[1]).to.include({ close: 103.5, high: 103.5, low: 100, volume: 5000 });
    const next = applyQuote(bars, quote(102, '2026-01-06T15:00:00Z', 1));
    expect(next).to.have.length(3);
    expect(next[2]).to.include({ date: '2026-01-06', open: 101, close: 102, high: 102, low: 101 });
    expect(applyQuote(bars, quote(90, '2026-01-01T15:00:00Z')), 'an older quote changes nothing').to.equal(bars);
    expect(applyQuote([], quote(90, '2026-01-01T15:00:00Z'))).to.deep.equal([]);
  });

  it('tells when the day of the bar the page formed has closed: a quote of a later day', () => {
    const bars = [bar('2026-01-02', 100), bar('2026-01-05', 101)];
    const next = { after: '2026-01-05', SMA_20: null, SMA_50: null, SMA_100: null, SMA_200: null, rsi_14: null };
    const formed = applyQuote(bars, quote(102, '2026-01-06T15:00:00Z', 1), next);
    expect(formedDayClosed(formed, next, quote(103, '2026-01-07T14:30:00Z', 1))).to.equal(true);
    expect(formedDayClosed(formed, next, quote(103, '2026-01-06T20:00:00Z', 2)), 'its own day').to.equal(false);
    // The demo clock's later sessions of the same date are formed again in place, not loaded.
    expect(formedDayClosed(formed, next, quote(103, '2026-01-06T20:00:00Z', 0.5))).to.equal(false);
    expect(formedDayClosed(bars, next, quote(103, '2026-01-07T14:30:00Z', 1)), 'no formed bar').to.equal(false);
    expect(formedDayClosed(formed, null, quote(103, '2026-01-07T14:30:00Z', 1)), 'no sums').to.equal(false);
  });

  it("moves the forming bar's moving averages with the price, today's close counted", () => {
    // The 20-day average of the last bar: 100; the sum of its last 19 closes: 1,900.
    const bars = [bar('2026-01-02', 100), bar('2026-01-05', 100, { SMA_20: 100, SMA_50: null })];
    // RSI 14's average gain and loss as of that close: 1 each.
    const rsi_14 = { gain: 1, loss: 1 };
    const next = { after: '2026-01-05', SMA_20: 1900, SMA_50: null, SMA_100: null, SMA_200: null, rsi_14 };
    const today = applyQuote(bars, quote(120, '2026-01-06T15:00:00Z', 20), next);
    expect(today[2]).to.include({ date: '2026-01-06', SMA_20: 101, SMA_50: null });
    // Wilder's smoothing of today's change of +20: a gain of (13 + 20) / 14 against a loss of 13 / 14.
    expect(today[2]!.rsi_14).to.be.closeTo(100 - 100 / (1 + 33 / 13), 1e-9);
    expect(applyQuote(today, quote(140, '2026-01-06T16:00:00Z', 40), next)[2]!.rsi_14).to.be.closeTo(
      100 - 100 / (1 + 53 / 13),
      1e-9,
    );
    // A quote of a stored bar's own session (its change from the close before it, 98) keeps that bar's RSI.
    const stored = [bar('2026-01-02', 98), bar('2026-01-05', 100, { SMA_20: 100, SMA_50: null, rsi_14: 55 })];
    const own = applyQuote(stored, quote(110, '2026-01-05T19:00:00Z', 12), next);
    expect(own).to.have.length(2);
    expect(own[1], "a stored bar's own").to.include({ close: 110, rsi_14: 55 });
    // A later price moves it by a twentieth of the change; a quote of a stored bar's session moves that bar's alike.
    expect(applyQuote(today, quote(140, '2026-01-06T16:00:00Z', 40), next)[2]).to.include({ SMA_20: 102 });
    expect(own[1]).to.include({ SMA_20: 100.5 });
    // Sums of other bars than these (the chart went on past them) give no average rather than a wrong one.
    expect(applyQuote(bars, quote(120, '2026-01-06T15:00:00Z', 20), { ...next, after: '2026-01-02' })[2]).to.include({
      SMA_20: null,
    });
    expect(applyQuote(bars, quote(120, '2026-01-06T15:00:00Z', 20))[2]).to.include({ SMA_20: null });
  });

  it('forms the bar again from a quote of a later demo session, whose change is from another close', () => {
    const bars = [bar('2026-01-02', 100), bar('2026-01-05', 100, { SMA_20: 100, SMA_50: null })];
    const next = { after: '2026-01-05', SMA_20: 1900, SMA_50: null, SMA_100: null, SMA_200: null, rsi_14: null };
    const session = applyQuote(bars, quote(120, '2026-01-06T15:00:00Z', 20, 300), next);
    const higher = applyQuote(session, quote(125, '2026-01-06T15:01:00Z', 25, 900), next);
    expect(higher[2]).to.include({ open: 100, high: 125, low: 100, close: 125, volume: 900 });
    // The session closed at 125, and the next one's quotes measure their change from there, the same New York day.
    const later = applyQuote(higher, quote(123, '2026-01-06T15:11:00Z', -2, 40), next);
    expect(later).to.have.length(3);
    expect(later[2]).to.include({ date: '2026-01-06', open: 125, high: 125, low: 123, close: 123, volume: 40 });
    // What a reload in that session shows: the stored bars and the bar its first quote forms.
    expect(later).to.deep.equal(applyQuote(bars, quote(123, '2026-01-06T15:11:00Z', -2, 40), next));
    expect(applyQuote(later, quote(124, '2026-01-06T15:12:00Z', -1, 60), next)[2]).to.include({ open: 125, low: 123 });
    // A quote of a stored bar's day whose change is from another close is of a later session: the stored bar stays.
    const after = applyQuote(bars, quote(110, '2026-01-05T19:00:00Z', 7), next);
    expect(after[1]).to.equal(bars[1]);
    expect(after[2]).to.include({ date: '2026-01-06', open: 103, high: 110, low: 103, close: 110, SMA_20: 100.5 });
  });

  describe('applyQuote, by the session the server counts a quote of', () => {
    // MSFT's stored bars end with 2026-12-03 (a Thursday); the server's next session measures from its close.
    const stored = [
      bar('2026-12-02', 520.1, { SMA_20: 514, SMA_50: 504.5, rsi_14: 58 }),
      bar('2026-12-03', 524.48, { open: 524.96, high: 525.32, low: 523.7, volume: 21_000, SMA_20: 515, SMA_50: 505 }),
    ];
    // The sums of the last 19 and 49 closes the stored bars end with, and RSI 14's averages as of 524.48.
    const rsi_14 = { gain: 1, loss: 1 };
    const next = { after: '2026-12-03', SMA_20: 9785, SMA_50: 24_745, SMA_100: null, SMA_200: null, rsi_14 };
    /** A quote of MSFT whose change is measured from `previousClose`. */
    const msft = (price: number, ts: string, previousClose = 524.48, volume = 300): Quote => ({
      ...quote(price, ts, Math.round((price - previousClose) * 10_000) / 10_000, volume),
      symbol: 'MSFT',
    });

    it("forms a new bar from feed ticks after the close on the stored bar's date, leaving that bar as stored", () => {
      // 17:39 and 17:47 New York time on 12-03: the server's first ticks after the stored day, against 524.48.
      const first = applyQuote(stored, msft(541, '2026-12-03T22:39:00Z'), next);
      const bars = applyQuote(first, msft(551, '2026-12-03T22:47:00Z', 524.48, 900), next);
      expect(bars).to.have.length(3);
      expect(bars[1], 'the stored bar, as stored').to.equal(stored[1]);
      expect(bars[1]).to.include({ open: 524.96, high: 525.32, low: 523.7, close: 524.48, SMA_20: 515, SMA_50: 505 });
      // The session the server's clock opens next, Friday; it opens at the close the header measures from.
      expect(bars[2]).to.include({
        date: '2026-12-04',
        open: 524.48,
        high: 551,
        low: 524.48,
        close: 551,
        volume: 900,
        SMA_20: (9785 + 551) / 20,
        SMA_50: (24_745 + 551) / 50,
      });
      // Wilder's smoothing of the change from 524.48, +26.52: a gain of (13 + 26.52) / 14 against a loss of 13 / 14.
      expect(bars[2]!.rsi_14).to.be.closeTo(100 - 100 / (1 + 39.52 / 13), 1e-9);
      expect(formedDayClosed(bars, next, msft(553, '2026-12-04T14:31:00Z')), 'its own session: no load').to.equal(
        false,
      );
      // The next morning's quotes of that session move the same bar.
      const morning = applyQuote(bars, msft(548.2, '2026-12-04T14:31:00Z', 524.48, 1500), next);
      expect(morning).to.have.length(3);
      expect(morning[1]).to.equal(stored[1]);
      expect(morning[2]).to.include({ date: '2026-12-04', open: 524.48, high: 551, low: 524.48, close: 548.2 });
      expect(morning[2]).to.include({ volume: 1500 });
      expect(morning[2]!.SMA_20).to.be.closeTo((9785 + 548.2) / 20, 1e-9);
      expect(morning[2]!.SMA_50).to.be.closeTo((24_745 + 548.2) / 50, 1e-9);
    });

    it('dates the bar of a session after a Friday close on the Monday', () => {
      const friday = [...stored, bar('2026-12-04', 530, { open: 525, high: 531, low: 524, SMA_20: 516, SMA_50: 506 })];
      const bars = applyQuote(friday, msft(532, '2026-12-04T23:10:00Z', 530), { ...next, after: '2026-12-04' });
      expect(bars).to.have.length(4);
      expect(bars[2]).to.equal(friday[2]);
      expect(bars[3]).to.include({ date: '2026-12-07', open: 530, high: 532, low: 530, close: 532 });
    });

    it('moves a stored bar with a quote of its own session only, whose change is from the close before it', () => {
      // The server's quote of the finished day: its close against 520.10, the header's previous close then.
      expect(applyQuote(stored, msft(524.48, '2026-12-03T21:00:00Z', 520.1, 21_000), next)).to.equal(stored);
      const moved = applyQuote(stored, msft(526, '2026-12-03T20:59:00Z', 520.1, 22_000), next);
      expect(moved).to.have.length(2);
      expect(moved[1]).to.include({
        date: '2026-12-03',
        open: 524.96,
        high: 526,
        low: 523.7,
        close: 526,
        volume: 22_000,
        SMA_20: 515 + (526 - 524.48) / 20,
        SMA_50: 505 + (526 - 524.48) / 50,
      });
      // After a flat close the two previous closes are one: only a quote at the bar's close is of its session.
      const flat = [bar('2026-12-02', 524.48), stored[1]!];
      expect(applyQuote(flat, msft(524.48, '2026-12-03T21:00:00Z', 524.48, 21_000), next)).to.equal(flat);
      expect(applyQuote(flat, msft(541, '2026-12-03T22:39:00Z'), next)[2]).to.include({
        date: '2026-12-04',
        open: 524.48,
        close: 541,
      });
    });

    it('moves the bar the page formed with a quote of its session, and forms it again from a later one', () => {
      const formed = applyQuote(stored, msft(541, '2026-12-04T14:31:00Z', 524.48, 500), next);
      expect(formed[2]).to.include({ date: '2026-12-04', open: 524.48, high: 541, low: 524.48, close: 541 });
      const lower = applyQuote(formed, msft(520, '2026-12-04T15:00:00Z', 524.48, 800), next);
      expect(lower).to.have.length(3);
      expect(lower[1]).to.equal(stored[1]);
      expect(lower[2]).to.include({
        date: '2026-12-04',
        open: 524.48,
        high: 541,
        low: 520,
        close: 520,
        volume: 800,
        SMA_20: (9785 + 520) / 20,
        SMA_50: (24_745 + 520) / 50,
      });
      // A later demo session measures from another close (530): the formed bar forms again from it.
      expect(applyQuote(lower, msft(533, '2026-12-04T15:10:00Z', 530, 60), next)[2]).to.include({
        date: '2026-12-04',
        open: 530,
        high: 533,
        low: 530,
        close: 533,
        volume: 60,
      });
      // A late quote of the stored bar's own session changes neither bar.
      expect(applyQuote(lower, msft(524.48, '2026-12-03T21:00:00Z', 520.1, 21_000), next)).to.equal(lower);
    });

    it('forms the candle from the open, high and low the quote says: a page opened mid-session, ticks between quotes', () => {
      // The session opened at 530 and went as high as 545 and as low as 526 before the page's first quote.
      const quoteOf = (price: number, ts: string, high: number, low: number, volume: number): Quote => ({
        ...msft(price, ts, 524.48, volume),
        open: 530,
        high,
        low,
      });
      const opened = applyQuote(stored, quoteOf(541, '2026-12-04T15:31:00Z', 545, 526, 9000), next);
      expect(opened[1]).to.equal(stored[1]);
      expect(opened[2]).to.include({ date: '2026-12-04', open: 530, high: 545, low: 526, close: 541, volume: 9000 });
      // A tick at 520 between two quotes: the next quote's low says it, the candle's low follows.
      const moved = applyQuote(opened, quoteOf(535, '2026-12-04T15:32:00Z', 545, 520, 9500), next);
      expect(moved[2]).to.include({ open: 530, high: 545, low: 520, close: 535, volume: 9500 });
      // A later demo session (its change from 535) forms the candle again from that session's open.
      const later = { ...msft(538, '2026-12-04T15:40:00Z', 535, 80), open: 536, high: 539, low: 534 };
      expect(applyQuote(moved, later, next)[2]).to.include({ open: 536, high: 539, low: 534, close: 538 });
    });

    it("forms a new bar from a quote of a later date, opening at the stored bar's close", () => {
      const bars = applyQuote(stored, msft(527.3, '2026-12-04T14:30:00Z', 524.48, 1200), next);
      expect(bars).to.have.length(3);
      expect(bars[1]).to.equal(stored[1]);
      expect(bars[2]).to.include({
        date: '2026-12-04',
        open: 524.48,
        high: 527.3,
        low: 524.48,
        close: 527.3,
        volume: 1200,
        SMA_20: (9785 + 527.3) / 20,
        SMA_50: (24_745 + 527.3) / 50,
      });
      expect(applyQuote(stored, msft(500, '2026-12-02T15:00:00Z', 515), next), 'an older quote').to.equal(stored);
    });
  });

  it('builds minute candles from quotes, with the volume traded in each minute', () => {
    // The previous close is 99 all day: each quote's change is its price less 99.
    let candles = addQuoteToIntraday([], quote(100, '2026-01-06T14:30:05Z', 1, 1000));
    candles = addQuoteToIntraday(candles, quote(101, '2026-01-06T14:30:40Z', 2, 1500));
    candles = addQuoteToIntraday(candles, quote(99.5, '2026-01-06T14:30:50Z', 0.5, 1600));
    candles = addQuoteToIntraday(candles, quote(100.2, '2026-01-06T14:31:10Z', 1.2, 2000));
    expect(candles).to.have.length(2);
    expect(candles[0]).to.include({
      time: '2026-01-06 09:30',
      open: 100,
      high: 101,
      low: 99.5,
      close: 99.5,
      volume: 600,
    });
    expect(candles[1]).to.include({ time: '2026-01-06 09:31', open: 99.5, close: 100.2, volume: 400 });
    const stale = addQuoteToIntraday(candles, quote(1, '2026-01-06T14:00:00Z'));
    expect(stale, 'an older quote changes nothing').to.equal(candles);
    const nextDay = addQuoteToIntraday(candles, quote(105, '2026-01-07T14:30:00Z', 0, 10));
    expect(
      nextDay.map((c) => c.time),
      'a new day starts over',
    ).to.deep.equal(['2026-01-07 09:30']);
  });

  it("takes the server's minute candles of the session, and a quote of later trading than their last", () => {
    const server = {
      symbol: 'AAPL',
      prevClose: 99,
      candles: [
        {
          time: '2026-01-06 09:30',
          start: '2026-01-06T14:30:00.000Z',
          open: 100,
          high: 101,
          low: 99.5,
          close: 99.5,
          volume: 1600,
          sessionVolume: 1600,
        },
      ],
    };
    const seeded = intradayOf(server, null);
    expect(seeded).to.deep.equal([{ ...server.candles[0], prevClose: 99 }]);
    expect(intradayOf(server, quote(100.5, '2026-01-06T14:30:55Z', 1, 1500)), 'an older quote').to.deep.equal(seeded);
    expect(intradayOf(server, quote(101.5, '2026-01-06T14:31:05Z', 2.5, 1700))).to.deep.equal([
      ...seeded,
      {
        time: '2026-01-06 09:31',
        open: 99.5,
        high: 101.5,
        low: 99.5,
        close: 101.5,
        volume: 100,
        sessionVolume: 1700,
        prevClose: 99,
      },
    ]);
    expect(
      intradayOf({ ...server, candles: [] }, quote(100, '2026-01-06T14:30:05Z', 1, 10)),
      'none yet',
    ).to.have.length(1);
    expect(intradayOf({ ...server, prevClose: null }, null)[0], 'no previous close').to.not.have.property('prevClose');
  });

  it('starts the minute candles over at a later session of the same day (the demo clock), its volume its own', () => {
    let candles = addQuoteToIntraday([], quote(100, '2026-01-06T14:30:05Z', 1, 1000));
    candles = addQuoteToIntraday(candles, quote(101, '2026-01-06T14:31:10Z', 2, 3000));
    // The next session opens from 101 (the last close) in the same minute, its volume counted from zero.
    const next = addQuoteToIntraday(candles, quote(101.5, '2026-01-06T14:31:40Z', 0.5, 200));
    expect(next).to.have.length(1);
    expect(next[0]).to.include({ time: '2026-01-06 09:31', open: 101.5, close: 101.5, volume: 0, sessionVolume: 200 });
    const later = addQuoteToIntraday(next, quote(102, '2026-01-06T14:32:00Z', 1, 500));
    expect(later.map((c) => [c.time, c.volume])).to.deep.equal([
      ['2026-01-06 09:31', 0],
      ['2026-01-06 09:32', 300],
    ]);
    // Quotes of one session whose change is rounded to 4 decimals stay in it.
    const rounded = addQuoteToIntraday(later, quote(102.33, '2026-01-06T14:32:30Z', 1.3300000001, 600));
    expect(rounded).to.have.length(2);
  });

  it('shows the last daily bar on 1D until a quote arrives', () => {
    const bars = [bar('2026-01-05', 101)];
    expect(intradayCandles([], bars)[0]).to.include({ time: '2026-01-05 16:00', close: 101 });
    expect(intradayCandles([], [])).to.deep.equal([]);
    expect(intradayRange([{ time: '2026-01-06 09:30' }])).to.deep.equal(['2026-01-06 09:25', '2026-01-06 10:30']);
    expect(intradayRange([{ time: '2026-01-06 09:30' }, { time: '2026-01-06 12:00' }])).to.deep.equal([
      '2026-01-06 09:25',
      '2026-01-06 12:05',
    ]);
    expect(intradayRange([])).to.equal(undefined);
  });

  it('finds support below and resistance above the last close from swing lows and highs', () => {
    // Closes rise to a swing high of 120 (high 121), fall to a swing low of 95 (low 94), then recover to 110.
    const closes = [100, 105, 110, 115, 120, 115, 110, 105, 100, 95, 100, 103, 106, 108, 110];
    const bars = closes.map((c, i) => bar(`2026-02-${String(i + 1).padStart(2, '0')}`, c));
    const levels = supportResistance(bars, { span: 3 });
    expect(levels.resistance).to.deep.equal([121]);
    expect(levels.support).to.deep.equal([94]);
    const rising = [1, 2, 3, 4, 5, 6, 7, 8].map((c, i) => bar(`2026-03-0${i + 1}`, c * 10));
    const onlyFallback = supportResistance(rising, { span: 3 });
    expect(onlyFallback.resistance, 'the top of the window stands in').to.deep.equal([81]);
    expect(onlyFallback.support).to.deep.equal([9]);
    expect(supportResistance([])).to.deep.equal({ support: [], resistance: [] });
  });

  it('merges swing levels within 1% and answers the nearest first', () => {
    const highs = [100, 100, 110, 100, 100, 110.5, 100, 100, 130, 100, 100, 90];
    const bars = highs.map((h, i) => bar(`2026-04-${String(i + 1).padStart(2, '0')}`, 90, { high: h, low: 89 }));
    expect(supportResistance(bars, { span: 2 }).resistance).to.deep.equal([110, 130]);
  });

  it('draws alerts as lines labelled with direction and threshold, armed and triggered apart', () => {
    const armed = priceAlert('a1', 191.5);
    const element = alertElement(armed, []);
    expect(element).to.deep.include({ type: 'ALERT', charttype: 'price', color: '#138a36' });
    expect(element?.chartdata).to.include({ y: 191.5, label: '▲ Up 191.50 ✕', dash: 'dash', clickable: true });
    const fired = alertElement({ ...armed, alerttype: 'D', status: 'triggered' }, []);
    expect(fired?.chartdata).to.include({ label: '▼ Down 191.50 · triggered ✕', dash: 'dot' });
    const sma = alertElement({ ...armed, kind: 'SMA', threshold: null, period: 50 }, [bar('2026-01-05', 100)]);
    expect(sma?.chartdata).to.include({ y: 98, label: '▲ Up SMA 50 ✕' });
  });

  it("draws a move of the price or its averages at today's level, from the finished bars only", () => {
    const bars = [bar('2026-01-05', 100), bar('2026-01-06', 110), bar('2026-01-07', 120), bar('2026-01-08', 130)];
    const move = (patch: Partial<ChartAlert['condition']>): ChartAlert['condition'] => ({
      op: 'moving_up_pct',
      source: 'price',
      value: 10,
      lower: null,
      upper: null,
      bars: 2,
      ...patch,
    });
    // The last bar forming: the finished closes are 100, 110, 120, and two bars back is 110.
    expect(movingLevelToday(move({}), bars, true)).to.be.closeTo(121, 1e-9);
    expect(movingLevelToday(move({}), bars, false)).to.be.closeTo(132, 1e-9);
    expect(movingLevelToday(move({ op: 'moving_down', value: 5, bars: 1 }), bars, true)).to.equal(115);
    // The 50-day SMA of the fixture is the close less 2.
    expect(movingLevelToday(move({ op: 'moving_up', source: 'sma:50', value: 1, bars: 1 }), bars, false)).to.equal(129);
    expect(movingLevelToday(move({ source: 'changepct' }), bars, false), 'no axis for the change').to.equal(null);
    expect(movingLevelToday(move({ source: 'rsi:14' }), bars, false), 'no RSI in the bars').to.equal(null);
    expect(movingLevelToday(move({ bars: 5 }), bars, false), 'beyond the bars').to.equal(null);
    expect(movingLevelToday(move({ op: 'crossing', value: 3, bars: null }), bars, false)).to.equal(null);
    const alert = conditionAlert('m1', move({}));
    expect(alertElement(alert, bars, undefined, true)).to.deep.include({ type: 'ALERT', color: LEVEL_COLORS.up });
    expect(alertElement(alert, bars, undefined, true)?.chartdata).to.deep.include({
      y: 121,
      label: '▲ 10% in 2 bars · 121.00 ✕',
      words: 'Price moves up by 10% in 2 bars (today at 121.00)',
      clickable: true,
    });
    // RSI on its panel when shown, volume on the volume bars' axis; noted when the panel is not shown.
    const withRsi = bars.map((b, i) => ({ ...b, rsi_14: 40 + i }));
    const rsiMove = conditionAlert('m1', move({ op: 'moving_down', source: 'rsi:14', value: 5, bars: 1 }));
    expect(alertElement(rsiMove, withRsi, chartView('3M', true), false)?.chartdata).to.deep.include({
      y: 38,
      axis: 'y4',
    });
    expect(alertElement(rsiMove, withRsi, chartView('3M'), false)).to.equal(null);
    expect(chartNote(rsiMove, withRsi, chartView('3M'))).to.equal(
      'Not drawn: the chart shows no RSI(14) panel (turn on the RSI 14 chip)',
    );
    expect(chartNote(rsiMove, withRsi, chartView('3M', true))).to.equal(null);
    const volumeMove = { ...alert, condition: move({ op: 'moving_up', source: 'volume', value: 500, bars: 1 }) };
    expect(alertElement(volumeMove, bars, chartView('3M'), true)?.chartdata).to.deep.include({ y: 1500, axis: 'y2' });
    const changeMove = { ...alert, condition: move({ source: 'changepct' }) };
    expect(chartNote(changeMove, bars, chartView('3M'))).to.equal('Not drawn: the chart has no change % panel');
    const drawn = renderElements([alertElement(rsiMove, withRsi, chartView('3M', true))!]);
    expect(drawn.shapes[0]).to.include({ yref: 'y4', y0: 38 });
    expect(drawn.annotations[0]).to.include({
      yref: 'y4',
      text: 'RSI 14 ▼ 5 in 1 bar · 38.0 ✕',
      hovertext: 'RSI(14) moves down by 5 in 1 bar (today at 38.0). Click to delete this alert',
    });
  });

  it("draws a level of another series on that series' panel, notes it when the panel is not shown", () => {
    const bars = [bar('2026-01-05', 100, { rsi_14: 45 }), bar('2026-01-06', 101, { rsi_14: 48 })];
    const level = (condition: Partial<ChartAlert['condition']>): ChartAlert =>
      conditionAlert('l1', { op: 'less_than', source: 'rsi:14', value: 30, ...condition });
    const rsi = level({});
    expect(alertElement(rsi, bars, chartView('3M', true))?.chartdata).to.deep.include({
      y: 30,
      axis: 'y4',
      label: 'RSI 14 ≤ 30 ✕',
      words: 'RSI(14) is at or below 30',
    });
    expect(alertElement(rsi, bars, chartView('3M'))).to.equal(null);
    expect(chartNote(rsi, bars, chartView('3M'))).to.equal(
      'Not drawn: the chart shows no RSI(14) panel (turn on the RSI 14 chip)',
    );
    // An average against a price is on the price axis, on 1D too; the day's change has no panel.
    const sma = level({ op: 'crossing_up', source: 'sma:50', value: 190 });
    expect(alertElement(sma, bars, chartView('1D'))?.chartdata).to.deep.include({ y: 190, axis: 'y' });
    expect(chartNote(sma, bars, chartView('1D'))).to.equal(null);
    const volume = level({ op: 'greater_than', source: 'volume', value: 5000 });
    expect(alertElement(volume, bars, chartView('3M'))?.chartdata).to.deep.include({ y: 5000, axis: 'y2' });
    const change = level({ op: 'greater_than', source: 'changepct', value: 2 });
    expect(alertElement(change, bars, chartView('3M'))).to.equal(null);
    expect(chartNote(change, bars, chartView('3M'))).to.equal('Not drawn: the chart has no change % panel');
    // A level that is another series stays in words, without a note.
    const series = level({ op: 'crossing', source: 'price', value: { ref: 'sma:50' } });
    expect(alertElement(series, bars, chartView('3M'))).to.equal(null);
    expect(chartNote(series, bars, chartView('3M'))).to.equal(null);
  });

  it('draws every channel alert where it belongs: price levels, a level following a series, volume; notes the others', () => {
    const bars = [bar('2026-01-05', 100), bar('2026-01-06', 101)];
    const channel = (patch: Partial<ChartAlert['condition']>, status: ChartAlert['status'] = 'armed'): ChartAlert =>
      conditionAlert('c1', { op: 'inside_channel', lower: 90, upper: 110, ...patch }, { status });
    const daily = chartView('3M');
    const constant = alertElement(channel({}), bars, daily);
    expect(constant).to.deep.include({ type: 'BAND', color: '#7c3aed' });
    expect(constant?.chartdata).to.deep.equal({
      lower: 90,
      upper: 110,
      axis: 'y',
      label: 'Inside 90.00 – 110.00 ✕',
      brief: 'Inside ✕',
      words: 'Price is inside the channel 90.00 – 110.00',
      dash: 'dash',
      clickable: true,
    });
    const following = alertElement(channel({ op: 'exiting_channel', lower: { ref: 'sma:50' } }), bars, daily);
    expect(following?.chartdata).to.deep.include({ lower: [98, 99], upper: 110, x: ['2026-01-05', '2026-01-06'] });
    const drawn = renderElements(following ? [following] : []);
    expect(drawn.traces.map((t) => (t as { y: unknown }).y)).to.deep.equal([
      [98, 99],
      [110, 110],
    ]);
    const volume = alertElement(channel({ source: 'volume', lower: 500, upper: 900 }, 'triggered'), bars, daily);
    expect(volume).to.deep.include({ type: 'BAND', color: '#8a94a6' });
    expect(volume?.chartdata).to.deep.include({ axis: 'y2', dash: 'dot' });
    expect(chartNote(channel({ source: 'volume', lower: 500, upper: 900 }), bars, daily)).to.equal(null);

    const rsi = channel({ source: 'rsi:14', lower: 30, upper: 70 });
    expect(alertElement(rsi, bars, daily)).to.equal(null);
    expect(chartNote(rsi, bars, daily)).to.equal(
      'Not drawn: the chart shows no RSI(14) panel (turn on the RSI 14 chip)',
    );
    const withRsi = chartView('3M', true);
    expect(chartNote(rsi, bars, withRsi)).to.equal(null);
    expect(alertElement(rsi, bars, withRsi)?.chartdata).to.deep.include({ lower: 30, upper: 70, axis: 'y4' });
    expect(chartView('1D', true), 'no RSI panel on 1D').to.deep.equal(chartView('1D'));
    const change = channel({ source: 'changepct', lower: -2, upper: 2 });
    expect(chartNote(change, bars, daily)).to.equal('Not drawn: the chart has no change % panel');
    const intraday = chartView('1D');
    expect(alertElement(channel({ lower: { ref: 'sma:50' } }), bars, intraday)?.chartdata).to.deep.include({
      lower: 99,
      upper: 110,
    });
    expect(chartNote(channel({ source: 'volume', lower: 500, upper: 900 }), bars, intraday)).to.match(
      /^Not drawn: the chart shows no volume panel/,
    );
  });

  it('marks patterns on their bars with their names', () => {
    const bars = [bar('2026-01-02', 100), bar('2026-01-05', 101)];
    const element = patternElement(
      'AAPL',
      [
        { id: 'p1', symbol: 'AAPL', date: '2026-01-05', stockpatterns: [{ name: 'hammer', bullish: true }] },
        {
          id: 'p2',
          symbol: 'AAPL',
          date: '2026-01-02',
          stockpatterns: [
            { name: 'Doji', bullish: null },
            { name: 'bearish_engulfing', bullish: false },
          ],
        },
        { id: 'p3', symbol: 'AAPL', date: '2025-12-01', stockpatterns: [{ name: 'Off chart', bullish: true }] },
      ],
      bars,
    );
    expect(element.type).to.equal('IMAGE');
    if (element.type !== 'IMAGE') return;
    expect(element.chartdata.points.map((p) => [p.x, p.text, p.symbol])).to.deep.equal([
      ['2026-01-02', 'Doji, bearish engulfing', 'circle'],
      ['2026-01-05', 'hammer', 'triangle-up'],
    ]);
  });

  it('writes the names of patterns on adjacent bars only where they do not cover each other, the latest first', () => {
    const days = Array.from(
      { length: 63 },
      (_, i) => `2026-0${1 + Math.floor(i / 28)}-${String(1 + (i % 28)).padStart(2, '0')}`,
    );
    // Prices from 80 to 120 over the chart (the first bar's high, the last one's low: candles that cover no name),
    // the marked bars at 99 to 101.
    const shown = [
      ...days.map((date, i) => bar(date, 100, i === 0 ? { high: 120 } : {})),
      bar('2026-03-10', 100, { low: 80 }),
    ];
    const row = (date: string, name: string): PatternRow => ({
      id: date,
      symbol: 'AAPL',
      date,
      stockpatterns: [{ name, bullish: true }],
    });
    const rows = days.slice(48, 60).map((date) => row(date, 'bullish_marubozu'));
    const element = patternElement('AAPL', [...rows, row(days[5]!, 'doji')], shown);
    if (element.type !== 'IMAGE') throw new Error('not markers');
    const labelled = element.chartdata.points.filter((p) => p.label).map((p) => p.x);
    // 16 characters at 6 px (100 px with the margin) over 760 px / 70 bars (the 64 and 6 empty ones right of
    // them; 10.9 px a bar): a name covers its neighbours up to 9 bars away, so of the twelve the latest and the
    // one 10 bars before it, and the lone doji.
    expect(labelled).to.deep.equal([days[5], days[49], days[59]]);
    expect(element.chartdata.points).to.have.length(13);

    // Names of bars close together but far apart in price are both written.
    expect(
      placePatternLabels(
        [
          { index: 10, y: 100, text: 'bullish marubozu' },
          { index: 11, y: 110, text: 'bearish engulfing' },
        ],
        63,
        90,
        120,
      ),
    ).to.deep.equal([true, true]);
    // A phone's narrow chart writes fewer of them, and so does an average drawn far below the candles (the price
    // axis then spans it, packing the names closer).
    const onPhone = patternElement('AAPL', [...rows, row(days[5]!, 'doji')], shown, { plotWidth: 300 });
    if (onPhone.type !== 'IMAGE') throw new Error('not markers');
    // 4.3 px a bar: the latest name that fits whole inside the plot is the 58th bar's (its centre 246 px from the
    // left, its half 50 px), and it covers the other eleven.
    expect(onPhone.chartdata.points.filter((p) => p.label).map((p) => p.x)).to.deep.equal([days[5], days[57]]);
    // A name at the plot's edge is cut there by Plotly: it shows on hover only.
    expect(
      placePatternLabels(
        [
          { index: 0, y: 100, text: 'bullish marubozu' },
          { index: 30, y: 100, text: 'doji' },
          { index: 62, y: 100, text: 'bearish engulfing' },
        ],
        63,
        90,
        120,
      ),
    ).to.deep.equal([false, true, false]);
    const close = [
      { index: 10, y: 100, text: 'bullish marubozu' },
      { index: 11, y: 104, text: 'bearish engulfing' },
    ];
    expect(placePatternLabels(close, 63, 90, 120)).to.deep.equal([true, true]);
    expect(placePatternLabels(close, 63, 0, 120)).to.deep.equal([false, true]);
    // The 11th bar's marker 4 above the 10th's (its candle clear of the 10th's name): apart over prices from 80 to
    // 122, not over 1 to 122.
    const averaged = shown.map((b, i) =>
      i === 11 ? bar(b.date, 105, { high: 105, low: 104.8, SMA_200: 1 }) : { ...b, SMA_200: 1 },
    );
    const lowAverage = (smas: SmaPeriod[]) => {
      const element = patternElement('AAPL', [row(days[10]!, 'hammer'), row(days[11]!, 'doji')], averaged, { smas });
      return element.type === 'IMAGE' ? element.chartdata.points.map((p) => p.label) : [];
    };
    expect(lowAverage([])).to.deep.equal([true, true]);
    expect(lowAverage([200])).to.deep.equal([false, true]);
    // A long chart shows names on hover only.
    const long = Array.from({ length: 200 }, (_, i) => ({
      ...bar(`2025-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + Math.floor(i / 12)).padStart(2, '0')}`, 100),
    }));
    const far = patternElement('AAPL', [row(long[0]!.date, 'doji')], long);
    if (far.type !== 'IMAGE') throw new Error('not markers');
    expect(far.chartdata.points.map((p) => p.label)).to.deep.equal([false]);
  });

  it("leaves to the hover a pattern's name that would cover another bar's marker or candle", () => {
    // 63 bars over 760 px (12.1 px a bar), prices 90 to 120 over 330 px (11 px a dollar): a name is written from
    // 0.45 to 1.64 above its marker, and 'bullish marubozu' spans 4 bars each side of its own.
    const marubozu = { index: 10, y: 100, text: 'bullish marubozu' };
    const flat = Array.from({ length: 63 }, () => ({ low: 95, high: 98 }));
    expect(placePatternLabels([marubozu], 63, 90, 120, 760, flat)).to.deep.equal([true]);
    // A doji's marker two bars on, 1.5 above: under the marubozu's name (the names themselves apart). Its own name
    // is written; the marubozu's is left to the hover. Six bars on, it is clear of the name, and both are written.
    const doji = (index: number) => ({ index, y: 101.5, text: 'doji' });
    expect(placePatternLabels([marubozu, doji(12)], 63, 90, 120, 760, flat)).to.deep.equal([false, true]);
    expect(placePatternLabels([marubozu, doji(16)], 63, 90, 120, 760, flat)).to.deep.equal([true, true]);
    // A candle three bars on reaching 101: under the name; reaching 100.3, below it.
    const tall = (high: number) => flat.map((bar, i) => (i === 13 ? { low: 97, high } : bar));
    expect(placePatternLabels([marubozu], 63, 90, 120, 760, tall(101))).to.deep.equal([false]);
    expect(placePatternLabels([marubozu], 63, 90, 120, 760, tall(100.3))).to.deep.equal([true]);
  });

  it("compares a symbol as a normalised line trimmed to the main series' length", () => {
    const main = [bar('2026-01-05', 200), bar('2026-01-06', 210)];
    const other = [bar('2026-01-02', 40), bar('2026-01-05', 50), bar('2026-01-06', 55)];
    const line = compareElement({ symbol: 'MSFT', mode: 'normalized', color: 'red' }, other, main);
    expect(line).to.deep.include({ type: 'LINE', normalize: true, color: 'red', id: 'compare-MSFT' });
    expect(line.chartdata).to.deep.equal({ x: ['2026-01-05', '2026-01-06'], y: [200, 220] });
    const axis = compareElement({ symbol: 'MSFT', mode: 'axis', color: 'black' }, other, main);
    expect(axis).to.deep.include({ type: 'AXIS', normalize: false });
    expect(axis.chartdata).to.deep.equal({ x: ['2026-01-05', '2026-01-06'], y: [50, 55] });
  });

  it('defaults a new alert to up above the last price and down below it', () => {
    expect(defaultDirection(101, 100)).to.equal('U');
    expect(defaultDirection(100, 100)).to.equal('U');
    expect(defaultDirection(99.99, 100)).to.equal('D');
    expect(defaultDirection(5, null)).to.equal('U');
  });

  it("says when a direction's condition already holds at the last price, to the cent", () => {
    expect(holdsAlready(495.14, 'U', 520.51)).to.equal('the price (520.51) is already above 495.14');
    expect(holdsAlready(530, 'D', 520.51)).to.equal('the price (520.51) is already below 530.00');
    expect(holdsAlready(495.14, 'D', 520.51)).to.equal(null);
    expect(holdsAlready(530, 'U', 520.51)).to.equal(null);
    expect(holdsAlready(190.005, 'U', 190.01), 'the exact boundary, in cents').to.equal(
      'the price (190.01) is already at 190.01',
    );
    expect(holdsAlready(190.02, 'U', 190.01)).to.equal(null);
    expect(holdsAlready(100, 'U', null)).to.equal(null);
    expect(holdsAlready(NaN, 'D', 100)).to.equal(null);
  });

  it('checks a typed threshold', () => {
    expect(thresholdProblem(0.01)).to.equal(null);
    expect(thresholdProblem(0)).to.equal('Price: at least 0.01');
    expect(thresholdProblem(NaN)).to.equal('Price: enter a number');
    expect(thresholdProblem(1_000_001)).to.equal('Price: at most 1000000');
  });

  it('writes the header as price (with thousands separators), change and % change with their signs', () => {
    expect(quoteText({ price: 191.5, change: 1.25, changepct: 0.66 })).to.deep.equal({
      price: '191.50',
      change: '+1.25 (+0.66%)',
      tone: 'up',
    });
    expect(quoteText({ price: 1500, change: -3, changepct: -0.2 })).to.deep.include({
      price: '1,500.00',
      change: '-3.00 (-0.20%)',
      tone: 'down',
    });
  });

  it('builds candlesticks, volume on its own axis and the chosen moving averages', () => {
    const bars = [bar('2026-01-05', 100), bar('2026-01-06', 101)];
    const daily = {
      symbol: 'AAPL',
      duration: '3M',
      bars,
      intraday: [],
      elements: [],
      removed: [],
      smas: [50],
      rsiPanel: false,
    } as const;
    const figure = buildFigure(daily);
    expect(figure.data.map((d) => d.type)).to.deep.equal(['candlestick', 'bar', 'scatter']);
    expect(figure.data[1]).to.include({ yaxis: 'y2' });
    expect(figure.layout.xaxis).to.include({ type: 'category', nticks: 8 });
    // A phone's plot writes fewer dates, so they stay level and whole.
    expect(buildFigure({ ...daily, plotWidth: 260 }).layout.xaxis).to.include({ nticks: 3 });
    expect(buildFigure({ ...daily, plotWidth: 640 }).layout.xaxis).to.include({ nticks: 6 });
    expect(buildFigure({ ...daily, plotWidth: 1400 }).layout.xaxis).to.include({ nticks: 8 });
    const intraday = buildFigure({
      symbol: 'AAPL',
      duration: '1D',
      bars,
      intraday: [],
      elements: [],
      removed: [],
      smas: [50],
      rsiPanel: false,
    });
    expect(
      intraday.data.map((d) => d.type),
      'no averages on 1D',
    ).to.deep.equal(['candlestick', 'bar']);
    expect(intraday.layout.xaxis).to.include({ type: 'date' });
  });

  it('fits the price axis to the prices and the levels near them; farther levels are counted at the edge', () => {
    const near = { lo: 112, hi: 112, label: 'Price crosses 112.00' };
    const band = { lo: 40, hi: 50, label: 'Price is inside the channel 40.00 – 50.00' };
    const far = { lo: 300, hi: 300, label: 'Price crosses 300.00' };
    const support = { lo: 20, hi: 20, label: null };
    const view = priceView([100, 104, 96, Number.NaN], [near, band, far, support]);
    // Prices 96–104 (span 8): levels reach to 94–106 only; 112 is beyond, so the axis is 96–104 padded by 5%.
    expect(view?.range).to.deep.equal([95.6, 104.4]);
    expect(view).to.include({ clipLow: true, clipHigh: true });
    expect(view?.above).to.deep.equal(['Price crosses 112.00', 'Price crosses 300.00']);
    expect(view?.below).to.deep.equal(['Price is inside the channel 40.00 – 50.00']);
    const within = priceView(
      [100, 104, 96],
      [
        { lo: 105, hi: 105, label: 'a' },
        { lo: 90, hi: 95, label: 'b' },
      ],
    );
    // 105 and the band's upper part down to the reach (94) widen it: 94–105, padded by 0.55.
    expect(within?.range[0]).to.be.closeTo(93.45, 1e-9);
    expect(within?.range[1]).to.be.closeTo(105.55, 1e-9);
    expect(within?.above).to.deep.equal([]);
    expect(within?.below).to.deep.equal([]);
    // The band reaches below 93.45: the axis stops there rather than follow it down to 90.
    expect(within).to.include({ clipLow: true, clipHigh: false });
    expect(priceView([100, 104, 96], [{ lo: 99, hi: 101, label: 'c' }])).to.include({
      clipLow: false,
      clipHigh: false,
    });
    // A support line far off stops the axis too, but is not listed as an alert.
    expect(priceView([100, 104, 96], [{ lo: 10, hi: 10, label: null }])).to.deep.include({ clipLow: true, below: [] });
    expect(priceView([], [near])).to.equal(null);
    expect(priceView([50], [])?.range[0]).to.be.below(50);
  });

  it('keeps alert labels apart by the pixels between them on the axis as drawn, not by a share of the price', () => {
    const alertAt = (id: string, y: number): ChartElement => ({
      symbol: 'AAPL',
      id,
      type: 'ALERT',
      charttype: 'price',
      chartdata: { y, label: `Price crosses ${y.toFixed(2)} ✕`, dash: 'dash', clickable: true },
      color: 'green',
      normalize: false,
    });
    const state = { symbol: 'AAPL', duration: '5Y', intraday: [], removed: [], smas: [], rsiPanel: false } as const;
    const places = (figure: ReturnType<typeof buildFigure>) =>
      (figure.layout.annotations ?? []).map((a) => ({ x: a.x, below: a.yanchor === 'top' }));
    // Five years from 50 to 230: 154 is 2.6% above 150 but under 6 px from it, so its label moves aside.
    const wide = buildFigure({
      ...state,
      bars: [bar('2021-01-05', 50), bar('2026-01-06', 230)],
      elements: [alertAt('a1', 150), alertAt('a2', 154)],
    });
    expect(places(wide)[0]).to.deep.equal({ x: 1, below: false });
    expect(places(wide)[1]).to.not.deep.equal({ x: 1, below: false });
    // A day's range of a dollar: 100.20 and 100.80 are over 100 px apart, both at the edge.
    const narrow = buildFigure({
      ...state,
      bars: [bar('2026-01-05', 100), bar('2026-01-06', 101)],
      elements: [alertAt('a1', 100.2), alertAt('a2', 100.8)],
    });
    expect(places(narrow)).to.deep.equal([
      { x: 1, below: false },
      { x: 1, below: false },
    ]);
    // The plot measured on a phone: a label's share of its width is larger.
    expect(labelWidth('Price crosses 150.00 ✕', 300)).to.be.above(labelWidth('Price crosses 150.00 ✕'));
  });

  it("leaves empty bars right of the latest candle, a tenth of those shown, or the alerts' tags' width", () => {
    expect([0, 5, 63, 252].map((bars) => rightOffset(bars))).to.deep.equal([0, 2, 6, 25]);
    // A tag a fifth of the plot wide: 16 empty bars of 79 on 63 bars shown; a third wide counts as 0.3.
    expect(rightOffset(63, 0.2)).to.equal(16);
    expect(16 / (63 + 16)).to.be.at.least(0.2);
    expect(rightOffset(63, 0.5)).to.equal(rightOffset(63, 0.3));
    expect(rightOffset(63, 0.01)).to.equal(6);
    const bars = Array.from({ length: 63 }, (_, i) => bar(`2026-0${1 + Math.floor(i / 28)}-${(i % 28) + 1}`, 100));
    const figure = buildFigure(figureState('3M', bars), 'market');
    expect(figure.layout.xaxis?.range).to.deep.equal([-0.5, 68.5]);
    // A channel's tag at the right edge: as many empty bars as it is wide, so it sits clear of the candles.
    const band = channelElement('c1', { lower: 95, upper: 105, label: 'Enter 95.00 – 105.00 ✕' });
    const share = rightLabelShare([band], 760);
    expect(share).to.equal(labelWidth('Enter 95.00 – 105.00 ✕', 760));
    const withTag = buildFigure({ ...figureState('3M', bars, [band]), plotWidth: 760 }, 'market');
    const [, right] = withTag.layout.xaxis?.range as [number, number];
    expect(right).to.equal(62.5 + rightOffset(63, share));
    expect((right - 62.5) / (right + 0.5), 'the empty bars’ share of the plot').to.be.at.least(share);
    // Removed, or being drawn, it moves nothing.
    expect(rightLabelShare([{ ...band, charttype: 'draft' }])).to.equal(0);
    const removed = buildFigure({ ...figureState('3M', bars, [band]), removed: ['c1'] }, 'market');
    expect(removed.layout.xaxis?.range).to.deep.equal([-0.5, 68.5]);
  });

  it('writes a brief tag where the tag is wider than the room right of the candles (a phone), its words on hover', () => {
    const bars = [bar('2026-01-05', 100), bar('2026-01-06', 101), bar('2026-01-07', 102)];
    const daily = chartView('3M');
    const enter = alertElement(conditionAlert('c1', { op: 'entering_channel', lower: 103, upper: 104 }), bars, daily);
    const move = alertElement(conditionAlert('c2', { op: 'moving_up_pct', value: 3, bars: 2 }), bars, daily, true);
    const price = alertElement(priceAlert('p1', 110), bars, daily);
    const elements = [enter, move, price].filter((e): e is ChartElement => e !== null);
    expect(elements).to.have.length(3);
    const written = (plotWidth: number): string[] =>
      renderElements(elements, [], { plotWidth }).annotations.map((a) => String(a.text));
    // A desktop's plot: every tag fits in 30% of it.
    expect(written(760)).to.deep.equal(['Enter 103.00 – 104.00 ✕', '▲ 3% in 2 bars · 103.00 ✕', '▲ Up 110.00 ✕']);
    // Narrower: the two wider than 30% of 320 px are brief, the price alert's fits still; on a phone's 260 px, all.
    expect(written(320)).to.deep.equal(['Enter ✕', '▲ 3% ✕', '▲ Up 110.00 ✕']);
    expect(written(260)).to.deep.equal(['Enter ✕', '▲ 3% ✕', '▲ 110.00 ✕']);
    const hover = renderElements(elements, [], { plotWidth: 260 }).annotations.map((a) => a.hovertext);
    expect(hover[0]).to.equal('Price enters the channel 103.00 – 104.00. Click to delete this alert');
    expect(hover[1]).to.equal('Price moves up by 3% in 2 bars (today at 103.00). Click to delete this alert');
    // The empty bars right of the candles are as many as the widest tag written needs, within 30%.
    for (const plotWidth of [760, 320, 260]) {
      const widest = Math.max(...written(plotWidth).map((text) => labelWidth(text, plotWidth)));
      expect(rightLabelShare(elements, plotWidth)).to.equal(widest);
      expect(widest, `${plotWidth} px`).to.be.at.most(MAX_LABEL_SHARE);
    }
    expect(fittedLabel({ label: 'a label far too wide for the plot ✕' }, 100)).to.equal(
      'a label far too wide for the plot ✕',
    );
  });

  it("writes support and resistance as S and R on a phone's chart, the words on hover, and in full on a wide one", () => {
    const elements = levelElements('AAPL', { support: [331.5, 324.1], resistance: [341.97, 339.2] });
    const drawn = (plotWidth: number) => renderElements(elements, [], { plotWidth, priceNear: 2 }).annotations;
    const phone = drawn(300);
    expect(phone.map((a) => a.text)).to.deep.equal(['S 331.50', 'S 324.10', 'R 341.97', 'R 339.20']);
    expect(phone.map((a) => a.hovertext)).to.deep.equal([
      'Support 331.50',
      'Support 324.10',
      'Resistance 341.97',
      'Resistance 339.20',
    ]);
    // Two resistances 2.77 apart, a label's height 2: each has a place of its own, none over another.
    const places = phone.map((a) => `${String(a.x)} ${String(a.y)} ${String(a.yanchor)}`);
    expect(new Set(places).size).to.equal(4);
    expect(drawn(1000).map((a) => a.text)).to.deep.equal([
      'Support 331.50',
      'Support 324.10',
      'Resistance 341.97',
      'Resistance 339.20',
    ]);
  });

  /** The price a label's height spans on the price panel (no RSI panel) fitted from `lo` to `hi`. */
  const nearOf = (lo: number, hi: number): number =>
    priceNearOf({ range: [lo, hi], clipLow: false, clipHigh: false, above: [], below: [] }, false);

  it('keeps a channel far from the price off the axis and writes it at the edge of the price panel', () => {
    const bars = [bar('2026-01-05', 330), bar('2026-01-06', 340)];
    const channel = channelElement('c1', { lower: 100, upper: 200, label: 'Price is outside the channel ✕' });
    const state = figureState('3M', bars, [channel]);
    const figure = buildFigure(state, 'market');
    // Plotly's fit, stopped at the prices (329–341) padded by 5% and a label's height (room for the markers'
    // text): below, above the channel's 200, with a label's height more for the note; above, where Plotly would
    // pad by a twentieth of 100 to 341.
    const options = figure.layout.yaxis?.autorangeoptions as { clipmin: number; clipmax: number };
    const near = nearOf(328.4, 341.6);
    expect(near).to.be.within(0.5, 1);
    expect(options.clipmin).to.be.closeTo(328.4 - 2 * near, 1e-9);
    expect(options.clipmax).to.be.closeTo(341.6 + near, 1e-9);
    expect(figure.annotationIds).to.deep.equal(['c1', 'offview:below']);
    expect(figure.layout.annotations?.[1]).to.include({
      text: '▼ alert below: Price is outside the channel',
      yref: 'paper',
      y: 0.3,
    });
    expect(offViewText(['a', 'b', 'c'], 'above')).to.equal('▲ 3 alerts above: a and 2 more');
    const removed = buildFigure({ ...state, removed: ['c1'] }, 'market');
    expect(removed.annotationIds).to.deep.equal([]);
  });

  it('stops the axis on both sides at the prices when one alert lies far above them, so they fill the panel', () => {
    const bars = [bar('2026-01-05', 330), bar('2026-01-06', 340)];
    const far = priceAlert('p1', 100_000);
    const figure = buildFigure(figureState('3M', bars, [alertElement(far, bars)!]), 'market');
    // Plotly alone pads below by a twentieth of 329 to 100,000 (the axis from thousands below 0, the candles a
    // line at its top): stopped a label's height under the prices, and above them with one more for the note.
    const options = figure.layout.yaxis?.autorangeoptions as { clipmin: number; clipmax: number };
    const near = nearOf(328.4, 341.6);
    expect(options.clipmin).to.be.closeTo(328.4 - near, 1e-9);
    expect(options.clipmax).to.be.closeTo(341.6 + 2 * near, 1e-9);
    expect(figure.annotationIds).to.deep.equal(['p1', 'offview:above']);
    expect(figure.layout.annotations?.[1]?.text).to.match(/^▲ alert above: .*100000\.00$/);
  });

  it('keeps a volume alert far above the bars off the volume axis and writes it at the top of the volume panel', () => {
    const bars = [bar('2026-01-05', 330, { volume: 40e6 }), bar('2026-01-06', 340, { volume: 60e6 })];
    const volumeAlert = (id: string, y: number): ChartElement => ({
      symbol: 'AAPL',
      id,
      type: 'ALERT',
      charttype: 'condition',
      chartdata: { y, label: `Volume Cross ▲ ${y} ✕`, dash: 'dash', clickable: true, axis: 'y2' },
      color: 'green',
      normalize: false,
    });
    const far = buildFigure(figureState('3M', bars, [volumeAlert('v1', 1e12)]), 'market');
    // The bars (0 to 60M) would take levels up to three times the tallest; the trillion stops the fit at the bars'
    // top padded by 5%.
    // From 0, where Plotly would pad below by a twentieth of the trillion and squeeze the bars into a strip; above,
    // a label's height of the volume panel (its range of 66M over its pixels) for the note.
    const volumePx = (chartHeight(false) - CHART_MARGIN.t - CHART_MARGIN.b) * 0.2;
    const options = far.layout.yaxis2?.autorangeoptions as { clipmin: number; clipmax: number };
    expect(options.clipmin).to.equal(0);
    expect(options.clipmax).to.be.closeTo(63e6 + (66e6 * LABEL_HEIGHT_PX) / volumePx, 1);
    expect(options.clipmax).to.be.below(100e6);
    expect(far.layout.yaxis2).to.deep.include({ tickvals: [0, 30e6, 60e6] });
    expect(far.layout.yaxis?.autorangeoptions, 'the price axis keeps its own fit').to.equal(undefined);
    expect(far.annotationIds).to.deep.equal(['v1', 'offview:volume:above']);
    expect(far.layout.annotations?.[1]).to.include({
      text: '▲ alert above: Volume Cross ▲ 1000000000000',
      yref: 'paper',
      y: 0.2,
      yanchor: 'top',
    });
    // A surge at twice the tallest bar is drawn over them (Plotly's own fit), as is a wide volume channel's label
    // held at the top of the volume axis when it reaches far above.
    const surge = buildFigure(figureState('3M', bars, [volumeAlert('v2', 120e6)]), 'market');
    expect(surge.layout.yaxis2?.autorangeoptions).to.equal(undefined);
    expect(surge.annotationIds).to.deep.equal(['v2']);
    const wide = channelElement('w2', { lower: 1e6, upper: 1e12, axis: 'y2', label: 'Volume is inside ✕' });
    const banded = buildFigure(figureState('3M', bars, [wide]), 'market');
    expect(banded.annotationIds).to.deep.equal(['w2']);
    expect(banded.layout.annotations?.[0]).to.include({ yref: 'y2', yanchor: 'top' });
    // The band is drawn up to three times the tallest bar (180M), padded by 5%.
    expect(banded.layout.annotations?.[0]?.y).to.be.closeTo(189e6, 1);
  });

  it('stops the axis at the prices when a channel spans far beyond them, its label held at the top', () => {
    const bars = [bar('2026-01-05', 330), bar('2026-01-06', 340)];
    const wide = channelElement('w1', { lower: 1, upper: 100_000, label: 'Price is inside the channel ✕' });
    const figure = buildFigure(figureState('3M', bars, [wide]), 'market');
    // Prices 329–341 (span 12): the band is drawn to 3 (a quarter of the span) either side, padded by 5%, and
    // the axis stops a label's height beyond that (room for the markers' text).
    const options = figure.layout.yaxis?.autorangeoptions as { clipmin: number; clipmax: number };
    expect(options.clipmin).to.be.closeTo(325.1 - nearOf(325.1, 344.9), 1e-9);
    expect(options.clipmax).to.be.closeTo(344.9 + nearOf(325.1, 344.9), 1e-9);
    expect(figure.annotationIds).to.deep.equal(['w1']);
    expect(figure.layout.annotations?.[0]).to.include({ yref: 'y', yanchor: 'top' });
    expect(figure.layout.annotations?.[0]?.y).to.be.closeTo(344.9, 1e-9);
  });

  it('stops the axis at the prices for a channel following a moving average with its other bound far off', () => {
    const bars = [bar('2026-01-05', 330), bar('2026-01-06', 340)];
    const mixed = channelElement('m1', {
      lower: [327, 328],
      upper: 700,
      x: ['2026-01-05', '2026-01-06'],
      label: 'Price is inside the channel ✕',
    });
    const figure = buildFigure(figureState('3M', bars, [mixed]), 'market');
    // Prices 329–341 (span 12): the band is drawn down to its average (327) and up to 344 (a quarter of the
    // span), padded by 5%, where its constant bound at 700 would have stretched the axis to it, and a label's
    // height beyond that on each side (below, Plotly would pad by a twentieth of 327 to 700).
    const options = figure.layout.yaxis?.autorangeoptions as { clipmin: number; clipmax: number };
    expect(options.clipmin).to.be.closeTo(326.15 - nearOf(326.15, 344.85), 1e-9);
    expect(options.clipmax).to.be.closeTo(344.85 + nearOf(326.15, 344.85), 1e-9);
    expect(figure.layout.annotations?.[0]?.y, 'its label held at the top').to.be.closeTo(344.85, 1e-9);
  });

  it('shows the RSI(14) panel below the volume when turned on, on daily durations only', () => {
    const bars = [bar('2026-01-05', 100, { rsi_14: 55 }), bar('2026-01-06', 101, { rsi_14: 61 })];
    const state = { symbol: 'AAPL', duration: '3M', bars, intraday: [], elements: [], removed: [], smas: [] } as const;
    const shown = buildFigure({ ...state, rsiPanel: true }, 'market');
    expect(shown.data.at(-1)).to.deep.include({ name: 'RSI 14', y: [55, 61], yaxis: 'y4' });
    expect(shown.layout.yaxis4).to.deep.include({ range: [0, 100], tickvals: [0, 30, 50, 70, 100], fixedrange: true });
    const hidden = buildFigure({ ...state, rsiPanel: false }, 'market');
    expect(hidden.layout.yaxis4).to.equal(undefined);
    expect(hidden.data.some((d) => d.name === 'RSI 14')).to.equal(false);
    const intraday = buildFigure({ ...state, duration: '1D', rsiPanel: true }, 'market');
    expect(intraday.layout.yaxis4).to.equal(undefined);
  });

  it('gives the RSI panel a quarter of a taller chart, apart from the volume, the price panel keeping its height', () => {
    const bars = [bar('2026-01-05', 100, { rsi_14: 55 }), bar('2026-01-06', 101, { rsi_14: 61 })];
    const state = { symbol: 'AAPL', duration: '3M', bars, intraday: [], elements: [], removed: [], smas: [] } as const;
    const px = (rsi: boolean, domain: unknown) => {
      const [from, to] = domain as [number, number];
      return (to - from) * (chartHeight(rsi) - CHART_MARGIN.t - CHART_MARGIN.b);
    };
    const shown = buildFigure({ ...state, rsiPanel: true }, 'market');
    const hidden = buildFigure({ ...state, rsiPanel: false }, 'market');
    expect(shown.layout.height).to.equal(chartHeight(true));
    expect(hidden.layout.height).to.equal(chartHeight(false));
    const rsi = shown.layout.yaxis4?.domain as [number, number];
    const volume = shown.layout.yaxis2?.domain as [number, number];
    const price = shown.layout.yaxis?.domain as [number, number];
    expect(px(true, rsi), 'RSI panel height').to.be.at.least(140);
    expect(px(true, rsi) / px(true, [0, 1]), "RSI panel's share").to.be.within(0.2, 0.3);
    expect(px(true, price), 'price panel height').to.be.at.least(0.9 * px(false, hidden.layout.yaxis?.domain));
    expect(px(true, price)).to.be.above(px(true, rsi));
    expect(rsi[1], 'apart from the volume').to.be.below(volume[0]);
    expect(volume[1], 'room for the dates under the price panel').to.be.below(price[0]);
  });

  it("reaches the previous close on the 1D chart's price axis, however far the day's candles are from it", () => {
    const candles = [
      { time: '2026-07-01 09:30', open: 530, high: 530.3, low: 529.9, close: 530.2, volume: 10, sessionVolume: 10 },
    ];
    const figure = buildFigure(figureState('1D', [], [closeElement('AAPL', 520)], candles), 'market');
    // Fitted from 520 to 530.3 (padded by 5%): the reference line is drawn, not counted off the axis.
    expect(figure.layout.yaxis?.autorangeoptions).to.equal(undefined);
    expect(figure.layout.annotations?.map((a) => a.text)).to.deep.equal(['Previous close 520.00']);
  });

  it("writes the 1D chart's times in the chosen zone with the zone in the axis title; daily dates as trading days", () => {
    const candles = [
      { time: '2026-07-01 09:30', open: 100, high: 101, low: 99, close: 100.5, volume: 10, sessionVolume: 10 },
      { time: '2026-07-01 09:31', open: 100.5, high: 102, low: 100, close: 101, volume: 5, sessionVolume: 15 },
    ];
    expect(intradayX(candles, 'market')).to.deep.equal(['2026-07-01 09:30', '2026-07-01 09:31']);
    expect(intradayX(candles, 'Europe/Paris')).to.deep.equal(['2026-07-01 15:30', '2026-07-01 15:31']);
    expect(intradayX(candles, 'Asia/Tokyo')).to.deep.equal(['2026-07-01 22:30', '2026-07-01 22:31']);
    const state = figureState('1D', [], [], candles);
    const market = buildFigure(state, 'market');
    expect(market.data[0]).to.deep.include({ x: ['2026-07-01 09:30', '2026-07-01 09:31'] });
    expect(market.layout.xaxis?.title).to.deep.include({ text: 'Time (New York)' });
    expect(market.layout.xaxis?.hoverformat).to.equal('%Y-%m-%d %H:%M ET');
    expect(market.layout.xaxis?.range).to.deep.equal(['2026-07-01 09:25', '2026-07-01 10:30']);
    const paris = buildFigure(state, 'Europe/Paris');
    expect(paris.data[0]).to.deep.include({ x: ['2026-07-01 15:30', '2026-07-01 15:31'] });
    expect(paris.data[1]).to.deep.include({ x: ['2026-07-01 15:30', '2026-07-01 15:31'] });
    expect(paris.layout.xaxis?.title).to.deep.include({ text: 'Time (Europe/Paris)' });
    expect(paris.layout.xaxis?.hoverformat).to.equal('%Y-%m-%d %H:%M GMT+2');
    expect(paris.layout.xaxis?.range).to.deep.equal(['2026-07-01 15:25', '2026-07-01 16:30']);
    const daily = buildFigure({ ...state, duration: '3M', bars: [bar('2026-01-05', 100)] }, 'Europe/Paris');
    expect(daily.data[0]).to.deep.include({ x: ['2026-01-05'] });
    expect(daily.layout.xaxis?.title).to.deep.include({ text: 'Date (New York trading day)' });
  });

  it('writes volume ticks with the number display rule', () => {
    expect(volumeTicks([1000, 2_500_000])).to.deep.equal({
      tickvals: [0, 1_250_000, 2_500_000],
      ticktext: ['0', '1.25M', '2.50M'],
    });
    expect(volumeTicks([]), "Plotly's own ticks").to.deep.equal({});
    expect(volumeTicks([3000])).to.deep.equal({});
  });

  it('reads the price under a click on the price axis only', () => {
    const axis = (offset: number, length: number) => ({
      _offset: offset,
      _length: length,
      p2d: (px: number) => 200 - px / 10,
    });
    const axes = { xaxis: axis(50, 500), yaxis: axis(30, 400) };
    expect(priceAtPoint(axes, 100, 130)).to.equal(190);
    expect(priceAtPoint(axes, 10, 130), 'left of the plot').to.equal(null);
    expect(priceAtPoint(axes, 100, 500), 'below the price plot').to.equal(null);
    expect(priceAtPoint({}, 100, 130)).to.equal(null);
  });

  it('places a price back on the axes as they are laid out now, within the plot area', () => {
    const axis = (offset: number, length: number, top: number) => ({
      _offset: offset,
      _length: length,
      p2d: (px: number) => top - px / 10,
      d2p: (value: number) => (top - value) * 10,
    });
    const wide = { xaxis: axis(50, 500, 0), yaxis: axis(30, 400, 200) };
    const clicked = priceAtPoint(wide, 150, 130)!;
    expect(pointOfPrice(wide, clicked, 0.2)).to.deep.equal({ left: 150, top: 130 });
    // The window narrowed: the plot is shorter and its prices spread over fewer pixels.
    const narrow = { xaxis: axis(40, 250, 0), yaxis: axis(20, 200, 200) };
    expect(pointOfPrice(narrow, clicked, 0.2)).to.deep.equal({ left: 90, top: 120 });
    expect(pointOfPrice(narrow, 500, 1.5), 'kept within the plot').to.deep.equal({ left: 290, top: 20 });
    expect(pointOfPrice({ xaxis: wide.xaxis, yaxis: { ...wide.yaxis, d2p: undefined } }, 190, 0.5)).to.equal(null);
    expect(pointOfPrice({}, 190, 0.5)).to.equal(null);
  });

  it('keeps a popover centred on a click inside its container, moved inwards at the edges', () => {
    // A phone's chart, 340 px wide, and a popover 270 px wide.
    expect(keptInside(170, 270, 340)).to.equal(170);
    expect(keptInside(3, 270, 340), 'a click at the left edge').to.equal(139);
    expect(keptInside(335, 270, 340), 'at the right edge').to.equal(201);
    expect(keptInside(100, 400, 340), 'wider than the chart: centred').to.equal(170);
    expect(keptInside(500, 200, 1200, 0)).to.equal(500);
  });
});
