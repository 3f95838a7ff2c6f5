/**
 * The price chart of one symbol: daily bars of the chosen duration (or today's minute candles), moving-average
 * overlays, patterns, support and resistance, the user's alerts on the symbol (add, move, delete), compared
 * symbols, live quotes, and chart snapshots. Four regions run side by side: the chart, the alerts, the compare
 * form and the snapshot button.
 */
import { alertsApi } from '../../../domain/contract/alerts.ts';
import { LEVEL_OPS, type AlertFrequency, type AlertOp, type AlertSource } from '../../../domain/alerts/conditions.ts';
import { marketApi, type MinuteCandles, type NextAverages } from '../../../domain/contract/market.ts';
import { patternsApi } from '../../../domain/contract/patterns.ts';
import { snapshotsApi } from '../../../domain/contract/snapshots.ts';
import { assertEvent, assign, fromCallback, fromPromise, not, setup } from 'xstate';
import type { Quote } from '../../../domain/market/types.ts';
import { bodyProblem, type AlertBody } from '../../components/conditionDraft.ts';
import { ApiError, call, errorMessage } from '../../services/api.ts';
import { live } from '../../services/live.ts';
import { showToast } from '../../services/toast.ts';
import {
  addedIds,
  compareColor,
  hideElements,
  rightLabelShare,
  visibleElements,
  type ChartElement,
} from './chartElements.ts';
import {
  DEFAULT_DURATION,
  DEFAULT_SMAS,
  addQuoteToIntraday,
  intradayOf,
  alertElement,
  alertName,
  applyQuote,
  endsWithFormedBar,
  formedDayClosed,
  barsOfDuration,
  channelDraftElements,
  chartView,
  closeElement,
  compareElement,
  durationMonths,
  holdsAlready,
  levelElements,
  marketDate,
  marketMinute,
  patternDays,
  patternElement,
  PATTERN_LABEL_BOX,
  supportResistance,
  thresholdProblem,
  type Bar,
  type Candle,
  type Channel,
  type ChartAlert,
  type Compare,
  type Duration,
  type PatternRow,
  type SmaPeriod,
} from './chartData.ts';

/** Most symbols compared on one chart. */
export const COMPARE_MAX = 10;

/** A brief colour change of the header price after a live update. */
export interface Flash {
  readonly direction: 'up' | 'down';
  /** Changes with every flash, so the same direction twice still replays. */
  readonly key: number;
}

/** The chart's state. */
export interface PriceChartContext {
  /** The charted symbol. */
  readonly symbol: string;
  /** The picked duration. */
  readonly duration: Duration;
  /** The daily bars shown (live quotes move the last one). */
  readonly bars: readonly Bar[];
  /** Today's minute candles, built from the quotes received while the page is open (the 1D chart). */
  readonly intraday: readonly Candle[];
  /** The symbol's pattern rows of the duration. */
  readonly patterns: readonly PatternRow[];
  /** The user's alerts on the symbol. */
  readonly alerts: readonly ChartAlert[];
  /** Compared symbols, in the order added. */
  readonly compares: readonly Compare[];
  /** The compared symbols' bars of the duration. */
  readonly compareBars: Readonly<Record<string, readonly Bar[]>>;
  /** What is drawn over the candles, derived from the above. */
  readonly elements: readonly ChartElement[];
  /** Ids of the hidden elements. */
  readonly removed: readonly string[];
  /** The moving averages overlaid. */
  readonly smas: readonly SmaPeriod[];
  /** Whether the RSI(14) panel is shown below the volume (daily durations). */
  readonly rsiPanel: boolean;
  /** The last live quote. */
  readonly quote: Quote | null;
  /** What the averages of the day after the loaded bars are made of: the forming bar's follow the price. */
  readonly next: NextAverages | null;
  /** The header's flash after a price change. */
  readonly flash: Flash | null;
  /** Why the chart could not be loaded. */
  readonly error: string | null;
  /** Why the alerts could not be loaded. */
  readonly alertsError: string | null;
  /** Why the last alert action failed. */
  readonly alertError: string | null;
  /** The alert whose delete (asked by its ✕ in the list or its tag on the chart) waits for the user's confirmation. */
  readonly toDelete: string | null;
  /** Why the last compare failed. */
  readonly compareError: string | null;
  /** Why the last snapshot failed. */
  readonly snapshotError: string | null;
  /** The alerts changed on the server while a change of ours was on its way: read them again after it. */
  readonly alertsStale: boolean;
  /** Bumped when the chart must be redrawn as it is (a dragged line whose move failed goes back). */
  readonly revision: number;
  /** What a click on the chart does: a price level, or one bound of a channel. */
  readonly drawing: 'level' | 'channel';
  /** The first bound of a channel being drawn. */
  readonly channelStart: number | null;
  /** A channel drawn (both bounds clicked), waiting for its operator. */
  readonly channel: Channel | null;
  /** The alert being saved. */
  readonly outgoing: AlertRequest | null;
  /** The answer to the last new or moved alert: a form keeps what was typed in it unless it was saved. */
  readonly answered: AlertAnswer;
  /** The price panel's width in px, as last measured: how much room the patterns' names have. */
  readonly plotWidth: number;
}

/** An alert request answered (`count` of them so far): saved, or refused here or by the server. */
export interface AlertAnswer {
  readonly count: number;
  readonly saved: boolean;
}

/** Events of the chart. */
export type PriceChartEvent =
  | { type: 'user.setDuration'; duration: Duration }
  | { type: 'user.toggleSma'; period: SmaPeriod }
  | { type: 'user.toggleRsi' }
  | { type: 'user.retry' }
  /** `note`: the user's words shown with each firing (blank for none), on each of the chart's alert forms. */
  | { type: 'user.addAlert'; price: number; alerttype: 'U' | 'D'; note?: string }
  | { type: 'user.addSmaAlert'; period: SmaPeriod; alerttype: 'U' | 'D'; note?: string }
  | { type: 'user.setDrawing'; drawing: PriceChartContext['drawing'] }
  | { type: 'user.channelPoint'; price: number }
  | { type: 'user.cancelChannel' }
  | { type: 'user.addChannel'; op: AlertOp; frequency: AlertFrequency; source?: AlertSource; note?: string }
  | { type: 'user.addCondition'; body: AlertBody }
  | { type: 'user.moveAlert'; id: string; price: number }
  /** Asks to delete an alert: it is deleted once confirmed (`user.confirmDelete`), or kept (`user.cancelDelete`). */
  | { type: 'user.deleteAlert'; id: string }
  | { type: 'user.confirmDelete' }
  | { type: 'user.cancelDelete' }
  /** Pauses an armed alert, resumes a paused one. */
  | { type: 'user.toggleAlert'; id: string }
  | { type: 'user.addCompare'; symbol: string; mode: Compare['mode'] }
  | { type: 'user.hideElement'; id: string }
  | { type: 'user.hideAdded' }
  | { type: 'user.reset' }
  | { type: 'user.saveSnapshot'; graph: HTMLElement; title: string }
  | { type: 'user.openSymbol'; symbol: string }
  /** The chart was laid out at a new width: `plotWidth`, its price panel's, in px. */
  | { type: 'ui.resized'; plotWidth: number }
  | { type: 'server.quote'; quote: Quote }
  | { type: 'server.alertsChanged' };

/** What the chart load asks for. */
export interface ChartRequest {
  readonly symbol: string;
  readonly duration: Duration;
  readonly compares: readonly string[];
}

/** What the chart load answers. */
export interface ChartLoad {
  readonly bars: readonly Bar[];
  /** What the averages of the day after the bars are made of (see `applyQuote`). */
  readonly next: NextAverages | null;
  readonly patterns: readonly PatternRow[];
  readonly compareBars: Readonly<Record<string, readonly Bar[]>>;
  /** The 1D chart's minute candles of the session as the server made them; null for a daily duration. */
  readonly minutes: MinuteCandles | null;
}

/** The body of an alert the chart sends. */
export type AlertRequest = AlertBody;

/** What a compare load asks for and answers. */
export interface CompareLoad {
  readonly symbol: string;
  readonly mode: Compare['mode'];
  readonly bars: readonly Bar[];
}

/** What a snapshot save asks for. */
export interface SnapshotRequest {
  readonly symbol: string;
  readonly title: string;
  readonly graph: HTMLElement;
}

/** The chart's starting state for a symbol. */
export function initialContext(symbol: string): PriceChartContext {
  return {
    symbol,
    duration: DEFAULT_DURATION,
    bars: [],
    intraday: [],
    patterns: [],
    alerts: [],
    compares: [],
    compareBars: {},
    elements: [],
    removed: [],
    smas: DEFAULT_SMAS,
    rsiPanel: false,
    quote: null,
    next: null,
    flash: null,
    error: null,
    alertsError: null,
    alertError: null,
    toDelete: null,
    compareError: null,
    snapshotError: null,
    alertsStale: false,
    revision: 0,
    drawing: 'level',
    channelStart: null,
    channel: null,
    outgoing: null,
    answered: { count: 0, saved: false },
    plotWidth: PATTERN_LABEL_BOX.plotWidth,
  };
}

/**
 * The chart elements of a state: alert lines, then support and resistance (the previous close on 1D), then on
 * daily durations the patterns and the compared symbols.
 */
export function deriveElements(context: Omit<PriceChartContext, 'elements'>): ChartElement[] {
  const { symbol, bars, duration, quote } = context;
  // The last bar is still forming when the page formed it after the server's bars (see `applyQuote`: a quote after
  // the close of the server's last bar, even on its date, is of the next session); without the server's sums, when
  // a quote of its day moved it.
  const last = bars.at(-1);
  const forming =
    last !== undefined &&
    (context.next !== null
      ? endsWithFormedBar(bars, context.next)
      : quote !== null && marketDate(quote.ts) === last.date);
  const view = chartView(duration, context.rsiPanel);
  const alerts = [
    ...context.alerts.flatMap((a) => alertElement(a, bars, view, forming) ?? []),
    ...channelDraftElements(symbol, context.channelStart, context.channel),
  ];
  if (duration === '1D') {
    const previous = quote ? quote.price - quote.change : bars.at(-1)?.close;
    return previous === undefined ? alerts : [...alerts, closeElement(symbol, Math.round(previous * 100) / 100)];
  }
  const compares = context.compares.flatMap((c) => {
    const closes = context.compareBars[c.symbol];
    return closes && closes.length > 0 ? [compareElement(c, closes, bars)] : [];
  });
  return [
    ...alerts,
    ...levelElements(symbol, supportResistance(bars)),
    patternElement(symbol, context.patterns, bars, {
      plotWidth: context.plotWidth,
      smas: context.smas,
      labelShare: rightLabelShare(visibleElements(alerts, context.removed), context.plotWidth),
    }),
    ...compares,
  ];
}

/** The context with a patch applied and its elements derived again. */
export function withPatch(
  context: PriceChartContext,
  patch: Partial<Omit<PriceChartContext, 'elements'>>,
): PriceChartContext {
  const next = { ...context, ...patch };
  return { ...next, elements: deriveElements(next) };
}

/** Replaces the alert of the same id, or appends it. */
export function upsertAlert(alerts: readonly ChartAlert[], alert: ChartAlert): ChartAlert[] {
  return alerts.some((a) => a.id === alert.id)
    ? alerts.map((a) => (a.id === alert.id ? alert : a))
    : [...alerts, alert];
}

/** The alerts without one; an empty list once the symbol has none left. */
export function withoutAlert(alerts: readonly ChartAlert[], id: string): ChartAlert[] {
  return alerts.filter((a) => a.id !== id);
}

/**
 * The request of an alert action, or null when the event is not one (or names an unknown alert, or a channel
 * not drawn yet).
 */
export function alertRequest(context: PriceChartContext, event: PriceChartEvent): AlertRequest | null {
  const { symbol } = context;
  switch (event.type) {
    case 'user.addAlert':
      return notedBody({ symbol, close: event.price, alerttype: event.alerttype, kind: 'PRICE' }, event.note);
    case 'user.addSmaAlert':
      return notedBody({ symbol, alerttype: event.alerttype, kind: 'SMA', period: event.period }, event.note);
    case 'user.addChannel':
      return context.channel
        ? notedBody(
            {
              symbol,
              condition: {
                op: event.op,
                source: event.source ?? 'price',
                lower: context.channel.lower,
                upper: context.channel.upper,
              },
              frequency: event.frequency,
            },
            event.note,
          )
        : null;
    case 'user.addCondition':
      return { ...event.body, symbol };
    case 'user.moveAlert': {
      const alert = context.alerts.find((a) => a.id === event.id);
      if (!alert || movableLevel(alert) === null) return null;
      if (alert.kind === 'PRICE') {
        return { symbol, id: alert.id, update: true, close: event.price, alerttype: alert.alerttype, kind: 'PRICE' };
      }
      // The same condition at another price (its frequency, expiry and note are kept by the update).
      const { op, source } = alert.condition;
      return {
        symbol,
        id: alert.id,
        update: true,
        condition: { op, source: source as AlertSource, value: event.price },
      };
    }
    default:
      return null;
  }
}

/**
 * The price of an alert that can be moved to another price (dragged on the chart or given one in its list): a
 * price alert, or a condition of the price against one constant price (crossing, greater than, …); null for
 * any other (an SMA alert, a channel, a move, a level on another series).
 */
export function movableLevel(alert: ChartAlert): number | null {
  if (alert.kind === 'PRICE') return alert.threshold;
  if (alert.kind !== 'CONDITION') return null;
  const { op, source, value } = alert.condition;
  return source === 'price' && LEVEL_OPS.includes(op) && typeof value === 'number' ? value : null;
}

/** A new alert's body with the note typed in its form, when there is one (a blank one is none). */
function notedBody(body: AlertRequest, note: string | undefined): AlertRequest {
  return note === undefined || note.trim() === '' ? body : { ...body, note };
}

/** A symbol as typed, upper-cased and trimmed. */
export function cleanSymbol(text: string): string {
  return text.trim().toUpperCase();
}

/** What is wrong with a symbol to compare, or null. */
export function compareProblem(context: PriceChartContext, text: string): string | null {
  const symbol = cleanSymbol(text);
  if (symbol === '') return 'Compare: type a symbol';
  if (!/^[A-Z0-9.-]{1,10}$/.test(symbol)) return 'Compare: a symbol is 1 to 10 characters of A-Z, 0-9, . and -';
  if (symbol === context.symbol) return `Compare: ${symbol} is the chart's own symbol`;
  if (context.compares.some((c) => c.symbol === symbol)) return `Compare: ${symbol} is already on the chart`;
  if (context.compares.length >= COMPARE_MAX) return `Compare: at most ${COMPARE_MAX} symbols`;
  return null;
}

/** The message of a failed chart load. */
export function loadFailure(error: unknown, symbol: string): string {
  if (error instanceof ApiError && (error.code === 'unknown_symbol' || error.status === 404)) {
    return `There is no symbol ${symbol}: search for a symbol to chart`;
  }
  return `The chart could not be loaded: ${errorMessage(error)}`;
}

/** A symbol's bars of a duration, and what the averages of the day after them are made of. */
async function fetchChart(
  symbol: string,
  duration: Duration,
  signal: AbortSignal,
): Promise<{ bars: Bar[]; next: NextAverages | null }> {
  const answer = await call(marketApi.getBarsBySymbol, {
    params: { symbol },
    query: { months: durationMonths(duration) },
    signal,
  });
  return { bars: barsOfDuration(duration, answer.bars), next: answer.next };
}

async function fetchBars(symbol: string, duration: Duration, signal: AbortSignal): Promise<Bar[]> {
  return (await fetchChart(symbol, duration, signal)).bars;
}

/** The minute candles of a symbol's live session, made of every tick (the 1D chart). */
function fetchMinutes(symbol: string, signal: AbortSignal): Promise<MinuteCandles> {
  return call(marketApi.getBarsBySymbolMinutes, { params: { symbol }, signal });
}

/** A pause of an armed alert or a resume of a paused one. */
export interface AlertToggle {
  readonly id: string;
  readonly action: 'pause' | 'resume';
}

/** What toggling the alert `id` does: pause it when armed, resume it when paused; null for any other. */
export function toggleOf(context: Pick<PriceChartContext, 'alerts'>, id: string): AlertToggle | null {
  const status = context.alerts.find((a) => a.id === id)?.status;
  return status === 'armed' ? { id, action: 'pause' } : status === 'paused' ? { id, action: 'resume' } : null;
}

/** The toast of a paused or resumed alert. */
function alertToggled(alert: ChartAlert): string {
  return `Alert ${alert.status === 'paused' ? 'paused' : 'resumed'}: ${alert.conditiontext}`;
}

/** The price chart's machine; its input is the symbol. */
export const priceChartMachine = setup({
  types: {
    context: {} as PriceChartContext,
    events: {} as PriceChartEvent,
    input: {} as { symbol: string },
  },
  actors: {
    loadChart: fromPromise<ChartLoad, ChartRequest>(async ({ input, signal }) => {
      try {
        const [{ bars, next }, patterns, minutes, ...others] = await Promise.all([
          fetchChart(input.symbol, input.duration, signal),
          input.duration === '1D'
            ? Promise.resolve([] as PatternRow[])
            : call(patternsApi.getPatternsRecentstkpatternByStockByLimitdays, {
                params: { stock: input.symbol, limitdays: patternDays(input.duration) },
                signal,
              }),
          input.duration === '1D' ? fetchMinutes(input.symbol, signal) : Promise.resolve(null),
          ...input.compares.map((s) => fetchBars(s, input.duration, signal)),
        ]);
        const compareBars = Object.fromEntries(input.compares.map((s, i) => [s, others[i] ?? []]));
        return { bars, next, patterns, minutes, compareBars };
      } catch (error) {
        throw new Error(loadFailure(error, input.symbol), { cause: error });
      }
    }),
    loadMinutes: fromPromise<MinuteCandles, { symbol: string }>(async ({ input, signal }) =>
      fetchMinutes(input.symbol, signal),
    ),
    loadAlerts: fromPromise<ChartAlert[], { symbol: string }>(async ({ input, signal }) =>
      call(alertsApi.getStockalertsBySymbol, { params: { symbol: input.symbol }, signal }),
    ),
    saveAlert: fromPromise<ChartAlert, AlertRequest>(async ({ input }) =>
      call(alertsApi.postStockalerts, { body: input }),
    ),
    deleteAlert: fromPromise<{ id: string }, { id: string }>(async ({ input }) =>
      call(alertsApi.postDeletealertById, { params: { id: input.id } }),
    ),
    toggleAlert: fromPromise<ChartAlert, AlertToggle>(async ({ input }) =>
      call(input.action === 'pause' ? alertsApi.postStockalertsPause : alertsApi.postStockalertsResume, {
        params: { id: input.id },
      }),
    ),
    loadCompare: fromPromise<CompareLoad, { symbol: string; mode: Compare['mode']; duration: Duration }>(
      async ({ input, signal }) => {
        try {
          return {
            symbol: input.symbol,
            mode: input.mode,
            bars: await fetchBars(input.symbol, input.duration, signal),
          };
        } catch (error) {
          if (error instanceof ApiError && error.code === 'unknown_symbol') {
            throw new Error(`Compare: there is no symbol ${input.symbol}`, { cause: error });
          }
          throw error;
        }
      },
    ),
    saveSnapshot: fromPromise<{ id: string; title: string }, SnapshotRequest>(async ({ input }) => {
      const plotly = (await import('../../components/plotly.ts')).default;
      const image = await plotly.toImage(input.graph, {
        format: 'png',
        width: Math.max(600, input.graph.clientWidth),
        height: Math.max(360, input.graph.clientHeight),
      });
      return call(snapshotsApi.postSnapshots, { body: { symbol: input.symbol, title: input.title, image } });
    }),
    liveQuotes: fromCallback<PriceChartEvent, { symbol: string }>(({ sendBack, input }) =>
      live.onQuotes([input.symbol], (quote) => sendBack({ type: 'server.quote', quote })),
    ),
    liveChanges: fromCallback<PriceChartEvent, { symbol: string }>(({ sendBack, input }) => {
      const offChange = live.onReadModelChanged((change) => {
        if (change.name === 'alerts') sendBack({ type: 'server.alertsChanged' });
      });
      const offNote = live.onNotification((note) => {
        if (note.symbol === input.symbol) sendBack({ type: 'server.alertsChanged' });
      });
      let wasDown = false;
      const offStatus = live.onStatus((status) => {
        if (status === 'disconnected') wasDown = true;
        else if (status === 'connected' && wasDown) {
          wasDown = false;
          sendBack({ type: 'server.alertsChanged' });
        }
      });
      return () => {
        offChange();
        offNote();
        offStatus();
      };
    }),
  },
  actions: {
    /** Goes to another page of the app; provided by the screen. */
    navigate: (_, _params: { path: string }) => undefined,
    /** Tells the user what happened. */
    notify: (_, params: { text: string; tone: 'info' | 'error' }) => showToast(params.text, params.tone),
    /** Keeps an alert as the server answered it (saved, paused or resumed), its chart elements with it. */
    keepAlert: assign(({ context }, params: { alert: ChartAlert }) =>
      withPatch(context, { alerts: upsertAlert(context.alerts, params.alert) }),
    ),
    /** Folds a live quote of the symbol into the header, the flash, the daily bars and the minute candles. */
    takeQuote: assign(({ context, event }) => {
      assertEvent(event, 'server.quote');
      const { quote } = event;
      const previous = context.quote?.price;
      const flash: Flash | null =
        previous === undefined || previous === quote.price
          ? context.flash
          : { direction: quote.price > previous ? 'up' : 'down', key: (context.flash?.key ?? 0) + 1 };
      return withPatch(context, {
        quote,
        flash,
        bars: applyQuote(context.bars, quote, context.next),
        intraday: addQuoteToIntraday(context.intraday, quote),
      });
    }),
    /** Says why the alert request cannot be sent, naming what is missing or wrong. */
    refuseRequest: assign({ alertError: ({ context, event }) => requestProblem(context, event) }),
    /** Counts an alert request answered, saved or refused. */
    answer: assign(({ context }, params: { saved: boolean }) => ({
      answered: { count: context.answered.count + 1, saved: params.saved },
    })),
  },
  guards: {
    alertIsValid: ({ context, event }) => {
      if (event.type === 'user.addAlert' || event.type === 'user.moveAlert') {
        if (thresholdProblem(event.price) !== null) return false;
      }
      const request = alertRequest(context, event);
      // A move sends a threshold only; every new alert is checked as the server checks it (its note too).
      return request !== null && (event.type === 'user.moveAlert' || bodyProblem(request) === null);
    },
    // A width the names could be placed over, and different enough from the last to place them again.
    resizedEnough: ({ context, event }) => {
      assertEvent(event, 'ui.resized');
      return (
        Number.isFinite(event.plotWidth) && event.plotWidth >= 40 && Math.abs(event.plotWidth - context.plotWidth) >= 8
      );
    },
    drawingChannel: ({ context, event }) => {
      assertEvent(event, 'user.channelPoint');
      return context.drawing === 'channel' && Number.isFinite(event.price) && event.price > 0;
    },
    alertIsKnown: ({ context, event }) =>
      event.type === 'user.deleteAlert' && context.alerts.some((a) => a.id === event.id),
    // Confirmed while the alert is still listed (the list read again may have lost it: deleted elsewhere).
    deleteIsAsked: ({ context }) => context.alerts.some((a) => a.id === context.toDelete),
    alertCanToggle: ({ context, event }) => event.type === 'user.toggleAlert' && toggleOf(context, event.id) !== null,
    compareIsValid: ({ context, event }) =>
      event.type === 'user.addCompare' && compareProblem(context, event.symbol) === null,
    alertsStale: ({ context }) => context.alertsStale,
    quoteOfSymbol: ({ context, event }) => {
      assertEvent(event, 'server.quote');
      return event.quote.symbol === context.symbol;
    },
    // On 1D, a quote of a later minute than the last candle's: the candle before it is complete on the server.
    minuteTurned: ({ context, event }) => {
      assertEvent(event, 'server.quote');
      const last = context.intraday.at(-1);
      if (context.duration !== '1D' || event.quote.symbol !== context.symbol || last === undefined) return false;
      const minute = marketMinute(event.quote.ts);
      return minute !== null && minute > last.time;
    },
    // The day the page formed a bar of has closed since the bars were loaded: the server has its bar now.
    formedDayClosed: ({ context, event }) => {
      assertEvent(event, 'server.quote');
      return event.quote.symbol === context.symbol && formedDayClosed(context.bars, context.next, event.quote);
    },
  },
}).createMachine({
  id: 'pricechart',
  type: 'parallel',
  context: ({ input }) => initialContext(cleanSymbol(input.symbol)),
  invoke: [
    { src: 'liveQuotes', input: ({ context }) => ({ symbol: context.symbol }) },
    { src: 'liveChanges', input: ({ context }) => ({ symbol: context.symbol }) },
  ],
  on: {
    'server.quote': { guard: 'quoteOfSymbol', actions: 'takeQuote' },
    'user.toggleSma': {
      // The averages drawn widen the price axis, so the patterns' names are placed again.
      actions: assign(({ context, event }) =>
        withPatch(context, {
          smas: context.smas.includes(event.period)
            ? context.smas.filter((p) => p !== event.period)
            : [...context.smas, event.period].sort((a, b) => a - b),
        }),
      ),
    },
    'user.toggleRsi': {
      actions: assign(({ context }) => withPatch(context, { rsiPanel: !context.rsiPanel })),
    },
    'user.hideElement': {
      actions: assign({ removed: ({ context, event }) => hideElements(context.removed, [event.id]) }),
    },
    'user.hideAdded': {
      actions: assign({ removed: ({ context }) => hideElements(context.removed, addedIds(context.elements)) }),
    },
    'user.reset': { actions: assign({ removed: [] }) },
    'ui.resized': {
      guard: 'resizedEnough',
      actions: assign(({ context, event }) => withPatch(context, { plotWidth: event.plotWidth })),
    },
    'user.setDrawing': {
      actions: assign(({ context, event }) =>
        withPatch(context, { drawing: event.drawing, channelStart: null, channel: null }),
      ),
    },
    'user.channelPoint': {
      guard: 'drawingChannel',
      actions: assign(({ context, event }) => {
        const start = context.channelStart;
        if (start === null || context.channel !== null) {
          return withPatch(context, { channelStart: event.price, channel: null });
        }
        if (start === event.price) return context;
        const channel = { lower: Math.min(start, event.price), upper: Math.max(start, event.price) };
        return withPatch(context, { channelStart: null, channel });
      }),
    },
    'user.cancelChannel': {
      actions: assign(({ context }) => withPatch(context, { channelStart: null, channel: null })),
    },
    'user.openSymbol': {
      guard: ({ event }) => /^[A-Z0-9.-]{1,10}$/.test(cleanSymbol(event.symbol)),
      actions: {
        type: 'navigate',
        params: ({ event }) => ({ path: `/PriceCharts?stock=${encodeURIComponent(cleanSymbol(event.symbol))}` }),
      },
    },
  },
  states: {
    chart: {
      initial: 'loading',
      states: {
        loading: {
          invoke: {
            src: 'loadChart',
            input: ({ context }) => ({
              symbol: context.symbol,
              duration: context.duration,
              compares: context.compares.map((c) => c.symbol),
            }),
            onDone: {
              target: 'ready',
              actions: assign(({ context, event }) =>
                withPatch(context, {
                  bars: context.quote
                    ? applyQuote(event.output.bars, context.quote, event.output.next)
                    : event.output.bars,
                  next: event.output.next,
                  intraday: event.output.minutes ? intradayOf(event.output.minutes, context.quote) : context.intraday,
                  patterns: event.output.patterns,
                  compareBars: event.output.compareBars,
                  error: null,
                }),
              ),
            },
            onError: { target: 'failed', actions: assign({ error: ({ event }) => errorMessage(event.error) }) },
          },
          on: {
            'user.setDuration': {
              target: 'loading',
              reenter: true,
              actions: assign({ duration: ({ event }) => event.duration }),
            },
          },
        },
        ready: {
          initial: 'live',
          states: {
            live: {},
            // The quotes are throttled, so a candle made of them can miss the minute's extremes and first trade:
            // once a minute is over, the session's candles are read again from the server, made of every tick.
            settling: {
              invoke: {
                src: 'loadMinutes',
                input: ({ context }) => ({ symbol: context.symbol }),
                onDone: {
                  target: 'live',
                  actions: assign(({ context, event }) =>
                    withPatch(context, { intraday: intradayOf(event.output, context.quote) }),
                  ),
                },
                // The candles made of the quotes stay; the next minute asks again.
                onError: 'live',
              },
            },
          },
          on: {
            'user.setDuration': {
              guard: ({ context, event }) => event.duration !== context.duration,
              target: 'loading',
              actions: assign({ duration: ({ event }) => event.duration }),
            },
            // Its stored bar and the next averages are loaded again (a page kept open overnight).
            'server.quote': [
              { guard: 'formedDayClosed', target: 'loading', actions: 'takeQuote' },
              { guard: 'minuteTurned', target: '.settling', actions: 'takeQuote' },
              { guard: 'quoteOfSymbol', actions: 'takeQuote' },
            ],
          },
        },
        failed: {
          on: {
            'user.retry': 'loading',
            'user.setDuration': { target: 'loading', actions: assign({ duration: ({ event }) => event.duration }) },
          },
        },
      },
    },
    alerts: {
      initial: 'loading',
      states: {
        loading: {
          invoke: {
            src: 'loadAlerts',
            input: ({ context }) => ({ symbol: context.symbol }),
            onDone: {
              target: 'ready',
              actions: assign(({ context, event }) => withPatch(context, { alerts: event.output, alertsError: null })),
            },
            onError: {
              target: 'failed',
              actions: assign({
                alertsError: ({ event }) => `The alerts could not be loaded: ${errorMessage(event.error)}`,
              }),
            },
          },
        },
        ready: {
          // A change the server told of while an alert was on its way: the list is read once it is answered.
          always: { guard: 'alertsStale', target: 'refreshing' },
          on: {
            'user.addAlert': [
              { guard: 'alertIsValid', target: 'saving' },
              {
                actions: [
                  assign({
                    alertError: ({ context, event }) => thresholdProblem(event.price) ?? requestProblem(context, event),
                  }),
                  { type: 'answer', params: { saved: false } },
                ],
              },
            ],
            'user.addSmaAlert': [
              { guard: 'alertIsValid', target: 'saving' },
              { actions: ['refuseRequest', { type: 'answer', params: { saved: false } }] },
            ],
            'user.addChannel': [
              { guard: 'alertIsValid', target: 'saving' },
              { actions: ['refuseRequest', { type: 'answer', params: { saved: false } }] },
            ],
            'user.addCondition': [
              { guard: 'alertIsValid', target: 'saving' },
              { actions: ['refuseRequest', { type: 'answer', params: { saved: false } }] },
            ],
            'user.moveAlert': [
              { guard: 'alertIsValid', target: 'saving' },
              {
                actions: assign({
                  alertError: ({ event }) =>
                    thresholdProblem(event.price) ?? 'Only an alert at one price level can be moved',
                  revision: ({ context }) => context.revision + 1,
                }),
              },
            ],
            'user.deleteAlert': {
              guard: 'alertIsKnown',
              actions: assign({
                toDelete: ({ event }) => {
                  assertEvent(event, 'user.deleteAlert');
                  return event.id;
                },
              }),
            },
            'user.confirmDelete': [
              { guard: 'deleteIsAsked', target: 'deleting' },
              { actions: assign({ toDelete: null }) },
            ],
            'user.cancelDelete': { actions: assign({ toDelete: null }) },
            'user.toggleAlert': { guard: 'alertCanToggle', target: 'toggling' },
            'server.alertsChanged': 'refreshing',
          },
        },
        refreshing: {
          entry: assign({ alertsStale: false }),
          invoke: {
            src: 'loadAlerts',
            input: ({ context }) => ({ symbol: context.symbol }),
            onDone: {
              target: 'ready',
              actions: assign(({ context, event }) => withPatch(context, { alerts: event.output, alertsError: null })),
            },
            onError: {
              target: 'ready',
              actions: assign({
                alertError: ({ event }) => `The alerts could not be read again: ${errorMessage(event.error)}`,
              }),
            },
          },
          on: { 'server.alertsChanged': { target: 'refreshing', reenter: true } },
        },
        saving: {
          entry: assign(({ context, event }) => {
            const outgoing = alertRequest(context, event);
            // A channel sent is no longer being drawn.
            return event.type === 'user.addChannel'
              ? withPatch(context, { alertError: null, outgoing, channel: null, channelStart: null })
              : { ...context, alertError: null, outgoing };
          }),
          invoke: {
            src: 'saveAlert',
            input: ({ context }) => context.outgoing as AlertRequest,
            onDone: {
              target: 'ready',
              actions: [
                { type: 'keepAlert', params: ({ event }) => ({ alert: event.output }) },
                { type: 'answer', params: { saved: true } },
                {
                  type: 'notify',
                  params: ({ context, event }) => ({
                    text: alertSaved(event.output, lastPrice(context), context.outgoing?.update === true),
                    tone: 'info',
                  }),
                },
              ],
            },
            onError: {
              target: 'ready',
              actions: [
                assign({
                  alertError: ({ event }) => `The alert could not be saved: ${errorMessage(event.error)}`,
                  revision: ({ context }) => context.revision + 1,
                }),
                { type: 'answer', params: { saved: false } },
              ],
            },
          },
          on: { 'server.alertsChanged': { guard: not('alertsStale'), actions: assign({ alertsStale: true }) } },
        },
        deleting: {
          entry: assign({ alertError: null }),
          invoke: {
            src: 'deleteAlert',
            input: ({ context }) => ({ id: context.toDelete! }),
            onDone: {
              target: 'ready',
              actions: [
                assign(({ context, event }) =>
                  withPatch(context, { alerts: withoutAlert(context.alerts, event.output.id), toDelete: null }),
                ),
                { type: 'notify', params: { text: 'Alert deleted', tone: 'info' } },
              ],
            },
            onError: {
              target: 'ready',
              actions: assign({
                alertError: ({ event }) => `The alert could not be deleted: ${errorMessage(event.error)}`,
                toDelete: null,
              }),
            },
          },
          on: { 'server.alertsChanged': { guard: not('alertsStale'), actions: assign({ alertsStale: true }) } },
        },
        toggling: {
          entry: assign({ alertError: null }),
          invoke: {
            src: 'toggleAlert',
            input: ({ context, event }) => {
              assertEvent(event, 'user.toggleAlert');
              return toggleOf(context, event.id)!;
            },
            onDone: {
              target: 'ready',
              actions: [
                { type: 'keepAlert', params: ({ event }) => ({ alert: event.output }) },
                { type: 'notify', params: ({ event }) => ({ text: alertToggled(event.output), tone: 'info' }) },
              ],
            },
            onError: {
              target: 'ready',
              actions: assign({
                alertError: ({ event }) => `The alert could not be changed: ${errorMessage(event.error)}`,
              }),
            },
          },
          on: { 'server.alertsChanged': { guard: not('alertsStale'), actions: assign({ alertsStale: true }) } },
        },
        failed: {
          on: { 'user.retry': 'loading', 'server.alertsChanged': 'loading' },
        },
      },
    },
    compare: {
      initial: 'idle',
      states: {
        idle: {
          on: {
            'user.addCompare': [
              { guard: 'compareIsValid', target: 'adding' },
              { actions: assign({ compareError: ({ context, event }) => compareProblem(context, event.symbol) }) },
            ],
          },
        },
        adding: {
          entry: assign({ compareError: null }),
          invoke: {
            src: 'loadCompare',
            input: ({ context, event }) => {
              assertEvent(event, 'user.addCompare');
              return { symbol: cleanSymbol(event.symbol), mode: event.mode, duration: context.duration };
            },
            onDone: {
              target: 'idle',
              actions: assign(({ context, event }) => {
                const { symbol, mode, bars } = event.output;
                const compare: Compare = { symbol, mode, color: compareColor(context.compares.length) };
                return withPatch(context, {
                  compares: [...context.compares, compare],
                  compareBars: { ...context.compareBars, [symbol]: bars },
                  removed: context.removed.filter((id) => id !== `compare-${symbol}`),
                });
              }),
            },
            onError: {
              target: 'idle',
              actions: assign({ compareError: ({ event }) => errorMessage(event.error) }),
            },
          },
        },
      },
    },
    snapshot: {
      initial: 'idle',
      states: {
        idle: { on: { 'user.saveSnapshot': 'saving' } },
        saving: {
          entry: assign({ snapshotError: null }),
          invoke: {
            src: 'saveSnapshot',
            input: ({ context, event }) => {
              assertEvent(event, 'user.saveSnapshot');
              return { symbol: context.symbol, title: event.title, graph: event.graph };
            },
            onDone: {
              target: 'idle',
              actions: {
                type: 'notify',
                params: ({ event }) => ({
                  text: `Snapshot "${event.output.title}" saved to the Art gallery`,
                  tone: 'info',
                }),
              },
            },
            onError: {
              target: 'idle',
              actions: assign({
                snapshotError: ({ event }) => `The snapshot could not be saved: ${errorMessage(event.error)}`,
              }),
            },
          },
        },
      },
    },
  },
});

/** Why a new alert cannot be sent, naming the field, as the contract says. */
export function requestProblem(context: PriceChartContext, event: PriceChartEvent): string {
  const request = alertRequest(context, event);
  if (request === null) return 'Draw the channel first: click its two bounds on the chart';
  const problem = bodyProblem(request);
  return problem === null ? 'The alert could not be saved' : `${problem.field}: ${problem.message}`;
}

/**
 * The confirmation of a saved alert (`moved`: a price alert given a new threshold), with its status when the
 * server answered it other than armed, and for a price alert whose condition already holds at the last price,
 * that it fires on the next tick (so the toast never calls armed an alert about to be listed triggered).
 */
export function alertSaved(alert: ChartAlert, last: number | null, moved = false): string {
  const done = `Alert ${alertName(alert)} on ${alert.symbol} ${moved ? 'moved' : 'created'}`;
  if (alert.status !== 'armed') return `${done}, ${alert.status}`;
  const holds =
    alert.kind === 'PRICE' && alert.threshold !== null && (alert.alerttype === 'U' || alert.alerttype === 'D')
      ? holdsAlready(alert.threshold, alert.alerttype, last)
      : null;
  return holds === null ? done : `${done}: ${holds}, so it fires on the next tick`;
}

/** The last price the chart knows: the live quote's, else the last bar's close. */
export function lastPrice(context: Pick<PriceChartContext, 'quote' | 'bars'>): number | null {
  return context.quote?.price ?? context.bars.at(-1)?.close ?? null;
}
