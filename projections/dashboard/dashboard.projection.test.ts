import { expect } from 'chai';
import { DEFAULT_DASHBOARD_OPTIONS } from '../../domain/dashboard/options.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import { projectionConsumer, type Projection, type StoredDocument } from '../projection.ts';
import {
  dashboardLayoutProjection,
  dashboardOptionsProjection,
  dashboardStocksProjection,
} from './dashboard.projection.ts';

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

describe('dashboard projections', () => {
  it('fold the layout from the default, per user, and ignore the same events applied twice', async () => {
    const events = [
      recorded('ada', 'DashboardComponentToggled', { layoutId: 1, compId: 4, present: true }),
      recorded('bob', 'DashboardLayoutSaved', { layouts: [{ layoutId: 9, compId: [5] }] }),
      recorded('ada', 'DashboardComponentToggled', { layoutId: 2, compId: 2, present: false }),
    ];
    for (const run of [events, [...events, ...events]]) {
      const docs = await project(dashboardLayoutProjection, run);
      expect(docs.get('ada')).to.deep.equal({
        layouts: [
          { layoutId: 1, compId: [1, 4] },
          { layoutId: 2, compId: [] },
          { layoutId: 3, compId: [3] },
        ],
      });
      expect(docs.get('bob')).to.deep.equal({ layouts: [{ layoutId: 9, compId: [5] }] });
    }
  });

  it('fold the options over the defaults', async () => {
    const docs = await project(dashboardOptionsProjection, [
      recorded('ada', 'DashboardOptionsChanged', { changes: { subheader: 'detailed' } }),
      recorded('ada', 'DashboardOptionsChanged', { changes: { slider: { type: 'Y', val: 1 } } }),
    ]);
    expect(docs.get('ada')).to.deep.equal({
      options: { ...DEFAULT_DASHBOARD_OPTIONS, subheader: 'detailed', slider: { type: 'Y', val: 1 } },
    });
  });

  it('fold the stock list', async () => {
    const docs = await project(dashboardStocksProjection, [
      recorded('ada', 'DashboardStocksSet', { symbols: ['AAPL', 'MSFT'] }),
      recorded('ada', 'DashboardStockAdded', { symbol: 'IBM' }),
    ]);
    expect(docs.get('ada')).to.deep.equal({ symbols: ['AAPL', 'MSFT', 'IBM'] });
  });

  it('each read only the events of their own query', () => {
    const all = [dashboardLayoutProjection, dashboardOptionsProjection, dashboardStocksProjection].flatMap(
      (p) => p.handles,
    );
    expect(new Set(all).size).to.equal(all.length);
  });
});
