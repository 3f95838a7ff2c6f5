import { expect } from 'chai';
import {
  formatDate,
  formatDateTime,
  formatRecent,
  formatTime,
  fromFieldValue,
  marketPlotTime,
  plotTime,
  timeAxisTitle,
  tradingDayTitle,
  zoneName,
  todayStamp,
  toFieldValue,
  wallClock,
  zoneLabel,
} from './time.ts';

describe('time formatting', () => {
  const noonUtc = '2026-07-01T16:05:09.000Z';
  const winter = '2026-01-15T23:30:00.000Z';

  it('shows an instant in the market zone labelled ET, summer and winter', () => {
    expect(formatDateTime(noonUtc, 'market')).to.equal('2026-07-01 12:05 ET');
    expect(formatDateTime(noonUtc, 'market', { seconds: true })).to.equal('2026-07-01 12:05:09 ET');
    expect(formatTime(noonUtc, 'market')).to.equal('12:05:09 ET');
    expect(formatTime(noonUtc, 'market', { seconds: false })).to.equal('12:05 ET');
    expect(formatDateTime(winter, 'market')).to.equal('2026-01-15 18:30 ET');
  });

  it('takes epoch milliseconds and Dates like ISO text', () => {
    const ms = Date.parse(noonUtc);
    expect(formatDateTime(ms, 'market')).to.equal('2026-07-01 12:05 ET');
    expect(formatDateTime(new Date(ms), 'Europe/Paris')).to.equal('2026-07-01 18:05 GMT+2');
  });

  it("labels another zone with its own abbreviation, which changes with the zone's daylight time", () => {
    expect(formatDateTime(noonUtc, 'America/Los_Angeles')).to.equal('2026-07-01 09:05 PDT');
    expect(formatDateTime(winter, 'America/Los_Angeles')).to.equal('2026-01-15 15:30 PST');
    expect(formatDateTime(winter, 'Asia/Tokyo')).to.equal('2026-01-16 08:30 GMT+9');
    expect(zoneLabel(winter, 'Europe/Paris')).to.equal('GMT+1');
    expect(zoneLabel(winter, 'market')).to.equal('ET');
  });

  it("follows the browser's zone for local", () => {
    const id = Intl.DateTimeFormat().resolvedOptions().timeZone;
    expect(formatDateTime(winter, 'local')).to.equal(formatDateTime(winter, id));
    expect(formatDateTime(winter, 'local')).not.to.match(/ ET$/);
  });

  it('crosses New York spring forward: 01:59:59 EST is followed by 03:00:00 EDT', () => {
    expect(formatTime('2026-03-08T06:59:59Z', 'market')).to.equal('01:59:59 ET');
    expect(formatTime('2026-03-08T07:00:00Z', 'market')).to.equal('03:00:00 ET');
    expect(zoneLabel('2026-03-08T06:59:59Z', 'America/New_York')).to.equal('EST');
    expect(zoneLabel('2026-03-08T07:00:00Z', 'America/New_York')).to.equal('EDT');
  });

  it('crosses New York fall back: 01:59 EDT is followed by 01:00 EST', () => {
    expect(formatDateTime('2026-11-01T05:59:00Z', 'market')).to.equal('2026-11-01 01:59 ET');
    expect(formatDateTime('2026-11-01T06:00:00Z', 'market')).to.equal('2026-11-01 01:00 ET');
    expect(zoneLabel('2026-11-01T06:00:00Z', 'America/New_York')).to.equal('EST');
  });

  it('shows midnight as 00, not 24, and the date of the zone, not of UTC', () => {
    expect(formatDateTime('2026-06-02T04:00:00Z', 'market')).to.equal('2026-06-02 00:00 ET');
    expect(formatDate('2026-06-02T03:59:59Z', 'market')).to.equal('2026-06-01');
    expect(wallClock('2026-06-02T03:59:59Z', 'market')).to.deep.equal({
      date: '2026-06-01',
      time: '23:59:59',
      label: 'ET',
    });
  });

  it("gives charts the zone's wall-clock reading, which Plotly draws as it is", () => {
    expect(plotTime('2026-07-01T16:05:09.000Z', 'market')).to.equal('2026-07-01 12:05:09');
    expect(plotTime('2026-07-01T16:05:09.000Z', 'Asia/Tokyo')).to.equal('2026-07-02 01:05:09');
    expect(plotTime('nonsense', 'market')).to.equal(null);
  });

  it('shows the time alone for today and the date too otherwise', () => {
    const now = '2026-07-01T20:00:00Z';
    expect(formatRecent('2026-07-01T13:30:00Z', 'market', now)).to.equal('09:30 ET');
    expect(formatRecent('2026-07-01T03:30:00Z', 'market', now)).to.equal('2026-06-30 23:30 ET');
    expect(todayStamp('market', '2026-07-02T03:00:00Z')).to.equal('2026-07-01');
    expect(todayStamp('Asia/Tokyo', '2026-07-02T03:00:00Z')).to.equal('2026-07-02');
  });

  it('shows a dash for nothing and the text as given for an unreadable time', () => {
    expect(formatDateTime(null, 'market')).to.equal('–');
    expect(formatDateTime('', 'market')).to.equal('–');
    expect(formatTime(undefined, 'market')).to.equal('–');
    expect(formatDateTime('not a time', 'market')).to.equal('not a time');
    expect(wallClock(Number.NaN, 'market')).to.equal(null);
  });

  it('reads a datetime-local field in the zone and writes it back', () => {
    expect(fromFieldValue('2026-01-02T09:30:15', 'market')).to.equal('2026-01-02T14:30:15.000Z');
    expect(fromFieldValue('2026-07-02T09:30', 'market')).to.equal('2026-07-02T13:30:00.000Z');
    expect(fromFieldValue('2026-07-02T09:30', 'Asia/Tokyo')).to.equal('2026-07-02T00:30:00.000Z');
    expect(toFieldValue('2026-01-02T14:30:15.000Z', 'market')).to.equal('2026-01-02T09:30:15');
    expect(toFieldValue('2026-07-02T00:30:00.000Z', 'Asia/Tokyo')).to.equal('2026-07-02T09:30:00');
    expect(fromFieldValue('', 'market')).to.equal('');
    expect(fromFieldValue('2026-02-30T10:00', 'market')).to.equal('');
    expect(fromFieldValue('2026-01-02T25:00', 'market')).to.equal('');
    expect(toFieldValue('nonsense', 'market')).to.equal('');
  });

  it('reads the skipped hour of spring forward with the winter offset and the repeated hour as its first pass', () => {
    expect(fromFieldValue('2026-03-08T02:30', 'market')).to.equal('2026-03-08T07:30:00.000Z');
    expect(fromFieldValue('2026-11-01T01:30', 'market')).to.equal('2026-11-01T05:30:00.000Z');
    expect(fromFieldValue('2026-11-01T00:59', 'market')).to.equal('2026-11-01T04:59:00.000Z');
    expect(fromFieldValue('2026-11-01T02:00', 'market')).to.equal('2026-11-01T07:00:00.000Z');
  });

  it('round-trips every quarter hour around the clock changes of the year in several zones', () => {
    // The days New York, Paris and Sydney change their clocks in 2026.
    const changes = ['2026-03-08', '2026-03-29', '2026-04-05', '2026-10-04', '2026-10-25', '2026-11-01'];
    const instants = changes.flatMap((day) =>
      Array.from({ length: 4 * 96 }, (_, i) => Date.parse(`${day}T00:00:00Z`) + (i - 2 * 96) * 15 * 60_000),
    );
    for (const zone of ['market', 'Europe/Paris', 'Australia/Sydney', 'Asia/Kolkata', 'UTC']) {
      for (const t of instants) {
        const iso = new Date(t).toISOString();
        const field = toFieldValue(iso, zone);
        const back = fromFieldValue(field, zone);
        // A repeated reading comes back as its first pass, an hour earlier; every other comes back as it was.
        if (back !== iso)
          expect(Date.parse(iso) - Date.parse(back), `${zone} ${iso}`).to.be.oneOf([1_800_000, 3_600_000]);
        expect(toFieldValue(back, zone), `${zone} ${iso}`).to.equal(field);
      }
    }
  });

  it('names the zone of a time axis: New York for the market, the IANA id of another zone', () => {
    expect(zoneName('market')).to.equal('New York');
    expect(zoneName('Europe/Paris')).to.equal('Europe/Paris');
    expect(zoneName('local')).to.equal(Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(timeAxisTitle('market')).to.equal('Time (New York)');
    expect(timeAxisTitle('Asia/Tokyo')).to.equal('Time (Asia/Tokyo)');
    expect(tradingDayTitle()).to.equal('Date (New York trading day)');
    expect(tradingDayTitle('Day')).to.equal('Day (New York trading day)');
  });

  it("moves a New York minute into another zone's wall clock, across dates and daylight time", () => {
    expect(marketPlotTime('2026-07-01 09:30', 'market')).to.equal('2026-07-01 09:30');
    expect(marketPlotTime('2026-07-01 09:30', 'Europe/Paris')).to.equal('2026-07-01 15:30');
    expect(marketPlotTime('2026-01-15 09:30', 'Europe/Paris')).to.equal('2026-01-15 15:30');
    expect(marketPlotTime('2026-07-01 15:59', 'Asia/Tokyo')).to.equal('2026-07-02 04:59');
    expect(marketPlotTime('2026-01-15 15:59', 'Asia/Tokyo')).to.equal('2026-01-16 05:59');
    // The weeks New York keeps daylight time and Paris does not yet: five hours apart, not six.
    expect(marketPlotTime('2026-03-20 10:00', 'Europe/Paris')).to.equal('2026-03-20 15:00');
    expect(marketPlotTime('2026-03-20 10:00', 'America/Los_Angeles')).to.equal('2026-03-20 07:00');
    expect(marketPlotTime('not a time', 'market')).to.equal(null);
    expect(marketPlotTime('2026-02-30 10:00', 'Europe/Paris')).to.equal(null);
  });
});
