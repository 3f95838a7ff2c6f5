/**
 * Correlation of stocks: daily returns over the last `dur` trading days the stocks share, their Pearson
 * correlation matrix, and groups of mutually correlated stocks found by average-linkage clustering.
 */
import { DomainError } from '../../domain/decider.ts';
import { type DailyBar } from '../../domain/market/types.ts';

/** Average correlation two groups must reach to be merged, by default. */
export const DEFAULT_GROUP_THRESHOLD = 0.6;

/** One symbol's daily history, oldest first. */
export interface SymbolHistory {
  /** Ticker. */
  readonly symbol: string;
  /** Daily bars, oldest first. */
  readonly bars: readonly Pick<DailyBar, 'date' | 'close'>[];
}

/** Daily returns of several symbols on the same trading days. */
export interface AlignedReturns {
  /** The symbols, in the order given. */
  readonly symbols: readonly string[];
  /** The day each return ends on, oldest first (one fewer than the closes used). */
  readonly dates: readonly string[];
  /** Per symbol, the simple daily returns `close[t] / close[t−1] − 1` on those days. */
  readonly returns: readonly Float64Array[];
}

/** A correlation matrix: `values[i][j]` is the correlation of `symbols[i]` and `symbols[j]`. */
export interface CorrelationMatrix {
  /** The symbols, in the order given. */
  readonly symbols: readonly string[];
  /** Pearson correlations in [−1, 1]; 1 on the diagonal; 0 beside a series without variance. */
  readonly values: number[][];
}

/** A member of a correlation group with its average correlation to the other members. */
export interface GroupMember {
  /** Ticker. */
  readonly stock: string;
  /** Mean correlation with the other members of its group (0 for a group of one). */
  readonly value: number;
}

function checkDuration(dur: number): void {
  if (!Number.isInteger(dur) || dur < 2) {
    throw new DomainError('invalid_duration', `dur must be a whole number of trading days from 2, got ${dur}`, 'dur');
  }
}

/**
 * Aligns the histories on the trading days all of them have, takes the last `dur + 1` of those closes and turns
 * them into `dur` daily returns per symbol (fewer when the shared history is shorter).
 */
export function alignReturns(histories: readonly SymbolHistory[], dur: number): AlignedReturns {
  checkDuration(dur);
  const seen = new Set<string>();
  for (const { symbol } of histories) {
    if (seen.has(symbol)) throw new DomainError('duplicate_symbol', `stks names ${symbol} twice`, 'stks');
    seen.add(symbol);
  }
  const closesByDate = histories.map(({ bars }) => new Map(bars.map((bar) => [bar.date, bar.close])));
  const [first, ...rest] = closesByDate;
  const shared = first === undefined ? [] : [...first.keys()].filter((date) => rest.every((map) => map.has(date)));
  shared.sort();
  const dates = shared.slice(-(dur + 1));
  const returns = closesByDate.map((map) => {
    const closes = dates.map((date) => map.get(date) ?? Number.NaN);
    const out = new Float64Array(Math.max(0, closes.length - 1));
    for (let t = 1; t < closes.length; t += 1)
      out[t - 1] = (closes[t] ?? Number.NaN) / (closes[t - 1] ?? Number.NaN) - 1;
    return out;
  });
  return { symbols: histories.map((h) => h.symbol), dates: dates.slice(1), returns };
}

/** Centres a series and scales it to unit length, so a dot product of two is their correlation; `null` without variance. */
function standardise(series: Float64Array): Float64Array | null {
  const n = series.length;
  if (n < 2) return null;
  let mean = 0;
  for (let t = 0; t < n; t += 1) mean += series[t] as number;
  mean /= n;
  const z = new Float64Array(n);
  let norm = 0;
  for (let t = 0; t < n; t += 1) {
    const d = (series[t] as number) - mean;
    z[t] = d;
    norm += d * d;
  }
  if (!(norm > 0) || !Number.isFinite(norm)) return null;
  const scale = 1 / Math.sqrt(norm);
  for (let t = 0; t < n; t += 1) z[t] = (z[t] as number) * scale;
  return z;
}

const clamp = (r: number): number => (r > 1 ? 1 : r < -1 ? -1 : r);

/** The Pearson correlation matrix of aligned returns: each series standardised once, then one dot product per pair. */
export function correlationMatrix(aligned: AlignedReturns): CorrelationMatrix {
  const z = aligned.returns.map(standardise);
  const n = z.length;
  const values = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i += 1) {
    (values[i] as number[])[i] = 1;
    const a = z[i];
    if (a === null || a === undefined) continue;
    for (let j = i + 1; j < n; j += 1) {
      const b = z[j];
      if (b === null || b === undefined) continue;
      let dot = 0;
      for (let t = 0; t < a.length; t += 1) dot += (a[t] as number) * (b[t] as number);
      const r = clamp(dot);
      (values[i] as number[])[j] = r;
      (values[j] as number[])[i] = r;
    }
  }
  return { symbols: aligned.symbols, values };
}

/** The correlation of two series computed from scratch: means, deviations and norms of this pair alone. */
function pairCorrelation(x: Float64Array, y: Float64Array): number {
  const n = x.length;
  if (n < 2) return 0;
  let mx = 0;
  let my = 0;
  for (let t = 0; t < n; t += 1) {
    mx += x[t] as number;
    my += y[t] as number;
  }
  mx /= n;
  my /= n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let t = 0; t < n; t += 1) {
    const dx = (x[t] as number) - mx;
    const dy = (y[t] as number) - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  const denominator = Math.sqrt(sxx * syy);
  return denominator > 0 && Number.isFinite(denominator) ? clamp(sxy / denominator) : 0;
}

/** The baseline for benchmarks: the same matrix, with means and deviations recomputed for every pair. */
export function naiveCorrelationMatrix(aligned: AlignedReturns): CorrelationMatrix {
  const n = aligned.returns.length;
  const values = Array.from({ length: n }, (_, i) =>
    Array.from({ length: n }, (_, j) =>
      i === j ? 1 : pairCorrelation(aligned.returns[i] as Float64Array, aligned.returns[j] as Float64Array),
    ),
  );
  return { symbols: aligned.symbols, values };
}

/**
 * Groups of mutually correlated stocks by average linkage: starting from one group per stock, the two groups
 * with the highest average pairwise correlation are merged while that average is at least `threshold`. Each
 * member carries its mean correlation to the other members of its group. Groups of two or more come first, the
 * most cohesive (highest mean member value) first; the stocks left alone follow as groups of one with value 0, in
 * the order given. Members are listed by value, highest first, ties in the order given.
 */
export function correlationGroups(matrix: CorrelationMatrix, threshold = DEFAULT_GROUP_THRESHOLD): GroupMember[][] {
  const n = matrix.symbols.length;
  const corr = (i: number, j: number): number => matrix.values[i]?.[j] ?? 0;
  // Each cluster is a list of indices; `sums[a][b]` is the sum of correlations across clusters a and b.
  const clusters: (number[] | null)[] = Array.from({ length: n }, (_, i) => [i]);
  const sums = Array.from({ length: n }, (_, i) => Float64Array.from({ length: n }, (_, j) => corr(i, j)));
  for (;;) {
    let best = -Infinity;
    let bestA = -1;
    let bestB = -1;
    for (let a = 0; a < n; a += 1) {
      const ca = clusters[a];
      if (!ca) continue;
      for (let b = a + 1; b < n; b += 1) {
        const cb = clusters[b];
        if (!cb) continue;
        const average = ((sums[a] as Float64Array)[b] as number) / (ca.length * cb.length);
        if (average > best) {
          best = average;
          bestA = a;
          bestB = b;
        }
      }
    }
    if (bestA < 0 || best < threshold) break;
    const merged = [...(clusters[bestA] as number[]), ...(clusters[bestB] as number[])];
    clusters[bestA] = merged;
    clusters[bestB] = null;
    for (let c = 0; c < n; c += 1) {
      if (!clusters[c] || c === bestA) continue;
      const total = ((sums[bestA] as Float64Array)[c] as number) + ((sums[bestB] as Float64Array)[c] as number);
      (sums[bestA] as Float64Array)[c] = total;
      (sums[c] as Float64Array)[bestA] = total;
    }
  }
  const groups = clusters
    .filter((members): members is number[] => members !== null)
    .map((members) => {
      members.sort((x, y) => x - y);
      const scored = members.map((i) => {
        if (members.length === 1) return { i, value: 0 };
        let total = 0;
        for (const j of members) if (j !== i) total += corr(i, j);
        return { i, value: total / (members.length - 1) };
      });
      scored.sort((x, y) => y.value - x.value || x.i - y.i);
      const cohesion = scored.reduce((sum, m) => sum + m.value, 0) / scored.length;
      return { first: members[0] ?? 0, size: members.length, cohesion, scored };
    });
  groups.sort((x, y) => {
    const xAlone = x.size === 1;
    const yAlone = y.size === 1;
    if (xAlone !== yAlone) return xAlone ? 1 : -1;
    return xAlone ? x.first - y.first : y.cohesion - x.cohesion || x.first - y.first;
  });
  return groups.map((group) => group.scored.map(({ i, value }) => ({ stock: matrix.symbols[i] ?? '', value })));
}
