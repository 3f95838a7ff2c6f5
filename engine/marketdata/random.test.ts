import { expect } from 'chai';
import { Random, streamOf } from './random.ts';

function draws(n: number, draw: () => number): number[] {
  return Array.from({ length: n }, draw);
}

function moments(xs: readonly number[]): { mean: number; variance: number; kurtosis: number } {
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  let m2 = 0;
  let m4 = 0;
  for (const x of xs) {
    const d = (x - mean) ** 2;
    m2 += d;
    m4 += d * d;
  }
  m2 /= xs.length;
  m4 /= xs.length;
  return { mean, variance: m2, kurtosis: m4 / (m2 * m2) - 3 };
}

describe('Random', () => {
  it('draws the same sequence for the same key and another for another key', () => {
    const a = draws(5, () => streamOf(42, 'AAPL').uniform());
    const r1 = streamOf(42, 'AAPL');
    const r2 = streamOf(42, 'AAPL');
    const r3 = streamOf(43, 'AAPL');
    const s1 = draws(100, () => r1.uniform());
    expect(draws(100, () => r2.uniform())).to.deep.equal(s1);
    expect(draws(100, () => r3.uniform())).to.not.deep.equal(s1);
    expect(new Set(a).size).to.equal(1);
  });

  it('keeps uniform draws inside (0, 1) with mean one half', () => {
    const r = new Random('u');
    const xs = draws(100_000, () => r.uniform());
    expect(Math.min(...xs)).to.be.greaterThan(0);
    expect(Math.max(...xs)).to.be.lessThan(1);
    expect(moments(xs).mean).to.be.closeTo(0.5, 0.005);
  });

  it('draws standard normals', () => {
    const r = new Random('n');
    const m = moments(draws(200_000, () => r.normal()));
    expect(m.mean).to.be.closeTo(0, 0.01);
    expect(m.variance).to.be.closeTo(1, 0.02);
    expect(m.kurtosis).to.be.closeTo(0, 0.1);
  });

  it('draws gamma variates with mean and variance equal to the shape', () => {
    const r = new Random('g');
    for (const shape of [0.5, 2.25, 7]) {
      const m = moments(draws(100_000, () => r.gamma(shape)));
      expect(m.mean).to.be.closeTo(shape, shape * 0.02);
      expect(m.variance).to.be.closeTo(shape, shape * 0.06);
    }
  });

  it('draws unit-variance Student-t variates with fat tails', () => {
    const r = new Random('t');
    const xs = draws(400_000, () => r.unitStudentT(6));
    const m = moments(xs);
    expect(m.variance).to.be.closeTo(1, 0.05);
    // Excess kurtosis of t(6) is 6 / (6 - 4) = 3; sample kurtosis converges slowly, so only a wide band.
    expect(m.kurtosis).to.be.within(1.8, 4.5);
    const beyond4 = xs.filter((x) => Math.abs(x) > 4).length / xs.length;
    expect(beyond4).to.be.greaterThan(0.001);
  });

  it('draws integers and chances in range', () => {
    const r = new Random('i');
    const ints = draws(10_000, () => r.int(7));
    expect(Math.min(...ints)).to.equal(0);
    expect(Math.max(...ints)).to.equal(6);
    const hits = draws(100_000, () => (r.chance(0.02) ? 1 : 0)).reduce((s, x) => s + x, 0);
    expect(hits / 100_000).to.be.closeTo(0.02, 0.002);
  });
});
