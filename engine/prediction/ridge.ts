/**
 * Ridge regression fitted from running sums: rows are added one at a time (an expanding training window), the
 * means and the centred cross-products are updated in place (Welford's update, numerically stable), and a fit
 * standardises the features with the window's own means and deviations, then solves the penalised normal
 * equations `(Zᵀ Z / n + λ I) w = Zᵀ y / n`. The intercept (the mean target) is not penalised.
 */
import { solveSymmetric } from './linalg.ts';

/** A fitted ridge model. */
export interface RidgeFit {
  /** The mean target of the training window (the forecast when every feature is at its mean). */
  readonly intercept: number;
  /** Per feature, the weight per standard deviation of the training window (0 for a constant feature). */
  readonly weights: Float64Array;
  /** Per feature, the training window's mean. */
  readonly means: Float64Array;
  /** Per feature, the training window's standard deviation (0 for a constant feature). */
  readonly scales: Float64Array;
  /** Rows it was fitted on. */
  readonly rows: number;
}

/** A feature whose deviation is below this share of its size counts as constant and gets no weight. */
const CONSTANT_EPSILON = 1e-12;

/** The running sums of an expanding training window. */
export class RidgeAccumulator {
  private count = 0;
  private readonly mean: Float64Array;
  private meanY = 0;
  /** Centred cross-products of the features, upper triangle (row-major, `width × width`). */
  private readonly cross: Float64Array;
  private readonly crossY: Float64Array;
  private readonly delta: Float64Array;

  constructor(
    /** Features per row. */
    readonly width: number,
  ) {
    if (!Number.isSafeInteger(width) || width < 1) throw new RangeError(`width ${width} is not a whole number >= 1`);
    this.mean = new Float64Array(width);
    this.cross = new Float64Array(width * width);
    this.crossY = new Float64Array(width);
    this.delta = new Float64Array(width);
  }

  /** Rows added so far. */
  get rows(): number {
    return this.count;
  }

  /** Adds one training row: its features (read from `offset`) and its target. */
  add(features: ArrayLike<number>, target: number, offset = 0): void {
    const p = this.width;
    this.count += 1;
    const n = this.count;
    const dy = target - this.meanY;
    this.meanY += dy / n;
    const d = this.delta;
    for (let j = 0; j < p; j++) {
      const dj = features[offset + j]! - this.mean[j]!;
      d[j] = dj;
      this.mean[j] = this.mean[j]! + dj / n;
    }
    // C += (n − 1)/n · d dᵀ, with d taken against the means before this row.
    const f = (n - 1) / n;
    for (let j = 0; j < p; j++) {
      const fdj = f * d[j]!;
      if (fdj === 0) continue;
      const row = j * p;
      for (let k = j; k < p; k++) this.cross[row + k] = this.cross[row + k]! + fdj * d[k]!;
      this.crossY[j] = this.crossY[j]! + fdj * dy;
    }
  }

  /**
   * Fits the ridge model to the rows added so far with penalty `lambda` (per sample, on standardised features).
   * Throws `SingularMatrixError` when `lambda` is 0 and the features are collinear.
   */
  fit(lambda: number): RidgeFit {
    const p = this.width;
    const n = this.count;
    if (n < 1) throw new RangeError('no rows to fit');
    const scales = new Float64Array(p);
    const active: number[] = [];
    for (let j = 0; j < p; j++) {
      const sd = Math.sqrt(Math.max(0, this.cross[j * p + j]! / n));
      if (sd > CONSTANT_EPSILON * Math.max(1, Math.abs(this.mean[j]!))) {
        scales[j] = sd;
        active.push(j);
      }
    }
    const weights = new Float64Array(p);
    const q = active.length;
    if (q > 0) {
      const a = new Float64Array(q * q);
      const b = new Float64Array(q);
      for (let r = 0; r < q; r++) {
        const j = active[r]!;
        for (let c = 0; c <= r; c++) {
          const k = active[c]!;
          const value = this.cross[k * p + j]! / (n * scales[j]! * scales[k]!);
          a[r * q + c] = value;
          a[c * q + r] = value;
        }
        a[r * q + r] = a[r * q + r]! + lambda;
        b[r] = this.crossY[j]! / (n * scales[j]!);
      }
      const w = solveSymmetric(a, b, q);
      active.forEach((j, r) => (weights[j] = w[r]!));
    }
    return { intercept: this.meanY, weights, means: Float64Array.from(this.mean), scales, rows: n };
  }
}

/** The forecast of a fitted model for one row of features (read from `offset`). */
export function predictRidge(fit: RidgeFit, features: ArrayLike<number>, offset = 0): number {
  let y = fit.intercept;
  for (let j = 0; j < fit.weights.length; j++) {
    const w = fit.weights[j]!;
    if (w !== 0) y += (w * (features[offset + j]! - fit.means[j]!)) / fit.scales[j]!;
  }
  return y;
}
