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
    ];
    for (const raw of queries) {
      for (const sort of [
        undefined,
        { field: 'changepct', dir: 'asc' },
        { field: 'SMA_50', dir: 'desc' },
        { field: 'capclass', dir: 'asc' },
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
