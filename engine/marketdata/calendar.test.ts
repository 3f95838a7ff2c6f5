import { expect } from 'chai';
import {
  addDays,
  isTradingDay,
  isValidDate,
  nextTradingDay,
  nyseHolidays,
  previousTradingDay,
  tradingDays,
} from './calendar.ts';

describe('NYSE calendar', () => {
  it('lists the 2024 holidays as the exchange published them', () => {
    expect(nyseHolidays(2024)).to.deep.equal([
      '2024-01-01',
      '2024-01-15',
      '2024-02-19',
      '2024-03-29',
      '2024-05-27',
      '2024-06-19',
      '2024-07-04',
      '2024-09-02',
      '2024-11-28',
      '2024-12-25',
    ]);
  });

  it('moves Sunday holidays to Monday and Saturday holidays to Friday', () => {
    expect(nyseHolidays(2022)).to.include.members(['2022-06-20', '2022-12-26']);
    expect(nyseHolidays(2021)).to.include.members(['2021-07-05', '2021-12-24']);
    expect(nyseHolidays(2020)).to.include('2020-07-03');
    expect(nyseHolidays(2023)).to.include('2023-01-02');
  });

  it('keeps the Friday before a Saturday New Year open', () => {
    expect(isTradingDay('2021-12-31')).to.equal(true);
    expect(nyseHolidays(2022)).to.not.include('2021-12-31');
    expect(nyseHolidays(2022)[0]).to.equal('2022-01-17');
  });

  it('finds Good Friday from the date of Easter', () => {
    expect(nyseHolidays(2019)).to.include('2019-04-19');
    expect(nyseHolidays(2021)).to.include('2021-04-02');
    expect(nyseHolidays(2022)).to.include('2022-04-15');
    expect(nyseHolidays(2023)).to.include('2023-04-07');
    expect(nyseHolidays(2025)).to.include('2025-04-18');
  });

  it('observes Juneteenth only from 2022', () => {
    expect(nyseHolidays(2021).some((d) => d.startsWith('2021-06'))).to.equal(false);
    expect(isTradingDay('2021-06-18')).to.equal(true);
    expect(nyseHolidays(2027)).to.include('2027-06-18');
  });

  it('counts the trading days of whole years', () => {
    expect(tradingDays('2021-01-01', '2021-12-31')).to.have.length(252);
    expect(tradingDays('2022-01-01', '2022-12-31')).to.have.length(251);
    expect(tradingDays('2023-01-01', '2023-12-31')).to.have.length(250);
    expect(tradingDays('2024-01-01', '2024-12-31')).to.have.length(252);
  });

  it('includes both ends of a range and skips weekends', () => {
    expect(tradingDays('2024-12-20', '2024-12-31')).to.deep.equal([
      '2024-12-20',
      '2024-12-23',
      '2024-12-24',
      '2024-12-26',
      '2024-12-27',
      '2024-12-30',
      '2024-12-31',
    ]);
    expect(tradingDays('2024-12-28', '2024-12-29')).to.deep.equal([]);
  });

  it('steps to the previous and next trading day over weekends and holidays', () => {
    expect(nextTradingDay('2024-12-24')).to.equal('2024-12-26');
    expect(previousTradingDay('2024-12-26')).to.equal('2024-12-24');
    expect(previousTradingDay('2024-04-01')).to.equal('2024-03-28');
    expect(nextTradingDay('2024-12-31')).to.equal('2025-01-02');
    expect(previousTradingDay('2024-01-02')).to.equal('2023-12-29');
    expect(nextTradingDay('2024-11-27')).to.equal('2024-11-29');
  });

  it('refuses dates that are not on the calendar', () => {
    expect(isValidDate('2024-02-29')).to.equal(true);
    expect(isValidDate('2023-02-29')).to.equal(false);
    expect(isValidDate('2024-1-05')).to.equal(false);
    expect(() => isTradingDay('2024-13-01')).to.throw(RangeError);
    expect(addDays('2024-02-28', 2)).to.equal('2024-03-01');
  });
});
