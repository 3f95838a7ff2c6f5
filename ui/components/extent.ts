/** The lowest and highest finite values of a chart's series, which its axes are fitted to. */

/** The lowest and highest of the finite values (NaN and infinities left out), or null when there is none. */
export function finiteExtent(values: Iterable<number>): { lo: number; hi: number } | null {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (!Number.isFinite(v)) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return lo > hi ? null : { lo, hi };
}
