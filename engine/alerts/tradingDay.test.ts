import { expect } from 'chai';
import { acceleratedMarketClock, newYorkInstant } from '../ticks/marketClock.ts';
import { TradingDays } from './tradingDay.ts';

describe('trading days of ticks', () => {
  it('gives the New York date of an instant, the evening after the close included', () => {
    const days = new TradingDays();
    expect(days.of(newYorkInstant('2026-12-02', 9, 30))).to.equal('2026-12-02');
    expect(days.of(newYorkInstant('2026-12-02', 23, 59))).to.equal('2026-12-02');
    expect(days.of(newYorkInstant('2026-12-03', 0, 0))).to.equal('2026-12-03');
  });

  it('on the demo clock, gives the date of the session open at an instant: a trading day every session', () => {
    const origin = Date.UTC(2026, 11, 2, 15, 0);
    // Sessions of 10 real minutes from the trading day after 2026-12-04 (a Friday): Monday, then Tuesday.
    const days = new TradingDays(acceleratedMarketClock(origin, '2026-12-04', 10));
    expect(days.of(origin)).to.equal('2026-12-07');
    expect(days.of(origin + 9 * 60_000)).to.equal('2026-12-07');
    expect(days.of(origin + 10 * 60_000)).to.equal('2026-12-08');
    expect(days.of(origin + 25 * 60_000)).to.equal('2026-12-09');
    // The same real day throughout, by New York dates.
    expect(new TradingDays().of(origin + 25 * 60_000)).to.equal('2026-12-02');
  });
});
