/**
 * Correlate (/Correlate): the return correlations of chosen symbols, a sector or the watch list over a window
 * of trading days, as a heatmap and as clusters of stocks that move together; a cell opens the comparison of
 * the two symbols' prices rebased to 100.
 */
import { marketApi, type ChartBar, type ClusterMember } from '../../../domain/contract/market.ts';
import { watchlistApi } from '../../../domain/contract/watchlist.ts';
import { assign, fromCallback, fromPromise, setup } from 'xstate';
import { call, errorMessage } from '../../services/api.ts';
import { live } from '../../services/live.ts';
import { fetchSectorGroups, type SectorGroup, type SectorGroups } from '../perform/perform.machine.ts';
import { withoutSymbol, withSymbol } from './chosenSymbols.ts';

/** Where the symbols come from. */
export type CorrelateSource = 'symbols' | 'sector' | 'watchlist';

/** Windows offered, in trading days (a month, a quarter, half a year, a year). */
export const WINDOWS: readonly number[] = Object.freeze([20, 60, 120, 250]);

/** The window a first visit uses. */
export const DEFAULT_WINDOW = 60;

/** Most symbols one correlation compares (the route's limit). */
export const CORRELATE_MAX = 100;

/** Most symbols the user can choose by search. */
export const CORRELATE_CHOSEN_MAX = 40;

/** The sector a first visit shows when the watch list is too short. */
export const DEFAULT_SECTOR = 'gics:Information Technology';

/** What the page reads first. */
export interface CorrelateSetup {
  readonly groups: SectorGroups;
  readonly watchlist: readonly string[];
}

export type { ClusterMember };

/** The correlations of a set of symbols over a window. */
export interface Correlation {
  readonly window: number;
  readonly symbols: readonly string[];
  readonly values: readonly (readonly number[])[];
  readonly groups: readonly (readonly ClusterMember[])[];
}

/** Two symbols' closes rebased to 100 on their first shared day of the window. */
export interface Comparison {
  readonly a: string;
  readonly b: string;
  readonly dates: readonly string[];
  readonly aValues: readonly number[];
  readonly bValues: readonly number[];
}

/** A daily close. */
export type CloseBar = Pick<ChartBar, 'date' | 'close'>;

/** Values rebased so the first is `base` (100): each value times base over the first. */
export function rebase(values: readonly number[], base = 100): number[] {
  const first = values[0];
  if (first === undefined || first === 0 || !Number.isFinite(first)) return values.map(() => Number.NaN);
  return values.map((v) => Math.round(((v * base) / first) * 100) / 100);
}

/**
 * Two symbols' bars on their shared days, the last `days + 1` of them (the window's returns need the day before
 * it), each rebased to 100 on the first.
 */
export function rebasedPair(
  a: string,
  aBars: readonly CloseBar[],
  b: string,
  bBars: readonly CloseBar[],
  days: number,
): Comparison {
  const bByDate = new Map(bBars.map((bar) => [bar.date, bar.close]));
  const shared = aBars.filter((bar) => bByDate.has(bar.date)).slice(-(days + 1));
  return {
    a,
    b,
    dates: shared.map((bar) => bar.date),
    aValues: rebase(shared.map((bar) => bar.close)),
    bValues: rebase(shared.map((bar) => bByDate.get(bar.date) as number)),
  };
}

/** Months of bars that cover a window of trading days (about 21 a month), with a month to spare. */
export function monthsFor(days: number): number {
  return Math.min(60, Math.max(1, Math.ceil((days + 1) / 21) + 1));
}

/**
 * The matrix with its symbols in cluster order (each cluster's members together, the clusters as the server
 * lists them, any symbol outside them last), so stocks that move together form blocks on the heatmap.
 */
export function clusterOrder(correlation: Pick<Correlation, 'symbols' | 'values' | 'groups'>): {
  symbols: string[];
  values: number[][];
} {
  const index = new Map(correlation.symbols.map((s, i) => [s, i]));
  const order: number[] = [];
  for (const group of correlation.groups) {
    for (const member of group) {
      const i = index.get(member.stock);
      if (i !== undefined && !order.includes(i)) order.push(i);
    }
  }
  correlation.symbols.forEach((_, i) => {
    if (!order.includes(i)) order.push(i);
  });
  return {
    symbols: order.map((i) => correlation.symbols[i] as string),
    values: order.map((i) => order.map((j) => correlation.values[i]?.[j] ?? Number.NaN)),
  };
}

/** The correlation of two symbols in a result, or null. */
export function correlationOf(correlation: Correlation | null, a: string, b: string): number | null {
  if (correlation === null) return null;
  const i = correlation.symbols.indexOf(a);
  const j = correlation.symbols.indexOf(b);
  return i < 0 || j < 0 ? null : (correlation.values[i]?.[j] ?? null);
}

/** The clusters worth showing (two or more members, closest first) and the stocks that move on their own. */
export function clusterSummary(groups: readonly (readonly ClusterMember[])[]): {
  clusters: { members: readonly ClusterMember[]; average: number }[];
  alone: string[];
} {
  const clusters = groups
    .filter((g) => g.length > 1)
    .map((members) => ({ members, average: members.reduce((sum, m) => sum + m.value, 0) / members.length }))
    .sort((x, y) => y.average - x.average);
  const alone = groups.filter((g) => g.length === 1).map((g) => (g[0] as ClusterMember).stock);
  return { clusters, alone };
}

/** Two symbols compared. */
export interface SymbolPair {
  readonly a: string;
  readonly b: string;
}

/**
 * The pair the Compare choices show among the symbols of the heatmap: the pair chosen when both are among them,
 * else the first symbol for the first side and, for the second, the first other symbol (a symbol is not compared
 * with itself).
 */
export function pairChoice(symbols: readonly string[], choice: SymbolPair): SymbolPair {
  const a = symbols.includes(choice.a) ? choice.a : (symbols[0] ?? '');
  const b = symbols.includes(choice.b) && choice.b !== a ? choice.b : (symbols.find((s) => s !== a) ?? '');
  return { a, b };
}

/** The page's state. */
export interface CorrelateContext {
  readonly source: CorrelateSource;
  readonly window: number;
  readonly sectorId: string | null;
  readonly chosen: readonly string[];
  readonly setup: CorrelateSetup | null;
  readonly result: Correlation | null;
  readonly error: string | null;
  /** The pair whose comparison is shown. */
  readonly pair: SymbolPair | null;
  /** The pair the Compare choices hold ('' for a side not chosen): the one chosen there, or the last cell clicked. */
  readonly choice: SymbolPair;
  readonly comparison: Comparison | null;
  readonly compareError: string | null;
}

/** Events of the page. */
export type CorrelateEvent =
  | { type: 'user.setSource'; source: CorrelateSource }
  | { type: 'user.selectSector'; sectorId: string }
  | { type: 'user.setWindow'; window: number }
  | { type: 'user.addSymbol'; symbol: string }
  | { type: 'user.removeSymbol'; symbol: string }
  | { type: 'user.choosePair'; patch: Partial<SymbolPair> }
  | { type: 'user.pickPair'; a: string; b: string }
  | { type: 'user.closeComparison' }
  | { type: 'user.retry' }
  | { type: 'user.retryComparison' }
  | { type: 'server.watchlistChanged' };

/** Every sector the page offers, GICS first. */
export function sectorChoices(setup: CorrelateSetup | null): readonly SectorGroup[] {
  return setup === null ? [] : [...setup.groups.gics, ...setup.groups.mine];
}

/** The symbols the source names, at most {@link CORRELATE_MAX}. */
export function sourceSymbols(context: CorrelateContext): readonly string[] {
  const { setup } = context;
  if (context.source === 'symbols') return context.chosen;
  if (context.source === 'watchlist') return (setup?.watchlist ?? []).slice(0, CORRELATE_MAX);
  const group = sectorChoices(setup).find((g) => g.id === context.sectorId);
  return (group?.symbols ?? []).slice(0, CORRELATE_MAX);
}

/** Where a first visit starts: the watch list when it holds two symbols or more, else a sector. */
export function initialSource(setup: CorrelateSetup): CorrelateSource {
  return setup.watchlist.length >= 2 ? 'watchlist' : 'sector';
}

/** Reads both answers of the correlation route: the matrix and the clusters. */
export async function fetchCorrelation(symbols: readonly string[], window: number): Promise<Correlation> {
  const query = { stks: symbols.join(',') };
  const [matrix, groups] = await Promise.all([
    call(marketApi.getCorelationByDurByFormat, { params: { dur: window, format: 'matrix' }, query }),
    call(marketApi.getCorelationByDurByFormat, { params: { dur: window, format: 'default' }, query }),
  ]);
  if (Array.isArray(matrix) || !Array.isArray(groups))
    throw new Error('The correlation answer has an unexpected shape');
  return { window, symbols: matrix.symbols, values: matrix.values, groups };
}

/** Reads two symbols' bars and rebases them over the window. */
export async function fetchComparison(a: string, b: string, window: number): Promise<Comparison> {
  const months = monthsFor(window);
  const [aBars, bBars] = await Promise.all(
    [a, b].map(async (s) => (await call(marketApi.getBarsBySymbol, { params: { symbol: s }, query: { months } })).bars),
  );
  return rebasedPair(a, aBars ?? [], b, bBars ?? [], window);
}

/** The Correlate page's machine. */
export const correlateMachine = setup({
  types: { context: {} as CorrelateContext, events: {} as CorrelateEvent },
  actors: {
    loadSetup: fromPromise<CorrelateSetup>(async () => {
      const [groups, watchlist] = await Promise.all([fetchSectorGroups(), call(watchlistApi.getWatchlist)]);
      return { groups, watchlist };
    }),
    correlate: fromPromise<Correlation, { symbols: readonly string[]; window: number }>(async ({ input }) =>
      fetchCorrelation(input.symbols, input.window),
    ),
    compare: fromPromise<Comparison, { a: string; b: string; window: number }>(async ({ input }) =>
      fetchComparison(input.a, input.b, input.window),
    ),
    listChanges: fromCallback<CorrelateEvent>(({ sendBack }) =>
      live.onReadModelChanged((change) => {
        if (change.name === 'watchlist' || change.name === 'sectors') sendBack({ type: 'server.watchlistChanged' });
      }),
    ),
  },
  actions: {
    resetComparison: assign({ pair: null, comparison: null, compareError: null }),
  },
  guards: {
    enoughSymbols: ({ context }) => sourceSymbols(context).length >= 2,
    hasSetup: ({ context }) => context.setup !== null,
  },
}).createMachine({
  id: 'correlate',
  type: 'parallel',
  context: {
    source: 'sector',
    window: DEFAULT_WINDOW,
    sectorId: null,
    chosen: [],
    setup: null,
    result: null,
    error: null,
    pair: null,
    choice: { a: '', b: '' },
    comparison: null,
    compareError: null,
  },
  invoke: { src: 'listChanges' },
  on: {
    'user.choosePair': { actions: assign({ choice: ({ context, event }) => ({ ...context.choice, ...event.patch }) }) },
  },
  states: {
    data: {
      initial: 'loading',
      on: {
        'user.setSource': {
          target: '.checking',
          actions: [assign({ source: ({ event }) => event.source }), 'resetComparison'],
        },
        'user.selectSector': {
          target: '.checking',
          actions: [assign({ source: 'sector', sectorId: ({ event }) => event.sectorId }), 'resetComparison'],
        },
        'user.setWindow': {
          target: '.checking',
          actions: [assign({ window: ({ event }) => event.window }), 'resetComparison'],
        },
        'user.addSymbol': {
          target: '.checking',
          actions: [
            assign({
              source: 'symbols',
              chosen: ({ context, event }) => withSymbol(context.chosen, event.symbol, CORRELATE_CHOSEN_MAX),
            }),
            'resetComparison',
          ],
        },
        'user.removeSymbol': {
          target: '.checking',
          actions: [
            assign({ chosen: ({ context, event }) => withoutSymbol(context.chosen, event.symbol) }),
            'resetComparison',
          ],
        },
        'server.watchlistChanged': { target: '.loading' },
      },
      states: {
        loading: {
          invoke: {
            src: 'loadSetup',
            onDone: {
              target: 'checking',
              actions: assign({
                source: ({ context, event }) => (context.setup === null ? initialSource(event.output) : context.source),
                sectorId: ({ context, event }) =>
                  context.sectorId ??
                  (event.output.groups.gics.some((g) => g.id === DEFAULT_SECTOR)
                    ? DEFAULT_SECTOR
                    : (event.output.groups.gics[0]?.id ?? null)),
                setup: ({ event }) => event.output,
                error: null,
              }),
            },
            onError: { target: 'failed', actions: assign({ error: ({ event }) => errorMessage(event.error) }) },
          },
        },
        checking: {
          always: [{ guard: 'enoughSymbols', target: 'correlating' }, { target: 'incomplete' }],
        },
        correlating: {
          invoke: {
            src: 'correlate',
            input: ({ context }) => ({ symbols: sourceSymbols(context), window: context.window }),
            onDone: { target: 'ready', actions: assign({ result: ({ event }) => event.output, error: null }) },
            onError: { target: 'failed', actions: assign({ error: ({ event }) => errorMessage(event.error) }) },
          },
        },
        incomplete: {
          entry: assign({ result: null }),
        },
        ready: {},
        failed: {
          on: { 'user.retry': [{ guard: 'hasSetup', target: 'checking' }, { target: 'loading' }] },
        },
      },
    },
    comparison: {
      initial: 'idle',
      on: {
        'user.pickPair': {
          guard: ({ event }) => event.a !== event.b,
          target: '.loading',
          actions: assign({
            pair: ({ event }) => ({ a: event.a, b: event.b }),
            choice: ({ event }) => ({ a: event.a, b: event.b }),
            comparison: null,
            compareError: null,
          }),
        },
        'user.closeComparison': { target: '.idle', actions: 'resetComparison' },
        'user.setSource': '.idle',
        'user.selectSector': '.idle',
        'user.setWindow': '.idle',
        'user.addSymbol': '.idle',
        'user.removeSymbol': '.idle',
      },
      states: {
        idle: {},
        loading: {
          invoke: {
            src: 'compare',
            input: ({ context }) => ({ a: context.pair?.a ?? '', b: context.pair?.b ?? '', window: context.window }),
            onDone: { target: 'ready', actions: assign({ comparison: ({ event }) => event.output }) },
            onError: {
              target: 'failed',
              actions: assign({ compareError: ({ event }) => errorMessage(event.error) }),
            },
          },
        },
        ready: {},
        failed: {
          on: { 'user.retryComparison': 'loading' },
        },
      },
    },
  },
});
