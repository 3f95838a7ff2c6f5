import { expect } from 'chai';
import { ALERT_SORTS, alertSortOf, compareExpiry, sortOfColumns, sortState } from './alertSort.ts';

describe('alert manager: sort by', () => {
  it('offers each order once, the grid’s first at the top, and sorts by its column alone', () => {
    expect(new Set(ALERT_SORTS.map((sort) => sort.key)).size).to.equal(ALERT_SORTS.length);
    expect(ALERT_SORTS[0]).to.include({ colId: 'lastfired', sort: 'desc' });
    expect(sortState(alertSortOf('triggers')!)).to.deep.equal({
      state: [{ colId: 'triggercount', sort: 'desc' }],
      defaultState: { sort: null },
    });
    expect(alertSortOf('nothing')).to.equal(undefined);
  });

  it('names the offered order the grid is sorted by, and none for another or for several columns', () => {
    expect(
      sortOfColumns([
        { colId: 'symbol', sort: null },
        { colId: 'expires', sort: 'asc' },
      ])?.key,
    ).to.equal('expires');
    expect(sortOfColumns([{ colId: 'symbol', sort: 'desc' }])).to.equal(undefined);
    expect(sortOfColumns([{ colId: 'alert', sort: 'asc' }])).to.equal(undefined);
    expect(
      sortOfColumns([
        { colId: 'symbol', sort: 'asc' },
        { colId: 'status', sort: 'asc' },
      ]),
    ).to.equal(undefined);
    expect(sortOfColumns([])).to.equal(undefined);
  });

  it('puts the alerts that never expire after every expiry', () => {
    const expiries = [null, '2030-01-02T21:00:00Z', '2027-06-30T20:00:00.000Z', undefined, '2028-01-01T00:00:00Z'];
    expect([...expiries].sort(compareExpiry)).to.deep.equal([
      '2027-06-30T20:00:00.000Z',
      '2028-01-01T00:00:00Z',
      '2030-01-02T21:00:00Z',
      null,
      undefined,
    ]);
    expect(compareExpiry('2030-01-02T21:00:00Z', '2030-01-02T21:00:00.000Z')).to.equal(0);
  });
});
