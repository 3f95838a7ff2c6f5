/**
 * The pattern days of the whole market in memory, in columns (symbol, day, pattern bit set, forward returns) and
 * indexed by date and by symbol, answering the pattern routes: newest rows, dates with their counts, one date,
 * one symbol's recent days, symbols ranked by pattern days, and the performance statistics of every pattern.
 */
import { PATTERNS } from '../../domain/screener/patterns.ts';
import { summarisePerformance, type ForwardSample, type PatternPerformance } from '../patterns/performance.ts';
import type { PatternHit } from '../patterns/patterns.ts';
import type { StoredPatternRow } from '../marketdata/store.ts';
import { hitOf } from './analysis.ts';

/** A row of the pattern routes: one symbol's patterns on one day. */
export interface PatternRow {
  /** Stable id, `<symbol>:<date>`. */
  readonly id: string;
  /** Ticker. */
  readonly symbol: string;
  /** Trading day. */
  readonly date: string;
  /** The patterns completed that day, `{name, bullish}`, in list order. */
  readonly stockpatterns: readonly PatternHit[];
}

/** A date with patterns and how many patterns were detected on it (over every symbol). */
export interface PatternDate {
  /** Trading day. */
  readonly date: string;
  /** Pattern detections that day. */
  readonly patterncount: number;
}

/** A symbol with the number of its days with patterns in a window. */
export interface SymbolPatternCount {
  /** Ticker. */
  readonly symbol: string;
  /** Days with at least one pattern. */
  readonly count: number;
}

const BIT_OF: ReadonlyMap<string, number> = new Map(PATTERNS.map((p, i) => [p.name, i]));

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Pattern days indexed for the routes; "the last N days" counts the market's trading days, newest first. */
export class PatternIndex {
  /** Distinct symbols and dates, sorted. */
  private readonly symbols: string[];
  private readonly dateList: string[];
  /** Per row, in (date, symbol) order: symbol and date indices, pattern bit set, forward returns (NaN for none). */
  private readonly sym: Uint32Array;
  private readonly day: Uint32Array;
  private readonly mask: Uint32Array;
  private readonly r1: Float64Array;
  private readonly r5: Float64Array;
  private readonly r20: Float64Array;
  /** Rows of date `d` are `dateStart[d]` to `dateStart[d + 1]`. */
  private readonly dateStart: Uint32Array;
  /** Rows of symbol `s`, oldest first, are `symbolRows[symbolStart[s]]` to `symbolRows[symbolStart[s + 1] - 1]`. */
  private readonly symbolStart: Uint32Array;
  private readonly symbolRows: Uint32Array;
  private readonly symbolIndex: Map<string, number>;
  private readonly dateIndex: Map<string, number>;
  private readonly hitsByMask = new Map<number, readonly PatternHit[]>();
  private stats: PatternPerformance[] | undefined;

  /**
   * Indexes stored pattern rows (names unknown to the pattern list are left out); `calendar` is the market's
   * trading days, oldest first, and `stats` the statistics when already known (else computed on first use).
   */
  constructor(
    rows: readonly StoredPatternRow[],
    private readonly calendar: readonly string[],
    stats?: PatternPerformance[],
  ) {
    this.symbols = [...new Set(rows.map((r) => r.symbol))].sort(compare);
    this.dateList = [...new Set(rows.map((r) => r.date))].sort(compare);
    this.symbolIndex = new Map(this.symbols.map((s, i) => [s, i]));
    const dateIndex = new Map(this.dateList.map((d, i) => [d, i]));
    this.dateIndex = dateIndex;
    const n = rows.length;
    const rowSymbol = Uint32Array.from(rows, (r) => this.symbolIndex.get(r.symbol) as number);
    const rowDate = Uint32Array.from(rows, (r) => dateIndex.get(r.date) as number);
    // Two stable counting sorts, by symbol then by date: rows in (date, symbol) order, in linear time.
    const countingSort = (keys: Uint32Array, buckets: number, input: Uint32Array): Uint32Array => {
      const start = new Uint32Array(buckets + 1);
      for (const i of input) start[(keys[i] as number) + 1] = (start[(keys[i] as number) + 1] as number) + 1;
      for (let k = 1; k <= buckets; k += 1) start[k] = (start[k] as number) + (start[k - 1] as number);
      const out = new Uint32Array(input.length);
      for (const i of input) {
        const k = keys[i] as number;
        out[start[k] as number] = i;
        start[k] = (start[k] as number) + 1;
      }
      return out;
    };
    const identity = Uint32Array.from({ length: n }, (_, i) => i);
    const order = countingSort(rowDate, this.dateList.length, countingSort(rowSymbol, this.symbols.length, identity));
    this.sym = new Uint32Array(n);
    this.day = new Uint32Array(n);
    this.mask = new Uint32Array(n);
    this.r1 = new Float64Array(n);
    this.r5 = new Float64Array(n);
    this.r20 = new Float64Array(n);
    this.dateStart = new Uint32Array(this.dateList.length + 1);
    const symbolCounts = new Uint32Array(this.symbols.length + 1);
    order.forEach((from, i) => {
      const row = rows[from] as StoredPatternRow;
      const s = rowSymbol[from] as number;
      const d = rowDate[from] as number;
      let bits = 0;
      for (const name of row.patterns.split(',')) {
        const bit = BIT_OF.get(name);
        if (bit !== undefined) bits |= 1 << bit;
      }
      this.sym[i] = s;
      this.day[i] = d;
      this.mask[i] = bits;
      this.r1[i] = row.r1 ?? Number.NaN;
      this.r5[i] = row.r5 ?? Number.NaN;
      this.r20[i] = row.r20 ?? Number.NaN;
      this.dateStart[d + 1] = i + 1;
      symbolCounts[s + 1] = (symbolCounts[s + 1] as number) + 1;
    });
    this.symbolStart = new Uint32Array(this.symbols.length + 1);
    for (let s = 0; s < this.symbols.length; s += 1) {
      this.symbolStart[s + 1] = (this.symbolStart[s] as number) + (symbolCounts[s + 1] as number);
    }
    this.symbolRows = new Uint32Array(n);
    const fill = this.symbolStart.slice(0, this.symbols.length);
    for (let i = 0; i < n; i += 1) {
      const s = this.sym[i] as number;
      this.symbolRows[fill[s] as number] = i;
      fill[s] = (fill[s] as number) + 1;
    }
    this.stats = stats;
  }

  /** Number of pattern days. */
  get size(): number {
    return this.sym.length;
  }

  /** The shared list of hits of a pattern bit set, in list order. */
  private hitsOf(bits: number): readonly PatternHit[] {
    let hits = this.hitsByMask.get(bits);
    if (hits === undefined) {
      hits = Object.freeze(PATTERNS.filter((_, i) => (bits & (1 << i)) !== 0).map((p) => hitOf(p.name) as PatternHit));
      this.hitsByMask.set(bits, hits);
    }
    return hits;
  }

  private row(i: number): PatternRow {
    const symbol = this.symbols[this.sym[i] as number] as string;
    const date = this.dateList[this.day[i] as number] as string;
    return { id: `${symbol}:${date}`, symbol, date, stockpatterns: this.hitsOf(this.mask[i] as number) };
  }

  /** The first date of the last `n` trading days of the market. */
  private windowStart(n: number): string {
    return this.calendar[Math.max(0, this.calendar.length - n)] ?? '';
  }

  /** The newest `limit` rows: by date, newest first, then by symbol. */
  newest(limit: number): PatternRow[] {
    const out: PatternRow[] = [];
    for (let d = this.dateList.length - 1; d >= 0 && out.length < limit; d -= 1) {
      for (let i = this.dateStart[d] as number; i < (this.dateStart[d + 1] as number) && out.length < limit; i += 1) {
        out.push(this.row(i));
      }
    }
    return out;
  }

  /** The newest `limit` dates that have patterns, with the number of patterns detected on each. */
  dates(limit: number): PatternDate[] {
    const out: PatternDate[] = [];
    for (let d = this.dateList.length - 1; d >= 0 && out.length < limit; d -= 1) {
      let patterncount = 0;
      for (let i = this.dateStart[d] as number; i < (this.dateStart[d + 1] as number); i += 1) {
        patterncount += this.hitsOf(this.mask[i] as number).length;
      }
      out.push({ date: this.dateList[d] as string, patterncount });
    }
    return out;
  }

  /** The rows of one date, by symbol. */
  onDate(date: string): PatternRow[] {
    const d = this.dateIndex.get(date);
    const out: PatternRow[] = [];
    if (d === undefined) return out;
    for (let i = this.dateStart[d] as number; i < (this.dateStart[d + 1] as number); i += 1) out.push(this.row(i));
    return out;
  }

  /** The latest date that has patterns, or undefined. */
  latestDate(): string | undefined {
    return this.dateList.at(-1);
  }

  /** A symbol's rows within the market's last `days` trading days, newest first. */
  recentOfSymbol(symbol: string, days: number): PatternRow[] {
    const s = this.symbolIndex.get(symbol);
    const out: PatternRow[] = [];
    if (s === undefined) return out;
    const from = this.windowStart(days);
    for (let k = (this.symbolStart[s + 1] as number) - 1; k >= (this.symbolStart[s] as number); k -= 1) {
      const i = this.symbolRows[k] as number;
      if ((this.dateList[this.day[i] as number] as string) < from) break;
      out.push(this.row(i));
    }
    return out;
  }

  /** A symbol's latest row, or undefined when it never had a pattern. */
  latestOfSymbol(symbol: string): PatternRow | undefined {
    const s = this.symbolIndex.get(symbol);
    if (s === undefined || this.symbolStart[s + 1] === this.symbolStart[s]) return undefined;
    return this.row(this.symbolRows[(this.symbolStart[s + 1] as number) - 1] as number);
  }

  /** Symbols with their number of pattern days in the market's last `days` trading days, most first, then by symbol. */
  countBySymbol(days: number): SymbolPatternCount[] {
    const from = this.windowStart(days);
    const out: SymbolPatternCount[] = [];
    this.symbols.forEach((symbol, s) => {
      let count = 0;
      for (let k = (this.symbolStart[s + 1] as number) - 1; k >= (this.symbolStart[s] as number); k -= 1) {
        if ((this.dateList[this.day[this.symbolRows[k] as number] as number] as string) < from) break;
        count += 1;
      }
      if (count > 0) out.push({ symbol, count });
    });
    return out.sort((a, b) => b.count - a.count || compare(a.symbol, b.symbol));
  }

  /** One forward sample per pattern hit of every row. */
  private *samples(): Generator<ForwardSample> {
    const value = (x: number): number | null => (Number.isNaN(x) ? null : x);
    for (let i = 0; i < this.sym.length; i += 1) {
      const returns = {
        1: value(this.r1[i] as number),
        5: value(this.r5[i] as number),
        20: value(this.r20[i] as number),
      };
      const date = this.dateList[this.day[i] as number] as string;
      for (const hit of this.hitsOf(this.mask[i] as number))
        yield { name: hit.name, bullish: hit.bullish, date, returns };
    }
  }

  /** How every pattern did over the whole market: count, and hit rate and median return 1, 5 and 20 days later. */
  performance(): PatternPerformance[] {
    this.stats ??= summarisePerformance(this.samples());
    return this.stats;
  }
}
