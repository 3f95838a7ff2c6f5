/**
 * The Search page (/StockSearch): a screener. Quick-fill over presets and saved queries, a clause builder with
 * chips to remove by label, results in AG Grid (live while the stream is on), save and delete queries, and the
 * bottom container with the clicked row's chart; the main container is 90vh, or 78vh with the bottom one.
 */
import { useMachine } from '@xstate/react';
import type {
  CellKeyDownEvent,
  ColDef,
  ICellRendererParams,
  RowClickedEvent,
  RowSelectedEvent,
  SortChangedEvent,
} from 'ag-grid-community';
import { useEffect, useId, useMemo, useState, type FormEvent } from 'react';
import { formatNumber, formatSignedPercent } from '../../../domain/format.ts';
import { metricInfo, type MetricType } from '../../../domain/screener/metrics.ts';
import { patternInfo } from '../../../domain/screener/patterns.ts';
import { Grid } from '../../components/Grid.tsx';
import { Empty, Failed, Skeleton } from '../../components/LoadState.tsx';
import { plural } from '../../components/plural.ts';
import { SymbolChip } from '../../components/SymbolChip.tsx';
import { signClass } from '../watchlist/quotes.ts';
import { ChartPanel } from './ChartPanel.tsx';
import { ClauseBuilder } from './ClauseBuilder.tsx';
import { QuickFill } from './QuickFill.tsx';
import {
  METRIC_COLUMNS,
  ROW_COUNTS,
  formatPrice,
  gridSort,
  queryColumns,
  keptBeside,
  savedNamed,
  type ResultRow,
} from './search.logic.ts';
import { searchMachine } from './search.machine.ts';
import './search.css';

/** Height of the main container without and with the bottom container (spec section 9). */
export const MAIN_HEIGHT = { alone: '90vh', withBottom: '78vh' } as const;

function show(value: number | null | undefined): string {
  return value === null || value === undefined ? 'n/a' : formatNumber(value);
}

function SymbolCell({ data }: ICellRendererParams<ResultRow>) {
  return data ? <SymbolChip symbol={data.symbol} /> : null;
}

function CloseCell({ data }: ICellRendererParams<ResultRow>) {
  if (!data) return null;
  const flash = data.flash && data.flashSeq > 0 ? `flash-${data.flash}` : undefined;
  return (
    <span key={data.flashSeq} className={`price ${flash ?? ''}`} aria-label={`${data.symbol} close`}>
      {formatPrice(data.close)}
    </span>
  );
}

function ChangeCell({ data }: ICellRendererParams<ResultRow>) {
  if (!data) return null;
  const flash = data.flash && data.flashSeq > 0 ? `flash-${data.flash}` : '';
  return (
    <span
      key={data.flashSeq}
      className={`price ${signClass(data.changepct)} ${flash}`}
      aria-label={`${data.symbol} change`}
    >
      {formatSignedPercent(data.changepct)}
    </span>
  );
}

/** The metric type and header of a metric column key (`perf_1M` → perf, `Performance % 1M`). */
function metricHeader(key: (typeof METRIC_COLUMNS)[number]): { type: MetricType; header: string } {
  const [type, param] = key.startsWith('perf_')
    ? (['perf', key.slice('perf_'.length)] as const)
    : key.startsWith('price_vs_sma_')
      ? (['price_vs_sma', key.slice('price_vs_sma_'.length)] as const)
      : ([key as MetricType, ''] as const);
  const { label } = metricInfo(type);
  return { type, header: param === '' ? label : `${label.replace(' %', '')} ${param} %` };
}

/** The columns of the metrics a query reads; the others stay out of the grid. */
function metricColumns(used: ReadonlySet<string>): ColDef<ResultRow>[] {
  return METRIC_COLUMNS.filter((key) => used.has(key)).map((key) => {
    const { type, header } = metricHeader(key);
    const { definition } = metricInfo(type);
    return {
      field: key,
      headerName: header,
      headerTooltip: definition,
      width: 130,
      type: 'numericColumn',
      valueFormatter: (p: { value: number | null | undefined }) => show(p.value),
    };
  });
}

function patternsText(patterns: readonly string[]): string {
  return patterns.map((p) => patternInfo(p)?.label ?? p).join(', ');
}

/** The result columns: the query's columns come first after the name, marked. */
export function resultColumns(used: ReadonlySet<string>): ColDef<ResultRow>[] {
  const numeric = (field: 'SMA_50' | 'SMA_200' | 'rsi_14', headerName: string) => ({
    field,
    headerName,
    width: 100,
    type: 'numericColumn',
    // Two decimals on every row (RSI too), so the column's figures line up.
    valueFormatter: (p: { value: number | null | undefined }) => formatPrice(p.value),
  });
  const all: ColDef<ResultRow>[] = [
    // The cells are components; their formatters give the same text to the CSV export.
    {
      field: 'close',
      headerName: 'Close',
      width: 100,
      type: 'numericColumn',
      cellRenderer: CloseCell,
      valueFormatter: (p) => formatPrice(p.value as number | null),
    },
    {
      field: 'changepct',
      headerName: 'Change %',
      width: 110,
      type: 'numericColumn',
      cellRenderer: ChangeCell,
      valueFormatter: (p) => formatSignedPercent(p.value as number | null),
    },
    {
      field: 'marketcap',
      headerName: 'Market cap',
      width: 120,
      type: 'numericColumn',
      valueFormatter: (p) => show(p.value as number),
    },
    numeric('SMA_50', 'SMA 50'),
    numeric('SMA_200', 'SMA 200'),
    numeric('rsi_14', 'RSI 14'),
    {
      field: 'patterns',
      headerName: 'Patterns',
      flex: 1,
      minWidth: 140,
      valueFormatter: (p) => patternsText((p.value as readonly string[] | undefined) ?? []),
      comparator: (a: readonly string[], b: readonly string[]) => a.length - b.length,
    },
    ...metricColumns(used),
    ...(used.has('industry') ? [{ field: 'industry', headerName: 'Industry', width: 200 } as ColDef<ResultRow>] : []),
  ];
  const marked = all.map((col) =>
    used.has(col.field ?? '')
      ? {
          ...col,
          headerClass: 'query-column',
          cellClass: 'query-column',
          headerTooltip: col.headerTooltip ?? 'Used by the query',
        }
      : col,
  );
  return [
    { field: 'symbol', headerName: 'Symbol', width: 120, pinned: 'left', cellRenderer: SymbolCell },
    { field: 'name', headerName: 'Name', flex: 1, minWidth: 180 },
    ...marked.filter((col) => used.has(col.field ?? '')),
    {
      field: 'sector',
      headerName: 'Sector',
      width: 170,
      ...(used.has('sector') ? { headerClass: 'query-column', cellClass: 'query-column' } : {}),
    },
    ...marked.filter((col) => !used.has(col.field ?? '')),
  ];
}

function isControl(target: EventTarget | null | undefined): boolean {
  return target instanceof Element && target.closest('a, button, input') !== null;
}

/** The Search page. */
export default function SearchScreen() {
  const [state, send] = useMachine(searchMachine);
  const ctx = state.context;
  const panelId = useId();
  const [saveName, setSaveName] = useState('');
  useEffect(() => setSaveName(ctx.queryName), [ctx.queryName]);

  const bottomShown = state.matches({ bottom: 'shown' });
  const streaming = state.matches({ stream: 'on' });
  const used = useMemo(() => queryColumns(ctx.clauses), [ctx.clauses]);
  const columns = useMemo(() => resultColumns(used), [used]);
  const chartStatus = state.matches({ chart: 'loading' })
    ? 'loading'
    : state.matches({ chart: 'ready' })
      ? 'ready'
      : state.matches({ chart: 'failed' })
        ? 'failed'
        : 'empty';

  // A name already held (any case) replaces that query on saving: the form says so before the click.
  const replacing = savedNamed(ctx.saved, saveName);
  // The loaded query under a new name is saved as a copy: the form says the original stays.
  const copying = keptBeside(ctx.saved, ctx.queryName, saveName);
  const save = (event: FormEvent) => {
    event.preventDefault();
    send({ type: 'user.save', name: saveName });
  };

  return (
    <section className="screen search-screen">
      <div
        className="search-main"
        role="region"
        aria-label="Screener"
        style={{ height: bottomShown ? MAIN_HEIGHT.withBottom : MAIN_HEIGHT.alone }}
      >
        <div className="search-header">
          <h1>Search</h1>
          <div className="search-switches">
            <label className="inline">
              <input
                type="checkbox"
                role="switch"
                checked={streaming}
                onChange={() => send({ type: 'user.toggleStream' })}
              />
              Stream live
            </label>
            <label className="inline">
              Rows
              <select
                value={ctx.rowCount}
                onChange={(e) => send({ type: 'user.setRowCount', count: Number(e.target.value) })}
              >
                {ROW_COUNTS.map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
            </label>
            <button type="button" className="button" onClick={() => send({ type: 'user.run' })}>
              Run again
            </button>
            <button
              type="button"
              className="button"
              aria-expanded={bottomShown}
              aria-controls={panelId}
              onClick={() => send({ type: 'user.toggleBottom' })}
            >
              {bottomShown ? 'Hide chart panel' : 'Show chart panel'}
            </button>
          </div>
        </div>
        <div className="search-top">
          <QuickFill
            presets={ctx.presets}
            saved={ctx.saved}
            loading={state.matches({ lists: 'loading' })}
            error={state.matches({ lists: 'failed' }) ? ctx.listsError : null}
            onRetry={() => send({ type: 'user.retryLists' })}
            onApply={(name, clauses) => send({ type: 'user.applyQuery', name, clauses })}
            onAdd={(clauses) => send({ type: 'user.addClauses', clauses })}
            onDelete={(id) => send({ type: 'user.deleteSaved', id })}
            confirming={state.matches({ saving: 'confirming' }) ? (ctx.confirming?.id ?? null) : null}
            onConfirmDelete={() => send({ type: 'user.confirmDelete' })}
            onKeep={() => send({ type: 'user.keepSaved' })}
          />
          <div className="search-query">
            <ClauseBuilder
              error={ctx.clauseError}
              industries={ctx.industries}
              onAdd={(clause, label) => send({ type: 'user.addClause', clause, label })}
            />
            <div className="clause-chips-row">
              {ctx.clauses.length === 0 ? (
                <p className="hint">No clauses: every stock matches. Pick a preset or saved query, or add a clause.</p>
              ) : (
                <ul className="clause-chips" aria-label="Query clauses">
                  {ctx.clauses.map((clause) => (
                    <li key={clause.label} className="clause-chip">
                      <span>{clause.label}</span>
                      <button
                        type="button"
                        className="icon-button small"
                        aria-label={`Remove ${clause.label}`}
                        onClick={() => send({ type: 'user.removeClause', label: clause.label })}
                      >
                        ✕
                      </button>
                    </li>
                  ))}
                  <li>
                    <button type="button" className="button small" onClick={() => send({ type: 'user.clearQuery' })}>
                      Clear all
                    </button>
                  </li>
                </ul>
              )}
            </div>
            <form className="save-query" onSubmit={save} aria-label="Save the query">
              <label className="inline">
                Query name
                <input
                  value={saveName}
                  maxLength={80}
                  placeholder="empty: named after its clauses"
                  onChange={(e) => setSaveName(e.target.value)}
                />
              </label>
              <button type="submit" className="button" disabled={state.matches({ saving: 'saving' })}>
                {state.matches({ saving: 'saving' }) ? 'Saving…' : replacing ? 'Replace query' : 'Save query'}
              </button>
              {replacing && (
                <span className="hint" role="status">
                  Replaces the saved query “{replacing.queryname}”
                </span>
              )}
              {copying && (
                <span className="hint" role="status">
                  Saves a new query; “{copying.queryname}” stays as it is (delete it to keep only the new name)
                </span>
              )}
              {ctx.saveError && (
                <span className="error" role="alert">
                  {ctx.saveError}
                </span>
              )}
            </form>
          </div>
        </div>
        <div className="search-results">
          {state.matches({ results: 'running' }) ? (
            <Skeleton lines={8} height={22} />
          ) : state.matches({ results: 'failed' }) ? (
            <Failed message={ctx.runError ?? 'The query could not be run'} onRetry={() => send({ type: 'user.run' })} />
          ) : ctx.rows.length === 0 ? (
            <Empty>No stock matches this query: remove a clause or pick another preset.</Empty>
          ) : (
            <>
              <p className="hint" aria-live="polite">
                Showing {ctx.rows.length} of {plural(ctx.total, 'matching stock')}
                {streaming ? ' · live' : ''}. Click a row to chart it.
              </p>
              <div className="search-grid">
                <Grid<ResultRow>
                  rowData={ctx.rows as ResultRow[]}
                  columnDefs={columns}
                  getRowId={(p) => p.data.symbol}
                  rowSelection={{ mode: 'multiRow', enableClickSelection: false }}
                  onRowClicked={(e: RowClickedEvent<ResultRow>) => {
                    if (e.data && !isControl(e.event?.target)) send({ type: 'user.clickRow', symbol: e.data.symbol });
                  }}
                  onCellKeyDown={(e: CellKeyDownEvent<ResultRow>) => {
                    const key = (e.event as KeyboardEvent | null | undefined)?.key;
                    if (key === 'Enter' && e.data && !isControl(e.event?.target)) {
                      send({ type: 'user.clickRow', symbol: e.data.symbol });
                    }
                  }}
                  onSortChanged={(e: SortChangedEvent<ResultRow>) => {
                    // A header clicked: every match is sorted again by the server, not only the rows held.
                    if (e.source === 'uiColumnSorted')
                      send({ type: 'user.sort', sort: gridSort(e.api.getColumnState()) });
                  }}
                  onRowSelected={(e: RowSelectedEvent<ResultRow>) => {
                    if (e.data && e.source !== 'rowDataChanged') {
                      send({ type: 'user.selectRow', symbol: e.data.symbol, selected: e.node.isSelected() === true });
                    }
                  }}
                />
              </div>
            </>
          )}
        </div>
      </div>
      {bottomShown && (
        <ChartPanel
          id={panelId}
          symbol={ctx.chartSymbol}
          status={chartStatus}
          mode={ctx.chartMode}
          bars={ctx.bars}
          points={ctx.chartPoints}
          error={ctx.chartError}
          clickContext={ctx.clickContext}
          onPick={(id) => send({ type: 'user.pickContext', id })}
          onRetry={() => send({ type: 'user.retryChart' })}
        />
      )}
    </section>
  );
}
