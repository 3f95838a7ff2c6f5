/**
 * The market data store: the universe, daily bars and fundamentals in a SQLite file (WAL), built on first
 * start from the shipped universe and the seeded generator, and updated by imports and the daily roll.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { CapClass, DailyBar, Sector, UniverseEntry } from '../../domain/market/types.ts';
import { isValidDate } from './calendar.ts';
import {
  FUNDAMENTAL_TYPES,
  generateFundamentals,
  type FundamentalFact,
  type FundamentalPeriod,
  type FundamentalRow,
  type FundamentalSource,
  type FundamentalType,
} from './fundamentals.ts';
import { generateHistory, roundCents } from './generator.ts';
import { UNIVERSE_DATE } from './universe.ts';

/** File name of the market database inside the data directory. */
export const MARKET_DB_FILE = 'market.db';

/** Where a symbol's bars come from. */
export type BarSource = 'generated' | 'imported';

/** A date range and count limit for {@link MarketStore.bars}. */
export interface BarQuery {
  /** First date included, `YYYY-MM-DD`. */
  readonly from?: string;
  /** Last date included, `YYYY-MM-DD`. */
  readonly to?: string;
  /** At most this many bars, the most recent of the range. */
  readonly limit?: number;
}

/** How the store was built. */
export interface MarketMeta {
  /** Seed of the generated data, or null before the first build. */
  readonly seed: number | null;
  /** ISO time of the last build, or null before the first build. */
  readonly builtAt: string | null;
  /** The date the generated history ends on (the universe date), or null before the first build. */
  readonly asOf: string | null;
  /** Where each symbol's bars come from, by symbol. */
  readonly barSources: Readonly<Record<string, BarSource>>;
}

/** Counts and ranges of the stored data. */
export interface MarketStatus {
  /** Symbols with bars. */
  readonly symbols: number;
  /** Bars over all symbols. */
  readonly bars: number;
  /** Earliest bar date, or null when there are no bars. */
  readonly from: string | null;
  /** Latest bar date, or null when there are no bars. */
  readonly to: string | null;
  /** Symbols whose bars were imported. */
  readonly importedBars: number;
  /** Symbols with fundamentals imported from SEC company facts. */
  readonly importedFundamentals: number;
  /** Seed of the generated data, or null before the first build. */
  readonly seed: number | null;
  /** The date the generated history ends on, or null before the first build. */
  readonly asOf: string | null;
}

/** A symbol whose bars come from a market data provider, with its company as far as it is known. */
export interface ProviderSymbol {
  /** Ticker. */
  readonly symbol: string;
  /** The provider its bars come from, e.g. `alpaca`. */
  readonly provider: string;
  /** Company name (the symbol itself when unknown). */
  readonly name: string;
  /** GICS sector, or null when unknown. */
  readonly sector: Sector | null;
}

/** Options of {@link openMarketStore}. */
export interface MarketStoreOptions {
  /** Path of the database file (created with its folder when missing); `:memory:` for a private one. */
  readonly file: string;
}

/** What a symbol's bars are, in brief: a fingerprint that changes whenever any of its bars does. */
export interface BarDigest {
  /** Ticker. */
  readonly symbol: string;
  /** Number of bars. */
  readonly bars: number;
  /** First bar date. */
  readonly from: string;
  /** Last bar date. */
  readonly to: string;
  /** Count, dates and sums of prices and volumes, joined: equal digests mean the analysis is still valid. */
  readonly fingerprint: string;
}

/** A symbol's stored analysis (indicators, latest-bar snapshot and close series), and what it was computed from. */
export interface StoredAnalysis {
  /** Ticker. */
  readonly symbol: string;
  /** Version of the analysis definitions it was computed with. */
  readonly version: string;
  /** The {@link BarDigest.fingerprint} of the bars it was computed from. */
  readonly fingerprint: string;
  /** The analysis results, as JSON of the analysing module's choosing. */
  readonly snapshot: string;
  /** Trading days of the bars as day numbers (Int32, little-endian). */
  readonly days: Buffer;
  /** Closes of the bars (Float64, little-endian). */
  readonly closes: Buffer;
}

/** One stored row of candlestick patterns: a symbol's detections on one day, with the forward returns after it. */
export interface StoredPatternRow {
  /** Ticker. */
  readonly symbol: string;
  /** Trading day of the bar the patterns complete on. */
  readonly date: string;
  /** Pattern names, comma-separated, in the order of the domain's pattern list. */
  readonly patterns: string;
  /** Return from this close to the close 1 trading day later, or null past the end of the history. */
  readonly r1: number | null;
  /** Return to the close 5 trading days later, or null. */
  readonly r5: number | null;
  /** Return to the close 20 trading days later, or null. */
  readonly r20: number | null;
}

interface UniverseRow {
  symbol: string;
  name: string;
  sector: string;
  industry: string;
  shares: number;
  close: number;
  marketcap: number;
  capclass: string;
}

/** Throws a RangeError naming the first bar that is not a valid, consistent bar later than the one before. */
export function checkBars(symbol: string, bars: readonly DailyBar[], after?: string): void {
  let previous = after;
  for (const [i, b] of bars.entries()) {
    const where = `${symbol} bar ${i + 1} (${b.date})`;
    if (!isValidDate(b.date)) throw new RangeError(`${where}: date is not YYYY-MM-DD`);
    if (previous !== undefined && b.date <= previous) throw new RangeError(`${where}: date is not after ${previous}`);
    for (const key of ['open', 'high', 'low', 'close'] as const) {
      if (!Number.isFinite(b[key]) || b[key] <= 0) throw new RangeError(`${where}: ${key} must be a positive number`);
    }
    if (!Number.isFinite(b.volume) || b.volume < 0) throw new RangeError(`${where}: volume must not be negative`);
    if (b.high < Math.max(b.open, b.close)) throw new RangeError(`${where}: high is below open or close`);
    if (b.low > Math.min(b.open, b.close)) throw new RangeError(`${where}: low is above open or close`);
    previous = b.date;
  }
}

/** A symbol's bars summed up by SQL: what a {@link BarDigest} is made of. */
interface DigestRow {
  readonly symbol: string;
  readonly bars: number;
  readonly from: string;
  readonly to: string;
  readonly prices: number;
  readonly volumes: number;
}

/** The digest of a symbol's summed-up bars. */
function digestOfRow(r: DigestRow): BarDigest {
  return {
    symbol: r.symbol,
    bars: r.bars,
    from: r.from,
    to: r.to,
    fingerprint: `${r.bars}|${r.from}|${r.to}|${r.prices}|${r.volumes}`,
  };
}

/** The store's prepared statements. */
function prepareStatements(db: Database.Database) {
  return {
    universe: db.prepare<[], UniverseRow>('SELECT * FROM universe ORDER BY symbol'),
    clearUniverse: db.prepare('DELETE FROM universe'),
    putUniverse: db.prepare(
      `INSERT INTO universe (symbol, name, sector, industry, shares, close, marketcap, capclass)
       VALUES (@symbol, @name, @sector, @industry, @shares, @close, @marketcap, @capclass)`,
    ),
    bars: db.prepare<[string, string, string, number], DailyBar>(
      `SELECT date, open, high, low, close, volume FROM bars
       WHERE symbol = ? AND date >= ? AND date <= ? ORDER BY date DESC LIMIT ?`,
    ),
    lastDate: db.prepare<[string], { date: string }>(
      'SELECT date FROM bars WHERE symbol = ? ORDER BY date DESC LIMIT 1',
    ),
    deleteBars: db.prepare<[string]>('DELETE FROM bars WHERE symbol = ?'),
    putBar: db.prepare<[string, string, number, number, number, number, number]>(
      'INSERT OR REPLACE INTO bars (symbol, date, open, high, low, close, volume) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    setBarSource: db.prepare<[string, string]>(
      `INSERT INTO symbol_meta (symbol, bar_source) VALUES (?, ?)
       ON CONFLICT (symbol) DO UPDATE SET bar_source = excluded.bar_source`,
    ),
    barSources: db.prepare<[], { symbol: string; bar_source: BarSource }>(
      'SELECT symbol, bar_source FROM symbol_meta WHERE bar_source IS NOT NULL ORDER BY symbol',
    ),
    setCik: db.prepare<[string, number]>(
      `INSERT INTO symbol_meta (symbol, cik) VALUES (?, ?) ON CONFLICT (symbol) DO UPDATE SET cik = excluded.cik`,
    ),
    symbolOfCik: db.prepare<[number], { symbol: string }>('SELECT symbol FROM symbol_meta WHERE cik = ?'),
    fundamentals: db.prepare<[string, string, string, number], FundamentalRow>(
      `SELECT period_end AS "end", val, fy, fp, form, source AS label FROM fundamentals
       WHERE symbol = ? AND type = ? AND period = ? ORDER BY period_end DESC LIMIT ?`,
    ),
    deleteFundamentals: db.prepare<[string, string]>('DELETE FROM fundamentals WHERE symbol = ? AND type = ?'),
    putFundamental: db.prepare(
      `INSERT OR REPLACE INTO fundamentals (symbol, type, period, period_end, val, fy, fp, form, source)
       VALUES (@symbol, @type, @period, @end, @val, @fy, @fp, @form, @label)`,
    ),
    typesFrom: db.prepare<[string, string], { type: string }>(
      'SELECT DISTINCT type FROM fundamentals WHERE symbol = ? AND source = ?',
    ),
    meta: db.prepare<[], { key: string; value: string }>('SELECT key, value FROM meta'),
    setMeta: db.prepare<[string, string]>('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)'),
    barCounts: db.prepare<[], { bars: number; from: string | null; to: string | null }>(
      'SELECT COUNT(*) AS bars, MIN(date) AS "from", MAX(date) AS "to" FROM bars',
    ),
    importedFundamentals: db.prepare<[], { n: number }>(
      "SELECT COUNT(DISTINCT symbol) AS n FROM fundamentals WHERE source = 'SEC'",
    ),
    barDigests: db.prepare<[], DigestRow>(
      `SELECT symbol, COUNT(*) AS bars, MIN(date) AS "from", MAX(date) AS "to",
              TOTAL(open + high + low + close) AS prices, TOTAL(volume) AS volumes
       FROM bars GROUP BY symbol ORDER BY symbol`,
    ),
    barDigest: db.prepare<[string], DigestRow>(
      `SELECT symbol, COUNT(*) AS bars, MIN(date) AS "from", MAX(date) AS "to",
              TOTAL(open + high + low + close) AS prices, TOTAL(volume) AS volumes
       FROM bars WHERE symbol = ?`,
    ),
    analyses: db.prepare<[], StoredAnalysis>(
      'SELECT symbol, version, fingerprint, snapshot, days, closes FROM analysis ORDER BY symbol',
    ),
    putAnalysis: db.prepare(
      `INSERT OR REPLACE INTO analysis (symbol, version, fingerprint, snapshot, days, closes)
       VALUES (@symbol, @version, @fingerprint, @snapshot, @days, @closes)`,
    ),
    deleteAnalysis: db.prepare<[string]>('DELETE FROM analysis WHERE symbol = ?'),
    deletePatternRows: db.prepare<[string]>('DELETE FROM pattern_rows WHERE symbol = ?'),
    putPatternRow: db.prepare(
      `INSERT OR REPLACE INTO pattern_rows (symbol, date, patterns, r1, r5, r20)
       VALUES (@symbol, @date, @patterns, @r1, @r5, @r20)`,
    ),
    patternRows: db.prepare<[], StoredPatternRow>(
      'SELECT symbol, date, patterns, r1, r5, r20 FROM pattern_rows ORDER BY symbol, date',
    ),
    metaValue: db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?'),
    providerSymbols: db.prepare<[], ProviderSymbol>(
      'SELECT symbol, provider, name, sector FROM provider_symbols ORDER BY symbol',
    ),
    putProviderSymbol: db.prepare(
      `INSERT OR REPLACE INTO provider_symbols (symbol, provider, name, sector) VALUES (@symbol, @provider, @name, @sector)`,
    ),
  };
}

/** Market data on SQLite: universe, bars by (symbol, date), fundamentals, and how each was made. */
export class MarketStore {
  private readonly db: Database.Database;
  private readonly stmt: ReturnType<typeof prepareStatements>;

  /** Opens (and creates when missing) the database file. */
  constructor(options: MarketStoreOptions) {
    if (options.file !== ':memory:') mkdirSync(path.dirname(options.file), { recursive: true });
    this.db = new Database(options.file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 10000');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS universe (
        symbol TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        sector TEXT NOT NULL,
        industry TEXT NOT NULL,
        shares REAL NOT NULL,
        close REAL NOT NULL,
        marketcap REAL NOT NULL,
        capclass TEXT NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS bars (
        symbol TEXT NOT NULL,
        date TEXT NOT NULL,
        open REAL NOT NULL,
        high REAL NOT NULL,
        low REAL NOT NULL,
        close REAL NOT NULL,
        volume INTEGER NOT NULL,
        PRIMARY KEY (symbol, date)
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS fundamentals (
        symbol TEXT NOT NULL,
        type TEXT NOT NULL,
        period TEXT NOT NULL CHECK (period IN ('A', 'Q')),
        period_end TEXT NOT NULL,
        val REAL NOT NULL,
        fy INTEGER NOT NULL,
        fp TEXT NOT NULL,
        form TEXT NOT NULL,
        source TEXT NOT NULL CHECK (source IN ('derived', 'SEC')),
        PRIMARY KEY (symbol, type, period, period_end)
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS symbol_meta (
        symbol TEXT PRIMARY KEY,
        bar_source TEXT CHECK (bar_source IN ('generated', 'imported')),
        cik INTEGER
      ) WITHOUT ROWID;
    `);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS provider_symbols (
        symbol TEXT PRIMARY KEY,
        provider TEXT NOT NULL,
        name TEXT NOT NULL,
        sector TEXT
      ) WITHOUT ROWID;
    `);
    // Derived from the bars, kept so that a restart reuses them: see engine/market.
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS analysis (
        symbol TEXT PRIMARY KEY,
        version TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        snapshot TEXT NOT NULL,
        days BLOB NOT NULL,
        closes BLOB NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS pattern_rows (
        symbol TEXT NOT NULL,
        date TEXT NOT NULL,
        patterns TEXT NOT NULL,
        r1 REAL,
        r5 REAL,
        r20 REAL,
        PRIMARY KEY (symbol, date)
      ) WITHOUT ROWID;
    `);
    this.stmt = prepareStatements(this.db);
  }

  /** Runs `work` in one transaction: everything it writes is kept, or nothing when it throws. */
  transaction<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  /** The stored universe, by symbol. */
  universe(): UniverseEntry[] {
    return this.stmt.universe.all().map((r) => ({
      symbol: r.symbol,
      name: r.name,
      sector: r.sector as Sector,
      industry: r.industry,
      shares: r.shares,
      close: r.close,
      marketcap: r.marketcap,
      capclass: r.capclass as CapClass,
    }));
  }

  /** Replaces the stored universe. */
  replaceUniverse(entries: readonly UniverseEntry[]): void {
    this.transaction(() => {
      this.stmt.clearUniverse.run();
      for (const e of entries) this.stmt.putUniverse.run({ ...e });
    });
  }

  /** A symbol's bars in date order, within `from`..`to` and the most recent `limit` of them. */
  bars(symbol: string, query: BarQuery = {}): DailyBar[] {
    const limit = query.limit ?? -1;
    return this.stmt.bars.all(symbol, query.from ?? '', query.to ?? '9999-12-31', limit).reverse();
  }

  /** The last `n` bars of each symbol, in date order (symbols without bars map to an empty list). */
  lastBars(symbols: readonly string[], n: number): Map<string, DailyBar[]> {
    return new Map(symbols.map((s) => [s, this.bars(s, { limit: n })]));
  }

  /** Every symbol with bars, sorted. */
  allSymbols(): string[] {
    return this.stmt.barSources.all().map((r) => r.symbol);
  }

  /** The figures of one type, symbol and period, newest first; `limit` 0 returns them all. */
  fundamentals(type: FundamentalType, symbol: string, limit: number, period: FundamentalPeriod): FundamentalRow[] {
    return this.stmt.fundamentals.all(symbol, type, period, limit > 0 ? limit : -1);
  }

  /** Replaces every bar of a symbol (one transaction) and records where they come from. */
  replaceBars(symbol: string, bars: readonly DailyBar[], source: BarSource): void {
    checkBars(symbol, bars);
    this.transaction(() => {
      this.stmt.deleteBars.run(symbol);
      for (const b of bars) this.stmt.putBar.run(symbol, b.date, b.open, b.high, b.low, b.close, b.volume);
      this.stmt.setBarSource.run(symbol, source);
    });
  }

  /** Adds bars of days after a symbol's last bar, in one transaction; a bar not after the one before is refused. */
  appendBars(symbol: string, bars: readonly DailyBar[]): void {
    const last = this.stmt.lastDate.get(symbol)?.date;
    checkBars(symbol, bars, last);
    this.transaction(() => {
      for (const b of bars) this.stmt.putBar.run(symbol, b.date, b.open, b.high, b.low, b.close, b.volume);
      if (last === undefined) this.stmt.setBarSource.run(symbol, 'generated');
    });
  }

  /**
   * Adds the bar of a new trading day after a symbol's last bar (the daily roll); a bar of the last day
   * replaces it, so a repeated roll changes nothing; an earlier day is refused.
   */
  appendBar(symbol: string, bar: DailyBar): void {
    const last = this.stmt.lastDate.get(symbol)?.date;
    const before = last !== undefined && bar.date === last ? undefined : last;
    checkBars(symbol, [bar], before);
    this.transaction(() => {
      this.stmt.putBar.run(symbol, bar.date, bar.open, bar.high, bar.low, bar.close, bar.volume);
      if (last === undefined) this.stmt.setBarSource.run(symbol, 'generated');
    });
  }

  /**
   * Replaces a symbol's figures of the given types (by default the types present in `facts`) with `facts`,
   * in one transaction.
   */
  replaceFundamentals(symbol: string, facts: readonly FundamentalFact[], types?: readonly FundamentalType[]): void {
    const replaced = types ?? [...new Set(facts.map((f) => f.type))];
    for (const f of facts) {
      if (!replaced.includes(f.type)) throw new RangeError(`${symbol}: ${f.type} is not among the replaced types`);
    }
    this.transaction(() => {
      for (const type of replaced) this.stmt.deleteFundamentals.run(symbol, type);
      for (const f of facts) this.stmt.putFundamental.run({ symbol, ...f });
    });
  }

  /** The fundamental types of a symbol that come from a source. */
  fundamentalTypesFrom(symbol: string, source: FundamentalSource): FundamentalType[] {
    return this.stmt.typesFrom.all(symbol, source).map((r) => r.type as FundamentalType);
  }

  /** Remembers the SEC central index key of a symbol, for later company-facts imports. */
  setCik(symbol: string, cik: number): void {
    this.stmt.setCik.run(symbol, cik);
  }

  /** The symbol recorded for an SEC central index key, if any. */
  symbolOfCik(cik: number): string | undefined {
    return this.stmt.symbolOfCik.get(cik)?.symbol;
  }

  /** Records how the generated data was built. */
  setBuildMeta(meta: { seed: number; builtAt: string; asOf: string }): void {
    this.transaction(() => {
      this.stmt.setMeta.run('seed', String(meta.seed));
      this.stmt.setMeta.run('built_at', meta.builtAt);
      this.stmt.setMeta.run('as_of', meta.asOf);
    });
  }

  /** How the store was built, and where each symbol's bars come from. */
  meta(): MarketMeta {
    const values = new Map(this.stmt.meta.all().map((r) => [r.key, r.value]));
    const seed = values.get('seed');
    return {
      seed: seed === undefined ? null : Number(seed),
      builtAt: values.get('built_at') ?? null,
      asOf: values.get('as_of') ?? null,
      barSources: Object.fromEntries(this.stmt.barSources.all().map((r) => [r.symbol, r.bar_source])),
    };
  }

  /** Counts and ranges of the stored data. */
  status(): MarketStatus {
    const sources = this.stmt.barSources.all();
    const counts = this.stmt.barCounts.get() ?? { bars: 0, from: null, to: null };
    const meta = this.meta();
    return {
      symbols: sources.length,
      bars: counts.bars,
      from: counts.from,
      to: counts.to,
      importedBars: sources.filter((s) => s.bar_source === 'imported').length,
      importedFundamentals: this.stmt.importedFundamentals.get()?.n ?? 0,
      seed: meta.seed,
      asOf: meta.asOf,
    };
  }

  /** Per symbol with bars, a digest of its bars (one pass over the bars table), by symbol. */
  barDigests(): BarDigest[] {
    return this.stmt.barDigests.all().map(digestOfRow);
  }

  /** The digest of one symbol's bars (as {@link barDigests} gives it), or undefined without bars. */
  barDigest(symbol: string): BarDigest | undefined {
    const r = this.stmt.barDigest.get(symbol);
    return r === undefined || r.bars === 0 ? undefined : digestOfRow(r);
  }

  /** Every stored analysis, by symbol. */
  analyses(): StoredAnalysis[] {
    return this.stmt.analyses.all();
  }

  /** Replaces the analyses and pattern rows of the given symbols, in one transaction. */
  replaceAnalyses(items: readonly { analysis: StoredAnalysis; patternRows: readonly StoredPatternRow[] }[]): void {
    this.transaction(() => {
      for (const { analysis, patternRows } of items) {
        this.stmt.deletePatternRows.run(analysis.symbol);
        for (const row of patternRows) this.stmt.putPatternRow.run({ ...row, symbol: analysis.symbol });
        this.stmt.putAnalysis.run({ ...analysis });
      }
    });
  }

  /** Forgets the analysis and pattern rows of a symbol (one that no longer has bars). */
  deleteAnalysis(symbol: string): void {
    this.transaction(() => {
      this.stmt.deletePatternRows.run(symbol);
      this.stmt.deleteAnalysis.run(symbol);
    });
  }

  /** Every stored pattern row, by symbol then date. */
  patternRows(): StoredPatternRow[] {
    return this.stmt.patternRows.all();
  }

  /** A value of the store's key-value metadata, or undefined. */
  metaValue(key: string): string | undefined {
    return this.stmt.metaValue.get(key)?.value;
  }

  /** Sets a value of the store's key-value metadata. */
  setMetaValue(key: string, value: string): void {
    this.stmt.setMeta.run(key, value);
  }

  /** The symbols whose bars come from a provider, by symbol. */
  providerSymbols(): ProviderSymbol[] {
    return this.stmt.providerSymbols.all();
  }

  /** Records that a symbol's bars come from a provider, with its company. */
  putProviderSymbol(entry: ProviderSymbol): void {
    this.stmt.putProviderSymbol.run({ ...entry });
  }

  /** Closes the database. */
  close(): void {
    this.db.close();
  }
}

/** Opens the market store at a file, e.g. `path.join(config.dataDir, MARKET_DB_FILE)`. */
export function openMarketStore(options: MarketStoreOptions): MarketStore {
  return new MarketStore(options);
}

/** Options of {@link buildMarket}. */
export interface BuildOptions {
  /** Seed of the generator. */
  readonly seed: number;
  /** The companies to build. */
  readonly universe: readonly UniverseEntry[];
  /** Last day of the generated history (default the universe date). */
  readonly endDate?: string;
  /** Symbols written per transaction (default 25). */
  readonly batchSize?: number;
  /** Called after each batch with the symbols written so far and the number to write. */
  readonly onProgress?: (done: number, total: number) => void;
  /** The clock of the build time (default the system clock). */
  readonly now?: () => Date;
}

/** What {@link buildMarket} did. */
export interface BuildResult {
  /** Symbols whose generated bars and fundamentals were written from scratch. */
  readonly built: number;
  /** Symbols whose generated bars were extended to the end date (their derived fundamentals rewritten). */
  readonly extended: number;
  /** Symbols left alone because their bars were imported. */
  readonly keptImported: number;
}

/** A bar with every price multiplied by `ratio`, on $0.01 ticks, still consistent. */
function scaledBar(bar: DailyBar, ratio: number): DailyBar {
  const open = roundCents(bar.open * ratio);
  const close = roundCents(bar.close * ratio);
  return {
    date: bar.date,
    open,
    high: Math.max(roundCents(bar.high * ratio), open, close),
    low: Math.min(roundCents(bar.low * ratio), open, close),
    close,
    volume: bar.volume,
  };
}

/**
 * The generated bars after a symbol's last stored bar. When that bar is not the generated one (a day rolled from
 * live ticks), the bars after it are scaled to go on from its close.
 */
function barsAfter(last: DailyBar, generated: readonly DailyBar[]): DailyBar[] {
  const at = generated.findIndex((b) => b.date > last.date);
  if (at < 0) return [];
  const anchor = generated[at - 1];
  const ratio = anchor?.date === last.date && anchor.close !== last.close ? last.close / anchor.close : 1;
  const after = generated.slice(at);
  return ratio === 1 ? after : after.map((b) => scaledBar(b, ratio));
}

/** Writes a symbol's derived fundamentals to `endDate`, leaving the types imported from the SEC alone. */
function writeDerivedFundamentals(store: MarketStore, entry: UniverseEntry, seed: number, endDate: string): void {
  const fromSec = new Set(store.fundamentalTypesFrom(entry.symbol, 'SEC'));
  const derivedTypes = FUNDAMENTAL_TYPES.filter((t) => !fromSec.has(t));
  const facts = generateFundamentals(entry, { seed, endDate }).filter((f) => derivedTypes.includes(f.type));
  store.replaceFundamentals(entry.symbol, facts, derivedTypes);
}

/**
 * Brings the generated market to `endDate`, one transaction per batch of symbols with progress: generates the
 * bars and derived fundamentals of every universe symbol the store lacks (all but imported ones when it was
 * built with another seed), and extends the generated symbols whose bars end before `endDate` with the missing
 * days, so that a store extended to a date holds what one built to that date from scratch holds. Bars already
 * stored are kept; a store already at `endDate` with the same seed is left as it is.
 */
export function buildMarket(store: MarketStore, options: BuildOptions): BuildResult {
  const meta = store.meta();
  const endDate = options.endDate ?? UNIVERSE_DATE;
  const sameSeed = meta.seed === options.seed;
  const imported = options.universe.filter((e) => meta.barSources[e.symbol] === 'imported');
  const targets = options.universe.filter((e) => {
    const source = meta.barSources[e.symbol];
    return sameSeed ? source === undefined : source !== 'imported';
  });
  const lastBars = new Map<string, DailyBar>();
  if (sameSeed) {
    for (const e of options.universe) {
      const last = meta.barSources[e.symbol] === 'generated' ? store.bars(e.symbol, { limit: 1 })[0] : undefined;
      if (last !== undefined && last.date < endDate) lastBars.set(e.symbol, last);
    }
  }
  const extend = options.universe.filter((e) => lastBars.has(e.symbol));
  if (sameSeed && targets.length === 0 && extend.length === 0) {
    return { built: 0, extended: 0, keptImported: imported.length };
  }

  store.replaceUniverse(options.universe);
  const history = generateHistory(options.universe, { seed: options.seed, endDate });
  const work = [
    ...targets.map((entry) => ({ entry, last: undefined })),
    ...extend.map((entry) => ({ entry, last: lastBars.get(entry.symbol) })),
  ];
  const batchSize = Math.max(1, options.batchSize ?? 25);
  options.onProgress?.(0, work.length);
  for (let at = 0; at < work.length; at += batchSize) {
    const batch = work.slice(at, at + batchSize);
    store.transaction(() => {
      for (const { entry, last } of batch) {
        const bars = history.get(entry.symbol) ?? [];
        if (last === undefined) store.replaceBars(entry.symbol, bars, 'generated');
        else store.appendBars(entry.symbol, barsAfter(last, bars));
        writeDerivedFundamentals(store, entry, options.seed, endDate);
      }
    });
    options.onProgress?.(Math.min(at + batchSize, work.length), work.length);
  }
  store.setBuildMeta({
    seed: options.seed,
    builtAt: (options.now ?? (() => new Date()))().toISOString(),
    asOf: sameSeed && meta.asOf !== null && meta.asOf > endDate ? meta.asOf : endDate,
  });
  return { built: targets.length, extended: extend.length, keptImported: imported.length };
}
