/**
 * The alert manager (`/Alerts`): every alert of the user in a grid (symbol, the condition in words, frequency,
 * expiry, status, last fired, number of triggers), a text and status filter, sortable columns, row selection to
 * delete several at once, a condition builder to create or change one, pause/resume, and each alert's history.
 */
import { useMachine } from '@xstate/react';
import type { ColDef, ICellRendererParams, SelectionChangedEvent, ValueFormatterParams } from 'ag-grid-community';
import { useCallback, useMemo } from 'react';
import { FREQUENCY_TEXT, formatSourceValue, parseSource } from '../../../domain/alerts/conditions.ts';
import type { AlertAnswer } from '../../../domain/contract/alerts.ts';
import { notificationTypeName } from '../../../domain/notifications/notifications.ts';
import { ConditionBuilder } from '../../components/ConditionBuilder.tsx';
import { draftOf, newDraft } from '../../components/conditionDraft.ts';
import { Grid, gridTheme } from '../../components/Grid.tsx';
import { Dismissible, Empty, Failed, LoadState, Skeleton } from '../../components/LoadState.tsx';
import { SymbolChip } from '../../components/SymbolChip.tsx';
import { usePreferences } from '../../services/preferences.ts';
import { formatDateTime } from '../../services/time.ts';
import { tabWithinCell } from '../watchlist/gridKeys.ts';
import { alertsMachine, selectedWith, visibleAlerts, type AlertsEvent, type StatusFilter } from './alerts.machine.ts';
import './alerts.css';

/** What the grid's cells can do. */
interface GridContext {
  readonly send: (event: AlertsEvent) => void;
  readonly busy: boolean;
}

type Cell = ICellRendererParams<AlertAnswer, unknown, GridContext>;

const STATUSES: readonly StatusFilter[] = ['all', 'armed', 'triggered', 'paused', 'expired'];

function SymbolCell({ data }: Cell) {
  return data ? <SymbolChip symbol={data.symbol} addable={false} /> : null;
}

function StatusCell({ data }: Cell) {
  return data ? <span className={`al-status ${data.status}`}>{data.status}</span> : null;
}

function ActionsCell({ data, context }: Cell) {
  if (!data) return null;
  const what = `${data.symbol} ${data.conditiontext}`;
  const paused = data.status === 'paused';
  return (
    <span className="al-actions">
      <button
        type="button"
        className="button small"
        aria-label={`Edit alert ${what}`}
        disabled={context.busy}
        onClick={() => context.send({ type: 'user.edit', id: data.id })}
      >
        Edit
      </button>
      <button
        type="button"
        className="button small"
        aria-label={`${paused ? 'Resume' : 'Pause'} alert ${what}`}
        disabled={context.busy || (!paused && data.status !== 'armed')}
        onClick={() => context.send({ type: paused ? 'user.resume' : 'user.pause', ids: [data.id] })}
      >
        {paused ? 'Resume' : 'Pause'}
      </button>
      <button
        type="button"
        className="button small"
        aria-label={`History of alert ${what}`}
        onClick={() => context.send({ type: 'user.showHistory', id: data.id })}
      >
        History
      </button>
      <button
        type="button"
        className="icon-button small"
        aria-label={`Delete alert ${what}`}
        title="Delete"
        disabled={context.busy}
        onClick={() => context.send({ type: 'user.delete', ids: [data.id] })}
      >
        ✕
      </button>
    </span>
  );
}

const time = ({ value }: ValueFormatterParams<AlertAnswer, string | null>) =>
  value === null || value === undefined ? '–' : formatDateTime(value);

const columns: ColDef<AlertAnswer>[] = [
  { headerName: 'Symbol', field: 'symbol', width: 100, cellRenderer: SymbolCell, suppressKeyboardEvent: tabWithinCell },
  { headerName: 'Condition', field: 'conditiontext', flex: 1, minWidth: 260 },
  {
    headerName: 'Frequency',
    field: 'frequency',
    width: 140,
    valueFormatter: ({ value }: ValueFormatterParams<AlertAnswer, AlertAnswer['frequency']>) =>
      value ? FREQUENCY_TEXT[value] : '',
  },
  {
    headerName: 'Expires',
    field: 'expires',
    width: 150,
    valueFormatter: ({ value }: ValueFormatterParams<AlertAnswer, string | null>) =>
      value === null || value === undefined ? 'Never' : formatDateTime(value),
  },
  { headerName: 'Status', field: 'status', width: 100, cellRenderer: StatusCell },
  { headerName: 'Last fired', field: 'lastfired', width: 170, valueFormatter: time, sort: 'desc' },
  { headerName: 'Triggers', field: 'triggercount', width: 95, type: 'rightAligned' },
  {
    headerName: '',
    colId: 'actions',
    width: 240,
    // Kept in view when the grid is wider than the page (the other columns scroll under it).
    pinned: 'right',
    sortable: false,
    resizable: false,
    cellRenderer: ActionsCell,
    suppressKeyboardEvent: tabWithinCell,
  },
];

/** The app's grid theme without the empty space an auto-height grid keeps under a few rows. */
const alertsTheme = gridTheme.withParams({ autoHeightMinBodyHeight: 0 });

/** A button of the toolbar acting on the selected rows. */
interface SelectionAction {
  readonly type: 'user.delete' | 'user.pause' | 'user.resume';
  readonly label: string;
  readonly title: string;
  readonly ids: readonly string[];
}

/** The alert manager screen. */
export default function AlertsScreen() {
  const [state, send] = useMachine(alertsMachine);
  usePreferences();
  const { context } = state;
  const rows = useMemo(() => visibleAlerts(context), [context]);
  const busy = !state.matches({ ready: { list: 'idle' } }) && !state.matches({ ready: { list: 'refreshing' } });
  const gridContext = useMemo<GridContext>(() => ({ send, busy }), [send, busy]);
  const onSelection = useCallback(
    (event: SelectionChangedEvent<AlertAnswer>) =>
      send({ type: 'user.select', ids: event.api.getSelectedRows().map((a) => a.id) }),
    [send],
  );
  const { editor, formProblem, history, historyId } = context;
  const edited = editor.mode === 'edit' ? context.alerts.find((a) => a.id === editor.id) : undefined;
  const historyAlert = context.alerts.find((a) => a.id === historyId);
  // A trigger's value is the source's: shown in its unit, as the message writes it.
  const source = parseSource(historyAlert?.condition.source ?? 'price');
  const historySource = typeof source === 'string' ? source : 'price';
  const saving = state.matches({ ready: { list: 'saving' } });
  // What the selected rows may have done at once: each counts the alerts it would change.
  const selectionActions: readonly SelectionAction[] = [
    { type: 'user.delete', label: 'Delete selected', title: 'Delete the selected alerts', ids: context.selected },
    {
      type: 'user.pause',
      label: 'Pause selected',
      title: 'Pause the armed alerts among the selected',
      ids: selectedWith(context, 'armed'),
    },
    {
      type: 'user.resume',
      label: 'Resume selected',
      title: 'Resume the paused alerts among the selected (each is armed afresh)',
      ids: selectedWith(context, 'paused'),
    },
  ];

  return (
    <section className="screen alerts" aria-labelledby="alerts-title">
      <div className="al-header">
        <h1 id="alerts-title">Alerts</h1>
        {state.matches('ready') && (
          <p className="hint" aria-live="polite">
            {context.alerts.length === 1 ? '1 alert' : `${context.alerts.length} alerts`}
            {rows.length !== context.alerts.length ? ` · ${rows.length} shown` : ''}
          </p>
        )}
      </div>
      <div className="toolbar al-toolbar">
        <label>
          Filter
          <input
            type="search"
            placeholder="Symbol or condition"
            value={context.filter.text}
            onChange={(e) => send({ type: 'user.filter', filter: { text: e.target.value } })}
          />
        </label>
        <label>
          Status
          <select
            value={context.filter.status}
            onChange={(e) => send({ type: 'user.filter', filter: { status: e.target.value as StatusFilter } })}
          >
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s === 'all' ? 'All' : s}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          className="button primary"
          disabled={!state.matches('ready')}
          onClick={() => send({ type: 'user.create' })}
        >
          New alert
        </button>
        {selectionActions.map(({ type, label, title, ids }) => (
          <button
            key={type}
            type="button"
            className="button"
            disabled={busy || ids.length === 0}
            title={title}
            onClick={() => send({ type, ids })}
          >
            {label} ({ids.length})
          </button>
        ))}
      </div>
      {context.actionError && (
        <Dismissible message={context.actionError} onDismiss={() => send({ type: 'user.dismissError' })} />
      )}
      {editor.mode !== 'closed' && (
        <section className="card al-editor" aria-labelledby="al-editor-title">
          <h2 id="al-editor-title">
            {edited ? `Change the alert on ${edited.symbol}: ${edited.conditiontext}` : 'New alert'}
          </h2>
          <ConditionBuilder
            key={edited?.id ?? 'new'}
            initial={edited ? draftOf(edited) : newDraft('')}
            {...(edited ? { id: edited.id } : {})}
            symbolField={!edited}
            problem={formProblem}
            busy={saving}
            submitLabel={saving ? 'Saving…' : edited ? 'Save and re-arm' : 'Create alert'}
            onSubmit={(body) => send({ type: 'user.save', body })}
            onCancel={() => send({ type: 'user.closeEditor' })}
          />
        </section>
      )}
      <LoadState
        loading={state.matches('loading')}
        error={state.matches('failed') ? (context.error ?? 'The alerts could not be loaded') : null}
        onRetry={() => send({ type: 'user.retry' })}
        lines={6}
      >
        {context.alerts.length === 0 ? (
          <Empty>No alerts yet: create one here, or click a price chart.</Empty>
        ) : (
          <div className="al-grid" role="region" aria-label="Alerts">
            <Grid<AlertAnswer>
              theme={alertsTheme}
              rowData={rows}
              columnDefs={columns}
              getRowId={(p) => p.data.id}
              context={gridContext}
              rowSelection={{ mode: 'multiRow', checkboxes: true, headerCheckbox: true, enableClickSelection: false }}
              onSelectionChanged={onSelection}
              domLayout="autoHeight"
              exportName="alerts"
            />
          </div>
        )}
      </LoadState>
      {historyId !== null && (
        <section className="card al-history" aria-labelledby="al-history-title">
          <div className="panel-header">
            <h2 id="al-history-title">
              History of {historyAlert ? `${historyAlert.symbol} ${historyAlert.conditiontext}` : 'the alert'}
            </h2>
            <button
              type="button"
              className="icon-button small"
              aria-label="Close the history"
              onClick={() => send({ type: 'user.closeHistory' })}
            >
              ✕
            </button>
          </div>
          {state.matches({ ready: { history: 'loading' } }) && !history ? (
            <Skeleton lines={3} />
          ) : state.matches({ ready: { history: 'failed' } }) ? (
            <Failed
              message={context.historyError ?? 'The history could not be loaded'}
              onRetry={() => send({ type: 'user.showHistory', id: historyId })}
            />
          ) : !history || history.triggers.length === 0 ? (
            <Empty>This alert has not fired yet.</Empty>
          ) : (
            <table className="al-history-table" aria-label="Triggers">
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Type</th>
                  <th scope="col">Price</th>
                  <th scope="col">Value</th>
                  <th scope="col">Message</th>
                </tr>
              </thead>
              <tbody>
                {history.triggers.map((t) => (
                  <tr key={`${t.at}-${t.message}`}>
                    <td>{formatDateTime(t.at, undefined, { seconds: true })}</td>
                    <td>{notificationTypeName(t.notificationtype)}</td>
                    <td className="num">{t.price.toFixed(2)}</td>
                    <td className="num">{t.value === null ? '–' : formatSourceValue(historySource, t.value)}</td>
                    <td>{t.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      )}
    </section>
  );
}
