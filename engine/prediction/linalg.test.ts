import { expect } from 'chai';
import { choleskySolve, gaussianSolve, SingularMatrixError, solveSymmetric } from './linalg.ts';

function multiply(a: readonly number[], x: readonly number[]): number[] {
  const n = x.length;
  return Array.from({ length: n }, (_, i) => x.reduce((sum, xj, j) => sum + a[i * n + j]! * xj, 0));
}

function expectClose(actual: ArrayLike<number>, expected: readonly number[], tolerance = 1e-10): void {
  expect(actual.length).to.equal(expected.length);
  expected.forEach((value, i) => expect(actual[i]).to.be.closeTo(value, tolerance, `x[${i}]`));
}

// The textbook positive definite matrix whose Cholesky factor is [[2,0,0],[6,1,0],[-8,5,3]].
const SPD = [4, 12, -16, 12, 37, -43, -16, -43, 98];

describe('linear algebra of the forecasting models', () => {
  describe('Cholesky', () => {
    it('solves a known positive definite system', () => {
      const x = [1, -2, 3];
      expectClose(choleskySolve(SPD, multiply(SPD, x), 3), x);
    });

    it('reads only the lower triangle', () => {
      const upperSpoiled = [4, 99, 99, 12, 37, 99, -16, -43, 98];
      expectClose(choleskySolve(upperSpoiled, multiply(SPD, [1, 1, 1]), 3), [1, 1, 1]);
    });

    it('refuses a matrix that is not positive definite', () => {
      expect(() => choleskySolve([0, 1, 1, 0], [1, 1], 2)).to.throw(SingularMatrixError);
      expect(() => choleskySolve([1, 2, 2, 4], [1, 2], 2)).to.throw(SingularMatrixError);
    });

    it('leaves its inputs unchanged', () => {
      const a = Float64Array.from(SPD);
      const b = Float64Array.from([1, 2, 3]);
      choleskySolve(a, b, 3);
      expect([...a]).to.deep.equal(SPD);
      expect([...b]).to.deep.equal([1, 2, 3]);
    });
  });

  describe('Gaussian elimination with partial pivoting', () => {
    it('solves a system whose first pivot is zero', () => {
      const a = [0, 2, 1, 1, 1, 1, 2, 1, 0];
      const x = [3, -1, 2];
      expectClose(gaussianSolve(a, multiply(a, x), 3), x);
    });

    it('picks the largest pivot, so a tiny leading entry does not ruin the answer', () => {
      // Without pivoting, 1e-20 as the first pivot loses the second equation entirely.
      const a = [1e-20, 1, 1, 1];
      expectClose(gaussianSolve(a, [1, 2], 2), [1, 1], 1e-12);
    });

    it('solves a larger known system', () => {
      const n = 6;
      const a = Array.from({ length: n * n }, (_, k) => 1 / (1 + Math.abs(Math.floor(k / n) - (k % n))) + (k % 7));
      const x = [1, 2, 3, 4, 5, 6];
      expectClose(gaussianSolve(a, multiply(a, x), n), x, 1e-9);
    });

    it('refuses a singular matrix', () => {
      expect(() => gaussianSolve([1, 2, 2, 4], [1, 2], 2)).to.throw(SingularMatrixError);
      expect(() => gaussianSolve([0, 0, 0, 0], [0, 0], 2)).to.throw(SingularMatrixError);
    });
  });

  describe('symmetric systems', () => {
    it('agrees with both methods on a positive definite system', () => {
      const b = [2, -1, 5];
      expectClose(solveSymmetric(SPD, b, 3), [...gaussianSolve(SPD, b, 3)]);
    });

    it('falls back to elimination for a symmetric indefinite system', () => {
      expectClose(solveSymmetric([0, 1, 1, 0], [3, 4], 2), [4, 3]);
    });

    it('refuses a singular symmetric system', () => {
      expect(() => solveSymmetric([1, 1, 1, 1], [1, 1], 2)).to.throw(SingularMatrixError);
    });
  });

  it('refuses shapes that do not match', () => {
    expect(() => choleskySolve([1, 0, 0, 1], [1], 2)).to.throw(RangeError);
    expect(() => gaussianSolve([1, 0, 0], [1, 1], 2)).to.throw(RangeError);
    expect(() => gaussianSolve([], [], 0)).to.throw(RangeError);
  });
});
