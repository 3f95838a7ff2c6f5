import { expect } from 'chai';
import { capClassOf, type UniverseEntry } from '../../domain/market/types.ts';
import { FUNDAMENTAL_TYPES, generateFundamentals, type FundamentalFact } from './fundamentals.ts';

const shares = 2_500_000_000;
const close = 120;
const ENTRY: UniverseEntry = {
  symbol: 'TEST',
  name: 'Test Corporation',
  sector: 'Information Technology',
  industry: 'Software',
  shares,
  close,
  marketcap: shares * close,
  capclass: capClassOf(shares * close),
};

function of(facts: readonly FundamentalFact[], type: string, period: 'A' | 'Q'): FundamentalFact[] {
  return facts.filter((f) => f.type === type && f.period === period);
}

describe('generateFundamentals', () => {
  const facts = generateFundamentals(ENTRY, { seed: 42 });

  it('gives six fiscal years and sixteen quarters of every type, labelled derived', () => {
    for (const type of FUNDAMENTAL_TYPES) {
      const annual = of(facts, type, 'A');
      const quarterly = of(facts, type, 'Q');
      expect(annual.map((f) => f.fy)).to.deep.equal([2019, 2020, 2021, 2022, 2023, 2024]);
      expect(annual.every((f) => f.fp === 'FY' && f.form === '10-K' && f.end.endsWith('-12-31'))).to.equal(true);
      expect(quarterly).to.have.length(16);
      expect(quarterly[0]).to.include({ end: '2021-03-31', fy: 2021, fp: 'Q1', form: '10-Q' });
      expect(quarterly.at(-1)).to.include({ end: '2024-12-31', fy: 2024, fp: 'Q4', form: '10-K' });
    }
    expect(facts.every((f) => f.label === 'derived')).to.equal(true);
  });

  it('stops at the last period closed on the end date', () => {
    const mid = generateFundamentals(ENTRY, { seed: 42, endDate: '2024-08-15' });
    expect(of(mid, 'revenue', 'Q').at(-1)!.end).to.equal('2024-06-30');
    expect(of(mid, 'revenue', 'A').at(-1)!.end).to.equal('2023-12-31');
  });

  it('adds the quarters of a year up to its annual figure', () => {
    const annual = of(facts, 'revenue', 'A');
    const quarterly = of(facts, 'revenue', 'Q');
    for (const year of [2021, 2022, 2023, 2024]) {
      const sum = quarterly.filter((q) => q.fy === year).reduce((a, q) => a + q.val, 0);
      expect(sum).to.be.closeTo(annual.find((a) => a.fy === year)!.val, 4000);
    }
  });

  it('keeps gross profit below revenue and EPS times shares near net income', () => {
    const revenue = of(facts, 'revenue', 'A');
    const gross = of(facts, 'grossprofit', 'A');
    const income = of(facts, 'income', 'A');
    const eps = of(facts, 'earningspershare', 'A');
    revenue.forEach((r, i) => {
      expect(gross[i]!.val).to.be.within(0, r.val);
      expect(Math.abs(income[i]!.val)).to.be.below(r.val);
    });
    expect(eps.at(-1)!.val * shares).to.be.closeTo(
      income.at(-1)!.val,
      Math.abs(income.at(-1)!.val) * 0.02 + 0.01 * shares,
    );
  });

  it('derives trailing revenue from the market cap with a plausible price-to-sales ratio', () => {
    const trailing = of(facts, 'revenue', 'Q')
      .slice(-4)
      .reduce((a, q) => a + q.val, 0);
    expect(ENTRY.marketcap / trailing).to.be.within(1.5, 25);
  });

  it('is deterministic per seed and symbol', () => {
    expect(generateFundamentals(ENTRY, { seed: 42 })).to.deep.equal(facts);
    expect(generateFundamentals(ENTRY, { seed: 7 })).to.not.deep.equal(facts);
    expect(generateFundamentals({ ...ENTRY, symbol: 'OTHER' }, { seed: 42 })).to.not.deep.equal(facts);
  });
});
