/**
 * The watch list: a grid of the user's symbols with company, sector, live price and change (flashing on
 * change), market cap and volume; a symbol search to add one, a button per row to remove it, and a link to the
 * company statistics of each. The screen draws again only when the list or its status changes; live quotes reach
 * the grid as transactions of the rows that moved. On a phone held upright, symbol, price and changes come first.
 */
import { useActorRef, useSelector } from '@xstate/react';
import type { ColDef, GridApi, GridReadyEvent, ICellRendererParams, ValueFormatterParams } from 'ag-grid-community';
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import { formatNumber } from '../../../domain/format.ts';
import { Grid, gridTheme } from '../../components/Grid.tsx';
import { Link } from '../../components/Link.tsx';
import { Dismissible, Empty, LoadState } from '../../components/LoadState.tsx';
import { PriceFlash } from '../../components/PriceFlash.tsx';
import { SymbolChip } from '../../components/SymbolChip.tsx';
import { SymbolSearch } from '../../components/SymbolSearch.tsx';
import type { UniverseHit } from '../../components/symbolSearch.machine.ts';
import { NARROW_QUERY, useMediaQuery } from '../../services/media.ts';
import { AUTO_HEIGHT_ROWS, NARROW_CELL_PADDING, columnPlaces, rowChanges, type WatchlistColumn } from './grid.ts';
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

/** The theme on a phone held upright: less padding in the cells, so the prices and changes fit its width. */
const narrowTheme = watchlistTheme.withParams({ cellHorizontalPadding: NARROW_CELL_PADDING });

const bigNumber = ({ value }: ValueFormatterParams<WatchlistRow, number | null>) =>
  value === null || value === undefined ? '–' : formatNumber(value);

/** A column's text as the cell draws it, for the CSV export (the cell itself is a component). */
const shownAs =
  (format: (value: number | null) => string) =>
  ({ value }: ValueFormatterParams<WatchlistRow, number | null>) =>
    format(value ?? null);

/** Each column, by id; {@link columnPlaces} orders and sizes them for the window's width. */
const columnDefs: Record<WatchlistColumn, ColDef<WatchlistRow>> = {
  symbol: {
    headerName: 'Symbol',
    field: 'symbol',
    cellRenderer: SymbolCell,
    suppressKeyboardEvent: tabWithinCell,
  },
  name: { headerName: 'Company', field: 'name' },
  sector: { headerName: 'Sector', field: 'sector' },
  price: {
    headerName: 'Price',
    field: 'price',
    type: 'rightAligned',
    cellRenderer: PriceCell,
    valueFormatter: shownAs(formatPrice),
  },
  change: {
    headerName: 'Change',
    field: 'change',
    type: 'rightAligned',
    cellRenderer: ChangeCell,
    valueFormatter: shownAs(formatSigned),
  },
  changepct: {
    headerName: '% Change',
    field: 'changepct',
    type: 'rightAligned',
    cellRenderer: PercentCell,
    valueFormatter: shownAs(formatPercent),
  },
  marketcap: { headerName: 'Market cap', field: 'marketcap', type: 'rightAligned', valueFormatter: bigNumber },
  volume: { headerName: 'Volume', field: 'volume', type: 'rightAligned', valueFormatter: bigNumber },
  actions: {
    headerName: 'Actions',
    colId: 'actions',
    sortable: false,
    resizable: false,
    cellRenderer: ActionsCell,
    suppressKeyboardEvent: tabWithinCell,
  },
};

/** The columns of a layout, in its order and widths. */
const columnsFor = (narrow: boolean): ColDef<WatchlistRow>[] =>
  columnPlaces(narrow).map(({ id, width, flex }) => ({
    ...columnDefs[id],
    ...(flex === undefined ? { width, flex: undefined, minWidth: undefined } : { flex, minWidth: width }),
  }));

const wideColumns = columnsFor(false);
const narrowColumns = columnsFor(true);

type WatchlistActor = ActorRefFrom<typeof watchlistMachine>;

/**
 * The grid of the watch list: its rows are the machine's ({@link watchlistRows}); it is given them once, then
 * each change of the machine's state as a transaction of the rows it changed (applied with the next ones that come
 * within AG Grid's wait), so a batch of quotes redraws only the cells that moved.
 */
function WatchlistGrid(props: { readonly actor: WatchlistActor; readonly tall: boolean; readonly narrow: boolean }) {
  const { actor, tall, narrow } = props;
  const [initialRows] = useState(() => watchlistRows(actor.getSnapshot().context));
  const [api, setApi] = useState<GridApi<WatchlistRow> | null>(null);
  const remove = useCallback((symbol: string) => actor.send({ type: 'user.remove', symbol }), [actor]);
  const gridContext = useMemo<GridContext>(() => ({ remove }), [remove]);
  const onGridReady = useCallback((event: GridReadyEvent<WatchlistRow>) => setApi(event.api), []);

  useEffect(() => {
    if (!api) return undefined;
    let shown = initialRows;
    const follow = (snapshot: SnapshotFrom<WatchlistActor>) => {
      if (api.isDestroyed()) return;
      const next = watchlistRows(snapshot.context);
      const changes = rowChanges(shown, next);
      shown = next;
      if (changes === null) return;
      if ('rows' in changes) {
        // The transactions waiting are of older rows: applied first, then replaced.
        api.flushAsyncTransactions();
        api.setGridOption('rowData', changes.rows);
      } else {
        api.applyTransactionAsync(changes);
      }
    };
    follow(actor.getSnapshot());
    const subscription = actor.subscribe(follow);
    return () => subscription.unsubscribe();
  }, [api, actor, initialRows]);

  return (
    <div className={tall ? 'watchlist-grid tall' : 'watchlist-grid'} role="region" aria-label="Watch list symbols">
      <Grid<WatchlistRow>
        theme={narrow ? narrowTheme : watchlistTheme}
        rowData={initialRows}
        columnDefs={narrow ? narrowColumns : wideColumns}
        getRowId={(p) => p.data.symbol}
        context={gridContext}
        onGridReady={onGridReady}
        domLayout={tall ? 'normal' : 'autoHeight'}
      />
    </div>
  );
}

/** Where the screen is: loading, failed, or ready and saving a change or not. */
const phaseOf = (snapshot: SnapshotFrom<WatchlistActor>) =>
  snapshot.matches('loading')
    ? 'loading'
    : snapshot.matches('failed')
      ? 'failed'
      : snapshot.matches({ ready: 'saving' })
        ? 'saving'
        : 'ready';

/** The watch list screen. */
export default function WatchlistScreen() {
  const actor = useActorRef(watchlistMachine);
  const phase = useSelector(actor, phaseOf);
  const symbols = useSelector(actor, (s) => s.context.symbols);
  const error = useSelector(actor, (s) => s.context.error);
  const saveError = useSelector(actor, (s) => s.context.saveError);
  const narrow = useMediaQuery(NARROW_QUERY);
  const listed = useMemo(() => new Set(symbols), [symbols]);
  const add = useCallback((hit: UniverseHit) => actor.send({ type: 'user.add', symbol: hit.symbol }), [actor]);

  return (
    <section className="screen watchlist" aria-labelledby="watchlist-title">
      <div className="watchlist-header">
        <h1 id="watchlist-title">Watch list</h1>
        {(phase === 'ready' || phase === 'saving') && (
          <p className="hint" aria-live="polite">
            {symbols.length === 1 ? '1 symbol' : `${symbols.length} symbols`}
            {phase === 'saving' ? ' · saving…' : ' · prices update live'}
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
      {saveError && <Dismissible message={saveError} onDismiss={() => actor.send({ type: 'user.dismissError' })} />}
      <LoadState
        loading={phase === 'loading'}
        error={phase === 'failed' ? (error ?? 'The watch list could not be loaded') : null}
        onRetry={() => actor.send({ type: 'user.retry' })}
        lines={6}
      >
        {symbols.length === 0 ? (
          <Empty>Your watch list is empty: search a symbol to add</Empty>
        ) : (
          <WatchlistGrid actor={actor} tall={symbols.length > AUTO_HEIGHT_ROWS} narrow={narrow} />
        )}
      </LoadState>
    </section>
  );
}
