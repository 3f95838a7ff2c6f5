/**
 * Live quotes: for each symbol the last price, its change against the previous close, the day's high, low
 * and volume, kept up to date tick by tick, one entry per symbol that each tick replaces. Each symbol also
 * keeps its indicators with the live price as today's forming close, and the sums of its last finished closes
 * in cents that decide exactly whether the price is at, above or below a moving average.
 */
import { ALERT_BARS_MAX } from '../../domain/alerts/conditions.ts';
import type { DataFeed } from '../../domain/market/feeds.ts';
import type { DailyBar } from '../../domain/market/types.ts';
import type { SmaPeriod } from '../../domain/screener/query.ts';
import { LiveIndicators, SMA_PERIODS, type IndicatorRow } from '../indicators/indicators.ts';
import type { Quote, QuoteSource, SessionOpen } from '../market/quotes.ts';
import { closeInstant, round } from '../market/series.ts';
import type { MarketStore } from '../marketdata/store.ts';
import type { MinuteCandles } from '../../domain/contract/market.ts';
import { MinuteBook, type FinishedCandles, type KeptCandle } from './minuteCandles.ts';
import { priceCents, type ClosedDay, type Tick } from '../ticks/tick.ts';

/**
 * Finished closes kept per symbol: enough for the longest moving average with today's forming close, and for
 * that average as it was at the start of the longest window an alert may look back over.
 */
const CLOSES_KEPT = Math.max(...SMA_PERIODS) - 1 + ALERT_BARS_MAX;

/** A live quote: the API's {@link Quote} (with the session's open, high and low) plus the previous close. */
export interface LiveQuote extends Quote {
  /** The close the change is measured from, or null when the symbol has none. */
  readonly prevClose: number | null;
  readonly open: number;
  readonly high: number;
  readonly low: number;
}

/** How a tick moved a symbol's price, in cents; valid until the symbol's next tick. */
export interface PriceMove {
  /** Ticker. */
  readonly symbol: string;
  /** The price before this tick, in cents; NaN when the symbol had none. */
  readonly prevCents: number;
  /** The price of this tick, in cents. */
  readonly cents: number;
  /** The day's volume so far, this tick included. */
  readonly volume: number;
  /** The close the day's change is measured from, in cents; NaN when the symbol has none. */
  readonly prevCloseCents: number;
  /** The time of the symbol's latest trade (ms since the epoch): this tick's, unless it was reported late. */
  readonly ts: number;
}

/** The change in percent (2 decimals) from a previous close to a price, in cents; 0 without a previous close. */
export function changePctOf(cents: number, prevCloseCents: number): number {
  if (!(prevCloseCents > 0) || Number.isNaN(cents)) return 0;
  return round(((cents - prevCloseCents) / prevCloseCents) * 100, 2);
}

/** A symbol's finished days, oldest first, as the alert engine derives its indicator series from them. */
export interface SymbolHistory {
  /** The last finished closes in cents (up to the longest moving average's need), oldest first. */
  readonly closes: readonly number[];
  /** The volumes of the same days. */
  readonly volumes: readonly number[];
}

/** What a symbol's quotes start from. */
export interface QuoteSeed {
  /** Ticker. */
  readonly symbol: string;
  /** Its finished daily bars, oldest first (the last is the latest finished day; may be empty). */
  readonly bars: readonly DailyBar[];
}

/** A symbol's live state. Prices are integer cents. */
class Entry implements PriceMove {
  prevCents = NaN;
  cents = NaN;
  /** The close the displayed change is measured from. */
  prevCloseCents = NaN;
  /** The close the next trading day's change will be measured from. */
  nextPrevCloseCents = NaN;
  /** Whether the day closed since the last tick: the next tick starts a new day. */
  rolled = true;
  /** How many sessions the ticks started (a tick after a day close starts one). */
  sessions = 0;
  /** The price the displayed day opened at: the first tick of a live session, else the latest bar's open. */
  open = NaN;
  high = NaN;
  low = NaN;
  volume = 0;
  ts = 0;
  /** Whether the price is a tick's (else a daily close's). */
  ticked = false;
  /**
   * After a day close, until the next tick: the open (first tick) and previous close of the session that closed,
   * in cents, when it had ticks; else null.
   */
  closedSession: { readonly open: number; readonly prevCloseCents: number } | null = null;
  /**
   * The date of the latest finished bar, seeded or of a trading day rolled (a played day's leaves it): a trading
   * day's close dated up to it is one these quotes have already.
   */
  closedDate = '';

  /** Whether the indicators lag behind the last price. */
  dirty = false;
  snapshot: LiveQuote | undefined;
  /** The last {@link CLOSES_KEPT} finished closes, in cents, oldest first. */
  readonly closes: number[] = [];
  /** The volumes of the same days. */
  readonly volumes: number[] = [];
  /** Per period of {@link SMA_PERIODS}: the sum in cents of the last `period − 1` finished closes, or NaN. */
  readonly smaBases: number[] = SMA_PERIODS.map(() => NaN);
  readonly indicators: LiveIndicators;

  constructor(
    readonly symbol: string,
    bars: readonly DailyBar[],
  ) {
    this.indicators = new LiveIndicators(bars.map((bar) => bar.close));
    const last = bars.at(-1);
    if (last) {
      const previous = bars.at(-2);
      this.cents = priceCents(last.close);
      this.prevCloseCents = previous ? priceCents(previous.close) : this.cents;
      this.nextPrevCloseCents = this.cents;
      this.open = priceCents(last.open);
      this.high = priceCents(last.high);
      this.low = priceCents(last.low);
      this.volume = last.volume;
      this.ts = Date.parse(closeInstant(last.date));
      this.closedDate = last.date;
      for (const bar of bars.slice(-CLOSES_KEPT)) {
        this.closes.push(priceCents(bar.close));
        this.volumes.push(bar.volume);
      }
      this.updateBases();
    }
  }

  /** Whether a trading day's bar of `date` is one these quotes have finished already (see `closedDate`). */
  hasFinished(date: string): boolean {
    return this.closedDate >= date;
  }

  updateBases(): void {
    SMA_PERIODS.forEach((period, i) => {
      const n = period - 1;
      if (this.closes.length < n) {
        this.smaBases[i] = NaN;
        return;
      }
      let sum = 0;
      for (let k = this.closes.length - n; k < this.closes.length; k++) sum += this.closes[k]!;
      this.smaBases[i] = sum;
    });
  }

  changePct(): number {
    return changePctOf(this.cents, this.prevCloseCents);
  }

  quote(feed: DataFeed): LiveQuote {
    if (this.snapshot) return this.snapshot;
    const hasPrev = this.prevCloseCents > 0;
    this.snapshot = Object.freeze({
      symbol: this.symbol,
      price: this.cents / 100,
      change: hasPrev ? round((this.cents - this.prevCloseCents) / 100, 4) : 0,
      changepct: this.changePct(),
      volume: this.volume,
      ts: new Date(this.ts).toISOString(),
      source: this.ticked ? feed : 'close',
      prevClose: hasPrev ? this.prevCloseCents / 100 : null,
      open: this.open / 100,
      high: this.high / 100,
      low: this.low / 100,
    });
    return this.snapshot;
  }
}

const SMA_INDEX = new Map<number, number>(SMA_PERIODS.map((period, i) => [period, i]));

/** Options of {@link LiveQuotes.fromStore}. */
export interface FromStoreOptions {
  /** The symbols (default every symbol with bars). */
  readonly symbols?: readonly string[];
  /**
   * Finished days read per symbol (default 400): 199 make every moving average exact; about 400 make the
   * exponential ones (EMA, MACD, RSI) agree with a whole-history computation to about 1e-12.
   */
  readonly days?: number;
  /** The feed the ticks come from (default `feed`). */
  readonly feed?: DataFeed;
}

/** The live quotes of every symbol, a {@link QuoteSource}. */
export class LiveQuotes implements QuoteSource {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners: ((symbol: string) => void)[] = [];
  /** Each symbol's minute candles of its live session, once {@link keepMinutes} asked for them. */
  private minuteBook: MinuteBook | null = null;

  /**
   * Starts each symbol from its finished bars: its quote is the latest day's until the first tick. A tick's
   * quote names `feed` as its source, a daily close's `close`.
   */
  constructor(
    seeds: Iterable<QuoteSeed> = [],
    private readonly feed: DataFeed = 'feed',
  ) {
    for (const seed of seeds) this.entries.set(seed.symbol, new Entry(seed.symbol, seed.bars));
  }

  /** Quotes seeded from the market store's latest bars. */
  static fromStore(store: Pick<MarketStore, 'lastBars' | 'allSymbols'>, options: FromStoreOptions = {}): LiveQuotes {
    const symbols = options.symbols ?? store.allSymbols();
    const bars = store.lastBars(symbols, options.days ?? 400);
    return new LiveQuotes(
      symbols.map((symbol) => ({ symbol, bars: bars.get(symbol) ?? [] })),
      options.feed,
    );
  }

  /**
   * Applies one tick: the symbol's entry is replaced (a symbol never seen gets one, without a previous close).
   * The first tick after a day close starts the new day's range and volume. A tick reported late (older than
   * the session's latest, as a feed may send a trade it reports out of sequence) adds its size to the volume
   * and widens the range, but the last price stays the latest trade's: its move is none. Returns the price
   * move, which stays valid until the symbol's next tick.
   */
  applyTick(tick: Tick): PriceMove {
    let entry = this.entries.get(tick.symbol);
    if (entry === undefined) {
      entry = new Entry(tick.symbol, []);
      this.entries.set(tick.symbol, entry);
    }
    const cents = priceCents(tick.price);
    const late = !entry.rolled && tick.ts < entry.ts;
    entry.prevCents = entry.cents;
    if (!late) {
      entry.cents = cents;
      entry.ts = tick.ts;
    }
    if (entry.rolled) {
      entry.rolled = false;
      entry.sessions += 1;
      entry.closedSession = null;
      entry.prevCloseCents = entry.nextPrevCloseCents;
      entry.open = cents;
      entry.high = cents;
      entry.low = cents;
      entry.volume = tick.size;
    } else {
      if (cents > entry.high) entry.high = cents;
      if (cents < entry.low) entry.low = cents;
      entry.volume += tick.size;
    }
    entry.ticked = true;
    entry.dirty = true;
    entry.snapshot = undefined;
    if (this.minuteBook !== null) {
      this.minuteBook.record(tick.symbol, entry.sessions, cents, entry.volume, tick.ts, entry.prevCloseCents, late);
    }
    if (this.listeners.length > 0) this.notify(tick.symbol);
    return entry;
  }

  /**
   * Keeps each symbol's minute candles of its live session from the next tick on ({@link minutes}): what a
   * server that answers the price chart asks for; the alert engine's own quotes do without.
   */
  keepMinutes(): void {
    this.minuteBook ??= new MinuteBook();
  }

  /** Whether {@link keepMinutes} was asked for. */
  get keepsMinutes(): boolean {
    return this.minuteBook !== null;
  }

  /**
   * Before a symbol's first tick, takes the ticks of the finished day its quote shows (its last bar's session, in
   * order) into its minute candles only: the 1D chart then shows that session, as it does in a process that ran
   * through it, until the next session's first tick starts afresh; the quote is not moved. Answers false (and
   * takes nothing) once the symbol has had a tick, for a symbol without quotes, or without {@link keepMinutes}.
   */
  recordClosedMinutes(symbol: string, ticks: readonly Tick[]): boolean {
    const entry = this.entries.get(symbol);
    const book = this.minuteBook;
    if (book === null || entry === undefined || entry.ticked) return false;
    let volume = 0;
    let latest = -Infinity;
    for (const tick of ticks) {
      volume += tick.size;
      const late = tick.ts < latest;
      if (!late) latest = tick.ts;
      book.record(symbol, entry.sessions, priceCents(tick.price), volume, tick.ts, entry.prevCloseCents, late);
    }
    return true;
  }

  /** A symbol's minute candles of its live session (see {@link keepMinutes}), or undefined before its first tick. */
  minutes(symbol: string): MinuteCandles | undefined {
    return this.minuteBook?.candles(symbol);
  }

  /**
   * Takes the ticks of the open session a process restarts into (its day's bars so far, kept by the run before:
   * `engine/ticks/keptSession.ts`): the day's open, range, volume and change are the session's, but no minute
   * candles are made of them. A symbol's candles are the finished ones the run before kept (`candles`, in
   * cents, oldest first: `engine/quotes/keptMinutes.ts`), then those from its next tick, whose volume counts
   * from the session's volume so far.
   */
  resume(ticks: readonly Tick[], candles: ReadonlyMap<string, readonly KeptCandle[]> = new Map()): void {
    const book = this.minuteBook;
    this.minuteBook = null;
    try {
      this.apply(ticks);
    } finally {
      this.minuteBook = book;
    }
    if (book === null) return;
    for (const symbol of new Set(ticks.map((tick) => tick.symbol))) {
      const entry = this.entries.get(symbol)!;
      book.begin(symbol, entry.sessions, entry.prevCloseCents, entry.volume, candles.get(symbol));
    }
  }

  /** The finished minute candles after `after(symbol)` (see `MinuteBook.finishedAfter`); none without them kept. */
  finishedMinutes(after: (symbol: string) => number): FinishedCandles[] {
    return this.minuteBook?.finishedAfter(after) ?? [];
  }

  /** Each symbol's last minute candle's minute (since the epoch); none without them kept. */
  lastMinutes(): Map<string, number> {
    return this.minuteBook?.lastMinutes() ?? new Map<string, number>();
  }

  /** Applies a batch of ticks in order. */
  apply(ticks: readonly Tick[]): void {
    for (const tick of ticks) this.applyTick(tick);
  }

  /**
   * Whether these quotes have every bar of a trading day's close already (seeded from the stored bars, or rolled):
   * the same close delivered twice (published again after a publish whose outcome was lost, or stored before the
   * quotes were seeded and then read on the bus). A played day (a demo session, a replayed day) is always new.
   */
  hasClosed(day: ClosedDay): boolean {
    if (day.played !== undefined || day.bars.length === 0) return false;
    return day.bars.every((bar) => this.entries.get(bar.symbol)?.hasFinished(bar.date) === true);
  }

  /**
   * Ends a trading day: each bar's close becomes a finished close (indicators and moving-average sums move
   * on) and the previous close of the next day. The quote keeps showing the finished day until the next tick.
   * A trading day's bar of a date the symbol has finished already is left out (see {@link hasClosed}).
   */
  roll(day: ClosedDay): void {
    const played = day.played !== undefined;
    for (const bar of day.bars) {
      let entry = this.entries.get(bar.symbol);
      if (entry === undefined) {
        entry = new Entry(bar.symbol, []);
        this.entries.set(bar.symbol, entry);
      }
      if (!played) {
        if (entry.hasFinished(bar.date)) continue;
        entry.closedDate = bar.date;
      }
      const close = priceCents(bar.close);
      entry.indicators.roll(bar.close);
      entry.dirty = false;
      entry.closes.push(close);
      entry.volumes.push(bar.volume);
      if (entry.closes.length > CLOSES_KEPT) {
        entry.closes.shift();
        entry.volumes.shift();
      }
      entry.updateBases();
      if (entry.rolled || Number.isNaN(entry.cents)) {
        // No tick of the session that closed reached these quotes (a symbol that did not trade, a session closed
        // while the process was down): the quote shows its bar, as quotes seeded from the stored bars would.
        entry.open = priceCents(bar.open);
        entry.high = priceCents(bar.high);
        entry.low = priceCents(bar.low);
        entry.volume = bar.volume;
        entry.prevCloseCents = Number.isNaN(entry.nextPrevCloseCents) ? close : entry.nextPrevCloseCents;
        entry.ts = Date.parse(closeInstant(bar.date));
      }
      // The session that closed stays the one told until the next tick, when it had ticks of its own.
      entry.closedSession =
        entry.ticked && !entry.rolled ? { open: entry.open, prevCloseCents: entry.prevCloseCents } : null;
      entry.cents = close;
      entry.nextPrevCloseCents = close;
      entry.rolled = true;
      entry.ticked = false;
      entry.snapshot = undefined;
      if (this.listeners.length > 0) this.notify(bar.symbol);
    }
  }

  /** The quote of a symbol (a frozen snapshot, replaced on its next tick), or undefined when it has none. */
  quote(symbol: string): LiveQuote | undefined {
    const entry = this.entries.get(symbol);
    return entry === undefined || Number.isNaN(entry.cents) ? undefined : entry.quote(this.feed);
  }

  /**
   * The session of a symbol: while its price is a tick's, the live one (the open, the price of the session's
   * first tick, and the previous close); after a day close until the next tick, the session that closed, when it
   * had ticks; undefined before the first tick.
   */
  session(symbol: string): SessionOpen | undefined {
    const entry = this.entries.get(symbol);
    const session = entry === undefined ? null : entry.ticked ? entry : entry.closedSession;
    if (session === null) return undefined;
    const { open, prevCloseCents } = session;
    return { open: open / 100, prevClose: prevCloseCents > 0 ? prevCloseCents / 100 : null };
  }

  /** The quotes of the symbols that have one, in the order asked. */
  quotes(symbols: readonly string[]): LiveQuote[] {
    const out: LiveQuote[] = [];
    for (const symbol of symbols) {
      const q = this.quote(symbol);
      if (q !== undefined) out.push(q);
    }
    return out;
  }

  /** Every symbol with an entry, in the order they were added. */
  symbols(): string[] {
    return [...this.entries.keys()];
  }

  /** A symbol's last move (its price, the day's volume and the previous close, in cents), or undefined without one. */
  move(symbol: string): PriceMove | undefined {
    return this.entries.get(symbol);
  }

  /** A symbol's last price in cents, or undefined when it has none. */
  priceCents(symbol: string): number | undefined {
    const cents = this.entries.get(symbol)?.cents;
    return cents === undefined || Number.isNaN(cents) ? undefined : cents;
  }

  /** A symbol's change today in percent (2 decimals), as its quote shows it; 0 without a previous close. */
  changePct(symbol: string): number {
    return this.entries.get(symbol)?.changePct() ?? 0;
  }

  /** A symbol's indicators now: today's row with the live price as the forming close, or the last day's. */
  indicators(symbol: string): IndicatorRow | undefined {
    const entry = this.entries.get(symbol);
    if (entry === undefined) return undefined;
    if (entry.dirty) {
      entry.indicators.update(entry.cents / 100);
      entry.dirty = false;
    }
    return entry.indicators.current;
  }

  /** A symbol's simple moving average now (the live price as today's close), or null when its history is too short. */
  sma(symbol: string, period: SmaPeriod): number | null {
    return this.indicators(symbol)?.[`SMA_${period}`] ?? null;
  }

  /**
   * The sum in cents of a symbol's last `period − 1` finished closes, or null when it has fewer: with today's
   * price p in cents, p is at or above the moving average exactly when `(period − 1) × p >= base`, since
   * `p >= (base + p) / period`. Integer arithmetic, so no rounding decides a crossing.
   */
  smaBase(symbol: string, period: SmaPeriod): number | null {
    const i = SMA_INDEX.get(period);
    const base = i === undefined ? undefined : this.entries.get(symbol)?.smaBases[i];
    return base === undefined || Number.isNaN(base) ? null : base;
  }

  /** A symbol's finished days (closes in cents and volumes, oldest first), or undefined when it has no entry. */
  history(symbol: string): SymbolHistory | undefined {
    return this.entries.get(symbol);
  }

  /** Calls `listener` with the symbol after each tick or day close that changes its quote; returns the unsubscribe. */
  onUpdate(listener: (symbol: string) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  private notify(symbol: string): void {
    for (const listener of this.listeners.slice()) listener(symbol);
  }
}
