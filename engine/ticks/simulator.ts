/**
 * The tick simulator, the default source: from each symbol's last daily close it draws trades at a per-symbol
 * rate during the sessions of a market clock, with a U-shaped intraday profile of volatility and trading
 * activity (busy at the open and the close, quiet at midday), prices in $0.01 increments, and a day close with
 * every symbol's bar at the end of each session. The arrival times and prices of a symbol come from its own
 * seeded stream and the sessions only, so the same seed, start time and clock give the same ticks however the
 * timer batches them.
 */
import type { DailyBar } from '../../domain/market/types.ts';
import { streamOf, type Random } from '../marketdata/random.ts';
import { systemClock, type Clock, type TimerHandle } from './clock.ts';
import { DayBars } from './dayBars.ts';
import { marketClockOf, type MarketClock, type MarketClockMode, type Session } from './marketClock.ts';
import type { TickSource } from './port.ts';
import type { Tick, TickListener } from './tick.ts';

/** What the simulator needs to know of a symbol. */
export interface SimulatedSymbol {
  /** Ticker. */
  readonly symbol: string;
  /** The last daily close, where its price starts (dollars). */
  readonly lastClose: number;
  /** Standard deviation of its daily log returns, e.g. 0.015. */
  readonly dailyVolatility: number;
  /** Shares traded on an average day. */
  readonly averageVolume: number;
  /** Average trades per real second while the session is open. */
  readonly ticksPerSecond: number;
}

/** Options of {@link TickSimulator}. */
export interface SimulatorOptions {
  /** The symbols traded. */
  readonly symbols: readonly SimulatedSymbol[];
  /** The seed; each symbol draws from its own stream of it. */
  readonly seed: number;
  /** The last finished trading day (the last bar's date): the first simulated session is a later day. */
  readonly after: string;
  /** The time (default the system clock). */
  readonly clock?: Clock;
  /** Regular sessions on the wall clock (default) or accelerated demo sessions. */
  readonly market?: MarketClockMode;
  /** The sessions to trade in, shared with whatever closes the days (overrides `market`). */
  readonly sessions?: MarketClock;
  /** How often a batch of the ticks due is delivered, in real ms (default 50). */
  readonly stepMs?: number;
}

/** Share of a day's variance that falls in the overnight gap (the first trade of the day). */
const OVERNIGHT_SHARE = 0.15;
/** Degrees of freedom of the Student-t innovations (fat tails). */
const TAIL_NU = 5;

/**
 * Intraday volatility profile over the session fraction f in [0, 1]: U-shaped, mean 1 over the session (twice
 * as volatile at the open and the close as at midday).
 */
export function volatilityProfile(f: number): number {
  const u = 2 * f - 1;
  return (1 + 2 * u * u) * 0.6;
}

/** Intraday activity profile (trades and volume): U-shaped, mean 1, from 0.5 at midday to 2 at the ends. */
export function activityProfile(f: number): number {
  const u = 2 * f - 1;
  return (1 + 3 * u * u) / 2;
}

const ACTIVITY_MAX = 2;

class SymbolPath {
  /** The unrounded log price. */
  private logPrice: number;
  /** Last traded price in cents. */
  cents: number;
  /** Real ms of the next trade in the current session; Infinity when none is left in it. */
  nextAt = Infinity;
  private lastAt = 0;
  private firstOfDay = true;
  private meanSize = 1;
  private readonly rng: Random;
  private readonly variance: number;
  private readonly ratePerMs: number;

  constructor(
    readonly spec: SimulatedSymbol,
    seed: number,
  ) {
    this.rng = streamOf(seed, `ticks:${spec.symbol}`);
    this.logPrice = Math.log(spec.lastClose);
    this.cents = Math.max(1, Math.round(spec.lastClose * 100));
    this.variance = spec.dailyVolatility * spec.dailyVolatility;
    this.ratePerMs = spec.ticksPerSecond / 1000;
  }

  /** Prepares the session: the day's volume, the average trade size, the first trade time. */
  begin(session: Session, from: number): void {
    const length = session.end - session.start;
    const dayVolume = this.spec.averageVolume * Math.exp(0.3 * this.rng.normal() - 0.045);
    const expectedTrades = Math.max(1, this.ratePerMs * length);
    this.meanSize = dayVolume / expectedTrades;
    this.firstOfDay = true;
    this.lastAt = session.start;
    this.nextAt = this.arrivalAfter(Math.max(from, session.start), session);
  }

  /** Draws the trade at `nextAt`, and the time of the one after. */
  trade(session: Session): Tick {
    const at = this.nextAt;
    const length = session.end - session.start;
    const from = (this.lastAt - session.start) / length;
    const to = (at - session.start) / length;
    let variance = (1 - OVERNIGHT_SHARE) * this.variance * volatilityProfile((from + to) / 2) * (to - from);
    if (this.firstOfDay) variance += OVERNIGHT_SHARE * this.variance;
    const shock = this.rng.unitStudentT(TAIL_NU);
    this.logPrice += Math.sqrt(variance) * shock - variance / 2;
    this.cents = Math.max(1, Math.round(Math.exp(this.logPrice) * 100));
    // Bigger moves trade bigger size; the factor averages about 1.
    const sizeFactor = Math.exp(0.6 * this.rng.normal() - 0.18) * (0.5 + 0.67 * Math.abs(shock));
    const size = Math.max(1, Math.round(this.meanSize * sizeFactor));
    this.firstOfDay = false;
    this.lastAt = at;
    this.nextAt = this.arrivalAfter(at, session);
    return { symbol: this.spec.symbol, price: this.cents / 100, size, ts: Math.round(at) };
  }

  /** The next trade time after `t` in the session (thinning of a Poisson process at the activity profile). */
  private arrivalAfter(t: number, session: Session): number {
    const length = session.end - session.start;
    const peakRate = this.ratePerMs * ACTIVITY_MAX;
    if (!(peakRate > 0)) return Infinity;
    let at = t;
    for (;;) {
      at += -Math.log(this.rng.uniform()) / peakRate;
      if (at >= session.end) return Infinity;
      if (this.rng.uniform() * ACTIVITY_MAX < activityProfile((at - session.start) / length)) return at;
    }
  }
}

/** The simulated market, a {@link TickSource}. */
export class TickSimulator implements TickSource {
  private readonly clock: Clock;
  private readonly stepMs: number;
  private readonly paths: SymbolPath[];
  private listener: TickListener | undefined;
  private market: MarketClock | undefined;
  private session: Session | undefined;
  private day = new DayBars();
  private timer: TimerHandle | undefined;
  private stopped = false;

  constructor(private readonly options: SimulatorOptions) {
    this.clock = options.clock ?? systemClock();
    this.stepMs = options.stepMs ?? 50;
    if (!(this.stepMs > 0)) throw new RangeError(`stepMs must be above 0, got ${this.stepMs}`);
    const seen = new Set<string>();
    for (const s of options.symbols) {
      if (seen.has(s.symbol)) throw new RangeError(`symbols: ${s.symbol} is listed twice`);
      seen.add(s.symbol);
      if (!(s.lastClose > 0))
        throw new RangeError(`symbols: ${s.symbol} lastClose must be above 0, got ${s.lastClose}`);
      if (!(s.dailyVolatility >= 0)) throw new RangeError(`symbols: ${s.symbol} dailyVolatility must be >= 0`);
      if (!(s.ticksPerSecond >= 0)) throw new RangeError(`symbols: ${s.symbol} ticksPerSecond must be >= 0`);
    }
    this.paths = [...options.symbols]
      .sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0))
      .map((spec) => new SymbolPath(spec, options.seed));
  }

  /** Opens the market clock at the current time and starts trading. */
  start(listener: TickListener): void {
    if (this.listener) throw new Error('the simulator is already started');
    this.listener = listener;
    const origin = this.clock.now();
    this.market =
      this.options.sessions ?? marketClockOf(this.options.market ?? { mode: 'regular' }, origin, this.options.after);
    this.session = this.market.sessionAt(origin);
    for (const path of this.paths) path.begin(this.session, origin);
    this.schedule(origin);
  }

  /** Stops trading; no callback runs after it. */
  stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    return Promise.resolve();
  }

  /** The session trading now or next (undefined before start). */
  get currentSession(): Session | undefined {
    return this.session;
  }

  private schedule(now: number): void {
    if (this.stopped || !this.session) return;
    const wait = now < this.session.start ? this.session.start - now : this.stepMs;
    this.timer = this.clock.setTimeout(() => this.step(), wait);
  }

  private step(): void {
    this.timer = undefined;
    if (this.stopped || !this.listener || !this.market || !this.session) return;
    const now = this.clock.now();
    let batch: Tick[] = [];
    for (;;) {
      const session = this.session;
      if (now < session.start) break;
      const upto = Math.min(now, session.end);
      for (const path of this.paths) {
        while (path.nextAt <= upto && path.nextAt < session.end) {
          const tick = path.trade(session);
          this.day.add(tick);
          batch.push(tick);
        }
      }
      if (now < session.end) break;
      this.deliver(batch);
      batch = [];
      if (this.stopped) return;
      const closed = this.day.close(
        session.date,
        this.paths.map((path) => [path.spec.symbol, path.cents / 100] as const),
      );
      this.listener.onDayClosed?.(closed);
      if (this.stopped) return;
      this.session = this.market.sessionAt(session.end);
      for (const path of this.paths) path.begin(this.session, this.session.start);
    }
    this.deliver(batch);
    this.schedule(now);
  }

  private deliver(batch: Tick[]): void {
    if (batch.length === 0 || this.stopped) return;
    batch.sort((a, b) => a.ts - b.ts || (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
    void this.listener?.onTicks(batch);
  }
}

/** Options of {@link simulatedSymbols}. */
export interface SimulatedSymbolsOptions {
  /** Trades per real second of the median symbol by dollar volume (default 1). */
  readonly ticksPerSecond?: number;
  /** Days of returns the volatility is measured over (default 60). */
  readonly volatilityDays?: number;
  /** Days the average volume is measured over (default 20). */
  readonly volumeDays?: number;
}

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The simulator's symbols from their last daily bars (oldest first): the last close, the volatility of recent
 * daily log returns, the average volume, and a trade rate that grows with the square root of the dollar volume
 * (a quarter to four times the median symbol's). Also answers the latest bar date, where the simulation starts.
 */
export function simulatedSymbols(
  barsBySymbol: ReadonlyMap<string, readonly DailyBar[]>,
  options: SimulatedSymbolsOptions = {},
): { symbols: SimulatedSymbol[]; after: string } {
  const base = options.ticksPerSecond ?? 1;
  const volDays = options.volatilityDays ?? 60;
  const volumeDays = options.volumeDays ?? 20;
  const rows: { symbol: string; lastClose: number; vol: number; volume: number; dollars: number }[] = [];
  let after = '0000-01-01';
  for (const [symbol, bars] of barsBySymbol) {
    const last = bars.at(-1);
    if (!last) continue;
    if (last.date > after) after = last.date;
    const closes = bars.slice(-(volDays + 1)).map((bar) => bar.close);
    const returns: number[] = [];
    for (let i = 1; i < closes.length; i++) returns.push(Math.log(closes[i]! / closes[i - 1]!));
    const mean = returns.reduce((s, r) => s + r, 0) / Math.max(1, returns.length);
    const vol =
      returns.length >= 2 ? Math.sqrt(returns.reduce((s, r) => s + (r - mean) ** 2, 0) / (returns.length - 1)) : 0.02;
    const recent = bars.slice(-volumeDays);
    const volume = recent.reduce((s, bar) => s + bar.volume, 0) / recent.length || 1_000_000;
    rows.push({ symbol, lastClose: last.close, vol, volume, dollars: volume * last.close });
  }
  const typical = median(rows.map((r) => r.dollars)) || 1;
  const symbols = rows.map((r) => ({
    symbol: r.symbol,
    lastClose: r.lastClose,
    dailyVolatility: r.vol,
    averageVolume: r.volume,
    ticksPerSecond: base * Math.min(4, Math.max(0.25, Math.sqrt(r.dollars / typical))),
  }));
  return { symbols, after };
}
