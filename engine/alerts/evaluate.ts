/**
 * The per-tick work of the engine, on its own so the benchmark measures exactly what the engine runs: apply
 * the tick to the quotes, then evaluate the symbol's forming bar against the index; and at a day's close, the
 * closing bars against the index of the alerts evaluated only then.
 */
import type { AlertFrequency } from '../../domain/alerts/conditions.ts';
import { closeInstant } from '../market/series.ts';
import type { LiveQuotes, PriceMove } from '../quotes/liveQuotes.ts';
import { priceCents, type ClosedDay, type Tick } from '../ticks/tick.ts';
import type { AlertIndex, ArmedAlert } from './alertIndex.ts';
import type { TradingDays } from './tradingDay.ts';

/**
 * Called for each alert a tick fires, with the tick and its price in cents; for a closing bar, with a tick at
 * the close and the bar's volume and previous close (the symbol's quote is the forming bar's until it rolls).
 */
export type FireHandler = (
  alert: ArmedAlert,
  tick: Tick,
  cents: number,
  bar?: Pick<PriceMove, 'volume' | 'prevCloseCents'>,
) => void;

/**
 * Whether alerts of a frequency are evaluated on the day's closing bar only (`once_per_bar_close`): the engine
 * keeps them in an index of their own, which no tick reads.
 */
export function atCloseOnly(frequency: AlertFrequency): boolean {
  return frequency === 'once_per_bar_close';
}

/**
 * Applies each tick to the quotes and evaluates it against the index on the tick's trading day (a tick reported
 * late, older than its symbol's latest of the session, is evaluated by no alert); calls `onFire` for every alert
 * fired (`once` alerts already out of the index). `scratch` is a reusable empty array, so a
 * tick that fires nothing allocates nothing.
 */
export function evaluateTicks(
  ticks: readonly Tick[],
  quotes: LiveQuotes,
  index: AlertIndex,
  days: TradingDays,
  onFire: FireHandler,
  scratch: ArmedAlert[] = [],
): void {
  for (let t = 0; t < ticks.length; t++) {
    const tick = ticks[t]!;
    const move = quotes.applyTick(tick);
    // A tick reported late moves no price: nothing to evaluate, and its time is not the trading day's.
    if (move.ts !== tick.ts) continue;
    const day = days.of(tick.ts);
    if (index.evaluate(tick.symbol, move.cents, move.volume, move.prevCloseCents, day, scratch) > 0) {
      for (let i = 0; i < scratch.length; i++) onFire(scratch[i]!, tick, move.cents);
      scratch.length = 0;
    }
  }
}

/**
 * Evaluates the latest price of each of `symbols` in these quotes, as they took it back from the last run (a restart
 * in the middle of a session), against `index` as the symbols' first tick since it was armed: what the alerts armed
 * before the restart are measured from, so that a crossing from it on the next tick fires as it would have without
 * the restart, and a level condition that holds at it fires now. `onFire` gets a tick at `ts` of that price.
 */
export function evaluateLatest(
  symbols: Iterable<string>,
  quotes: LiveQuotes,
  index: AlertIndex,
  days: TradingDays,
  onFire: FireHandler,
  ts: number,
  scratch: ArmedAlert[] = [],
): void {
  const day = days.of(ts);
  try {
    for (const symbol of symbols) {
      const move = quotes.move(symbol);
      if (move === undefined || Number.isNaN(move.cents)) continue;
      if (index.evaluate(symbol, move.cents, move.volume, move.prevCloseCents, day, scratch) > 0) {
        const tick: Tick = { symbol, price: move.cents / 100, size: 0, ts };
        for (let i = 0; i < scratch.length; i++) onFire(scratch[i]!, tick, move.cents);
      }
      scratch.length = 0;
    }
  } finally {
    scratch.length = 0;
  }
}

/**
 * Evaluates each symbol's closing bar of `day` against `index` (the alerts evaluated at the close only), before
 * the quotes roll: its close in cents, its volume, and the previous close of the symbol's quote. Calls `onFire`
 * for every alert fired, with a tick at the close instant and the bar.
 */
export function evaluateClose(
  day: ClosedDay,
  quotes: LiveQuotes,
  index: AlertIndex,
  onFire: FireHandler,
  scratch: ArmedAlert[] = [],
): void {
  if (index.size === 0) return;
  const ts = Date.parse(closeInstant(day.date));
  try {
    for (const bar of day.bars) {
      const cents = priceCents(bar.close);
      const prevCloseCents = quotes.move(bar.symbol)?.prevCloseCents ?? NaN;
      if (index.evaluate(bar.symbol, cents, bar.volume, prevCloseCents, day.date, scratch) > 0) {
        const tick: Tick = { symbol: bar.symbol, price: bar.close, size: 0, ts };
        const closing = { volume: bar.volume, prevCloseCents };
        for (let i = 0; i < scratch.length; i++) onFire(scratch[i]!, tick, cents, closing);
      }
      scratch.length = 0;
    }
  } finally {
    scratch.length = 0;
  }
}
