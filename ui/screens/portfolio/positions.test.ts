import { expect } from 'chai';
import { allocation, checkLotForm, lotFigures, portfolioFigures, sumFigures, symbolFigures } from './positions.ts';

const today = '2026-01-05';

describe('portfolio positions', () => {
  it('gives a long lot its cost basis, market value, P&L and P&L %', () => {
    expect(lotFigures({ date: '2025-01-02', close: 100, position: 10 }, 112.5)).to.deep.equal({
      costBasis: 1000,
      marketValue: 1125,
      pnl: 125,
      pnlPct: 12.5,
    });
  });

  it('gives a short lot a profit when the price falls', () => {
    expect(lotFigures({ date: '2025-01-02', close: 100, position: -10 }, 90)).to.deep.equal({
      costBasis: -1000,
      marketValue: -900,
      pnl: 100,
      pnlPct: 10,
    });
  });

  it('has no market figures without a price', () => {
    expect(lotFigures({ date: '2025-01-02', close: 10, position: 3 }, null)).to.deep.equal({
      costBasis: 30,
      marketValue: null,
      pnl: null,
      pnlPct: null,
    });
  });

  it('rounds a lot to the cent as the server does', () => {
    // 0.5 × 201 cents = 100.5 → 101; 0.5 × 303 cents = 151.5 → 152 (domain/portfolio/pnl.ts: cost 1.01, 0.51).
    expect(lotFigures({ date: '2025-01-02', close: 2.01, position: 0.5 }, 3.03)).to.deep.equal({
      costBasis: 1.01,
      marketValue: 1.52,
      pnl: 0.51,
      pnlPct: 50.5,
    });
  });

  it('adds lots up in whole cents, without float noise', () => {
    const lots = [
      { date: '2025-01-02', close: 0.1, position: 1 },
      { date: '2025-01-03', close: 0.2, position: 1 },
    ];
    expect(symbolFigures(lots, 0.35)).to.deep.equal({ costBasis: 0.3, marketValue: 0.7, pnl: 0.4, pnlPct: 133.33 });
  });

  it('counts only priced parts in the market figures of a total', () => {
    const total = sumFigures([
      { costBasis: 1000, marketValue: 1100, pnl: 100, pnlPct: 10 },
      { costBasis: 500, marketValue: null, pnl: null, pnlPct: null },
    ]);
    expect(total).to.deep.equal({ costBasis: 1500, marketValue: 1100, pnl: 100, pnlPct: 10 });
    expect(sumFigures([])).to.deep.equal({ costBasis: 0, marketValue: null, pnl: null, pnlPct: null });
  });

  it('gives the portfolio a P&L % over the cost of its long lots plus the proceeds of its short lots', () => {
    const long = { date: '2025-01-02', close: 100, position: 10 };
    const short = { date: '2025-01-03', close: 150, position: -10 };
    // At 120: the long gains (120 − 100) × 10 = 200, the short (120 − 150) × −10 = 300; 500 in all, over
    // 10 × 100 paid for the long plus 10 × 150 received for the short: 500 / 2,500 = 20%.
    const oneSymbol = portfolioFigures(['AAPL'], { AAPL: [long, short] }, { AAPL: 120 });
    expect(oneSymbol).to.deep.equal({ costBasis: -500, marketValue: 0, pnl: 500, pnlPct: 20 });
    expect(symbolFigures([long, short], 120).pnlPct).to.equal(20);
    // The same lots in two symbols give the same percentage.
    const twoSymbols = portfolioFigures(['AAPL', 'MSFT'], { AAPL: [long], MSFT: [short] }, { AAPL: 120, MSFT: 120 });
    expect(twoSymbols.pnlPct).to.equal(20);
    // A symbol without a price counts in the cost basis only.
    const unpriced = portfolioFigures(['AAPL', 'MSFT'], { AAPL: [long], MSFT: [short] }, { AAPL: 120 });
    expect(unpriced).to.deep.equal({ costBasis: -500, marketValue: 1200, pnl: 200, pnlPct: 20 });
  });

  it('allocates by absolute market value, largest first, skipping symbols without lots or price', () => {
    const slices = allocation(
      ['A', 'B', 'C', 'D'],
      {
        A: [{ date: '2025-01-02', close: 10, position: 10 }],
        B: [{ date: '2025-01-02', close: 10, position: -50 }],
        C: [],
        D: [{ date: '2025-01-02', close: 10, position: 1 }],
      },
      { A: 20, B: 10, C: 5 },
    );
    expect(slices).to.deep.equal([
      { symbol: 'B', value: 500 },
      { symbol: 'A', value: 200 },
    ]);
  });

  it('accepts a valid lot and reads it as numbers', () => {
    expect(checkLotForm({ date: '2025-12-31', price: '1,234.50', quantity: '-2.5' }, today)).to.deep.equal({
      lot: { date: '2025-12-31', close: 1234.5, position: -2.5 },
      errors: null,
    });
  });

  it('refuses a decimal comma rather than reading 0,5 as 5 shares', () => {
    expect(checkLotForm({ date: '2025-12-31', price: '182,50', quantity: '0,5' }, today).errors).to.deep.equal({
      price: 'Price: must be a number, e.g. 182.50',
      quantity: 'Quantity: must be a number, e.g. 10',
    });
    expect(checkLotForm({ date: '2025-12-31', price: '1,234.5', quantity: '-1,000' }, today).lot).to.deep.equal({
      date: '2025-12-31',
      close: 1234.5,
      position: -1000,
    });
  });

  it('names every wrong field with a clear message', () => {
    expect(checkLotForm({ date: '', price: '', quantity: '' }, today).errors).to.deep.equal({
      date: 'Date: choose the trade date',
      price: 'Price: enter the price paid per share',
      quantity: 'Quantity: enter the number of shares',
    });
    expect(checkLotForm({ date: '2026-02-30', price: 'abc', quantity: '0' }, today).errors).to.deep.equal({
      date: 'Date: must be a calendar date YYYY-MM-DD',
      price: 'Price: must be a number, e.g. 182.50',
      quantity: 'Quantity: must not be 0 (negative for a short position)',
    });
    expect(checkLotForm({ date: '2026-01-06', price: '1.005', quantity: '1.1234567' }, today).errors).to.deep.equal({
      date: 'Date: must not be in the future',
      price: 'Price: at most 2 decimals (whole cents)',
      quantity: 'Quantity: at most 6 decimals',
    });
    expect(checkLotForm({ date: '1899-12-31', price: '-1', quantity: '2000000000' }, today).errors).to.deep.equal({
      date: 'Date: must be on or after 1900-01-01',
      price: 'Price: must be more than 0',
      quantity: 'Quantity: must be at most 1,000,000,000 shares',
    });
  });

  it('accepts today, the newest date allowed', () => {
    expect(checkLotForm({ date: today, price: '1', quantity: '1' }, today).errors).to.equal(null);
  });
});
