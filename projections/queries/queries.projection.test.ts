import { expect } from 'chai';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../../domain/ids.ts';
import type { QueriesState } from '../../domain/queries/queries.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import type { StoredDocument } from '../projection.ts';
import { applyToDocuments } from '../testing/inMemory.ts';
import { queriesProjection } from './queries.projection.ts';

function apply(events: readonly RecordedEvent[], docs?: Map<string, StoredDocument<QueriesState>>) {
  return applyToDocuments(queriesProjection, events, docs);
}

let commit = 0;
function recorded(type: string, data: unknown, userId = 'ada'): RecordedEvent {
  commit++;
  return {
    id: uuidV5(`event-${commit}`, STOCKPULSE_NAMESPACE),
    type,
    streamId: `queries-${userId}`,
    revision: commit,
    position: { commit, prepare: commit },
    data,
    metadata: { userId },
    created: '2025-03-03T15:00:00.000Z',
  };
}

const Q1 = uuidV5('q1', STOCKPULSE_NAMESPACE);
const Q2 = uuidV5('q2', STOCKPULSE_NAMESPACE);
const clause = { label: 'RSI low', query: { type: 'rsi', param: 14, op: '<', val: 30 } };
const saved = (queryId: string, queryname: string, userId = 'ada') =>
  recorded('QuerySaved', { queryId, queryname, query: [clause], type: 'custom' }, userId);

describe('saved queries projection', () => {
  it("holds each user's saved queries, replaced in place and deleted", async () => {
    const docs = await apply([
      saved(Q1, 'Oversold'),
      saved(Q2, 'Other'),
      recorded('QueryReplaced', { queryId: Q1, queryname: 'OVERSOLD', query: [clause], type: 'screener' }),
      recorded('QueryDeleted', { queryId: Q2 }),
      saved(Q2, 'Mine', 'bob'),
    ]);
    expect((docs.get('ada') as StoredDocument<QueriesState>).value.queries).to.deep.equal([
      { id: Q1, queryname: 'OVERSOLD', query: [clause], type: 'screener' },
    ]);
    expect((docs.get('bob') as StoredDocument<QueriesState>).value.queries.map((q) => q.id)).to.deep.equal([Q2]);
  });

  it('leaves the documents unchanged when the same events come again', async () => {
    const events = [saved(Q1, 'Oversold'), recorded('QueryDeleted', { queryId: Q1 }), saved(Q2, 'Other')];
    const once = await apply(events);
    const snapshot = structuredClone([...once]);
    await apply(events, once);
    expect([...once]).to.deep.equal(snapshot);
  });
});
