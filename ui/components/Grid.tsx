/**
 * AG Grid with the app's modules and theme registered once. Every table of the app goes through it.
 *
 * API: `<Grid rowData columnDefs … />` takes AG Grid's props, plus `compact` (the bell's denser theme) and
 * `exportName` (the stem of the CSV file; by default the screen's name and its `stock` parameter). Each grid
 * has an "Export CSV" button writing the displayed columns (those with a field or a value getter), and the ones a
 * narrower layout folds into another cell ({@link FOLDED}) but not a cell drawn for the screen only, of the
 * filtered, sorted rows with their formatted values, to `<stem>-<date>.csv`. The theme follows the app's (light or
 * dark, from `data-ag-theme-mode` on `<html>`), and cells are formatted again when the viewer switches between
 * market and local time, so value formatters may call `ui/services/time.ts` directly.
 */
import { AgGridReact, type AgGridReactProps } from 'ag-grid-react';
import { AllCommunityModule, ModuleRegistry, themeQuartz, type Column } from 'ag-grid-community';
import { useEffect, useRef } from 'react';
import { preferences } from '../services/preferences.ts';
import { todayStamp } from '../services/time.ts';

ModuleRegistry.registerModules([AllCommunityModule]);

/** The app's grid theme, with the dark colours of the app's dark theme. */
export const gridTheme = themeQuartz
  .withParams({
    fontFamily: 'inherit',
    fontSize: 13,
    headerFontWeight: 600,
    spacing: 6,
    accentColor: '#2563eb',
  })
  .withParams(
    {
      backgroundColor: '#161b22',
      foregroundColor: '#e6edf3',
      headerBackgroundColor: '#1f2630',
      borderColor: '#30363d',
      accentColor: '#4c8dff',
      oddRowBackgroundColor: '#161b22',
      chromeBackgroundColor: '#1f2630',
    },
    'dark',
  );

/** The compact variant (the bell's panel). */
export const compactGridTheme = gridTheme.withParams({ spacing: 3, fontSize: 12, rowHeight: 28, headerHeight: 30 });

/** A file name stem for a screen: its path and the `stock` it shows, if any (`PriceCharts-XOM`). */
export function exportStem(pathname: string, search: string): string {
  const screen = pathname.split('/').filter(Boolean).join('-') || 'StockPulse';
  const stock = new URLSearchParams(search).get('stock');
  return [screen, stock].filter(Boolean).join('-');
}

/** `<stem>-<YYYY-MM-DD>.csv`, with characters a file name cannot hold replaced. */
export function exportFileName(stem: string, date: string): string {
  const safe = stem.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^_+|_+$/g, '') || 'table';
  return `${safe}-${date}.csv`;
}

/** What a column's `context` may say of the CSV: whether it holds the column, whatever the default. */
interface ColumnCsv {
  readonly csv?: boolean;
}

/**
 * The `context` of a column a layout hides because another cell says what it holds (a narrower window's): the CSV
 * still holds it, so that what a grid exports does not depend on the window's width.
 */
export const FOLDED: ColumnCsv = { csv: true };

/** The `context` of a column drawn for the screen only (a card gathering folded columns): not in the CSV. */
export const ON_SCREEN_ONLY: ColumnCsv = { csv: false };

/**
 * The columns a CSV holds, of a grid's columns in their order: by default the displayed ones that show data (a
 * field or a value getter), not the buttons; a column's `context` may say otherwise ({@link FOLDED},
 * {@link ON_SCREEN_ONLY}).
 */
export function exportedColumns(columns: readonly Column[]): Column[] {
  return columns.filter((column) => {
    const def = column.getColDef();
    const csv = (def.context as ColumnCsv | undefined)?.csv;
    return csv ?? (column.isVisible() && (def.field !== undefined || def.valueGetter !== undefined));
  });
}

/** What the app adds to AG Grid's props. */
interface GridExtras {
  /** The compact theme (the bell's). */
  readonly compact?: boolean;
  /** The CSV file's stem. */
  readonly exportName?: string;
  /**
   * Something the cells' text is made from besides their rows (a list the screen loads on its own): when it
   * changes, every cell is drawn again (a cell is otherwise drawn again only when its row changes).
   */
  readonly refreshOn?: unknown;
}

/** A grid; `compact` selects the compact theme, `exportName` the CSV file's stem. */
/** Text compared as a reader orders it: letters whatever their case, numbers within it by value (`A2` before `A10`). */
const READER_ORDER = new Intl.Collator('en-US', { sensitivity: 'base', numeric: true });

/**
 * Every grid's order of two cells, unless a column has its own: texts as a reader orders them (`AbbVie` before
 * `AMN`, where the code points would put every capital first), others as the grid does (empty cells first, then
 * by value).
 */
export function compareCells(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return READER_ORDER.compare(a, b);
  if (a == null || b == null) return a == null ? (b == null ? 0 : -1) : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function Grid<Row>(props: AgGridReactProps<Row> & GridExtras) {
  const { compact, exportName, refreshOn, ...rest } = props;
  const grid = useRef<AgGridReact<Row>>(null);

  // Every cell drawn again: when the screen's own list changes, and when a preference (the time zone) does.
  const redraw = () => {
    const api = grid.current?.api;
    if (api && !api.isDestroyed()) api.refreshCells({ force: true });
  };
  useEffect(redraw, [refreshOn]);
  useEffect(() => preferences.subscribe(redraw), []);

  const exportCsv = () => {
    const api = grid.current?.api;
    if (!api || api.isDestroyed()) return;
    const stem = exportName ?? exportStem(window.location.pathname, window.location.search);
    api.exportDataAsCsv({
      fileName: exportFileName(stem, todayStamp()),
      columnKeys: exportedColumns(api.getAllGridColumns()),
    });
  };

  return (
    <div className="grid-frame">
      <div className="grid-tools">
        <button type="button" className="button grid-export" onClick={exportCsv} title="Download the rows shown as CSV">
          Export CSV
        </button>
      </div>
      <div className="grid-body">
        <AgGridReact<Row>
          ref={grid}
          theme={compact ? compactGridTheme : gridTheme}
          suppressDragLeaveHidesColumns
          {...rest}
          defaultColDef={{
            suppressHeaderMenuButton: true,
            sortable: true,
            resizable: true,
            comparator: compareCells,
            ...rest.defaultColDef,
          }}
        />
      </div>
    </div>
  );
}
