/**
 * The market data service: opens the market store of `DATA_DIR`, builds it on first start (and extends it to
 * the last closed session on a later day), analyses every
 * symbol's history (indicators of the latest bar, patterns of every bar with their forward returns) and stores
 * the analysis beside the bars, so a restart reuses it; then answers what the market and analysis routes need.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { DomainError } from '../../domain/decider.ts';
import {
  capClassOf,
  marketCapOf,
  SECTORS,
  type DailyBar,
  type Sector,
  type UniverseEntry,
} from '../../domain/market/types.ts';
import type { ClosedDay, SymbolBar } from '../../platform/bus/port.ts';
import type { Logger } from '../../platform/logger.ts';
import { alignReturns, correlationGroups, correlationMatrix, type CorrelationMatrix } from '../analysis/correlation.ts';
import type { GroupMember, SymbolHistory } from '../analysis/correlation.ts';
import { computeIndicators, type IndicatorRow } from '../indicators/indicators.ts';
import type { FundamentalPeriod, FundamentalType } from '../marketdata/fundamentals.ts';
import {
  buildMarket,
  MARKET_DB_FILE,
  openMarketStore,
  type BarDigest,
  type MarketStore,
  type ProviderSymbol,
  type StoredAnalysis,
  type StoredPatternRow,
} from '../marketdata/store.ts';
import { loadUniverse, searchUniverse, UNIVERSE_DATE, type UniverseQuery } from '../marketdata/universe.ts';
import { BULLISH_PATTERN_NAMES } from '../../domain/screener/patterns.ts';
import type { NextAverages } from '../../domain/contract/market.ts';
import { RSI_PERIOD, type SmaPeriod } from '../../domain/screener/query.ts';
import { wilderAverages } from '../../domain/market/rsi.ts';
import { equalWeightLevels } from '../../domain/portfolio/performance.ts';
import type { PatternPerformance } from '../patterns/performance.ts';
import type { ScreenerInput } from '../screener/screener.ts';
import {
  BASE_BARS,
  barBases,
  betaOf,
  gapOf,
  laterBases,
  marketReturns,
  metricsAt,
  modelledDividend,
  perfBases,
  smaCrossOf,
  type MetricBases,
} from '../screener/metrics.ts';
import { analyseBars, analysisVersion, seriesOf, toStored, type SymbolSnapshot } from './analysis.ts';
import { lastClosedSession } from './marketDate.ts';
import { PatternIndex } from './patternIndex.ts';
import { LastCloseQuotes, type Quote, type QuoteSource, type SessionOpen } from './quotes.ts';
import { TradingDays } from '../alerts/tradingDay.ts';
import { lastIndexAtOrBefore, monthWindowStart, percentChanges, round } from './series.ts';

/** The steps of opening the market data, as progress reports name them. */
export type MarketPhase = 'build' | 'analyse';

/** Progress of a phase: `done` of `total` symbols. */
export type MarketProgress = (phase: MarketPhase, done: number, total: number) => void;

/** Options of {@link openMarketData}. */
export interface MarketDataOptions {
  /** Folder of `market.db` (created when missing). */
  readonly dataDir: string;
  /** Seed of the generated market. */
  readonly seed: number;
  /**
   * The last trading day of the generated history (default the last session closed by the wall clock): a
   * store that ends earlier is extended to it.
   */
  readonly endDate?: string;
  /** The companies (the shipped universe by default). */
  readonly universe?: readonly UniverseEntry[];
  /** Called as symbols are built and analysed. */
  readonly onProgress?: MarketProgress;
  /** Logs what opening did and how long it took. */
  readonly logger?: Logger;
  /** Symbols analysed per transaction (default 25). */
  readonly batchSize?: number;
}

/** Where the market's bars come from. */
export type MarketSource = 'simulated' | 'imported' | 'mixed';

/** The state of the market data, as `GET /api/market/status` answers it. */
export interface MarketDataStatus {
  /** The last trading day of the generated history (the shipped universe's figures anchor its close on 2024-12-31). */
  readonly asOf: string;
  /** Seed of the generated bars, or null when none were generated. */
  readonly seed: number | null;
  /** Symbols with bars. */
  readonly symbols: number;
  /** Bars over all symbols. */
  readonly bars: number;
  /** Earliest bar date, or null. */
  readonly from: string | null;
  /** Latest bar date, or null. */
  readonly to: string | null;
  /** Simulated when no symbol's bars were imported, imported when all were, mixed otherwise. */
  readonly source: MarketSource;
  /** Symbols whose bars were imported, sorted. */
  readonly importedSymbols: readonly string[];
}

/** What opening did: symbols built and analysed, and the time of each step in ms. */
export interface OpenReport {
  /** Symbols whose bars were generated from scratch. */
  readonly built: number;
  /** Symbols whose generated bars were extended with the days since the store's last build. */
  readonly extended: number;
  /** Symbols whose analysis was (re)computed. */
  readonly analysed: number;
  /** Milliseconds of building, analysing and loading. */
  readonly ms: { build: number; analyse: number; load: number };
}

/** What {@link MarketData.rollDay} stored of a closed day. */
export interface DayRolled {
  /** The day. */
  readonly date: string;
  /** Symbols whose bar of the day was written. */
  readonly written: number;
  /** Symbols left out because their stored bars end after the day. */
  readonly earlier: readonly string[];
}

/** A daily bar with the indicators the price chart draws. */
export interface ChartBar extends DailyBar {
  /** SMA of 20 closes. */
  readonly SMA_20: number | null;
  /** SMA of 50 closes. */
  readonly SMA_50: number | null;
  /** SMA of 100 closes. */
  readonly SMA_100: number | null;
  /** SMA of 200 closes. */
  readonly SMA_200: number | null;
  /** RSI of 14 days. */
  readonly rsi_14: number | null;
}

/** Cumulative percent change series on shared dates, each starting at 0 on the first date. */
export interface PercentSeries<K extends string> {
  /** Trading days, oldest first. */
  readonly dates: readonly string[];
  /** One series per key, values in percent (2 decimals), null before a history starts. */
  readonly series: readonly ({ readonly [key in K]: string } & { readonly values: readonly (number | null)[] })[];
}

/** A fundamental figure as `GET /api/fundamentals/...` answers it. */
export interface FundamentalAnswer {
  /** Last day of the period. */
  readonly end: string;
  /** The figure. */
  readonly val: number;
  /** Fiscal year. */
  readonly fy: number;
  /** Fiscal period. */
  readonly fp: string;
  /** `derived` (generated) or `SEC` (imported). */
  readonly label: string;
}

interface Series {
  readonly dates: readonly string[];
  readonly closes: Float64Array;
}

/** The chart columns kept of a symbol: dates, bar values and indicators (NaN where unknown). */
interface ChartColumns {
  readonly dates: readonly string[];
  readonly columns: Readonly<Record<Exclude<keyof ChartBar, 'date'>, Float64Array>>;
}

const CHART_FIELDS = [
  'open',
  'high',
  'low',
  'close',
  'volume',
  'SMA_20',
  'SMA_50',
  'SMA_100',
  'SMA_200',
  'rsi_14',
] as const satisfies readonly Exclude<keyof ChartBar, 'date'>[];

/** A history with its indicators, in columns. */
function chartColumns(bars: readonly DailyBar[]): ChartColumns {
  const rows = computeIndicators(bars);
  const columns = Object.fromEntries(
    CHART_FIELDS.map((field) => [
      field,
      Float64Array.from(bars, (bar, i) => {
        const v = field in bar ? bar[field as keyof DailyBar] : (rows[i] as IndicatorRow)[field as keyof IndicatorRow];
        return typeof v === 'number' ? v : Number.NaN;
      }),
    ]),
  ) as ChartColumns['columns'];
  return { dates: bars.map((b) => b.date), columns };
}

const STATS_KEY = 'pattern_stats';
const CHART_CACHE_SIZE = 32;

/** The universe priced by one quote source object: what every market cap and screener row is computed from. */
interface Priced {
  readonly source: QuoteSource;
  /** Every company, with its market cap and cap class at its quote's price, in universe order. */
  readonly companies: readonly UniverseEntry[];
  /** The quote of each company that has one. */
  readonly quotes: ReadonlyMap<string, Quote>;
  /** The live session of each company whose quote is a tick's. */
  readonly sessions: ReadonlyMap<string, SessionOpen>;
  /** The market cap of each company. */
  readonly caps: ReadonlyMap<string, number>;
}

const bySymbol = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The market data service; see the module comment. */
export class MarketData {
  private readonly bySymbol: ReadonlyMap<string, UniverseEntry>;
  private readonly listed: ReadonlyMap<string, ProviderSymbol>;
  private readonly snapshots = new Map<string, SymbolSnapshot>();
  private readonly series = new Map<string, Series>();
  /** {@link equalWeightIndex}'s levels by window in months, until the closes change. */
  private readonly equalWeights = new Map<number, ReadonlyMap<string, number>>();
  private marketStatus: MarketDataStatus;
  private analysisDigest: string;
  private readonly chartCache = new Map<string, ChartColumns>();
  private quoteSource: QuoteSource;
  private readonly quoteSourceListeners = new Set<() => void>();
  private pricedCache: Priced | undefined;
  private screenerCache: { source: QuoteSource; rows: ScreenerInput[] } | undefined;
  private metricBases: ReadonlyMap<string, MetricBases> | undefined;
  /** The last bars the metric bases were computed from, kept for the bases of a later session's prices. */
  private baseBars: ReadonlyMap<string, readonly DailyBar[]> | undefined;
  /** The bases of prices of sessions after the stored bars, per session date and symbol. */
  private readonly sessionBases = new Map<string, Map<string, MetricBases>>();
  /** The New York dates of quotes' times. */
  private readonly quoteDays = new TradingDays();
  private patternIndex: PatternIndex | undefined;
  private calendarDays: readonly string[];
  /** Per symbol analysed, `<version>|<fingerprint>` of its analysis (what `analysisDigest` is made of). */
  private readonly analysisKeys = new Map<string, string>();
  /** The analyses of the days stored since the start, one after another. */
  private analysing: Promise<void> = Promise.resolve();
  private closed = false;

  private readonly rollListeners = new Set<(rolled: DayRolled) => void>();

  /** Use {@link openMarketData}. */
  constructor(
    /** The market store it reads. */
    readonly store: MarketStore,
    /** The companies, in universe order. */
    readonly companies: readonly UniverseEntry[],
    analyses: readonly StoredAnalysis[],
    digests: readonly BarDigest[],
    /** What opening did. */
    readonly report: OpenReport,
    patternRows?: readonly StoredPatternRow[],
  ) {
    this.bySymbol = new Map(companies.map((e) => [e.symbol, e]));
    // Symbols outside the universe whose bars were imported from a provider.
    this.listed = new Map(
      store
        .providerSymbols()
        .filter((p) => !this.bySymbol.has(p.symbol) && digests.some((d) => d.symbol === p.symbol))
        .map((p) => [p.symbol, p]),
    );
    const calendars: (readonly string[])[] = [];
    for (const stored of analyses) {
      this.snapshots.set(stored.symbol, JSON.parse(stored.snapshot) as SymbolSnapshot);
      const { dates, closes } = seriesOf(stored);
      this.series.set(stored.symbol, { dates: sharedDates(calendars, dates), closes });
      this.analysisKeys.set(stored.symbol, `${stored.version}|${stored.fingerprint}`);
    }
    this.calendarDays = calendarOf(calendars);
    this.analysisDigest = digestOf(this.analysisKeys);
    this.quoteSource = new LastCloseQuotes(this.snapshots);
    const meta = store.meta();
    const imported = Object.entries(meta.barSources)
      .filter(([, source]) => source === 'imported')
      .map(([symbol]) => symbol)
      .sort();
    this.marketStatus = {
      asOf: meta.asOf ?? UNIVERSE_DATE,
      seed: meta.seed,
      symbols: digests.length,
      bars: digests.reduce((sum, d) => sum + d.bars, 0),
      from: digests.reduce<string | null>((min, d) => (min === null || d.from < min ? d.from : min), null),
      to: digests.reduce<string | null>((max, d) => (max === null || d.to > max ? d.to : max), null),
      source: imported.length === 0 ? 'simulated' : imported.length >= digests.length ? 'imported' : 'mixed',
      importedSymbols: imported,
    };
    if (patternRows !== undefined) this.patternIndex = this.indexOf(patternRows);
  }

  /** The market's trading days (every symbol's days together), oldest first. */
  get calendar(): readonly string[] {
    return this.calendarDays;
  }

  /** The state of the market data. */
  status(): MarketDataStatus {
    return this.marketStatus;
  }

  /** Whether a symbol is a company of the universe, or one outside it whose bars were imported from a provider. */
  has(symbol: string): boolean {
    return this.bySymbol.has(symbol) || this.listed.has(symbol);
  }

  /** Every symbol with quotes: the universe's, then those imported from a provider outside it. */
  symbols(): string[] {
    return [...this.companies.map((c) => c.symbol), ...this.listed.keys()];
  }

  /** A symbol outside the universe imported from a provider: its name and sector as far as they are known. */
  listedSymbol(symbol: string): ProviderSymbol | undefined {
    return this.listed.get(symbol);
  }

  /** A company of the universe. */
  company(symbol: string): UniverseEntry | undefined {
    return this.bySymbol.get(symbol);
  }

  /**
   * Searches the universe (see `searchUniverse`) by the market caps of {@link pricedCompanies}; without text,
   * every company that passes the filters.
   */
  search(query: UniverseQuery): UniverseEntry[] {
    const text = (query.q ?? '').trim();
    return searchUniverse(this.pricedCompanies(), {
      ...query,
      limit: query.limit ?? (text === '' ? this.companies.length : undefined),
    });
  }

  /** The 11 GICS sectors with their symbols, in {@link byMarketCap} order. */
  sectors(): { sector: Sector; symbols: string[] }[] {
    return SECTORS.map((sector) => ({
      sector,
      symbols: this.byMarketCap(this.companies.filter((e) => e.sector === sector).map((e) => e.symbol)),
    }));
  }

  /**
   * Every company with its market cap and cap class at the price its quote shows ({@link marketCapOf}: shares
   * outstanding × the price, the last close until ticks flow; the universe file's close for a company without
   * a quote), in universe order. The screener's rows are priced by the same quotes, so both answer the same
   * market cap.
   */
  pricedCompanies(): readonly UniverseEntry[] {
    return this.priced().companies;
  }

  /** A company's market cap as {@link pricedCompanies} answers it, or undefined for a symbol outside the universe. */
  marketCap(symbol: string): number | undefined {
    return this.priced().caps.get(symbol);
  }

  /**
   * Symbols ordered by {@link marketCap}, largest first, ties by symbol; symbols without one (outside the
   * universe) last, by symbol. The GICS sectors and the users' own sectors list their symbols in this order.
   */
  byMarketCap(symbols: readonly string[]): string[] {
    const caps = this.priced().caps;
    return [...symbols].sort((a, b) => {
      const capA = caps.get(a);
      const capB = caps.get(b);
      if (capA === undefined || capB === undefined) {
        return capA !== undefined ? -1 : capB !== undefined ? 1 : bySymbol(a, b);
      }
      return capB - capA || bySymbol(a, b);
    });
  }

  /** The universe priced by the quote source as it is now, built once per source object. */
  private priced(): Priced {
    const source = this.quoteSource;
    if (this.pricedCache?.source === source) return this.pricedCache;
    const companies: UniverseEntry[] = [];
    const quotes = new Map<string, Quote>();
    const sessions = new Map<string, SessionOpen>();
    const caps = new Map<string, number>();
    for (const entry of this.companies) {
      const quote = source.quote(entry.symbol);
      if (quote !== undefined) quotes.set(entry.symbol, quote);
      const session = quote === undefined ? undefined : source.session?.(entry.symbol);
      if (session !== undefined) sessions.set(entry.symbol, session);
      const marketcap = marketCapOf(entry.shares, quote?.price ?? entry.close);
      caps.set(entry.symbol, marketcap);
      companies.push(
        marketcap === entry.marketcap ? entry : Object.freeze({ ...entry, marketcap, capclass: capClassOf(marketcap) }),
      );
    }
    this.pricedCache = { source, companies, quotes, sessions, caps };
    return this.pricedCache;
  }

  /** The latest bar of a symbol with its indicators and patterns, or undefined without bars. */
  snapshot(symbol: string): SymbolSnapshot | undefined {
    return this.snapshots.get(symbol);
  }

  /** Where quotes come from. */
  get quotes(): QuoteSource {
    return this.quoteSource;
  }

  /**
   * Replaces the quote source (the live engine's, once ticks flow); market caps and screener rows are priced
   * again from it when next asked.
   */
  useQuoteSource(source: QuoteSource): void {
    this.quoteSource = source;
    for (const listener of [...this.quoteSourceListeners]) listener();
  }

  /** Calls `listener` after each replacement of the quote source; answers the unsubscribe. */
  onQuoteSource(listener: () => void): () => void {
    this.quoteSourceListeners.add(listener);
    return () => this.quoteSourceListeners.delete(listener);
  }

  /**
   * Stores the bars of a closed trading day (`onDayClosed` of the tick bus), so the charts' bars and their
   * averages go on with the days the live quotes and the alert engine roll, and a restart starts from them. One
   * transaction; a day already stored is written again (the same close from another process, or a correction).
   * Left out: symbols the market does not have, those whose bars come from a provider (its refresh writes
   * them), and a day before a symbol's last stored one (a replay of older ticks). Then the symbols written are
   * analysed again, as a start would (their snapshots, close series and pattern days: the screener, the company
   * statistics and the analysis pages), a symbol per turn of the event loop; {@link analysed} tells when.
   */
  rollDay(day: ClosedDay): DayRolled {
    const providers = new Set(this.store.providerSymbols().map((p) => p.symbol));
    const written: SymbolBar[] = [];
    const earlier: string[] = [];
    let added = 0;
    this.store.transaction(() => {
      for (const bar of day.bars) {
        if (!this.has(bar.symbol) || providers.has(bar.symbol)) continue;
        const last = this.store.bars(bar.symbol, { limit: 1 })[0]?.date;
        if (last !== undefined && bar.date < last) {
          earlier.push(bar.symbol);
          continue;
        }
        const { date, open, high, low, close, volume } = bar;
        this.store.appendBar(bar.symbol, { date, open, high, low, close, volume });
        written.push(bar);
        if (last !== bar.date) added += 1;
      }
    });
    for (const bar of written) this.chartCache.delete(bar.symbol);
    if (written.length > 0) {
      const to = this.marketStatus.to;
      this.marketStatus = {
        ...this.marketStatus,
        bars: this.marketStatus.bars + added,
        to: to === null || day.date > to ? day.date : to,
      };
    }
    const rolled: DayRolled = { date: day.date, written: written.length, earlier };
    if (written.length > 0) {
      const symbols = written.map((bar) => bar.symbol);
      this.analysing = this.analysing.catch(() => undefined).then(() => this.analyseAgain(symbols));
    }
    for (const listener of [...this.rollListeners]) listener(rolled);
    return rolled;
  }

  /**
   * Resolves once the days stored so far are analysed (see {@link rollDay}); rejects when the last analysis
   * failed.
   */
  analysed(): Promise<void> {
    return this.analysing;
  }

  /**
   * Analyses `symbols` again from their stored bars, one per turn of the event loop (an analysis takes some
   * milliseconds, which ticks and requests are not kept waiting for), storing each as a start would; then the
   * market's calendar, the pattern statistics and the screener's bases are made again from them.
   */
  private async analyseAgain(symbols: readonly string[]): Promise<void> {
    const version = analysisVersion();
    const calendars: (readonly string[])[] = [];
    for (const symbol of symbols) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.closed) return;
      const digest = this.store.barDigest(symbol);
      if (digest === undefined) continue;
      const stored = toStored(symbol, analyseBars(symbol, this.store.bars(symbol)), version, digest.fingerprint);
      this.store.replaceAnalyses([stored]);
      this.snapshots.set(symbol, JSON.parse(stored.analysis.snapshot) as SymbolSnapshot);
      const { dates, closes } = seriesOf(stored.analysis);
      this.series.set(symbol, { dates: sharedDates(calendars, dates), closes });
      this.analysisKeys.set(symbol, `${version}|${digest.fingerprint}`);
    }
    const all: (readonly string[])[] = [];
    for (const { dates } of this.series.values()) if (!all.includes(dates)) all.push(dates);
    this.calendarDays = calendarOf(all);
    this.analysisDigest = digestOf(this.analysisKeys);
    this.patternIndex = undefined;
    this.metricBases = undefined;
    this.equalWeights.clear();
    this.baseBars = undefined;
    this.sessionBases.clear();
    this.screenerCache = undefined;
  }

  /** Calls `listener` after each {@link rollDay}; answers the unsubscribe. */
  onDayRolled(listener: (rolled: DayRolled) => void): () => void {
    this.rollListeners.add(listener);
    return () => this.rollListeners.delete(listener);
  }

  /**
   * A symbol's daily bars of the last `months` months (from the base day the change is measured from), with the
   * indicators of its whole history; the charts of the symbols asked last are kept, in columns.
   */
  chartBars(symbol: string, months: number): ChartBar[] {
    const { dates, columns } = this.chartOf(symbol);
    const value = (column: Float64Array, i: number): number => column[i] as number;
    const indicator = (column: Float64Array, i: number): number | null => {
      const v = column[i] as number;
      return Number.isNaN(v) ? null : v;
    };
    const out: ChartBar[] = [];
    for (let i = monthWindowStart(dates, months); i < dates.length; i += 1) {
      out.push({
        date: dates[i] as string,
        open: value(columns.open, i),
        high: value(columns.high, i),
        low: value(columns.low, i),
        close: value(columns.close, i),
        volume: value(columns.volume, i),
        SMA_20: indicator(columns.SMA_20, i),
        SMA_50: indicator(columns.SMA_50, i),
        SMA_100: indicator(columns.SMA_100, i),
        SMA_200: indicator(columns.SMA_200, i),
        rsi_14: indicator(columns.rsi_14, i),
      });
    }
    return out;
  }

  /**
   * What the indicators of the day after a symbol's last bar are made of: per moving average, the sum of the last
   * `period − 1` closes (null with fewer), and RSI 14's average gain and loss; null without bars.
   */
  nextAverages(symbol: string): NextAverages | null {
    const { dates, columns } = this.chartOf(symbol);
    const after = dates.at(-1);
    if (after === undefined) return null;
    const sum = (period: SmaPeriod): number | null => {
      if (dates.length < period - 1) return null;
      let total = 0;
      for (let i = dates.length - period + 1; i < dates.length; i += 1) total += columns.close[i] as number;
      return total;
    };
    const [gain, loss] = wilderAverages(columns.close, RSI_PERIOD, dates.length);
    const rsi = Number.isNaN(gain) ? null : { gain, loss };
    return { after, SMA_20: sum(20), SMA_50: sum(50), SMA_100: sum(100), SMA_200: sum(200), rsi_14: rsi };
  }

  /** A symbol's history with its indicators, in columns: the charts of the symbols asked last are kept. */
  private chartOf(symbol: string): ChartColumns {
    let chart = this.chartCache.get(symbol);
    if (chart === undefined) {
      chart = chartColumns(this.store.bars(symbol));
      if (this.chartCache.size >= CHART_CACHE_SIZE) {
        const oldest = this.chartCache.keys().next().value;
        if (oldest !== undefined) this.chartCache.delete(oldest);
      }
    } else this.chartCache.delete(symbol);
    this.chartCache.set(symbol, chart);
    return chart;
  }

  /** A symbol's bars from a date (included) to its last bar. */
  barsFrom(symbol: string, from: string): DailyBar[] {
    return this.store.bars(symbol, { from });
  }

  /**
   * A symbol's close on each of `dates` (ascending), null on a date it has no bar of: what `barsFrom` would give,
   * read from the closes held in memory (the series the calendar is made of) instead of the store.
   */
  closesOn(symbol: string, dates: readonly string[]): (number | null)[] {
    const out = new Array<number | null>(dates.length).fill(null);
    const s = this.series.get(symbol);
    if (s === undefined || dates.length === 0) return out;
    let j = Math.max(0, lastIndexAtOrBefore(s.dates, dates[0]!));
    for (let i = 0; i < dates.length && j < s.dates.length; i += 1) {
      const day = dates[i]!;
      while (j < s.dates.length && s.dates[j]! < day) j += 1;
      if (s.dates[j] === day) out[i] = s.closes[j]!;
    }
    return out;
  }

  /** The cumulative % change of each symbol over the market's last `months` months, starting at 0. */
  performance(symbols: readonly string[], months: number): PercentSeries<'symbol'> {
    const dates = this.calendar.slice(monthWindowStart(this.calendar, months));
    return {
      dates,
      series: symbols.map((symbol) => ({
        symbol,
        values: this.changesOf(symbol, dates).map((v) => (v === null ? null : round(v, 2))),
      })),
    };
  }

  /**
   * The level of an equal-weight index of every symbol over the market's last `months` months, by trading day
   * ({@link equalWeightLevels} of their % changes; the portfolio's default benchmark). Kept per window until the
   * closes change (a re-analysis, as after a closed day), since every symbol's history goes into it.
   */
  equalWeightIndex(months: number): ReadonlyMap<string, number> {
    let kept = this.equalWeights.get(months);
    if (kept === undefined) {
      const all = this.performance(this.symbols(), months);
      const levels = equalWeightLevels(
        all.series.map((s) => s.values),
        all.dates.length,
      );
      kept = new Map(all.dates.map((date, i) => [date, levels[i]!]));
      this.equalWeights.set(months, kept);
    }
    return kept;
  }

  /** Per GICS sector, the average cumulative % change of its symbols over the last `months` months. */
  sectorPerformance(months: number): PercentSeries<'sector'> {
    const dates = this.calendar.slice(monthWindowStart(this.calendar, months));
    return {
      dates,
      series: this.sectors().map(({ sector, symbols }) => {
        const sums = new Float64Array(dates.length);
        const counts = new Uint32Array(dates.length);
        for (const symbol of symbols) {
          this.changesOf(symbol, dates).forEach((v, i) => {
            if (v === null) return;
            sums[i] = (sums[i] as number) + v;
            counts[i] = (counts[i] as number) + 1;
          });
        }
        const values = Array.from(sums, (sum, i) =>
          (counts[i] as number) > 0 ? round(sum / (counts[i] as number), 2) : null,
        );
        return { sector, values };
      }),
    };
  }

  private changesOf(symbol: string, dates: readonly string[]): (number | null)[] {
    const s = this.series.get(symbol);
    return s === undefined ? dates.map(() => null) : percentChanges(dates, s.dates, s.closes);
  }

  /** A symbol's figures of one type and period, newest first; `limit` 0 for all. */
  fundamentals(type: FundamentalType, symbol: string, limit: number, period: FundamentalPeriod): FundamentalAnswer[] {
    return this.store
      .fundamentals(type, symbol, limit, period)
      .map(({ end, val, fy, fp, label }) => ({ end, val, fy, fp, label }));
  }

  /**
   * What the screener reads of every company with bars: quote, indicators, latest-bar patterns, the market cap
   * of {@link pricedCompanies} and the metric columns at the quote's price (their bases computed once, on first
   * use; during a live session after the stored bars, the gap is the forming bar's: its first tick against the
   * previous close).
   */
  screenerInputs(): readonly ScreenerInput[] {
    const priced = this.priced();
    const { source } = priced;
    if (this.screenerCache?.source === source) return this.screenerCache.rows;
    const bases = this.screenerBases();
    const rows: ScreenerInput[] = [];
    for (const entry of priced.companies) {
      const snapshot = this.snapshots.get(entry.symbol);
      const closed = bases.get(entry.symbol);
      const quote = priced.quotes.get(entry.symbol);
      if (snapshot === undefined || closed === undefined || quote === undefined) continue;
      const day = this.laterSession(snapshot.date, quote);
      const base = day === undefined ? closed : this.laterBasesOf(entry.symbol, closed, day);
      const session = day === undefined ? undefined : priced.sessions.get(entry.symbol);
      const gap = session === undefined ? base.gap : gapOf(session.open, session.prevClose);
      const { SMA_20, SMA_50, SMA_100, SMA_200, rsi_14 } = snapshot.indicators;
      rows.push({
        symbol: entry.symbol,
        name: entry.name,
        sector: entry.sector,
        industry: entry.industry.trim() === '' ? null : entry.industry,
        close: quote.price,
        changepct: quote.changepct,
        marketcap: entry.marketcap,
        capclass: entry.capclass,
        indicators: { SMA_20, SMA_50, SMA_100, SMA_200, rsi_14 },
        patterns: snapshot.patterns,
        bullishPatterns: snapshot.patterns.some((name) => BULLISH.has(name)),
        metrics: metricsAt(base, quote.price, quote.volume, gap),
      });
    }
    this.screenerCache = { source, rows };
    return rows;
  }

  /**
   * The date of a quote's session when it is after the last stored bar (the engine's quotes keep moving after the
   * store's last day, and a session that closed stays the quote's, as a close, until the next tick), else
   * undefined: the last stored bar's bases hold for its price.
   */
  private laterSession(lastDate: string, quote: Quote): string | undefined {
    const ms = Date.parse(quote.ts);
    if (Number.isNaN(ms)) return undefined;
    const day = this.quoteDays.of(ms);
    return day > lastDate ? day : undefined;
  }

  /** The bases of a price of a session after the stored bars, computed once per date. */
  private laterBasesOf(symbol: string, closed: MetricBases, day: string): MetricBases {
    let ofDay = this.sessionBases.get(day);
    if (ofDay === undefined) {
      // One session at a time: the dates before it are not asked again.
      this.sessionBases.clear();
      this.sessionBases.set(day, (ofDay = new Map<string, MetricBases>()));
    }
    let bases = ofDay.get(symbol);
    const series = this.series.get(symbol);
    if (bases === undefined && series !== undefined) {
      bases = laterBases(closed, this.baseBars?.get(symbol) ?? [], series, day);
      ofDay.set(symbol, bases);
    }
    return bases ?? closed;
  }

  /** The metric bases of every company with bars: its last bars, close series, fundamentals and the market's beta. */
  private screenerBases(): ReadonlyMap<string, MetricBases> {
    if (this.metricBases !== undefined) return this.metricBases;
    const symbols = this.companies.map((e) => e.symbol).filter((symbol) => this.snapshots.has(symbol));
    const lastBars = this.store.lastBars(symbols, BASE_BARS);
    this.baseBars = lastBars;
    const market = marketReturns(symbols.flatMap((symbol) => this.series.get(symbol) ?? []));
    const bases = new Map<string, MetricBases>();
    for (const entry of this.companies) {
      const snapshot = this.snapshots.get(entry.symbol);
      const series = this.series.get(entry.symbol);
      if (snapshot === undefined || series === undefined) continue;
      const [eps, previousEps] = this.store.fundamentals('earningspershare', entry.symbol, 2, 'A').map((f) => f.val);
      const { SMA_20, SMA_50, SMA_200 } = snapshot.indicators;
      bases.set(entry.symbol, {
        ...barBases(lastBars.get(entry.symbol) ?? []),
        perfBase: perfBases(series.dates, series.closes),
        sma: { 20: SMA_20, 50: SMA_50, 200: SMA_200 },
        beta: betaOf(series, market),
        smaCross: smaCrossOf(series.closes),
        eps: eps ?? null,
        previousEps: previousEps ?? null,
        dividend: modelledDividend(entry.sector, eps ?? null),
      });
    }
    this.metricBases = bases;
    return bases;
  }

  /** The pattern days of the whole market, indexed (read from the store on first use). */
  get patterns(): PatternIndex {
    this.patternIndex ??= this.indexOf(this.store.patternRows());
    return this.patternIndex;
  }

  /**
   * How every pattern did over the whole market (count, hit rate and median return 1, 5 and 20 days later): the
   * stored statistics when they match the analyses, without reading the pattern days.
   */
  patternPerformance(): PatternPerformance[] {
    if (this.patternIndex === undefined) {
      const stored = this.storedStats();
      if (stored !== undefined) return stored;
    }
    return this.patterns.performance();
  }

  /** Indexes pattern rows, with the stored statistics when they match the analyses, else new ones, then stored. */
  private indexOf(rows: readonly StoredPatternRow[]): PatternIndex {
    const stored = this.storedStats();
    const index = new PatternIndex(rows, this.calendar, stored);
    if (stored === undefined) {
      this.store.setMetaValue(STATS_KEY, JSON.stringify({ digest: this.analysisDigest, stats: index.performance() }));
    }
    return index;
  }

  /** The pattern statistics stored for the current analyses, if any. */
  private storedStats(): PatternPerformance[] | undefined {
    const raw = this.store.metaValue(STATS_KEY);
    if (raw === undefined) return undefined;
    const parsed = JSON.parse(raw) as { digest?: string; stats?: PatternPerformance[] };
    return parsed.digest === this.analysisDigest ? parsed.stats : undefined;
  }

  /**
   * The return correlations of symbols over their last `dur` shared trading days: the matrix, and the groups of
   * mutually correlated stocks.
   */
  correlation(symbols: readonly string[], dur: number): { matrix: CorrelationMatrix; groups: () => GroupMember[][] } {
    const list = symbols.map((symbol) => ({ symbol, series: this.series.get(symbol) }));
    const missing = list.findIndex((s) => s.series === undefined);
    if (missing >= 0) {
      throw new DomainError('not_found', `stks[${missing}]: no bars of ${symbols[missing] ?? ''}`, `stks[${missing}]`);
    }
    const first = list[0]?.series?.dates;
    // Symbols of one calendar share every day, so their last dur + 1 days are all the alignment needs.
    const oneCalendar = list.every((s) => s.series?.dates === first);
    const histories: SymbolHistory[] = list.map(({ symbol, series }) => {
      const { dates, closes } = series as Series;
      const from = oneCalendar ? Math.max(0, dates.length - dur - 1) : 0;
      const bars = [];
      for (let i = from; i < dates.length; i += 1) bars.push({ date: dates[i] as string, close: closes[i] as number });
      return { symbol, bars };
    });
    const matrix = correlationMatrix(alignReturns(histories, dur));
    return { matrix, groups: () => correlationGroups(matrix) };
  }

  /** Closes the store. */
  close(): void {
    this.closed = true;
    this.store.close();
  }
}

const BULLISH: ReadonlySet<string> = new Set<string>(BULLISH_PATTERN_NAMES);

/**
 * A digest of which analyses the service holds (per symbol, in symbol order, `<version>|<fingerprint>`), so
 * stored statistics are known to match them.
 */
function digestOf(keys: ReadonlyMap<string, string>): string {
  const hash = createHash('sha256');
  for (const symbol of [...keys.keys()].sort(bySymbol)) hash.update(`${symbol}|${keys.get(symbol)}\n`);
  return hash.digest('hex').slice(0, 32);
}

/** `dates`, or an equal array of `calendars` (symbols of the same calendar share one array of dates). */
function sharedDates(calendars: (readonly string[])[], dates: readonly string[]): readonly string[] {
  const shared = calendars.find((c) => c.length === dates.length && c.every((d, i) => d === dates[i]));
  if (shared !== undefined) return shared;
  calendars.push(dates);
  return dates;
}

/** The trading days of every calendar together, oldest first. */
function calendarOf(calendars: readonly (readonly string[])[]): readonly string[] {
  if (calendars.length === 1) return calendars[0]!;
  return [...new Set(calendars.flat())].sort();
}

/**
 * Opens the market data of `dataDir`: builds the market store when it lacks the universe's bars (seeded), then
 * (re)analyses every symbol whose bars or analysis definitions changed since its stored analysis, storing the
 * results; symbols already analysed are only read back.
 */
export function openMarketData(options: MarketDataOptions): MarketData {
  const store = openMarketStore({ file: path.join(options.dataDir, MARKET_DB_FILE) });
  try {
    const universe = options.universe ?? loadUniverse();
    const t0 = performance.now();
    const { built, extended } = buildMarket(store, {
      seed: options.seed,
      universe,
      endDate: options.endDate ?? lastClosedSession(Date.now()),
      onProgress: (done, total) => options.onProgress?.('build', done, total),
    });
    const t1 = performance.now();

    const version = analysisVersion();
    const digests = store.barDigests();
    const stored = new Map(store.analyses().map((a) => [a.symbol, a]));
    for (const symbol of stored.keys()) {
      if (!digests.some((d) => d.symbol === symbol)) store.deleteAnalysis(symbol);
    }
    const stale = digests.filter((d) => {
      const a = stored.get(d.symbol);
      return a === undefined || a.version !== version || a.fingerprint !== d.fingerprint;
    });
    const batchSize = Math.max(1, options.batchSize ?? 25);
    let fresh: StoredPatternRow[] | undefined = stale.length === digests.length ? [] : undefined;
    if (stale.length > 0) options.onProgress?.('analyse', 0, stale.length);
    for (let at = 0; at < stale.length; at += batchSize) {
      const items = stale.slice(at, at + batchSize).map((d) => {
        const stored = toStored(d.symbol, analyseBars(d.symbol, store.bars(d.symbol)), version, d.fingerprint);
        fresh?.push(...stored.patternRows);
        return stored;
      });
      store.replaceAnalyses(items);
      options.onProgress?.('analyse', Math.min(at + batchSize, stale.length), stale.length);
    }
    const t2 = performance.now();

    const analyses = store.analyses();
    // After a partial re-analysis the statistics need every pattern day again: read them back now.
    if (stale.length > 0 && fresh === undefined) fresh = store.patternRows();
    const report: OpenReport = {
      built,
      extended,
      analysed: stale.length,
      ms: { build: Math.round(t1 - t0), analyse: Math.round(t2 - t1), load: 0 },
    };
    const market = new MarketData(store, universe, analyses, digests, report, fresh);
    const t3 = performance.now();
    report.ms.load = Math.round(t3 - t2);
    options.logger?.info(
      { built, extended, analysed: stale.length, symbols: digests.length, asOf: store.meta().asOf, ms: report.ms },
      `market data ready: ${digests.length} symbols, ${built} built, ${extended} extended, ${stale.length} analysed, in ${((t3 - t0) / 1000).toFixed(2)} s`,
    );
    return market;
  } catch (error) {
    store.close();
    throw error;
  }
}
