import { expect } from 'chai';
import { DomainError } from '../../domain/decider.ts';
import { capClassOf } from '../../domain/market/types.ts';
import { BULLISH_PATTERN_NAMES, PATTERN_NAMES } from '../../domain/screener/patterns.ts';
import { SCREENER_PRESETS, validateQuery, type LabelledClause } from '../../domain/screener/query.ts';
import { NO_METRICS } from './metrics.ts';
import {
  SCREENER_ROW_COUNT,
  compileQuery,
  naiveScreener,
  runScreener,
  type ScreenerIndicators,
  type ScreenerInput,
  type ScreenerMetrics,
} from './screener.ts';

const NO_INDICATORS: ScreenerIndicators = { SMA_20: null, SMA_50: null, SMA_100: null, SMA_200: null, rsi_14: null };

function stock(
  symbol: string,
  fields: Partial<Omit<ScreenerInput, 'indicators'>> & { indicators?: Partial<ScreenerIndicators> } = {},
): ScreenerInput {
  const marketcap = fields.marketcap ?? 5e9;
  const patterns = fields.patterns ?? [];
  return {
    symbol,
    name: `${symbol} Inc.`,
    sector: 'Industrials',
    industry: null,
    metrics: NO_METRICS,
    close: 100,
    changepct: 0,
    capclass: capClassOf(marketcap),
    bullishPatterns: patterns.some((p) => (BULLISH_PATTERN_NAMES as readonly string[]).includes(p)),
    ...fields,
    marketcap,
    patterns,
    indicators: { ...NO_INDICATORS, ...fields.indicators },
  };
}

const q = (...clauses: unknown[]): LabelledClause[] => validateQuery(clauses, { allowEmpty: true });
const symbols = (rows: readonly { symbol: string }[]): string[] => rows.map((r) => r.symbol);
const preset = (name: string): readonly LabelledClause[] => {
  const found = SCREENER_PRESETS.find((p) => p.name === name);
  if (found === undefined) throw new Error(`no preset ${name}`);
  return found.query;
};

/** A deterministic universe of varied rows (a small LCG), some indicators missing. */
function universe(count: number, seed: number): ScreenerInput[] {
  let state = seed;
  const next = (): number => {
    state = (state * 48_271) % 2_147_483_647;
    return state / 2_147_483_647;
  };
  return Array.from({ length: count }, (_, i) => {
    const close = Math.round((5 + next() * 300) * 100) / 100;
    const maybe = (value: number): number | null => (next() < 0.1 ? null : value);
    const patterns = PATTERN_NAMES.filter(() => next() < 0.05);
    return stock(`S${String(i).padStart(4, '0')}`, {
      close,
      changepct: Math.round((next() - 0.5) * 1000) / 100,
      marketcap: Math.round(next() ** 3 * 5e11),
      sector: ['Energy', 'Utilities', 'Financials'][i % 3] ?? 'Energy',
      industry: [null, 'Banks', 'Electric Utilities', 'Oil, Gas & Consumable Fuels'][i % 4] ?? null,
      metrics: Object.fromEntries(
        Object.keys(NO_METRICS).map((key) => [key, maybe(Math.round((next() - 0.3) * 10_000) / 100)]),
      ) as unknown as ScreenerMetrics,
      patterns,
      indicators: {
        SMA_20: maybe(close * (0.9 + next() * 0.2)),
        SMA_50: maybe(close * (0.85 + next() * 0.3)),
        SMA_100: maybe(close * (0.8 + next() * 0.4)),
        SMA_200: maybe(close * (0.75 + next() * 0.5)),
        rsi_14: maybe(next() * 100),
      },
    });
  });
}

describe('screener', () => {
  describe('presets', () => {
    const rows = [
      stock('BULL', { patterns: ['hammer', 'doji'] }),
      stock('DOJI', { patterns: ['doji'] }),
      stock('BEAR', { patterns: ['shooting_star'] }),
      stock('LOW', { close: 90, indicators: { SMA_50: 100, SMA_200: 120, rsi_14: 25 } }),
      stock('HIGH', { close: 130, indicators: { SMA_50: 110, SMA_200: 100, rsi_14: 85 } }),
      stock('EDGE', { close: 100, indicators: { SMA_50: 100, SMA_200: 100, rsi_14: 30 } }),
      stock('NEW'),
    ];

    it('Bullish Patterns: the stocks with any bullish pattern on the latest bar', () => {
      expect(symbols(runScreener(rows, preset('Bullish Patterns')).rows)).to.deep.equal(['BULL']);
    });

    it('Close below 50-day average, strictly, never with a missing average', () => {
      expect(symbols(runScreener(rows, preset('Close below 50-day average')).rows)).to.deep.equal(['LOW']);
    });

    it('200-day average above 50-day average', () => {
      expect(symbols(runScreener(rows, preset('200-day average above 50-day average')).rows)).to.deep.equal(['LOW']);
    });

    it('200-day average above close', () => {
      expect(symbols(runScreener(rows, preset('200-day average above close')).rows)).to.deep.equal(['LOW']);
    });

    it('14-day RSI below 30 and above 80, the boundary itself excluded', () => {
      expect(symbols(runScreener(rows, preset('14-day RSI below 30')).rows)).to.deep.equal(['LOW']);
      expect(symbols(runScreener(rows, preset('14-day RSI above 80')).rows)).to.deep.equal(['HIGH']);
    });
  });

  describe('clauses', () => {
    const rows = [
      stock('BIG', { marketcap: 50e9, close: 10, indicators: { SMA_20: 9, rsi_14: 50 }, patterns: ['doji'] }),
      stock('MID', { marketcap: 10e9, close: 20, indicators: { SMA_20: 25, rsi_14: 70 } }),
      stock('SMALL', { marketcap: 2e9 - 1, close: 30, indicators: { SMA_20: null, rsi_14: null } }),
    ];
    const run = (...clauses: unknown[]): string[] => symbols(runScreener(rows, q(...clauses)).rows);

    it('market cap by class (10 B exactly is mid) and by dollars', () => {
      expect(run({ type: 'mcap', op: 'like', val: 'mid' })).to.deep.equal(['MID']);
      expect(run({ type: 'mcap', op: 'not_like', val: 'large' })).to.deep.equal(['MID', 'SMALL']);
      expect(run({ type: 'mcap', op: '>', val: 10e9 })).to.deep.equal(['BIG']);
      expect(run({ type: 'mcap', op: 'bet', val: [2e9 - 1, 10e9] })).to.deep.equal(['MID', 'SMALL']);
    });

    it('ranges include both ends', () => {
      expect(run({ type: 'close', op: 'bet', val: [10, 20] })).to.deep.equal(['BIG', 'MID']);
      expect(run({ type: 'rsi', op: 'bet', val: [50, 70] })).to.deep.equal(['BIG', 'MID']);
    });

    it('a missing indicator matches no comparison, on either side', () => {
      expect(run({ type: 'SMA', param: 20, op: '<', val: 1000 })).to.deep.equal(['BIG', 'MID']);
      expect(run({ type: 'close', op: '<', val: { ref: 'SMA', param: 20 } })).to.deep.equal(['MID']);
      expect(run({ type: 'close', op: '>', val: { ref: 'SMA', param: 20 } })).to.deep.equal(['BIG']);
      expect(run({ type: 'rsi', op: 'bet', val: [0, 100] })).to.deep.equal(['BIG', 'MID']);
    });

    it('patterns present and absent, with > 0 meaning present', () => {
      expect(run({ type: 'pattern_doji_', op: 'like' })).to.deep.equal(['BIG']);
      expect(run({ type: 'pattern_doji_', op: '>', val: 0 })).to.deep.equal(['BIG']);
      expect(run({ type: 'pattern_doji_', op: 'not_like' })).to.deep.equal(['MID', 'SMALL']);
      expect(run({ type: 'pattern_bullish_', op: 'not_like' })).to.deep.equal(['BIG', 'MID', 'SMALL']);
    });

    it('ANDs the clauses, and an empty query matches every row', () => {
      expect(run({ type: 'close', op: '>', val: 5 }, { type: 'rsi', op: '>', val: 60 })).to.deep.equal(['MID']);
      expect(run()).to.deep.equal(['BIG', 'MID', 'SMALL']);
      expect(compileQuery([])(rows[0]!)).to.be.true;
    });
  });

  describe('answer', () => {
    const rows = universe(200, 5);

    it('holds at most 50 rows by default, with the total count of matches', () => {
      const result = runScreener(rows, []);
      expect(result.rows).to.have.length(SCREENER_ROW_COUNT);
      expect(result.total).to.equal(200);
      expect(runScreener(rows, [], { limit: 3 }).rows).to.have.length(3);
      expect(runScreener(rows, [], { limit: 0 })).to.deep.equal({ rows: [], total: 200 });
    });

    it('is sorted by market cap descending by default', () => {
      const caps = runScreener(rows, [], { limit: 200 }).rows.map((r) => r.marketcap);
      expect(caps).to.deep.equal([...caps].sort((a, b) => b - a));
    });

    it('sorts by any column, missing values last in both directions, ties by symbol', () => {
      for (const dir of ['asc', 'desc'] as const) {
        const result = runScreener(rows, [], { limit: 200, sort: { field: 'rsi_14', dir } }).rows;
        const present = result.filter((r) => r.rsi_14 !== null).map((r) => r.rsi_14 as number);
        expect(present).to.deep.equal([...present].sort((a, b) => (dir === 'asc' ? a - b : b - a)));
        expect(result.slice(present.length).every((r) => r.rsi_14 === null)).to.be.true;
      }
      const bySector = runScreener(rows, [], { limit: 200, sort: { field: 'sector', dir: 'asc' } }).rows;
      const energy = bySector.filter((r) => r.sector === 'Energy').map((r) => r.symbol);
      expect(energy).to.deep.equal([...energy].sort());
      expect(bySector[0]?.sector).to.equal('Energy');
    });

    it('gives the API row shape', () => {
      const [row] = runScreener(
        [stock('AAA', { patterns: ['hammer'], indicators: { SMA_50: 1, SMA_200: 2, rsi_14: 3 } })],
        [],
      ).rows;
      expect(row).to.deep.equal({
        symbol: 'AAA',
        name: 'AAA Inc.',
        sector: 'Industrials',
        industry: null,
        close: 100,
        changepct: 0,
        marketcap: 5e9,
        capclass: 'mid',
        SMA_50: 1,
        SMA_200: 2,
        rsi_14: 3,
        patterns: ['hammer'],
        ...NO_METRICS,
      });
    });

    it('refuses a limit or sort it cannot follow', () => {
      expect(() => runScreener(rows, [], { limit: -1 })).to.throw(DomainError, /limit must be a whole number/);
      expect(() => runScreener(rows, [], { limit: 2.5 })).to.throw(DomainError);
      const bad = { field: 'turnover', dir: 'asc' } as unknown as { field: 'symbol'; dir: 'asc' };
      expect(() => runScreener(rows, [], { sort: bad })).to.throw(DomainError, /sort.field must be one of/);
    });
  });

  describe('metric and category clauses', () => {
    const m = (metrics: Partial<ScreenerMetrics>): ScreenerMetrics => ({ ...NO_METRICS, ...metrics });
    const rows = [
      stock('XOM', {
        sector: 'Energy',
        industry: 'Oil, Gas & Consumable Fuels',
        changepct: 2,
        metrics: m({ volume: 30e6, relvolume: 2.5, gap: 1.5, perf_1M: 10, perf_YTD: -5, high52: -1, low52: 40 }),
      }),
      stock('JPM', {
        sector: 'Financials',
        industry: 'Banks',
        changepct: -1,
        metrics: m({ volume: 10e6, relvolume: 0.8, gap: -0.5, perf_1M: -3, high52: 0.5, low52: 60, pe: 12 }),
      }),
      stock('NEE', {
        sector: 'Utilities',
        industry: 'Electric Utilities',
        metrics: m({ price_vs_sma_50: 4, price_vs_sma_200: -2, pe: 25, eps_growth: 8, div_yield: 3.2, beta: 0.4 }),
      }),
      stock('NVDA', {
        sector: 'Information Technology',
        metrics: m({ price_vs_sma_50: 12, pe: 60, eps_growth: 90, div_yield: 0, beta: 1.8, atr: 6, volatility: 3.5 }),
      }),
      stock('NEW'),
    ];
    const run = (...clauses: unknown[]): string[] => symbols(runScreener(rows, q(...clauses)).rows);

    it('volume and relative volume', () => {
      expect(run({ type: 'volume', op: '>', val: 20e6 })).to.deep.equal(['XOM']);
      expect(run({ type: 'relvolume', op: 'bet', val: [0.8, 2] })).to.deep.equal(['JPM']);
    });

    it('change and gap', () => {
      expect(run({ type: 'changepct', op: '<', val: 0 })).to.deep.equal(['JPM']);
      expect(run({ type: 'gap', op: '>', val: 1 })).to.deep.equal(['XOM']);
    });

    it('performance of a period', () => {
      expect(run({ type: 'perf', param: '1M', op: '>', val: 0 })).to.deep.equal(['XOM']);
      expect(run({ type: 'perf', param: 'YTD', op: '<', val: 0 })).to.deep.equal(['XOM']);
      expect(run({ type: 'perf', param: '1Y', op: '<', val: 1000 })).to.deep.equal([]);
    });

    it('52-week high and low distances', () => {
      expect(run({ type: 'high52', op: '>', val: 0 })).to.deep.equal(['JPM']);
      expect(run({ type: 'low52', op: 'bet', val: [40, 50] })).to.deep.equal(['XOM']);
    });

    it('price against a moving average', () => {
      expect(run({ type: 'price_vs_sma', param: 50, op: '>', val: 4 })).to.deep.equal(['NVDA']);
      expect(run({ type: 'price_vs_sma', param: 50, op: 'bet', val: [0, 4] })).to.deep.equal(['NEE']);
      expect(run({ type: 'price_vs_sma', param: 200, op: '<', val: 0 })).to.deep.equal(['NEE']);
    });

    it('fundamentals: P/E, EPS growth, dividend yield', () => {
      expect(run({ type: 'pe', op: '<', val: 30 })).to.deep.equal(['JPM', 'NEE']);
      expect(run({ type: 'eps_growth', op: '>', val: 50 })).to.deep.equal(['NVDA']);
      expect(run({ type: 'div_yield', op: '>', val: 0 })).to.deep.equal(['NEE']);
      expect(run({ type: 'div_yield', op: 'bet', val: [0, 0] })).to.deep.equal(['NVDA']);
    });

    it('risk: beta, ATR and volatility', () => {
      expect(run({ type: 'beta', op: '<', val: 1 })).to.deep.equal(['NEE']);
      expect(run({ type: 'atr', op: '>', val: 5 })).to.deep.equal(['NVDA']);
      expect(run({ type: 'volatility', op: 'bet', val: [3.5, 10] })).to.deep.equal(['NVDA']);
    });

    it('sector is, or is not, a value', () => {
      expect(run({ type: 'sector', op: '=', val: 'Energy' })).to.deep.equal(['XOM']);
      expect(run({ type: 'sector', op: 'not_like', val: 'Industrials' })).to.deep.equal(['JPM', 'NEE', 'NVDA', 'XOM']);
    });

    it('industry without regard to case; an unknown industry is never equal', () => {
      expect(run({ type: 'industry', op: '=', val: 'banks' })).to.deep.equal(['JPM']);
      expect(run({ type: 'industry', op: 'not_like', val: 'Banks' })).to.deep.equal(['NEE', 'NEW', 'NVDA', 'XOM']);
    });

    it('a missing metric never holds, whatever the operator', () => {
      for (const clause of [
        { type: 'pe', op: '>', val: -1e9 },
        { type: 'pe', op: '<', val: 1e9 },
        { type: 'pe', op: 'bet', val: [-1e9, 1e9] },
      ]) {
        expect(run(clause)).to.not.include('NEW');
      }
    });

    it('combines clauses, most selective first, with the same answer', () => {
      const clauses = [
        { type: 'sector', op: 'not_like', val: 'Energy' },
        { type: 'pe', op: '<', val: 50 },
        { type: 'perf', param: '1M', op: '<', val: 0 },
      ];
      expect(run(...clauses)).to.deep.equal(['JPM']);
      expect(run(...[...clauses].reverse())).to.deep.equal(['JPM']);
      const compiled = compileQuery(q(...clauses));
      expect(rows.filter(compiled).map((r) => r.symbol)).to.deep.equal(['JPM']);
    });

    it('sorts by a metric, missing values last', () => {
      const answer = runScreener(rows, [], { sort: { field: 'pe', dir: 'desc' } });
      expect(symbols(answer.rows)).to.deep.equal(['NVDA', 'NEE', 'JPM', 'NEW', 'XOM']);
    });
  });

  describe('signal presets', () => {
    const m = (metrics: Partial<ScreenerMetrics>): ScreenerMetrics => ({ ...NO_METRICS, ...metrics });
    const rows = [
      stock('UP', { changepct: 3.01, metrics: m({ high52: 0.01, volume: 20_000_001, relvolume: 2.01 }) }),
      stock('EDGE', {
        changepct: 3,
        indicators: { rsi_14: 70 },
        metrics: m({ high52: 0, low52: 0, volatility: 3, volume: 20e6, relvolume: 2, sma_cross: 6 }),
      }),
      stock('DOWN', {
        changepct: -3.5,
        indicators: { rsi_14: 29.9 },
        metrics: m({ low52: -0.2, volatility: 3.2, sma_cross: -5 }),
      }),
      stock('HOT', { indicators: { rsi_14: 70.1 }, metrics: m({ sma_cross: 1 }), patterns: ['hammer'] }),
      stock('COLD', { indicators: { rsi_14: 30 }, metrics: m({ sma_cross: -6 }), patterns: ['bearish_engulfing'] }),
      stock('LATE', { metrics: m({ sma_cross: 5 }) }),
    ];
    const expected: Record<string, string[]> = {
      'Top Gainers': ['UP'],
      'Top Losers': ['DOWN'],
      'New High': ['UP'],
      'New Low': ['DOWN'],
      'Most Volatile': ['DOWN'],
      'Most Active': ['UP'],
      'Unusual Volume': ['UP'],
      Overbought: ['HOT'],
      Oversold: ['DOWN'],
      'Golden Cross': ['HOT', 'LATE'],
      'Death Cross': ['DOWN'],
      Hammer: ['HOT'],
      'Bearish engulfing': ['COLD'],
      Doji: [],
    };
    for (const [name, want] of Object.entries(expected)) {
      it(`${name}: ${want.join(', ') || 'none'}, the boundary left out`, () => {
        const answer = runScreener(rows, preset(name), { sort: { field: 'symbol', dir: 'asc' } });
        expect(symbols(answer.rows)).to.deep.equal([...want].sort());
      });
    }

    it('offers one preset per candlestick pattern', () => {
      for (const name of PATTERN_NAMES) {
        expect(SCREENER_PRESETS.some((p) => p.query.some((c) => c.query.type === `pattern_${name}_`))).to.equal(true);
      }
    });
  });

  it('answers exactly as the naive baseline on varied queries and sorts', () => {
    const rows = universe(300, 11);
    const queries: unknown[][] = [
      [],
      ...SCREENER_PRESETS.map((p) => p.query as unknown[]),
      [
        { type: 'mcap', op: 'like', val: 'large' },
        { type: 'rsi', op: '<', val: 50 },
      ],
      [
        { type: 'close', op: 'bet', val: [50, 150] },
        { type: 'SMA', param: 100, op: '<', val: { ref: 'close' } },
      ],
      [
        { type: 'pattern_doji_', op: 'not_like' },
        { type: 'SMA', param: 20, op: '>', val: { ref: 'SMA', param: 200 } },
      ],
      [
        { type: 'mcap', op: 'bet', val: [1e9, 2e11] },
        { type: 'pattern_hammer_', op: '>', val: 0 },
      ],
      [
        { type: 'sector', op: '=', val: 'Energy' },
        { type: 'perf', param: '3M', op: '>', val: 0 },
        { type: 'price_vs_sma', param: 200, op: 'bet', val: [-10, 40] },
        { type: 'volume', op: '>', val: 5 },
        { type: 'relvolume', op: '<', val: 50 },
      ],
      [
        { type: 'industry', op: 'not_like', val: 'BANKS' },
        { type: 'pe', op: 'bet', val: [0, 30] },
        { type: 'beta', op: '>', val: -5 },
        { type: 'atr', op: '>', val: 1 },
        { type: 'volatility', op: '<', val: 60 },
        { type: 'gap', op: '<', val: 10 },
        { type: 'high52', op: '<', val: 0 },
        { type: 'div_yield', op: '>', val: 0 },
        { type: 'eps_growth', op: '>', val: -20 },
        { type: 'sma_cross', op: 'bet', val: [-40, 60] },
      ],
    ];
    for (const raw of queries) {
      for (const sort of [
        undefined,
        { field: 'changepct', dir: 'asc' },
        { field: 'SMA_50', dir: 'desc' },
        { field: 'capclass', dir: 'asc' },
        { field: 'perf_1M', dir: 'desc' },
        { field: 'industry', dir: 'asc' },
      ] as const) {
        const options = { limit: 40, ...(sort === undefined ? {} : { sort }) };
        expect(runScreener(rows, validateQuery(raw, { allowEmpty: true }), options)).to.deep.equal(
          naiveScreener(rows, raw, options),
        );
      }
    }
  });

  it('lets the naive baseline refuse an invalid query like the validator does', () => {
    expect(() => naiveScreener([stock('A')], [{ type: 'rsi', op: 'like', val: 1 }])).to.throw(
      DomainError,
      /query\[0\]/,
    );
  });
});
