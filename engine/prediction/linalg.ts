/**
 * The small dense linear algebra the forecasting models need: solving `A x = b` for a square system stored row
 * by row in a `Float64Array`, by Cholesky factorisation when `A` is symmetric positive definite (the ridge normal
 * equations with a penalty above 0) and by Gaussian elimination with partial pivoting otherwise.
 */

/** A system that has no unique solution (a pivot vanished). */
export class SingularMatrixError extends Error {
  override readonly name = 'SingularMatrixError';
}

/** Relative size below which a pivot counts as zero. */
const PIVOT_EPSILON = 1e-12;

function checkShape(a: ArrayLike<number>, b: ArrayLike<number>, n: number): void {
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`size ${n} is not a whole number >= 1`);
  if (a.length !== n * n) throw new RangeError(`matrix has ${a.length} entries, expected ${n * n}`);
  if (b.length !== n) throw new RangeError(`right-hand side has ${b.length} entries, expected ${n}`);
}

function largestDiagonal(a: ArrayLike<number>, n: number): number {
  let max = 0;
  for (let i = 0; i < n; i++) max = Math.max(max, Math.abs(a[i * n + i]!));
  return max;
}

/**
 * Solves `A x = b` for a symmetric positive definite `A` (row-major, `n × n`) by Cholesky factorisation
 * `A = L Lᵀ`; only the lower triangle of `A` is read. Throws {@link SingularMatrixError} when `A` is not
 * (numerically) positive definite. `A` and `b` are left unchanged.
 */
export function choleskySolve(a: ArrayLike<number>, b: ArrayLike<number>, n: number): Float64Array {
  checkShape(a, b, n);
  const l = new Float64Array(n * n);
  const tolerance = PIVOT_EPSILON * Math.max(largestDiagonal(a, n), Number.MIN_VALUE);
  for (let j = 0; j < n; j++) {
    const rowJ = j * n;
    let diagonal = a[rowJ + j]!;
    for (let k = 0; k < j; k++) diagonal -= l[rowJ + k]! * l[rowJ + k]!;
    if (!(diagonal > tolerance)) throw new SingularMatrixError(`matrix is not positive definite (pivot ${j})`);
    const ljj = Math.sqrt(diagonal);
    l[rowJ + j] = ljj;
    const inverse = 1 / ljj;
    for (let i = j + 1; i < n; i++) {
      const rowI = i * n;
      // Two running sums halve the dependency chain of the dot product (about a third faster on n = 133).
      let even = a[rowI + j]!;
      let odd = 0;
      let k = 0;
      for (; k + 1 < j; k += 2) {
        even -= l[rowI + k]! * l[rowJ + k]!;
        odd -= l[rowI + k + 1]! * l[rowJ + k + 1]!;
      }
      if (k < j) even -= l[rowI + k]! * l[rowJ + k]!;
      l[rowI + j] = (even + odd) * inverse;
    }
  }
  // Forward substitution L y = b, then back substitution Lᵀ x = y, in place.
  const x = Float64Array.from(b);
  for (let i = 0; i < n; i++) {
    let sum = x[i]!;
    for (let k = 0; k < i; k++) sum -= l[i * n + k]! * x[k]!;
    x[i] = sum / l[i * n + i]!;
  }
  for (let i = n - 1; i >= 0; i--) {
    let sum = x[i]!;
    for (let k = i + 1; k < n; k++) sum -= l[k * n + i]! * x[k]!;
    x[i] = sum / l[i * n + i]!;
  }
  return x;
}

/**
 * Solves `A x = b` for any non-singular `A` (row-major, `n × n`) by Gaussian elimination with partial pivoting
 * (at each column the row with the largest entry becomes the pivot row). Throws {@link SingularMatrixError}
 * when a pivot vanishes. `A` and `b` are left unchanged.
 */
export function gaussianSolve(a: ArrayLike<number>, b: ArrayLike<number>, n: number): Float64Array {
  checkShape(a, b, n);
  const m = Float64Array.from(a);
  const x = Float64Array.from(b);
  let scale = 0;
  for (let i = 0; i < n * n; i++) scale = Math.max(scale, Math.abs(m[i]!));
  const tolerance = PIVOT_EPSILON * Math.max(scale, Number.MIN_VALUE);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let row = col + 1; row < n; row++) {
      if (Math.abs(m[row * n + col]!) > Math.abs(m[pivot * n + col]!)) pivot = row;
    }
    if (!(Math.abs(m[pivot * n + col]!) > tolerance)) {
      throw new SingularMatrixError(`matrix is singular (column ${col})`);
    }
    if (pivot !== col) {
      for (let k = 0; k < n; k++) {
        const t = m[col * n + k]!;
        m[col * n + k] = m[pivot * n + k]!;
        m[pivot * n + k] = t;
      }
      const t = x[col]!;
      x[col] = x[pivot]!;
      x[pivot] = t;
    }
    const p = m[col * n + col]!;
    for (let row = col + 1; row < n; row++) {
      const factor = m[row * n + col]! / p;
      if (factor === 0) continue;
      for (let k = col; k < n; k++) m[row * n + k] = m[row * n + k]! - factor * m[col * n + k]!;
      x[row] = x[row]! - factor * x[col]!;
    }
  }
  for (let i = n - 1; i >= 0; i--) {
    let sum = x[i]!;
    for (let k = i + 1; k < n; k++) sum -= m[i * n + k]! * x[k]!;
    x[i] = sum / m[i * n + i]!;
  }
  return x;
}

/**
 * Solves a symmetric system `A x = b`: by Cholesky, falling back to Gaussian elimination with partial pivoting
 * when `A` is not positive definite; throws {@link SingularMatrixError} when neither succeeds.
 */
export function solveSymmetric(a: ArrayLike<number>, b: ArrayLike<number>, n: number): Float64Array {
  try {
    return choleskySolve(a, b, n);
  } catch (error) {
    if (!(error instanceof SingularMatrixError)) throw error;
    return gaussianSolve(a, b, n);
  }
}
