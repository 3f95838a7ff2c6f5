import { expect } from 'chai';
import { DomainError } from '../decider.ts';
import { PERF_PERIODS, PLAIN_METRIC_TYPES, PRICE_SMA_PERIODS } from './metrics.ts';
import { PATTERNS, PATTERN_NAMES } from './patterns.ts';
import {
  MAX_CLAUSES,
  MAX_LABEL_LENGTH,
  SCREENER_PRESETS,
  columnKeyOf,
  describeClause,
  validateClause,
  validateQuery,
  type Clause,
} from './query.ts';

/** The refusal of a query, so a test can read its code, message and field. */
function refusal(input: unknown): DomainError {
  try {
    validateQuery(input);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('query was accepted');
}

const labelled = (label: string, query: unknown): unknown => ({ label, query });
const ok = (label: string, query: Clause) => ({ label, query });

describe('screener query language', () => {
  describe('accepts', () => {
    it('the six presets of the spec unchanged, first', () => {
      expect(SCREENER_PRESETS.slice(0, 6).map((p) => p.name)).to.deep.equal([
        'Bullish Patterns',
        'Close below 50-day average',
        '200-day average above 50-day average',
        '200-day average above close',
        '14-day RSI below 30',
        '14-day RSI above 80',
      ]);
      for (const preset of SCREENER_PRESETS) {
        expect(validateQuery(JSON.parse(JSON.stringify(preset.query)))).to.deep.equal(preset.query);
      }
    });

    it('market cap as a number, a range or a class', () => {
      const query = [
        labelled('big', { type: 'mcap', op: '>', val: 10e9 }),
        labelled('band', { type: 'mcap', op: 'bet', val: [2e9, 10e9] }),
        labelled('large', { type: 'mcap', op: 'like', val: 'large' }),
        labelled('not small', { type: 'mcap', op: 'not_like', val: 'small' }),
      ];
      expect(validateQuery(query)).to.deep.equal([
        ok('big', { type: 'mcap', op: '>', val: 10e9 }),
        ok('band', { type: 'mcap', op: 'bet', val: [2e9, 10e9] }),
        ok('large', { type: 'mcap', op: 'like', val: 'large' }),
        ok('not small', { type: 'mcap', op: 'not_like', val: 'small' }),
      ]);
    });

    it('close, SMA and rsi against numbers, ranges and column references', () => {
      const query = [
        labelled('cheap', { type: 'close', op: '<', val: 20 }),
        labelled('sma band', { type: 'SMA', param: 20, op: 'bet', val: [10, 30] }),
        labelled('close over sma', { type: 'close', op: '>', val: { ref: 'SMA', param: 200 } }),
        labelled('rsi', { type: 'rsi', param: 14, op: 'bet', val: [30, 70] }),
      ];
      expect(validateQuery(query)).to.deep.equal([
        ok('cheap', { type: 'close', op: '<', val: 20 }),
        ok('sma band', { type: 'SMA', param: 20, op: 'bet', val: [10, 30] }),
        ok('close over sma', { type: 'close', op: '>', val: { ref: 'SMA', param: 200 } }),
        ok('rsi', { type: 'rsi', param: 14, op: 'bet', val: [30, 70] }),
      ]);
    });

    it('every metric type against numbers and ranges, perf and price_vs_sma with their period', () => {
      for (const type of PLAIN_METRIC_TYPES) {
        expect(validateClause({ type, param: '', op: '>', val: 1.5, extra: true })).to.deep.equal({
          type,
          op: '>',
          val: 1.5,
        });
        expect(validateClause({ type, op: 'bet', val: [0, 2] })).to.deep.equal({ type, op: 'bet', val: [0, 2] });
      }
      for (const param of PERF_PERIODS) {
        expect(validateClause({ type: 'perf', param, op: '<', val: -10 })).to.deep.equal({
          type: 'perf',
          param,
          op: '<',
          val: -10,
        });
      }
      for (const param of PRICE_SMA_PERIODS) {
        expect(validateClause({ type: 'price_vs_sma', param, op: 'bet', val: [-5, 5] })).to.deep.equal({
          type: 'price_vs_sma',
          param,
          op: 'bet',
          val: [-5, 5],
        });
      }
    });

    it('sector and industry with = and not_like, the industry trimmed', () => {
      expect(validateClause({ type: 'sector', op: '=', val: 'Energy' })).to.deep.equal({
        type: 'sector',
        op: '=',
        val: 'Energy',
      });
      expect(validateClause({ type: 'industry', op: 'not_like', val: '  Banks ' })).to.deep.equal({
        type: 'industry',
        op: 'not_like',
        val: 'Banks',
      });
    });

    it('every preset as its own query, the signals after the six', () => {
      expect(SCREENER_PRESETS.slice(6).map((p) => p.name)).to.include.members([
        'Top Gainers',
        'Top Losers',
        'New High',
        'New Low',
        'Most Volatile',
        'Most Active',
        'Unusual Volume',
        'Overbought',
        'Oversold',
        'Golden Cross',
        'Death Cross',
        ...PATTERNS.map((p) => p.label),
      ]);
      expect(new Set(SCREENER_PRESETS.map((p) => p.name)).size).to.equal(SCREENER_PRESETS.length);
    });

    it('rsi without param as the 14-day RSI, and blank params where none is used', () => {
      expect(validateQuery([labelled('rsi', { type: 'rsi', op: '<', val: 30 })])[0]?.query).to.deep.equal({
        type: 'rsi',
        param: 14,
        op: '<',
        val: 30,
      });
      expect(validateQuery([labelled('c', { type: 'close', param: '', op: '>', val: 1 })])[0]?.query).to.deep.equal({
        type: 'close',
        op: '>',
        val: 1,
      });
      expect(validateQuery([labelled('m', { type: 'mcap', param: null, op: '<', val: 1 })])[0]?.query).to.deep.equal({
        type: 'mcap',
        op: '<',
        val: 1,
      });
    });

    it('every known pattern with like and not_like, and > 0 as present', () => {
      for (const name of PATTERN_NAMES) {
        expect(validateClause({ type: `pattern_${name}_`, op: 'like' })).to.deep.equal({
          type: `pattern_${name}_`,
          op: 'like',
          val: null,
        });
      }
      expect(validateClause({ type: 'pattern_hammer_', op: 'not_like', val: 'hammer' })).to.deep.equal({
        type: 'pattern_hammer_',
        op: 'not_like',
        val: null,
      });
      expect(validateClause({ type: 'pattern_doji_', op: '>', val: 0 })).to.deep.equal({
        type: 'pattern_doji_',
        op: '>',
        val: 0,
      });
      expect(validateClause({ type: 'pattern_bullish_', op: 'like', val: null })).to.deep.equal({
        type: 'pattern_bullish_',
        op: 'like',
        val: null,
      });
    });

    it('a bare clause or a clause without label, labelled with its description', () => {
      expect(
        validateQuery([
          { type: 'close', op: '<', val: { ref: 'SMA', param: 50 } },
          { query: { type: 'pattern_bullish_engulfing_', op: 'not_like' } },
        ]),
      ).to.deep.equal([
        ok('Close < SMA(50)', { type: 'close', op: '<', val: { ref: 'SMA', param: 50 } }),
        ok('Bullish engulfing absent', { type: 'pattern_bullish_engulfing_', op: 'not_like', val: null }),
      ]);
    });

    it('describes a clause in the words its column is shown with, never an internal name', () => {
      const described = (clause: unknown) => describeClause(validateClause(clause));
      expect(described({ type: 'mcap', op: 'like', val: 'large' })).to.equal('Market cap is large');
      expect(described({ type: 'mcap', op: 'bet', val: [2e9, 1e10] })).to.equal('Market cap between 2.00B and 10.00B');
      expect(described({ type: 'perf', param: '1M', op: '>', val: 5 })).to.equal('Performance 1M > 5%');
      expect(described({ type: 'price_vs_sma', param: 50, op: '<', val: -3 })).to.equal('Price vs SMA 50 < -3%');
      expect(described({ type: 'div_yield', op: 'bet', val: [2, 6] })).to.equal('Dividend yield between 2% and 6%');
      expect(described({ type: 'pe', op: '<', val: 15 })).to.equal('P/E < 15');
      expect(described({ type: 'industry', op: '=', val: 'Banks' })).to.equal('Industry is Banks');
      expect(described({ type: 'SMA', param: 20, op: '>', val: { ref: 'close' } })).to.equal('SMA(20) > Close');
    });

    it('a long description cut to a label the language takes, so the query answered can be sent again', () => {
      const [labelled] = validateQuery([{ type: 'industry', op: '=', val: 'x'.repeat(98) }]);
      expect(labelled?.label).to.have.length(MAX_LABEL_LENGTH);
      expect(labelled?.label.endsWith('…')).to.equal(true);
      expect(validateQuery([labelled])).to.deep.equal([labelled]);
    });

    it('an empty query only when asked to', () => {
      expect(validateQuery([], { allowEmpty: true })).to.deep.equal([]);
      expect(refusal([]).code).to.equal('empty');
    });

    it('drops keys it does not know and trims labels', () => {
      expect(
        validateQuery([{ label: '  low  ', colour: '#FFFFFF', query: { type: 'close', op: '<', val: 5, x: 1 } }]),
      ).to.deep.equal([ok('low', { type: 'close', op: '<', val: 5 })]);
    });
  });

  describe('refuses, naming the clause', () => {
    const metricCases = [
      {
        why: 'a perf clause of an unknown period',
        query: [labelled('p', { type: 'perf', param: '2W', op: '>', val: 1 })],
        message: 'query[0] (label "p"): param must be one of 1W, 1M, 3M, 6M, YTD, 1Y for perf, got "2W"',
        field: 'query[0].query.param',
      },
      {
        why: 'a price_vs_sma clause of period 100',
        query: [labelled('s', { type: 'price_vs_sma', param: 100, op: '>', val: 1 })],
        message: 'param must be one of 20, 50, 200 for price_vs_sma, got 100',
        field: 'query[0].query.param',
      },
      {
        why: 'a param on a metric without one',
        query: [labelled('v', { type: 'volume', param: 20, op: '>', val: 1 })],
        message: 'param is not used by volume',
        field: 'query[0].query.param',
      },
      {
        why: 'a metric with a category operator',
        query: [labelled('b', { type: 'beta', op: '=', val: 1 })],
        message: 'op must be one of >, <, bet for beta, got "="',
        field: 'query[0].query.op',
      },
      {
        why: 'a metric compared with a text',
        query: [labelled('pe', { type: 'pe', op: '<', val: 'low' })],
        message: 'val must be a number for pe with <, got "low"',
        field: 'query[0].query.val',
      },
      {
        why: 'a negative bound on a metric that cannot be negative',
        query: [labelled('atr', { type: 'atr', op: 'bet', val: [-1, 2] })],
        message: 'val must be at or above 0 for atr ($), got -1',
        field: 'query[0].query.val',
      },
      {
        why: 'an unknown sector',
        query: [labelled('t', { type: 'sector', op: '=', val: 'Tech' })],
        message: 'val must be one of the sectors Communication Services',
        field: 'query[0].query.val',
      },
      {
        why: 'an empty industry',
        query: [labelled('i', { type: 'industry', op: '=', val: '  ' })],
        message: 'val must be an industry name of 1 to 100 characters',
        field: 'query[0].query.val',
      },
      {
        why: 'a category with a comparison',
        query: [labelled('s', { type: 'sector', op: '>', val: 'Energy' })],
        message: 'op must be one of =, not_like for sector, got ">"',
        field: 'query[0].query.op',
      },
      {
        why: 'a param on a category',
        query: [labelled('s', { type: 'industry', param: 1, op: '=', val: 'Banks' })],
        message: 'param is not used by industry',
        field: 'query[0].query.param',
      },
    ];
    const cases: readonly {
      readonly why: string;
      readonly query: unknown;
      readonly message: string;
      readonly field: string;
    }[] = [
      {
        why: 'an operator the type does not take',
        query: [
          labelled('a', { type: 'close', op: '>', val: 1 }),
          labelled('b', { type: 'SMA', param: 50, op: '<', val: 1 }),
          labelled('RSI low', { type: 'rsi', op: 'like', val: 30 }),
        ],
        message: 'query[2] (label "RSI low"): op must be one of >, <, bet for rsi, got "like"',
        field: 'query[2].query.op',
      },
      {
        why: 'an unknown type',
        query: [labelled('x', { type: 'turnover', op: '>', val: 1 })],
        message: 'query[0] (label "x"): type must be one of mcap, close, SMA, rsi, volume, relvolume,',
        field: 'query[0].query.type',
      },
      {
        why: 'an unknown pattern',
        query: [labelled('p', { type: 'pattern_rocket_', op: 'like' })],
        message: 'query[0] (label "p"): type "pattern_rocket_" names no known pattern',
        field: 'query[0].query.type',
      },
      {
        why: 'an SMA period not computed',
        query: [labelled('s', { type: 'SMA', param: 30, op: '>', val: 1 })],
        message: 'query[0] (label "s"): param must be one of 20, 50, 100, 200 for SMA, got 30',
        field: 'query[0].query.param',
      },
      {
        why: 'an SMA without period',
        query: [labelled('s', { type: 'SMA', op: '>', val: 1 })],
        message: 'param must be one of 20, 50, 100, 200 for SMA, got nothing',
        field: 'query[0].query.param',
      },
      {
        why: 'an RSI period not computed',
        query: [labelled('r', { type: 'rsi', param: 7, op: '<', val: 30 })],
        message: 'param must be 14 for rsi',
        field: 'query[0].query.param',
      },
      {
        why: 'a param on close',
        query: [labelled('c', { type: 'close', param: 50, op: '<', val: 1 })],
        message: 'param is not used by close',
        field: 'query[0].query.param',
      },
      {
        why: 'a range that is not two numbers',
        query: [labelled('b', { type: 'close', op: 'bet', val: [1] })],
        message: 'query[0] (label "b"): val must be a range [low, high] of two numbers for bet on close, got [1]',
        field: 'query[0].query.val',
      },
      {
        why: 'a range upside down',
        query: [labelled('b', { type: 'close', op: 'bet', val: [5, 1] })],
        message: 'val [5, 1] must have low <= high',
        field: 'query[0].query.val',
      },
      {
        why: 'a text where a number goes',
        query: [labelled('t', { type: 'close', op: '>', val: '10' })],
        message: 'val must be a number or a column reference {ref, param} for close, got "10" (text, not a number)',
        field: 'query[0].query.val',
      },
      {
        why: 'a period sent as text',
        query: [labelled('r', { type: 'rsi', param: '14', op: '>', val: 50 })],
        message: 'param must be 14 for rsi (the only RSI period computed), got "14" (text, not a number)',
        field: 'query[0].query.param',
      },
      {
        why: 'a number too large for a double',
        query: [labelled('c', { type: 'close', op: '>', val: Infinity })],
        message: 'val must be a number or a column reference {ref, param} for close, got Infinity (too large a number)',
        field: 'query[0].query.val',
      },
      {
        why: 'an RSI level outside 0–100',
        query: [labelled('r', { type: 'rsi', op: '>', val: 120 })],
        message: 'val must be between 0 and 100 for rsi, got 120',
        field: 'query[0].query.val',
      },
      {
        why: 'a negative price',
        query: [labelled('n', { type: 'close', op: '>', val: -1 })],
        message: 'val must be a price at or above 0 for close, got -1',
        field: 'query[0].query.val',
      },
      {
        why: 'a reference to an unknown column',
        query: [labelled('r', { type: 'close', op: '>', val: { ref: 'EMA', param: 12 } })],
        message: 'val.ref must be one of close, SMA, rsi, got "EMA"',
        field: 'query[0].query.val.ref',
      },
      {
        why: 'a reference to an SMA period not computed',
        query: [labelled('r', { type: 'close', op: '>', val: { ref: 'SMA', param: 10 } })],
        message: 'param must be one of 20, 50, 100, 200 for a reference to SMA, got 10',
        field: 'query[0].query.val.param',
      },
      {
        why: "a reference to the clause's own column",
        query: [labelled('r', { type: 'SMA', param: 50, op: '>', val: { ref: 'SMA', param: 50 } })],
        message: "val refers to the clause's own column SMA",
        field: 'query[0].query.val',
      },
      {
        why: 'a price compared with the RSI',
        query: [labelled('r', { type: 'close', op: '>', val: { ref: 'rsi' } })],
        message: 'cannot be compared with close: one is a price, the other the RSI',
        field: 'query[0].query.val',
      },
      {
        why: 'a cap class with >',
        query: [labelled('m', { type: 'mcap', op: '>', val: 'large' })],
        message: 'val must be a number of dollars for mcap with >, got "large" (a cap class takes like or not_like)',
        field: 'query[0].query.val',
      },
      {
        why: 'an unknown cap class',
        query: [labelled('m', { type: 'mcap', op: 'like', val: 'mega' })],
        message: 'val must be one of large, mid, small for mcap with like, got "mega"',
        field: 'query[0].query.val',
      },
      {
        why: 'a pattern with <',
        query: [labelled('p', { type: 'pattern_hammer_', op: '<', val: 1 })],
        message: 'op must be one of like, not_like, > for pattern_hammer_, got "<"',
        field: 'query[0].query.op',
      },
      {
        why: 'a pattern with > and a value other than 0',
        query: [labelled('p', { type: 'pattern_hammer_', op: '>', val: 1 })],
        message: 'val must be 0 for pattern_hammer_ with > (pattern present), got 1',
        field: 'query[0].query.val',
      },
      {
        why: 'an empty label',
        query: [labelled('ok', { type: 'close', op: '>', val: 1 }), labelled('  ', { type: 'close', op: '>', val: 1 })],
        message: 'query[1]: label must be a text of 1 to 100 characters',
        field: 'query[1].label',
      },
      {
        why: 'an item that is not an object',
        query: [42],
        message: 'query[0]: must be a labelled clause {label, query} or a clause {type, param, op, val}, got 42',
        field: 'query[0]',
      },
      {
        why: 'a labelled item without a clause',
        query: [{ label: 'nothing' }],
        message: 'query[0] (label "nothing"): must be a clause {type, param, op, val}, got nothing',
        field: 'query[0].query',
      },
      {
        why: 'a bare clause without type',
        query: [{ op: '>', val: 1 }],
        message: 'query[0]: type must be a text, got nothing',
        field: 'query[0].type',
      },
    ];

    for (const { why, query, message, field } of [...cases, ...metricCases]) {
      it(why, () => {
        const error = refusal(query);
        expect(error.code).to.equal('invalid_query');
        expect(error.message).to.include(message);
        expect(error.field).to.equal(field);
      });
    }

    it('a query that is not a list', () => {
      const error = refusal({ type: 'close', op: '>', val: 1 });
      expect(error.code).to.equal('invalid_query');
      expect(error.message).to.match(/^query must be a list of clauses/);
    });

    it('more clauses than allowed', () => {
      const query = Array.from({ length: MAX_CLAUSES + 1 }, () => labelled('c', { type: 'close', op: '>', val: 1 }));
      expect(refusal(query).code).to.equal('limit');
      expect(() => validateQuery(query.slice(1))).not.to.throw();
    });
  });

  describe('describes clauses', () => {
    it('in a few words each', () => {
      expect(describeClause({ type: 'SMA', param: 200, op: '>', val: { ref: 'close' } })).to.equal('SMA(200) > Close');
      expect(describeClause({ type: 'perf', param: '3M', op: '>', val: 10 })).to.equal('Performance 3M > 10%');
      expect(describeClause({ type: 'relvolume', op: 'bet', val: [1, 2] })).to.equal('Relative volume between 1 and 2');
      expect(describeClause({ type: 'sector', op: 'not_like', val: 'Energy' })).to.equal('Sector is not Energy');
      expect(describeClause({ type: 'rsi', param: 14, op: 'bet', val: [30, 70] })).to.equal(
        'RSI(14) between 30 and 70',
      );
      expect(describeClause({ type: 'mcap', op: '>', val: 10e9 })).to.equal('Market cap > 10.00B');
      expect(describeClause({ type: 'mcap', op: 'not_like', val: 'small' })).to.equal('Market cap is not small');
      expect(describeClause({ type: 'pattern_bullish_', op: '>', val: 0 })).to.equal('Any bullish pattern present');
    });

    it('maps columns to row keys', () => {
      expect(columnKeyOf({ type: 'SMA', param: 50 })).to.equal('SMA_50');
      expect(columnKeyOf({ ref: 'rsi', param: 14 })).to.equal('rsi_14');
      expect(columnKeyOf({ ref: 'close' })).to.equal('close');
    });
  });
});
