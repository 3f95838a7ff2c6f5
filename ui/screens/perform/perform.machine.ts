/**
 * Perform (/SectorPerformance): one multi-line chart per sector (the 11 GICS sectors or the user's own), each
 * line a stock's cumulative % change over the slider's months; lines are highlighted, isolated, opened and
 * removed per chart.
 */
import { PERFORMANCE_MAX, marketApi } from '../../../domain/contract/market.ts';
import { sectorsApi } from '../../../domain/contract/sectors.ts';
import { assign, fromCallback, fromPromise, setup } from 'xstate';
import { call, errorMessage } from '../../services/api.ts';
import { live } from '../../services/live.ts';
import {
  clampMonths,
  clickLine,
  focusOf,
  hoverLine,
  removeLine,
  restoreLines,
  showAllLines,
  SLIDER_MONTHS,
  type LineFocus,
  type LineSeries,
} from './lines.ts';

/** A sector as the analysis pages plot it: a GICS sector of the universe or one of the user's own. */
export interface SectorGroup {
  /** `gics:<name>` or `mine:<id>`. */
  readonly id: string;
  /** The sector's name. */
  readonly name: string;
  /** Its symbols, largest market cap first (as the server lists a GICS sector's and the user's own). */
  readonly symbols: readonly string[];
  /** Whether the user defined it. */
  readonly mine: boolean;
}

/** The GICS sectors and the user's own. */
export interface SectorGroups {
  readonly gics: readonly SectorGroup[];
  readonly mine: readonly SectorGroup[];
}

/** Most symbols one performance request names (the route's limit). */
export const PERFORMANCE_BATCH = PERFORMANCE_MAX;

/** Reads the GICS sectors of the universe and the user's own sectors. */
export async function fetchSectorGroups(): Promise<SectorGroups> {
  const [gics, mine] = await Promise.all([call(marketApi.getSectors), call(sectorsApi.getSectors)]);
  return {
    gics: gics.map((g) => ({ id: `gics:${g.sector}`, name: g.sector, symbols: g.symbols, mine: false })),
    mine: mine.map((s) => ({ id: `mine:${s.id}`, name: s.name, symbols: s.symbols, mine: true })),
  };
}

/** Cumulative % change of symbols over the same trading days. */
export interface PerformanceData {
  /** The months the values span. */
  readonly months: number;
  /** Trading days. */
  readonly dates: readonly string[];
  /** Values by symbol. */
  readonly values: Readonly<Record<string, readonly (number | null)[]>>;
}

/** Splits a list into batches of at most `size`. */
export function batches<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/** Reads the cumulative % change of any number of symbols, in batches the route accepts. */
export async function fetchPerformance(symbols: readonly string[], months: number): Promise<PerformanceData> {
  const answers = await Promise.all(
    batches(symbols, PERFORMANCE_BATCH).map((batch) =>
      call(marketApi.getPerformance, { query: { symbols: batch.join(','), months } }),
    ),
  );
  const values: Record<string, readonly (number | null)[]> = {};
  for (const answer of answers) for (const s of answer.series) values[s.symbol] = s.values;
  return { months, dates: answers[0]?.dates ?? [], values };
}

/** Which sectors the page shows. */
export type PerformSource = 'gics' | 'mine';

/** Stocks per sector chart: the first N of the sector's list, or 0 for all. */
export const TOP_CHOICES = Object.freeze([10, 20, 0]);

/**
 * How a choice of stocks per chart reads: `All`, else `Largest N`, as every sector, GICS or the user's own, comes
 * listed largest market cap first.
 */
export function topLabel(top: number): string {
  return top <= 0 ? 'All' : `Largest ${top}`;
}

/** One chart of the page. */
export interface SectorChart {
  readonly id: string;
  readonly name: string;
  readonly series: readonly LineSeries[];
}

/** The groups a source shows. */
export function groupsOf(groups: SectorGroups, source: PerformSource): readonly SectorGroup[] {
  return source === 'gics' ? groups.gics : groups.mine;
}

/** The symbols a chart of the group plots: its first `top` (0 for all). */
export function topSymbols(group: SectorGroup, top: number): readonly string[] {
  return top > 0 ? group.symbols.slice(0, top) : group.symbols;
}

/** Every symbol the charts need, once. */
export function neededSymbols(groups: readonly SectorGroup[], top: number): string[] {
  return [...new Set(groups.flatMap((g) => topSymbols(g, top)))];
}

/** Whether the data holds every symbol needed, over the months asked. */
export function covers(data: PerformanceData | null, symbols: readonly string[], months: number): boolean {
  return data !== null && data.months === months && symbols.every((s) => s in data.values);
}

/** The symbols still to read: all of them for other months, else those the data lacks. */
export function missingSymbols(data: PerformanceData | null, symbols: readonly string[], months: number): string[] {
  if (data === null || data.months !== months) return [...symbols];
  return symbols.filter((s) => !(s in data.values));
}

/** New values added to those held over the same months (they share the dates); else the new values alone. */
export function mergePerformance(held: PerformanceData | null, fresh: PerformanceData): PerformanceData {
  if (held === null || held.months !== fresh.months) return fresh;
  const values = { ...held.values, ...fresh.values };
  return fresh.dates.length === 0 ? { ...held, values } : { ...fresh, values };
}

/** The charts of the page: one per sector, with the lines of its symbols that have values. */
export function sectorCharts(groups: readonly SectorGroup[], top: number, data: PerformanceData | null): SectorChart[] {
  if (data === null) return [];
  return groups.map((g) => ({
    id: g.id,
    name: g.name,
    series: topSymbols(g, top)
      .filter((s) => s in data.values)
      .map((s) => ({ key: s, label: s, values: data.values[s] ?? [] })),
  }));
}

/** The page's state. */
export interface PerformContext {
  readonly months: number;
  readonly source: PerformSource;
  readonly top: number;
  readonly groups: SectorGroups;
  readonly data: PerformanceData | null;
  /** Line focus per chart id. */
  readonly focus: Readonly<Record<string, LineFocus>>;
  readonly error: string | null;
}

/** Events of the page. */
export type PerformEvent =
  | { type: 'user.setMonths'; months: number }
  | { type: 'user.setSource'; source: PerformSource }
  | { type: 'user.setTop'; top: number }
  | { type: 'user.hoverLine'; chart: string; key: string | null }
  | { type: 'user.clickLine'; chart: string; key: string }
  | { type: 'user.openLine'; chart: string; key: string }
  | { type: 'user.removeLine'; chart: string; key: string }
  | { type: 'user.showAll'; chart: string }
  | { type: 'user.restoreLines'; chart: string }
  | { type: 'user.retry' }
  | { type: 'server.sectorsChanged' };

/** Milliseconds the slider rests before the page reloads. */
export const SLIDER_SETTLE_MS = 250;

const withFocus = (
  context: PerformContext,
  chart: string,
  change: (focus: LineFocus) => LineFocus,
): Record<string, LineFocus> => ({ ...context.focus, [chart]: change(focusOf(context.focus, chart)) });

/** The Perform page's machine. */
export const performMachine = setup({
  types: { context: {} as PerformContext, events: {} as PerformEvent },
  actors: {
    loadSectors: fromPromise(async () => fetchSectorGroups()),
    loadPerformance: fromPromise<PerformanceData, { symbols: readonly string[]; months: number }>(async ({ input }) =>
      fetchPerformance(input.symbols, input.months),
    ),
    sectorChanges: fromCallback<PerformEvent>(({ sendBack }) =>
      live.onReadModelChanged((change) => {
        if (change.name === 'sectors') sendBack({ type: 'server.sectorsChanged' });
      }),
    ),
  },
  actions: {
    /** Opens a symbol's chart (provided by the screen). */
    openChart: (_, _params: { symbol: string }) => undefined,
  },
  delays: { sliderSettle: SLIDER_SETTLE_MS },
  guards: {
    covered: ({ context }) =>
      covers(context.data, neededSymbols(groupsOf(context.groups, context.source), context.top), context.months),
  },
}).createMachine({
  id: 'perform',
  context: {
    months: SLIDER_MONTHS.default,
    source: 'gics',
    top: 10,
    groups: { gics: [], mine: [] },
    data: null,
    focus: {},
    error: null,
  },
  invoke: { src: 'sectorChanges' },
  initial: 'loading',
  on: {
    'user.hoverLine': {
      actions: assign({
        focus: ({ context, event }) => withFocus(context, event.chart, (f) => hoverLine(f, event.key)),
      }),
    },
    'user.clickLine': [
      {
        guard: ({ context, event }) => clickLine(focusOf(context.focus, event.chart), event.key).open !== null,
        actions: { type: 'openChart', params: ({ event }) => ({ symbol: event.key }) },
      },
      {
        actions: assign({
          focus: ({ context, event }) => withFocus(context, event.chart, (f) => clickLine(f, event.key).focus),
        }),
      },
    ],
    'user.openLine': { actions: { type: 'openChart', params: ({ event }) => ({ symbol: event.key }) } },
    'user.removeLine': {
      actions: assign({
        focus: ({ context, event }) => withFocus(context, event.chart, (f) => removeLine(f, event.key)),
      }),
    },
    'user.showAll': {
      actions: assign({ focus: ({ context, event }) => withFocus(context, event.chart, showAllLines) }),
    },
    'user.restoreLines': {
      actions: assign({ focus: ({ context, event }) => withFocus(context, event.chart, restoreLines) }),
    },
    'user.setSource': { target: '.checking', actions: assign({ source: ({ event }) => event.source }) },
    'user.setTop': { target: '.checking', actions: assign({ top: ({ event }) => event.top }) },
    'user.setMonths': { target: '.settling', actions: assign({ months: ({ event }) => clampMonths(event.months) }) },
    'server.sectorsChanged': { target: '.loading' },
  },
  states: {
    loading: {
      invoke: {
        src: 'loadSectors',
        onDone: { target: 'checking', actions: assign({ groups: ({ event }) => event.output, error: null }) },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => errorMessage(event.error) }) },
      },
    },
    checking: {
      always: [{ guard: 'covered', target: 'ready' }, { target: 'charting' }],
    },
    settling: {
      after: { sliderSettle: 'checking' },
    },
    charting: {
      invoke: {
        src: 'loadPerformance',
        input: ({ context }) => ({
          symbols: missingSymbols(
            context.data,
            neededSymbols(groupsOf(context.groups, context.source), context.top),
            context.months,
          ),
          months: context.months,
        }),
        onDone: {
          target: 'ready',
          actions: assign({ data: ({ context, event }) => mergePerformance(context.data, event.output), error: null }),
        },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => errorMessage(event.error) }) },
      },
    },
    ready: {},
    failed: {
      on: { 'user.retry': 'loading' },
    },
  },
});
