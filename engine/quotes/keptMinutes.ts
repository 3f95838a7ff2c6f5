/**
 * The open session's minute candles kept across a restart, for the sources no provider can fill in again (the
 * feed route, Finnhub), beside the session's bars (`engine/ticks/keptSession.ts`): a {@link MinuteKeeper} appends
 * each finished candle (one a later minute followed, which no tick moves any more) of the quotes that keep
 * minutes to a {@link MinuteStore} each second, once. A process that starts while that session is open takes
 * them back with its bars (`resumeSession`), so the 1D chart draws the whole session, not the part since the
 * restart. After a crash the candles of at most the last minute and a second before it are missing; the
 * session's bar, kept apart, still holds their trades.
 *
 * A kept candle is a line `SYMBOL,minute,open,high,low,close,volume,sessionVolume` of whole numbers (the minute
 * since the epoch, prices in cents); a session's lines are written only ever appended, so a crash in the middle
 * of a write leaves at most a last line without its end, which is left out.
 */
import { mkdirSync } from 'node:fs';
import { appendFile, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isSymbol } from '../../domain/symbol.ts';
import type { RedisClient } from '../../platform/redis.ts';
import { newYorkTime } from '../ticks/marketClock.ts';
import { PeriodicWriter, type PeriodicOptions } from '../ticks/periodic.ts';
import type { LiveQuotes } from './liveQuotes.ts';
import type { FinishedCandles, KeptCandle } from './minuteCandles.ts';

/** The folder of `DATA_DIR` holding a file of kept candles per session, named by its date. */
export const KEPT_MINUTES_DIR = 'session-minutes';

/** The prefix of the Redis keys holding a session's kept candles (a hash per date) when engines share a Redis. */
export const KEPT_MINUTES_KEY = 'stockpulse:session-minutes:';

/** How long a session's kept candles stay in Redis (s): past the next sessions, which no longer read them. */
const KEPT_MINUTES_TTL_S = 4 * 24 * 3600;

/** Where a session's kept candles live. */
export interface MinuteStore {
  /** Adds lines (see the module's description) to the session of `date`. */
  append(date: string, lines: readonly string[]): Promise<void>;
  /** The lines kept of the session of `date`, in no particular order (a line twice is the same candle). */
  load(date: string): Promise<string[]>;
}

/** The kept candles cannot be read: names the line and the field. */
export class KeptMinutesError extends Error {
  override readonly name = 'KeptMinutesError';
}

/**
 * A file per session in `dir/session-minutes` (`2026-12-08.csv`), appended to; the files of other sessions are
 * removed when a session's first lines are written.
 */
export function fileMinuteStore(dir: string): MinuteStore {
  const folder = join(dir, KEPT_MINUTES_DIR);
  mkdirSync(folder, { recursive: true });
  let current: string | null = null;
  return {
    append: async (date, lines) => {
      if (current !== date) {
        for (const name of await readdir(folder)) {
          if (name !== `${date}.csv`) await rm(join(folder, name), { force: true });
        }
        current = date;
      }
      await appendFile(join(folder, `${date}.csv`), lines.map((line) => `${line}\n`).join(''));
    },
    load: async (date) => {
      let text: string;
      try {
        text = await readFile(join(folder, `${date}.csv`), 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
      const lines = text.split('\n');
      // The last element is the text after the last line's end: empty, or a line a crash cut short.
      lines.pop();
      return lines;
    },
  };
}

/** A Redis hash per session (`stockpulse:session-minutes:2026-12-08`), a field per candle, expiring in 4 days. */
export function redisMinuteStore(redis: RedisClient, prefix: string = KEPT_MINUTES_KEY): MinuteStore {
  return {
    append: async (date, lines) => {
      const key = `${prefix}${date}`;
      const fields: Record<string, string> = {};
      for (const line of lines) fields[line.slice(0, line.indexOf(',', line.indexOf(',') + 1))] = line;
      await redis.multi().hSet(key, fields).expire(key, KEPT_MINUTES_TTL_S).exec();
    },
    load: (date) => redis.hVals(`${prefix}${date}`),
  };
}

/** A kept candle's line. */
export function candleLine(symbol: string, candle: KeptCandle): string {
  const { minute, open, high, low, close, volume, sessionVolume } = candle;
  return `${symbol},${minute},${open},${high},${low},${close},${volume},${sessionVolume}`;
}

const CANDLE_FIELDS = ['minute', 'open', 'high', 'low', 'close', 'volume', 'sessionVolume'] as const;
const PRICE_FIELDS = new Set<string>(['open', 'high', 'low', 'close']);
const WHOLE = /^\d{1,15}$/;
const MINUTE_MS = 60_000;

/**
 * Reads the kept lines of the session of `date` (New York) into each symbol's candles, oldest first (a candle
 * kept twice counts once). A {@link KeptMinutesError} names the first line and field that is not as written, or
 * a candle of another day.
 */
export function parseKeptMinutes(lines: readonly string[], date: string): Map<string, KeptCandle[]> {
  const bySymbol = new Map<string, Map<number, KeptCandle>>();
  lines.forEach((line, i) => {
    const where = `line ${i + 1}`;
    const [symbol = '', ...numbers] = line.split(',');
    if (!isSymbol(symbol)) throw new KeptMinutesError(`${where}: symbol ${JSON.stringify(symbol)} is not a symbol`);
    if (numbers.length !== CANDLE_FIELDS.length) {
      throw new KeptMinutesError(`${where}: ${numbers.length + 1} fields, ${CANDLE_FIELDS.length + 1} expected`);
    }
    const values: Record<string, number> = {};
    CANDLE_FIELDS.forEach((field, k) => {
      const text = numbers[k]!;
      const value = Number(text);
      if (!WHOLE.test(text) || (PRICE_FIELDS.has(field) && value < 1)) {
        throw new KeptMinutesError(`${where}.${field}: not a whole number${PRICE_FIELDS.has(field) ? ' above 0' : ''}`);
      }
      values[field] = value;
    });
    const candle = values as unknown as KeptCandle;
    if (!(candle.low <= Math.min(candle.open, candle.close) && candle.high >= Math.max(candle.open, candle.close))) {
      throw new KeptMinutesError(`${where}: its low and high do not hold its open and close`);
    }
    if (newYorkTime(candle.minute * MINUTE_MS).date !== date) {
      throw new KeptMinutesError(`${where}.minute: not a minute of ${date} in New York`);
    }
    let candles = bySymbol.get(symbol);
    if (candles === undefined) {
      candles = new Map();
      bySymbol.set(symbol, candles);
    }
    candles.set(candle.minute, candle);
  });
  const kept = new Map<string, KeptCandle[]>();
  for (const [symbol, candles] of bySymbol) {
    kept.set(
      symbol,
      [...candles.values()].sort((a, b) => a.minute - b.minute),
    );
  }
  return kept;
}

/**
 * Appends the finished minute candles of `quotes` (which keep minutes) to a store, each once, each period and
 * when it stops. The candles the quotes hold when it starts (taken back from the store, or a finished day's)
 * are taken as written, the last one's too.
 */
export class MinuteKeeper extends PeriodicWriter {
  private readonly written: Map<string, number>;

  constructor(
    private readonly quotes: LiveQuotes,
    private readonly store: MinuteStore,
    options: PeriodicOptions = {},
  ) {
    super(options);
    this.written = quotes.lastMinutes();
  }

  private finished(): FinishedCandles[] {
    return this.quotes.finishedMinutes((symbol) => this.written.get(symbol) ?? -Infinity);
  }

  protected async write(): Promise<void> {
    const finished = this.finished();
    const byDate = new Map<string, FinishedCandles[]>();
    for (const symbol of finished) {
      const list = byDate.get(symbol.date);
      if (list === undefined) byDate.set(symbol.date, [symbol]);
      else list.push(symbol);
    }
    for (const [date, symbols] of byDate) {
      const lines = symbols.flatMap(({ symbol, candles }) => candles.map((candle) => candleLine(symbol, candle)));
      await this.store.append(date, lines);
      for (const { symbol, candles } of symbols) this.written.set(symbol, candles.at(-1)!.minute);
    }
  }
}
