import { expect } from 'chai';
import { DomainError } from '../decider.ts';
import {
  MAX_LOT_CLOSE,
  MAX_LOT_POSITION,
  MAX_LOT_VALUE,
  calendarDay,
  hasPositionDecimals,
  isWholeCents,
  latestLotDay,
  lotMatches,
  oldestFirst,
  parseLotFields,
  roundToCents,
} from './lots.ts';

const AT = '2025-03-10T15:00:00.000Z';

describe('position lots', () => {
  describe('roundToCents', () => {
    it('rounds half away from zero on the decimal form, not the binary one', () => {
      expect(roundToCents(1.005)).to.equal(1.01);
      expect(roundToCents(1.004)).to.equal(1);
      expect(roundToCents(189.999)).to.equal(190);
      expect(roundToCents(0.125)).to.equal(0.13);
      expect(roundToCents(-2.675)).to.equal(-2.68);
      expect(roundToCents(12.34)).to.equal(12.34);
    });

    it('rounds tiny and huge values without failing', () => {
      expect(roundToCents(1e-7)).to.equal(0);
      expect(roundToCents(1e22)).to.equal(1e22);
    });
  });

  it('tells whole cents and six-decimal quantities', () => {
    expect(isWholeCents(12.34)).to.equal(true);
    expect(isWholeCents(0.1 + 0.2)).to.equal(false);
    expect(isWholeCents(12.345)).to.equal(false);
    expect(hasPositionDecimals(0.000001)).to.equal(true);
    expect(hasPositionDecimals(1.1234567)).to.equal(false);
    expect(hasPositionDecimals(-3.5)).to.equal(true);
  });

  describe('calendarDay', () => {
    it('accepts real dates, leap days included', () => {
      expect(calendarDay('1970-01-02')).to.equal(1);
      expect(calendarDay('2024-02-29')).to.be.a('number');
      expect(calendarDay('2000-02-29')).to.be.a('number');
    });

    for (const bad of [
      '2025-02-29',
      '1900-02-29',
      '2025-04-31',
      '2025-13-01',
      '2025-00-10',
      '2025-01-00',
      '2025-1-5',
      '20250105',
      '2025-01-05T00:00:00Z',
      '',
    ]) {
      it(`refuses ${JSON.stringify(bad)}`, () => {
        expect(calendarDay(bad)).to.equal(null);
      });
    }
  });

  describe('latestLotDay', () => {
    it('is the UTC date before 10:00 UTC and the next date from 10:00 UTC', () => {
      expect(latestLotDay('2025-03-10T09:59:59.999Z')).to.equal(calendarDay('2025-03-10'));
      expect(latestLotDay('2025-03-10T10:00:00.000Z')).to.equal(calendarDay('2025-03-11'));
      expect(latestLotDay('2024-12-31T23:00:00Z')).to.equal(calendarDay('2025-01-01'));
    });

    it('refuses a time that is not ISO', () => {
      expect(() => latestLotDay('yesterday')).to.throw(DomainError, 'at');
    });
  });

  describe('parseLotFields', () => {
    it('accepts a long and a short lot', () => {
      expect(parseLotFields({ date: '2025-03-10', close: 189.5, position: 10 }, 'lot', AT)).to.deep.equal({
        date: '2025-03-10',
        close: 189.5,
        position: 10,
      });
      expect(parseLotFields({ date: '1900-01-01', close: 0.01, position: -0.000001 }, 'lot', AT)).to.deep.equal({
        date: '1900-01-01',
        close: 0.01,
        position: -0.000001,
      });
    });

    it('accepts the largest price, the largest quantity, the largest value and the next date after 10:00 UTC', () => {
      for (const [close, position] of [
        [MAX_LOT_CLOSE, -MAX_LOT_VALUE / MAX_LOT_CLOSE],
        [MAX_LOT_VALUE / MAX_LOT_POSITION, -MAX_LOT_POSITION],
        [12.5, 800_000_000],
      ] as const) {
        expect(() => parseLotFields({ date: '2025-03-11', close, position }, 'lot', AT)).not.to.throw();
      }
    });

    it('refuses a lot worth more than the largest value, naming its quantity, whose sums would lose cents', () => {
      expect(() => parseLotFields({ date: '2025-03-01', close: MAX_LOT_CLOSE, position: -MAX_LOT_POSITION }, 'lot', AT))
        .to.throw(DomainError, 'lot.position -1000000000 at 10000000 is worth more than 10000000000')
        .with.property('field', 'lot.position');
      expect(() => parseLotFields({ date: '2025-03-01', close: 12.51, position: 800_000_000 }, 'lot', AT))
        .to.throw(DomainError)
        .with.property('field', 'lot.position');
    });

    const bad: [string, unknown, string][] = [
      ['a lot that is not an object', 7, 'lot'],
      ['a missing date', { close: 1, position: 1 }, 'lot.date'],
      ['a date that is not real', { date: '2025-02-30', close: 1, position: 1 }, 'lot.date'],
      ['a date with a time', { date: '2025-03-01T00:00:00Z', close: 1, position: 1 }, 'lot.date'],
      ['a date in the future', { date: '2025-03-12', close: 1, position: 1 }, 'lot.date'],
      ['a date before 1900', { date: '1899-12-31', close: 1, position: 1 }, 'lot.date'],
      ['a price of 0', { date: '2025-03-01', close: 0, position: 1 }, 'lot.close'],
      ['a negative price', { date: '2025-03-01', close: -5, position: 1 }, 'lot.close'],
      ['a price as text', { date: '2025-03-01', close: '5', position: 1 }, 'lot.close'],
      ['an infinite price', { date: '2025-03-01', close: Infinity, position: 1 }, 'lot.close'],
      ['a price past the largest', { date: '2025-03-01', close: MAX_LOT_CLOSE + 0.01, position: 1 }, 'lot.close'],
      ['a price in fractions of cents', { date: '2025-03-01', close: 1.005, position: 1 }, 'lot.close'],
      ['a quantity of 0', { date: '2025-03-01', close: 1, position: 0 }, 'lot.position'],
      ['a quantity of NaN', { date: '2025-03-01', close: 1, position: Number.NaN }, 'lot.position'],
      ['a quantity past the largest', { date: '2025-03-01', close: 1, position: MAX_LOT_POSITION + 1 }, 'lot.position'],
      ['a quantity with 7 decimals', { date: '2025-03-01', close: 1, position: 0.0000001 }, 'lot.position'],
      ['a missing quantity', { date: '2025-03-01', close: 1 }, 'lot.position'],
    ];
    for (const [what, lot, field] of bad) {
      it(`refuses ${what}, naming ${field}`, () => {
        expect(() => parseLotFields(lot, 'lot', AT))
          .to.throw(DomainError, field)
          .with.property('field', field);
      });
    }
  });

  it('matches a lot by date, price in cents and quantity', () => {
    const lot = { date: '2025-03-01', close: 10.1, position: 3 };
    expect(lotMatches(lot, { date: '2025-03-01', close: 10.1, position: 3 })).to.equal(true);
    expect(lotMatches(lot, { date: '2025-03-01', close: 10.2, position: 3 })).to.equal(false);
    expect(lotMatches(lot, { date: '2025-03-02', close: 10.1, position: 3 })).to.equal(false);
    expect(lotMatches(lot, { date: '2025-03-01', close: 10.1, position: -3 })).to.equal(false);
  });

  it('orders dated items oldest first, those of one date in the order given, leaving the list given alone', () => {
    const given = [
      { date: '2025-03-02', id: 'a' },
      { date: '2025-03-01', id: 'b' },
      { date: '2025-03-02', id: 'c' },
      { date: '2024-12-31', id: 'd' },
      { date: '2025-03-01', id: 'e' },
    ];
    expect(oldestFirst(given).map((item) => item.id)).to.deep.equal(['d', 'b', 'e', 'a', 'c']);
    expect(given.map((item) => item.id)).to.deep.equal(['a', 'b', 'c', 'd', 'e']);
    expect(oldestFirst([])).to.deep.equal([]);
  });
});
