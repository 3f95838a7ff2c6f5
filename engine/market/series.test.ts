import { expect } from 'chai';
import { closeInstant, lastIndexAtOrBefore, monthsBefore, monthWindowStart, percentChanges, round } from './series.ts';

/** The UTC instant of 16:00 New York on a date, computed by the platform's time zone data. */
function newYorkClose(date: string): string {
  for (const utcHour of [20, 21]) {
    const instant = new Date(`${date}T${String(utcHour).padStart(2, '0')}:00:00.000Z`);
    const local = new Intl.DateTimeFormat('en-US', {
      timeZone: 'America/New_York',
      hour: '2-digit',
      hourCycle: 'h23',
    }).format(instant);
    if (local === '16') return instant.toISOString();
  }
  throw new Error(`no 16:00 in New York on ${date}`);
}

describe('market series arithmetic', () => {
  it('steps back whole months, clamping the day to the month length', () => {
    expect(monthsBefore('2024-12-31', 3)).to.equal('2024-09-30');
    expect(monthsBefore('2024-05-31', 3)).to.equal('2024-02-29');
    expect(monthsBefore('2023-05-31', 3)).to.equal('2023-02-28');
    expect(monthsBefore('2024-01-15', 1)).to.equal('2023-12-15');
    expect(monthsBefore('2024-12-31', 60)).to.equal('2019-12-31');
  });

  it('finds the last date at or before a day', () => {
    const dates = ['2024-01-02', '2024-01-03', '2024-01-05'];
    expect(lastIndexAtOrBefore(dates, '2024-01-01')).to.equal(-1);
    expect(lastIndexAtOrBefore(dates, '2024-01-03')).to.equal(1);
    expect(lastIndexAtOrBefore(dates, '2024-01-04')).to.equal(1);
    expect(lastIndexAtOrBefore(dates, '2025-01-01')).to.equal(2);
  });

  it('starts a month window on the base day the change is measured from', () => {
    const dates = ['2024-09-27', '2024-09-30', '2024-10-01', '2024-12-31'];
    expect(monthWindowStart(dates, 3)).to.equal(1);
    expect(monthWindowStart(dates, 60)).to.equal(0);
    expect(monthWindowStart([], 3)).to.equal(0);
  });

  it('measures cumulative % change from the first calendar day, carrying a missing day forward', () => {
    const calendar = ['d1', 'd2', 'd3', 'd4'];
    expect(percentChanges(calendar, ['d1', 'd2', 'd4'], [100, 110, 90])).to.deep.equal([
      0, 10.000000000000009, 10.000000000000009, -9.999999999999998,
    ]);
    expect(percentChanges(calendar, ['d0', 'd3'], [50, 75])).to.deep.equal([0, 0, 50, 50]);
  });

  it('measures a history that starts inside the calendar from its first close, null before', () => {
    expect(percentChanges(['d1', 'd2', 'd3'], ['d2', 'd3'], [20, 25])).to.deep.equal([null, 0, 25]);
  });

  it('rounds without negative zero', () => {
    expect(round(-0.001, 2)).to.equal(0);
    expect(Object.is(round(-0.001, 2), 0)).to.equal(true);
    expect(round(1.005, 2)).to.be.oneOf([1, 1.01]);
    expect(round(-2.3349999, 4)).to.equal(-2.335);
  });

  for (const date of [
    '2024-12-31',
    '2024-07-01',
    '2024-03-08',
    '2024-03-11',
    '2024-11-01',
    '2024-11-04',
    '2021-03-15',
  ]) {
    it(`stamps the close of ${date} at 16:00 New York`, () => {
      expect(closeInstant(date)).to.equal(newYorkClose(date));
    });
  }
});
