import { expect } from 'chai';
import type { ColDef, Column } from 'ag-grid-community';
import { exportedColumns, exportFileName, exportStem } from './Grid.tsx';

/** A displayed column with the given definition. */
const column = (def: ColDef): Column => ({ getColDef: () => def }) as unknown as Column;

describe('grid CSV export', () => {
  it('names the file after the screen and the symbol it shows, then the date', () => {
    expect(exportFileName(exportStem('/PriceCharts', '?stock=XOM'), '2026-11-25')).to.equal(
      'PriceCharts-XOM-2026-11-25.csv',
    );
    expect(exportFileName(exportStem('/Watchlist', ''), '2026-11-25')).to.equal('Watchlist-2026-11-25.csv');
    expect(exportFileName(exportStem('/', ''), '2026-11-25')).to.equal('StockPulse-2026-11-25.csv');
  });

  it('keeps only characters a file name can hold', () => {
    expect(exportFileName('audit-ann/../etc', '2026-11-25')).to.equal('audit-ann_.._etc-2026-11-25.csv');
    expect(exportFileName('Q3 "best" ideas', '2026-11-25')).to.equal('Q3_best_ideas-2026-11-25.csv');
    expect(exportFileName('///', '2026-11-25')).to.equal('table-2026-11-25.csv');
  });

  it('exports the columns that show data, not the button columns', () => {
    const symbol = column({ field: 'symbol', headerName: 'Symbol' });
    const computed = column({ headerName: 'Spread', valueGetter: () => 1 });
    const actions = column({ headerName: '', colId: 'actions' });
    expect(exportedColumns([symbol, actions, computed])).to.deep.equal([symbol, computed]);
  });
});
