import { expect } from 'chai';
import type { Quote } from '../../domain/market/types.ts';
import { previousCloseOf, sameSession } from './quoteSession.ts';

const quote = (price: number, change: number): Quote => ({
  symbol: 'AAPL',
  price,
  change,
  changepct: 0,
  volume: 1,
  ts: '2026-01-06T15:00:00Z',
  source: 'simulated',
});

describe('quote sessions', () => {
  it("tells a quote's session by its previous close, the change's rounding aside", () => {
    expect(previousCloseOf(quote(101.5, 1.5))).to.equal(100);
    expect(previousCloseOf(quote(0.29, -0.0101))).to.equal(0.3001);
    expect(sameSession(100, previousCloseOf(quote(101.33, 1.3300001)))).to.equal(true);
    expect(sameSession(100, previousCloseOf(quote(101.33, 1.32)))).to.equal(false);
    expect(sameSession(undefined, 42), 'unknown: the same').to.equal(true);
  });
});
