/**
 * Analyze (/Analyzer): the latest candlestick patterns by date (a card per stock with its live price and the
 * change since the pattern), the symbols ranked by pattern days with their timelines, and how each pattern did
 * afterwards.
 */
import { analysisApi, type TimelineDay } from '../../../domain/contract/analysis.ts';
import {
  patternsApi,
  type PatternDate,
  type PatternDefinition,
  type PatternHit,
  type PatternHorizon,
  type PatternStat,
  type RankedSymbol,
} from '../../../domain/contract/patterns.ts';
import type { Data, Layout } from 'plotly.js';
import { and, assign, fromCallback, fromPromise, setup } from 'xstate';
import { formatPrice } from '../../../domain/format.ts';
import { DAY_TICK_FORMAT } from '../../components/dateAxis.ts';
import type { Quote } from '../../../domain/market/types.ts';
import { call, errorMessage } from '../../services/api.ts';
import { live, type LiveConnection } from '../../services/live.ts';
import { quoteBatcher } from '../../services/quoteBatch.ts';

/** The page's tabs. */
export type AnalyzeTab = 'latest' | 'stocks' | 'stats';

/** How many of the newest pattern dates are offered as tabs. */
export const DATE_TABS = 10;
/** Trading days the stock list ranks pattern days over. */
export const RANK_DAYS = 60;
/** Symbols of the stock list shown per page. */
export const RANK_PAGE = 15;
/** Most symbols whose prices stream live on the cards (the socket takes 200). */
export const LIVE_MAX = 180;
/**
 * Least time between two updates of the cards' live prices, in ms: the quotes arriving meanwhile are handed over
 * together, the newest of each symbol, so a busy market redraws the cards (and replays a card's flash) at most
 * once a second rather than on every quote.
 */
export const LIVE_BATCH_MS = 1000;

/** A stock's patterns on one date, with its close that day. */
export interface PatternCard {
  readonly symbol: string;
  readonly date: string;
  readonly patterns: readonly PatternHit[];
  /** The close on the pattern day, the base of "change since". */
  readonly close: number | null;
}

/** A live price as a card shows it, with the direction of its last move for the flash. */
export interface LivePrice {
  readonly price: number;
  readonly change: number;
  readonly changepct: number;
  readonly flash: 'up' | 'down' | null;
  /** Bumped on every move, so the flash replays. */
  readonly seq: number;
}

export type { PatternDate, PatternDefinition, PatternHit, PatternHorizon, PatternStat, RankedSymbol, TimelineDay };

/** A live price updated by a quote: flashes up or down when the price moved; the same map when nothing did. */
export function withQuote(
  prices: Readonly<Record<string, LivePrice>>,
  quote: Pick<Quote, 'symbol' | 'price' | 'change' | 'changepct'>,
): Readonly<Record<string, LivePrice>> {
  const previous = prices[quote.symbol];
  if (previous !== undefined && previous.price === quote.price && previous.changepct === quote.changepct) return prices;
  const flash =
    previous === undefined || previous.price === quote.price ? null : quote.price > previous.price ? 'up' : 'down';
  return {
    ...prices,
    [quote.symbol]: {
      price: quote.price,
      change: quote.change,
      changepct: quote.changepct,
      flash,
      seq: (previous?.seq ?? 0) + 1,
    },
  };
}

/** Live prices updated by a batch of quotes, in order; the same map when none of them moved a price. */
export function withQuotes(
  prices: Readonly<Record<string, LivePrice>>,
  quotes: readonly Pick<Quote, 'symbol' | 'price' | 'change' | 'changepct'>[],
): Readonly<Record<string, LivePrice>> {
  return quotes.reduce(withQuote, prices);
}

/** The part of the live connection the cards' prices use. */
export type QuoteSource = Pick<LiveConnection, 'onQuotes'>;

/**
 * The live prices of the cards over a connection: follows `input.symbols` (at most {@link LIVE_MAX}) and sends
 * the newest quote of each symbol back as one `server.quotes`: at once after a quiet spell, then at most once
 * every `batchMs`.
 */
export function livePricesOf(source: QuoteSource, batchMs = LIVE_BATCH_MS) {
  return fromCallback<AnalyzeEvent, { symbols: readonly string[] }>(({ sendBack, input }) => {
    const batches = quoteBatcher(batchMs, (quotes) => sendBack({ type: 'server.quotes', quotes }));
    const off = source.onQuotes(input.symbols.slice(0, LIVE_MAX), (quote) => batches.take(quote));
    return () => {
      off();
      batches.stop();
    };
  });
}

/** The change from the pattern day's close to the price now, or null when either is unknown. */
export function changeSince(
  close: number | null,
  price: number | null | undefined,
): { readonly change: number; readonly pct: number } | null {
  if (close === null || price === null || price === undefined || close <= 0) return null;
  const change = price - close;
  return { change: Math.round(change * 100) / 100, pct: Math.round((change / close) * 10000) / 100 };
}

/** A pattern's label from the definitions, else its name made readable (`morning_star` → `Morning star`). */
export function patternLabel(name: string, definitions: Readonly<Record<string, PatternDefinition>>): string {
  const known = definitions[name]?.label;
  if (known) return known;
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The direction of a pattern as a word. */
export function directionOf(bullish: boolean | null): 'bullish' | 'bearish' | 'neutral' {
  return bullish === true ? 'bullish' : bullish === false ? 'bearish' : 'neutral';
}

/** Cards filter: every card, or those with at least one pattern of a direction. */
export type CardFilter = 'all' | 'bullish' | 'bearish';

/** The cards a filter keeps. */
export function filterCards(cards: readonly PatternCard[], filter: CardFilter): readonly PatternCard[] {
  if (filter === 'all') return cards;
  const want = filter === 'bullish';
  return cards.filter((card) => card.patterns.some((p) => p.bullish === want));
}

/** The points of a timeline chart by direction: dates and the pattern labels of each. */
export function timelinePoints(
  days: readonly TimelineDay[],
  definitions: Readonly<Record<string, PatternDefinition>>,
): Record<'bullish' | 'bearish' | 'neutral', { x: string[]; text: string[] }> {
  const out = {
    bullish: { x: [] as string[], text: [] as string[] },
    bearish: { x: [] as string[], text: [] as string[] },
    neutral: { x: [] as string[], text: [] as string[] },
  };
  for (const day of days) {
    for (const direction of ['bullish', 'bearish', 'neutral'] as const) {
      const names = day.stockpatterns.filter((p) => directionOf(p.bullish) === direction);
      if (names.length === 0) continue;
      out[direction].x.push(day.date);
      out[direction].text.push(names.map((p) => patternLabel(p.name, definitions)).join(', '));
    }
  }
  return out;
}

/** The share of a timeline's window left empty before its first day and after its last, so their markers show whole. */
export const TIMELINE_ROOM = 0.015;

/** A `YYYY-MM-DD` day moved by some milliseconds, as a Plotly date (`2024-10-03 22:45:36`). */
function plotDate(day: string, ms: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + ms).toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * A symbol's pattern timeline: a row of markers per direction over the window, the window's edges given a little
 * room and the markers left unclipped, so those of its first and last days show whole; its dates read as on the
 * other charts (`Oct 4`).
 */
export function timelineFigure(
  days: readonly TimelineDay[],
  window: { readonly from: string | null; readonly to: string | null } | null,
  definitions: Readonly<Record<string, PatternDefinition>>,
): { data: Data[]; layout: Partial<Layout> } {
  const points = timelinePoints(days, definitions);
  const trace = (direction: 'bullish' | 'bearish' | 'neutral', y: number, color: string, symbol: string): Data => ({
    type: 'scatter',
    mode: 'markers',
    name: direction,
    x: points[direction].x,
    y: points[direction].x.map(() => y),
    text: points[direction].text,
    marker: { color, size: 9, symbol },
    cliponaxis: false,
    hovertemplate: '%{x}: %{text}<extra></extra>',
  });
  let range: [string, string] | undefined;
  if (window?.from && window.to) {
    const span = Date.parse(`${window.to}T00:00:00Z`) - Date.parse(`${window.from}T00:00:00Z`);
    const room = Math.max(12 * 3_600_000, span * TIMELINE_ROOM);
    if (Number.isFinite(room)) range = [plotDate(window.from, -room), plotDate(window.to, room)];
  }
  return {
    data: [
      trace('bullish', 1, '#138a36', 'triangle-up'),
      trace('neutral', 0, '#7b8794', 'diamond'),
      trace('bearish', -1, '#c62828', 'triangle-down'),
    ],
    layout: {
      showlegend: false,
      margin: { l: 52, r: 8, t: 4, b: 22 },
      xaxis: {
        type: 'date',
        showgrid: false,
        tickformat: DAY_TICK_FORMAT,
        tickfont: { size: 10 },
        ...(range ? { range } : {}),
      },
      yaxis: {
        range: [-1.6, 1.6],
        tickvals: [-1, 0, 1],
        ticktext: ['Bear', 'Neutral', 'Bull'],
        tickfont: { size: 9 },
        fixedrange: true,
      },
      hovermode: 'closest',
    },
  };
}

/** A row of the statistics grid. */
export interface StatRow {
  readonly name: string;
  readonly label: string;
  readonly direction: 'bullish' | 'bearish' | 'neutral';
  readonly count: number;
  readonly hit1: number | null;
  readonly hit5: number | null;
  readonly hit20: number | null;
  readonly median1: number | null;
  readonly median5: number | null;
  readonly median20: number | null;
  readonly definition: string;
}

/** The statistics as grid rows (hit rates and medians as fractions), most frequent pattern first. */
export function statRows(
  stats: readonly PatternStat[],
  definitions: Readonly<Record<string, PatternDefinition>>,
): StatRow[] {
  const at = (stat: PatternStat, days: number) => stat.horizons.find((h) => h.days === days);
  return stats
    .map((stat) => ({
      name: stat.name,
      label: stat.label,
      direction: directionOf(stat.bullish),
      count: stat.count,
      hit1: at(stat, 1)?.hitRate ?? null,
      hit5: at(stat, 5)?.hitRate ?? null,
      hit20: at(stat, 20)?.hitRate ?? null,
      median1: at(stat, 1)?.median ?? null,
      median5: at(stat, 5)?.median ?? null,
      median20: at(stat, 20)?.median ?? null,
      definition: definitions[stat.name]?.definition ?? '',
    }))
    .sort((a, b) => b.count - a.count || (a.label < b.label ? -1 : 1));
}

/** Reads one date's pattern rows and each stock's close that day. */
export async function fetchPatternDay(date: string): Promise<PatternCard[]> {
  const rows = await call(patternsApi.getPatternsBydateByDate, { params: { date } });
  if (rows.length === 0) return [];
  const closes = await call(analysisApi.getAnalysisClosesByDate, {
    params: { date },
    query: { symbols: rows.map((r) => r.symbol).join(',') },
  });
  const closeOf = new Map(closes.map((c) => [c.symbol, c.close]));
  return rows.map((r) => ({
    symbol: r.symbol,
    date: r.date,
    patterns: r.stockpatterns,
    close: closeOf.get(r.symbol) ?? null,
  }));
}

/** The page's state. */
export interface AnalyzeContext {
  readonly tab: AnalyzeTab;
  readonly definitions: Readonly<Record<string, PatternDefinition>>;
  readonly dates: readonly PatternDate[];
  readonly date: string | null;
  readonly cards: readonly PatternCard[];
  readonly prices: Readonly<Record<string, LivePrice>>;
  readonly latestError: string | null;
  readonly ranked: readonly RankedSymbol[];
  readonly shown: number;
  readonly timelines: Readonly<Record<string, readonly TimelineDay[]>>;
  readonly window: { readonly from: string | null; readonly to: string | null } | null;
  readonly stocksError: string | null;
  readonly stats: readonly PatternStat[];
  readonly statsError: string | null;
}

/** Events of the page. */
export type AnalyzeEvent =
  | { type: 'user.selectTab'; tab: AnalyzeTab }
  | { type: 'user.selectDate'; date: string }
  | { type: 'user.showMore' }
  | { type: 'user.retry'; section: AnalyzeTab }
  | { type: 'server.quotes'; quotes: readonly Quote[] };

/** The Analyze page's machine. */
export const analyzeMachine = setup({
  types: { context: {} as AnalyzeContext, events: {} as AnalyzeEvent },
  actors: {
    loadDates: fromPromise(async () => {
      const [dates, definitions] = await Promise.all([
        call(patternsApi.getPatternsDatesByLimitDays, { params: { limitDays: DATE_TABS } }),
        call(patternsApi.getPatternsDefinitions),
      ]);
      return { dates, definitions: Object.fromEntries(definitions.map((d) => [d.name, d])) };
    }),
    loadDay: fromPromise<PatternCard[], { date: string }>(async ({ input }) => fetchPatternDay(input.date)),
    livePrices: livePricesOf(live),
    loadRanking: fromPromise<RankedSymbol[]>(async () =>
      call(patternsApi.getPatternsGroupbysymByLimitDays, { params: { limitDays: RANK_DAYS } }),
    ),
    loadTimelines: fromPromise<
      { from: string | null; to: string | null; timelines: { symbol: string; days: TimelineDay[] }[] },
      { symbols: readonly string[] }
    >(async ({ input }) =>
      call(analysisApi.getAnalysisTimelinesByLimitDays, {
        params: { limitDays: RANK_DAYS },
        query: { symbols: input.symbols.join(',') },
      }),
    ),
    loadStats: fromPromise<PatternStat[]>(async () => call(patternsApi.getPatternsStats)),
  },
  guards: {
    retriesLatest: ({ event }) => event.type === 'user.retry' && event.section === 'latest',
    retriesStocks: ({ event }) => event.type === 'user.retry' && event.section === 'stocks',
    retriesStats: ({ event }) => event.type === 'user.retry' && event.section === 'stats',
    hasDates: ({ context }) => context.dates.length > 0,
    hasRanking: ({ context }) => context.ranked.length > 0,
    opensStocks: ({ event }) => event.type === 'user.selectTab' && event.tab === 'stocks',
    opensStats: ({ event }) => event.type === 'user.selectTab' && event.tab === 'stats',
  },
}).createMachine({
  id: 'analyze',
  type: 'parallel',
  context: {
    tab: 'latest',
    definitions: {},
    dates: [],
    date: null,
    cards: [],
    prices: {},
    latestError: null,
    ranked: [],
    shown: 0,
    timelines: {},
    window: null,
    stocksError: null,
    stats: [],
    statsError: null,
  },
  states: {
    view: {
      on: { 'user.selectTab': { actions: assign({ tab: ({ event }) => event.tab }) } },
    },
    latest: {
      initial: 'loading',
      on: {
        'user.selectDate': {
          target: '.loadingDay',
          actions: assign({ date: ({ event }) => event.date, cards: [], prices: {} }),
        },
      },
      states: {
        loading: {
          invoke: {
            src: 'loadDates',
            onDone: [
              {
                guard: ({ event }) => event.output.dates.length > 0,
                target: 'loadingDay',
                actions: assign({
                  dates: ({ event }) => event.output.dates,
                  definitions: ({ event }) => event.output.definitions,
                  date: ({ context, event }) => context.date ?? event.output.dates[0]?.date ?? null,
                  latestError: null,
                }),
              },
              {
                target: 'ready',
                actions: assign({ definitions: ({ event }) => event.output.definitions, latestError: null }),
              },
            ],
            onError: { target: 'failed', actions: assign({ latestError: ({ event }) => errorMessage(event.error) }) },
          },
        },
        loadingDay: {
          invoke: {
            src: 'loadDay',
            input: ({ context }) => ({ date: context.date ?? '' }),
            onDone: { target: 'ready', actions: assign({ cards: ({ event }) => event.output, latestError: null }) },
            onError: { target: 'failed', actions: assign({ latestError: ({ event }) => errorMessage(event.error) }) },
          },
        },
        ready: {
          invoke: {
            src: 'livePrices',
            input: ({ context }) => ({ symbols: context.cards.map((c) => c.symbol) }),
          },
          on: {
            'server.quotes': {
              actions: assign({ prices: ({ context, event }) => withQuotes(context.prices, event.quotes) }),
            },
          },
        },
        failed: {
          on: {
            'user.retry': [
              { guard: and(['retriesLatest', 'hasDates']), target: 'loadingDay' },
              { guard: 'retriesLatest', target: 'loading' },
            ],
          },
        },
      },
    },
    stocks: {
      initial: 'idle',
      states: {
        idle: {
          on: { 'user.selectTab': { guard: 'opensStocks', target: 'ranking' } },
        },
        ranking: {
          invoke: {
            src: 'loadRanking',
            onDone: {
              target: 'timelines',
              actions: assign({
                ranked: ({ event }) => event.output,
                shown: ({ event }) => Math.min(RANK_PAGE, event.output.length),
                stocksError: null,
              }),
            },
            onError: { target: 'failed', actions: assign({ stocksError: ({ event }) => errorMessage(event.error) }) },
          },
        },
        timelines: {
          always: {
            guard: ({ context }) => context.ranked.slice(0, context.shown).every((r) => r.symbol in context.timelines),
            target: 'ready',
          },
          invoke: {
            src: 'loadTimelines',
            input: ({ context }) => ({
              symbols: context.ranked
                .slice(0, context.shown)
                .map((r) => r.symbol)
                .filter((s) => !(s in context.timelines)),
            }),
            onDone: {
              target: 'ready',
              actions: assign({
                timelines: ({ context, event }) => ({
                  ...context.timelines,
                  ...Object.fromEntries(event.output.timelines.map((t) => [t.symbol, t.days])),
                }),
                window: ({ event }) => ({ from: event.output.from, to: event.output.to }),
                stocksError: null,
              }),
            },
            onError: { target: 'failed', actions: assign({ stocksError: ({ event }) => errorMessage(event.error) }) },
          },
        },
        ready: {
          on: {
            'user.showMore': {
              guard: ({ context }) => context.shown < context.ranked.length,
              target: 'timelines',
              actions: assign({ shown: ({ context }) => Math.min(context.ranked.length, context.shown + RANK_PAGE) }),
            },
          },
        },
        failed: {
          on: {
            'user.retry': [
              { guard: and(['retriesStocks', 'hasRanking']), target: 'timelines' },
              { guard: 'retriesStocks', target: 'ranking' },
            ],
          },
        },
      },
    },
    stats: {
      initial: 'idle',
      states: {
        idle: {
          on: { 'user.selectTab': { guard: 'opensStats', target: 'loading' } },
        },
        loading: {
          invoke: {
            src: 'loadStats',
            onDone: { target: 'ready', actions: assign({ stats: ({ event }) => event.output, statsError: null }) },
            onError: { target: 'failed', actions: assign({ statsError: ({ event }) => errorMessage(event.error) }) },
          },
        },
        ready: {},
        failed: {
          on: { 'user.retry': { guard: 'retriesStats', target: 'loading' } },
        },
      },
    },
  },
});

/** A price for display: 2 decimals and thousands separators, never in millions. */
export { formatPrice };

/** A trading day as a tab shows it: `Dec 31`. */
export function shortDate(date: string): string {
  const parsed = new Date(`${date}T12:00:00Z`);
  if (Number.isNaN(parsed.getTime())) return date;
  return parsed.toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
}
