import { expect } from 'chai';
import { newYorkInstant } from '../ticks/marketClock.ts';
import { lastClosedSession, marketEndDate, sessionOnOrBefore } from './marketDate.ts';

describe('the market date', () => {
  it('is the trading day before while today’s session has not closed', () => {
    expect(lastClosedSession(newYorkInstant('2025-03-12', 9, 0))).to.equal('2025-03-11');
    expect(lastClosedSession(newYorkInstant('2025-03-12', 15, 59))).to.equal('2025-03-11');
  });

  it('is today once the session has closed, at 16:00 or 13:00 on an early close', () => {
    expect(lastClosedSession(newYorkInstant('2025-03-12', 16, 0))).to.equal('2025-03-12');
    expect(lastClosedSession(newYorkInstant('2025-11-28', 12, 59))).to.equal('2025-11-26');
    expect(lastClosedSession(newYorkInstant('2025-11-28', 13, 0))).to.equal('2025-11-28');
  });

  it('skips weekends and holidays, whatever the time', () => {
    expect(lastClosedSession(newYorkInstant('2025-03-16', 20, 0))).to.equal('2025-03-14');
    expect(lastClosedSession(newYorkInstant('2025-01-01', 18, 0))).to.equal('2024-12-31');
    // Early on a Tuesday after a Monday holiday (Presidents' Day 2025-02-17): the Friday before.
    expect(lastClosedSession(newYorkInstant('2025-02-18', 8, 0))).to.equal('2025-02-14');
  });

  it('reads the New York date, not the UTC one', () => {
    // 2025-03-13 02:00 UTC is still the 12th, 22:00, in New York.
    expect(lastClosedSession(Date.parse('2025-03-13T02:00:00Z'))).to.equal('2025-03-12');
  });

  it('takes a chosen day as its session, or the trading day before a closed day', () => {
    expect(sessionOnOrBefore('2025-03-14')).to.equal('2025-03-14');
    expect(sessionOnOrBefore('2025-03-16')).to.equal('2025-03-14');
    expect(marketEndDate('2025-07-04', Date.parse('2030-01-01T00:00:00Z'))).to.equal('2025-07-03');
    expect(marketEndDate(null, newYorkInstant('2025-07-07', 17, 0))).to.equal('2025-07-07');
  });
});
