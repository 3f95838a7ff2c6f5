/**
 * The per-tick work of the engine, on its own so the benchmark measures exactly what the engine runs: apply
 * the tick to the quotes, then evaluate the symbol's forming bar against the index.
 */
import type { LiveQuotes } from '../quotes/liveQuotes.ts';
import type { Tick } from '../ticks/tick.ts';
import type { AlertIndex, ArmedAlert } from './alertIndex.ts';
import type { TradingDays } from './tradingDay.ts';

/** Called for each alert a tick fires, with the tick and its price in cents. */
export type FireHandler = (alert: ArmedAlert, tick: Tick, cents: number) => void;

/**
 * Applies each tick to the quotes and evaluates it against the index on the tick's trading day; calls `onFire`
 * for every alert fired (`once` alerts already out of the index). `scratch` is a reusable empty array, so a
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
    const day = days.of(tick.ts);
    if (index.evaluate(tick.symbol, move.cents, move.volume, move.prevCloseCents, day, scratch) > 0) {
      for (let i = 0; i < scratch.length; i++) onFire(scratch[i]!, tick, move.cents);
      scratch.length = 0;
    }
  }
}
