/**
 * A process that starts while a session is open (a restart, one more gateway) picks the session up where it
 * stands instead of from its first tick: with a provider configured (`TICK_SOURCE=alpaca`), before its quotes
 * read the bus, it fetches the session's one-minute bars so far from the provider's REST API and plays each
 * into its live quotes as four ticks (open, high, low, close, the minute's volume on the close). The day's open,
 * high, low and volume, the change and the 1D minute candles are then the session's, and the alert engine's
 * volume and change alerts see the day's volume and price. No alert evaluates those ticks: they reach the quotes
 * only, and an alert's first live tick sets its previous value as usual. Between sessions, the finished day's
 * minute candles are fetched instead, for the 1D chart, as a process that ran through that session keeps them.
 */
import { fetchAlpacaMinuteBars, type AlpacaDataOptions, type MinuteBar } from '../marketdata/alpacaBars.ts';
import { isTradingDay, nextTradingDay } from '../marketdata/calendar.ts';
import { ALPACA_SYMBOL_LIMITS } from '../ticks/alpaca.ts';
import { regularMarketClock, regularSession } from '../ticks/marketClock.ts';
import type { Tick } from '../ticks/tick.ts';
import { normaliseSymbols, type SymbolDemand } from '../ticks/providerStream.ts';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import type { LiveQuotes } from './liveQuotes.ts';

const MINUTE_MS = 60_000;

/** How long a start waits for the provider's bars before it goes on without them (ms). */
export const BACKFILL_TIMEOUT_MS = 15_000;

/** What {@link backfillSession} needs. */
export interface SessionBackfillOptions {
  /** The provider's REST API. */
  readonly api: AlpacaDataOptions;
  /** The symbols the stream carries. */
  readonly symbols: readonly string[];
  /** The last day stored (the quotes show its bar until a tick): sessions on or before it are not reopened. */
  readonly after: string;
  /** The clock, in ms (default `Date.now`). */
  readonly now?: () => number;
  /** How long to wait for the bars (default {@link BACKFILL_TIMEOUT_MS}). */
  readonly timeoutMs?: number;
}

/**
 * What a backfill did: the session's date (null when there was none to pick up), whether it is open (its bars
 * played into the quotes) or the finished day the quotes show (its minute candles only), and the symbols and
 * bars taken.
 */
export interface SessionBackfillResult {
  readonly date: string | null;
  readonly open: boolean;
  readonly symbols: number;
  readonly bars: number;
  /** The ticks played into the quotes (an open session's), in order per symbol: the day closer's bars take them. */
  readonly played: readonly Tick[];
}

/** The bars did not arrive in time: the process starts from the next tick, as without a backfill. */
export class BackfillTimeout extends Error {
  override readonly name = 'BackfillTimeout';
}

/** The four ticks a minute bar is played as: open, high, low, then close with the minute's volume, by `end`. */
function ticksOf(symbol: string, bar: MinuteBar, end: number): Tick[] {
  const close = Math.min(bar.t + MINUTE_MS - 1, end);
  return [
    { symbol, price: bar.open, size: 0, ts: bar.t },
    { symbol, price: bar.high, size: 0, ts: Math.min(bar.t + 1, close) },
    { symbol, price: bar.low, size: 0, ts: Math.min(bar.t + 2, close) },
    { symbol, price: bar.close, size: bar.volume, ts: close },
  ];
}

/**
 * Picks up the session the quotes should show: while a session is open, its minute bars so far played into
 * `quotes` (their day's range, volume and change, and the minute candles); between sessions, when the last day
 * stored (`after`) is the one before the next session, that day's minute candles (`recordClosedMinutes`: the
 * quotes keep showing its bar; nothing for quotes that keep no minute candles). Nothing for no symbol, nor after a
 * day missed (not stored). Throws the
 * provider's refusal ({@link ProviderError}) or a {@link BackfillTimeout}, having played nothing: bars that
 * arrive after the timeout are dropped.
 */
export async function backfillSession(
  quotes: LiveQuotes,
  options: SessionBackfillOptions,
): Promise<SessionBackfillResult> {
  const now = options.now ?? Date.now;
  const at = now();
  const next = regularMarketClock(options.after).sessionAt(at);
  const open = at >= next.start && at < next.end;
  const finished = isTradingDay(options.after) ? regularSession(options.after) : null;
  // A finished day is fetched only for minute candles: quotes that keep none (a shared engine's) need nothing.
  const session = open
    ? next
    : quotes.keepsMinutes && finished !== null && finished.end <= at && nextTradingDay(finished.date) === next.date
      ? finished
      : null;
  if (session === null || options.symbols.length === 0) {
    return { date: null, open: false, symbols: 0, bars: 0, played: [] };
  }
  const end = open ? at + 1 : session.end;
  let timer: NodeJS.Timeout | undefined;
  const timeoutMs = options.timeoutMs ?? BACKFILL_TIMEOUT_MS;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new BackfillTimeout(`the provider's minute bars did not arrive within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  let bars: Map<string, MinuteBar[]>;
  try {
    bars = await Promise.race([
      fetchAlpacaMinuteBars(options.api, { symbols: options.symbols, start: session.start, end, now }),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
  let symbols = 0;
  let taken = 0;
  const played: Tick[] = [];
  for (const [symbol, list] of bars) {
    if (list.length === 0) continue;
    const ticks = list.flatMap((bar) => ticksOf(symbol, bar, end - 1));
    if (open) {
      quotes.apply(ticks);
      played.push(...ticks);
    } else if (!quotes.recordClosedMinutes(symbol, ticks)) {
      continue;
    }
    symbols += 1;
    taken += list.length;
  }
  return { date: session.date, open, symbols, bars: taken, played };
}

/**
 * With `TICK_SOURCE=alpaca`, picks up the session (see {@link backfillSession}) for the symbols `demand` names
 * that the stream carries (the first in alphabetical order, up to the plan's limit), `after` the last stored day; logs what it did, or why it could not (the process then starts from the next
 * tick). Answers the ticks played into the quotes (none without a provider, between sessions, or on a failure);
 * `now` is the clock (default `Date.now`).
 */
export async function pickUpSession(
  config: Pick<Config, 'alpaca' | 'alpacaDataUrl'>,
  quotes: LiveQuotes,
  demand: SymbolDemand,
  after: string,
  logger: Logger,
  now: () => number = Date.now,
): Promise<readonly Tick[]> {
  if (config.alpaca === null) return [];
  const { keyId, secretKey, feed } = config.alpaca;
  try {
    // The stream carries the first ones in alphabetical order up to the plan's limit: those only.
    const symbols = [...normaliseSymbols(await demand.symbols())].sort().slice(0, ALPACA_SYMBOL_LIMITS[feed]);
    const result = await backfillSession(quotes, {
      api: { keyId, secretKey, feed, baseUrl: config.alpacaDataUrl },
      symbols,
      after,
      now,
    });
    if (result.date !== null) {
      const { played, ...figures } = result;
      const what = result.open ? 'session' : 'minute candles';
      logger.info(figures, `${what} of ${result.date} picked up from the provider's minute bars`);
      return played;
    }
  } catch (error) {
    logger.warn({ err: error }, 'the session so far was not picked up: the quotes start from the next tick');
  }
  return [];
}
