import { expect } from 'chai';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import { projectionConsumer, type Projection, type StoredDocument } from '../projection.ts';
import { companyStatsProjection } from './companystats.projection.ts';

let position = 0;
function recorded(userId: string, type: string, data: unknown): RecordedEvent {
  position++;
  return {
    id: `e${position}`,
    type,
    streamId: `portfolio-${userId}`,
    revision: position,
    position: { commit: position, prepare: position },
    data,
    metadata: { userId },
    created: '2025-03-10T15:00:00.000Z',
  };
}
async function project<D>(projection: Projection<D>, events: readonly RecordedEvent[]): Promise<Map<string, D>> {
  const docs = new Map<string, StoredDocument<D>>();
  const consumer = projectionConsumer(projection);
  const tx = {
    get: <T>(_collection: string, key: string) => Promise.resolve(docs.get(key) as T | undefined),
    put: (_collection: string, key: string, doc: unknown) => void docs.set(key, doc as StoredDocument<D>),
    delete: (_collection: string, key: string) => void docs.delete(key),
  };
  for (const event of events) {
    if (projection.handles.includes(event.type)) await consumer.handle(event, tx);
  }
  return new Map([...docs].map(([key, stored]) => [key, stored.value]));
}

describe('company stats projection', () => {
  it("folds each user's statistics with the decider's evolve, unchanged by the same events twice", async () => {
    const events = [
      recorded('ada', 'CompanyStatAdded', { type: 'revenue', limit: 0, period: 'A' }),
      recorded('ada', 'CompanyStatAdded', { type: 'income', limit: 0, period: 'A' }),
      recorded('bob', 'CompanyStatAdded', { type: 'income', limit: 3, period: 'Q' }),
      recorded('ada', 'CompanyStatModified', { type: 'revenue', limit: 8, period: 'Q' }),
      recorded('ada', 'CompanyStatsReordered', { types: ['income', 'revenue'] }),
      recorded('ada', 'CompanyStatAdded', { type: 'grossprofit', limit: 1, period: 'A' }),
      recorded('ada', 'CompanyStatRemoved', { type: 'income' }),
    ];
    for (const run of [events, [...events, ...events]]) {
      const docs = await project(companyStatsProjection, run);
      expect(docs.get('ada')).to.deep.equal({
        stats: [
          { type: 'revenue', limit: 8, period: 'Q' },
          { type: 'grossprofit', limit: 1, period: 'A' },
        ],
      });
      expect(docs.get('bob')).to.deep.equal({ stats: [{ type: 'income', limit: 3, period: 'Q' }] });
    }
  });
});
