import { expect } from 'chai';
import { project, recorded } from '../testing/inMemory.ts';
import { portfolioProjection, type PortfolioDocument } from './portfolio.projection.ts';

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
