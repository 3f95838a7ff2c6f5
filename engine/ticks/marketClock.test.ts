import { expect } from 'chai';
import {
  acceleratedMarketClock,
  newYorkInstant,
  newYorkTime,
  parseMarketClockMode,
  regularMarketClock,
  regularSession,
} from './marketClock.ts';

const iso = (ms: number): string => new Date(ms).toISOString();

describe('market clock', function () {
  it('places 09:30 New York at 14:30 UTC in winter and 13:30 UTC in summer', function () {
    expect(iso(newYorkInstant('2025-01-02', 9, 30))).to.equal('2025-01-02T14:30:00.000Z');
    expect(iso(newYorkInstant('2025-07-01', 9, 30))).to.equal('2025-07-01T13:30:00.000Z');
  });

  it('follows the daylight-saving changes of New York, not of the machine', function () {
    // Clocks went forward on Sunday 2025-03-09 and back on Sunday 2025-11-02.
    expect(regularSession('2025-03-07').start).to.equal(Date.parse('2025-03-07T14:30:00Z'));
    expect(regularSession('2025-03-10').start).to.equal(Date.parse('2025-03-10T13:30:00Z'));
    expect(regularSession('2025-10-31').end).to.equal(Date.parse('2025-10-31T20:00:00Z'));
    expect(regularSession('2025-11-03').end).to.equal(Date.parse('2025-11-03T21:00:00Z'));
  });

  it('reads the New York date and time of an instant', function () {
    expect(newYorkTime(Date.parse('2025-01-03T04:59:59Z'))).to.deep.equal({
      date: '2025-01-02',
      hour: 23,
      minute: 59,
      second: 59,
    });
  });

  describe('regular', function () {
    const clock = regularMarketClock('2024-12-31');

    it('answers the open session during trading hours', function () {
      const s = clock.sessionAt(Date.parse('2025-01-02T15:00:00Z'));
      expect(s).to.deep.equal(regularSession('2025-01-02'));
    });

    it("answers the same day's session before the open", function () {
      expect(clock.sessionAt(Date.parse('2025-01-03T12:00:00Z')).date).to.equal('2025-01-03');
    });

    it('moves to the next trading day at the close: 16:00 itself is closed', function () {
      expect(clock.sessionAt(Date.parse('2025-01-03T20:59:59.999Z')).date).to.equal('2025-01-03');
      expect(clock.sessionAt(Date.parse('2025-01-03T21:00:00Z')).date).to.equal('2025-01-06');
    });

    it('skips weekends and NYSE holidays', function () {
      expect(clock.sessionAt(Date.parse('2025-01-04T15:00:00Z')).date).to.equal('2025-01-06');
      expect(clock.sessionAt(Date.parse('2025-07-04T15:00:00Z')).date).to.equal('2025-07-07');
    });

    it('never reopens a day on or before the last finished bar', function () {
      const after = regularMarketClock('2025-01-02');
      expect(after.sessionAt(Date.parse('2025-01-02T15:00:00Z')).date).to.equal('2025-01-03');
      expect(after.sessionAt(Date.parse('2024-12-20T15:00:00Z')).date).to.equal('2025-01-03');
    });

    it('answers queries that go back in time correctly too', function () {
      const c = regularMarketClock('2024-12-31');
      expect(c.sessionAt(Date.parse('2025-01-06T15:00:00Z')).date).to.equal('2025-01-06');
      expect(c.sessionAt(Date.parse('2025-01-02T15:00:00Z')).date).to.equal('2025-01-02');
    });
  });

  describe('accelerated', function () {
    const origin = Date.parse('2026-11-21T03:00:00Z');
    const clock = acceleratedMarketClock(origin, '2024-12-31', 2);

    it('plays sessions of the given real minutes back to back, on consecutive trading days', function () {
      const sessions = [0, 1, 2, 3].map((k) => clock.sessionAt(origin + k * 120_000 + 5));
      expect(sessions.map((s) => s.date)).to.deep.equal(['2025-01-02', '2025-01-03', '2025-01-06', '2025-01-07']);
      for (const [k, s] of sessions.entries()) {
        expect(s.start).to.equal(origin + k * 120_000);
        expect(s.end).to.equal(s.start + 120_000);
      }
    });

    it('opens at its origin, whatever the hour in New York', function () {
      expect(clock.sessionAt(origin)).to.deep.equal({ date: '2025-01-02', start: origin, end: origin + 120_000 });
      expect(clock.sessionAt(origin - 1_000).date).to.equal('2025-01-02');
    });
  });

  it('reads the clock setting', function () {
    expect(parseMarketClockMode('regular')).to.deep.equal({ mode: 'regular' });
    expect(parseMarketClockMode('accelerated')).to.deep.equal({ mode: 'accelerated', sessionMinutes: 10 });
    expect(parseMarketClockMode(' Accelerated:2.5 ')).to.deep.equal({ mode: 'accelerated', sessionMinutes: 2.5 });
    for (const bad of ['', 'fast', 'accelerated:0', 'accelerated:-1', 'accelerated:x']) {
      expect(() => parseMarketClockMode(bad), bad).to.throw(RangeError, /market clock/);
    }
  });
});
