import { expect } from 'chai';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import { projectionConsumer, type Projection, type StoredDocument } from '../projection.ts';
import { portfolioProjection, type PortfolioDocument } from './portfolio.projection.ts';

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

describe('portfolio projection', () => {
  const lot = { id: 'l1', date: '2025-03-03', close: 10, position: 1 };
  const events = [
    recorded('ada', 'SymbolAddedToPortfolio', { symbol: 'AAPL' }),
    recorded('bob', 'SymbolAddedToPortfolio', { symbol: 'XOM' }),
    recorded('ada', 'SymbolAddedToPortfolio', { symbol: 'MSFT' }),
    recorded('ada', 'PositionLotAdded', { symbol: 'MSFT', lot }),
    recorded('ada', 'SymbolAddedToPortfolio', { symbol: 'IBM' }),
    recorded('ada', 'PositionLotRemoved', { symbol: 'AAPL', id: 'x' }),
    recorded('ada', 'SymbolRemovedFromPortfolio', { symbol: 'AAPL' }),
  ];

  it("keeps each user's symbols in the order added, without the removed ones", async () => {
    const docs = await project<PortfolioDocument>(portfolioProjection, events);
    expect(docs.get('ada')).to.deep.equal({ symbols: ['MSFT', 'IBM'] });
    expect(docs.get('bob')).to.deep.equal({ symbols: ['XOM'] });
  });

  it('is unchanged by the same events applied twice', async () => {
    const docs = await project<PortfolioDocument>(portfolioProjection, [...events, ...events]);
    expect(docs.get('ada')).to.deep.equal({ symbols: ['MSFT', 'IBM'] });
  });

  it('folds a lot of a symbol it has not seen as an addition, and ignores a malformed event', async () => {
    const docs = await project<PortfolioDocument>(portfolioProjection, [
      recorded('cy', 'PositionLotAdded', { symbol: 'NVDA', lot }),
      recorded('cy', 'SymbolAddedToPortfolio', { symbol: 'NVDA' }),
      recorded('cy', 'SymbolAddedToPortfolio', {}),
    ]);
    expect(docs.get('cy')).to.deep.equal({ symbols: ['NVDA'] });
  });
});
