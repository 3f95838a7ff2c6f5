/**
 * The screener page: presets and saved queries for the quick-fill, the query being built, its results (live
 * while the stream is on, market caps moving with the prices, re-run at most every 5 s while prices move),
 * saving and deleting queries, and the screener state of the spec (the click-context list, the bottom container
 * with the clicked row's chart).
 */
import { marketApi, type ChartBar as ChartBarAnswer, type NextAverages } from '../../../domain/contract/market.ts';
import { queriesApi } from '../../../domain/contract/queries.ts';
import { screenerApi, type ScreenerSort } from '../../../domain/contract/screener.ts';
import { assertEvent, assign, fromCallback, fromPromise, raise, setup } from 'xstate';
import type { LabelledClause } from '../../../domain/screener/query.ts';
import type { Quote } from '../../../domain/market/types.ts';
import { applyNearQuote } from '../pricechart/chartData.ts';
import { fieldRefusal } from '../../components/fieldRefusal.ts';
import { call, errorMessage } from '../../services/api.ts';
import { live } from '../../services/live.ts';
import { showToast } from '../../services/toast.ts';
import {
  DEFAULT_ROW_COUNT,
  INITIAL_CONTEXT,
  INTRA_DAY,
  STREAM_RERUN_MS,
  addClause,
  addClauses,
  applyQuotes,
  checkClause,
  clauseLimitError,
  industriesOf,
  quotesMovePrices,
  removeByLabel,
  resultRows,
  sameSymbols,
  savedText,
  upsertSaved,
  withChartPoint,
  withClicked,
  withSelected,
  withoutEntry,
  type ChartPoint,
  type ContextEntry,
  type Preset,
  type ResultRow,
  type SavedQuery,
  type ScreenerResult,
} from './search.logic.ts';

/** A daily bar of `GET /api/bars/{symbol}`, or the day's bar the chart forms from the live quotes. */
export type ChartBar = ChartBarAnswer;

/** The bottom chart's daily bars, and what their next day's averages are made of (`GET /api/bars/{symbol}`). */
export interface ChartBars {
  readonly bars: readonly ChartBar[];
  readonly next: NextAverages | null;
}

/** Months of daily bars the bottom chart shows. */
export const CHART_MONTHS = 3;

/** How long the live feed gathers quotes before handing them to the page, in ms. */
export const QUOTE_BATCH_MS = 200;

/** Most companies of the universe read for its industries (the route's own maximum). */
const UNIVERSE_LIMIT = 1000;

/** The page's state. */
export interface SearchContext {
  readonly presets: readonly Preset[];
  readonly saved: readonly SavedQuery[];
  /** The industries of the universe, offered by the industry clause (its value must name one). */
  readonly industries: readonly string[];
  /** Why the presets or saved queries could not be loaded. */
  readonly listsError: string | null;
  /** The query being built and run. */
  readonly clauses: readonly LabelledClause[];
  /** The name of the preset or saved query last applied, offered as the name to save under. */
  readonly queryName: string;
  /** Why the last clause could not be added (names the field). */
  readonly clauseError: string | null;
  readonly rows: readonly ResultRow[];
  /** How many stocks matched (the rows hold at most `rowCount`). */
  readonly total: number;
  readonly rowCount: number;
  /**
   * The order the user sorted the grid in, which the server applies to every match before taking the first
   * `rowCount` (null: its default, largest market cap first).
   */
  readonly sort: ScreenerSort | null;
  /** Why the last run failed (the server's message names the clause and field). */
  readonly runError: string | null;
  /** Why the last save or delete failed. */
  readonly saveError: string | null;
  /** The saved query whose ✕ was pressed, asking to be confirmed before it is deleted. */
  readonly confirming: SavedQuery | null;
  /** The query being deleted, to put back if the server refuses. */
  readonly deleting: SavedQuery | null;
  /** The latest streamed quote of each result symbol while the stream is on. */
  readonly quotes: Readonly<Record<string, Quote>>;
  /** The symbols the stream follows. */
  readonly streamSymbols: readonly string[];
  /** The click-context list of the screener state. */
  readonly clickContext: readonly ContextEntry[];
  /** The symbol charted in the bottom container. */
  readonly chartSymbol: string | null;
  readonly chartMode: 'daily' | 'intraday';
  readonly bars: readonly ChartBar[];
  /** What the averages of the day after `bars` are made of, so the day's bar formed from quotes has them. */
  readonly chartNext: NextAverages | null;
  readonly chartPoints: readonly ChartPoint[];
  readonly chartError: string | null;
}

/** Events of the page. */
export type SearchEvent =
  | { type: 'user.retryLists' }
  | { type: 'user.run' }
  | { type: 'user.addClause'; clause: unknown; label?: string }
  | { type: 'user.addClauses'; clauses: readonly LabelledClause[] }
  | { type: 'user.removeClause'; label: string }
  | { type: 'user.applyQuery'; name: string; clauses: readonly LabelledClause[] }
  | { type: 'user.clearQuery' }
  | { type: 'user.setRowCount'; count: number }
  | { type: 'user.save'; name: string }
  | { type: 'user.deleteSaved'; id: string }
  | { type: 'user.confirmDelete' }
  | { type: 'user.keepSaved' }
  | { type: 'user.toggleStream' }
  | { type: 'user.sort'; sort: ScreenerSort | null }
  | { type: 'user.toggleBottom' }
  | { type: 'user.clickRow'; symbol: string }
  | { type: 'user.selectRow'; symbol: string; selected: boolean }
  | { type: 'user.pickContext'; id: string }
  | { type: 'user.retryChart' }
  | { type: 'server.quotes'; quotes: readonly Quote[] }
  | { type: 'server.chartQuote'; quote: Quote }
  | { type: 'server.queriesChanged' }
  | { type: 'query.changed' }
  | { type: 'results.loaded' }
  | { type: 'stream.rerun' };

/** What a run sends. */
export interface RunInput {
  readonly query: readonly LabelledClause[];
  readonly limit: number;
  readonly sort: ScreenerSort | null;
}

/** A saved query's fields by the names the server's refusals give them. */
const SAVE_LABELS: Readonly<Record<string, string>> = { queryname: 'Query name', query: 'Clauses' };

/** The screener page's machine. */
export const searchMachine = setup({
  types: { context: {} as SearchContext, events: {} as SearchEvent },
  actors: {
    loadLists: fromPromise<{ presets: Preset[]; saved: SavedQuery[]; industries: string[] }>(async () => {
      const [presets, saved, universe] = await Promise.all([
        call(screenerApi.getScreenerPresets),
        call(queriesApi.getStockalertquery),
        // Only a help to typing: without it the industry is typed whole, and the presets still load.
        call(marketApi.getUniverse, { query: { limit: UNIVERSE_LIMIT } }).catch(() => []),
      ]);
      return { presets, saved, industries: industriesOf(universe) };
    }),
    loadSaved: fromPromise<SavedQuery[]>(async () => call(queriesApi.getStockalertquery)),
    runQuery: fromPromise<ScreenerResult, RunInput>(async ({ input }) =>
      call(screenerApi.postScreenerRun, {
        body: { query: input.query, limit: input.limit, ...(input.sort ? { sort: input.sort } : {}) },
      }),
    ),
    saveQuery: fromPromise<SavedQuery, { queryname: string | null; query: readonly LabelledClause[] }>(
      async ({ input }) =>
        call(queriesApi.postStockalertquery, { body: { queryname: input.queryname, query: input.query } }),
    ),
    deleteQuery: fromPromise<unknown, { id: string }>(async ({ input }) =>
      call(queriesApi.postDelstkalertqryById, { params: { id: input.id } }),
    ),
    loadBars: fromPromise<ChartBars, { symbol: string }>(async ({ input }) => {
      const answer = await call(marketApi.getBarsBySymbol, {
        params: { symbol: input.symbol },
        query: { months: CHART_MONTHS },
      });
      return { bars: answer.bars, next: answer.next };
    }),
    liveQuotes: fromCallback<SearchEvent, { symbols: readonly string[] }>(({ sendBack, input }) => {
      let batch: Quote[] = [];
      let timer: ReturnType<typeof setTimeout> | null = null;
      const flush = () => {
        timer = null;
        const quotes = batch;
        batch = [];
        if (quotes.length > 0) sendBack({ type: 'server.quotes', quotes });
      };
      const off = live.onQuotes(input.symbols, (quote) => {
        batch.push(quote);
        timer ??= setTimeout(flush, QUOTE_BATCH_MS);
      });
      return () => {
        off();
        if (timer) clearTimeout(timer);
      };
    }),
    chartQuotes: fromCallback<SearchEvent, { symbol: string }>(({ sendBack, input }) =>
      live.onQuotes([input.symbol], (quote) => sendBack({ type: 'server.chartQuote', quote })),
    ),
    liveChanges: fromCallback<SearchEvent>(({ sendBack }) =>
      live.onReadModelChanged((change) => {
        if (change.name === 'queries') sendBack({ type: 'server.queriesChanged' });
      }),
    ),
  },
  actions: {
    /** Tells the user something happened. */
    notify: (_, params: { text: string }) => showToast(params.text),
    askToDelete: assign(({ context, event }) => {
      assertEvent(event, 'user.deleteSaved');
      return { confirming: context.saved.find((s) => s.id === event.id) ?? null, saveError: null };
    }),
    queryChanged: raise({ type: 'query.changed' }),
    /** Shows the rows of an answer, at the quotes streamed meanwhile. */
    takeResults: assign(({ context }, answer: ScreenerResult) => ({
      rows: resultRows(answer.rows, context.quotes),
      total: answer.total,
    })),
    resultsLoaded: raise({ type: 'results.loaded' }),
    /**
     * Keeps the order the grid was sorted in: the query runs again in it (the grid staying on screen), so the
     * rows shown are the first of every match in that order, not the rows held sorted among themselves.
     */
    sortBy: assign({
      sort: ({ event }) => {
        assertEvent(event, 'user.sort');
        return event.sort;
      },
    }),
    /** Holds streamed quotes and moves the close, change and market cap of their rows to them. */
    foldQuotes: assign(({ context, event }) => {
      assertEvent(event, 'server.quotes');
      const quotes = { ...context.quotes };
      for (const quote of event.quotes) quotes[quote.symbol] = quote;
      return { rows: applyQuotes(context.rows, event.quotes), quotes };
    }),
  },
  guards: {
    clauseIsValid: ({ context, event }) => {
      if (event.type !== 'user.addClause') return false;
      const check = checkClause(event.clause, event.label);
      return check.ok && clauseLimitError(context.clauses, 1) === null;
    },
    clausesFit: ({ context, event }) =>
      event.type === 'user.addClauses' && clauseLimitError(context.clauses, event.clauses.length) === null,
    hasClauses: ({ context }) => context.clauses.length > 0,
    pricesMoved: ({ context, event }) => {
      assertEvent(event, 'server.quotes');
      return quotesMovePrices(context.rows, event.quotes);
    },
    symbolsChanged: ({ context }) =>
      !sameSymbols(
        context.streamSymbols,
        context.rows.map((r) => r.symbol),
      ),
    isIntraDay: ({ event }) => event.type === 'user.pickContext' && event.id === INTRA_DAY,
    isChartQuote: ({ context, event }) => {
      assertEvent(event, 'server.chartQuote');
      return event.quote.symbol === context.chartSymbol;
    },
  },
}).createMachine({
  id: 'search',
  type: 'parallel',
  context: {
    presets: [],
    saved: [],
    industries: [],
    listsError: null,
    clauses: [],
    queryName: '',
    clauseError: null,
    rows: [],
    total: 0,
    rowCount: DEFAULT_ROW_COUNT,
    sort: null,
    runError: null,
    saveError: null,
    confirming: null,
    deleting: null,
    quotes: {},
    streamSymbols: [],
    clickContext: INITIAL_CONTEXT,
    chartSymbol: null,
    chartMode: 'daily',
    bars: [],
    chartNext: null,
    chartPoints: [],
    chartError: null,
  },
  invoke: { src: 'liveChanges' },
  on: {
    'user.addClause': [
      {
        guard: 'clauseIsValid',
        actions: [
          assign({
            clauses: ({ context, event }) => {
              const check = checkClause(event.clause, event.label);
              return check.ok ? addClause(context.clauses, check.clause) : context.clauses;
            },
            clauseError: null,
          }),
          'queryChanged',
        ],
      },
      {
        actions: assign({
          clauseError: ({ context, event }) => {
            const check = checkClause(event.clause, event.label);
            return check.ok ? clauseLimitError(context.clauses, 1) : check.error;
          },
        }),
      },
    ],
    'user.addClauses': [
      {
        guard: 'clausesFit',
        actions: [
          assign({ clauses: ({ context, event }) => addClauses(context.clauses, event.clauses), clauseError: null }),
          'queryChanged',
        ],
      },
      {
        actions: assign({
          clauseError: ({ context, event }) => clauseLimitError(context.clauses, event.clauses.length),
        }),
      },
    ],
    'user.removeClause': {
      actions: [
        assign({ clauses: ({ context, event }) => removeByLabel(context.clauses, event.label), clauseError: null }),
        'queryChanged',
      ],
    },
    'user.applyQuery': {
      actions: [
        assign({
          clauses: ({ event }) => addClauses([], event.clauses),
          queryName: ({ event }) => event.name,
          clauseError: null,
        }),
        'queryChanged',
      ],
    },
    'user.clearQuery': {
      actions: [assign({ clauses: [], queryName: '', clauseError: null }), 'queryChanged'],
    },
    'user.setRowCount': {
      actions: [assign({ rowCount: ({ event }) => Math.max(1, Math.round(event.count)) }), 'queryChanged'],
    },
    'user.selectRow': {
      actions: assign({
        clickContext: ({ context, event }) =>
          event.selected
            ? withSelected(context.clickContext, event.symbol)
            : withoutEntry(context.clickContext, event.symbol),
      }),
    },
  },
  states: {
    lists: {
      initial: 'loading',
      states: {
        loading: {
          invoke: {
            src: 'loadLists',
            onDone: {
              target: 'ready',
              actions: assign({
                presets: ({ event }) => event.output.presets,
                saved: ({ event }) => event.output.saved,
                industries: ({ event }) => event.output.industries,
                listsError: null,
              }),
            },
            onError: { target: 'failed', actions: assign({ listsError: ({ event }) => errorMessage(event.error) }) },
          },
        },
        ready: {
          on: { 'server.queriesChanged': 'refreshing' },
        },
        refreshing: {
          invoke: {
            src: 'loadSaved',
            onDone: { target: 'ready', actions: assign({ saved: ({ event }) => event.output }) },
            onError: 'ready',
          },
        },
        failed: {
          on: { 'user.retryLists': 'loading' },
        },
      },
    },
    results: {
      initial: 'running',
      on: {
        'query.changed': '.running',
        'user.run': '.running',
      },
      states: {
        running: {
          invoke: {
            src: 'runQuery',
            input: ({ context }) => ({ query: context.clauses, limit: context.rowCount, sort: context.sort }),
            onDone: {
              target: 'ready',
              actions: [
                assign({ runError: null }),
                { type: 'takeResults', params: ({ event }) => event.output },
                'resultsLoaded',
              ],
            },
            onError: {
              target: 'failed',
              actions: assign({ runError: ({ event }) => errorMessage(event.error), rows: [], total: 0 }),
            },
          },
        },
        ready: {
          on: { 'stream.rerun': 'refreshing', 'user.sort': { target: 'refreshing', actions: 'sortBy' } },
        },
        refreshing: {
          on: { 'user.sort': { target: 'refreshing', reenter: true, actions: 'sortBy' } },
          invoke: {
            src: 'runQuery',
            input: ({ context }) => ({ query: context.clauses, limit: context.rowCount, sort: context.sort }),
            onDone: {
              target: 'ready',
              actions: [{ type: 'takeResults', params: ({ event }) => event.output }, 'resultsLoaded'],
            },
            onError: 'ready',
          },
        },
        failed: {},
      },
    },
    saving: {
      initial: 'idle',
      states: {
        idle: {
          on: {
            'user.save': [
              { guard: 'hasClauses', target: 'saving' },
              { actions: assign({ saveError: 'Add at least one clause before saving the query' }) },
            ],
            'user.deleteSaved': { target: 'confirming', actions: 'askToDelete' },
          },
        },
        // One click away from the "+" that adds its clauses, the ✕ asks first: a saved query has no undo.
        confirming: {
          on: {
            'user.deleteSaved': { actions: 'askToDelete' },
            'user.keepSaved': { target: 'idle', actions: assign({ confirming: null }) },
            'user.confirmDelete': {
              target: 'deleting',
              actions: assign({
                deleting: ({ context }) => context.confirming,
                saved: ({ context }) => context.saved.filter((s) => s.id !== context.confirming?.id),
                confirming: null,
              }),
            },
          },
        },
        saving: {
          invoke: {
            src: 'saveQuery',
            input: ({ context, event }) => ({
              // A blank name is sent as none: the server names the query after its clauses.
              queryname: (event.type === 'user.save' ? event.name : context.queryName).trim() || null,
              query: context.clauses,
            }),
            onDone: {
              target: 'idle',
              actions: [
                // Said before the list takes it: a save under a name already held replaces that query.
                {
                  type: 'notify',
                  params: ({ context, event }) => ({ text: savedText(context.saved, event.output.queryname) }),
                },
                assign({
                  saved: ({ context, event }) => upsertSaved(context.saved, event.output),
                  queryName: ({ event }) => event.output.queryname,
                  saveError: null,
                }),
              ],
            },
            onError: {
              target: 'idle',
              actions: assign({ saveError: ({ event }) => fieldRefusal(errorMessage(event.error), SAVE_LABELS).text }),
            },
          },
        },
        deleting: {
          invoke: {
            src: 'deleteQuery',
            input: ({ context }) => ({ id: context.deleting?.id ?? '' }),
            onDone: {
              target: 'idle',
              actions: [
                {
                  type: 'notify',
                  params: ({ context }) => ({ text: `Deleted "${context.deleting?.queryname ?? ''}"` }),
                },
                assign({ deleting: null }),
              ],
            },
            onError: {
              target: 'idle',
              actions: assign({
                saved: ({ context }) =>
                  context.deleting ? upsertSaved(context.saved, context.deleting) : context.saved,
                saveError: ({ event }) => errorMessage(event.error),
                deleting: null,
              }),
            },
          },
        },
      },
    },
    stream: {
      initial: 'off',
      states: {
        off: {
          on: { 'user.toggleStream': 'on' },
        },
        on: {
          initial: 'quiet',
          entry: assign({ streamSymbols: ({ context }) => context.rows.map((r) => r.symbol) }),
          exit: assign({ quotes: {} }),
          invoke: { src: 'liveQuotes', input: ({ context }) => ({ symbols: context.streamSymbols }) },
          on: {
            'user.toggleStream': 'off',
            'server.quotes': { actions: 'foldQuotes' },
            'results.loaded': { guard: 'symbolsChanged', target: 'on', reenter: true },
          },
          states: {
            quiet: {
              on: {
                'server.quotes': [
                  { guard: 'pricesMoved', target: 'pending', actions: 'foldQuotes' },
                  { actions: 'foldQuotes' },
                ],
              },
            },
            pending: {
              after: { [STREAM_RERUN_MS]: { target: 'quiet', actions: raise({ type: 'stream.rerun' }) } },
            },
          },
        },
      },
    },
    bottom: {
      initial: 'hidden',
      states: {
        hidden: {
          on: { 'user.toggleBottom': 'shown', 'user.clickRow': 'shown' },
        },
        shown: {
          on: { 'user.toggleBottom': 'hidden' },
        },
      },
    },
    chart: {
      initial: 'empty',
      on: {
        'user.clickRow': {
          target: '.loading',
          actions: assign({
            clickContext: ({ context, event }) => withClicked(context.clickContext, event.symbol),
            chartSymbol: ({ event }) => event.symbol,
            chartPoints: [],
          }),
        },
        'user.pickContext': [
          {
            guard: 'isIntraDay',
            actions: assign({
              chartMode: ({ context }) => (context.chartMode === 'intraday' ? 'daily' : 'intraday'),
            }),
          },
          {
            target: '.loading',
            actions: assign({
              clickContext: ({ context, event }) => withClicked(context.clickContext, event.id),
              chartSymbol: ({ event }) => event.id,
              chartPoints: [],
            }),
          },
        ],
      },
      states: {
        empty: {},
        loading: {
          invoke: {
            src: 'loadBars',
            input: ({ context }) => ({ symbol: context.chartSymbol ?? '' }),
            onDone: {
              target: 'ready',
              actions: assign({
                bars: ({ event }) => event.output.bars,
                chartNext: ({ event }) => event.output.next,
                chartError: null,
              }),
            },
            onError: {
              target: 'failed',
              actions: assign({ chartError: ({ event }) => errorMessage(event.error), bars: [], chartNext: null }),
            },
          },
        },
        ready: {
          invoke: { src: 'chartQuotes', input: ({ context }) => ({ symbol: context.chartSymbol ?? '' }) },
          on: {
            'server.chartQuote': {
              guard: 'isChartQuote',
              // The intraday points, and the day's candle of the daily chart, as the price chart forms it.
              actions: assign({
                chartPoints: ({ context, event }) => withChartPoint(context.chartPoints, event.quote),
                bars: ({ context, event }) => applyNearQuote(context.bars, event.quote, context.chartNext),
              }),
            },
          },
        },
        failed: {
          on: { 'user.retryChart': 'loading' },
        },
      },
    },
  },
});
