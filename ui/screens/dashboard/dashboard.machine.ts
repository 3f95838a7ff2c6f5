/**
 * The dashboard's machine: the layout and the options (each saved at once, the defaults when a load fails),
 * the stock list and where it comes from (portfolio, watch list or a sector; at most 30, no repeats), the
 * live quotes of the shown stocks. The "add stocks" card's search is the app's symbol search (`SymbolSearch`),
 * whose pick is `user.addSymbol`.
 */
import { assertEvent, assign, enqueueActions, fromCallback, fromPromise, setup, stateIn } from 'xstate';
import type { Quote } from '../../../domain/market/types.ts';
import { dashboardApi } from '../../../domain/contract/dashboard.ts';
import { marketApi, type GicsSector } from '../../../domain/contract/market.ts';
import { portfolioApi } from '../../../domain/contract/portfolio.ts';
import { watchlistApi } from '../../../domain/contract/watchlist.ts';
import { call, errorMessage } from '../../services/api.ts';
import { live } from '../../services/live.ts';
import {
  addLayout,
  addStock,
  applyQuote,
  capList,
  DASHBOARD_LAYOUTS_MAX,
  DEFAULT_LAYOUT,
  DEFAULT_OPTIONS,
  EMPTY_LIVE,
  followedWatchlist,
  keepLive,
  listSource,
  watchlistCopy,
  removeLayout,
  removeStock,
  shownStocks,
  toggleComponent,
  type DashboardOptions,
  type LayoutEntry,
  type LiveState,
  type StockLists,
} from './dashboard.logic.ts';

/** A GICS sector with its symbols, largest market cap first (`GET /api/sectors`). */
export type SectorEntry = GicsSector;

/** The read models whose change means the stock list may have changed. */
export const LIST_READ_MODELS: readonly string[] = Object.freeze(['dashboardstocks', 'portfolio', 'watchlist']);

/** The dashboard's state. */
export interface DashboardContext {
  /** The layouts shown. */
  readonly layouts: readonly LayoutEntry[];
  /** The layouts the server last confirmed (restored when a save fails). */
  readonly savedLayouts: readonly LayoutEntry[];
  /** Set when the layout could not be loaded and the default is shown. */
  readonly layoutNote: string | null;
  /** Why the last layout change could not be saved. */
  readonly layoutError: string | null;
  /** A change arrived while a save was under way: save again after it. */
  readonly layoutDirty: boolean;
  /** The options in use. */
  readonly options: DashboardOptions;
  /** The options the server last confirmed. */
  readonly savedOptions: DashboardOptions;
  /** Set when the options could not be loaded and the defaults are used. */
  readonly optionsNote: string | null;
  /** Why the last options change could not be saved. */
  readonly optionsError: string | null;
  readonly optionsDirty: boolean;
  /** The saved dashboard list, the portfolio and the watch list. */
  readonly lists: StockLists;
  /** The dashboard list the server last confirmed. */
  readonly confirmedSaved: readonly string[];
  /** Why the stock list could not be loaded (the cards show it with a retry). */
  readonly listError: string | null;
  /** A refused or failed change of the list, or what a change did. */
  readonly listNotice: string | null;
  readonly listDirty: boolean;
  /** The server said a list changed while the lists were being read or saved: read them again after. */
  readonly listStale: boolean;
  /** The 11 GICS sectors. */
  readonly sectors: readonly SectorEntry[];
  readonly sectorsError: string | null;
  /** Live quotes, flashes and trails of the shown stocks. */
  readonly live: LiveState;
}

/** Where the user can switch the list to from the bottom bar. */
export type SourceChoice = 'portfolio' | 'watchlist';

/** Events of the dashboard. */
export type DashboardEvent =
  | { type: 'user.toggleComponent'; layoutId: number; compId: number }
  | { type: 'user.addLayout' }
  | { type: 'user.removeLayout'; layoutId: number }
  | { type: 'user.retryLayout' }
  | { type: 'user.changeOptions'; changes: Partial<DashboardOptions> }
  | { type: 'user.useSource'; source: SourceChoice }
  | { type: 'user.useSector'; index: number }
  | { type: 'user.addSymbol'; symbol: string }
  | { type: 'user.removeSymbol'; symbol: string }
  | { type: 'user.dismissNotice' }
  | { type: 'user.retryList' }
  | { type: 'user.retrySectors' }
  | { type: 'user.openChart'; symbol: string }
  | { type: 'server.quote'; quote: Quote }
  | { type: 'server.listChanged' }
  | { type: 'dashboard.listChanged' };

/** A change of the stock list: the list to save, the options that go with it, and what to tell the user. */
export type ListEdit =
  | { readonly saved: readonly string[]; readonly options?: Partial<DashboardOptions>; readonly notice?: string }
  | { readonly refused: string };

type ListEvent = Extract<
  DashboardEvent,
  { type: 'user.useSource' | 'user.useSector' | 'user.addSymbol' | 'user.removeSymbol' }
>;

/**
 * What a list event does to the list: switching to the portfolio saves an empty list (the dashboard then follows
 * the portfolio, its default); the watch list or a sector saves their first 30; adding or removing edits the
 * shown list. Leaving a sector turns the sector flag off. Null when there is nothing to do.
 */
export function planListEdit(
  context: Pick<DashboardContext, 'lists' | 'options' | 'sectors'>,
  event: ListEvent,
): ListEdit | null {
  const { lists, options, sectors } = context;
  const shown = shownStocks(lists);
  // Leaving the sector or the watch list turns its flag off.
  const leave: Partial<DashboardOptions> = {
    ...(options.sectorflag ? { sectorflag: false } : {}),
    ...(options.watchlistflag ? { watchlistflag: false } : {}),
  };
  const edit = (saved: readonly string[], notice?: string, follow?: Partial<DashboardOptions>): ListEdit => {
    const changes = { ...leave, ...follow };
    return {
      saved,
      ...(Object.keys(changes).length > 0 ? { options: changes } : {}),
      ...(notice ? { notice } : {}),
    };
  };
  switch (event.type) {
    case 'user.useSource': {
      if (listSource(lists, options) === event.source) return null;
      if (event.source === 'portfolio') return edit([]);
      if (lists.watchlist.length === 0) return { refused: 'Your watch list is empty: add symbols to it first' };
      // The watch list is followed as it changes, as the portfolio is.
      return edit(capList(lists.watchlist), undefined, { watchlistflag: true });
    }
    case 'user.useSector': {
      const sector = sectors[event.index];
      if (!sector) return { refused: 'Choose one of the sectors' };
      if (options.sectorflag && options.selectedsector === event.index) return null;
      return {
        saved: capList(sector.symbols),
        options: {
          sectorflag: true,
          selectedsector: event.index,
          ...(options.watchlistflag ? { watchlistflag: false } : {}),
        },
      };
    }
    case 'user.addSymbol': {
      const outcome = addStock(shown, event.symbol);
      return 'refused' in outcome ? outcome : edit(outcome.list);
    }
    case 'user.removeSymbol': {
      if (!shown.includes(event.symbol)) return null;
      const rest = removeStock(shown, event.symbol);
      const fallsBack = rest.length === 0 && lists.portfolio.length > 0;
      return edit(
        rest,
        fallsBack ? 'The list is empty, so the dashboard shows your portfolio (its default)' : undefined,
      );
    }
  }
}

const listEventTypes = ['user.useSource', 'user.useSector', 'user.addSymbol', 'user.removeSymbol'] as const;

function isListEvent(event: DashboardEvent): event is ListEvent {
  return (listEventTypes as readonly string[]).includes(event.type);
}

/** The dashboard's machine. */
export const dashboardMachine = setup({
  types: { context: {} as DashboardContext, events: {} as DashboardEvent },
  actors: {
    loadLayout: fromPromise<LayoutEntry[]>(async () => call(dashboardApi.getDashboard)),
    saveLayout: fromPromise<LayoutEntry[], readonly LayoutEntry[]>(async ({ input }) =>
      call(dashboardApi.postDashboard, { body: input }),
    ),
    loadOptions: fromPromise<DashboardOptions>(async () => call(dashboardApi.getDashboardoptions)),
    saveOptions: fromPromise<DashboardOptions, DashboardOptions>(async ({ input }) =>
      call(dashboardApi.postDashboardoptions, { body: input }),
    ),
    loadLists: fromPromise<StockLists>(async () => {
      const [saved, portfolio, watchlist] = await Promise.all([
        call(dashboardApi.getDashboardstocks),
        call(portfolioApi.getUserstkpositions),
        call(watchlistApi.getWatchlist),
      ]);
      return { saved, portfolio, watchlist };
    }),
    saveStocks: fromPromise<string[], readonly string[]>(async ({ input }) =>
      call(dashboardApi.postDashboardstocks, { body: input }),
    ),
    loadSectors: fromPromise<SectorEntry[]>(async () => call(marketApi.getSectors)),
    liveQuotes: fromCallback<DashboardEvent, { symbols: readonly string[] }>(({ sendBack, input }) => {
      if (input.symbols.length === 0) return undefined;
      return live.onQuotes(input.symbols, (quote) => sendBack({ type: 'server.quote', quote }));
    }),
    listChanges: fromCallback<DashboardEvent>(({ sendBack }) =>
      live.onReadModelChanged((change) => {
        if (LIST_READ_MODELS.includes(change.name)) sendBack({ type: 'server.listChanged' });
      }),
    ),
  },
  actions: {
    /** Opens a symbol's price chart. */
    openChart: (_, _params: { symbol: string }) => undefined,
    applyListEdit: enqueueActions(({ context, event, enqueue }) => {
      if (!isListEvent(event)) return;
      const plan = planListEdit(context, event);
      if (plan === null || 'refused' in plan) return;
      enqueue.assign({ lists: { ...context.lists, saved: plan.saved }, listNotice: plan.notice ?? null });
      if (plan.options) enqueue.raise({ type: 'user.changeOptions', changes: plan.options });
      enqueue.raise({ type: 'dashboard.listChanged' });
    }),
    refuseListEdit: assign({
      listNotice: ({ context, event }) => {
        const plan = isListEvent(event) ? planListEdit(context, event) : null;
        return plan !== null && 'refused' in plan ? plan.refused : context.listNotice;
      },
    }),
    editLayout: assign({
      layouts: ({ context, event }) => {
        assertEvent(event, ['user.toggleComponent', 'user.addLayout', 'user.removeLayout']);
        if (event.type === 'user.toggleComponent') {
          return toggleComponent(context.layouts, event.layoutId, event.compId);
        }
        return event.type === 'user.addLayout'
          ? addLayout(context.layouts)
          : removeLayout(context.layouts, event.layoutId);
      },
      layoutError: null,
    }),
    /** Notes that a list changed on the server while the lists were being read or saved. */
    markListStale: assign({ listStale: true }),
    /**
     * Shows and saves the first 30 of the watch list read again, the dashboard having shown the one before (see
     * {@link followedWatchlist}).
     */
    followWatchlist: enqueueActions(({ context, enqueue }, params: { lists: StockLists }) => {
      const saved = followedWatchlist(context.lists, params.lists, context.options);
      if (saved === null) return;
      enqueue.assign({ lists: { ...params.lists, saved }, confirmedSaved: params.lists.saved });
      enqueue.raise({ type: 'dashboard.listChanged' });
    }),
    /** Shows and saves the first 30 of the watch list the dashboard follows (see {@link watchlistCopy}). */
    takeWatchlist: enqueueActions(({ context, enqueue }) => {
      const saved = watchlistCopy(context.lists, context.options);
      if (saved === null) return;
      enqueue.assign({ lists: { ...context.lists, saved } });
      enqueue.raise({ type: 'dashboard.listChanged' });
    }),
    mergeOptions: assign({
      options: ({ context, event }) => {
        assertEvent(event, 'user.changeOptions');
        return { ...context.options, ...event.changes };
      },
      optionsError: null,
    }),
  },
  guards: {
    settingsReady: stateIn({ settings: 'ready' }),
    listRefused: ({ context, event }) => {
      if (!isListEvent(event)) return false;
      const plan = planListEdit(context, event);
      return plan !== null && 'refused' in plan;
    },
    listEdits: ({ context, event }) => {
      if (!isListEvent(event)) return false;
      const plan = planListEdit(context, event);
      return plan !== null && !('refused' in plan);
    },
    canAddLayout: ({ context }) => context.layouts.length < DASHBOARD_LAYOUTS_MAX,
    layoutDirty: ({ context }) => context.layoutDirty,
    optionsDirty: ({ context }) => context.optionsDirty,
    listDirty: ({ context }) => context.listDirty,
    listStale: ({ context }) => context.listStale,
    /** Whether the watch list read again moved while the dashboard showed it (see {@link followedWatchlist}). */
    watchlistMoved: ({ context }, params: { lists: StockLists }) =>
      followedWatchlist(context.lists, params.lists, context.options) !== null,
    /** Whether the dashboard follows the watch list and its saved copy lags behind (see {@link watchlistCopy}). */
    watchlistLags: ({ context }) => watchlistCopy(context.lists, context.options) !== null,
  },
}).createMachine({
  id: 'dashboard',
  type: 'parallel',
  context: {
    layouts: DEFAULT_LAYOUT,
    savedLayouts: DEFAULT_LAYOUT,
    layoutNote: null,
    layoutError: null,
    layoutDirty: false,
    options: DEFAULT_OPTIONS,
    savedOptions: DEFAULT_OPTIONS,
    optionsNote: null,
    optionsError: null,
    optionsDirty: false,
    lists: { saved: [], portfolio: [], watchlist: [] },
    confirmedSaved: [],
    listError: null,
    listNotice: null,
    listDirty: false,
    listStale: false,
    sectors: [],
    sectorsError: null,
    live: EMPTY_LIVE,
  },
  invoke: { src: 'listChanges' },
  on: {
    'user.openChart': { actions: { type: 'openChart', params: ({ event }) => ({ symbol: event.symbol }) } },
    'user.dismissNotice': {
      actions: assign({ listNotice: null, layoutError: null, optionsError: null }),
    },
  },
  states: {
    settings: {
      initial: 'loading',
      states: {
        loading: {
          type: 'parallel',
          states: {
            layout: {
              initial: 'pending',
              states: {
                pending: {
                  invoke: {
                    src: 'loadLayout',
                    onDone: {
                      target: 'done',
                      actions: assign({
                        layouts: ({ event }) => event.output,
                        savedLayouts: ({ event }) => event.output,
                      }),
                    },
                    onError: {
                      target: 'done',
                      actions: assign({
                        layoutNote: ({ event }) =>
                          `Your layout could not be loaded (${errorMessage(event.error)}): showing the default`,
                      }),
                    },
                  },
                },
                done: { type: 'final' },
              },
            },
            options: {
              initial: 'pending',
              states: {
                pending: {
                  invoke: {
                    src: 'loadOptions',
                    onDone: {
                      target: 'done',
                      actions: assign({
                        options: ({ event }) => event.output,
                        savedOptions: ({ event }) => event.output,
                      }),
                    },
                    onError: {
                      target: 'done',
                      actions: assign({
                        optionsNote: ({ event }) =>
                          `Your dashboard options could not be loaded (${errorMessage(event.error)}): using the defaults`,
                      }),
                    },
                  },
                },
                done: { type: 'final' },
              },
            },
          },
          onDone: 'ready',
        },
        ready: {
          type: 'parallel',
          states: {
            layout: {
              initial: 'idle',
              states: {
                idle: {
                  on: {
                    'user.toggleComponent': { target: 'saving', actions: 'editLayout' },
                    'user.addLayout': { guard: 'canAddLayout', target: 'saving', actions: 'editLayout' },
                    'user.removeLayout': { target: 'saving', actions: 'editLayout' },
                    'user.retryLayout': 'reloading',
                  },
                },
                reloading: {
                  invoke: {
                    src: 'loadLayout',
                    onDone: {
                      target: 'idle',
                      actions: assign({
                        layouts: ({ event }) => event.output,
                        savedLayouts: ({ event }) => event.output,
                        layoutNote: null,
                      }),
                    },
                    onError: {
                      target: 'idle',
                      actions: assign({
                        layoutNote: ({ event }) =>
                          `Your layout could not be loaded (${errorMessage(event.error)}): showing the default`,
                      }),
                    },
                  },
                },
                saving: {
                  invoke: {
                    src: 'saveLayout',
                    input: ({ context }) => context.layouts,
                    onDone: [
                      {
                        guard: 'layoutDirty',
                        target: 'saving',
                        reenter: true,
                        actions: assign({ layoutDirty: false, savedLayouts: ({ event }) => event.output }),
                      },
                      {
                        target: 'idle',
                        actions: assign({
                          layouts: ({ event }) => event.output,
                          savedLayouts: ({ event }) => event.output,
                          layoutNote: null,
                        }),
                      },
                    ],
                    onError: {
                      target: 'idle',
                      actions: assign({
                        layouts: ({ context }) => context.savedLayouts,
                        layoutDirty: false,
                        layoutError: ({ event }) => `The layout could not be saved: ${errorMessage(event.error)}`,
                      }),
                    },
                  },
                  on: {
                    'user.toggleComponent': { actions: ['editLayout', assign({ layoutDirty: true })] },
                    'user.addLayout': {
                      guard: 'canAddLayout',
                      actions: ['editLayout', assign({ layoutDirty: true })],
                    },
                    'user.removeLayout': { actions: ['editLayout', assign({ layoutDirty: true })] },
                  },
                },
              },
            },
            options: {
              initial: 'idle',
              states: {
                idle: {
                  on: { 'user.changeOptions': { target: 'saving', actions: 'mergeOptions' } },
                },
                saving: {
                  invoke: {
                    src: 'saveOptions',
                    input: ({ context }) => context.options,
                    onDone: [
                      {
                        guard: 'optionsDirty',
                        target: 'saving',
                        reenter: true,
                        actions: assign({ optionsDirty: false, savedOptions: ({ event }) => event.output }),
                      },
                      {
                        target: 'idle',
                        actions: assign({
                          options: ({ event }) => event.output,
                          savedOptions: ({ event }) => event.output,
                          optionsNote: null,
                        }),
                      },
                    ],
                    onError: {
                      target: 'idle',
                      actions: assign({
                        options: ({ context }) => context.savedOptions,
                        optionsDirty: false,
                        optionsError: ({ event }) => `The options could not be saved: ${errorMessage(event.error)}`,
                      }),
                    },
                  },
                  on: {
                    'user.changeOptions': { actions: ['mergeOptions', assign({ optionsDirty: true })] },
                  },
                },
              },
            },
          },
        },
      },
    },
    list: {
      initial: 'loading',
      states: {
        loading: {
          invoke: {
            src: 'loadLists',
            onDone: {
              target: 'ready',
              actions: [
                assign({
                  lists: ({ event }) => event.output,
                  confirmedSaved: ({ event }) => event.output.saved,
                  listError: null,
                }),
                enqueueActions(({ enqueue }) => enqueue.raise({ type: 'dashboard.listChanged' })),
              ],
            },
            onError: { target: 'failed', actions: assign({ listError: ({ event }) => errorMessage(event.error) }) },
          },
        },
        failed: {
          on: { 'user.retryList': 'loading' },
        },
        ready: {
          always: [
            { guard: 'listStale', target: 'refreshing' },
            // Following the watch list, whose copy lags behind it (it changed while no dashboard was open).
            { guard: 'watchlistLags', target: 'saving', actions: 'takeWatchlist' },
          ],
          on: {
            'server.listChanged': 'refreshing',
            ...Object.fromEntries(
              listEventTypes.map((type) => [
                type,
                [
                  { guard: 'listRefused', actions: 'refuseListEdit' },
                  { guard: 'listEdits', target: 'saving', actions: 'applyListEdit' },
                ],
              ]),
            ),
          },
        },
        refreshing: {
          entry: assign({ listStale: false }),
          invoke: {
            src: 'loadLists',
            onDone: [
              {
                guard: { type: 'watchlistMoved', params: ({ event }) => ({ lists: event.output }) },
                target: 'saving',
                actions: { type: 'followWatchlist', params: ({ event }) => ({ lists: event.output }) },
              },
              {
                target: 'ready',
                actions: enqueueActions(({ context, event, enqueue }) => {
                  const before = shownStocks(context.lists);
                  const after = shownStocks(event.output);
                  enqueue.assign({ lists: event.output, confirmedSaved: event.output.saved });
                  // Quotes are subscribed again only when the shown stocks changed.
                  if (before.length !== after.length || before.some((s, i) => s !== after[i])) {
                    enqueue.raise({ type: 'dashboard.listChanged' });
                  }
                }),
              },
            ],
            onError: 'ready',
          },
          on: {
            ...Object.fromEntries(
              listEventTypes.map((type) => [
                type,
                [
                  { guard: 'listRefused', actions: 'refuseListEdit' },
                  { guard: 'listEdits', target: 'saving', actions: 'applyListEdit' },
                ],
              ]),
            ),
            'server.listChanged': { actions: 'markListStale' },
          },
        },
        saving: {
          invoke: {
            src: 'saveStocks',
            input: ({ context }) => context.lists.saved,
            onDone: [
              {
                guard: 'listDirty',
                target: 'saving',
                reenter: true,
                actions: assign({ listDirty: false, confirmedSaved: ({ event }) => event.output }),
              },
              {
                target: 'ready',
                actions: assign({
                  lists: ({ context, event }) => ({ ...context.lists, saved: event.output }),
                  confirmedSaved: ({ event }) => event.output,
                }),
              },
            ],
            onError: {
              target: 'ready',
              actions: [
                assign({
                  lists: ({ context }) => ({ ...context.lists, saved: context.confirmedSaved }),
                  listDirty: false,
                  listNotice: ({ event }) => `The stock list could not be saved: ${errorMessage(event.error)}`,
                }),
                enqueueActions(({ enqueue }) => enqueue.raise({ type: 'dashboard.listChanged' })),
              ],
            },
          },
          on: {
            ...Object.fromEntries(
              listEventTypes.map((type) => [
                type,
                [
                  { guard: 'listRefused', actions: 'refuseListEdit' },
                  { guard: 'listEdits', actions: ['applyListEdit', assign({ listDirty: true })] },
                ],
              ]),
            ),
            'server.listChanged': { actions: 'markListStale' },
          },
        },
      },
    },
    sectors: {
      initial: 'loading',
      states: {
        loading: {
          invoke: {
            src: 'loadSectors',
            onDone: {
              target: 'ready',
              actions: assign({ sectors: ({ event }) => event.output, sectorsError: null }),
            },
            onError: {
              target: 'failed',
              actions: assign({ sectorsError: ({ event }) => errorMessage(event.error) }),
            },
          },
        },
        ready: {},
        failed: { on: { 'user.retrySectors': 'loading' } },
      },
    },
    live: {
      initial: 'waiting',
      states: {
        waiting: {
          on: { 'dashboard.listChanged': 'watching' },
        },
        watching: {
          invoke: {
            src: 'liveQuotes',
            input: ({ context }) => ({ symbols: shownStocks(context.lists) }),
          },
          on: {
            'dashboard.listChanged': {
              target: 'watching',
              reenter: true,
              actions: assign({ live: ({ context }) => keepLive(context.live, shownStocks(context.lists)) }),
            },
            'server.quote': {
              actions: assign({ live: ({ context, event }) => applyQuote(context.live, event.quote) }),
            },
          },
        },
      },
    },
  },
});
