/**
 * The trading day's close by the NYSE calendar, whatever the source: a {@link DayCloser} watches the ticks
 * (from a local source it wraps, or from the bus when they arrive by the feed route or another producer),
 * builds each symbol's bar of the session, and at the session's end by the market clock publishes the day's
 * close: one bar per symbol, a flat bar at the last price for a symbol that did not trade. A
 * {@link DayCloseClaims} makes each date close once across restarts and across engines.
 */
import { mkdirSync, openSync, closeSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RedisClient } from '../../platform/redis.ts';
import { systemClock, type Clock, type TimerHandle } from './clock.ts';
import { DayBars, type FormingBar } from './dayBars.ts';
import type { MarketClock, Session } from './marketClock.ts';
import type { TickSource } from './port.ts';
import type { TickBus, TickSubscription } from '../../platform/bus/port.ts';
import { TICK_FUTURE_TOLERANCE_MS, type ClosedDay, type Tick, type TickListener } from './tick.ts';

/** Decides which process closes a date: the first to claim it. */
export interface DayCloseClaims {
  /** True for the first claim of `date` (the caller closes it), false once it has been claimed. */
  claim(date: string): Promise<boolean>;
  /**
   * Gives back the claim of `date` whose close could not be delivered (stored or published), so that a later
   * claim (the next start, closing it from the kept bars) wins it. Nothing when it was not claimed.
   */
  release(date: string): Promise<void>;
}

/** Claims kept in memory: one process, no restart (tests). */
export function memoryDayCloseClaims(claimed: Iterable<string> = []): DayCloseClaims {
  const dates = new Set(claimed);
  return {
    claim: (date) => {
      if (dates.has(date)) return Promise.resolve(false);
      dates.add(date);
      return Promise.resolve(true);
    },
    release: (date) => {
      dates.delete(date);
      return Promise.resolve();
    },
  };
}

/** Claims as marker files `<dir>/<date>`, created exclusively: they survive a restart of a single process. */
export function fileDayCloseClaims(dir: string): DayCloseClaims {
  mkdirSync(dir, { recursive: true });
  return {
    claim: (date) => {
      try {
        closeSync(openSync(join(dir, date), 'wx'));
        return Promise.resolve(true);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') return Promise.resolve(false);
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    },
    release: (date) => rm(join(dir, date), { force: true }),
  };
}

/** How long a Redis claim is kept (s): long after any restart could close the date again. */
const CLAIM_TTL_SECONDS = 60 * 86_400;

/** Claims as Redis keys set only if absent (`SET NX`): every engine sharing the Redis closes a date once. */
export function redisDayCloseClaims(redis: RedisClient, prefix = 'stockpulse:dayclose:'): DayCloseClaims {
  return {
    claim: async (date) =>
      (await redis.set(`${prefix}${date}`, String(Date.now()), { NX: true, EX: CLAIM_TTL_SECONDS })) === 'OK',
    release: async (date) => {
      await redis.del(`${prefix}${date}`);
    },
  };
}

/** Options of a {@link DayCloser}. */
export interface DayCloserOptions {
  /** The sessions: the NYSE calendar on the wall clock, or the accelerated demo clock. */
  readonly sessions: MarketClock;
  /** Which process closes each date. */
  readonly claims: DayCloseClaims;
  /** The last price of each symbol closed every day, e.g. the last closes; a traded symbol joins them. */
  readonly lastPrices: Iterable<readonly [string, number]>;
  /**
   * `wall` (default): a session closes when the clock reaches its end (plus `graceMs`), traded or not.
   * `ticks`: a session closes when a tick of a later session arrives, or at {@link DayCloser.finish} (a replay of
   * recorded ticks, whose time is not the wall clock's).
   */
  readonly time?: 'wall' | 'ticks';
  /** The time and timers (default the system clock). */
  readonly clock?: Clock;
  /** How long after a session's end (ms) the close waits for late ticks of the session (default 1000). */
  readonly graceMs?: number;
  /** A claim or a delivery that failed. */
  readonly onError?: (error: unknown) => void;
}

/** What a {@link DayCloser} has done. */
export interface DayCloserStats {
  /** Dates this closer closed. */
  readonly closed: number;
  /** Dates another closer (or an earlier run) had closed. */
  readonly skipped: number;
  /** The last date this closer closed or skipped. */
  readonly lastDate: string | null;
  /** The session being watched (ends next). */
  readonly session: Session | null;
}

/**
 * Closes each trading day by the calendar: ticks go through it to a listener, in order, with each day close
 * between the last tick of its session and the first of the next.
 */
export class DayCloser {
  private readonly clock: Clock;
  private readonly time: 'wall' | 'ticks';
  private readonly graceMs: number;
  private readonly last = new Map<string, number>();
  private bars = new DayBars();
  private open: Session | undefined;
  private timer: TimerHandle | undefined;
  private listener: TickListener | undefined;
  private chain: Promise<void> = Promise.resolve();
  private inFlight = 0;
  private stopped = false;
  private counts = { closed: 0, skipped: 0 };
  private lastDate: string | null = null;
  private changes = 0;

  constructor(private readonly options: DayCloserOptions) {
    this.clock = options.clock ?? systemClock();
    this.time = options.time ?? 'wall';
    this.graceMs = options.graceMs ?? 1000;
    for (const [symbol, price] of options.lastPrices) this.last.set(symbol, price);
  }

  /** Starts watching: ticks passed to {@link ticks} and each day close go to `listener`. */
  start(listener: TickListener): void {
    if (this.listener) throw new Error('the day closer is already started');
    this.listener = listener;
    if (this.time === 'wall') {
      this.open = this.options.sessions.sessionAt(this.clock.now());
      this.schedule();
    }
  }

  /** Takes a batch of ticks: adds them to the session's bars and passes them on, after any close they follow. */
  ticks(batch: readonly Tick[]): void {
    if (this.stopped || !this.listener || batch.length === 0) return;
    let from = 0;
    for (let i = 0; i < batch.length; i++) {
      const tick = batch[i]!;
      if (this.crosses(tick)) {
        if (i > from) this.emitTicks(batch.slice(from, i));
        from = i;
        this.closeSession();
      }
      this.open ??= this.options.sessions.sessionAt(tick.ts);
      this.add(tick);
    }
    this.emitTicks(from === 0 ? batch : batch.slice(from));
  }

  /** Adds ticks that reached the listener another way (the bus) to the session's bars, without passing them on. */
  observe(batch: readonly Tick[]): void {
    if (this.stopped) return;
    for (const tick of batch) {
      if (this.crosses(tick)) this.closeSession();
      this.open ??= this.options.sessions.sessionAt(tick.ts);
      this.add(tick);
    }
  }

  /**
   * Whether a tick is past the open session's end: it closes the session before the timer does. On the wall
   * clock only a tick no later than now counts, so a tick stamped in the future cannot close a day early.
   */
  private crosses(tick: Tick): boolean {
    if (this.open === undefined || tick.ts < this.open.end) return false;
    return this.time === 'ticks' || tick.ts <= this.clock.now() + TICK_FUTURE_TOLERANCE_MS;
  }

  /** Closes the open session now, if it had ticks (the end of a replay). */
  finish(): void {
    if (!this.stopped && this.open !== undefined && !this.bars.isEmpty) this.closeSession();
  }

  /** Resolves once the ticks and closes taken so far have been delivered. */
  async settled(): Promise<void> {
    let chain: Promise<void>;
    do {
      chain = this.chain;
      await chain;
    } while (chain !== this.chain);
  }

  /** Stops closing; resolves once nothing more will be delivered. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    await this.settled();
  }

  /**
   * A symbol's bar of the open session so far, what its close will publish (undefined before the symbol's first
   * tick of the session).
   */
  formingBar(symbol: string): ReturnType<DayBars['bar']> {
    return this.bars.bar(symbol);
  }

  /**
   * The open session's date and every symbol's bar so far (none before the session's first tick), or null
   * before a session is watched.
   */
  formingDay(): { readonly date: string; readonly bars: [string, Readonly<FormingBar>][] } | null {
    return this.open === undefined ? null : { date: this.open.date, bars: this.bars.all() };
  }

  /** A count that moves whenever the forming bars do (a tick added, a session closed). */
  get version(): number {
    return this.changes;
  }

  /** What it has closed and watches. */
  stats(): DayCloserStats {
    return { ...this.counts, lastDate: this.lastDate, session: this.open ?? null };
  }

  private add(tick: Tick): void {
    const open = this.open;
    // On the wall clock the bar is the regular session's; recorded ticks belong to the session they lead to.
    if (open === undefined || tick.ts >= open.end || (this.time === 'wall' && tick.ts < open.start)) return;
    this.bars.add(tick);
    this.last.set(tick.symbol, tick.price);
    this.changes += 1;
  }

  private schedule(): void {
    if (this.stopped || this.open === undefined) return;
    const wait = Math.max(0, this.open.end + this.graceMs - this.clock.now());
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      if (!this.stopped) this.closeSession();
    }, wait);
  }

  /** Builds the open session's close now and delivers it once claimed; watches the next session. */
  private closeSession(): void {
    const session = this.open!;
    const closed = this.bars.close(session.date, this.last);
    // A demo session or a replayed day says so: those are not the calendar's days to keep.
    const played = this.time === 'ticks' ? 'replay' : this.options.sessions.mode === 'accelerated' ? 'demo' : null;
    const day: ClosedDay = played === null ? closed : { ...closed, played };
    this.bars = new DayBars();
    this.changes += 1;
    this.open =
      this.time === 'wall' ? this.options.sessions.sessionAt(Math.max(this.clock.now(), session.end)) : undefined;
    if (this.time === 'wall' && !this.stopped) {
      if (this.timer) this.clock.clearTimeout(this.timer);
      this.schedule();
    }
    this.inFlight += 1;
    this.chain = this.chain
      .then(async () => {
        const won = await this.options.claims.claim(day.date);
        this.lastDate = day.date;
        if (!won) {
          this.counts.skipped += 1;
          return;
        }
        if (this.stopped) {
          // Stopped while claiming: the close is not delivered, so its claim is given back for the next start.
          await this.options.claims.release(day.date);
          return;
        }
        this.counts.closed += 1;
        this.listener?.onDayClosed?.(day);
      })
      .catch((error: unknown) => this.options.onError?.(error))
      .finally(() => (this.inFlight -= 1));
  }

  private emitTicks(batch: readonly Tick[]): void {
    this.emit(() => this.listener?.onTicks(batch));
  }

  /** Delivers now when no close is being claimed, else after it, so the order holds. */
  private emit(deliver: () => unknown): void {
    if (this.inFlight === 0) {
      if (!this.stopped) deliver();
      return;
    }
    this.chain = this.chain.then(() => {
      if (!this.stopped) deliver();
    });
  }
}

/**
 * A tick source whose days close by the calendar: the source's ticks go through a {@link DayCloser}, its own
 * day closes (if any) are dropped.
 */
export class CalendarClosedSource implements TickSource {
  constructor(
    private readonly source: TickSource,
    /** The closer (started with the source). */
    readonly closer: DayCloser,
  ) {}

  start(listener: TickListener): void {
    this.closer.start(listener);
    this.source.start({ onTicks: (batch) => this.closer.ticks(batch) });
  }

  async stop(): Promise<void> {
    await this.source.stop();
    await this.closer.stop();
  }
}

/**
 * A tick source that only closes days: the ticks reach the bus another way (the feed route, another
 * producer), the closer reads them there for the bars and delivers the day closes.
 */
class BusDayCloses implements TickSource {
  private subscription: TickSubscription | undefined;

  constructor(
    private readonly bus: TickBus,
    private readonly closer: DayCloser,
  ) {}

  start(listener: TickListener): void {
    if (this.subscription) throw new Error('the day closes are already started');
    this.closer.start({ onTicks: () => undefined, onDayClosed: (day) => listener.onDayClosed?.(day) });
    this.subscription = this.bus.subscribe({ onTicks: (batch) => this.closer.observe(batch) });
  }

  async stop(): Promise<void> {
    await this.subscription?.unsubscribe();
    await this.closer.stop();
  }
}

/**
 * The calendar's day closes for a source: `source`'s ticks go through a {@link DayCloser} (its own closes are
 * dropped); without a source (the feed), the closer reads the bus's ticks and the answer delivers only closes.
 */
export function rollByCalendar(
  bus: TickBus,
  source: TickSource | null,
  options: DayCloserOptions,
): { source: TickSource; closer: DayCloser } {
  const closer = new DayCloser(options);
  return { source: source ? new CalendarClosedSource(source, closer) : new BusDayCloses(bus, closer), closer };
}
