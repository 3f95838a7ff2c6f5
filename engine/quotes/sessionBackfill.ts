/**
 * A process that starts while a session is open (a restart, one more gateway) picks the session up where it
 * stands instead of from its first tick: with a provider configured (`TICK_SOURCE=alpaca`), before its quotes
 * read the bus, it fetches the session's one-minute bars so far from the provider's REST API and plays each
 * into its live quotes as four ticks (open, high, low, close, the minute's volume on the close). The day's open,
 * high, low and volume, the change and the 1D minute candles are then the session's, and the alert engine's
 * volume and change alerts see the day's volume and price. No alert evaluates those ticks: they reach the quotes
 * only, and an alert's first live tick sets its previous value as usual.
 */
import { fetchAlpacaMinuteBars, type AlpacaDataOptions, type MinuteBar } from '../marketdata/alpacaBars.ts';
import { regularMarketClock, type MarketClock } from '../ticks/marketClock.ts';
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
  /** The trading sessions (New York hours, after the last stored day). */
  readonly sessions: MarketClock;
  /** The clock, in ms (default `Date.now`). */
  readonly now?: () => number;
  /** How long to wait for the bars (default {@link BACKFILL_TIMEOUT_MS}). */
  readonly timeoutMs?: number;
}

/** What a backfill did: the session's date (null when none was open), and the symbols and bars played. */
export interface SessionBackfillResult {
  readonly date: string | null;
  readonly symbols: number;
  readonly bars: number;
}

/** The bars did not arrive in time: the process starts from the next tick, as without a backfill. */
export class BackfillTimeout extends Error {
  override readonly name = 'BackfillTimeout';
}

/**
 * Plays the open session's minute bars so far into `quotes`; nothing when no session is open or no symbol is
 * carried. Throws the provider's refusal ({@link ProviderError}) or a {@link BackfillTimeout}, having played
 * nothing: bars that arrive after the timeout are dropped.
 */
export async function backfillSession(
  quotes: LiveQuotes,
  options: SessionBackfillOptions,
): Promise<SessionBackfillResult> {
  const now = options.now ?? Date.now;
  const at = now();
  const session = options.sessions.sessionAt(at);
  if (at < session.start || at >= session.end || options.symbols.length === 0) {
    return { date: null, symbols: 0, bars: 0 };
  }
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
      fetchAlpacaMinuteBars(options.api, { symbols: options.symbols, start: session.start, end: at + 1, now }),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
  let symbols = 0;
  let played = 0;
  for (const [symbol, list] of bars) {
    if (list.length === 0) continue;
    symbols += 1;
    played += list.length;
    for (const bar of list) {
      const close = Math.min(bar.t + MINUTE_MS - 1, at);
      quotes.applyTick({ symbol, price: bar.open, size: 0, ts: bar.t });
      quotes.applyTick({ symbol, price: bar.high, size: 0, ts: Math.min(bar.t + 1, close) });
      quotes.applyTick({ symbol, price: bar.low, size: 0, ts: Math.min(bar.t + 2, close) });
      quotes.applyTick({ symbol, price: bar.close, size: bar.volume, ts: close });
    }
  }
  return { date: session.date, symbols, bars: played };
}

/**
 * With `TICK_SOURCE=alpaca`, plays the open session so far into `quotes` (see {@link backfillSession}) for the
 * symbols `demand` names, the sessions those after `after` (the last stored day); logs what it did, or why it
 * could not (the process then starts from the next tick). Without a provider, nothing.
 */
export async function pickUpSession(
  config: Pick<Config, 'alpaca' | 'alpacaDataUrl'>,
  quotes: LiveQuotes,
  demand: SymbolDemand,
  after: string,
  logger: Logger,
): Promise<void> {
  if (config.alpaca === null) return;
  const { keyId, secretKey, feed } = config.alpaca;
  try {
    const symbols = [...normaliseSymbols(await demand.symbols())].sort();
    const result = await backfillSession(quotes, {
      api: { keyId, secretKey, feed, baseUrl: config.alpacaDataUrl },
      symbols,
      sessions: regularMarketClock(after),
    });
    if (result.date !== null)
      logger.info(result, `session of ${result.date} picked up from the provider's minute bars`);
  } catch (error) {
    logger.warn({ err: error }, 'the session so far was not picked up: the quotes start from the next tick');
  }
}
