import { expect } from 'chai';
import { columnPlaces, rowChanges } from './grid.ts';
import type { WatchlistRow } from './watchlist.machine.ts';

function row(symbol: string, price: number | null = 100, saving = false): WatchlistRow {
  return {
    symbol,
    name: `${symbol} Inc.`,
    sector: 'Energy',
    price,
    change: 1,
    changepct: 1,
    marketcap: 1e9,
    volume: 1000,
    saving,
  };
}

describe('watch list grid', () => {
  it('gives the grid only the rows whose figures moved', () => {
    const shown = Array.from({ length: 200 }, (_, i) => row(`S${i}`));
    const next = shown.map((r, i) => (i === 7 || i === 150 ? row(r.symbol, 101) : row(r.symbol)));
    const changes = rowChanges(shown, next);
    expect(changes).to.deep.equal({ add: [], remove: [], update: [next[7], next[150]] });
    expect(
      rowChanges(
        shown,
        shown.map((r) => row(r.symbol)),
      ),
      'same figures: nothing',
    ).to.equal(null);
  });

  it('adds new symbols at the end, removes the ones gone and updates a row being saved', () => {
    const shown = [row('AAPL'), row('MSFT'), row('KO')];
    const next = [row('AAPL'), row('MSFT', 100, true), row('XOM')];
    expect(rowChanges(shown, next)).to.deep.equal({ add: [next[2]], remove: [shown[2]], update: [next[1]] });
  });

  it('gives every row again when the order of the rows kept changed', () => {
    const shown = [row('AAPL'), row('MSFT')];
    expect(rowChanges(shown, [row('MSFT'), row('AAPL')])).to.deep.equal({ rows: [row('MSFT'), row('AAPL')] });
    expect(rowChanges(shown, [row('XOM'), row('AAPL'), row('MSFT')])).to.deep.equal({
      rows: [row('XOM'), row('AAPL'), row('MSFT')],
    });
  });

  it('shows symbol, price, change and % change first on a phone, within its 390 px', () => {
    const narrow = columnPlaces(true);
    expect(narrow.slice(0, 4).map((c) => c.id)).to.deep.equal(['symbol', 'price', 'change', 'changepct']);
    // 390 px less the page's margins (16 px each side) and the grid's borders.
    const used = narrow.slice(0, 4).reduce((sum, c) => sum + c.width, 0);
    expect(used).to.be.at.most(390 - 2 * 16 - 4);
    expect(
      narrow.every((c) => c.flex === undefined),
      'no column stretched past its width',
    ).to.equal(true);
    const ids = (narrow: boolean) =>
      columnPlaces(narrow)
        .map((c) => c.id)
        .sort();
    expect(ids(true), 'every column in both layouts').to.deep.equal(ids(false));
  });
});
