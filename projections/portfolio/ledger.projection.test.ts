import { expect } from 'chai';
import { PORTFOLIO_EVENT_TYPES, type PortfolioState } from '../../domain/portfolio/portfolio.ts';
import type { StoredDocument } from '../projection.ts';
import { applyToDocuments, recorded } from '../testing/inMemory.ts';
import { positionLotsKey, positionLotsProjection } from '../positions/positions.projection.ts';
import { ledgerProjection } from './ledger.projection.ts';

const buy = { kind: 'buy', id: 'b', symbol: 'AAPL', date: '2025-03-03', quantity: 10, price: 100, fee: 1 };
const sell = { kind: 'sell', id: 's', symbol: 'AAPL', date: '2025-03-05', quantity: 4, price: 130, fee: 0 };
const closing = {
  transactionId: 's',
  symbol: 'AAPL',
  lotId: 'b',
  openDate: '2025-03-03',
  openPrice: 100,
  closeDate: '2025-03-05',
  closePrice: 130,
  quantity: 4,
  gainCents: 12_000,
};
const events = () => [
  recorded('ada', 'SymbolAddedToPortfolio', { symbol: 'AAPL' }, 'portfolio'),
  recorded(
    'ada',
    'PositionLotAdded',
    { symbol: 'AAPL', lot: { id: 'old', date: '2025-03-01', close: 90, position: 2 } },
    'portfolio',
  ),
  recorded('ada', 'SharesBought', { symbol: 'AAPL', transaction: buy, closings: [], opened: 10 }, 'portfolio'),
  recorded('ada', 'SharesSold', { symbol: 'AAPL', transaction: sell, closings: [closing], opened: 0 }, 'portfolio'),
  recorded(
    'ada',
    'DividendReceived',
    { symbol: 'AAPL', transaction: { kind: 'dividend', id: 'd', symbol: 'AAPL', date: '2025-03-06', amount: 3 } },
    'portfolio',
  ),
  recorded(
    'bob',
    'SharesBought',
    { symbol: 'MSFT', transaction: { ...buy, symbol: 'MSFT' }, closings: [], opened: 10 },
    'portfolio',
  ),
];

describe('portfolio ledger projection', () => {
  it("holds each user's transactions, open lots and closed parts of lots, old lots folded in as buys", async () => {
    const docs = await applyToDocuments(ledgerProjection, events());
    const ada = (docs.get('ada') as StoredDocument<PortfolioState>).value;
    expect(ada.transactions.map((t) => [t.kind, t.id])).to.deep.equal([
      ['buy', 'old'],
      ['buy', 'b'],
      ['sell', 's'],
      ['dividend', 'd'],
    ]);
    expect(ada.lots.AAPL).to.deep.equal([
      { id: 'old', date: '2025-03-01', close: 90, position: 2 },
      { id: 'b', date: '2025-03-03', close: 100, position: 6 },
    ]);
    expect(ada.closings).to.deep.equal([closing]);
    expect((docs.get('bob') as StoredDocument<PortfolioState>).value.symbols).to.deep.equal(['MSFT']);
  });

  it('leaves the documents unchanged when the same events come again', async () => {
    const once = events();
    const docs = await applyToDocuments(ledgerProjection, once);
    const snapshot = structuredClone([...docs]);
    await applyToDocuments(ledgerProjection, once, docs);
    expect([...docs]).to.deep.equal(snapshot);
  });

  it('ignores a trade recorded again under a later position', async () => {
    const first = await applyToDocuments(ledgerProjection, events());
    const again = await applyToDocuments(ledgerProjection, [...events(), ...events()]);
    expect([...again].map(([k, d]) => [k, d.value])).to.deep.equal([...first].map(([k, d]) => [k, d.value]));
  });

  it('keeps the position lots read model in step with trades', async () => {
    const once = events();
    const docs = await applyToDocuments(positionLotsProjection, once);
    await applyToDocuments(positionLotsProjection, once, docs);
    expect(docs.get(positionLotsKey('ada', 'AAPL'))?.value).to.deep.equal({
      symbol: 'AAPL',
      positions: [
        { id: 'old', date: '2025-03-01', close: 90, position: 2 },
        { id: 'b', date: '2025-03-03', close: 100, position: 6 },
      ],
    });
  });

  it('reads every event type of the portfolio', () => {
    expect(ledgerProjection.handles).to.have.members([...PORTFOLIO_EVENT_TYPES]);
  });
});
