import { expect } from 'chai';
import { DATE_TICKS_MAX, tradingDayAxis } from './dateAxis.ts';

describe('the axis of trading days', function () {
  it('titles the dates once as New York trading days', function () {
    expect(tradingDayAxis().title).to.deep.equal({ text: 'Date (New York trading day)', font: { size: 11 } });
    expect(tradingDayAxis().type).to.equal('date');
  });

  it('gives each of a few days a tick of its own, labelled by its day, not hours between them', function () {
    const dates = ['2026-12-01', '2026-12-02', '2026-12-03', '2026-12-04'];
    const axis = tradingDayAxis(dates);
    expect(axis.tickmode).to.equal('array');
    expect(axis.tickvals).to.deep.equal(dates);
    expect(axis.tickformat).to.equal('%b %-d');
    expect(tradingDayAxis(['2026-12-01']).tickvals).to.deep.equal(['2026-12-01']);
  });

  it("leaves the ticks of many days, or of none, to the chart's own choice", function () {
    const many = Array.from({ length: DATE_TICKS_MAX + 1 }, (_, i) => `2026-11-${String(i + 1).padStart(2, '0')}`);
    expect(tradingDayAxis(many).tickmode).to.equal(undefined);
    expect(tradingDayAxis([]).tickvals).to.equal(undefined);
  });
});
