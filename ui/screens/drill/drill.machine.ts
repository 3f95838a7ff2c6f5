/**
 * Drill (/Charting): one large multi-line chart of cumulative % change: the user's positions by default, or
 * every sector (one line each), one sector's stocks, or symbols chosen from the universe. A second click on a
 * stock opens its chart; on a sector line it drills into that sector's stocks.
 */
import { marketApi } from '../../../domain/contract/market.ts';
import { portfolioApi } from '../../../domain/contract/portfolio.ts';
import { and, assign, fromCallback, fromPromise, setup } from 'xstate';
import { call, errorMessage } from '../../services/api.ts';
import { live } from '../../services/live.ts';
import {
  clampMonths,
  clickLine,
  hoverLine,
  NO_FOCUS,
  removeLine,
  restoreLines,
  showAllLines,
  SLIDER_MONTHS,
  type LineFocus,
  type LineSeries,
} from '../perform/lines.ts';
import {
  fetchPerformance,
  fetchSectorGroups,
  SLIDER_SETTLE_MS,
  type SectorGroup,
  type SectorGroups,
} from '../perform/perform.machine.ts';
import { withoutSymbol, withSymbol } from '../correlate/chosenSymbols.ts';

/** What the chart plots. */
export type DrillMode = 'positions' | 'sectors' | 'sector' | 'symbols';

/** Most symbols the user can choose. */
export const DRILL_CHOSEN_MAX = 30;

/** What the page reads first: the portfolio's symbols and the sectors. */
export interface DrillSetup {
  readonly positions: readonly string[];
  readonly groups: SectorGroups;
}

/** What the chart was asked to plot. */
export type LinesRequest =
  | { readonly kind: 'sectors'; readonly months: number }
  | { readonly kind: 'symbols'; readonly symbols: readonly string[]; readonly months: number };

/** The lines of the chart. */
export interface DrillLines {
  /** Whether the lines are sectors or symbols. */
  readonly kind: 'sectors' | 'symbols';
  readonly months: number;
  readonly dates: readonly string[];
  readonly series: readonly LineSeries[];
}

/** Reads the lines of a request. */
export async function fetchLines(request: LinesRequest): Promise<DrillLines> {
  if (request.kind === 'sectors') {
    const answer = await call(marketApi.getPerformanceSectors, { query: { months: request.months } });
    return {
      kind: 'sectors',
      months: request.months,
      dates: answer.dates,
      series: answer.series.map((s) => ({ key: s.sector, label: s.sector, values: s.values })),
    };
  }
  if (request.symbols.length === 0) return { kind: 'symbols', months: request.months, dates: [], series: [] };
  const data = await fetchPerformance(request.symbols, request.months);
  return {
    kind: 'symbols',
    months: request.months,
    dates: data.dates,
    series: request.symbols
      .filter((s) => s in data.values)
      .map((s) => ({ key: s, label: s, values: data.values[s] ?? [] })),
  };
}

/** The page's state. */
export interface DrillContext {
  readonly mode: DrillMode;
  readonly months: number;
  /** The sector of the `sector` mode. */
  readonly sectorId: string | null;
  /** The symbols of the `symbols` mode. */
  readonly chosen: readonly string[];
  readonly setup: DrillSetup | null;
  readonly lines: DrillLines | null;
  readonly focus: LineFocus;
  readonly error: string | null;
}

/** Events of the page. */
export type DrillEvent =
  | { type: 'user.setMode'; mode: DrillMode }
  | { type: 'user.selectSector'; sectorId: string }
  | { type: 'user.setMonths'; months: number }
  | { type: 'user.addSymbol'; symbol: string }
  | { type: 'user.removeSymbol'; symbol: string }
  | { type: 'user.hoverLine'; key: string | null }
  | { type: 'user.clickLine'; key: string }
  | { type: 'user.openLine'; key: string }
  | { type: 'user.removeLine'; key: string }
  | { type: 'user.showAll' }
  | { type: 'user.restoreLines' }
  | { type: 'user.retry' }
  | { type: 'server.positionsChanged' };

/** Every sector the page offers, GICS first. */
export function allGroups(setup: DrillSetup | null): readonly SectorGroup[] {
  return setup === null ? [] : [...setup.groups.gics, ...setup.groups.mine];
}

/** The sector of an id. */
export function groupOf(setup: DrillSetup | null, id: string | null): SectorGroup | undefined {
  return allGroups(setup).find((g) => g.id === id);
}

/** What the chart plots in the current mode. */
export function linesRequest(context: DrillContext): LinesRequest {
  const { mode, months } = context;
  if (mode === 'sectors') return { kind: 'sectors', months };
  if (mode === 'positions') return { kind: 'symbols', symbols: context.setup?.positions ?? [], months };
  if (mode === 'sector')
    return { kind: 'symbols', symbols: groupOf(context.setup, context.sectorId)?.symbols ?? [], months };
  return { kind: 'symbols', symbols: context.chosen, months };
}

/** The mode a first visit opens in: the positions, or every sector when the portfolio is empty. */
export function initialMode(setup: DrillSetup): DrillMode {
  return setup.positions.length > 0 ? 'positions' : 'sectors';
}

/** The title of the chart for the mode. */
export function chartTitle(context: DrillContext): string {
  switch (context.mode) {
    case 'positions':
      return 'My positions';
    case 'sectors':
      return 'All sectors (average of their stocks)';
    case 'sector':
      return groupOf(context.setup, context.sectorId)?.name ?? 'Sector';
    case 'symbols':
      return 'Chosen symbols';
  }
}

/** The Drill page's machine. */
export const drillMachine = setup({
  types: { context: {} as DrillContext, events: {} as DrillEvent },
  actors: {
    loadSetup: fromPromise<DrillSetup>(async () => {
      const [positions, groups] = await Promise.all([call(portfolioApi.getUserstkpositions), fetchSectorGroups()]);
      return { positions, groups };
    }),
    loadLines: fromPromise<DrillLines, LinesRequest>(async ({ input }) => fetchLines(input)),
    portfolioChanges: fromCallback<DrillEvent>(({ sendBack }) =>
      live.onReadModelChanged((change) => {
        if (change.name === 'portfolio' || change.name === 'sectors') sendBack({ type: 'server.positionsChanged' });
      }),
    ),
  },
  actions: {
    /** Opens a symbol's chart (provided by the screen). */
    openChart: (_, _params: { symbol: string }) => undefined,
  },
  delays: { sliderSettle: SLIDER_SETTLE_MS },
  guards: {
    isOpenClick: ({ context, event }) =>
      event.type === 'user.clickLine' && clickLine(context.focus, event.key).open !== null,
    sectorLines: ({ context }) => context.lines?.kind === 'sectors',
    hasSetup: ({ context }) => context.setup !== null,
  },
}).createMachine({
  id: 'drill',
  type: 'parallel',
  context: {
    mode: 'positions',
    months: SLIDER_MONTHS.default,
    sectorId: null,
    chosen: [],
    setup: null,
    lines: null,
    focus: NO_FOCUS,
    error: null,
  },
  invoke: { src: 'portfolioChanges' },
  on: {
    'user.hoverLine': { actions: assign({ focus: ({ context, event }) => hoverLine(context.focus, event.key) }) },
    'user.removeLine': { actions: assign({ focus: ({ context, event }) => removeLine(context.focus, event.key) }) },
    'user.showAll': { actions: assign({ focus: ({ context }) => showAllLines(context.focus) }) },
    'user.restoreLines': { actions: assign({ focus: ({ context }) => restoreLines(context.focus) }) },
  },
  states: {
    data: {
      initial: 'loading',
      on: {
        'user.setMode': {
          target: '.charting',
          actions: assign({
            mode: ({ event }) => event.mode,
            focus: NO_FOCUS,
            sectorId: ({ context, event }) =>
              event.mode === 'sector' && context.sectorId === null
                ? (allGroups(context.setup)[0]?.id ?? null)
                : context.sectorId,
          }),
        },
        'user.selectSector': {
          target: '.charting',
          actions: assign({ mode: 'sector', sectorId: ({ event }) => event.sectorId, focus: NO_FOCUS }),
        },
        'user.setMonths': {
          target: '.settling',
          actions: assign({ months: ({ event }) => clampMonths(event.months) }),
        },
        'user.addSymbol': {
          target: '.charting',
          actions: assign({
            mode: 'symbols',
            chosen: ({ context, event }) => withSymbol(context.chosen, event.symbol, DRILL_CHOSEN_MAX),
          }),
        },
        'user.removeSymbol': {
          actions: assign({
            chosen: ({ context, event }) => withoutSymbol(context.chosen, event.symbol),
            lines: ({ context, event }) =>
              context.mode === 'symbols' && context.lines !== null
                ? { ...context.lines, series: context.lines.series.filter((s) => s.key !== event.symbol) }
                : context.lines,
          }),
        },
        'user.clickLine': [
          {
            guard: and(['isOpenClick', 'sectorLines']),
            target: '.charting',
            actions: assign({ mode: 'sector', sectorId: ({ event }) => `gics:${event.key}`, focus: NO_FOCUS }),
          },
          {
            guard: 'isOpenClick',
            actions: { type: 'openChart', params: ({ event }) => ({ symbol: event.key }) },
          },
          { actions: assign({ focus: ({ context, event }) => clickLine(context.focus, event.key).focus }) },
        ],
        'user.openLine': [
          {
            guard: 'sectorLines',
            target: '.charting',
            actions: assign({ mode: 'sector', sectorId: ({ event }) => `gics:${event.key}`, focus: NO_FOCUS }),
          },
          { actions: { type: 'openChart', params: ({ event }) => ({ symbol: event.key }) } },
        ],
        'server.positionsChanged': { target: '.loading' },
      },
      states: {
        loading: {
          invoke: {
            src: 'loadSetup',
            onDone: {
              target: 'charting',
              actions: assign({
                mode: ({ context, event }) => (context.setup === null ? initialMode(event.output) : context.mode),
                sectorId: ({ context, event }) => context.sectorId ?? event.output.groups.gics[0]?.id ?? null,
                setup: ({ event }) => event.output,
                error: null,
              }),
            },
            onError: { target: 'failed', actions: assign({ error: ({ event }) => errorMessage(event.error) }) },
          },
        },
        settling: {
          after: { sliderSettle: 'charting' },
        },
        charting: {
          invoke: {
            src: 'loadLines',
            input: ({ context }) => linesRequest(context),
            onDone: { target: 'ready', actions: assign({ lines: ({ event }) => event.output, error: null }) },
            onError: { target: 'failed', actions: assign({ error: ({ event }) => errorMessage(event.error) }) },
          },
        },
        ready: {},
        failed: {
          on: { 'user.retry': [{ guard: 'hasSetup', target: 'charting' }, { target: 'loading' }] },
        },
      },
    },
  },
});
