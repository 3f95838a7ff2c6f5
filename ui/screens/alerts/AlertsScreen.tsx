/**
 * The alert manager (`/Alerts`): every alert of the user in a grid (symbol, the condition in words, frequency,
 * the channels it is delivered to, expiry, status, last fired, number of triggers), a text and status filter, sortable columns, row selection to
 * delete several at once (after a confirmation), a condition builder to create or change one, pause/resume,
 * re-arm of a fired or expired one, and each alert's history.
 */
import { useMachine } from '@xstate/react';
import type {
  ColDef,
  GetRowIdParams,
  GridApi,
  GridReadyEvent,
  ICellRendererParams,
  ITooltipParams,
  SelectionChangedEvent,
  SortChangedEvent,
  ValueFormatterParams,
  ValueGetterParams,
} from 'ag-grid-community';
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent,
  type RefObject,
} from 'react';
import { FREQUENCY_TEXT, formatSourceValue, parseSource } from '../../../domain/alerts/conditions.ts';
import type { AlertAnswer } from '../../../domain/contract/alerts.ts';
import type { ChannelAnswer, DeliveryAnswer } from '../../../domain/contract/channels.ts';
import { formatPrice } from '../../../domain/format.ts';
import { notificationTypeName } from '../../../domain/notifications/notifications.ts';
import { AlertNote } from '../../components/AlertNote.tsx';
import { channelListMachine } from '../../components/channelList.machine.ts';
import { deliveryChannelName, deliveryStatusText, deliveryText } from '../../components/channelWords.ts';
import { withNote } from '../../components/alertWords.ts';
import { ConditionBuilder } from '../../components/ConditionBuilder.tsx';
import { draftOf, newDraft } from '../../components/conditionDraft.ts';
import { FOLDED, Grid, ON_SCREEN_ONLY, gridTheme } from '../../components/Grid.tsx';
import { Dismissible, Empty, Failed, LoadState, Skeleton } from '../../components/LoadState.tsx';
import { SymbolChip } from '../../components/SymbolChip.tsx';
import { usePreferences } from '../../services/preferences.ts';
import { useMediaQuery } from '../../services/media.ts';
import { formatDateTime, type Zone } from '../../services/time.ts';
import { tabWithinCell } from '../watchlist/gridKeys.ts';
import {
  alertCount,
  alertsMachine,
  selectedWith,
  triggerDeliveries,
  visibleAlerts,
  type AlertFilter,
  type AlertsEvent,
  type StatusFilter,
} from './alerts.machine.ts';
import { ALERT_SORTS, alertSortOf, compareExpiry, sortOfColumns, sortState } from './alertSort.ts';
import './alerts.css';

/**
 * A window narrower than the wide grid (1400 px): the frequency, the channels and the expiry go under the condition
 * (the `compact` layout of {@link columnsWith}).
 */
const COMPACT_QUERY = '(max-width: 1399px)';

/** A window where even the compact grid would scroll sideways: each alert is one card (the `cards` layout). */
const CARDS_QUERY = '(max-width: 960px)';

/** What the grid's cells can do. */
interface GridContext {
  readonly send: (event: AlertsEvent) => void;
}

/**
 * Whether an action is on its way (or a delete waits for its confirmation): the rows' buttons are disabled. A React
 * context, as the grid draws a cell again only when its row changes, not when the grid's own context does.
 */
const BusyContext = createContext(false);

type Cell = ICellRendererParams<AlertAnswer, unknown, GridContext>;

const STATUSES: readonly StatusFilter[] = ['all', 'armed', 'triggered', 'paused', 'expired'];

function SymbolCell({ data }: Cell) {
  return data ? <SymbolChip symbol={data.symbol} addable={false} /> : null;
}

function StatusCell({ data }: Cell) {
  return data ? <span className={`al-status ${data.status}`}>{data.status}</span> : null;
}

/** The row's second button: pause an armed alert, resume a paused one, re-arm a fired or expired one. */
interface Toggle {
  readonly label: 'Pause' | 'Resume' | 'Re-arm';
  readonly event: AlertsEvent;
  /** What it does, or why the alert needs it. */
  readonly title: string;
}

function toggleOf(alert: AlertAnswer): Toggle {
  const ids = [alert.id];
  switch (alert.status) {
    case 'armed':
      return { label: 'Pause', event: { type: 'user.pause', ids }, title: 'Stop watching until resumed' };
    case 'paused':
      return { label: 'Resume', event: { type: 'user.resume', ids }, title: 'Watch again (armed afresh)' };
    case 'triggered':
      return {
        label: 'Re-arm',
        event: { type: 'user.rearm', id: alert.id },
        title: 'Fired, and set to fire only once: nothing to pause. Re-arm it to watch again',
      };
    case 'expired':
      return {
        label: 'Re-arm',
        event: { type: 'user.rearm', id: alert.id },
        title: `Expired${alert.expires === null ? '' : ` ${formatDateTime(alert.expires)}`}: nothing to pause. Re-arm it with a later expiry`,
      };
  }
}

function ActionsCell({ data, context }: Cell) {
  const busy = useContext(BusyContext);
  if (!data) return null;
  const what = `${data.symbol} ${data.conditiontext}`;
  const toggle = toggleOf(data);
  return (
    <span className="al-actions">
      <button
        type="button"
        className="button small"
        aria-label={`Edit alert ${what}`}
        disabled={busy}
        onClick={() => context.send({ type: 'user.edit', id: data.id })}
      >
        Edit
      </button>
      <button
        type="button"
        className="button small al-toggle"
        aria-label={`${toggle.label} alert ${what}`}
        title={toggle.title}
        disabled={busy}
        onClick={() => context.send(toggle.event)}
      >
        {toggle.label}
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
        disabled={busy}
        onClick={() => context.send({ type: 'user.delete', ids: [data.id] })}
      >
        ✕
      </button>
    </span>
  );
}

/** A time cell: the date and time in the viewer's zone, or `none` when there is no time. */
const timeOr =
  (none: string) =>
  ({ value }: ValueFormatterParams<AlertAnswer, string | null>) =>
    value === null || value === undefined ? none : formatDateTime(value);

const time = timeOr('–');
const expiry = timeOr('Never');

/** The condition in words and, below it, the alert's note (in quotes, muted). */
function ConditionCell({ data }: Cell) {
  if (!data) return null;
  return (
    <>
      {data.conditiontext}
      <AlertNote note={data.note} className="al-note" />
    </>
  );
}

/** Where an alert's triggers go besides the bell, in words (the grid's "Deliver to"). */
type DeliverTo = (alert: AlertAnswer) => string;

/** A time in the viewer's zone, kept on one line where the text around it wraps. */
function When({ iso }: { readonly iso: string }) {
  return <span className="al-when">{formatDateTime(iso)}</span>;
}

/**
 * After an alert's frequency, what the compact grid and the card say of it: its expiry (when it has one) and where
 * it is delivered (when not to every channel), each after a middle dot.
 */
function ExpiryAndChannels({ alert, deliverTo }: { readonly alert: AlertAnswer; readonly deliverTo: DeliverTo }) {
  return (
    <>
      {alert.expires !== null && (
        <>
          {' · expires '}
          <When iso={alert.expires} />
        </>
      )}
      {alert.channels !== null && ` · to ${deliverTo(alert)}`}
    </>
  );
}

/**
 * The compact grid's condition cell: the condition in words and its note, then the columns it folds (frequency,
 * expiry, channels) on a line of their own.
 */
function FoldedConditionCell(props: Cell & { readonly deliverTo: DeliverTo }) {
  const { data, deliverTo } = props;
  if (!data) return null;
  return (
    <>
      <ConditionCell {...props} />
      <span className="al-meta">
        {FREQUENCY_TEXT[data.frequency]}
        <ExpiryAndChannels alert={data} deliverTo={deliverTo} />
      </span>
    </>
  );
}

/** An alert's condition in words, then its note: what the CSV and the tooltip of the condition hold. */
const conditionWithNote = ({ data }: { data?: AlertAnswer | null }): string =>
  data ? withNote(data.conditiontext, data.note) : '';

/** A text cell's tooltip: the full text it shows. */
const shownText = ({ valueFormatted, value }: ITooltipParams<AlertAnswer>) =>
  valueFormatted ?? (value === null || value === undefined ? undefined : String(value));

/**
 * A narrow screen's row: the condition in words, then its status, frequency, firings, expiry and the channels it
 * goes to (when not every one), then the row's buttons, in one cell as wide as the screen leaves beside the symbol
 * (the wide grid's columns would be out of view).
 */
function AlertCard(props: Cell & { readonly deliverTo: DeliverTo }) {
  const { data, deliverTo } = props;
  if (!data) return null;
  const fired =
    data.lastfired === null ? (
      'not fired yet'
    ) : (
      <>
        {'fired '}
        <When iso={data.lastfired} />
        {data.triggercount > 1 && ` (${data.triggercount} times)`}
      </>
    );
  return (
    <div className="al-card">
      <div className="al-card-condition">{data.conditiontext}</div>
      <AlertNote note={data.note} className="al-note" />
      <div className="al-card-meta">
        <StatusCell {...props} /> · {FREQUENCY_TEXT[data.frequency]} · {fired}
        <ExpiryAndChannels alert={data} deliverTo={deliverTo} />
      </div>
      <ActionsCell {...props} />
    </div>
  );
}

/**
 * The `cards` layout's column: the whole alert in one cell ({@link AlertCard}), as wide as the screen leaves beside
 * the symbol.
 */
const cardColumnWith = (deliverTo: DeliverTo): ColDef<AlertAnswer> => ({
  headerName: 'Alert',
  colId: 'alert',
  // The whole alert, so the cell draws again when any of what it shows changes (its status, its firings), sorted
  // by its condition in words; the CSV has the folded columns instead.
  valueGetter: ({ data }: ValueGetterParams<AlertAnswer>) => data,
  equals: (a: AlertAnswer | undefined, b: AlertAnswer | undefined) => a === b,
  comparator: (a: AlertAnswer | undefined, b: AlertAnswer | undefined) =>
    (a?.conditiontext ?? '').localeCompare(b?.conditiontext ?? ''),
  flex: 1,
  minWidth: 200,
  autoHeight: true,
  cellRenderer: AlertCard,
  cellRendererParams: { deliverTo },
  cellClass: 'al-card-cell',
  suppressKeyboardEvent: tabWithinCell,
  context: ON_SCREEN_ONLY,
});

/** How the grid is laid out for the window's width: {@link COMPACT_QUERY}, {@link CARDS_QUERY}. */
type Layout = 'wide' | 'compact' | 'cards';

/**
 * The grid's columns for a layout; `deliverTo` says where an alert's triggers go besides the bell.
 * - `wide`: a column each. Widths fit their longest text ("Once per bar close", "2026-12-05 09:30 ET"); the
 *   condition takes what is left and wraps rather than cutting a channel's upper bound, and so do the channels an
 *   alert is delivered to. At 1400 px everything fits without scrolling sideways.
 * - `compact`: the frequency, the channels and the expiry are said under the condition ({@link FoldedConditionCell}),
 *   and the rest fits down to 961 px.
 * - `cards`: the symbol, then the whole alert in one cell ({@link AlertCard}).
 * The columns a layout hides because another cell says what they hold are still in the CSV ({@link FOLDED}), so
 * every layout exports the same file; every layout is sorted by last firing first.
 */
const columnsWith = (deliverTo: DeliverTo, layout: Layout): ColDef<AlertAnswer>[] => {
  // `hide` said either way: a grid given new columns keeps a column's hidden state when the new one leaves it out.
  const fold = (folded: boolean) => (folded ? { hide: true, context: FOLDED } : { hide: false });
  // Said under the condition from the compact layout on, and in the card.
  const settings = fold(layout !== 'wide');
  // Said in the card only.
  const rest = fold(layout === 'cards');
  return [
    {
      headerName: 'Symbol',
      field: 'symbol',
      width: 96,
      cellRenderer: SymbolCell,
      suppressKeyboardEvent: tabWithinCell,
    },
    ...(layout === 'cards' ? [cardColumnWith(deliverTo)] : []),
    {
      headerName: 'Condition',
      field: 'conditiontext',
      flex: 1,
      minWidth: 180,
      wrapText: true,
      autoHeight: true,
      cellClass: 'al-condition',
      ...(layout === 'compact'
        ? {
            cellRenderer: FoldedConditionCell,
            cellRendererParams: { deliverTo },
            // It draws the frequency, the channels and the expiry under the condition, which are not its value:
            // drawn again whenever its row changes, not only when the words or the note do.
            equals: () => false,
          }
        : { cellRenderer: ConditionCell }),
      valueFormatter: conditionWithNote,
      tooltipValueGetter: shownText,
      ...rest,
    },
    {
      headerName: 'Frequency',
      field: 'frequency',
      width: 150,
      valueFormatter: ({ value }: ValueFormatterParams<AlertAnswer, AlertAnswer['frequency']>) =>
        value ? FREQUENCY_TEXT[value] : '',
      tooltipValueGetter: shownText,
      ...settings,
    },
    {
      headerName: 'Deliver to',
      colId: 'channels',
      width: 134,
      wrapText: true,
      autoHeight: true,
      valueGetter: ({ data }: ValueGetterParams<AlertAnswer>) => (data ? deliverTo(data) : ''),
      tooltipValueGetter: shownText,
      ...settings,
    },
    {
      headerName: 'Expires',
      field: 'expires',
      width: 164,
      valueFormatter: expiry,
      comparator: compareExpiry,
      tooltipValueGetter: shownText,
      ...settings,
    },
    { headerName: 'Status', field: 'status', width: 100, cellRenderer: StatusCell, ...rest },
    {
      headerName: 'Last fired',
      field: 'lastfired',
      width: 164,
      valueFormatter: time,
      // The first order only: a layout's new columns keep the one chosen since.
      initialSort: 'desc',
      tooltipValueGetter: shownText,
      ...rest,
    },
    { headerName: 'Triggers', field: 'triggercount', width: 96, type: 'rightAligned', ...rest },
    {
      headerName: 'Actions',
      colId: 'actions',
      width: 232,
      // Kept in view when the grid is wider than the page (the other columns scroll under it).
      pinned: 'right',
      sortable: false,
      resizable: false,
      cellRenderer: ActionsCell,
      suppressKeyboardEvent: tabWithinCell,
      hide: layout === 'cards',
    },
  ];
};

/** What an empty filter result says: the status and the text that match nothing. */
function noMatchText(filter: AlertFilter): string {
  const status = filter.status === 'all' ? '' : ` ${filter.status}`;
  const text = filter.text.trim();
  return `No${status} alerts${text === '' ? '' : ` match “${text}”`}.`;
}

/**
 * Brings a panel into view and moves focus to it when it opens (or shows something else, `key`), and gives focus
 * back to what had it when it closes: the button that opened it, or `fallback` when that is gone.
 */
function usePanelFocus(
  key: string | null,
  panel: RefObject<HTMLElement | null>,
  fallback: RefObject<HTMLElement | null>,
  into: 'panel' | 'cancel' = 'panel',
) {
  const opener = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const element = panel.current;
    if (key === null || !element) return;
    const active = document.activeElement;
    if (active instanceof HTMLElement && !element.contains(active)) opener.current = active;
    element.scrollIntoView({ block: 'nearest' });
    const target = into === 'cancel' ? element.querySelector<HTMLElement>('[data-cancel]') : element;
    target?.focus({ preventScroll: true });
  }, [key, panel, into]);
  useEffect(() => {
    if (key !== null) return;
    const back = opener.current;
    opener.current = null;
    if (back === null) return;
    // After the grid's cells have drawn again: the opener may be gone (deleted) or still disabled.
    const frame = requestAnimationFrame(() => {
      if (back.isConnected && !(back as HTMLButtonElement).disabled) back.focus();
      else fallback.current?.focus();
    });
    return () => cancelAnimationFrame(frame);
  }, [key, fallback]);
}

/** The app's grid theme without the empty space an auto-height grid keeps under a few rows. */
const alertsTheme = gridTheme.withParams({ autoHeightMinBodyHeight: 0 });

/**
 * Up to this many rows the grid is as tall as its rows, the page scrolling; beyond, it has a height of its own
 * and scrolls within it, drawing only the rows in view (every row drawn made 500 alerts take seconds to show,
 * and as long again at each change of the list).
 */
const AUTO_HEIGHT_ROWS = 30;

/** A row's id: the alert's. */
const rowIdOf = (params: GetRowIdParams<AlertAnswer>): string => params.data.id;

/** A button of the toolbar acting on the selected rows. */
interface SelectionAction {
  readonly type: 'user.delete' | 'user.pause' | 'user.resume';
  readonly label: string;
  readonly title: string;
  readonly ids: readonly string[];
}

/**
 * Where one trigger was delivered besides the bell: each channel and how its delivery stands; a dash when the
 * trigger went to the bell only, or its deliveries are older than those read.
 */
function TriggerDeliveries(props: {
  readonly deliveries: readonly DeliveryAnswer[];
  readonly known: readonly ChannelAnswer[] | null;
  readonly timeZone: Zone;
}) {
  if (props.deliveries.length === 0) return <>–</>;
  return (
    <ul className="al-delivered">
      {props.deliveries.map((d) => (
        <li key={d.id} className={`delivery ${d.status}`}>
          {deliveryChannelName(d, props.known)}: {deliveryStatusText(d, props.timeZone)}
        </li>
      ))}
    </ul>
  );
}

/**
 * The order chosen in "Sort by" (`sortKey`, '' when a header click sorted the grid otherwise), `sortBy` to choose
 * one, and the grid's handlers that keep them together: the order is applied whenever a grid appears (after an
 * empty list, say) and stays through the layouts' changes of columns.
 */
function useSortBy() {
  const [sortKey, setSortKey] = useState(ALERT_SORTS[0]!.key);
  const sortKeyNow = useRef(sortKey);
  sortKeyNow.current = sortKey;
  const gridApi = useRef<GridApi<AlertAnswer> | null>(null);
  const onGridReady = useCallback((event: GridReadyEvent<AlertAnswer>) => {
    gridApi.current = event.api;
    const sort = alertSortOf(sortKeyNow.current);
    if (sort) event.api.applyColumnState(sortState(sort));
  }, []);
  const onSortChanged = useCallback(
    (event: SortChangedEvent<AlertAnswer>) => setSortKey(sortOfColumns(event.api.getColumnState())?.key ?? ''),
    [],
  );
  const sortBy = (key: string) => {
    const sort = alertSortOf(key);
    if (!sort) return;
    setSortKey(key);
    const api = gridApi.current;
    if (api && !api.isDestroyed()) api.applyColumnState(sortState(sort));
  };
  return { sortKey, sortBy, onGridReady, onSortChanged };
}

/** The alert manager screen. */
export default function AlertsScreen() {
  const [state, send] = useMachine(alertsMachine);
  const { timeZone } = usePreferences();
  const cards = useMediaQuery(CARDS_QUERY);
  const folded = useMediaQuery(COMPACT_QUERY);
  const { context } = state;
  const { alerts, filter } = context;
  // Only a change of the alerts or of the filter gives the grid new rows (not a flag of the machine's).
  const rows = useMemo(() => visibleAlerts({ alerts, filter }), [alerts, filter]);
  // Many rows scroll within a grid of fixed height, which draws only the rows in view.
  const tall = rows.length > AUTO_HEIGHT_ROWS;
  const busy = !state.matches({ ready: { list: 'idle' } }) && !state.matches({ ready: { list: 'refreshing' } });
  const gridContext = useMemo<GridContext>(() => ({ send }), [send]);
  // The user's channels name each alert's "Deliver to" (counted until they are loaded, or if they cannot be).
  const [channelList] = useMachine(channelListMachine);
  const knownChannels = channelList.matches('ready') ? channelList.context.channels : null;
  // Read by the cells when they are drawn: the grid draws them again when the channels come (`refreshOn`).
  const channelsNow = useRef(knownChannels);
  channelsNow.current = knownChannels;
  const columns = useMemo(() => {
    const deliverTo: DeliverTo = (alert) => deliveryText(alert.channels, channelsNow.current);
    return columnsWith(deliverTo, cards ? 'cards' : folded ? 'compact' : 'wide');
  }, [cards, folded]);
  const { sortKey, sortBy, onGridReady, onSortChanged } = useSortBy();
  const onSelection = useCallback(
    (event: SelectionChangedEvent<AlertAnswer>) =>
      send({ type: 'user.select', ids: event.api.getSelectedRows().map((a) => a.id) }),
    [send],
  );
  const { editor, formProblem, history, historyId, toDelete } = context;
  const title = useRef<HTMLHeadingElement>(null);
  const editorPanel = useRef<HTMLElement>(null);
  const historyPanel = useRef<HTMLElement>(null);
  const confirmPanel = useRef<HTMLDivElement>(null);
  usePanelFocus(editor.mode === 'edit' ? editor.id : editor.mode === 'create' ? 'create' : null, editorPanel, title);
  usePanelFocus(historyId, historyPanel, title);
  usePanelFocus(toDelete.length === 0 ? null : toDelete.join(), confirmPanel, title, 'cancel');
  const deleting = state.matches({ ready: { list: 'deleting' } });
  const doomed = toDelete.map((id) => context.alerts.find((a) => a.id === id)).filter((a) => a !== undefined);
  const cancelDelete = (event: KeyboardEvent) => {
    if (event.key === 'Escape' && !deleting) send({ type: 'user.cancelDelete' });
  };
  // Escape in the builder acts as its Cancel, unless a field took it for itself (the symbol's suggestions closed).
  const cancelEdit = (event: KeyboardEvent) => {
    if (event.key === 'Escape' && !event.defaultPrevented) send({ type: 'user.closeEditor' });
  };
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
        <h1 id="alerts-title" ref={title} tabIndex={-1}>
          Alerts
        </h1>
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
            placeholder="Symbol, condition or note"
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
        <label>
          Sort by
          <select value={sortKey} onChange={(e) => sortBy(e.target.value)}>
            {sortKey === '' && <option value="">As the column headers say</option>}
            {ALERT_SORTS.map((sort) => (
              <option key={sort.key} value={sort.key}>
                {sort.label}
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
      {toDelete.length > 0 && (
        <div
          ref={confirmPanel}
          className="al-confirm"
          role="alertdialog"
          aria-labelledby="al-confirm-title"
          aria-describedby="al-confirm-list"
          onKeyDown={cancelDelete}
        >
          <p id="al-confirm-title">
            <strong>Delete {toDelete.length === 1 ? 'this alert' : `these ${alertCount(toDelete.length)}`}?</strong>{' '}
            This cannot be undone.
          </p>
          <ul id="al-confirm-list">
            {doomed.slice(0, 5).map((a) => (
              <li key={a.id}>
                <strong>{a.symbol}</strong> {a.conditiontext}
              </li>
            ))}
            {toDelete.length > 5 && <li>and {toDelete.length - 5} more</li>}
          </ul>
          <div className="al-confirm-buttons">
            <button
              type="button"
              className="button danger"
              disabled={deleting}
              onClick={() => send({ type: 'user.confirmDelete' })}
            >
              {deleting ? `Deleting ${alertCount(toDelete.length)}…` : `Delete ${alertCount(toDelete.length)}`}
            </button>
            <button
              type="button"
              className="button"
              data-cancel
              disabled={deleting}
              onClick={() => send({ type: 'user.cancelDelete' })}
            >
              Keep
            </button>
          </div>
        </div>
      )}
      {editor.mode !== 'closed' && (
        <section
          ref={editorPanel}
          tabIndex={-1}
          className="card al-editor"
          aria-labelledby="al-editor-title"
          onKeyDown={cancelEdit}
        >
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
          <div className={tall ? 'al-grid tall' : 'al-grid'} role="region" aria-label="Alerts table">
            <BusyContext value={busy}>
              <Grid<AlertAnswer>
                theme={alertsTheme}
                rowData={rows}
                columnDefs={columns}
                refreshOn={knownChannels}
                getRowId={rowIdOf}
                context={gridContext}
                rowSelection={{ mode: 'multiRow', checkboxes: true, headerCheckbox: true, enableClickSelection: false }}
                onSelectionChanged={onSelection}
                onGridReady={onGridReady}
                onSortChanged={onSortChanged}
                domLayout={tall ? 'normal' : 'autoHeight'}
                exportName="alerts"
                tooltipShowDelay={400}
                // An empty filter result is said below, in the app's words.
                suppressOverlays={['noRows']}
              />
            </BusyContext>
            {rows.length === 0 && (
              <Empty>
                {noMatchText(context.filter)}{' '}
                <button
                  type="button"
                  className="button small"
                  onClick={() => send({ type: 'user.filter', filter: { text: '', status: 'all' } })}
                >
                  Show all alerts
                </button>
              </Empty>
            )}
          </div>
        )}
      </LoadState>
      {historyId !== null && (
        <section ref={historyPanel} tabIndex={-1} className="card al-history" aria-labelledby="al-history-title">
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
            // The table scrolls sideways within its card on a narrow screen, the page staying its width.
            <div className="al-history-scroll">
              <table className="al-history-table" aria-label="Triggers">
                <thead>
                  <tr>
                    <th scope="col">Time</th>
                    <th scope="col">Type</th>
                    <th scope="col">Price</th>
                    <th scope="col">Value</th>
                    <th scope="col">Message</th>
                    <th scope="col">Delivered</th>
                  </tr>
                </thead>
                <tbody>
                  {history.triggers.map((t) => (
                    <tr key={t.id ?? `${t.at}-${t.message}`}>
                      <td>{formatDateTime(t.at, undefined, { seconds: true })}</td>
                      <td>{notificationTypeName(t.notificationtype)}</td>
                      <td className="num">{formatPrice(t.price)}</td>
                      <td className="num">{t.value === null ? '–' : formatSourceValue(historySource, t.value)}</td>
                      <td className="al-history-message">
                        {t.message}
                        <AlertNote note={t.note} className="al-note" />
                      </td>
                      <td>
                        <TriggerDeliveries
                          deliveries={triggerDeliveries(history, t)}
                          known={knownChannels}
                          timeZone={timeZone}
                        />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      )}
    </section>
  );
}
