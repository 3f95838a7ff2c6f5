/**
 * The watch list: a grid of the user's symbols with company, sector, live price and change (flashing on
 * change), market cap and volume; a symbol search to add one, a button per row to remove it, and a link to the
 * company statistics of each.
 */
import { useMachine } from '@xstate/react';
import type { ColDef, ICellRendererParams, ValueFormatterParams } from 'ag-grid-community';
import { useCallback, useMemo } from 'react';
import { formatNumber } from '../../../domain/format.ts';
import { Grid, gridTheme } from '../../components/Grid.tsx';
import { Link } from '../../components/Link.tsx';
import { Dismissible, Empty, LoadState } from '../../components/LoadState.tsx';
import { PriceFlash } from '../../components/PriceFlash.tsx';
import { SymbolChip } from '../../components/SymbolChip.tsx';
import { SymbolSearch } from '../../components/SymbolSearch.tsx';
import type { UniverseHit } from '../../components/symbolSearch.machine.ts';
import { tabWithinCell } from './gridKeys.ts';
import { formatPercent, formatPrice, formatSigned, signClass } from './quotes.ts';
import { watchlistMachine, watchlistRows, type WatchlistRow } from './watchlist.machine.ts';
import './watchlist.css';

/** What the grid's cells can do. */
interface GridContext {
  readonly remove: (symbol: string) => void;
}

type Cell = ICellRendererParams<WatchlistRow, unknown, GridContext>;

function SymbolCell({ data }: Cell) {
  return data ? <SymbolChip symbol={data.symbol} addable={false} /> : null;
}

function PriceCell({ data }: Cell) {
  return data ? <PriceFlash value={data.price}>{formatPrice(data.price)}</PriceFlash> : null;
}

function ChangeCell({ data }: Cell) {
  if (!data) return null;
  return (
    <PriceFlash value={data.change} className={signClass(data.change)}>
      {formatSigned(data.change)}
    </PriceFlash>
  );
}

function PercentCell({ data }: Cell) {
  if (!data) return null;
  return (
    <PriceFlash value={data.changepct} className={signClass(data.changepct)}>
      {formatPercent(data.changepct)}
    </PriceFlash>
  );
}

function ActionsCell({ data, context }: Cell) {
  if (!data) return null;
  return (
    <span className="watchlist-actions">
      <Link to={`/CompanyStats?stock=${encodeURIComponent(data.symbol)}`} aria-label={`Statistics of ${data.symbol}`}>
        Statistics
      </Link>
      <button
        type="button"
        className="icon-button small"
        aria-label={`Remove ${data.symbol} from the watch list`}
        title="Remove from the watch list"
        disabled={data.saving}
        onClick={() => context.remove(data.symbol)}
      >
        ✕
      </button>
    </span>
  );
}

/** The app's grid theme without the empty space an auto-height grid keeps under a few rows. */
const watchlistTheme = gridTheme.withParams({ autoHeightMinBodyHeight: 0 });

const bigNumber = ({ value }: ValueFormatterParams<WatchlistRow, number | null>) =>
  value === null || value === undefined ? '–' : formatNumber(value);

/** A column's text as the cell draws it, for the CSV export (the cell itself is a component). */
const shownAs =
  (format: (value: number | null) => string) =>
  ({ value }: ValueFormatterParams<WatchlistRow, number | null>) =>
    format(value ?? null);

const columns: ColDef<WatchlistRow>[] = [
  {
    headerName: 'Symbol',
    field: 'symbol',
    width: 120,
    cellRenderer: SymbolCell,
    suppressKeyboardEvent: tabWithinCell,
  },
  { headerName: 'Company', field: 'name', flex: 1, minWidth: 180 },
  { headerName: 'Sector', field: 'sector', width: 190 },
  {
    headerName: 'Price',
    field: 'price',
    width: 110,
    type: 'rightAligned',
    cellRenderer: PriceCell,
    valueFormatter: shownAs(formatPrice),
  },
  {
    headerName: 'Change',
    field: 'change',
    width: 100,
    type: 'rightAligned',
    cellRenderer: ChangeCell,
    valueFormatter: shownAs(formatSigned),
  },
  {
    headerName: '% Change',
    field: 'changepct',
    width: 110,
    type: 'rightAligned',
    cellRenderer: PercentCell,
    valueFormatter: shownAs(formatPercent),
  },
  { headerName: 'Market cap', field: 'marketcap', width: 120, type: 'rightAligned', valueFormatter: bigNumber },
  { headerName: 'Volume', field: 'volume', width: 110, type: 'rightAligned', valueFormatter: bigNumber },
  {
    headerName: 'Actions',
    colId: 'actions',
    width: 130,
    sortable: false,
    resizable: false,
    cellRenderer: ActionsCell,
    suppressKeyboardEvent: tabWithinCell,
  },
];

/** The watch list screen. */
export default function WatchlistScreen() {
  const [state, send] = useMachine(watchlistMachine);
  const { symbols, error, saveError } = state.context;
  const rows = useMemo(() => watchlistRows(state.context), [state.context]);
  const listed = useMemo(() => new Set(symbols), [symbols]);
  const remove = useCallback((symbol: string) => send({ type: 'user.remove', symbol }), [send]);
  const gridContext = useMemo<GridContext>(() => ({ remove }), [remove]);
  const add = useCallback((hit: UniverseHit) => send({ type: 'user.add', symbol: hit.symbol }), [send]);

  return (
    <section className="screen watchlist" aria-labelledby="watchlist-title">
      <div className="watchlist-header">
        <h1 id="watchlist-title">Watch list</h1>
        {state.matches('ready') && (
          <p className="hint" aria-live="polite">
            {symbols.length === 1 ? '1 symbol' : `${symbols.length} symbols`}
            {state.matches({ ready: 'saving' }) ? ' · saving…' : ' · prices update live'}
          </p>
        )}
      </div>
      <div className="toolbar">
        <SymbolSearch
          label="Add a symbol"
          placeholder="Symbol or company, e.g. NVDA or Apple"
          onPick={add}
          marked={listed}
          markedText="on your watch list"
        />
      </div>
      {saveError && <Dismissible message={saveError} onDismiss={() => send({ type: 'user.dismissError' })} />}
      <LoadState
        loading={state.matches('loading')}
        error={state.matches('failed') ? (error ?? 'The watch list could not be loaded') : null}
        onRetry={() => send({ type: 'user.retry' })}
        lines={6}
      >
        {rows.length === 0 ? (
          <Empty>Your watch list is empty: search a symbol to add</Empty>
        ) : (
          <div className="watchlist-grid" role="region" aria-label="Watch list symbols">
            <Grid<WatchlistRow>
              theme={watchlistTheme}
              rowData={rows}
              columnDefs={columns}
              getRowId={(p) => p.data.symbol}
              context={gridContext}
              domLayout="autoHeight"
            />
          </div>
        )}
      </LoadState>
    </section>
  );
}
