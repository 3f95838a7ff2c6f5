/**
 * Minute candles of each symbol's live session, made of every tick (`GET /api/bars/{symbol}/minutes`, the price
 * chart's 1D view): a page opened in the middle of a session draws the session so far, not only the quotes it
 * receives from then on. A candle opens at the first tick of its New York minute and closes at the last; its
 * volume is what the session's volume grew by in the minute. A session's first tick starts its candles afresh;
 * the session that closed is kept until then. Prices are kept in integer cents, as the quotes keep them.
 */
import { MINUTE_CANDLES_MAX, type MinuteCandles } from '../../domain/contract/market.ts';
import { hourMinute, newYorkTime } from '../ticks/marketClock.ts';

const MINUTE_MS = 60_000;

/** A finished minute candle as kept across a restart: its minute (since the epoch), prices in cents. */
export interface KeptCandle {
  readonly minute: number;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  /** What the session's volume grew by in the minute. */
  readonly volume: number;
  /** The session's volume at the candle's last tick. */
  readonly sessionVolume: number;
}

/** A symbol's finished candles of one session (its New York date), oldest first. */
export interface FinishedCandles {
  readonly symbol: string;
  readonly date: string;
  readonly candles: readonly KeptCandle[];
}

/** One symbol's candles, in parallel arrays, oldest first. */
class SessionMinutes {
  /** The quotes' session the candles are of (see {@link MinuteBook.record}). */
  session = -1;
  prevCloseCents = NaN;
  /** The session's volume before its first candle (a session resumed after a restart), else 0. */
  base = 0;
  readonly minute: number[] = [];
  readonly time: string[] = [];
  readonly open: number[] = [];
  readonly high: number[] = [];
  readonly low: number[] = [];
  readonly close: number[] = [];
  readonly volume: number[] = [];
  readonly sessionVolume: number[] = [];

  /** Drops every candle. */
  clear(): void {
    for (const column of this.columns()) column.length = 0;
  }

  /** Adds a candle after the others. */
  push(minute: number, time: string, candle: Omit<KeptCandle, 'minute'>): void {
    this.minute.push(minute);
    this.time.push(time);
    this.open.push(candle.open);
    this.high.push(candle.high);
    this.low.push(candle.low);
    this.close.push(candle.close);
    this.volume.push(candle.volume);
    this.sessionVolume.push(candle.sessionVolume);
  }

  /** Drops the oldest candle. */
  dropOldest(): void {
    for (const column of this.columns()) column.shift();
  }

  private columns(): unknown[][] {
    return [this.minute, this.time, this.open, this.high, this.low, this.close, this.volume, this.sessionVolume];
  }
}

/** The New York wall-clock minute of a minute number (minutes since the epoch), `YYYY-MM-DD HH:MM`. */
function minuteLabel(minute: number): string {
  const t = newYorkTime(minute * MINUTE_MS);
  return `${t.date} ${hourMinute(t)}`;
}

/** Every symbol's minute candles of its live session. */
export class MinuteBook {
  private readonly symbols = new Map<string, SessionMinutes>();
  /** The label of the last minute labelled: most ticks of a minute are of the same one, whatever the symbol. */
  private lastMinute = NaN;
  private lastLabel = '';

  /** Keeps at most `max` candles per symbol, the latest. */
  constructor(private readonly max: number = MINUTE_CANDLES_MAX) {}

  /**
   * Takes a tick of `symbol`: its price in cents, the session's volume with it, its time (ms since the epoch),
   * the number of the session it is of (another number than the last starts the candles afresh) and the close
   * that session's change is measured from. A tick of an earlier minute than the last candle's moves the last
   * candle, as it moves the quote; one the quote took as `late` (older than the session's latest tick, a feed's
   * late report) widens the range of its own minute's candle (when kept) and adds its size to the last one's
   * volume, but closes none.
   */
  record(
    symbol: string,
    session: number,
    cents: number,
    sessionVolume: number,
    ts: number,
    prevCloseCents: number,
    late = false,
  ): void {
    let s = this.symbols.get(symbol);
    if (s === undefined) {
      s = new SessionMinutes();
      this.symbols.set(symbol, s);
    }
    if (s.session !== session) this.start(s, session, prevCloseCents, 0);
    const minute = Math.floor(ts / MINUTE_MS);
    const k = s.minute.length - 1;
    if (k >= 0 && (late || minute <= s.minute[k]!)) {
      let j = k;
      if (late) while (j > 0 && s.minute[j]! > minute) j--;
      if (!late || s.minute[j] === minute) {
        if (cents > s.high[j]!) s.high[j] = cents;
        if (cents < s.low[j]!) s.low[j] = cents;
      }
      if (!late) s.close[k] = cents;
      if (sessionVolume > s.sessionVolume[k]!) {
        s.volume[k] = s.volume[k]! + sessionVolume - s.sessionVolume[k]!;
        s.sessionVolume[k] = sessionVolume;
      }
      return;
    }
    if (minute !== this.lastMinute) {
      this.lastMinute = minute;
      this.lastLabel = minuteLabel(minute);
    }
    // A resumed session's volume before the restart is no candle's, though candles kept before it were restored.
    const before = Math.max(k >= 0 ? s.sessionVolume[k]! : 0, s.base);
    const volume = Math.max(0, sessionVolume - before);
    s.push(minute, this.lastLabel, { open: cents, high: cents, low: cents, close: cents, volume, sessionVolume });
    if (s.minute.length > this.max) s.dropOldest();
  }

  /**
   * Starts a symbol's candles of a session whose first `volume` shares traded before them (a session resumed
   * after a restart), with the finished candles the run before kept of it (`kept`, oldest first, those after
   * `MINUTE_CANDLES_MAX` dropped): the next candle's volume is what the session's grew by in its minute.
   */
  begin(
    symbol: string,
    session: number,
    prevCloseCents: number,
    volume: number,
    kept: readonly KeptCandle[] = [],
  ): void {
    let s = this.symbols.get(symbol);
    if (s === undefined) {
      s = new SessionMinutes();
      this.symbols.set(symbol, s);
    }
    this.start(s, session, prevCloseCents, volume);
    for (const candle of kept.slice(-this.max)) s.push(candle.minute, minuteLabel(candle.minute), candle);
  }

  /** Each symbol's last candle's minute (since the epoch). */
  lastMinutes(): Map<string, number> {
    const last = new Map<string, number>();
    for (const [symbol, s] of this.symbols) {
      const minute = s.minute.at(-1);
      if (minute !== undefined) last.set(symbol, minute);
    }
    return last;
  }

  /**
   * Each symbol's finished candles (every one but its last, which a tick may still move) of a minute after
   * `after(symbol)`, oldest first, with the New York date of their session.
   */
  finishedAfter(after: (symbol: string) => number): FinishedCandles[] {
    const finished: FinishedCandles[] = [];
    for (const [symbol, s] of this.symbols) {
      const since = after(symbol);
      let i = s.minute.length - 1;
      while (i > 0 && s.minute[i - 1]! > since) i -= 1;
      if (i >= s.minute.length - 1) continue;
      const candles: KeptCandle[] = [];
      for (let j = i; j < s.minute.length - 1; j++) {
        candles.push({
          minute: s.minute[j]!,
          open: s.open[j]!,
          high: s.high[j]!,
          low: s.low[j]!,
          close: s.close[j]!,
          volume: s.volume[j]!,
          sessionVolume: s.sessionVolume[j]!,
        });
      }
      finished.push({ symbol, date: s.time[i]!.slice(0, 10), candles });
    }
    return finished;
  }

  private start(s: SessionMinutes, session: number, prevCloseCents: number, volume: number): void {
    s.clear();
    s.session = session;
    s.prevCloseCents = prevCloseCents;
    s.base = volume;
  }

  /** A symbol's candles, or undefined when it has had no tick. */
  candles(symbol: string): MinuteCandles | undefined {
    const s = this.symbols.get(symbol);
    if (s === undefined) return undefined;
    return {
      symbol,
      prevClose: s.prevCloseCents > 0 ? s.prevCloseCents / 100 : null,
      candles: s.minute.map((_, i) => ({
        time: s.time[i]!,
        start: new Date(s.minute[i]! * MINUTE_MS).toISOString(),
        open: s.open[i]! / 100,
        high: s.high[i]! / 100,
        low: s.low[i]! / 100,
        close: s.close[i]! / 100,
        volume: s.volume[i]!,
        sessionVolume: s.sessionVolume[i]!,
      })),
    };
  }
}
