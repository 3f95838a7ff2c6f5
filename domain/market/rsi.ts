/**
 * Wilder's RSI, as the alert engine's `rsi:14` source and the price chart compute it: the averages of the gains
 * and losses of the closes, smoothed over the period, and the RSI of a forming bar at a live price.
 */

/** Wilder's RSI from an average gain and loss: 50 when both are zero (a flat price), 100 when only the loss is. */
export function rsiOf(gain: number, loss: number): number {
  if (loss === 0) return gain === 0 ? 50 : 100;
  return 100 - 100 / (1 + gain / loss);
}

/** Wilder's average gain and loss over `closes[0..end)`, or NaNs when fewer than `period + 1`. */
export function wilderAverages(closes: ArrayLike<number>, period: number, end: number): [number, number] {
  if (end < period + 1) return [NaN, NaN];
  let gain = 0;
  let loss = 0;
  for (let i = 1; i <= period; i++) {
    const change = closes[i]! - closes[i - 1]!;
    if (change > 0) gain += change;
    else loss -= change;
  }
  gain /= period;
  loss /= period;
  for (let i = period + 1; i < end; i++) {
    const change = closes[i]! - closes[i - 1]!;
    gain = (gain * (period - 1) + (change > 0 ? change : 0)) / period;
    loss = (loss * (period - 1) + (change < 0 ? -change : 0)) / period;
  }
  return [gain, loss];
}

/** The RSI of a forming bar `change` from the last close, from the averages `gain` and `loss` as of that close. */
export function formingRsi(gain: number, loss: number, change: number, period: number): number {
  return rsiOf(
    (gain * (period - 1) + (change > 0 ? change : 0)) / period,
    (loss * (period - 1) + (change < 0 ? -change : 0)) / period,
  );
}
