import { expect } from 'chai';
import { toCents } from '../../domain/alerts/alerts.ts';
import { Random } from '../marketdata/random.ts';
import { TickError, checkTick, parseTickTime, priceCents } from './tick.ts';

describe('ticks', function () {
  it('converts prices to cents exactly as the alert thresholds are rounded', function () {
    const rng = new Random('price-cents');
    const samples: number[] = [
      190.005,
      0.015,
      1.005,
      999_999.995,
      0.01,
      12.345,
      1e-7,
      250.42,
      190.1234,
      1e6,
      2e7 + 0.005,
    ];
    for (let i = 0; i < 20_000; i++) {
      samples.push(Math.round(rng.uniform() * 1e8) / 100);
      samples.push(Math.round(rng.uniform() * 1e9) / 1000);
      samples.push(rng.uniform() * 1000);
      // Sub-cent trades, and prices a hair either side of a half cent, up to the largest price.
      samples.push(Math.round(rng.uniform() * 1e10) / 1e4);
      const halfCent = Math.round(rng.uniform() * 1e8) / 100 + 0.005;
      samples.push(halfCent, halfCent + (rng.uniform() - 0.5) * 1e-7, halfCent * (1 + (rng.uniform() - 0.5) * 1e-12));
      samples.push(1e6 - rng.uniform() * 10, 1e6 + rng.uniform() * 10);
    }
    for (const price of samples) expect(priceCents(price), String(price)).to.equal(toCents(price));
  });

  it('accepts a valid tick and normalises its symbol', function () {
    expect(checkTick({ symbol: ' brk.b ', price: 470.25, size: 0, ts: 1_735_830_000_000 })).to.deep.equal({
      symbol: 'BRK.B',
      price: 470.25,
      size: 0,
      ts: 1_735_830_000_000,
    });
  });

  const refusals: [string, unknown, RegExp][] = [
    ['not an object', 'AAPL', /feed\[0\]: must be an object/],
    ['a bad symbol', { symbol: 'A A', price: 1, size: 1, ts: 1 }, /feed\[0\]: symbol "A A"/],
    ['a zero price', { symbol: 'A', price: 0, size: 1, ts: 1 }, /feed\[0\]: price must be a number above 0/],
    ['a price over the maximum', { symbol: 'A', price: 1_000_001, size: 1, ts: 1 }, /price must be/],
    ['a price under a cent', { symbol: 'A', price: 0.004, size: 1, ts: 1 }, /price 0.004 rounds to 0.00/],
    ['a price as text', { symbol: 'A', price: '1', size: 1, ts: 1 }, /price must be/],
    ['a fractional size', { symbol: 'A', price: 1, size: 1.5, ts: 1 }, /size must be a whole number/],
    ['a time as text', { symbol: 'A', price: 1, size: 1, ts: '2025-01-02' }, /ts must be milliseconds/],
  ];
  for (const [what, value, message] of refusals) {
    it(`refuses ${what}, naming the field`, function () {
      expect(() => checkTick(value, 'feed[0]')).to.throw(TickError, message);
    });
  }

  it('reads tick times as epoch milliseconds or ISO instants with a zone', function () {
    expect(parseTickTime('1735830000000')).to.equal(1_735_830_000_000);
    expect(parseTickTime('2025-01-02T14:30:00Z')).to.equal(Date.parse('2025-01-02T14:30:00Z'));
    expect(parseTickTime('2025-01-02T09:30:00.250-05:00')).to.equal(Date.parse('2025-01-02T14:30:00.250Z'));
    for (const bad of ['', '2025-01-02', '2025-01-02T14:30:00', 'yesterday', '-5', '2025-13-02T14:30:00Z']) {
      expect(parseTickTime(bad), bad).to.equal(null);
    }
  });
});
