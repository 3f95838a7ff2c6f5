import { expect } from 'chai';
import { DomainError, fold } from '../decider.ts';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../ids.ts';
import { MAX_CLAUSES, type LabelledClause } from '../screener/query.ts';
import { given } from '../testing/givenWhenThen.ts';
import {
  DEFAULT_QUERY_TYPE,
  QUERIES_LIMIT,
  QUERYNAME_MAX_LENGTH,
  queriesDecider,
  queryNameFromLabels,
  type QueriesCommand,
  type QueriesEvent,
  type QueryData,
} from './queries.ts';

const idOf = (n: number): string => uuidV5(`query-${n}`, STOCKPULSE_NAMESPACE);
const Q1 = idOf(1);
const Q2 = idOf(2);

const rsiLow: LabelledClause = { label: 'RSI low', query: { type: 'rsi', param: 14, op: '<', val: 30 } };
const belowSma: LabelledClause = {
  label: 'Close below 50-day average',
  query: { type: 'close', op: '<', val: { ref: 'SMA', param: 50 } },
};

const save = (over: Partial<{ queryId: string; queryname: string | null; query: unknown; type: string | null }> = {}) =>
  ({
    type: 'SaveQuery',
    data: { queryId: Q1, queryname: 'Oversold', query: [rsiLow], type: null, ...over },
  }) as QueriesCommand;
const remove = (queryId: string): QueriesCommand => ({ type: 'DeleteQuery', data: { queryId } });
const data = (over: Partial<QueryData> = {}): QueryData => ({
  queryId: Q1,
  queryname: 'Oversold',
  query: [rsiLow],
  type: DEFAULT_QUERY_TYPE,
  ...over,
});
const saved = (over: Partial<QueryData> = {}): QueriesEvent => ({ type: 'QuerySaved', data: data(over) });
const replaced = (over: Partial<QueryData> = {}): QueriesEvent => ({ type: 'QueryReplaced', data: data(over) });
const deleted = (queryId = Q1): QueriesEvent => ({ type: 'QueryDeleted', data: { queryId } });

function refusal(command: QueriesCommand, past: QueriesEvent[] = []): DomainError {
  try {
    queriesDecider.decide(command, fold(queriesDecider, past));
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('the command was accepted');
}

describe('saved queries decider', () => {
  describe('saving a query', () => {
    it('saves a named query with the default type', () => {
      given(queriesDecider).when(save()).then([saved()]);
    });

    it('keeps the type the client names, trimmed', () => {
      given(queriesDecider)
        .when(save({ type: ' screener ' }))
        .then([saved({ type: 'screener' })]);
    });

    it('stores the clauses normalised by the query language', () => {
      given(queriesDecider)
        .when(save({ query: [{ label: 'RSI low', query: { type: 'rsi', op: '<', val: 30 } }] }))
        .then([saved()]);
    });

    it('makes the name from the labels when none is given', () => {
      given(queriesDecider)
        .when(save({ queryname: null, query: [rsiLow, belowSma] }))
        .then([saved({ queryname: 'RSI low and Close below 50-day average', query: [rsiLow, belowSma] })]);
    });

    it('labels a bare clause with its description', () => {
      given(queriesDecider)
        .when(save({ queryname: null, query: [{ type: 'rsi', param: 14, op: '<', val: 30 }] }))
        .then([saved({ queryname: 'RSI(14) < 30', query: [{ label: 'RSI(14) < 30', query: rsiLow.query }] })]);
    });

    it(`cuts a name made from long labels to ${QUERYNAME_MAX_LENGTH} characters`, () => {
      const name = queryNameFromLabels(['a'.repeat(60), 'b'.repeat(60)]);
      expect(name).to.have.length(QUERYNAME_MAX_LENGTH);
      expect(name.endsWith('…')).to.equal(true);
      expect(queryNameFromLabels(['short'])).to.equal('short');
    });

    it('trims the name and accepts one of exactly 80 characters', () => {
      given(queriesDecider)
        .when(save({ queryname: '  Oversold ' }))
        .then([saved()]);
      const long = 'n'.repeat(QUERYNAME_MAX_LENGTH);
      given(queriesDecider)
        .when(save({ queryname: long }))
        .then([saved({ queryname: long })]);
    });

    for (const queryname of ['', '   ', 'n'.repeat(QUERYNAME_MAX_LENGTH + 1), 7 as unknown as string]) {
      it(`refuses the name ${JSON.stringify(queryname).slice(0, 20)}, naming queryname`, () => {
        given(queriesDecider).when(save({ queryname })).thenError('invalid_queryname');
        expect(refusal(save({ queryname })).field).to.equal('queryname');
      });
    }

    it('refuses a type that is empty or too long', () => {
      given(queriesDecider)
        .when(save({ type: '' }))
        .thenError('invalid_type');
      given(queriesDecider)
        .when(save({ type: 't'.repeat(41) }))
        .thenError('invalid_type');
    });

    it('refuses an invalid clause with the query language message naming the clause', () => {
      const bad = save({ query: [rsiLow, { label: 'odd', query: { type: 'rsi', param: 14, op: 'like', val: 3 } }] });
      given(queriesDecider).when(bad).thenError('invalid_query');
      const error = refusal(bad);
      expect(error.message).to.match(/^query\[1\] \(label "odd"\): op must be one of/);
      expect(error.field).to.equal('query[1].query.op');
    });

    it(`refuses an empty query and one of more than ${MAX_CLAUSES} clauses`, () => {
      given(queriesDecider)
        .when(save({ query: [] }))
        .thenError('empty');
      given(queriesDecider)
        .when(save({ query: Array.from({ length: MAX_CLAUSES + 1 }, () => rsiLow) }))
        .thenError('limit');
      given(queriesDecider)
        .when(save({ query: Array.from({ length: MAX_CLAUSES }, () => rsiLow) }))
        .then([saved({ query: Array.from({ length: MAX_CLAUSES }, () => rsiLow) })]);
    });

    it('refuses a query that is not a list', () => {
      given(queriesDecider)
        .when(save({ query: 'rsi < 30' }))
        .thenError('invalid_query');
    });

    it('refuses an id that is not a UUID', () => {
      given(queriesDecider)
        .when(save({ queryId: 'q1' }))
        .thenError('invalid_id');
    });

    it(`holds up to exactly ${QUERIES_LIMIT} queries and refuses one more`, () => {
      const past = (count: number) =>
        Array.from({ length: count }, (_, i) => saved({ queryId: idOf(100 + i), queryname: `q${i}` }));
      given(queriesDecider, past(QUERIES_LIMIT - 1))
        .when(save())
        .then([saved()]);
      given(queriesDecider, past(QUERIES_LIMIT)).when(save()).thenError('limit');
    });
  });

  describe('saving under a name already used', () => {
    it('replaces that query, which keeps its id', () => {
      given(queriesDecider, [saved()])
        .when(save({ queryId: Q2, query: [belowSma] }))
        .then([replaced({ query: [belowSma] })]);
    });

    it('matches the name regardless of case and spaces, taking the new spelling', () => {
      given(queriesDecider, [saved()])
        .when(save({ queryId: Q2, queryname: ' OVERSOLD ' }))
        .then([replaced({ queryname: 'OVERSOLD' })]);
    });

    it('decides nothing when the query saved is the same', () => {
      given(queriesDecider, [saved()])
        .when(save({ queryId: Q2 }))
        .thenNothing();
    });

    it('replaces even when the user holds the most queries allowed', () => {
      const full = Array.from({ length: QUERIES_LIMIT - 1 }, (_, i) =>
        saved({ queryId: idOf(100 + i), queryname: `q${i}` }),
      );
      given(queriesDecider, [...full, saved()])
        .when(save({ queryId: Q2, type: 'screener' }))
        .then([replaced({ type: 'screener' })]);
    });

    it('refuses a new name with an id already taken', () => {
      given(queriesDecider, [saved()])
        .when(save({ queryname: 'Other' }))
        .thenError('taken');
    });
  });

  describe('deleting a query', () => {
    it('deletes a saved query', () => {
      given(queriesDecider, [saved(), saved({ queryId: Q2, queryname: 'b' })])
        .when(remove(Q2))
        .then([deleted(Q2)]);
    });

    it('refuses a query that does not exist or was already deleted', () => {
      given(queriesDecider).when(remove(Q1)).thenError('not_found');
      given(queriesDecider, [saved(), deleted()]).when(remove(Q1)).thenError('not_found');
    });

    it('frees the name for a new query', () => {
      given(queriesDecider, [saved(), deleted()])
        .when(save({ queryId: Q2 }))
        .then([saved({ queryId: Q2 })]);
    });
  });

  it('refuses a command type it does not know', () => {
    const unknown = { type: 'RenameQuery', data: {} } as unknown as QueriesCommand;
    given(queriesDecider).when(unknown).thenError('unknown_command');
  });

  describe('evolve', () => {
    it('keeps queries in the order first saved, replacing in place', () => {
      const state = fold(queriesDecider, [
        saved(),
        saved({ queryId: Q2, queryname: 'b' }),
        replaced({ query: [belowSma] }),
      ]);
      expect(state.queries.map((q) => q.id)).to.deep.equal([Q1, Q2]);
      expect(state.queries[0]).to.deep.equal({
        id: Q1,
        queryname: 'Oversold',
        query: [belowSma],
        type: DEFAULT_QUERY_TYPE,
      });
    });

    it('is total: events about absent queries and repeated saves leave the state as it is', () => {
      const state = fold(queriesDecider, [saved()]);
      expect(fold(queriesDecider, [saved(), replaced({ queryId: Q2 }), deleted(Q2)], state)).to.deep.equal(state);
    });

    it('ignores an event type it does not know', () => {
      const unknown = { type: 'QueryRenamed', data: {} } as unknown as QueriesEvent;
      const state = fold(queriesDecider, [saved()]);
      expect(queriesDecider.evolve(state, unknown)).to.equal(state);
    });
  });
});
