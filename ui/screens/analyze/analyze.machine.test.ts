import { expect } from 'chai';
import { DAY_TICK_FORMAT } from '../../components/dateAxis.ts';
import { createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import type { Quote } from '../../../domain/market/types.ts';
import {
  analyzeMachine,
  changeSince,
  filterCards,
  formatPrice,
  LIVE_MAX,
  livePricesOf,
  patternLabel,
  RANK_PAGE,
  shortDate,
  statRows,
  timelineFigure,
  timelinePoints,
  withQuote,
  withQuotes,
  type AnalyzeEvent,
  type PatternCard,
  type PatternDate,
  type PatternDefinition,
  type PatternStat,
  type QuoteSource,
  type RankedSymbol,
  type TimelineDay,
} from './analyze.machine.ts';

const DEFINITIONS: Record<string, PatternDefinition> = {
  hammer: { name: 'hammer', label: 'Hammer', bullish: true, candles: 1, definition: 'A small body on top.' },
  doji: { name: 'doji', label: 'Doji', bullish: null, candles: 1, definition: 'A tiny body.' },
};
const DATES: PatternDate[] = [
  { date: '2024-12-31', patterncount: 3 },
  { date: '2024-12-30', patterncount: 1 },
];
const CARDS: Record<string, PatternCard[]> = {
  '2024-12-31': [
    { symbol: 'AAPL', date: '2024-12-31', close: 200, patterns: [{ name: 'hammer', bullish: true }] },
    {
      symbol: 'XOM',
      date: '2024-12-31',
      close: 100,
      patterns: [
        { name: 'dark_cloud_cover', bullish: false },
        { name: 'doji', bullish: null },
      ],
    },
  ],
  '2024-12-30': [{ symbol: 'MSFT', date: '2024-12-30', close: 400, patterns: [{ name: 'doji', bullish: null }] }],
};
/** The least time between two batches of live prices in these tests, in ms. */
const BATCH_MS = 40;
const RANKED: RankedSymbol[] = Array.from({ length: 20 }, (_, i) => ({ symbol: `S${i}`, count: 30 - i }));

function quote(symbol: string, price: number, changepct = 0): Quote {
  return { symbol, price, change: 0, changepct, volume: 0, ts: '2025-01-02T15:00:00Z', source: 'simulated' };
}

/** A live connection of quotes pushed by hand: who follows which symbols, and a push to them. */
function quoteSource() {
  const listeners = new Map<string, Set<(quote: Quote) => void>>();
  const source: QuoteSource = {
    onQuotes: (symbols, listener) => {
      for (const symbol of symbols) listeners.set(symbol, (listeners.get(symbol) ?? new Set()).add(listener));
      return () => {
        for (const symbol of symbols) listeners.get(symbol)?.delete(listener);
      };
    },
  };
  const followed = () => [...listeners].filter(([, set]) => set.size > 0).map(([symbol]) => symbol);
  const push = (q: Quote) => {
    for (const listener of listeners.get(q.symbol) ?? []) listener(q);
  };
  return { source, followed, push };
}

function analyze(
  options: { failDates?: number; failStats?: boolean; dates?: PatternDate[]; livePrices?: QuoteSource } = {},
) {
  const calls: string[] = [];
  const subscribed: (readonly string[])[] = [];
  let push: ((event: AnalyzeEvent) => void) | null = null;
  let dateLoads = 0;
  const actor = createActor(
    analyzeMachine.provide({
      actors: {
        loadDates: fromPromise<{ dates: PatternDate[]; definitions: Record<string, PatternDefinition> }>(async () => {
          dateLoads += 1;
          if (dateLoads <= (options.failDates ?? 0)) throw new Error('The server could not answer');
          return Promise.resolve({ dates: options.dates ?? DATES, definitions: DEFINITIONS });
        }),
        loadDay: fromPromise<PatternCard[], { date: string }>(async ({ input }) => {
          calls.push(`day ${input.date}`);
          return Promise.resolve(CARDS[input.date] ?? []);
        }),
        livePrices: options.livePrices
          ? livePricesOf(options.livePrices, BATCH_MS)
          : fromCallback<AnalyzeEvent, { symbols: readonly string[] }>(({ sendBack, input }) => {
              subscribed.push(input.symbols);
              push = sendBack;
              return () => subscribed.push([]);
            }),
        loadRanking: fromPromise<RankedSymbol[]>(async () => {
          calls.push('ranking');
          return Promise.resolve(RANKED);
        }),
        loadTimelines: fromPromise<
          { from: string | null; to: string | null; timelines: { symbol: string; days: TimelineDay[] }[] },
          { symbols: readonly string[] }
        >(async ({ input }) => {
          calls.push(`timelines ${input.symbols.length}`);
          return Promise.resolve({
            from: '2024-10-04',
            to: '2024-12-31',
            timelines: input.symbols.map((symbol) => ({
              symbol,
              days: [{ date: '2024-12-02', stockpatterns: [{ name: 'hammer', bullish: true }] }],
            })),
          });
        }),
        loadStats: fromPromise<PatternStat[]>(async () => {
          calls.push('stats');
          if (options.failStats) throw new Error('Too many attempts: wait a moment and try again');
          return Promise.resolve([
            {
              name: 'hammer',
              label: 'Hammer',
              bullish: true,
              count: 10,
              horizons: [1, 5, 20].map((days) => ({ days, count: 10, hitRate: 0.6, median: 0.01 })),
            },
          ]);
        }),
      },
    }),
  ).start();
  return { actor, calls, subscribed, push: (e: AnalyzeEvent) => push?.(e) };
}

describe('analyze machine', () => {
  it('loads the latest dates, opens the newest and follows the live prices of its stocks', async () => {
    const { actor, calls, subscribed } = analyze();
    expect(actor.getSnapshot().matches({ latest: 'loading' })).to.equal(true);
    await waitFor(actor, (s) => s.matches({ latest: 'ready' }));
    const { context } = actor.getSnapshot();
    expect(context.date).to.equal('2024-12-31');
    expect(context.cards.map((c) => c.symbol)).to.deep.equal(['AAPL', 'XOM']);
    expect(calls).to.deep.equal(['day 2024-12-31']);
    expect(subscribed).to.deep.equal([['AAPL', 'XOM']]);
    expect(actor.getSnapshot().matches({ stocks: 'idle' }), 'other tabs load when opened').to.equal(true);
  });

  it('updates a card price from pushed quotes, flashing the direction of the move', async () => {
    const { actor, push } = analyze();
    await waitFor(actor, (s) => s.matches({ latest: 'ready' }));
    push({ type: 'server.quotes', quotes: [quote('AAPL', 210), quote('XOM', 99)] });
    push({ type: 'server.quotes', quotes: [quote('AAPL', 205)] });
    const { prices } = actor.getSnapshot().context;
    expect(prices['AAPL']).to.include({ price: 205, flash: 'down', seq: 2 });
    expect(prices['XOM']).to.include({ price: 99, flash: null, seq: 1 });
    expect(changeSince(200, prices['AAPL']?.price)).to.deep.equal({ change: 5, pct: 2.5 });
  });

  it('hands the cards the newest quote of each symbol at most once per batch time, whatever the quote rate', async () => {
    const { source, followed, push } = quoteSource();
    const { actor } = analyze({ livePrices: source });
    await waitFor(actor, (s) => s.matches({ latest: 'ready' }));
    expect(followed()).to.deep.equal(['AAPL', 'XOM']);
    const updates: number[] = [];
    let seen = actor.getSnapshot().context.prices;
    actor.subscribe((s) => {
      if (s.context.prices === seen) return;
      seen = s.context.prices;
      updates.push(Date.now());
    });

    // A burst of quotes: one update, with the last quote of each symbol.
    for (let i = 1; i <= 50; i += 1) {
      push(quote('AAPL', 200 + i));
      push(quote('XOM', 100 - i / 10));
    }
    await waitFor(actor, (s) => s.context.prices['XOM'] !== undefined);
    expect(updates).to.have.length(1);
    expect(actor.getSnapshot().context.prices['AAPL']).to.include({ price: 250, flash: null, seq: 1 });
    expect(actor.getSnapshot().context.prices['XOM']).to.include({ price: 95, seq: 1 });

    // The next quotes wait for the batch time, then come together, flashing against the price shown.
    push(quote('AAPL', 251));
    push(quote('AAPL', 249));
    expect(updates, 'held until the batch time has passed').to.have.length(1);
    await waitFor(actor, (s) => s.context.prices['AAPL']?.price === 249);
    expect(updates).to.have.length(2);
    expect(updates[1]! - updates[0]!).to.be.at.least(BATCH_MS - 5);
    expect(actor.getSnapshot().context.prices['AAPL']).to.include({ flash: 'down', seq: 2 });

    // Leaving the date stops following its symbols; a quote held for the next batch is dropped.
    push(quote('AAPL', 260));
    actor.send({ type: 'user.selectDate', date: '2024-12-30' });
    await waitFor(actor, (s) => s.matches({ latest: 'ready' }));
    expect(followed()).to.deep.equal(['MSFT']);
    push(quote('MSFT', 410));
    await waitFor(actor, (s) => s.context.prices['MSFT'] !== undefined);
    expect(Object.keys(actor.getSnapshot().context.prices)).to.deep.equal(['MSFT']);
    actor.stop();
    expect(followed()).to.deep.equal([]);
  });

  it('follows at most LIVE_MAX symbols live', async () => {
    const many = Array.from({ length: LIVE_MAX + 20 }, (_, i): PatternCard => ({
      symbol: `S${i}`,
      date: '2024-12-31',
      close: 10,
      patterns: [{ name: 'doji', bullish: null }],
    }));
    const { source, followed } = quoteSource();
    const actor = createActor(
      analyzeMachine.provide({
        actors: {
          loadDates: fromPromise(async () => Promise.resolve({ dates: DATES, definitions: DEFINITIONS })),
          loadDay: fromPromise<PatternCard[], { date: string }>(async () => Promise.resolve(many)),
          livePrices: livePricesOf(source, BATCH_MS),
        },
      }),
    ).start();
    await waitFor(actor, (s) => s.matches({ latest: 'ready' }));
    expect(followed()).to.have.length(LIVE_MAX);
    actor.stop();
  });

  it('switches the date tab: new cards, and the live prices follow the new stocks', async () => {
    const { actor, subscribed } = analyze();
    await waitFor(actor, (s) => s.matches({ latest: 'ready' }));
    actor.send({ type: 'user.selectDate', date: '2024-12-30' });
    expect(actor.getSnapshot().context.cards).to.deep.equal([]);
    await waitFor(actor, (s) => s.matches({ latest: 'ready' }));
    expect(actor.getSnapshot().context.cards.map((c) => c.symbol)).to.deep.equal(['MSFT']);
    expect(subscribed).to.deep.equal([['AAPL', 'XOM'], [], ['MSFT']]);
  });

  it('keeps the failure message of the dates, stops loading and retries that section', async () => {
    const { actor } = analyze({ failDates: 1 });
    await waitFor(actor, (s) => s.matches({ latest: 'failed' }));
    expect(actor.getSnapshot().context.latestError).to.equal('The server could not answer');
    actor.send({ type: 'user.retry', section: 'stats' });
    expect(actor.getSnapshot().matches({ latest: 'failed' }), 'another section retried').to.equal(true);
    actor.send({ type: 'user.retry', section: 'latest' });
    await waitFor(actor, (s) => s.matches({ latest: 'ready' }));
  });

  it('is ready and empty when no date has patterns', async () => {
    const { actor } = analyze({ dates: [] });
    await waitFor(actor, (s) => s.matches({ latest: 'ready' }));
    expect(actor.getSnapshot().context.cards).to.deep.equal([]);
    expect(actor.getSnapshot().context.date).to.equal(null);
  });

  it('loads the stock list when its tab opens: the ranking, then a page of timelines, then more', async () => {
    const { actor, calls } = analyze();
    await waitFor(actor, (s) => s.matches({ latest: 'ready' }));
    actor.send({ type: 'user.selectTab', tab: 'stocks' });
    expect(actor.getSnapshot().context.tab).to.equal('stocks');
    await waitFor(actor, (s) => s.matches({ stocks: 'ready' }));
    expect(actor.getSnapshot().context.shown).to.equal(RANK_PAGE);
    expect(Object.keys(actor.getSnapshot().context.timelines)).to.have.length(RANK_PAGE);
    actor.send({ type: 'user.showMore' });
    await waitFor(actor, (s) => s.matches({ stocks: 'ready' }));
    expect(actor.getSnapshot().context.shown).to.equal(20);
    expect(calls.slice(1)).to.deep.equal(['ranking', `timelines ${RANK_PAGE}`, 'timelines 5']);
    actor.send({ type: 'user.selectTab', tab: 'latest' });
    actor.send({ type: 'user.selectTab', tab: 'stocks' });
    expect(
      calls.filter((c) => c === 'ranking'),
      'loaded once',
    ).to.have.length(1);
    expect(actor.getSnapshot().context.window).to.deep.equal({ from: '2024-10-04', to: '2024-12-31' });
  });

  it('loads the statistics when their tab opens and keeps their failure with a retry', async () => {
    const { actor, calls } = analyze({ failStats: true });
    actor.send({ type: 'user.selectTab', tab: 'stats' });
    await waitFor(actor, (s) => s.matches({ stats: 'failed' }));
    expect(actor.getSnapshot().context.statsError).to.equal('Too many attempts: wait a moment and try again');
    actor.send({ type: 'user.retry', section: 'stats' });
    await waitFor(actor, (s) => s.matches({ stats: 'failed' }));
    expect(calls.filter((c) => c === 'stats')).to.have.length(2);
  });

  it('shows the statistics as grid rows', async () => {
    const { actor } = analyze();
    actor.send({ type: 'user.selectTab', tab: 'stats' });
    await waitFor(actor, (s) => s.matches({ stats: 'ready' }));
    expect(statRows(actor.getSnapshot().context.stats, DEFINITIONS)).to.deep.equal([
      {
        name: 'hammer',
        label: 'Hammer',
        direction: 'bullish',
        count: 10,
        hit1: 0.6,
        hit5: 0.6,
        hit20: 0.6,
        median1: 0.01,
        median5: 0.01,
        median20: 0.01,
        definition: 'A small body on top.',
      },
    ]);
  });
});

describe('analyze helpers', () => {
  it('flashes only when the price moved, and keeps the same map for a repeated quote', () => {
    const first = withQuote({}, quote('AAPL', 100));
    expect(first['AAPL']).to.include({ flash: null, seq: 1 });
    const up = withQuote(first, quote('AAPL', 101));
    expect(up['AAPL']).to.include({ flash: 'up', seq: 2 });
    expect(withQuote(up, quote('AAPL', 101))).to.equal(up);
    expect(withQuote(up, quote('AAPL', 101, 1))['AAPL']).to.include({ flash: null, seq: 3 });
  });

  it('applies a batch of quotes in order, and keeps the same map when none moved a price', () => {
    const first = withQuotes({}, [quote('AAPL', 100), quote('XOM', 50)]);
    expect(first['AAPL']).to.include({ price: 100, seq: 1 });
    const next = withQuotes(first, [quote('AAPL', 102), quote('AAPL', 101)]);
    expect(next['AAPL']).to.include({ price: 101, flash: 'down', seq: 3 });
    expect(next['XOM']).to.equal(first['XOM']);
    expect(withQuotes(next, [quote('XOM', 50)])).to.equal(next);
    expect(withQuotes(next, [])).to.equal(next);
  });

  it('measures the change since the pattern close, and nothing without a price or close', () => {
    expect(changeSince(100, 97.5)).to.deep.equal({ change: -2.5, pct: -2.5 });
    expect(changeSince(null, 10)).to.equal(null);
    expect(changeSince(10, undefined)).to.equal(null);
    expect(changeSince(0, 10)).to.equal(null);
  });

  it('labels patterns from their definitions, else from their names', () => {
    expect(patternLabel('hammer', DEFINITIONS)).to.equal('Hammer');
    expect(patternLabel('dark_cloud_cover', DEFINITIONS)).to.equal('Dark cloud cover');
  });

  it('filters cards by direction', () => {
    const cards = CARDS['2024-12-31'] ?? [];
    expect(filterCards(cards, 'all')).to.equal(cards);
    expect(filterCards(cards, 'bullish').map((c) => c.symbol)).to.deep.equal(['AAPL']);
    expect(filterCards(cards, 'bearish').map((c) => c.symbol)).to.deep.equal(['XOM']);
  });

  it('splits a timeline into bullish, bearish and neutral points', () => {
    const points = timelinePoints(
      [
        {
          date: 'd1',
          stockpatterns: [
            { name: 'hammer', bullish: true },
            { name: 'doji', bullish: null },
          ],
        },
        { date: 'd2', stockpatterns: [{ name: 'dark_cloud_cover', bullish: false }] },
      ],
      DEFINITIONS,
    );
    expect(points).to.deep.equal({
      bullish: { x: ['d1'], text: ['Hammer'] },
      bearish: { x: ['d2'], text: ['Dark cloud cover'] },
      neutral: { x: ['d1'], text: ['Doji'] },
    });
  });

  it("draws a timeline's first and last days whole, with ticks read as on the other charts", () => {
    const days = [
      { date: '2024-10-04', stockpatterns: [{ name: 'hammer', bullish: true }] },
      { date: '2024-12-31', stockpatterns: [{ name: 'dark_cloud_cover', bullish: false }] },
    ];
    const figure = timelineFigure(days, { from: '2024-10-04', to: '2024-12-31' }, DEFINITIONS);
    expect(figure.data).to.have.length(3);
    for (const trace of figure.data as { cliponaxis?: boolean }[]) expect(trace.cliponaxis).to.equal(false);
    const range = figure.layout.xaxis?.range as [string, string];
    expect(Date.parse(range[0]), 'room before the first day').to.be.below(Date.parse('2024-10-04T00:00:00Z'));
    expect(Date.parse(range[1]), 'room after the last day').to.be.above(Date.parse('2024-12-31T00:00:00Z'));
    expect(figure.layout.xaxis?.tickformat).to.equal(DAY_TICK_FORMAT);
    expect(DAY_TICK_FORMAT, 'Oct 4, not Oct 04').to.equal('%b %-d');
    expect(timelineFigure(days, null, DEFINITIONS).layout.xaxis?.range).to.equal(undefined);
  });

  it('writes prices with 2 decimals and thousands separators, never in millions', () => {
    expect(formatPrice(189.3)).to.equal('189.30');
    expect(formatPrice(5123.456)).to.equal('5,123.46');
  });

  it('writes a trading day short', () => {
    expect(shortDate('2024-12-31')).to.equal('Dec 31');
    expect(shortDate('nope')).to.equal('nope');
  });
});
