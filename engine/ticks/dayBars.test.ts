import { expect } from 'chai';
import { DayBars } from './dayBars.ts';
import type { Tick } from './tick.ts';

const T0 = Date.parse('2026-01-05T15:00:00Z');

function tick(price: number, size: number, at: number): Tick {
  return { symbol: 'AAPL', price, size, ts: T0 + at };
}

describe('a trading day bar built from ticks', function () {
  it('opens at the first tick and closes at the latest trade, a late one widening the range only', function () {
    const bars = new DayBars();
    for (const t of [
      tick(100, 10, 0),
      tick(101, 5, 2000),
      tick(104, 3, 1000),
      tick(99, 1, 1500),
      tick(100.5, 2, 2000),
    ]) {
      bars.add(t);
    }
    expect(bars.bar('AAPL')).to.deep.equal({ open: 100, high: 104, low: 99, close: 100.5, volume: 21 });
    bars.add(tick(98.5, 4, 500));
    expect(bars.close('2026-01-05').bars).to.deep.equal([
      { symbol: 'AAPL', date: '2026-01-05', open: 100, high: 104, low: 98.5, close: 100.5, volume: 25 },
    ]);
  });
});
