import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SECTORS, capClassOf, type DailyBar } from '../../domain/market/types.ts';
import { computeIndicators } from '../indicators/indicators.ts';
import { MARKET_DB_FILE, openMarketStore } from '../marketdata/store.ts';
import { loadUniverse } from '../marketdata/universe.ts';
import { detectAll } from '../patterns/patterns.ts';
import { patternPerformance } from '../patterns/performance.ts';
import { openMarketData, type MarketData } from './marketData.ts';
import type { ClosedDay, SymbolBar } from '../../platform/bus/port.ts';
import type { Quote, QuoteSource } from './quotes.ts';
import { LiveQuotes } from '../quotes/liveQuotes.ts';
import { equalWeightLevels } from '../../domain/portfolio/performance.ts';

const SYMBOLS = ['AAPL', 'MSFT', 'NVDA', 'XOM', 'CVX', 'DUK', 'JPM', 'KO'];
const UNIVERSE = loadUniverse().filter((e) => SYMBOLS.includes(e.symbol));
const SEED = 42;
/** The day the market's history ends on: after the universe date, so the history runs on past it. */
const END = '2025-03-14';

describe('MarketData', function () {
  let templateDir: string;
  const dirs: string[] = [];

  /** A new data folder holding a copy of the market built in `before`. */
  function copyOfMarket(): string {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sp-market-'));
    dirs.push(dir);
    copyFileSync(path.join(templateDir, MARKET_DB_FILE), path.join(dir, MARKET_DB_FILE));
    return dir;
  }

  function open(dataDir: string): MarketData {
    return openMarketData({ dataDir, seed: SEED, universe: UNIVERSE, endDate: END });
  }

  function histories(market: MarketData): Map<string, DailyBar[]> {
    return new Map(UNIVERSE.map((e) => [e.symbol, market.store.bars(e.symbol)]));
  }

  before(function () {
    templateDir = mkdtempSync(path.join(os.tmpdir(), 'sp-market-'));
    dirs.push(templateDir);
    open(templateDir).close();
  });
  after(function () {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('builds and analyses every symbol on first start, reporting progress of both phases', function () {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sp-market-'));
    dirs.push(dir);
    const seen: string[] = [];
    const market = openMarketData({
      dataDir: dir,
      seed: SEED,
      universe: UNIVERSE,
      endDate: END,
      batchSize: 3,
      onProgress: (phase, done, total) => seen.push(`${phase} ${done}/${total}`),
    });
    try {
      expect(market.report.built).to.equal(SYMBOLS.length);
      expect(market.report.analysed).to.equal(SYMBOLS.length);
      expect(seen).to.include.members(['build 0/8', 'build 8/8', 'analyse 0/8', 'analyse 3/8', 'analyse 8/8']);
    } finally {
      market.close();
    }
  });

  it('extends the history on a later day to what a build to that day holds, and re-analyses it', function () {
    const dir = copyOfMarket();
    const later = '2025-04-17';
    const extended = openMarketData({ dataDir: dir, seed: SEED, universe: UNIVERSE, endDate: later });
    const scratchDir = mkdtempSync(path.join(os.tmpdir(), 'sp-market-'));
    dirs.push(scratchDir);
    const scratch = openMarketData({ dataDir: scratchDir, seed: SEED, universe: UNIVERSE, endDate: later });
    try {
      expect(extended.report).to.include({ built: 0, extended: SYMBOLS.length, analysed: SYMBOLS.length });
      expect(extended.status()).to.include({ asOf: later, to: later });
      // Good Friday 2025-04-18 is a holiday: the history gains the 24 trading days after 2025-03-14.
      expect(extended.calendar.length - extended.calendar.indexOf(END) - 1).to.equal(24);
      expect(histories(extended)).to.deep.equal(histories(scratch));
      expect(extended.patternPerformance()).to.deep.equal(scratch.patternPerformance());
    } finally {
      extended.close();
      scratch.close();
    }
  });

  it('reuses the stored analysis on a second start', function () {
    const market = open(copyOfMarket());
    try {
      expect(market.report).to.include({ built: 0, extended: 0, analysed: 0 });
      expect(market.status()).to.deep.equal({
        asOf: END,
        seed: SEED,
        symbols: SYMBOLS.length,
        bars: market.calendar.length * SYMBOLS.length,
        from: market.calendar[0],
        to: END,
        source: 'simulated',
        importedSymbols: [],
      });
    } finally {
      market.close();
    }
  });

  it("keeps each symbol's latest bar with the indicators and patterns of its whole history", function () {
    const market = open(copyOfMarket());
    try {
      for (const [symbol, bars] of histories(market)) {
        const snapshot = market.snapshot(symbol);
        const last = bars.at(-1) as DailyBar;
        expect(snapshot).to.deep.include({ date: last.date, close: last.close, prevClose: bars.at(-2)?.close });
        expect(snapshot?.indicators).to.deep.equal(computeIndicators(bars).at(-1));
        const detection = detectAll(bars).at(-1);
        const expected = detection?.index === bars.length - 1 ? detection.hits.map((h) => h.name) : [];
        expect(snapshot?.patterns).to.deep.equal(expected);
      }
    } finally {
      market.close();
    }
  });

  it('holds the pattern rows detectAll finds on every history, and their statistics', function () {
    const market = open(copyOfMarket());
    try {
      const all = histories(market);
      let count = 0;
      for (const [symbol, bars] of all) {
        const detections = detectAll(bars);
        count += detections.length;
        const rows = market.patterns.recentOfSymbol(symbol, market.calendar.length);
        expect(rows.map((r) => ({ date: r.date, names: r.stockpatterns.map((h) => h.name) })).reverse()).to.deep.equal(
          detections.map((d) => ({ date: d.date, names: d.hits.map((h) => h.name) })),
        );
      }
      expect(market.patterns.size).to.equal(count);
      expect(market.patternPerformance()).to.deep.equal(patternPerformance(all.values()));
    } finally {
      market.close();
    }
  });

  it('answers the stored statistics after a restart without reading the pattern rows', function () {
    const dir = copyOfMarket();
    const first = open(dir);
    const expected = first.patternPerformance();
    first.close();
    const market = open(dir);
    try {
      expect(market.patternPerformance()).to.deep.equal(expected);
    } finally {
      market.close();
    }
  });

  it('re-analyses only a symbol whose bars were replaced, and counts it as imported', function () {
    const dir = copyOfMarket();
    const store = openMarketStore({ file: path.join(dir, MARKET_DB_FILE) });
    const bars = store.bars('KO').slice(-300, -5);
    store.replaceBars('KO', bars, 'imported');
    store.close();
    const market = open(dir);
    try {
      expect(market.report).to.include({ built: 0, analysed: 1 });
      expect(market.snapshot('KO')?.date).to.equal(bars.at(-1)?.date);
      expect(market.status()).to.include({ source: 'mixed' });
      expect(market.status().importedSymbols).to.deep.equal(['KO']);
      expect(market.patternPerformance()).to.deep.equal(patternPerformance(histories(market).values()));
    } finally {
      market.close();
    }
  });

  it('re-analyses a symbol whose stored analysis has another version', function () {
    const dir = copyOfMarket();
    const store = openMarketStore({ file: path.join(dir, MARKET_DB_FILE) });
    const stale = store.analyses().find((a) => a.symbol === 'JPM');
    if (stale === undefined) throw new Error('JPM has no stored analysis');
    store.replaceAnalyses([{ analysis: { ...stale, version: 'old' }, patternRows: [] }]);
    store.close();
    const market = open(dir);
    try {
      expect(market.report).to.include({ analysed: 1 });
      expect(market.patterns.recentOfSymbol('JPM', 2000).length).to.equal(detectAll(market.store.bars('JPM')).length);
    } finally {
      market.close();
    }
  });

  it('draws chart bars of the last months with the indicators of the whole history', function () {
    const market = open(copyOfMarket());
    try {
      const bars = market.store.bars('NVDA');
      const rows = computeIndicators(bars);
      const chart = market.chartBars('NVDA', 3);
      // Three months before Friday 2025-03-14 is Saturday 2024-12-14: the window starts on the Friday before.
      expect(chart[0]?.date).to.equal('2024-12-13');
      expect(chart.at(-1)?.date).to.equal(END);
      const at = bars.length - chart.length;
      chart.forEach((bar, i) => {
        const row = rows[at + i];
        expect(bar).to.deep.equal({
          ...bars[at + i],
          SMA_20: row?.SMA_20,
          SMA_50: row?.SMA_50,
          SMA_100: row?.SMA_100,
          SMA_200: row?.SMA_200,
          rsi_14: row?.rsi_14,
        });
      });
      expect(market.chartBars('NVDA', 60)[0]?.date).to.equal('2020-03-13');
      expect(market.chartBars('NVDA', 120)).to.have.length(bars.length);
    } finally {
      market.close();
    }
  });

  it('stores a closed day: the chart, its next averages and the analyses go on with it, and a restart starts from it', async function () {
    const dir = copyOfMarket();
    const market = open(dir);
    const rolled: string[] = [];
    const stop = market.onDayRolled((r) => rolled.push(`${r.date} ${r.written}`));
    try {
      // Charted first, so a chart kept from before the close would show.
      expect(market.chartBars('NVDA', 1).at(-1)?.date).to.equal(END);
      const before = market.status();
      const barOf = (symbol: string, close: number): SymbolBar => ({
        symbol,
        date: '2025-03-17',
        open: close - 1,
        high: close + 2,
        low: close - 3,
        close,
        volume: 1_234_567,
      });
      const day: ClosedDay = {
        date: '2025-03-17',
        bars: [barOf('NVDA', 130.05), barOf('KO', 70.01), barOf('ZZZZ', 5)],
      };
      expect(market.rollDay(day)).to.deep.equal({ date: '2025-03-17', written: 2, earlier: [] });
      const bars = market.store.bars('NVDA');
      const chart = market.chartBars('NVDA', 1);
      const { symbol: _, ...stored } = day.bars[0]!;
      expect(bars.at(-1)).to.deep.equal(stored);
      expect(chart.at(-1)).to.deep.include({ ...stored, SMA_20: computeIndicators(bars).at(-1)?.SMA_20 });
      const next = market.nextAverages('NVDA')!;
      expect(next.after).to.equal('2025-03-17');
      expect(next.SMA_20).to.be.closeTo(
        bars.slice(-19).reduce((sum, bar) => sum + bar.close, 0),
        1e-9,
      );
      expect(market.status()).to.deep.include({ to: '2025-03-17', bars: before.bars + 2 });
      // Then analysed again, as a start would: the screener's indicators, the calendar, the pattern statistics.
      const statsBefore = market.patternPerformance();
      await market.analysed();
      expect(market.snapshot('NVDA')).to.deep.include({ date: '2025-03-17', close: 130.05 });
      expect(market.snapshot('NVDA')?.indicators).to.deep.equal(computeIndicators(bars).at(-1));
      expect(market.snapshot('KO')?.date).to.equal('2025-03-17');
      expect(market.snapshot('AAPL')?.date).to.equal(END);
      expect(market.calendar.at(-1)).to.equal('2025-03-17');
      const row = market.screenerInputs().find((r) => r.symbol === 'NVDA');
      expect(row?.indicators.SMA_20).to.equal(computeIndicators(bars).at(-1)?.SMA_20);
      const stats = market.patternPerformance();
      expect(stats).to.deep.equal(patternPerformance(histories(market).values()));
      expect(stats).to.not.deep.equal(statsBefore);
      // The same day again (another process, or a correction) replaces its bar; an earlier day is left out.
      expect(market.rollDay({ ...day, bars: [barOf('NVDA', 131.5)] }).written).to.equal(1);
      expect(market.store.bars('NVDA').at(-1)?.close).to.equal(131.5);
      expect(market.status().bars).to.equal(before.bars + 2);
      const earlier = { date: END, bars: [{ ...barOf('NVDA', 120), date: END }] };
      expect(market.rollDay(earlier)).to.deep.equal({ date: END, written: 0, earlier: ['NVDA'] });
      expect(market.store.bars('NVDA').at(-1)?.date).to.equal('2025-03-17');
      expect(rolled).to.deep.equal(['2025-03-17 2', '2025-03-17 1', `${END} 0`]);
      await market.analysed();
      expect(market.snapshot('NVDA')?.close).to.equal(131.5);
    } finally {
      stop();
      market.close();
    }
    // A restart finds them analysed, and keeps the day.
    const again = open(dir);
    try {
      expect(again.report.analysed).to.equal(0);
      expect(again.snapshot('NVDA')?.date).to.equal('2025-03-17');
      expect(again.store.bars('NVDA').at(-1)?.close).to.equal(131.5);
    } finally {
      again.close();
    }
  });

  it('leaves the bars of a symbol imported from a provider to its refresh', function () {
    const market = open(copyOfMarket());
    try {
      market.store.putProviderSymbol({ symbol: 'KO', provider: 'alpaca', name: 'Coca-Cola', sector: null });
      const day: ClosedDay = {
        date: '2025-03-17',
        bars: [{ symbol: 'KO', date: '2025-03-17', open: 70, high: 71, low: 69, close: 70.5, volume: 10 }],
      };
      expect(market.rollDay(day).written).to.equal(0);
      expect(market.store.bars('KO').at(-1)?.date).to.equal(END);
    } finally {
      market.close();
    }
  });

  it('measures % change series from 0 on the first day, and sector series as the mean of their symbols', function () {
    const market = open(copyOfMarket());
    try {
      const { dates, series } = market.performance(['XOM', 'CVX'], 3);
      expect(dates[0]).to.equal('2024-12-13');
      const xom = market.store.bars('XOM', { from: dates[0] });
      expect(series[0]?.values[0]).to.equal(0);
      const last = xom.at(-1)?.close as number;
      const first = xom[0]?.close as number;
      expect(series[0]?.values.at(-1)).to.equal(Math.round((last / first - 1) * 10000) / 100);
      const sectors = market.sectorPerformance(3);
      expect(sectors.series.map((s) => s.sector)).to.deep.equal([...SECTORS]);
      const energy = sectors.series.find((s) => s.sector === 'Energy')?.values.at(-1) as number;
      const mean = ((series[0]?.values.at(-1) as number) + (series[1]?.values.at(-1) as number)) / 2;
      expect(Math.abs(energy - mean)).to.be.below(0.006);
      expect(sectors.series.find((s) => s.sector === 'Materials')?.values.every((v) => v === null)).to.equal(true);
    } finally {
      market.close();
    }
  });

  it("answers a symbol's close on each date from memory as its stored bars give it, null where it has none", function () {
    const market = open(copyOfMarket());
    try {
      const calendar = market.calendar;
      // Every trading day, a date before the history, days the market was shut, and a sparse pick of days.
      const dates = [
        '1999-12-31',
        ...calendar.slice(0, 3),
        '2024-12-25',
        '2024-12-28',
        ...calendar.filter((_, i) => i % 97 === 0),
        ...calendar.slice(-5),
      ].sort();
      for (const chosen of [calendar, dates, calendar.slice(-1), []]) {
        for (const symbol of SYMBOLS) {
          const stored = new Map(market.store.bars(symbol).map((bar) => [bar.date, bar.close]));
          const closes = market.closesOn(symbol, chosen);
          expect(closes, symbol).to.deep.equal(chosen.map((date) => stored.get(date) ?? null));
        }
      }
      expect(market.closesOn('AAPL', dates).filter((c) => c === null)).to.have.length(3);
      expect(market.closesOn('NOPE', dates)).to.deep.equal(dates.map(() => null));
    } finally {
      market.close();
    }
  });

  it('keeps the equal-weight index of every symbol per window, and makes it again once a closed day is analysed', async function () {
    const market = open(copyOfMarket());
    try {
      const all = market.performance(market.symbols(), 3);
      const levels = equalWeightLevels(
        all.series.map((s) => s.values),
        all.dates.length,
      );
      const index = market.equalWeightIndex(3);
      expect([...index.keys()]).to.deep.equal(all.dates);
      expect([...index.values()]).to.deep.equal(levels);
      expect(index.get(all.dates[0]!)).to.equal(100);
      expect(market.equalWeightIndex(3)).to.equal(index);
      expect(market.equalWeightIndex(6).size).to.be.above(index.size);
      const bar = (symbol: string, close: number): SymbolBar => ({
        symbol,
        date: '2025-03-17',
        open: close,
        high: close,
        low: close,
        close,
        volume: 1_000,
      });
      market.rollDay({ date: '2025-03-17', bars: SYMBOLS.map((symbol) => bar(symbol, 100)) });
      await market.analysed();
      const after = market.equalWeightIndex(3);
      expect(after).to.not.equal(index);
      expect([...after.keys()].at(-1)).to.equal('2025-03-17');
    } finally {
      market.close();
    }
  });

  it('correlates returns into a symmetric matrix with ones on the diagonal', function () {
    const market = open(copyOfMarket());
    try {
      const { matrix, groups } = market.correlation(['XOM', 'CVX', 'AAPL', 'DUK'], 250);
      expect(matrix.symbols).to.deep.equal(['XOM', 'CVX', 'AAPL', 'DUK']);
      matrix.values.forEach((row, i) => {
        expect(row[i]).to.equal(1);
        row.forEach((v, j) => expect(v).to.equal(matrix.values[j]?.[i]));
      });
      expect(
        groups()
          .flat()
          .map((m) => m.stock)
          .sort(),
      ).to.deep.equal(['AAPL', 'CVX', 'DUK', 'XOM']);
    } finally {
      market.close();
    }
  });

  it('searches the whole universe without text and lists every sector', function () {
    const market = open(copyOfMarket());
    try {
      expect(market.search({})).to.have.length(SYMBOLS.length);
      expect(market.search({ q: 'ms' }).map((e) => e.symbol)).to.deep.equal(['MSFT']);
      expect(market.sectors()).to.have.length(11);
      expect(market.sectors().find((s) => s.sector === 'Energy')?.symbols).to.have.members(['XOM', 'CVX']);
    } finally {
      market.close();
    }
  });

  it('prices every market cap at the quotes: shares × price, in the search, screener and sectors', function () {
    const market = open(copyOfMarket());
    try {
      const shares = new Map(UNIVERSE.map((e) => [e.symbol, e.shares]));
      const lastClose = (symbol: string) => (market.store.bars(symbol).at(-1) as DailyBar).close;
      const caps = new Map(market.search({}).map((e) => [e.symbol, e.marketcap]));
      for (const entry of market.search({})) {
        expect(entry.marketcap, entry.symbol).to.equal((shares.get(entry.symbol) as number) * lastClose(entry.symbol));
        expect(entry.capclass, entry.symbol).to.equal(capClassOf(entry.marketcap));
        expect(market.marketCap(entry.symbol), entry.symbol).to.equal(entry.marketcap);
      }
      expect(new Map(market.screenerInputs().map((r) => [r.symbol, r.marketcap]))).to.deep.equal(caps);

      // Quotes that make XOM and CVX worth exactly as much, then XOM worth less: ties go by symbol.
      const closes: QuoteSource = market.quotes;
      const priced = (prices: Record<string, number>): QuoteSource => ({
        quote: (symbol) => {
          const quote = closes.quote(symbol);
          const price = prices[symbol];
          return quote && price !== undefined ? { ...quote, price, source: 'feed' } : quote;
        },
        quotes: (symbols) => symbols.flatMap((symbol) => closes.quote(symbol) ?? []),
      });
      const xom = shares.get('XOM') as number;
      const cvx = shares.get('CVX') as number;
      market.useQuoteSource(priced({ XOM: cvx, CVX: xom }));
      expect(market.marketCap('XOM')).to.equal(market.marketCap('CVX'));
      expect(market.sectors().find((s) => s.sector === 'Energy')?.symbols).to.deep.equal(['CVX', 'XOM']);
      market.useQuoteSource(priced({ XOM: 0.25, CVX: 1e6 }));
      const energy = market.search({ sector: 'Energy' });
      expect(energy.map((e) => [e.symbol, e.marketcap])).to.deep.equal([
        ['CVX', cvx * 1e6],
        ['XOM', xom * 0.25],
      ]);
      expect(market.search({ sector: 'Energy', cap: 'small' }).map((e) => e.symbol)).to.deep.equal(['XOM']);
      expect(market.sectors().find((s) => s.sector === 'Energy')?.symbols).to.deep.equal(['CVX', 'XOM']);
      const rows = new Map(market.screenerInputs().map((r) => [r.symbol, r]));
      expect(rows.get('XOM')).to.deep.include({ close: 0.25, marketcap: xom * 0.25, capclass: 'small' });
      // Symbols outside the universe have no market cap: last, by symbol.
      expect(market.byMarketCap(['ZZZ', 'XOM', 'AAA', 'CVX', 'KO'])).to.deep.equal(['CVX', 'KO', 'XOM', 'AAA', 'ZZZ']);
      expect(market.marketCap('ZZZ')).to.equal(undefined);
    } finally {
      market.close();
    }
  });

  it('tells when the quote source is replaced, until unsubscribed', function () {
    const market = open(copyOfMarket());
    try {
      let calls = 0;
      const stop = market.onQuoteSource(() => (calls += 1));
      market.useQuoteSource(market.quotes);
      stop();
      market.useQuoteSource(market.quotes);
      expect(calls).to.equal(1);
    } finally {
      market.close();
    }
  });

  it('quotes the last close against the previous one, and the screener follows a new quote source', function () {
    const market = open(copyOfMarket());
    try {
      const bars = market.store.bars('AAPL');
      const [prev, last] = bars.slice(-2) as [DailyBar, DailyBar];
      expect(market.quotes.quote('AAPL')).to.deep.equal({
        symbol: 'AAPL',
        price: last.close,
        change: Math.round((last.close - prev.close) * 10000) / 10000,
        changepct: Math.round(((last.close - prev.close) / prev.close) * 10000) / 100,
        volume: last.volume,
        // 16:00 New York, daylight saving time.
        ts: '2025-03-14T20:00:00.000Z',
        source: 'close',
        open: last.open,
        high: last.high,
        low: last.low,
      });
      expect(market.quotes.quotes(['MSFT', 'NOPE', 'AAPL']).map((q) => q.symbol)).to.deep.equal(['MSFT', 'AAPL']);
      const live: Quote = {
        symbol: 'AAPL',
        price: 300,
        change: 1,
        changepct: 0.5,
        volume: 1,
        ts: 'now',
        source: 'feed',
      };
      market.useQuoteSource({ quote: (s) => (s === 'AAPL' ? live : undefined), quotes: () => [live] });
      expect(market.screenerInputs().map((r) => [r.symbol, r.close])).to.deep.equal([['AAPL', 300]]);
    } finally {
      market.close();
    }
  });

  it('gives the screener each stock’s metrics from its stored bars and fundamentals, moved by the live price', function () {
    const market = open(copyOfMarket());
    try {
      const rows = new Map(market.screenerInputs().map((r) => [r.symbol, r]));
      for (const [symbol, bars] of histories(market)) {
        const row = rows.get(symbol);
        if (row === undefined) throw new Error(`no screener row of ${symbol}`);
        const n = bars.length;
        const last = bars[n - 1] as DailyBar;
        const previous = bars[n - 2] as DailyBar;
        const year = bars.slice(n - 253, n - 1);
        const averageVolume = bars.slice(n - 21, n - 1).reduce((sum, b) => sum + b.volume, 0) / 20;
        const [eps] = market.fundamentals('earningspershare', symbol, 1, 'A');
        expect(row.industry, symbol).to.equal(UNIVERSE.find((e) => e.symbol === symbol)?.industry);
        expect(row.metrics.volume, symbol).to.equal(last.volume);
        expect(row.metrics.gap, symbol).to.be.closeTo((last.open / previous.close - 1) * 100, 1e-9);
        expect(row.metrics.relvolume, symbol).to.be.closeTo(last.volume / averageVolume, 1e-9);
        expect(row.metrics.high52, symbol).to.be.closeTo(
          (last.close / Math.max(...year.map((b) => b.high)) - 1) * 100,
          1e-9,
        );
        expect(row.metrics.low52, symbol).to.be.closeTo(
          (last.close / Math.min(...year.map((b) => b.low)) - 1) * 100,
          1e-9,
        );
        expect(row.metrics.perf_1W, symbol).to.be.closeTo(
          (last.close / (bars[n - 6] as DailyBar).close - 1) * 100,
          1e-9,
        );
        expect(row.metrics.pe, symbol).to.equal(eps !== undefined && eps.val > 0 ? last.close / eps.val : null);
        const { SMA_50, SMA_200 } = row.indicators;
        if (row.metrics.sma_cross !== null && SMA_50 !== null && SMA_200 !== null && SMA_50 !== SMA_200) {
          expect(Math.sign(row.metrics.sma_cross), symbol).to.equal(Math.sign(SMA_50 - SMA_200));
        }
      }
      const bars = market.store.bars('AAPL');
      const n = bars.length;
      const before = rows.get('AAPL');
      const live: Quote = {
        symbol: 'AAPL',
        price: 300,
        change: 1,
        changepct: 0.5,
        volume: 7,
        ts: 'now',
        source: 'feed',
      };
      market.useQuoteSource({ quote: (s) => (s === 'AAPL' ? live : undefined), quotes: () => [live] });
      const [moved] = market.screenerInputs();
      expect(moved?.metrics.perf_1W).to.be.closeTo((300 / (bars[n - 6] as DailyBar).close - 1) * 100, 1e-9);
      expect(moved?.metrics.volume).to.equal(7);
      expect(moved?.metrics.gap).to.equal(before?.metrics.gap);
      expect(moved?.metrics.beta).to.equal(before?.metrics.beta);
    } finally {
      market.close();
    }
  });

  it('measures a live price of a later session from every stored bar: the 52-week range, volume and weeks', function () {
    const market = open(copyOfMarket());
    try {
      const bars = market.store.bars('AAPL');
      const n = bars.length;
      const last = bars[n - 1] as DailyBar;
      const before = market.screenerInputs().find((r) => r.symbol === 'AAPL')!;
      // The session after the store's last day, at 11:00 New York; its price within the last bar's range.
      const [y, m, d] = last.date.split('-').map(Number) as [number, number, number];
      const next = new Date(Date.UTC(y, m - 1, d + 1, 16)).toISOString();
      const price = last.low + (last.high - last.low) / 2;
      const live: Quote = { symbol: 'AAPL', price, change: 0, changepct: 0, volume: 9_000, ts: next, source: 'feed' };
      market.useQuoteSource({ quote: (s) => (s === 'AAPL' ? live : undefined), quotes: () => [live] });
      const [moved] = market.screenerInputs();
      const year = bars.slice(n - 252);
      const high = Math.max(...year.map((b) => b.high));
      const low = Math.min(...year.map((b) => b.low));
      expect(moved?.metrics.high52).to.be.closeTo((price / high - 1) * 100, 1e-9);
      expect(moved?.metrics.low52).to.be.closeTo((price / low - 1) * 100, 1e-9);
      // Not a new high or low: the last stored day reached beyond the price both ways.
      expect(moved?.metrics.high52).to.be.below(0);
      expect(moved?.metrics.low52).to.be.above(0);
      const averageVolume = bars.slice(n - 20).reduce((sum, b) => sum + b.volume, 0) / 20;
      expect(moved?.metrics.relvolume).to.be.closeTo(9_000 / averageVolume, 1e-9);
      expect(moved?.metrics.perf_1W).to.be.closeTo((price / (bars[n - 5] as DailyBar).close - 1) * 100, 1e-9);
      // A source that does not tell the session's open: no gap rather than the last day's.
      expect(moved?.metrics.gap).to.equal(null);
      expect(before.metrics.gap).to.not.equal(null);
      expect(moved?.metrics.beta).to.equal(before.metrics.beta);
    } finally {
      market.close();
    }
  });

  it("gives a live session's gap from its forming bar: the day's first tick against the previous close", function () {
    const market = open(copyOfMarket());
    try {
      const last = market.store.bars('AAPL').at(-1) as DailyBar;
      const [y, m, d] = last.date.split('-').map(Number) as [number, number, number];
      const next = new Date(Date.UTC(y, m - 1, d + 1, 16)).toISOString();
      const open = Math.round(last.close * 104) / 100;
      const live: Quote = {
        symbol: 'AAPL',
        price: open - 1,
        change: 0,
        changepct: 0,
        volume: 9,
        ts: next,
        source: 'feed',
      };
      market.useQuoteSource({
        quote: (s) => (s === 'AAPL' ? live : undefined),
        quotes: () => [live],
        session: (s) => (s === 'AAPL' ? { open, prevClose: last.close } : undefined),
      });
      const [moved] = market.screenerInputs();
      expect(moved?.metrics.gap).to.be.closeTo((open / last.close - 1) * 100, 1e-9);
      // A quote of the stored last day keeps that bar's gap, whatever the source's session says.
      const stored: Quote = { ...live, ts: `${last.date}T15:00:00.000Z` };
      market.useQuoteSource({
        quote: (s) => (s === 'AAPL' ? stored : undefined),
        quotes: () => [stored],
        session: () => ({ open, prevClose: last.close }),
      });
      const previous = market.store.bars('AAPL').at(-2) as DailyBar;
      expect(market.screenerInputs()[0]?.metrics.gap).to.be.closeTo((last.open / previous.close - 1) * 100, 1e-9);
    } finally {
      market.close();
    }
  });

  it("keeps a session's gap after its day closes, until the next session's first tick", function () {
    const market = open(copyOfMarket());
    try {
      const bars = market.store.bars('AAPL');
      const last = bars.at(-1) as DailyBar;
      const [y, m, d] = last.date.split('-').map(Number) as [number, number, number];
      const next = new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
      const at = (hour: number): number => Date.parse(`${next}T${String(hour).padStart(2, '0')}:00:00.000Z`);
      const open = Math.round(last.close * 103) / 100;
      const quotes = new LiveQuotes([{ symbol: 'AAPL', bars }]);
      quotes.applyTick({ symbol: 'AAPL', price: open, size: 100, ts: at(15) });
      quotes.applyTick({ symbol: 'AAPL', price: open - 2, size: 100, ts: at(19) });
      const gap = (open / last.close - 1) * 100;
      const gapNow = (): number | null | undefined => {
        // A new source object, as the quote feed gives the market after prices moved.
        market.useQuoteSource({
          quote: (s) => quotes.quote(s),
          quotes: (symbols) => quotes.quotes(symbols),
          session: (s) => quotes.session(s),
        });
        return market.screenerInputs().find((row) => row.symbol === 'AAPL')?.metrics.gap;
      };
      expect(gapNow()).to.be.closeTo(gap, 1e-9);
      const close = open - 2;
      quotes.roll({
        date: next,
        bars: [{ symbol: 'AAPL', date: next, open, high: open, low: close, close, volume: 200 }],
      });
      expect(gapNow(), "the closed session's gap overnight").to.be.closeTo(gap, 1e-9);
      const after = new Date(Date.UTC(y, m - 1, d + 2, 15)).getTime();
      const nextOpen = Math.round(close * 98) / 100;
      quotes.applyTick({ symbol: 'AAPL', price: nextOpen, size: 100, ts: after });
      expect(gapNow()).to.be.closeTo((nextOpen / close - 1) * 100, 1e-9);
    } finally {
      market.close();
    }
  });
});
