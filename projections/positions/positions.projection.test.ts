import { expect } from 'chai';
import { project, recorded } from '../testing/inMemory.ts';
import { positionLotsKey, positionLotsProjection, type PositionLotsDocument } from './positions.projection.ts';

describe('position lots projection', () => {
  const lot = (id: string, close = 10.5) => ({ id, date: '2025-03-03', close, position: 2 });
  const events = [
    recorded('ada', 'SymbolAddedToPortfolio', { symbol: 'AAPL' }),
    recorded('ada', 'PositionLotAdded', { symbol: 'AAPL', lot: lot('a') }),
    recorded('ada', 'PositionLotAdded', { symbol: 'AAPL', lot: lot('b', 11) }),
    recorded('ada', 'PositionLotAdded', { symbol: 'MSFT', lot: lot('m') }),
    recorded('bob', 'PositionLotAdded', { symbol: 'AAPL', lot: lot('z') }),
    recorded('ada', 'PositionLotRemoved', { symbol: 'AAPL', id: 'a' }),
  ];

  it('keeps one document per user and symbol with its lots in the order added', async () => {
    const docs = await project<PositionLotsDocument>(positionLotsProjection, events);
    expect(docs.get(positionLotsKey('ada', 'AAPL'))).to.deep.equal({ symbol: 'AAPL', positions: [lot('b', 11)] });
    expect(docs.get(positionLotsKey('ada', 'MSFT'))).to.deep.equal({ symbol: 'MSFT', positions: [lot('m')] });
    expect(docs.get(positionLotsKey('bob', 'AAPL'))).to.deep.equal({ symbol: 'AAPL', positions: [lot('z')] });
  });

  it('is unchanged by the same events applied twice', async () => {
    const once = await project<PositionLotsDocument>(positionLotsProjection, events);
    const twice = await project<PositionLotsDocument>(positionLotsProjection, [...events, ...events]);
    expect([...twice]).to.deep.equal([...once]);
  });

  it('deletes the document when the last lot goes or the symbol leaves the portfolio', async () => {
    const docs = await project<PositionLotsDocument>(positionLotsProjection, [
      ...events,
      recorded('ada', 'PositionLotRemoved', { symbol: 'AAPL', id: 'b' }),
      recorded('ada', 'SymbolRemovedFromPortfolio', { symbol: 'MSFT' }),
    ]);
    expect(docs.has(positionLotsKey('ada', 'AAPL'))).to.equal(false);
    expect(docs.has(positionLotsKey('ada', 'MSFT'))).to.equal(false);
    expect(docs.has(positionLotsKey('bob', 'AAPL'))).to.equal(true);
  });

  it('ignores a repeated lot id, an absent removal and an event without a user or symbol', async () => {
    const docs = await project<PositionLotsDocument>(positionLotsProjection, [
      recorded('cy', 'PositionLotAdded', { symbol: 'IBM', lot: lot('i') }),
      recorded('cy', 'PositionLotAdded', { symbol: 'IBM', lot: lot('i', 99) }),
      recorded('cy', 'PositionLotRemoved', { symbol: 'XOM', id: 'i' }),
      recorded('cy', 'PositionLotAdded', { lot: lot('j') }),
      { ...recorded('cy', 'PositionLotAdded', { symbol: 'IBM', lot: lot('k') }), metadata: {} },
    ]);
    expect([...docs]).to.deep.equal([[positionLotsKey('cy', 'IBM'), { symbol: 'IBM', positions: [lot('i')] }]]);
  });
});
