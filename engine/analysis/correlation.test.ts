import { expect } from 'chai';
import { DomainError } from '../../domain/decider.ts';
import {
  alignReturns,
  correlationGroups,
  correlationMatrix,
  naiveCorrelationMatrix,
  type CorrelationMatrix,
  type SymbolHistory,
} from './correlation.ts';

const day = (k: number): string => new Date(Date.UTC(2024, 0, 1 + k)).toISOString().slice(0, 10);

/** A history whose daily returns are exactly the ones given, starting from a close of 100. */
function fromReturns(symbol: string, returns: readonly number[], firstDay = 0): SymbolHistory {
  const closes = returns.reduce<number[]>((acc, r) => [...acc, (acc.at(-1) ?? 100) * (1 + r)], [100]);
  return { symbol, bars: closes.map((close, k) => ({ date: day(firstDay + k), close })) };
}

/** Two return series orthogonal after centring (both have mean zero): correlation exactly 0. */
const A = [0.01, -0.01, 0.01, -0.01, 0.01, -0.01, 0.01, -0.01];
const B = [0.01, 0.01, -0.01, -0.01, 0.01, 0.01, -0.01, -0.01];

function matrixOf(histories: SymbolHistory[], dur = 8): CorrelationMatrix {
  return correlationMatrix(alignReturns(histories, dur));
}

describe('correlation', () => {
  it('is 1 for stocks whose returns move together, even at different price levels', () => {
    const doubled: SymbolHistory = {
      symbol: 'TWICE',
      bars: fromReturns('X', A).bars.map((bar) => ({ ...bar, close: bar.close * 2 })),
    };
    const { values } = matrixOf([fromReturns('ONE', A), doubled]);
    expect(values[0]?.[1]).to.be.closeTo(1, 1e-12);
    expect(values[1]?.[0]).to.be.closeTo(1, 1e-12);
  });

  it('is −1 for stocks whose returns mirror each other', () => {
    const { values } = matrixOf([
      fromReturns('UP', A),
      fromReturns(
        'DOWN',
        A.map((r) => -r),
      ),
    ]);
    expect(values[0]?.[1]).to.be.closeTo(-1, 1e-12);
  });

  it('is 0 for independent (orthogonal) returns', () => {
    const { values } = matrixOf([fromReturns('A', A), fromReturns('B', B)]);
    expect(values[0]?.[1]).to.be.closeTo(0, 1e-12);
  });

  it('has 1 on the diagonal, is symmetric, and gives 0 beside a flat price', () => {
    const flat = fromReturns(
      'FLAT',
      A.map(() => 0),
    );
    const { symbols, values } = matrixOf([fromReturns('A', A), fromReturns('B', B), flat]);
    expect(symbols).to.deep.equal(['A', 'B', 'FLAT']);
    expect(values.map((row, i) => row[i])).to.deep.equal([1, 1, 1]);
    expect(values[0]?.[2]).to.equal(0);
    expect(values[2]?.[1]).to.equal(0);
    expect(values[0]?.[1]).to.equal(values[1]?.[0]);
  });

  it('aligns the histories on shared trading days and keeps the last dur returns', () => {
    const a = fromReturns('A', [0.1, 0.2, 0.3, 0.4, 0.5]);
    const b = fromReturns('B', [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], 1);
    const withGap: SymbolHistory = { symbol: 'C', bars: a.bars.filter((bar) => bar.date !== day(3)) };
    const aligned = alignReturns([a, b, withGap], 2);
    // Shared days 1, 2, 4, 5; the last three closes give two returns ending on days 4 and 5.
    expect(aligned.dates).to.deep.equal([day(4), day(5)]);
    expect(aligned.returns[0]?.[1]).to.be.closeTo(0.5, 1e-12);
    expect(aligned.returns[2]?.[0]).to.be.closeTo(1.3 * 1.4 - 1, 1e-12);
    expect(alignReturns([a, b], 100).dates).to.have.length(4);
  });

  it('refuses a duration below 2 days and a symbol named twice', () => {
    expect(() => alignReturns([], 1)).to.throw(DomainError, /dur must be/);
    expect(() => alignReturns([fromReturns('A', A), fromReturns('A', B)], 5)).to.throw(DomainError, /twice/);
  });

  it('gives the same matrix as the pairwise baseline', () => {
    let state = 7;
    const noise = (): number => {
      state = (state * 48_271) % 2_147_483_647;
      return (state / 2_147_483_647 - 0.5) * 0.04;
    };
    const market = Array.from({ length: 120 }, noise);
    const histories = Array.from({ length: 12 }, (_, s) =>
      fromReturns(
        `S${s}`,
        market.map((m) => (s % 3) * 0.5 * m + noise()),
      ),
    );
    const aligned = alignReturns(histories, 100);
    const fast = correlationMatrix(aligned);
    const naive = naiveCorrelationMatrix(aligned);
    fast.values.forEach((row, i) => row.forEach((r, j) => expect(r).to.be.closeTo(naive.values[i]![j]!, 1e-12)));
  });

  describe('groups', () => {
    const matrix = (symbols: string[], values: number[][]): CorrelationMatrix => ({ symbols, values });

    it('put perfectly correlated stocks together and leave the anti-correlated and independent ones alone', () => {
      const histories = [
        fromReturns('A1', A),
        fromReturns(
          'A2',
          A.map((r) => r * 3),
        ),
        fromReturns(
          'ANTI',
          A.map((r) => -r),
        ),
        fromReturns('IND', B),
      ];
      expect(correlationGroups(matrixOf(histories))).to.deep.equal([
        [
          { stock: 'A1', value: 1 },
          { stock: 'A2', value: 1 },
        ],
        [{ stock: 'ANTI', value: 0 }],
        [{ stock: 'IND', value: 0 }],
      ]);
    });

    it('merge by average linkage while the average reaches the threshold', () => {
      // X and Y are close (0.9); Z correlates 0.7 with X and 0.5 with Y: average 0.6, so it joins at 0.6.
      const values = [
        [1, 0.9, 0.7],
        [0.9, 1, 0.5],
        [0.7, 0.5, 1],
      ];
      const groups = correlationGroups(matrix(['X', 'Y', 'Z'], values));
      expect(groups).to.have.length(1);
      expect(groups[0]!.map((m) => m.stock)).to.deep.equal(['X', 'Y', 'Z']);
      expect(groups[0]![0]!.value).to.be.closeTo(0.8, 1e-12);
      expect(groups[0]![2]!.value).to.be.closeTo(0.6, 1e-12);
      expect(correlationGroups(matrix(['X', 'Y', 'Z'], values), 0.61).map((g) => g.map((m) => m.stock))).to.deep.equal([
        ['X', 'Y'],
        ['Z'],
      ]);
    });

    it('list the most cohesive group first', () => {
      const values = [
        [1, 0.65, 0, 0],
        [0.65, 1, 0, 0],
        [0, 0, 1, 0.95],
        [0, 0, 0.95, 1],
      ];
      expect(correlationGroups(matrix(['A', 'B', 'C', 'D'], values)).map((g) => g.map((m) => m.stock))).to.deep.equal([
        ['C', 'D'],
        ['A', 'B'],
      ]);
    });

    it('give nothing for no stocks', () => {
      expect(correlationGroups(matrix([], []))).to.deep.equal([]);
    });
  });
});
