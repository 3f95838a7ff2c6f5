/**
 * The price chart of one symbol (`/PriceCharts?stock=SYM`): candlesticks and volume, duration picker, SMA
 * chips, patterns, support and resistance, alert lines (click the chart or type a price to add one, drag a
 * line to move it, click its label to delete it), channel alerts drawn with two clicks and shown as shaded
 * bands, alerts on any condition from the condition builder, compared symbols, live price, snapshot.
 */
import { useMachine } from '@xstate/react';
import type { ClickAnnotationEvent, PlotRelayoutEvent, PlotlyHTMLElement } from 'plotly.js';
import {
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type FormEvent,
  type KeyboardEvent,
  type RefObject,
} from 'react';
import {
  CHANNEL_OPS,
  FREQUENCY_TEXT,
  ALERT_FREQUENCIES,
  type AlertFrequency,
  type AlertOp,
  type AlertSource,
} from '../../../domain/alerts/conditions.ts';
import { AlertWayMark } from '../../components/AlertWayMark.tsx';
import { Chart } from '../../components/Chart.tsx';
import { ConfirmBar } from '../../components/ConfirmBar.tsx';
import { ChoiceSelect, ConditionBuilder } from '../../components/ConditionBuilder.tsx';
import { OP_LABELS, SOURCE_CHIPS, newDraft } from '../../components/conditionDraft.ts';
import { Empty, Failed, Skeleton } from '../../components/LoadState.tsx';
import { Link } from '../../components/Link.tsx';
import { SymbolSearch } from '../../components/SymbolSearch.tsx';
import { chartPath, navigate, useLocation } from '../../services/router.ts';
import { usePreferences } from '../../services/preferences.ts';
import { todayStamp } from '../../services/time.ts';
import { quickAddToWatchlist } from '../../services/watchlist.ts';
import { sourcePanel } from './channelBands.ts';
import { shapeMoves, type ChartElement } from './chartElements.ts';
import {
  DURATIONS,
  RSI_COLOR,
  SMA_COLORS,
  SMA_PERIODS,
  alertLabel,
  chartNote,
  chartView,
  defaultDirection,
  holdsAlready,
  quoteText,
  type ChartAlert,
  type Compare,
  type SmaPeriod,
} from './chartData.ts';
import {
  buildFigure,
  chartHeight,
  hasPrices,
  keptInside,
  pointOfPrice,
  priceAtPoint,
  showsModeBar,
  type PixelAxis,
} from './chartFigure.ts';
import {
  cleanSymbol,
  movableLevel,
  priceChartMachine,
  type AlertAnswer,
  type PriceChartEvent,
} from './pricechart.machine.ts';
import './pricechart.css';

/** The placeholder of the searches that open a symbol's chart. */
const OPEN_PLACEHOLDER = 'Symbol or company, e.g. MSFT';

const screenMachine = priceChartMachine.provide({
  actions: { navigate: (_, params) => navigate(params.path) },
});

type Send = (event: PriceChartEvent) => void;

/**
 * Where a click on the chart asks for an alert's direction: its price, where it is in the chart's wrapper, and
 * the fraction of the plot's width it was clicked at (so it follows its price when the chart is laid out again).
 */
interface Popover {
  readonly price: number;
  readonly left: number;
  readonly top: number;
  readonly across: number;
}

/** The axes of a drawn Plotly graph, from its full layout. */
function axesOf(graph: HTMLElement): { xaxis?: PixelAxis; yaxis?: PixelAxis } {
  return (graph as unknown as { _fullLayout?: { xaxis?: PixelAxis; yaxis?: PixelAxis } })._fullLayout ?? {};
}

/**
 * The width of a Plotly graph's plot area: the element's own less its layout's side margins, which a resize does
 * not change (read at once, before Plotly has drawn at the new size).
 */
function plotWidthOf(graph: HTMLElement): number {
  const margin = (graph as unknown as { _fullLayout?: { margin?: { l: number; r: number } } })._fullLayout?.margin;
  return graph.clientWidth - (margin ? margin.l + margin.r : 72);
}

function elementName(element: ChartElement): string {
  switch (element.type) {
    case 'LINE':
      return `${element.symbol} (normalised)`;
    case 'AXIS':
      return `${element.symbol} (right axis)`;
    case 'IMAGE':
      return `Patterns (${element.chartdata.points.length})`;
    default:
      return element.chartdata.label;
  }
}

/** An alert form's note: the user's words shown with each firing of the alert (optional). */
function NoteField(props: {
  readonly label: string;
  readonly value: string;
  readonly onChange: (note: string) => void;
}) {
  return (
    <label className="pc-note">
      {props.label}
      <input
        type="text"
        placeholder="Optional, shown with each firing"
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
      />
    </label>
  );
}

/**
 * What a form does once its alert is answered: `clear` when the server saved it, nothing when it was refused (the
 * typed values stay for another try). Answers the function to call when the form sends.
 */
function useClearedWhenSaved(answered: AlertAnswer, clear: () => void): () => void {
  const sentAt = useRef<number | null>(null);
  useEffect(() => {
    if (sentAt.current === null || sentAt.current === answered.count) return;
    sentAt.current = null;
    if (answered.saved) clear();
  }, [answered, clear]);
  return () => {
    sentAt.current = answered.count;
  };
}

/**
 * The chart's form of any condition: a fresh one (this symbol's) once the server saved the alert, so that its note
 * and levels go with that alert only; what was typed stays when it was refused.
 */
function ChartConditionForm(props: {
  readonly symbol: string;
  readonly send: Send;
  readonly busy: boolean;
  readonly answered: AlertAnswer;
}) {
  const { symbol, send, busy } = props;
  const [saved, setSaved] = useState(0);
  const sent = useClearedWhenSaved(
    props.answered,
    useCallback(() => setSaved((n) => n + 1), []),
  );
  return (
    <ConditionBuilder
      key={`${symbol} ${saved}`}
      initial={newDraft(symbol)}
      busy={busy}
      submitLabel="Add alert"
      onSubmit={(body) => {
        sent();
        send({ type: 'user.addCondition', body });
      }}
    />
  );
}

function PriceAlertForm(props: {
  readonly send: Send;
  readonly last: number | null;
  readonly busy: boolean;
  readonly answered: AlertAnswer;
}) {
  const { send, last, busy } = props;
  const [text, setText] = useState('');
  const [direction, setDirection] = useState<'auto' | 'U' | 'D'>('auto');
  const [note, setNote] = useState('');
  const sent = useClearedWhenSaved(
    props.answered,
    useCallback(() => {
      setText('');
      setNote('');
    }, []),
  );
  const price = Number(text);
  const auto = defaultDirection(price, last);
  const chosen = direction === 'auto' ? auto : direction;
  const holds = text.trim() === '' ? null : holdsAlready(price, chosen, last);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    sent();
    send({
      type: 'user.addAlert',
      price: text.trim() === '' ? NaN : price,
      alerttype: direction === 'auto' ? auto : direction,
      note,
    });
  };
  return (
    <form className="pc-alert-form" onSubmit={submit}>
      <label>
        Alert price
        <input
          inputMode="decimal"
          placeholder={last === null ? 'Price' : last.toFixed(2)}
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
      </label>
      <label>
        Direction
        <select value={direction} onChange={(e) => setDirection(e.target.value as 'auto' | 'U' | 'D')}>
          <option value="auto">
            Auto ({text.trim() === '' || !Number.isFinite(price) ? 'by price' : auto === 'U' ? 'up' : 'down'})
          </option>
          <option value="U">Up (U)</option>
          <option value="D">Down (D)</option>
        </select>
      </label>
      <NoteField label="Price alert note" value={note} onChange={setNote} />
      <button type="submit" className="button primary" disabled={busy}>
        Add price alert
      </button>
      {holds && (
        <p className="pc-holds" role="note">
          {chosen === 'U' ? '▲ Up' : '▼ Down'}: {holds}, so it would fire on the next tick.
        </p>
      )}
    </form>
  );
}

function SmaAlertForm(props: { readonly send: Send; readonly busy: boolean; readonly answered: AlertAnswer }) {
  const { send, busy } = props;
  const [period, setPeriod] = useState<SmaPeriod>(50);
  const [direction, setDirection] = useState<'U' | 'D'>('U');
  const [note, setNote] = useState('');
  const sent = useClearedWhenSaved(
    props.answered,
    useCallback(() => setNote(''), []),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    sent();
    send({ type: 'user.addSmaAlert', period, alerttype: direction, note });
  };
  return (
    <form className="pc-alert-form" onSubmit={submit}>
      <label>
        SMA period
        <select value={period} onChange={(e) => setPeriod(Number(e.target.value) as SmaPeriod)}>
          {SMA_PERIODS.map((p) => (
            <option key={p} value={p}>
              SMA {p}
            </option>
          ))}
        </select>
      </label>
      <label>
        Crossing
        <select value={direction} onChange={(e) => setDirection(e.target.value as 'U' | 'D')}>
          <option value="U">Price rises above (U)</option>
          <option value="D">Price falls below (D)</option>
        </select>
      </label>
      <NoteField label="SMA alert note" value={note} onChange={setNote} />
      <button type="submit" className="button" disabled={busy}>
        Add SMA alert
      </button>
    </form>
  );
}

function AlertItem(props: {
  readonly alert: ChartAlert;
  readonly send: Send;
  readonly busy: boolean;
  /** Why the alert is not drawn on the chart, if it is not. */
  readonly note: string | null;
}) {
  const { alert, send, busy, note } = props;
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState('');
  const label = alertLabel(alert);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    send({ type: 'user.moveAlert', id: alert.id, price: text.trim() === '' ? NaN : Number(text) });
    setEditing(false);
  };
  return (
    <li className={`pc-alert ${alert.status}`}>
      <AlertWayMark alert={alert} />
      {editing ? (
        <form className="pc-inline-form" onSubmit={submit}>
          <input
            aria-label={`New price of alert ${label}`}
            inputMode="decimal"
            autoFocus
            value={text}
            size={8}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') setEditing(false);
            }}
          />
          <button type="submit" className="button" disabled={busy}>
            Save
          </button>
        </form>
      ) : (
        <span className="pc-alert-label" title={alert.note === null ? undefined : `Your note: ${alert.note}`}>
          {alert.kind === 'CONDITION'
            ? alert.conditiontext
            : `${alert.alerttype === 'U' ? 'Up' : 'Down'} ${
                alert.kind === 'SMA' ? `crossing SMA ${alert.period ?? ''}` : (alert.threshold ?? 0).toFixed(2)
              }`}
        </span>
      )}
      <span className={`pc-status ${alert.status}`}>{alert.status}</span>
      {note && (
        <span className="pc-alert-note hint" title={note}>
          {note}
        </span>
      )}
      {movableLevel(alert) !== null && !editing && (
        <button
          type="button"
          className="icon-button small"
          aria-label={`Move alert ${label}`}
          title="Change the price"
          disabled={busy}
          onClick={() => {
            setText(movableLevel(alert)?.toFixed(2) ?? '');
            setEditing(true);
          }}
        >
          ✎
        </button>
      )}
      {(alert.status === 'armed' || alert.status === 'paused') && !editing && (
        <button
          type="button"
          className="icon-button small"
          aria-label={`${alert.status === 'paused' ? 'Resume' : 'Pause'} alert ${label}`}
          title={alert.status === 'paused' ? 'Resume (armed afresh)' : 'Pause'}
          disabled={busy}
          onClick={() => send({ type: 'user.toggleAlert', id: alert.id })}
        >
          {alert.status === 'paused' ? '▶' : '❚❚'}
        </button>
      )}
      <button
        type="button"
        className="icon-button small"
        aria-label={`Delete alert ${label}`}
        title="Delete"
        disabled={busy}
        onClick={() => send({ type: 'user.deleteAlert', id: alert.id })}
      >
        ✕
      </button>
    </li>
  );
}

/** The series a channel drawn on the price axis may watch: the price and its moving averages. */
const PRICE_AXIS_SOURCES: readonly AlertSource[] = SOURCE_CHIPS.filter((c) => sourcePanel(c.source) === 'price').map(
  (c) => c.source,
);
const SOURCE_LABELS: Readonly<Record<string, string>> = Object.fromEntries(
  SOURCE_CHIPS.map((c) => [c.source, c.label]),
);

/**
 * The left of a popover centred on `centre` in its container, kept inside it (`keptInside`): a click near the
 * chart's edge on a phone would otherwise put part of it off the screen. Measured once laid out, before it is
 * painted.
 */
function useKeptInside(ref: RefObject<HTMLElement | null>, centre: number): number {
  const [widths, setWidths] = useState<{ own: number; room: number } | null>(null);
  useLayoutEffect(() => {
    const own = ref.current?.offsetWidth;
    const room = (ref.current?.offsetParent as HTMLElement | null | undefined)?.clientWidth;
    if (own === undefined || room === undefined) return;
    setWidths((was) => (was?.own === own && was.room === room ? was : { own, room }));
  });
  return widths === null ? centre : keptInside(centre, widths.own, widths.room);
}

/** The popover of a drawn channel: which series, which channel operator, how often, then create. */
function ChannelPopover(props: {
  readonly lower: number;
  readonly upper: number;
  readonly left: number;
  readonly top: number;
  readonly busy: boolean;
  readonly send: Send;
}) {
  const { lower, upper, send } = props;
  const [op, setOp] = useState<AlertOp>('entering_channel');
  const [frequency, setFrequency] = useState<AlertFrequency>('once');
  const [source, setSource] = useState<AlertSource>('price');
  const [note, setNote] = useState('');
  const form = useRef<HTMLFormElement>(null);
  const left = useKeptInside(form, props.left);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    send({ type: 'user.addChannel', op, frequency, source, note });
  };
  return (
    <form
      ref={form}
      className="pc-popover"
      role="dialog"
      aria-label={`Add a channel alert ${lower.toFixed(2)} – ${upper.toFixed(2)}`}
      style={{ left, top: props.top }}
      onSubmit={submit}
      onKeyDown={(e: KeyboardEvent) => {
        if (e.key === 'Escape') send({ type: 'user.cancelChannel' });
      }}
    >
      <p>
        Channel <strong>{lower.toFixed(2)}</strong> – <strong>{upper.toFixed(2)}</strong>
      </p>
      <ChoiceSelect
        label="Channel operator"
        value={op}
        choices={CHANNEL_OPS}
        labelOf={(o) => OP_LABELS[o]}
        onChange={setOp}
        autoFocus
      />
      <ChoiceSelect
        label="Channel of"
        value={source}
        choices={PRICE_AXIS_SOURCES}
        labelOf={(s) => SOURCE_LABELS[s] ?? s}
        onChange={setSource}
      />
      <ChoiceSelect
        label="Channel frequency"
        value={frequency}
        choices={ALERT_FREQUENCIES}
        labelOf={(f) => FREQUENCY_TEXT[f]}
        onChange={setFrequency}
      />
      <NoteField label="Channel note" value={note} onChange={setNote} />
      <div className="pc-popover-actions">
        <button type="submit" className="button primary" disabled={props.busy}>
          Create channel alert
        </button>
        <button
          type="button"
          className="icon-button small"
          aria-label="Cancel"
          onClick={() => send({ type: 'user.cancelChannel' })}
        >
          ✕
        </button>
      </div>
    </form>
  );
}

/** Compares a symbol picked in the search, on the axis chosen first. */
function CompareForm({ send, busy }: { readonly send: Send; readonly busy: boolean }) {
  const [mode, setMode] = useState<Compare['mode']>('normalized');
  return (
    <div className="pc-alert-form pc-compare-form">
      <label>
        Compare on
        <select value={mode} onChange={(e) => setMode(e.target.value as Compare['mode'])}>
          <option value="normalized">Price axis, normalised</option>
          <option value="axis">Own axis (right)</option>
        </select>
      </label>
      <SymbolSearch
        label="Compare symbol"
        placeholder={busy ? 'Adding to the chart…' : OPEN_PLACEHOLDER}
        disabled={busy}
        onPick={(hit) => send({ type: 'user.addCompare', symbol: hit.symbol, mode })}
      />
    </div>
  );
}

function PriceChart({ symbol }: { readonly symbol: string }) {
  const [state, send] = useMachine(screenMachine, { input: { symbol } });
  const { context } = state;
  const [graph, setGraph] = useState<HTMLElement | null>(null);
  const [popover, setPopover] = useState<Popover | null>(null);
  const [redraw, setRedraw] = useState(0);
  const wrapper = useRef<HTMLDivElement>(null);

  // The revision (in the context) and the local redraw count rebuild the figure, so a line moved in vain
  // goes back to its price.
  // The 1D chart's times follow the time zone setting.
  const { timeZone } = usePreferences();
  const figure = useMemo(() => buildFigure(context, timeZone), [context, redraw, timeZone]);
  const current = useRef({
    figure,
    elements: context.elements,
    alerts: context.alerts,
    last: context.quote?.price ?? null,
    drawing: context.drawing,
  });
  current.current = {
    figure,
    elements: context.elements,
    alerts: context.alerts,
    last: context.quote?.price ?? context.bars.at(-1)?.close ?? null,
    drawing: context.drawing,
  };
  // Where the last click on the chart was, for the channel's popover.
  const [clicked, setClicked] = useState<{ left: number; top: number }>({ left: 0, top: 0 });

  // The patterns' names are placed for the chart's width: a phone's leaves room for fewer.
  useEffect(() => {
    if (!graph) return;
    const observer = new ResizeObserver(() => send({ type: 'ui.resized', plotWidth: plotWidthOf(graph) }));
    observer.observe(graph);
    return () => observer.disconnect();
  }, [graph, send]);

  useEffect(() => {
    if (!graph) return;
    let down: { x: number; y: number } | null = null;
    const onDown = (event: PointerEvent) => {
      down = { x: event.clientX, y: event.clientY };
    };
    /** The price of the support or resistance line whose drag handle `handle` is; null for any other line. */
    const marketLevelOf = (handle: Element): number | null => {
      // Plotly draws each editable shape as its path (`data-index`, its place in the layout) then its handle.
      const index = Number(handle.previousElementSibling?.getAttribute('data-index'));
      const id = Number.isInteger(index) ? current.current.figure.shapeIds[index] : undefined;
      const element = current.current.elements.find((e) => e.id === id);
      if (element?.type !== 'SAR' || (element.chartdata.axis ?? 'y') !== 'y') return null;
      return element.chartdata.y;
    };
    const onClick = (event: MouseEvent) => {
      const start = down;
      down = null;
      // A tap reaches the chart as the click Plotly makes of the touch, which has no place of its own (0, 0):
      // the place is where the finger went down.
      const tapped = !event.isTrusted && event.clientX === 0 && event.clientY === 0;
      if (tapped && start === null) return;
      const point = tapped && start !== null ? start : { x: event.clientX, y: event.clientY };
      if (start && Math.hypot(point.x - start.x, point.y - start.y) > 4) return;
      const target = event.target as Element | null;
      if (target?.closest('.annotation, .legend, .modebar')) return;
      // A click on a line's handle: an alert's is the start of a drag; a support or resistance line's places an
      // alert at its level. One inside a channel's band places a level.
      const handle = target?.closest('[drag-helper]');
      const level = handle ? marketLevelOf(handle) : null;
      if (handle && level === null) return;
      const rect = graph.getBoundingClientRect();
      const axes = axesOf(graph);
      const price = level ?? priceAtPoint(axes, point.x - rect.left, point.y - rect.top);
      if (price === null) return;
      const box = wrapper.current?.getBoundingClientRect() ?? rect;
      const at = { left: point.x - box.left, top: point.y - box.top };
      if (current.current.drawing === 'channel') {
        setClicked(at);
        send({ type: 'user.channelPoint', price });
      } else {
        const across = axes.xaxis ? (point.x - rect.left - axes.xaxis._offset) / axes.xaxis._length : 0.5;
        setPopover({ price, across, ...at });
      }
    };
    const onAnnotation = (event: ClickAnnotationEvent) => {
      const id = current.current.figure.annotationIds[event.index];
      const element = current.current.elements.find((e) => e.id === id);
      if ((element?.type === 'ALERT' || element?.type === 'BAND') && element.chartdata.clickable) {
        send({ type: 'user.deleteAlert', id: element.id });
      }
    };
    graph.addEventListener('pointerdown', onDown, true);
    graph.addEventListener('click', onClick);
    const plot = graph as PlotlyHTMLElement & { removeListener?: (name: string, fn: unknown) => void };
    plot.on('plotly_clickannotation', onAnnotation);
    return () => {
      graph.removeEventListener('pointerdown', onDown, true);
      graph.removeEventListener('click', onClick);
      plot.removeListener?.('plotly_clickannotation', onAnnotation);
    };
  }, [graph, send]);

  // An open popover follows its price when the chart is drawn again at another size (the window resized).
  const popoverOpenAt = popover === null ? null : popover.price;
  useEffect(() => {
    if (!graph || popoverOpenAt === null) return;
    const follow = () =>
      setPopover((open) => {
        if (open === null) return open;
        const point = pointOfPrice(axesOf(graph), open.price, open.across);
        if (point === null) return open;
        const rect = graph.getBoundingClientRect();
        const box = wrapper.current?.getBoundingClientRect() ?? rect;
        const left = Math.round(point.left + rect.left - box.left);
        const top = Math.round(point.top + rect.top - box.top);
        return Math.abs(left - open.left) < 1 && Math.abs(top - open.top) < 1 ? open : { ...open, left, top };
      });
    const plot = graph as PlotlyHTMLElement & { removeListener?: (name: string, fn: unknown) => void };
    plot.on('plotly_afterplot', follow);
    return () => plot.removeListener?.('plotly_afterplot', follow);
  }, [graph, popoverOpenAt]);

  const popoverRef = useRef<HTMLDivElement>(null);
  const popoverLeft = useKeptInside(popoverRef, popover?.left ?? 0);
  useEffect(() => {
    if (!popover) return;
    const onPointer = (event: PointerEvent) => {
      if (!popoverRef.current?.contains(event.target as Node)) setPopover(null);
    };
    document.addEventListener('pointerdown', onPointer);
    return () => document.removeEventListener('pointerdown', onPointer);
  }, [popover]);

  // A channel's first bound placed, Escape drops it (wherever the focus is: a click on the plot focuses nothing).
  const channelStarted = context.channelStart !== null;
  useEffect(() => {
    if (!channelStarted) return;
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (event.key === 'Escape') send({ type: 'user.cancelChannel' });
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [channelStarted, send]);

  // A popover closed (Escape, Cancel, or its alert sent) leaves the focus on the chart it was opened from, rather
  // than on the page's body.
  const popoverOpen = popover !== null || context.channel !== null;
  const hadPopover = useRef(false);
  useEffect(() => {
    const lost = document.activeElement === null || document.activeElement === document.body;
    if (hadPopover.current && !popoverOpen && lost) wrapper.current?.focus();
    hadPopover.current = popoverOpen;
  }, [popoverOpen]);

  const onRelayout = (event: PlotRelayoutEvent) => {
    const { figure: shown, elements } = current.current;
    const levels = new Map<string, number>();
    for (const e of elements) {
      if ((e.type === 'ALERT' || e.type === 'SAR') && e.chartdata.y !== null) levels.set(e.id, e.chartdata.y);
    }
    const moves = shapeMoves(event as Record<string, unknown>, shown.shapeIds, levels);
    if (moves.length === 0) return;
    let snapBack = false;
    for (const move of moves) {
      const element = elements.find((e) => e.id === move.id);
      const alert = current.current.alerts.find((a) => a.id === move.id);
      // Only an alert at one price moves; any other line dragged (support, resistance, a move's level) goes back.
      if (element?.type === 'ALERT' && alert !== undefined && movableLevel(alert) !== null) {
        send({ type: 'user.moveAlert', id: move.id, price: move.y });
      } else snapBack = true;
    }
    if (snapBack) setRedraw((n) => n + 1);
  };

  const chooseDirection = (alerttype: 'U' | 'D') => {
    if (!popover) return;
    send({ type: 'user.addAlert', price: popover.price, alerttype });
    setPopover(null);
  };

  const rsiShown = context.rsiPanel && context.duration !== '1D';
  const chartLoading = state.matches({ chart: 'loading' });
  const chartFailed = state.matches({ chart: 'failed' });
  const alertsBusy = state.matches({ alerts: 'saving' }) || state.matches({ alerts: 'deleting' });
  // The alert whose delete waits for its confirmation (asked from its ✕ in the list or its tag on the chart).
  const doomed = context.alerts.find((a) => a.id === context.toDelete);
  const last = current.current.last;
  const quote = context.quote ? quoteText(context.quote) : null;
  const flash = context.flash;
  const overlays = context.elements.filter(
    (e) =>
      e.type !== 'ALERT' &&
      e.type !== 'BAND' &&
      e.charttype !== 'draft' &&
      !(e.type === 'IMAGE' && e.chartdata.points.length === 0),
  );
  // A symbol whose chart never loaded (unknown, or the server down) shows the failure alone.
  const unavailable = chartFailed && context.bars.length === 0;
  const title = `${symbol} ${context.duration} price chart, ${todayStamp()}`;

  return (
    <section className="screen pricechart">
      <header className="pc-header">
        <h1>
          <span className="pc-symbol">{symbol}</span>
          {unavailable ? null : quote ? (
            <span className="pc-quote" data-testid="chart-quote">
              <span
                key={flash?.key ?? 0}
                className={`pc-price ${quote.tone} ${flash ? `flash-${flash.direction}` : ''}`}
              >
                {quote.price}
              </span>
              <span className={`pc-change ${quote.tone}`}>{quote.change}</span>
            </span>
          ) : (
            <span className="pc-quote hint">waiting for the live price…</span>
          )}
        </h1>
        <div className="pc-actions">
          <Link to={`/CompanyStats?stock=${encodeURIComponent(symbol)}`}>Company statistics</Link>
          <button type="button" className="button" onClick={() => void quickAddToWatchlist(symbol)}>
            Add to watch list
          </button>
          <button
            type="button"
            className="button"
            disabled={!graph || chartFailed || state.matches({ snapshot: 'saving' }) || !hasPrices(context)}
            onClick={() => graph && send({ type: 'user.saveSnapshot', graph, title })}
          >
            {state.matches({ snapshot: 'saving' }) ? 'Saving snapshot…' : 'Save snapshot'}
          </button>
          <SymbolSearch
            label="Open another symbol"
            placeholder={OPEN_PLACEHOLDER}
            onPick={(hit) => send({ type: 'user.openSymbol', symbol: hit.symbol })}
          />
        </div>
        {context.snapshotError && (
          <p className="error" role="alert">
            {context.snapshotError}
          </p>
        )}
      </header>

      <div className="toolbar pc-toolbar">
        <div role="group" aria-label="Duration" className="pc-segmented">
          {DURATIONS.map((d) => (
            <button
              key={d}
              type="button"
              className="pc-seg"
              aria-pressed={context.duration === d}
              onClick={() => send({ type: 'user.setDuration', duration: d })}
            >
              {d}
            </button>
          ))}
        </div>
        <div role="group" aria-label="Moving averages" className="pc-chips">
          {SMA_PERIODS.map((p) => (
            <button
              key={p}
              type="button"
              className="pc-chip"
              aria-pressed={context.smas.includes(p)}
              style={{ borderColor: SMA_COLORS[p], ...(context.smas.includes(p) ? { background: SMA_COLORS[p] } : {}) }}
              disabled={context.duration === '1D'}
              onClick={() => send({ type: 'user.toggleSma', period: p })}
            >
              SMA {p}
            </button>
          ))}
        </div>
        <div role="group" aria-label="Panels" className="pc-chips">
          <button
            type="button"
            className="pc-chip"
            aria-pressed={context.rsiPanel}
            style={{ borderColor: RSI_COLOR, ...(context.rsiPanel ? { background: RSI_COLOR } : {}) }}
            disabled={context.duration === '1D'}
            onClick={() => send({ type: 'user.toggleRsi' })}
          >
            RSI 14
          </button>
        </div>
        <div role="group" aria-label="A click on the chart draws" className="pc-segmented">
          {(['level', 'channel'] as const).map((d) => (
            <button
              key={d}
              type="button"
              className="pc-seg"
              aria-pressed={context.drawing === d}
              onClick={() => send({ type: 'user.setDrawing', drawing: d })}
            >
              {d === 'level' ? 'Price level' : 'Channel'}
            </button>
          ))}
        </div>
      </div>

      <div className={unavailable ? 'pc-body pc-alone' : 'pc-body'}>
        <div className="card pc-chart-card">
          {chartFailed ? (
            <Failed
              message={context.error ?? 'The chart could not be loaded'}
              onRetry={() => send({ type: 'user.retry' })}
            />
          ) : chartLoading && !hasPrices(context) ? (
            <Skeleton lines={10} height={28} />
          ) : (
            <div className="pc-chart-wrap" ref={wrapper} aria-busy={chartLoading} tabIndex={-1}>
              {chartLoading && <div className="pc-reloading">Loading {context.duration}…</div>}
              <Chart
                data={figure.data}
                // A line dragged in vain goes back: Plotly keeps a dragged shape where it was dropped until
                // `editrevision` changes (the zoom, `uirevision`, is kept).
                layout={{ ...figure.layout, editrevision: `${context.revision}/${redraw}` }}
                config={{
                  edits: { shapePosition: true },
                  scrollZoom: false,
                  displayModeBar: showsModeBar(context.plotWidth),
                }}
                height={chartHeight(rsiShown)}
                label={`${symbol} candlestick chart with volume, ${context.duration}`}
                onInitialized={(_figure, div) => setGraph(div)}
                onRelayout={onRelayout}
              />
              {popover && (
                <div
                  ref={popoverRef}
                  className="pc-popover"
                  role="dialog"
                  aria-label={`Add an alert at ${popover.price.toFixed(2)}`}
                  style={{ left: popoverLeft, top: popover.top }}
                  onKeyDown={(e: KeyboardEvent) => {
                    if (e.key === 'Escape') setPopover(null);
                    if (e.key.toLowerCase() === 'u') chooseDirection('U');
                    if (e.key.toLowerCase() === 'd') chooseDirection('D');
                  }}
                >
                  <p>
                    Alert at <strong>{popover.price.toFixed(2)}</strong>
                  </p>
                  <div className="pc-popover-actions">
                    {(['U', 'D'] as const).map((direction) => (
                      <button
                        key={direction}
                        type="button"
                        className={`button ${defaultDirection(popover.price, last) === direction ? 'primary' : ''}`}
                        autoFocus={defaultDirection(popover.price, last) === direction}
                        aria-describedby={
                          holdsAlready(popover.price, direction, last) === null ? undefined : `pc-holds-${direction}`
                        }
                        onClick={() => chooseDirection(direction)}
                      >
                        {direction === 'U' ? '▲ Up (U)' : '▼ Down (D)'}
                      </button>
                    ))}
                    <button
                      type="button"
                      className="icon-button small"
                      aria-label="Cancel"
                      onClick={() => setPopover(null)}
                    >
                      ✕
                    </button>
                  </div>
                  {(['U', 'D'] as const).map((direction) => {
                    const holds = holdsAlready(popover.price, direction, last);
                    return (
                      holds && (
                        <p key={direction} id={`pc-holds-${direction}`} className="pc-holds" role="note">
                          {direction === 'U' ? '▲ Up' : '▼ Down'}: {holds}, so it would fire on the next tick.
                        </p>
                      )
                    );
                  })}
                </div>
              )}
              {context.channel && (
                <ChannelPopover
                  key={`${context.channel.lower}-${context.channel.upper}`}
                  lower={context.channel.lower}
                  upper={context.channel.upper}
                  left={clicked.left}
                  top={clicked.top}
                  busy={alertsBusy}
                  send={send}
                />
              )}
              <p className="hint">
                {context.drawing === 'channel'
                  ? 'Click the chart at the lower and at the upper bound of the channel. '
                  : 'Click the chart (or a support or resistance line) to add an alert at that price; drag an alert line to move it. '}
                Click an alert's label to delete it.
                {context.duration === '1D' && ' 1D shows the session in minute candles, moved by the live quotes.'}
              </p>
            </div>
          )}
        </div>

        {!unavailable && (
          <div className="pc-side">
            <section className="card" aria-labelledby="pc-alerts-title">
              <h2 id="pc-alerts-title">Alerts on {symbol}</h2>
              <PriceAlertForm send={send} last={last} busy={alertsBusy} answered={context.answered} />
              <SmaAlertForm send={send} busy={alertsBusy} answered={context.answered} />
              <details className="pc-condition">
                <summary>Any condition (SMA, EMA, RSI, volume, change %)</summary>
                <ChartConditionForm symbol={symbol} send={send} busy={alertsBusy} answered={context.answered} />
              </details>
              {context.alertError && (
                <p className="error" role="alert">
                  {context.alertError}
                </p>
              )}
              {doomed !== undefined && state.matches({ alerts: 'ready' }) && (
                <ConfirmBar
                  key={doomed.id}
                  className="pc-confirm"
                  title={`Delete alert ${alertLabel(doomed)}?`}
                  question={
                    <>
                      <strong>Delete the alert {alertLabel(doomed)}?</strong> This cannot be undone.
                    </>
                  }
                  confirm="Delete"
                  onConfirm={() => send({ type: 'user.confirmDelete' })}
                  onKeep={() => send({ type: 'user.cancelDelete' })}
                />
              )}
              {state.matches({ alerts: 'loading' }) ? (
                <Skeleton lines={2} />
              ) : state.matches({ alerts: 'failed' }) ? (
                <Failed
                  message={context.alertsError ?? 'The alerts could not be loaded'}
                  onRetry={() => send({ type: 'user.retry' })}
                />
              ) : context.alerts.length === 0 ? (
                <Empty>No alerts on {symbol} yet: click the chart at a price, or type one above.</Empty>
              ) : (
                <ul className="pc-alerts" aria-label="Alerts">
                  {context.alerts.map((a) => (
                    <AlertItem
                      key={a.id}
                      alert={a}
                      send={send}
                      busy={alertsBusy}
                      note={chartNote(a, context.bars, chartView(context.duration, context.rsiPanel))}
                    />
                  ))}
                </ul>
              )}
            </section>

            <section className="card" aria-labelledby="pc-compare-title">
              <h2 id="pc-compare-title">Compare and overlays</h2>
              <CompareForm send={send} busy={state.matches({ compare: 'adding' })} />
              {context.compareError && (
                <p className="error" role="alert">
                  {context.compareError}
                </p>
              )}
              {overlays.length === 0 ? (
                <Empty>Nothing drawn over the candles yet: add a symbol to compare.</Empty>
              ) : (
                <ul className="pc-overlays" aria-label="Chart elements">
                  {overlays.map((e) => {
                    const hidden = context.removed.includes(e.id);
                    return (
                      <li key={e.id} className={hidden ? 'hidden' : ''}>
                        <span className="pc-swatch" style={{ background: e.color }} aria-hidden="true" />
                        <span>{elementName(e)}</span>
                        {hidden ? (
                          <span className="hint">hidden</span>
                        ) : (
                          <button
                            type="button"
                            className="icon-button small"
                            aria-label={`Hide ${elementName(e)}`}
                            onClick={() => send({ type: 'user.hideElement', id: e.id })}
                          >
                            ✕
                          </button>
                        )}
                      </li>
                    );
                  })}
                </ul>
              )}
              <div className="pc-row">
                <button
                  type="button"
                  className="button"
                  disabled={
                    !context.elements.some(
                      (e) => (e.type === 'LINE' || e.type === 'AXIS') && !context.removed.includes(e.id),
                    )
                  }
                  onClick={() => send({ type: 'user.hideAdded' })}
                >
                  Hide added
                </button>
                <button
                  type="button"
                  className="button"
                  disabled={context.removed.length === 0}
                  onClick={() => send({ type: 'user.reset' })}
                >
                  Reset hidden
                </button>
              </div>
            </section>
          </div>
        )}
      </div>
    </section>
  );
}

/** The price chart screen: the chart of `?stock=`, or a form to choose a symbol. */
export default function PriceChartScreen() {
  const location = useLocation();
  const symbol = cleanSymbol(location.params.get('stock') ?? '');
  if (symbol === '') {
    return (
      <section className="screen pricechart">
        <h1>Price chart</h1>
        <Empty>No symbol chosen: search a symbol or company to chart it.</Empty>
        <SymbolSearch
          label="Symbol to chart"
          placeholder={OPEN_PLACEHOLDER}
          onPick={(hit) => navigate(chartPath(hit.symbol))}
        />
      </section>
    );
  }
  return <PriceChart key={symbol} symbol={symbol} />;
}
