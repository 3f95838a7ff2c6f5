/**
 * The open session's bars kept across a restart, for the sources no provider can fill in again (the feed route,
 * Finnhub): the engine's day closer builds each symbol's bar of the session from the ticks, and a
 * {@link SessionKeeper} writes those bars to a {@link SessionStore} (a file in `DATA_DIR`, or one Redis key when
 * engines share a Redis) each second they moved and when the engine stops. A process that starts while that
 * session is still open takes them back ({@link resumeSession}): its quotes show the day's open, range, volume
 * and change, and its close publishes the whole day's bar, not the one of the ticks since the start; one that
 * starts after that session ended without its close stores the close from them ({@link missedSession},
 * {@link keptClose}). After a crash the ticks of at most the last second before it are missing from the bars;
 * after a stop, none.
 */
import { mkdirSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseKeptMinutes, type MinuteStore } from '../quotes/keptMinutes.ts';
import type { LiveQuotes } from '../quotes/liveQuotes.ts';
import type { KeptCandle } from '../quotes/minuteCandles.ts';
import type { Logger } from '../../platform/logger.ts';
import type { RedisClient } from '../../platform/redis.ts';
import { DayBars } from './dayBars.ts';
import type { DayCloser } from './dayCloser.ts';
import { regularSession, type MarketClock, type Session } from './marketClock.ts';
import { PeriodicWriter, type PeriodicOptions } from './periodic.ts';
import { checkTick, TickError, type ClosedDay, type Tick } from './tick.ts';

/** The file of `DATA_DIR` holding the open session's bars. */
export const KEPT_SESSION_FILE = 'session-bars.json';

/** The Redis key holding the open session's bars when engines share a Redis. */
export const KEPT_SESSION_KEY = 'stockpulse:session-bars';

/** A symbol's bar of the session so far, with the times (ms since the epoch) of its first and last ticks. */
export interface KeptBar {
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  readonly volume: number;
  readonly first: number;
  readonly last: number;
}

/** The bars of one session: its date (New York) and each symbol's bar so far. */
export interface KeptSession {
  readonly date: string;
  readonly bars: Readonly<Record<string, KeptBar>>;
}

/** Where the text of a {@link KeptSession} lives. */
export interface SessionStore {
  /** The text last saved, or null when there is none. */
  load(): Promise<string | null>;
  save(text: string): Promise<void>;
}

/** The kept text is not a session's bars: names the field. */
export class KeptSessionError extends Error {
  override readonly name = 'KeptSessionError';
}

/** A file in `dir`, replaced whole on each save (written aside, then renamed over it). */
export function fileSessionStore(dir: string): SessionStore {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, KEPT_SESSION_FILE);
  return {
    load: async () => {
      try {
        return await readFile(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
    save: async (text) => {
      await writeFile(`${path}.tmp`, text);
      await rename(`${path}.tmp`, path);
    },
  };
}

/** One Redis key, set whole on each save. */
export function redisSessionStore(redis: RedisClient, key: string = KEPT_SESSION_KEY): SessionStore {
  return {
    load: () => redis.get(key),
    save: async (text) => {
      await redis.set(key, text);
    },
  };
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const BAR_FIELDS = ['open', 'high', 'low', 'close', 'volume', 'first', 'last'] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a kept session's text; a {@link KeptSessionError} names the first field that is not as written. */
export function parseKeptSession(text: string): KeptSession {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new KeptSessionError('the kept session is not JSON');
  }
  if (!isRecord(value)) throw new KeptSessionError('the kept session is not an object');
  const { date, bars } = value;
  if (typeof date !== 'string' || !DATE.test(date)) throw new KeptSessionError('date: not a YYYY-MM-DD date');
  if (!isRecord(bars)) throw new KeptSessionError('bars: not an object');
  const kept: [string, KeptBar][] = [];
  for (const [symbol, bar] of Object.entries(bars)) {
    const where = `bars.${symbol}`;
    if (!isRecord(bar)) throw new KeptSessionError(`${where}: not an object`);
    for (const field of BAR_FIELDS) {
      const number = bar[field];
      if (typeof number !== 'number' || !Number.isFinite(number) || number < 0) {
        throw new KeptSessionError(`${where}.${field}: not a number of zero or more`);
      }
    }
    const { open, high, low, close, volume, first, last } = bar as unknown as KeptBar;
    if (!(low <= Math.min(open, close) && high >= Math.max(open, close))) {
      throw new KeptSessionError(`${where}: its low and high do not hold its open and close`);
    }
    if (first > last) throw new KeptSessionError(`${where}.last: before its first tick`);
    const checked = { open, high, low, close, volume, first, last };
    // The ticks it is played as are ticks as the feed takes them: a symbol as written, prices above 0.
    for (const tick of ticksOf(symbol, checked)) {
      try {
        if (checkTick(tick, where).symbol !== symbol) throw new TickError(`${where}: the symbol is not upper case`);
      } catch (error) {
        throw new KeptSessionError(error instanceof Error ? error.message : String(error));
      }
    }
    kept.push([symbol, checked]);
  }
  return { date, bars: Object.fromEntries(kept) };
}

/**
 * The ticks a kept bar is played as: its open, high and low at its first tick's time, then its close with the
 * whole volume at its last tick's time.
 */
export function keptTicks(session: KeptSession): Tick[] {
  return Object.entries(session.bars).flatMap(([symbol, bar]) => ticksOf(symbol, bar));
}

function ticksOf(symbol: string, bar: KeptBar): Tick[] {
  return [
    { symbol, price: bar.open, size: 0, ts: bar.first },
    { symbol, price: bar.high, size: 0, ts: bar.first },
    { symbol, price: bar.low, size: 0, ts: bar.first },
    { symbol, price: bar.close, size: bar.volume, ts: bar.last },
  ];
}

/** Refuses a kept session whose ticks fall outside `session`, naming the bar. */
function checkWithin(kept: KeptSession, session: Session): void {
  for (const [symbol, bar] of Object.entries(kept.bars)) {
    if (bar.first < session.start || bar.last >= session.end) {
      throw new KeptSessionError(`bars.${symbol}: its ticks are outside the session of ${kept.date}`);
    }
  }
}

/**
 * The kept bars of the session open at `now` by `sessions`, as ticks (see {@link keptTicks}): none when nothing
 * is kept, when the kept bars are of another session (a finished one, whose close was published or missed), or
 * between sessions. A bar whose ticks fall outside the session refuses the whole text, naming it.
 */
export async function keptSessionTicks(store: SessionStore, sessions: MarketClock, now: number): Promise<Tick[]> {
  const text = await store.load();
  if (text === null) return [];
  const kept = parseKeptSession(text);
  const session = sessions.sessionAt(now);
  if (kept.date !== session.date || now < session.start || now >= session.end) return [];
  checkWithin(kept, session);
  return keptTicks(kept);
}

/**
 * The kept bars of a session over by `now` in which at least one symbol traded: a session whose close was never
 * published when no claim of its date was made (the caller claims it); else null (nothing kept, a session still
 * open, or one without a tick, whose flat bars would be made up). A bar outside its session refuses the whole
 * text, naming it.
 */
export async function missedSession(store: SessionStore, now: number): Promise<KeptSession | null> {
  const text = await store.load();
  if (text === null) return null;
  const kept = parseKeptSession(text);
  const session = regularSession(kept.date);
  if (now < session.end || Object.keys(kept.bars).length === 0) return null;
  checkWithin(kept, session);
  return kept;
}

/**
 * The close a kept session makes, as the day closer would have made it: each kept bar, and a flat bar at its last
 * price for each symbol of `idle` that did not trade.
 */
export function keptClose(kept: KeptSession, idle: Iterable<readonly [string, number]>): ClosedDay {
  const bars = new DayBars();
  for (const tick of keptTicks(kept)) bars.add(tick);
  return bars.close(kept.date, idle);
}

/** Options of {@link resumeSession}. */
export interface ResumeOptions {
  /** Where the session's finished minute candles are kept, for quotes that keep minutes. */
  readonly minutes?: MinuteStore | null;
  /** The time (default now). */
  readonly now?: number;
}

/**
 * Takes the kept bars of the open session into `quotes` (see `LiveQuotes.resume`), with its kept minute candles
 * when the quotes keep minutes, and answers their ticks, which the day closer takes too (`observe`); logs what
 * it took, or why not (the quotes then start from the next tick, as without a kept session; the candles from
 * the next tick when only they cannot be read).
 */
export async function resumeSession(
  store: SessionStore,
  sessions: MarketClock,
  quotes: LiveQuotes,
  logger: Logger,
  options: ResumeOptions = {},
): Promise<readonly Tick[]> {
  const now = options.now ?? Date.now();
  try {
    const ticks = await keptSessionTicks(store, sessions, now);
    if (ticks.length > 0) {
      const date = sessions.sessionAt(now).date;
      const candles = options.minutes && quotes.keepsMinutes ? await keptCandles(options.minutes, date, logger) : [];
      quotes.resume(ticks, new Map(candles));
      const minutes = candles.reduce((sum, [, list]) => sum + list.length, 0);
      logger.info(
        { date, symbols: ticks.length / 4, minutes },
        `the bars of ${date} so far taken back from the last run`,
      );
    }
    return ticks;
  } catch (error) {
    logger.warn({ err: error }, 'the session so far was not taken back: the quotes start from the next tick');
    return [];
  }
}

/** The minute candles kept of the session of `date`; none, logged, when they cannot be read. */
async function keptCandles(store: MinuteStore, date: string, logger: Logger): Promise<[string, KeptCandle[]][]> {
  try {
    return [...parseKeptMinutes(await store.load(date), date)];
  } catch (error) {
    logger.warn({ err: error }, 'the minute candles so far were not taken back: they start from the next tick');
    return [];
  }
}

/** What a {@link SessionKeeper} is told besides a {@link PeriodicWriter}'s. */
export interface SessionKeeperOptions extends PeriodicOptions {
  /**
   * Resolves once the alerts fired by the ticks evaluated so far are in the log (the engine's
   * `AlertEngine.appended`): the bars are written only then, so that bars taken back after a crash never hold a tick
   * whose firings were lost with it (a feed that sent it unanswered sends it again, and it must not be late then).
   */
  readonly appended?: () => Promise<void>;
}

/** Writes a day closer's bars of the open session to a store each time they moved, at most once per period. */
export class SessionKeeper extends PeriodicWriter {
  private saved = -1;

  constructor(
    private readonly closer: DayCloser,
    private readonly store: SessionStore,
    private readonly keeping: SessionKeeperOptions = {},
  ) {
    super(keeping);
  }

  protected async write(): Promise<void> {
    const version = this.closer.version;
    const day = this.closer.formingDay();
    if (version === this.saved || day === null) return;
    // The bars as they are now, written once what their ticks fired is in the log.
    const kept: KeptSession = { date: day.date, bars: Object.fromEntries(day.bars) };
    const text = JSON.stringify(kept);
    await this.keeping.appended?.();
    await this.store.save(text);
    this.saved = version;
  }
}
