/**
 * Moving averages and RSI at a live price, today's price counted as the alerts count it (the engine's SMA and RSI
 * sources): what the price chart's forming candle and a dashboard card show.
 */
import type { NextAverages } from '../../domain/contract/market.ts';
import { formingRsi } from '../../domain/market/rsi.ts';
import { RSI_PERIOD, type SmaPeriod } from '../../domain/screener/query.ts';

/** A daily bar's date, close and (some of) its moving averages, as `GET /api/bars/{symbol}` answers them. */
export type AveragedBar = { readonly date: string; readonly close: number } & Partial<
  Readonly<Record<`SMA_${SmaPeriod}`, number | null>>
>;

/**
 * The `period` average at `price` on trading day `day`: on the last bar's day, its average moved by the change
 * of its close over the period; on a later day, from `next`, the sums of the last closes the bars end with
 * (null when they end with another bar, or the history is too short).
 */
export function liveAverage(
  period: SmaPeriod,
  last: AveragedBar,
  day: string,
  price: number,
  next: NextAverages | null,
): number | null {
  const key = `SMA_${period}` as const;
  if (day === last.date) {
    const average = last[key];
    return average === null || average === undefined ? null : average + (price - last.close) / period;
  }
  const sum = next !== null && next.after === last.date ? next[key] : null;
  return sum === null ? null : (sum + price) / period;
}

/**
 * RSI 14 of a forming bar at `price`: from `next`'s average gain and loss as of the last stored close `base` (the
 * close of `next.after`), smoothed by today's change as the alerts' `rsi:14` source does; null without them.
 */
export function liveRsi(base: AveragedBar, price: number, next: NextAverages | null): number | null {
  if (next === null || next.rsi_14 === null || next.after !== base.date) return null;
  return formingRsi(next.rsi_14.gain, next.rsi_14.loss, price - base.close, RSI_PERIOD);
}
