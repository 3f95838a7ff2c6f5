import { expect } from 'chai';
import type { ColDef, Column } from 'ag-grid-community';
import { FOLDED, ON_SCREEN_ONLY, compareCells, exportedColumns, exportFileName, exportStem } from './Grid.tsx';

/** A column with the given definition, displayed unless `hidden`. */
const column = (def: ColDef, hidden = false): Column =>
  ({ getColDef: () => def, isVisible: () => !hidden }) as unknown as Column;

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

  it('exports the columns a layout folds into another cell, not the ones hidden otherwise nor a card', () => {
    const symbol = column({ field: 'symbol', headerName: 'Symbol' });
    const card = column({ headerName: 'Alert', valueGetter: () => 1, context: ON_SCREEN_ONLY });
    const folded = column({ field: 'frequency', headerName: 'Frequency', context: FOLDED }, true);
    const hidden = column({ field: 'note', headerName: 'Note' }, true);
    expect(exportedColumns([symbol, card, folded, hidden])).to.deep.equal([symbol, folded]);
  });
});

describe('grid order', () => {
  it('orders texts as a reader does, whatever their case, numbers within them by value, empty cells first', () => {
    const names = ['AT&T Inc.', 'AbbVie Inc.', 'AMN Healthcare', 'Abbott Laboratories', 'adobe'];
    expect([...names].sort(compareCells)).to.deep.equal([
      'Abbott Laboratories',
      'AbbVie Inc.',
      'adobe',
      'AMN Healthcare',
      'AT&T Inc.',
    ]);
    expect(['A10', 'A2'].sort(compareCells)).to.deep.equal(['A2', 'A10']);
    expect([3, null, 1].sort(compareCells)).to.deep.equal([null, 1, 3]);
  });
});
