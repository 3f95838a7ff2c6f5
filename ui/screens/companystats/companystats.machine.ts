/**
 * The company statistics screen: the company shown (from `?stock=`, else the first of the portfolio or the
 * watch list) and the user's list of statistics, each drawn from the fundamentals of that company. Adding,
 * deleting and modifying a statistic (how many figures, annual or quarterly) shows at once and saves the whole
 * list; a failed load of the list falls back to the defaults and keeps its message (spec section 8).
 */
import { assign, enqueueActions, fromCallback, fromPromise, setup } from 'xstate';
import {
  COMPANY_STAT_TYPES,
  DEFAULT_COMPANY_STATS,
  type CompanyStat,
  type CompanyStatPeriod,
  type CompanyStatType,
} from '../../../domain/companystats/companystats.ts';
import { findCompany, type UniverseHit } from '../../components/symbolSearch.machine.ts';
import { companystatsApi } from '../../../domain/contract/companystats.ts';
import { marketApi, type FundamentalFigure } from '../../../domain/contract/market.ts';
import { portfolioApi } from '../../../domain/contract/portfolio.ts';
import { watchlistApi } from '../../../domain/contract/watchlist.ts';
import { call, errorMessage } from '../../services/api.ts';

export type { FundamentalFigure };

/** The figures of one card: loading, loaded, or failed with the message. */
export type FigureLoad =
  | { readonly status: 'loading' }
  | { readonly status: 'ready'; readonly rows: readonly FundamentalFigure[] }
  | { readonly status: 'failed'; readonly error: string };

/** What the figures loader is asked for. */
export interface FigureRequest {
  readonly key: string;
  readonly symbol: string;
  readonly stat: CompanyStat;
}

/** Tells the figures loader to load. */
export interface LoadFigures {
  readonly type: 'figures.load';
  readonly request: FigureRequest;
}

/** What the company statistics screen holds. */
export interface CompanyStatsContext {
  /** The company shown, upper case; null until known. */
  readonly symbol: string | null;
  /** Its universe entry, once read (null for an unknown symbol). */
  readonly company: UniverseHit | null;
  /**
   * Whether the company may have figures: the universe has it, or could not be read. Figures are read only then,
   * never for a symbol the market data is known not to have.
   */
  readonly checked: boolean;
  /** The user's statistics, in the order shown. */
  readonly stats: readonly CompanyStat[];
  /** Why the list could not be loaded (the defaults are shown). */
  readonly statsError: string | null;
  /** Why the last save failed. */
  readonly saveError: string | null;
  /** Whether the list changed since it was last sent. */
  readonly dirty: boolean;
  /** The figures by {@link figureKey}. */
  readonly figures: Readonly<Record<string, FigureLoad>>;
}

/** Events of the company statistics screen. */
export type CompanyStatsEvent =
  | { type: 'user.pickSymbol'; symbol: string }
  | { type: 'user.addStat'; statType: CompanyStatType }
  | { type: 'user.removeStat'; statType: CompanyStatType }
  | { type: 'user.modifyStat'; statType: CompanyStatType; limit?: number; period?: CompanyStatPeriod }
  | { type: 'user.retry' }
  | { type: 'user.retryFigures'; statType: CompanyStatType }
  | { type: 'user.dismissError' }
  | { type: 'server.figures'; key: string; rows: readonly FundamentalFigure[] }
  | { type: 'server.figuresFailed'; key: string; error: string };

/** The titles of the statistic types. */
export const STAT_TITLES: Readonly<Record<CompanyStatType, string>> = {
  revenue: 'Revenue',
  grossprofit: 'Gross profit',
  income: 'Net income',
  earningspershare: 'Earnings per share',
};

/** How many figures a card can show; 0 is all. */
export const STAT_LIMITS: readonly number[] = [0, 4, 8, 12, 20, 40];

/**
 * The choices of a card's figure count: {@link STAT_LIMITS}, with the card's own limit among them in order when
 * it is none of them (a list saved with, say, 5), so the select shows what the chart draws.
 */
export function limitChoices(current: number): readonly number[] {
  if (STAT_LIMITS.includes(current)) return STAT_LIMITS;
  return [...STAT_LIMITS, current].sort((a, b) => (a === 0 ? -1 : b === 0 ? 1 : a - b));
}

/** How a figure count reads in its select: `All` for 0, else `Last 5`. */
export function limitLabel(limit: number): string {
  return limit === 0 ? 'All' : `Last ${limit}`;
}

/** The cache key of a card's figures. */
export function figureKey(symbol: string, stat: CompanyStat): string {
  return `${symbol}/${stat.type}/${stat.limit}/${stat.period}`;
}

/** The list with a statistic added at the end (all figures, annual), unless it is there already. */
export function addStat(stats: readonly CompanyStat[], type: CompanyStatType): readonly CompanyStat[] {
  return stats.some((s) => s.type === type) ? stats : [...stats, { type, limit: 0, period: 'A' }];
}

/** The list without a statistic; the last one is kept, since a list is never empty. */
export function removeStat(stats: readonly CompanyStat[], type: CompanyStatType): readonly CompanyStat[] {
  const rest = stats.filter((s) => s.type !== type);
  return rest.length === 0 ? stats : rest;
}

/** The list with a statistic's limit or period changed. */
export function modifyStat(
  stats: readonly CompanyStat[],
  type: CompanyStatType,
  change: { readonly limit?: number | undefined; readonly period?: CompanyStatPeriod | undefined },
): readonly CompanyStat[] {
  return stats.map((s) =>
    s.type === type ? { type, limit: change.limit ?? s.limit, period: change.period ?? s.period } : s,
  );
}

/** The types that can still be added. */
export function addableTypes(stats: readonly CompanyStat[]): CompanyStatType[] {
  return COMPANY_STAT_TYPES.filter((type) => !stats.some((s) => s.type === type));
}

/** The bars of a card, oldest first: `FY 2024` for years, `2024 Q3` for quarters. */
export function barsOf(rows: readonly FundamentalFigure[]): { x: string[]; y: number[] } {
  const oldestFirst = [...rows].reverse();
  return {
    x: oldestFirst.map((row) => (row.fp === 'FY' ? `FY ${row.fy}` : `${row.fy} ${row.fp}`)),
    y: oldestFirst.map((row) => row.val),
  };
}

/** The company shown when the address names none: the first of the portfolio, else of the watch list, else the largest. */
export async function chooseDefaultSymbol(): Promise<string> {
  const portfolio = await call(portfolioApi.getUserstkpositions);
  if (portfolio[0]) return portfolio[0];
  const watchlist = await call(watchlistApi.getWatchlist);
  if (watchlist[0]) return watchlist[0];
  const [largest] = await call(marketApi.getUniverse, { query: { limit: 1 } });
  if (!largest) throw new Error('The universe is empty');
  return largest.symbol;
}

/** The company statistics screen's machine. */
export const companyStatsMachine = setup({
  types: {
    context: {} as CompanyStatsContext,
    events: {} as CompanyStatsEvent,
    input: {} as { symbol: string | null },
  },
  actors: {
    loadStats: fromPromise<readonly CompanyStat[]>(async () => call(companystatsApi.getCompanystats)),
    saveStats: fromPromise<readonly CompanyStat[], { stats: readonly CompanyStat[] }>(async ({ input }) =>
      call(companystatsApi.postCompanystats, { body: input.stats }),
    ),
    defaultSymbol: fromPromise<string>(chooseDefaultSymbol),
    loadCompany: fromPromise<UniverseHit | null, { symbol: string }>(async ({ input, signal }) =>
      findCompany(input.symbol, signal),
    ),
    figuresLoader: fromCallback<LoadFigures>(({ receive, sendBack }) => {
      let stopped = false;
      receive(({ request }) => {
        const { symbol, stat } = request;
        call(marketApi.getFundamentalsByTypeBySymbolByLimitByPeriod, {
          params: { type: stat.type, symbol, limit: stat.limit, period: stat.period },
        }).then(
          (rows) => {
            if (!stopped) sendBack({ type: 'server.figures', key: request.key, rows });
          },
          (error: unknown) => {
            if (!stopped) sendBack({ type: 'server.figuresFailed', key: request.key, error: errorMessage(error) });
          },
        );
      });
      return () => {
        stopped = true;
      };
    }),
  },
  actions: {
    /** Puts the company in the address (`replace` when it was chosen for the user). */
    showSymbol: (_, _params: { symbol: string; replace: boolean }) => undefined,
    /** Asks the loader for the figures of every card not loaded yet (or failed), once the company is checked. */
    requestMissingFigures: enqueueActions(({ context, enqueue }) => {
      const { symbol } = context;
      if (!symbol || !context.checked) return;
      const requests = context.stats
        .map((stat): FigureRequest => ({ key: figureKey(symbol, stat), symbol, stat }))
        .filter((request) => {
          const held = context.figures[request.key];
          return held === undefined || held.status === 'failed';
        });
      if (requests.length === 0) return;
      const loading: Record<string, FigureLoad> = { ...context.figures };
      for (const request of requests) loading[request.key] = { status: 'loading' };
      enqueue.assign({ figures: loading });
      for (const request of requests) {
        enqueue.sendTo('figures', { type: 'figures.load', request } satisfies LoadFigures);
      }
    }),
  },
  guards: {
    hasSymbol: ({ context }) => context.symbol !== null,
    dirty: ({ context }) => context.dirty,
  },
}).createMachine({
  id: 'companystats',
  type: 'parallel',
  context: ({ input }) => ({
    symbol: input.symbol ? input.symbol.trim().toUpperCase() : null,
    company: null,
    checked: false,
    stats: [],
    statsError: null,
    saveError: null,
    dirty: false,
    figures: {},
  }),
  invoke: { id: 'figures', src: 'figuresLoader' },
  on: {
    'server.figures': {
      actions: assign({
        figures: ({ context, event }) => ({ ...context.figures, [event.key]: { status: 'ready', rows: event.rows } }),
      }),
    },
    'server.figuresFailed': {
      actions: assign({
        figures: ({ context, event }) => ({
          ...context.figures,
          [event.key]: { status: 'failed', error: event.error },
        }),
      }),
    },
    'user.retryFigures': { actions: 'requestMissingFigures' },
  },
  states: {
    company: {
      initial: 'checking',
      states: {
        checking: {
          always: [{ guard: 'hasSymbol', target: 'shown' }, { target: 'choosing' }],
        },
        choosing: {
          invoke: {
            src: 'defaultSymbol',
            onDone: {
              target: 'shown',
              actions: [
                assign({ symbol: ({ event }) => event.output }),
                { type: 'showSymbol', params: ({ event }) => ({ symbol: event.output, replace: true }) },
              ],
            },
            onError: 'none',
          },
        },
        none: {},
        shown: {
          invoke: {
            src: 'loadCompany',
            input: ({ context }) => ({ symbol: context.symbol ?? '' }),
            onDone: [
              { guard: ({ event }) => event.output === null, target: 'unknown' },
              {
                actions: [assign({ company: ({ event }) => event.output, checked: true }), 'requestMissingFigures'],
              },
            ],
            // Unread (refused, or unreachable): the cards go on under the symbol alone, without its name line.
            onError: { actions: [assign({ checked: true }), 'requestMissingFigures'] },
          },
        },
        unknown: {},
      },
      on: {
        'user.pickSymbol': {
          guard: ({ context, event }) =>
            event.symbol.trim() !== '' && event.symbol.trim().toUpperCase() !== context.symbol,
          target: '.shown',
          reenter: true,
          actions: [
            assign({ symbol: ({ event }) => event.symbol.trim().toUpperCase(), company: null, checked: false }),
            {
              type: 'showSymbol',
              params: ({ event }) => ({ symbol: event.symbol.trim().toUpperCase(), replace: false }),
            },
          ],
        },
      },
    },
    stats: {
      initial: 'loading',
      states: {
        loading: {
          invoke: {
            src: 'loadStats',
            onDone: {
              target: 'ready',
              actions: [
                assign({
                  stats: ({ event }) => (event.output.length > 0 ? event.output : DEFAULT_COMPANY_STATS),
                  statsError: null,
                }),
                'requestMissingFigures',
              ],
            },
            onError: {
              target: 'ready',
              actions: [
                assign({ stats: DEFAULT_COMPANY_STATS, statsError: ({ event }) => errorMessage(event.error) }),
                'requestMissingFigures',
              ],
            },
          },
        },
        ready: {
          initial: 'idle',
          on: {
            'user.addStat': {
              actions: [
                assign({ stats: ({ context, event }) => addStat(context.stats, event.statType), dirty: true }),
                'requestMissingFigures',
              ],
            },
            'user.removeStat': {
              guard: ({ context }) => context.stats.length > 1,
              actions: assign({
                stats: ({ context, event }) => removeStat(context.stats, event.statType),
                dirty: true,
              }),
            },
            'user.modifyStat': {
              actions: [
                assign({
                  stats: ({ context, event }) =>
                    modifyStat(context.stats, event.statType, { limit: event.limit, period: event.period }),
                  dirty: true,
                }),
                'requestMissingFigures',
              ],
            },
            'user.retry': { guard: ({ context }) => context.statsError !== null, target: 'loading' },
            'user.dismissError': { actions: assign({ saveError: null }) },
          },
          states: {
            idle: {
              always: { guard: 'dirty', target: 'saving' },
            },
            saving: {
              entry: assign({ dirty: false }),
              invoke: {
                src: 'saveStats',
                input: ({ context }) => ({ stats: context.stats }),
                onDone: [
                  { guard: 'dirty', target: 'idle' },
                  {
                    target: 'idle',
                    actions: [assign({ stats: ({ event }) => event.output, saveError: null }), 'requestMissingFigures'],
                  },
                ],
                onError: {
                  target: 'idle',
                  actions: assign({
                    saveError: ({ event }) => `Your statistics could not be saved: ${errorMessage(event.error)}`,
                  }),
                },
              },
            },
          },
        },
      },
    },
  },
});
