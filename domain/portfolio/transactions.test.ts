import { expect } from 'chai';
import fc from 'fast-check';
import { DomainError } from '../decider.ts';
import { fold } from '../decider.ts';
import type { Lot } from '../positions/lots.ts';
import { given } from '../testing/givenWhenThen.ts';
import { portfolioPnl } from './pnl.ts';
import { lotsOf, portfolioDecider, type PortfolioCommand, type PortfolioEvent } from './portfolio.ts';
import {
  OPEN_LOTS_PER_SYMBOL_LIMIT,
  type BuyTransaction,
  type Closing,
  type SellTransaction,
  type Transaction,
  type TransactionFields,
} from './transactions.ts';

const AT = '2025-03-10T15:00:00.000Z';
const record = (...transactions: unknown[]): PortfolioCommand => ({
  type: 'RecordTransactions',
  data: { transactions: transactions as Transaction[], at: AT },
});
const tx = (id: string, fields: TransactionFields): Transaction => ({ id, ...fields });
const buy = (id: string, date: string, quantity: number, price: number, fee = 0): BuyTransaction => ({
  kind: 'buy',
  id,
  symbol: 'AAPL',
  date,
  quantity,
  price,
  fee,
});
const sell = (id: string, date: string, quantity: number, price: number, extra: object = {}): SellTransaction => ({
  kind: 'sell',
  id,
  symbol: 'AAPL',
  date,
  quantity,
  price,
  fee: 0,
  ...extra,
});
const rematched = (symbol: string, lots: Lot[], closings: Closing[]): PortfolioEvent => ({
  type: 'TradesRematched',
  data: { symbol, lots, closings },
});
const added = (symbol: string): PortfolioEvent => ({ type: 'SymbolAddedToPortfolio', data: { symbol } });
const lotAdded = (symbol: string, lot: Lot): PortfolioEvent => ({ type: 'PositionLotAdded', data: { symbol, lot } });
const bought = (t: Transaction, closings: Closing[], opened: number): PortfolioEvent =>
  ({ type: 'SharesBought', data: { symbol: t.symbol, transaction: t, closings, opened } }) as PortfolioEvent;
const sold = (t: Transaction, closings: Closing[], opened: number): PortfolioEvent =>
  ({ type: 'SharesSold', data: { symbol: t.symbol, transaction: t, closings, opened } }) as PortfolioEvent;
const closing = (t: BuyTransaction | SellTransaction, lot: Lot, quantity: number, gainCents: number): Closing => ({
  transactionId: t.id,
  symbol: t.symbol,
  lotId: lot.id,
  openDate: lot.date,
  openPrice: lot.close,
  closeDate: t.date,
  closePrice: t.price,
  quantity,
  gainCents,
});
const lotOf = (t: BuyTransaction | SellTransaction, position = t.quantity): Lot => ({
  id: t.id,
  date: t.date,
  close: t.price,
  position,
});

const b1 = buy('b1', '2025-03-03', 10, 100, 1.5);
const b2 = buy('b2', '2025-03-04', 5, 120);
const held = [added('AAPL'), bought(b1, [], 10), bought(b2, [], 5)];

describe('portfolio transactions', () => {
  describe('buying', () => {
    it('adds the symbol, then opens a long lot with the id of the buy', () => {
      given(portfolioDecider)
        .when(record(b1))
        .then([added('AAPL'), bought(b1, [], 10)]);
    });

    it('covers open short lots first, oldest first, and opens a long lot with the rest', () => {
      const short = { id: 's', date: '2025-03-03', close: 50, position: -4 };
      const cover = buy('c', '2025-03-05', 6, 40);
      // (40 − 50) × −4 = +40.00: the short gained as the price fell.
      given(portfolioDecider, [added('AAPL'), lotAdded('AAPL', short)])
        .when(record(cover))
        .then([bought(cover, [closing(cover, short, -4, 4000)], 2)]);
    });
  });

  describe('selling', () => {
    it('closes long lots first in, first out, with the realized gain of each part', () => {
      const s = sell('s1', '2025-03-05', 12, 130);
      // Lot b1: (130 − 100) × 10 = 300.00; lot b2: (130 − 120) × 2 = 20.00.
      given(portfolioDecider, held)
        .when(record(s))
        .then([sold(s, [closing(s, lotOf(b1), 10, 30_000), closing(s, lotOf(b2), 2, 2_000)], 0)]);
    });

    it('closes the lots it names, in the quantities named', () => {
      const s = sell('s1', '2025-03-05', 3, 110, { lots: [{ id: 'b2', quantity: 3 }] });
      // (110 − 120) × 3 = −30.00.
      given(portfolioDecider, held)
        .when(record(s))
        .then([sold(s, [closing(s, lotOf(b2), 3, -3_000)], 0)]);
    });

    it('closes only lots bought on or before the sale date', () => {
      const s = sell('s1', '2025-03-03', 4, 90);
      given(portfolioDecider, held)
        .when(record(s))
        .then([sold(s, [closing(s, lotOf(b1), 4, -4_000)], 0)]);
    });

    it('opens a short lot with what it sells beyond the long lots', () => {
      const s = sell('s1', '2025-03-05', 17, 100);
      given(portfolioDecider, held)
        .when(record(s))
        .then([sold(s, [closing(s, lotOf(b1), 10, 0), closing(s, lotOf(b2), 5, -10_000)], -2)]);
    });

    it('leaves the rest of a partly sold lot open, and the sold lot closed', () => {
      const s = sell('s1', '2025-03-05', 4, 130);
      const state = fold(portfolioDecider, [...held, sold(s, [closing(s, lotOf(b1), 4, 12_000)], 0)]);
      expect(lotsOf(state, 'AAPL')).to.deep.equal([lotOf(b1, 6), lotOf(b2)]);
      expect(state.transactions.map((t) => t.id)).to.deep.equal(['b1', 'b2', 's1']);
    });

    it('refuses a named lot that is not open, one bought after the sale, and more than is left of it', () => {
      given(portfolioDecider, held)
        .when(record(sell('s', '2025-03-05', 1, 1, { lots: [{ id: 'zz', quantity: 1 }] })))
        .thenError('not_found');
      given(portfolioDecider, held)
        .when(record(sell('s', '2025-03-03', 1, 1, { lots: [{ id: 'b2', quantity: 1 }] })))
        .thenError('invalid_transaction');
      given(portfolioDecider, held)
        .when(record(sell('s', '2025-03-05', 6, 1, { lots: [{ id: 'b2', quantity: 6 }] })))
        .thenError('insufficient');
    });

    it('refuses named lots whose quantities do not add up to the quantity sold, or a lot named twice', () => {
      given(portfolioDecider, held)
        .when(record(sell('s', '2025-03-05', 5, 1, { lots: [{ id: 'b2', quantity: 4 }] })))
        .thenError('invalid_transaction');
      given(portfolioDecider, held)
        .when(
          record(
            sell('s', '2025-03-05', 2, 1, {
              lots: [
                { id: 'b2', quantity: 1 },
                { id: 'b2', quantity: 1 },
              ],
            }),
          ),
        )
        .thenError('invalid_transaction');
    });
  });

  describe('dividends and fees', () => {
    it('records a dividend and a fee of a symbol held', () => {
      const d = tx('d', { kind: 'dividend', symbol: 'AAPL', date: '2025-03-06', amount: 12.5 });
      const f = tx('f', { kind: 'fee', symbol: 'AAPL', date: '2025-03-06', amount: 2 });
      given(portfolioDecider, held)
        .when(record(d, f))
        .then([
          { type: 'DividendReceived', data: { symbol: 'AAPL', transaction: d } },
          { type: 'FeeCharged', data: { symbol: 'AAPL', transaction: f } },
        ] as PortfolioEvent[]);
    });

    it('refuses a dividend of a symbol not in the portfolio, naming the symbol', () => {
      given(portfolioDecider)
        .when(record(tx('d', { kind: 'dividend', symbol: 'MSFT', date: '2025-03-06', amount: 1 })))
        .thenError('not_held');
    });
  });

  describe('recording', () => {
    it('skips transactions whose id is recorded already, so the same file twice adds nothing', () => {
      given(portfolioDecider, held).when(record(b1, b2)).thenNothing();
      given(portfolioDecider)
        .when(record(b1, b1))
        .then([added('AAPL'), bought(b1, [], 10)]);
    });

    it('decides each transaction on the state the earlier ones left', () => {
      const s = sell('s', '2025-03-05', 10, 110);
      given(portfolioDecider)
        .when(record(b1, s))
        .then([added('AAPL'), bought(b1, [], 10), sold(s, [closing(s, lotOf(b1), 10, 10_000)], 0)]);
    });

    it('refuses the whole command when one transaction is wrong', () => {
      given(portfolioDecider)
        .when(record(b1, buy('x', '2025-03-30', 1, 1)))
        .thenError('invalid_transaction');
      given(portfolioDecider).when(record()).thenError('empty');
    });

    it('refuses a trade worth more than the largest value, naming its quantity, and takes one worth that much', () => {
      const refusal = (t: Transaction): DomainError => {
        try {
          portfolioDecider.decide(record(t), fold(portfolioDecider, []));
        } catch (error) {
          if (error instanceof DomainError) return error;
          throw error;
        }
        throw new Error('the trade was taken');
      };
      const error = refusal(buy('big', '2025-03-03', 1_000_000_000, 10_000_000));
      expect(error.field).to.match(/\.quantity$/);
      expect(error.message).to.match(/\.quantity 1000000000 at 10000000 is worth more than 10000000000 /);
      expect(refusal(sell('big', '2025-03-03', 1_000_001, 10_000)).field).to.match(/\.quantity$/);
      // Worth exactly the largest value: taken.
      const largest = buy('largest', '2025-03-03', 1_000, 10_000_000);
      expect(portfolioDecider.decide(record(largest), fold(portfolioDecider, [])).map((e) => e.type)).to.include(
        'SharesBought',
      );
    });

    it(`opens at most ${OPEN_LOTS_PER_SYMBOL_LIMIT} lots per symbol through trades`, () => {
      const past = [
        added('AAPL'),
        ...Array.from({ length: OPEN_LOTS_PER_SYMBOL_LIMIT - 1 }, (_, i) =>
          bought(buy(`p${i}`, '2025-03-03', 1, 10), [], 1),
        ),
      ];
      const last = buy('last', '2025-03-04', 1, 10);
      given(portfolioDecider, past)
        .when(record(last))
        .then([bought(last, [], 1)]);
      given(portfolioDecider, [...past, bought(last, [], 1)])
        .when(record(buy('over', '2025-03-04', 1, 10)))
        .thenError('limit');
    });

    const bad: [string, unknown][] = [
      ['an unknown kind', { id: 'x', kind: 'gift', symbol: 'AAPL', date: '2025-03-03' }],
      ['a price in fractions of cents', { ...b1, id: 'x', price: 1.001 }],
      ['a quantity of 0', { ...b1, id: 'x', quantity: 0 }],
      ['a negative fee', { ...b1, id: 'x', fee: -1 }],
      ['a dividend of 0', { id: 'x', kind: 'dividend', symbol: 'AAPL', date: '2025-03-03', amount: 0 }],
      ['a date that is not real', { ...b1, id: 'x', date: '2025-02-30' }],
    ];
    for (const [what, t] of bad) {
      it(`refuses ${what}`, () => {
        given(portfolioDecider, held).when(record(t)).thenError('invalid_transaction');
      });
    }
  });

  describe('trades dated before trades recorded earlier', () => {
    it('match the later sale against the earlier buy: the short it opened becomes a closed long', () => {
      const s = sell('s', '2025-03-05', 10, 130);
      const b = buy('b', '2025-03-03', 10, 100);
      // Recorded alone the buy would open a lot beside the short; matched oldest first, the sale closes it:
      // (130 − 100) × 10 = 300.00 realized, nothing open.
      given(portfolioDecider, [added('AAPL'), sold(s, [], -10)])
        .when(record(b))
        .then([bought(b, [], 10), rematched('AAPL', [], [closing(s, lotOf(b), 10, 30_000)])]);
    });

    it('move first in, first out: a sale dated before a recorded sale takes the oldest lot', () => {
      const s1 = sell('s1', '2025-03-06', 10, 130);
      const s0 = sell('s0', '2025-03-05', 5, 110);
      const history = [...held, sold(s1, [closing(s1, lotOf(b1), 10, 30_000)], 0)];
      // Oldest first: s0 closes 5 of b1 at 110 (+50.00); s1 the other 5 of b1 (+150.00) and b2 (+50.00).
      given(portfolioDecider, history)
        .when(record(s0))
        .then([
          sold(s0, [closing(s0, lotOf(b2), 5, -5_000)], 0),
          rematched(
            'AAPL',
            [],
            [closing(s0, lotOf(b1), 5, 5_000), closing(s1, lotOf(b1, 5), 5, 15_000), closing(s1, lotOf(b2), 5, 5_000)],
          ),
        ]);
    });

    it('record nothing more when matching oldest first closes the same parts', () => {
      const b0 = buy('b0', '2025-03-01', 3, 90);
      given(portfolioDecider, held)
        .when(record(b0))
        .then([bought(b0, [], 3)]);
    });

    it('are refused, naming the date, when a later sale would no longer find the lot it named', () => {
      const s1 = sell('s1', '2025-03-06', 10, 130, { lots: [{ id: 'b1', quantity: 10 }] });
      const history = [...held, sold(s1, [closing(s1, lotOf(b1), 10, 30_000)], 0)];
      const refusal = refusalOf(history, record(sell('s0', '2025-03-05', 5, 110)));
      expect(refusal.field).to.equal('transactions[0].date');
      expect(refusal.message).to.match(/^transactions\[0\]\.date 2025-03-05 comes before a trade of AAPL/);
      expect(refusal.code).to.equal('conflict');
      expect(refusal.message).to.equal(
        'transactions[0].date 2025-03-05 comes before a trade of AAPL it would change: the sale of 10 shares on ' +
          '2025-03-06 sells by name the lot bought on 2025-03-03, which this trade would take first; date this trade ' +
          'on or after 2025-03-06, or name the lots it sells',
      );
    });

    it('are refused, naming the date, when lots were changed by hand in a way the trades do not retell', () => {
      const s1 = sell('s1', '2025-03-05', 4, 130);
      const history: PortfolioEvent[] = [
        ...held,
        sold(s1, [closing(s1, lotOf(b1), 4, 12_000)], 0),
        { type: 'PositionLotRemoved', data: { symbol: 'AAPL', id: 'b1' } },
      ];
      const refusal = refusalOf(history, record(buy('b0', '2025-03-01', 1, 90)));
      expect(refusal.code).to.equal('invalid_transaction');
      expect(refusal.field).to.equal('transactions[0].date');
      // In date order the same trades are recorded as they come.
      given(portfolioDecider, history)
        .when(record(buy('b9', '2025-03-09', 1, 90)))
        .then([bought(buy('b9', '2025-03-09', 1, 90), [], 1)]);
    });

    it('leave the lots and realized gains that recording in date order leaves, in whatever order they come', () => {
      const trade = fc.record({
        day: fc.integer({ min: 1, max: 28 }),
        sell: fc.boolean(),
        quantity: fc.integer({ min: 1, max: 20 }),
        price: fc.integer({ min: 50, max: 150 }),
        key: fc.double({ min: 0, max: 1, noNaN: true }),
      });
      // One trade a day: trades of one date are matched in the order recorded, so only those of different days
      // can come in any order.
      const days = fc.uniqueArray(trade, { selector: (t) => t.day, minLength: 1, maxLength: 12 });
      fc.assert(
        fc.property(days, (specs) => {
          const trades = specs.map((t) => {
            const date = `2025-02-${String(t.day).padStart(2, '0')}`;
            return t.sell ? sell(`t${t.day}`, date, t.quantity, t.price) : buy(`t${t.day}`, date, t.quantity, t.price);
          });
          const keyOf = new Map(specs.map((t) => [`t${t.day}`, t.key]));
          const dated = [...trades].sort((x, y) => (x.date < y.date ? -1 : 1));
          const shuffled = [...trades].sort((x, y) => keyOf.get(x.id)! - keyOf.get(y.id)!);
          const inDateOrder = summary(recordOneByOne(dated));
          expect(summary(recordOneByOne(shuffled))).to.deep.equal(inDateOrder);
          expect(
            summary(
              fold(portfolioDecider, portfolioDecider.decide(record(...shuffled), portfolioDecider.initialState)),
            ),
          ).to.deep.equal(inDateOrder);
        }),
        { numRuns: 300 },
      );
    });
  });

  describe('removing a lot by hand', () => {
    const remove = (lot: { id: string } | object): PortfolioCommand => ({
      type: 'RemovePositionLot',
      data: { symbol: 'AAPL', lot: lot as { id: string } },
    });

    it('takes out a lot none of which was sold, with the trade that opened it', () => {
      given(portfolioDecider, held)
        .when(remove({ id: 'b2' }))
        .then([{ type: 'PositionLotRemoved', data: { symbol: 'AAPL', id: 'b2' } }]);
      const state = fold(portfolioDecider, [
        ...held,
        { type: 'PositionLotRemoved', data: { symbol: 'AAPL', id: 'b2' } },
      ]);
      expect(state.transactions.map((t) => t.id)).to.deep.equal(['b1']);
    });

    it('is refused (409) for a lot part of which was sold, naming the lot and what closes it', () => {
      const s1 = sell('s1', '2025-03-05', 4, 130);
      const s2 = sell('s2', '2025-03-06', 1, 131);
      const history = [...held, sold(s1, [closing(s1, lotOf(b1), 4, 12_000)], 0)];
      const after = [...history, sold(s2, [closing(s2, lotOf(b1, 6), 1, 3_100)], 0)];
      const byId = refusalOf(after, remove({ id: 'b1' }));
      expect([byId.code, byId.field]).to.deep.equal(['conflict', 'lot.id']);
      expect(byId.message).to.equal(
        'lot.id: 5 shares of the 2025-03-03 lot of AAPL were sold, the last on 2025-03-06; record a sale of the 5 ' +
          'left to close it, or remove AAPL with its transactions',
      );
      const byFields = refusalOf(history, remove({ date: '2025-03-03', close: 100, position: 6 }));
      expect([byFields.code, byFields.field]).to.deep.equal(['conflict', 'lot']);
      expect(byFields.message).to.match(/^lot: 4 shares of the 2025-03-03 lot of AAPL were sold, .* of the 6 left/);
    });

    it('is refused for a short lot partly bought back, telling to record a purchase', () => {
      const s0 = sell('s0', '2025-03-03', 3, 100);
      const b = buy('bb', '2025-03-04', 1, 90);
      const history = [added('AAPL'), sold(s0, [], -3), bought(b, [closing(b, lotOf(s0, -3), -1, 1_000)], 0)];
      const refusal = refusalOf(history, remove({ id: 's0' }));
      expect(refusal.message).to.equal(
        'lot.id: 1 share of the 2025-03-03 lot of AAPL was bought back, the last on 2025-03-04; record a purchase ' +
          'of the 2 left to close it, or remove AAPL with its transactions',
      );
    });
    it('is refused for a short lot opened by a sale that also sold the shares held, naming both parts', () => {
      const s1 = sell('s1', '2025-03-05', 13, 130);
      const history = [added('AAPL'), bought(b1, [], 10), sold(s1, [closing(s1, lotOf(b1), 10, 30_000)], -3)];
      const refusal = refusalOf(history, remove({ id: 's1' }));
      expect([refusal.code, refusal.field]).to.deep.equal(['conflict', 'lot.id']);
      expect(refusal.message).to.equal(
        'lot.id: the 2025-03-05 lot of AAPL (short 3) was opened by a sale that also sold 10 shares of earlier lots; ' +
          'record a purchase of the 3 to close it, or remove AAPL with its transactions',
      );
    });

    it('is refused for a long lot opened by a purchase that also bought back a short, by its fields too', () => {
      const s0 = sell('s0', '2025-03-03', 10, 100);
      const b = buy('bb', '2025-03-04', 15, 90);
      const history = [added('AAPL'), sold(s0, [], -10), bought(b, [closing(b, lotOf(s0, -10), -10, 10_000)], 5)];
      const refusal = refusalOf(history, remove({ date: '2025-03-04', close: 90, position: 5 }));
      expect([refusal.code, refusal.field]).to.deep.equal(['conflict', 'lot']);
      expect(refusal.message).to.equal(
        'lot: the 2025-03-04 lot of AAPL (long 5) was opened by a purchase that also bought back 10 shares of ' +
          'earlier lots; record a sale of the 5 to close it, or remove AAPL with its transactions',
      );
    });
  });

  describe('old lots', () => {
    it('fold into the transactions as a buy, or a sell for a short lot, and sell like any lot', () => {
      const long = { id: 'l', date: '2025-03-03', close: 10, position: 3 };
      const short = { id: 'k', date: '2025-03-03', close: 20, position: -1 };
      const state = fold(portfolioDecider, [added('IBM'), lotAdded('IBM', long), lotAdded('IBM', short)]);
      expect(state.transactions).to.deep.equal([
        { kind: 'buy', id: 'l', symbol: 'IBM', date: '2025-03-03', quantity: 3, price: 10, fee: 0 },
        { kind: 'sell', id: 'k', symbol: 'IBM', date: '2025-03-03', quantity: 1, price: 20, fee: 0 },
      ]);
      const s = { ...sell('s', '2025-03-04', 2, 12), symbol: 'IBM' };
      given(portfolioDecider, [added('IBM'), lotAdded('IBM', long), lotAdded('IBM', short)])
        .when(record(s))
        .then([sold(s, [closing(s, long, 2, 400)], 0)]);
    });
  });

  describe('profit and loss', () => {
    it('sums realized, unrealized, dividends and fees per lot, per symbol and in total', () => {
      const s = sell('s1', '2025-03-05', 12, 130, { fee: 1 });
      const d = tx('d', { kind: 'dividend', symbol: 'AAPL', date: '2025-03-06', amount: 5 });
      const state = fold(portfolioDecider, [
        ...held,
        sold(s, [closing(s, lotOf(b1), 10, 30_000), closing(s, lotOf(b2), 2, 2_000)], 0),
        { type: 'DividendReceived', data: { symbol: 'AAPL', transaction: d } } as PortfolioEvent,
        added('MSFT'),
        lotAdded('MSFT', { id: 'm', date: '2025-03-03', close: 50, position: -2 }),
      ]);
      const pnl = portfolioPnl(state, { AAPL: 125.5 });
      // AAPL: 3 left of b2 at 120 → cost 360, value 376.50, unrealized 16.50; realized 320; fees 1.50 + 1.
      expect(pnl.lots).to.deep.equal([
        {
          symbol: 'AAPL',
          id: 'b2',
          date: '2025-03-04',
          price: 120,
          quantity: 3,
          cost: 360,
          value: 376.5,
          unrealized: 16.5,
        },
        {
          symbol: 'MSFT',
          id: 'm',
          date: '2025-03-03',
          price: 50,
          quantity: -2,
          cost: -100,
          value: null,
          unrealized: null,
        },
      ]);
      expect(pnl.symbols[0]).to.deep.equal({
        symbol: 'AAPL',
        quantity: 3,
        cost: 360,
        value: 376.5,
        unrealized: 16.5,
        realized: 320,
        dividends: 5,
        fees: 2.5,
        total: 339,
      });
      expect(pnl.total.realized).to.equal(320);
      expect(pnl.total.total).to.equal(339);
    });

    it('counts a short lot as gaining when the price falls', () => {
      const state = fold(portfolioDecider, [
        added('MSFT'),
        lotAdded('MSFT', { id: 'm', date: '2025-03-03', close: 50, position: -2 }),
      ]);
      expect(portfolioPnl(state, { MSFT: 45 }).symbols[0]!.unrealized).to.equal(10);
    });
  });
});

/** The refusal a command meets after a history. */
function refusalOf(history: readonly PortfolioEvent[], command: PortfolioCommand): DomainError {
  try {
    portfolioDecider.decide(command, fold(portfolioDecider, history));
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  return expect.fail('expected a refusal');
}

/** The state after recording each trade by a command of its own, in the order given. */
function recordOneByOne(trades: readonly Transaction[]) {
  let state = portfolioDecider.initialState;
  for (const t of trades) {
    for (const event of portfolioDecider.decide(record(t), state)) state = portfolioDecider.evolve(state, event);
  }
  return state;
}

/** A state's open lots and closed parts, each sorted, to compare states reached in different orders. */
function summary(state: ReturnType<typeof recordOneByOne>) {
  const lots = lotsOf(state, 'AAPL').map((l) => `${l.id} ${l.date} ${l.close} ${l.position}`);
  const closed = state.closings.map((c) => `${c.transactionId} ${c.lotId} ${c.quantity} ${c.gainCents}`);
  return { lots: lots.sort(), closings: closed.sort() };
}
