/**
 * One stock card of the dashboard: its daily bars over the slider's period (the small chart and the 50- and
 * 200-day SMA), the body mode (chart, company info, recent patterns, fundamentals, each loaded when first
 * shown), and the user's alerts on the symbol (drawn as lines, and a new one added from the card).
 */
import { alertsApi, type AlertAnswer } from '../../../domain/contract/alerts.ts';
import {
  marketApi,
  type ChartBar,
  type FundamentalFigure,
  type MinuteCandles,
  type NextAverages,
} from '../../../domain/contract/market.ts';
import { patternsApi } from '../../../domain/contract/patterns.ts';
import { assign, fromPromise, setup } from 'xstate';
import { thresholdProblem } from '../../../domain/alerts/alerts.ts';
import { FUNDAMENTAL_TYPES, type FundamentalType } from '../../../domain/market/types.ts';
import { call, errorMessage } from '../../services/api.ts';
import { priceRange } from './dashboard.logic.ts';

/** A daily bar with its indicators (`GET /api/bars/{symbol}`), or today's formed from the live quote. */
export type CardBar = ChartBar;

/** The card's bars, and what the averages of the day after them are made of. */
export interface CardBars {
  readonly bars: readonly CardBar[];
  readonly next: NextAverages | null;
}

/** What the company-info body shows (the price-dependent figures are computed from the live quote). */
export interface CompanyInfo {
  readonly name: string;
  readonly sector: string;
  readonly industry: string;
  readonly marketcap: number;
  /** Earnings per share of the latest fiscal year, or null when unknown. */
  readonly eps: number | null;
  /** The fiscal year of `eps`. */
  readonly epsYear: number | null;
  /** Lowest low and highest high of the last 12 months. */
  readonly range52: { readonly low: number; readonly high: number } | null;
}

/** A day of recent patterns with the close of that day, for "change since". */
export interface RecentPattern {
  readonly date: string;
  readonly patterns: readonly { readonly name: string; readonly bullish: boolean | null }[];
  /** The close on that day, or null when unknown. */
  readonly close: number | null;
}

export { FUNDAMENTAL_TYPES, type FundamentalType };

/** One fundamental figure (`GET /api/fundamentals/...`), as much as the card lists. */
export type Fundamental = Pick<FundamentalFigure, 'end' | 'val' | 'fy' | 'fp'>;

/** The latest fiscal years of each fundamental type. */
export type Fundamentals = Readonly<Record<FundamentalType, readonly Fundamental[]>>;

/** A user's alert on the symbol (`GET /personalize/stockalerts/{symbol}`), as much as the card draws. */
export type CardAlert = Omit<AlertAnswer, 'createdt'>;

/** Years of fundamentals the card lists. */
export const FUNDAMENTAL_YEARS = 3;

/** Trading days of recent patterns the card lists. */
export const RECENT_PATTERN_DAYS = 60;

/** The body modes of a card. */
export type CardMode = 'chart' | 'info' | 'patterns' | 'fundamentals';

/** A card's state. */
export interface CardContext {
  readonly symbol: string;
  readonly months: number;
  readonly bars: readonly CardBar[];
  /** What the averages of the day after the bars are made of (today's, at the live price). */
  readonly next: NextAverages | null;
  readonly barsError: string | null;
  readonly info: CompanyInfo | null;
  readonly infoError: string | null;
  readonly patterns: readonly RecentPattern[] | null;
  readonly patternsError: string | null;
  readonly fundamentals: Fundamentals | null;
  readonly fundamentalsError: string | null;
  readonly alerts: readonly CardAlert[];
  readonly alertsError: string | null;
  /** Whether the alerts were loaded once. */
  readonly alertsLoaded: boolean;
  /** The session's minute candles as the server made them, loaded when "Today" is shown (null until then). */
  readonly session: MinuteCandles | null;
}

/** Events of a card. */
export type CardEvent =
  | { type: 'user.showMode'; mode: CardMode }
  | { type: 'user.retry' }
  | { type: 'user.toggleAlertLines' }
  | { type: 'user.addAlert'; threshold: number; price: number }
  | { type: 'user.openChart' }
  | { type: 'user.showToday' }
  | { type: 'parent.months'; months: number };

/** An alert's direction from its threshold and the price now: above the price fires going up. */
export function alertDirection(threshold: number, price: number): 'U' | 'D' {
  return threshold >= price ? 'U' : 'D';
}

/** The close of each date of the bars, for "change since". */
export function closesByDate(bars: readonly { date: string; close: number }[]): ReadonlyMap<string, number> {
  return new Map(bars.map((b) => [b.date, b.close]));
}

/** The card's machine; its input is the symbol and the months of the slider. */
export const cardMachine = setup({
  types: {
    context: {} as CardContext,
    events: {} as CardEvent,
    input: {} as { symbol: string; months: number },
  },
  actors: {
    loadBars: fromPromise<CardBars, { symbol: string; months: number }>(async ({ input, signal }) => {
      const answer = await call(marketApi.getBarsBySymbol, {
        params: { symbol: input.symbol },
        query: { months: input.months },
        signal,
      });
      return { bars: answer.bars, next: answer.next };
    }),
    loadSession: fromPromise<MinuteCandles, string>(async ({ input, signal }) =>
      call(marketApi.getBarsBySymbolMinutes, { params: { symbol: input }, signal }),
    ),
    loadInfo: fromPromise<CompanyInfo, string>(async ({ input, signal }) => {
      const [companies, eps, year] = await Promise.all([
        call(marketApi.getUniverse, { query: { q: input, limit: 5 }, signal }),
        call(marketApi.getFundamentalsByTypeBySymbolByLimitByPeriod, {
          params: { type: 'earningspershare', symbol: input, limit: 1, period: 'A' },
          signal,
        }),
        call(marketApi.getBarsBySymbol, { params: { symbol: input }, query: { months: 12 }, signal }),
      ]);
      const company = companies.find((c) => c.symbol === input);
      return {
        name: company?.name ?? input,
        sector: company?.sector ?? '',
        industry: company?.industry ?? '',
        marketcap: company?.marketcap ?? Number.NaN,
        eps: eps[0]?.val ?? null,
        epsYear: eps[0]?.fy ?? null,
        range52: priceRange(year.bars),
      };
    }),
    loadPatterns: fromPromise<RecentPattern[], string>(async ({ input, signal }) => {
      const rows = await call(patternsApi.getPatternsRecentstkpatternByStockByLimitdays, {
        params: { stock: input, limitdays: RECENT_PATTERN_DAYS },
        signal,
      });
      const oldest = rows.at(-1);
      if (oldest === undefined) return [];
      const since = await call(patternsApi.getPatternsPerformanceByStockByDatefrom, {
        params: { stock: input, datefrom: oldest.date },
        signal,
      });
      const closes = closesByDate(since.bars);
      return rows.map((row) => ({ date: row.date, patterns: row.stockpatterns, close: closes.get(row.date) ?? null }));
    }),
    loadFundamentals: fromPromise<Fundamentals, string>(async ({ input, signal }) => {
      const lists = await Promise.all(
        FUNDAMENTAL_TYPES.map((type) =>
          call(marketApi.getFundamentalsByTypeBySymbolByLimitByPeriod, {
            params: { type, symbol: input, limit: FUNDAMENTAL_YEARS, period: 'A' },
            signal,
          }),
        ),
      );
      return Object.fromEntries(FUNDAMENTAL_TYPES.map((type, i) => [type, lists[i] ?? []])) as unknown as Fundamentals;
    }),
    loadAlerts: fromPromise<CardAlert[], string>(async ({ input, signal }) =>
      call(alertsApi.getStockalertsBySymbol, { params: { symbol: input }, signal }),
    ),
    createAlert: fromPromise<CardAlert, { symbol: string; threshold: number; alerttype: 'U' | 'D' }>(
      async ({ input }) =>
        call(alertsApi.postStockalerts, {
          body: { symbol: input.symbol, close: input.threshold, alerttype: input.alerttype },
        }),
    ),
  },
  actions: {
    /** Opens the symbol's price chart. */
    openChart: (_, _params: { symbol: string }) => undefined,
  },
  guards: {
    hasInfo: ({ context }) => context.info !== null,
    hasPatterns: ({ context }) => context.patterns !== null,
    hasFundamentals: ({ context }) => context.fundamentals !== null,
    validAlert: ({ event }) => event.type === 'user.addAlert' && thresholdProblem(event.threshold) === null,
    monthsChanged: ({ context, event }) => event.type === 'parent.months' && event.months !== context.months,
  },
}).createMachine({
  id: 'stockCard',
  type: 'parallel',
  context: ({ input }) => ({
    symbol: input.symbol,
    months: input.months,
    bars: [],
    next: null,
    barsError: null,
    info: null,
    infoError: null,
    patterns: null,
    patternsError: null,
    fundamentals: null,
    fundamentalsError: null,
    alerts: [],
    alertsError: null,
    alertsLoaded: false,
    session: null,
  }),
  on: {
    'user.openChart': { actions: { type: 'openChart', params: ({ context }) => ({ symbol: context.symbol }) } },
  },
  states: {
    // "Today": the session so far, the server's minutes (the live quotes then go on from them); loaded again
    // each time it is shown. Without them the line starts at the live quotes, as it did.
    today: {
      initial: 'idle',
      on: { 'user.showToday': '.loading' },
      states: {
        idle: {},
        loading: {
          invoke: {
            src: 'loadSession',
            input: ({ context }) => context.symbol,
            onDone: { target: 'idle', actions: assign({ session: ({ event }) => event.output }) },
            onError: { target: 'idle' },
          },
        },
      },
    },
    bars: {
      initial: 'loading',
      on: {
        'parent.months': {
          guard: 'monthsChanged',
          target: '.loading',
          actions: assign({ months: ({ event }) => event.months }),
        },
      },
      states: {
        loading: {
          invoke: {
            src: 'loadBars',
            input: ({ context }) => ({ symbol: context.symbol, months: context.months }),
            onDone: { target: 'ready', actions: assign(({ event }) => ({ ...event.output, barsError: null })) },
            onError: { target: 'failed', actions: assign({ barsError: ({ event }) => errorMessage(event.error) }) },
          },
        },
        ready: {},
        failed: { on: { 'user.retry': 'loading' } },
      },
    },
    body: {
      initial: 'chart',
      on: {
        'user.showMode': [
          { guard: ({ event }) => event.mode === 'chart', target: '.chart' },
          { guard: ({ event }) => event.mode === 'info', target: '.info' },
          { guard: ({ event }) => event.mode === 'patterns', target: '.patterns' },
          { guard: ({ event }) => event.mode === 'fundamentals', target: '.fundamentals' },
        ],
      },
      states: {
        chart: {},
        info: {
          initial: 'check',
          states: {
            check: { always: [{ guard: 'hasInfo', target: 'ready' }, { target: 'loading' }] },
            loading: {
              invoke: {
                src: 'loadInfo',
                input: ({ context }) => context.symbol,
                onDone: { target: 'ready', actions: assign({ info: ({ event }) => event.output, infoError: null }) },
                onError: {
                  target: 'failed',
                  actions: assign({ infoError: ({ event }) => errorMessage(event.error) }),
                },
              },
            },
            ready: {},
            failed: { on: { 'user.retry': 'loading' } },
          },
        },
        patterns: {
          initial: 'check',
          states: {
            check: { always: [{ guard: 'hasPatterns', target: 'ready' }, { target: 'loading' }] },
            loading: {
              invoke: {
                src: 'loadPatterns',
                input: ({ context }) => context.symbol,
                onDone: {
                  target: 'ready',
                  actions: assign({ patterns: ({ event }) => event.output, patternsError: null }),
                },
                onError: {
                  target: 'failed',
                  actions: assign({ patternsError: ({ event }) => errorMessage(event.error) }),
                },
              },
            },
            ready: {},
            failed: { on: { 'user.retry': 'loading' } },
          },
        },
        fundamentals: {
          initial: 'check',
          states: {
            check: { always: [{ guard: 'hasFundamentals', target: 'ready' }, { target: 'loading' }] },
            loading: {
              invoke: {
                src: 'loadFundamentals',
                input: ({ context }) => context.symbol,
                onDone: {
                  target: 'ready',
                  actions: assign({ fundamentals: ({ event }) => event.output, fundamentalsError: null }),
                },
                onError: {
                  target: 'failed',
                  actions: assign({ fundamentalsError: ({ event }) => errorMessage(event.error) }),
                },
              },
            },
            ready: {},
            failed: { on: { 'user.retry': 'loading' } },
          },
        },
      },
    },
    alerts: {
      initial: 'hidden',
      states: {
        hidden: {
          on: {
            'user.toggleAlertLines': [{ guard: ({ context }) => context.alertsLoaded, target: 'shown' }, 'loading'],
            'user.addAlert': { guard: 'validAlert', target: 'saving' },
          },
        },
        loading: {
          invoke: {
            src: 'loadAlerts',
            input: ({ context }) => context.symbol,
            onDone: {
              target: 'shown',
              actions: assign({ alerts: ({ event }) => event.output, alertsLoaded: true, alertsError: null }),
            },
            onError: {
              target: 'failed',
              actions: assign({ alertsError: ({ event }) => errorMessage(event.error) }),
            },
          },
          on: { 'user.toggleAlertLines': 'hidden' },
        },
        shown: {
          on: {
            'user.toggleAlertLines': 'hidden',
            'user.addAlert': { guard: 'validAlert', target: 'saving' },
          },
        },
        failed: {
          on: {
            'user.toggleAlertLines': 'hidden',
            'user.retry': 'loading',
            'user.addAlert': { guard: 'validAlert', target: 'saving' },
          },
        },
        saving: {
          invoke: {
            src: 'createAlert',
            input: ({ context, event }) => {
              const add = event as Extract<CardEvent, { type: 'user.addAlert' }>;
              return {
                symbol: context.symbol,
                threshold: add.threshold,
                alerttype: alertDirection(add.threshold, add.price),
              };
            },
            onDone: {
              // A new alert is shown with the others: reload them all so lines match the server.
              target: 'loading',
              actions: assign({ alertsError: null }),
            },
            onError: {
              target: 'failed',
              actions: assign({
                alertsError: ({ event }) => `The alert could not be created: ${errorMessage(event.error)}`,
              }),
            },
          },
        },
      },
    },
  },
});
