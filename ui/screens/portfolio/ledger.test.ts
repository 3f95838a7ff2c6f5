import { expect } from 'chai';
import {
  checkTransactionForm,
  inRange,
  rangeStart,
  realizedByTransaction,
  sectorAllocation,
  type TransactionForm,
} from './ledger.ts';

const form = (fields: Partial<TransactionForm>): TransactionForm => ({
  kind: 'buy',
  symbol: 'aapl',
  date: '2024-01-02',
  quantity: '10',
  price: '100.5',
  fee: '',
  amount: '',
  lots: null,
  ...fields,
});

describe('portfolio transactions panel arithmetic', () => {
  it('starts each range where it should', () => {
    expect(rangeStart('1M', '2025-03-31')).to.equal('2025-03-03');
    expect(rangeStart('3M', '2025-02-24')).to.equal('2024-11-24');
    expect(rangeStart('YTD', '2025-02-24')).to.equal('2025-01-01');
    expect(rangeStart('1Y', '2025-02-24')).to.equal('2024-02-24');
    expect(rangeStart('All', '2025-02-24')).to.equal(null);
  });

  it('restarts the returns of a range at 0 on its first day', () => {
    const series = {
      benchmark: 'EW',
      dates: ['2024-12-30', '2025-01-02', '2025-01-03'],
      value: [1, 2, 3],
      twr: [0, 10, 21],
      benchmarkReturn: [null, 0, -50],
    };
    // YTD starts on 2025-01-02: (1.21 / 1.10 − 1) = 10%; the benchmark (0.5 / 1 − 1) = −50%.
    expect(inRange(series, 'YTD')).to.deep.equal({
      benchmark: 'EW',
      dates: ['2025-01-02', '2025-01-03'],
      value: [2, 3],
      twr: [0, 10],
      benchmarkReturn: [0, -50],
    });
    expect(inRange(series, 'All').twr).to.deep.equal([0, 10, 21]);
  });

  it('allocates the absolute market value of the priced lots by sector', () => {
    const lot = (symbol: string, value: number | null) => ({
      symbol,
      id: symbol,
      date: '',
      price: 1,
      quantity: 1,
      cost: 1,
      value,
      unrealized: 0,
    });
    const pnl = {
      lots: [lot('AAPL', 300), lot('MSFT', 100), lot('KO', -250), lot('XOM', null)],
      symbols: [],
      total: {} as never,
    };
    const sectors: Record<string, string> = {
      AAPL: 'Information Technology',
      MSFT: 'Information Technology',
      KO: 'Consumer Staples',
    };
    expect(sectorAllocation(pnl, (s) => sectors[s])).to.deep.equal([
      { label: 'Information Technology', value: 400 },
      { label: 'Consumer Staples', value: 250 },
    ]);
  });

  it('sums the realized gain of each trade', () => {
    const closing = (transactionId: string, gainCents: number) => ({
      transactionId,
      symbol: 'A',
      lotId: 'l',
      openDate: '',
      openPrice: 1,
      closeDate: '',
      closePrice: 1,
      quantity: 1,
      gainCents,
    });
    expect(realizedByTransaction({ closings: [closing('s', 150), closing('s', -25), closing('t', 5)] })).to.deep.equal({
      s: 1.25,
      t: 0.05,
    });
  });

  describe('the transaction form', () => {
    it('answers a buy, a sell of chosen lots and a dividend', () => {
      expect(checkTransactionForm(form({}), '2024-01-02').transaction).to.deep.equal({
        kind: 'buy',
        symbol: 'AAPL',
        date: '2024-01-02',
        quantity: 10,
        price: 100.5,
        fee: 0,
      });
      expect(
        checkTransactionForm(form({ kind: 'sell', quantity: '3', lots: { a: '1', b: '2', c: '' } }), '2024-01-02')
          .transaction,
      ).to.deep.include({
        kind: 'sell',
        lots: [
          { id: 'a', quantity: 1 },
          { id: 'b', quantity: 2 },
        ],
      });
      expect(checkTransactionForm(form({ kind: 'dividend', amount: '4.20' }), '2024-01-02').transaction).to.deep.equal({
        kind: 'dividend',
        symbol: 'AAPL',
        date: '2024-01-02',
        amount: 4.2,
      });
    });

    it('takes a commission of 0 however it is written', () => {
      for (const fee of ['0', '0.0', '0.00', ' 0.00 ', '']) {
        expect(checkTransactionForm(form({ fee }), '2024-01-02').transaction, fee).to.deep.include({ fee: 0 });
      }
      expect(checkTransactionForm(form({ fee: '1.50' }), '2024-01-02').transaction).to.deep.include({ fee: 1.5 });
      expect(checkTransactionForm(form({ fee: '-0.00' }), '2024-01-02').errors).to.deep.equal({
        fee: 'Enter a commission of 0 or more',
      });
    });

    it('says the largest quantity, price, commission and amount before the server refuses them', () => {
      expect(
        checkTransactionForm(form({ quantity: '2000000000', price: '20000000', fee: '2000000000' }), '2024-01-02')
          .errors,
      ).to.deep.equal({
        quantity: 'Enter a quantity of at most 1,000,000,000',
        price: 'Enter a price of at most 10,000,000.00',
        fee: 'Enter a commission of at most 1,000,000,000.00',
      });
      expect(checkTransactionForm(form({ kind: 'fee', amount: '1000000001' }), '2024-01-02').errors).to.deep.equal({
        amount: 'Enter an amount of at most 1,000,000,000.00',
      });
      expect(checkTransactionForm(form({ quantity: '1000000000' }), '2024-01-02').errors).to.equal(undefined);
    });

    it('reads commas as grouping thousands only: a decimal comma is refused, never read as a whole number', () => {
      expect(
        checkTransactionForm(form({ quantity: '1,250', price: '1,234.50', fee: '1.50' }), '2024-01-02').transaction,
      ).to.deep.include({ quantity: 1250, price: 1234.5, fee: 1.5 });
      expect(
        checkTransactionForm(form({ quantity: '0,5', price: '100,25', fee: '1,5' }), '2024-01-02').errors,
      ).to.have.keys('quantity', 'price', 'fee');
      expect(checkTransactionForm(form({ kind: 'dividend', amount: '4,20' }), '2024-01-02').errors).to.have.keys(
        'amount',
      );
    });

    it('names each wrong field', () => {
      expect(
        checkTransactionForm(
          form({ symbol: '', date: '2024-01-03', quantity: '0', price: 'x', fee: '-1' }),
          '2024-01-02',
        ).errors,
      ).to.have.keys('symbol', 'date', 'quantity', 'price', 'fee');
      expect(
        checkTransactionForm(form({ kind: 'sell', quantity: '3', lots: { a: '1' } }), '2024-01-02').errors,
      ).to.deep.equal({
        lots: 'The lots add up to 1, not 3',
      });
      expect(checkTransactionForm(form({ kind: 'fee', amount: '' }), '2024-01-02').errors).to.have.keys('amount');
    });
  });
});
