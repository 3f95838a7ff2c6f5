import { expect } from 'chai';
import fc from 'fast-check';
import { DomainError, fold } from '../decider.ts';
import { LOTS_PER_SYMBOL_LIMIT, oldestFirst, type Lot, type LotFields } from '../positions/lots.ts';
import { checkFoldAtOnce } from '../testing/foldAtOnce.ts';
import { given } from '../testing/givenWhenThen.ts';
import {
  PORTFOLIO_LIMIT,
  lotsOf,
  portfolioDecider,
  type PortfolioCommand,
  type PortfolioEvent,
  type PortfolioState,
  type RecordTransactions,
} from './portfolio.ts';

const AT = '2025-03-10T15:00:00.000Z';
const add = (...symbols: string[]): PortfolioCommand => ({ type: 'AddSymbolsToPortfolio', data: { symbols } });
const remove = (symbol: string): PortfolioCommand => ({ type: 'RemoveSymbolFromPortfolio', data: { symbol } });
const addLots = (symbol: string, ...lots: Lot[]): PortfolioCommand => ({
  type: 'AddPositionLots',
  data: { symbol, lots, at: AT },
});
const removeLot = (symbol: string, lot: { id: string } | LotFields): PortfolioCommand => ({
  type: 'RemovePositionLot',
  data: { symbol, lot },
});
const added = (symbol: string): PortfolioEvent => ({ type: 'SymbolAddedToPortfolio', data: { symbol } });
const removed = (symbol: string): PortfolioEvent => ({ type: 'SymbolRemovedFromPortfolio', data: { symbol } });
const lotAdded = (symbol: string, lot: Lot): PortfolioEvent => ({ type: 'PositionLotAdded', data: { symbol, lot } });
const lotRemoved = (symbol: string, id: string): PortfolioEvent => ({
  type: 'PositionLotRemoved',
  data: { symbol, id },
});
const lot = (id: string, date = '2025-03-03', close = 100.25, position = 10): Lot => ({ id, date, close, position });
const holdings = (state: PortfolioState) => ({ symbols: state.symbols, lots: state.lots });
const numbered = (count: number): string[] => Array.from({ length: count }, (_, i) => `S${String(i).padStart(4, '0')}`);

describe('portfolio decider', () => {
  describe('adding symbols', () => {
    it('adds symbols in order, normalised, ignoring ones already present and repeats', () => {
      given(portfolioDecider, [added('AAPL')])
        .when(add('msft', 'AAPL', 'MSFT', ' ibm '))
        .then([added('MSFT'), added('IBM')]);
    });

    it('decides nothing when every symbol is present', () => {
      given(portfolioDecider, [added('AAPL')])
        .when(add('aapl'))
        .thenNothing();
    });

    it('refuses an empty list and an invalid symbol', () => {
      given(portfolioDecider).when(add()).thenError('empty');
      given(portfolioDecider).when(add('AAPL', 'A B')).thenError('invalid_symbol');
    });

    it(`holds exactly ${PORTFOLIO_LIMIT} symbols and refuses more`, () => {
      const full = numbered(PORTFOLIO_LIMIT);
      given(portfolioDecider, full.slice(1).map(added))
        .when(add(full[0]!))
        .then([added(full[0]!)]);
      given(portfolioDecider, full.map(added)).when(add('ZZZ')).thenError('limit');
    });
  });

  describe('removing a symbol', () => {
    it('removes a symbol without lots', () => {
      given(portfolioDecider, [added('AAPL'), added('MSFT')])
        .when(remove('aapl'))
        .then([removed('AAPL')]);
    });

    it('removes the lots of the symbol first, then the symbol', () => {
      given(portfolioDecider, [
        added('AAPL'),
        lotAdded('AAPL', lot('a')),
        lotAdded('AAPL', lot('b')),
        lotAdded('MSFT', lot('c')),
      ])
        .when(remove('AAPL'))
        .then([lotRemoved('AAPL', 'a'), lotRemoved('AAPL', 'b'), removed('AAPL')]);
    });

    it('refuses a symbol not in the portfolio with not_found naming the symbol', () => {
      given(portfolioDecider, [added('AAPL')])
        .when(remove('msft'))
        .thenError('not_found');
      expect(() => portfolioDecider.decide(remove('msft'), fold(portfolioDecider, [added('AAPL')])))
        .to.throw('symbol: MSFT is not in the portfolio')
        .with.property('field', 'symbol');
    });

    it('refuses an invalid symbol', () => {
      given(portfolioDecider).when(remove('$')).thenError('invalid_symbol');
    });
  });

  describe('adding lots', () => {
    it('adds the symbol to the portfolio before its first lot', () => {
      given(portfolioDecider)
        .when(addLots('aapl', lot('a'), lot('b', '2025-03-04', 99.1, -2.5)))
        .then([added('AAPL'), lotAdded('AAPL', lot('a')), lotAdded('AAPL', lot('b', '2025-03-04', 99.1, -2.5))]);
    });

    it('adds lots to a symbol already in the portfolio', () => {
      given(portfolioDecider, [added('AAPL'), lotAdded('AAPL', lot('a'))])
        .when(addLots('AAPL', lot('b')))
        .then([lotAdded('AAPL', lot('b'))]);
    });

    it('accepts two lots with the same fields as two lots', () => {
      given(portfolioDecider, [added('AAPL'), lotAdded('AAPL', lot('a'))])
        .when(addLots('AAPL', lot('b'), lot('c')))
        .then([lotAdded('AAPL', lot('b')), lotAdded('AAPL', lot('c'))]);
    });

    it('refuses an id already used by a lot of the symbol or twice in the command', () => {
      given(portfolioDecider, [added('AAPL'), lotAdded('AAPL', lot('a'))])
        .when(addLots('AAPL', lot('a')))
        .thenError('conflict');
      given(portfolioDecider)
        .when(addLots('AAPL', lot('x'), lot('x')))
        .thenError('conflict');
    });

    it(`holds exactly ${LOTS_PER_SYMBOL_LIMIT} lots per symbol and refuses more`, () => {
      const past = [
        added('AAPL'),
        ...Array.from({ length: LOTS_PER_SYMBOL_LIMIT - 1 }, (_, i) => lotAdded('AAPL', lot(`l${i}`))),
      ];
      given(portfolioDecider, past)
        .when(addLots('AAPL', lot('last')))
        .then([lotAdded('AAPL', lot('last'))]);
      given(portfolioDecider, past)
        .when(addLots('AAPL', lot('y'), lot('z')))
        .thenError('limit');
      given(portfolioDecider, past)
        .when(addLots('MSFT', lot('y'), lot('z')))
        .then([added('MSFT'), lotAdded('MSFT', lot('y')), lotAdded('MSFT', lot('z'))]);
    });

    it('refuses a lot for a new symbol when the portfolio is full', () => {
      given(portfolioDecider, numbered(PORTFOLIO_LIMIT).map(added))
        .when(addLots('ZZZ', lot('a')))
        .thenError('limit');
    });

    it('refuses an empty list of lots', () => {
      given(portfolioDecider).when(addLots('AAPL')).thenError('empty');
    });

    it('refuses a bad lot, appending none of the others', () => {
      given(portfolioDecider)
        .when(addLots('AAPL', lot('a'), lot('b', '2025-03-30')))
        .thenError('invalid_lot');
      given(portfolioDecider)
        .when(addLots('AAPL', lot('a', '2025-03-03', 10.001)))
        .thenError('invalid_lot');
      given(portfolioDecider)
        .when(addLots('AAPL', lot('a', '2025-03-03', 10, 0)))
        .thenError('invalid_lot');
      given(portfolioDecider)
        .when(addLots('AAPL', lot('')))
        .thenError('invalid_lot');
    });

    it('judges the date against the time of the command', () => {
      given(portfolioDecider)
        .when({ type: 'AddPositionLots', data: { symbol: 'AAPL', lots: [lot('a', '2025-03-11')], at: AT } })
        .then([added('AAPL'), lotAdded('AAPL', lot('a', '2025-03-11'))]);
      given(portfolioDecider)
        .when({
          type: 'AddPositionLots',
          data: { symbol: 'AAPL', lots: [lot('a', '2025-03-11')], at: '2025-03-10T09:00:00.000Z' },
        })
        .thenError('invalid_lot');
    });

    it('refuses an invalid symbol', () => {
      given(portfolioDecider)
        .when(addLots('no way', lot('a')))
        .thenError('invalid_symbol');
    });
  });

  describe('removing a lot', () => {
    const past = [
      added('AAPL'),
      lotAdded('AAPL', lot('a')),
      lotAdded('AAPL', lot('b', '2025-03-04', 50, -1)),
      lotAdded('AAPL', lot('c')),
    ];

    it('removes a lot named by its id', () => {
      given(portfolioDecider, past)
        .when(removeLot('aapl', { id: 'b' }))
        .then([lotRemoved('AAPL', 'b')]);
    });

    it('removes the oldest lot with the fields given', () => {
      given(portfolioDecider, past)
        .when(removeLot('AAPL', { date: '2025-03-03', close: 100.25, position: 10 }))
        .then([lotRemoved('AAPL', 'a')]);
      given(portfolioDecider, [...past, lotRemoved('AAPL', 'a')])
        .when(removeLot('AAPL', { date: '2025-03-03', close: 100.25, position: 10 }))
        .then([lotRemoved('AAPL', 'c')]);
    });

    it('keeps the symbol in the portfolio when its last lot goes', () => {
      const state = fold(portfolioDecider, [added('AAPL'), lotAdded('AAPL', lot('a')), lotRemoved('AAPL', 'a')]);
      expect(state.symbols).to.deep.equal(['AAPL']);
      expect(lotsOf(state, 'AAPL')).to.deep.equal([]);
    });

    it('refuses an unknown id, a lot of another symbol and fields that match nothing with not_found', () => {
      given(portfolioDecider, past)
        .when(removeLot('AAPL', { id: 'zzz' }))
        .thenError('not_found');
      given(portfolioDecider, past)
        .when(removeLot('MSFT', { id: 'a' }))
        .thenError('not_found');
      given(portfolioDecider, past)
        .when(removeLot('AAPL', { date: '2025-03-03', close: 100.26, position: 10 }))
        .thenError('not_found');
      given(portfolioDecider)
        .when(removeLot('AAPL', { id: 'a' }))
        .thenError('not_found');
    });

    it('refuses fields that are not a lot', () => {
      given(portfolioDecider, past)
        .when(removeLot('AAPL', { date: 'x', close: 1, position: 1 }))
        .thenError('invalid_lot');
    });
  });

  it('refuses a command type it does not know', () => {
    given(portfolioDecider)
      .when({ type: 'SellEverything', data: {} } as unknown as PortfolioCommand)
      .thenError('unknown_command');
  });

  describe('evolve', () => {
    it('folds symbols and lots in the order they happened', () => {
      const state = fold(portfolioDecider, [
        added('AAPL'),
        lotAdded('AAPL', lot('a')),
        added('MSFT'),
        lotAdded('MSFT', lot('m')),
        lotAdded('AAPL', lot('b')),
        lotRemoved('AAPL', 'a'),
        lotRemoved('MSFT', 'm'),
        removed('MSFT'),
      ]);
      expect(holdings(state)).to.deep.equal({ symbols: ['AAPL'], lots: { AAPL: [lot('b')] } });
    });

    it('is total: repeats, absent removals and a lot of a missing symbol fold without failing', () => {
      const state = fold(portfolioDecider, [
        lotAdded('IBM', lot('i')),
        lotAdded('IBM', lot('i')),
        lotRemoved('IBM', 'zzz'),
        removed('XOM'),
        added('IBM'),
      ]);
      expect(holdings(state)).to.deep.equal({ symbols: ['IBM'], lots: { IBM: [lot('i')] } });
    });

    it('drops the lots of a removed symbol even without their removals', () => {
      const state = fold(portfolioDecider, [added('AAPL'), lotAdded('AAPL', lot('a')), removed('AAPL')]);
      expect(state).to.deep.equal({ symbols: [], lots: {}, transactions: [], closings: [] } satisfies PortfolioState);
    });

    it('ignores an event type it does not know', () => {
      const unknown = { type: 'PortfolioRenamed', data: {} } as unknown as PortfolioEvent;
      expect(portfolioDecider.evolve(portfolioDecider.initialState, unknown)).to.deep.equal(
        portfolioDecider.initialState,
      );
    });

    it('does not change the state it is given', () => {
      const before = fold(portfolioDecider, [added('AAPL'), lotAdded('AAPL', lot('a'))]);
      const copy = structuredClone(before);
      portfolioDecider.evolve(before, lotAdded('AAPL', lot('b')));
      portfolioDecider.evolve(before, lotRemoved('AAPL', 'a'));
      portfolioDecider.evolve(before, removed('AAPL'));
      expect(before).to.deep.equal(copy);
    });
  });
});

describe('portfolio folded many events at once', function () {
  const SYMBOLS = ['AAPL', 'IBM', 'XOM'];
  const ids = ['t1', 't2', 't3', 't4', 't5', 't6', 'l1', 'l2'];
  const dates = ['2025-03-03', '2025-03-04', '2025-03-05'];
  const transactionArb = fc
    .tuple(
      fc.constantFrom('buy', 'buy', 'sell', 'dividend', 'fee'),
      fc.constantFrom(...ids),
      fc.constantFrom(...SYMBOLS),
      fc.constantFrom(...dates),
      fc.integer({ min: 1, max: 8 }),
    )
    .map(([kind, id, symbol, date, n]) =>
      kind === 'buy' || kind === 'sell'
        ? { kind, id, symbol, date, quantity: n, price: 100 + n, fee: n % 2 }
        : { kind, id, symbol, date, amount: n },
    );
  const commandArb: fc.Arbitrary<PortfolioCommand> = fc.oneof(
    fc.constantFrom(...SYMBOLS).map((symbol) => add(symbol)),
    fc.constantFrom(...SYMBOLS).map((symbol) => remove(symbol)),
    fc
      .tuple(fc.constantFrom(...SYMBOLS), fc.constantFrom(...ids), fc.integer({ min: -5, max: 5 }))
      .map(([symbol, id, position]) => addLots(symbol, lot(id, '2025-03-03', 50, position === 0 ? 1 : position))),
    fc.tuple(fc.constantFrom(...SYMBOLS), fc.constantFrom(...ids)).map(([symbol, id]) => removeLot(symbol, { id })),
    fc
      .array(transactionArb, { minLength: 1, maxLength: 4 })
      .map((transactions): PortfolioCommand => ({ type: 'RecordTransactions', data: { transactions, at: AT } })),
  );

  it('give the state that folding them one by one gives, key order included, for any split of a stream', function () {
    let events = 0;
    const types = new Set<string>();
    fc.assert(
      fc.property(fc.array(commandArb, { minLength: 20, maxLength: 60 }), fc.nat(), (commands, cut) => {
        const recorded = checkFoldAtOnce(portfolioDecider, commands, cut);
        events += recorded.length;
        for (const event of recorded) types.add(event.type);
      }),
      { numRuns: 300, seed: 7 },
    );
    expect(events).to.be.above(2000);
    expect([...types].sort()).to.deep.equal(
      [
        'DividendReceived',
        'FeeCharged',
        'PositionLotAdded',
        'PositionLotRemoved',
        'SharesBought',
        'SharesSold',
        'SymbolAddedToPortfolio',
        'SymbolRemovedFromPortfolio',
        'TradesRematched',
      ].sort(),
    );
  });

  type Batch = RecordTransactions['data']['transactions'];

  /** The events of recording `transactions` one command each on `start`, or the code of the first refusal. */
  function oneByOne(transactions: Batch, start: PortfolioState): PortfolioEvent[] | string {
    let state = start;
    const events: PortfolioEvent[] = [];
    for (const t of transactions) {
      try {
        const decided = portfolioDecider.decide(
          { type: 'RecordTransactions', data: { transactions: [t], at: AT } },
          state,
        );
        events.push(...decided);
        state = fold(portfolioDecider, decided, state);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        return error.code;
      }
    }
    return events;
  }

  /** The events of recording `transactions` in one command on `start`, or the code of its refusal. */
  function atOnce(transactions: Batch, start: PortfolioState): PortfolioEvent[] | string {
    try {
      return portfolioDecider.decide({ type: 'RecordTransactions', data: { transactions, at: AT } }, start);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return error.code;
    }
  }

  /**
   * A state as it tells what is held and what was realised: each symbol's lots in the order a sale closes them
   * (by date, then as listed; `matchTrade`), the closed parts in any order. A rematch lists lots by date and adds
   * its closed parts at once, a batch lists lots as they were opened and closes parts trade by trade.
   */
  const inFifoOrder = (state: PortfolioState): PortfolioState => ({
    ...state,
    lots: Object.fromEntries(Object.entries(state.lots).map(([symbol, lots]) => [symbol, oldestFirst(lots)])),
    closings: [...state.closings].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
  });

  /** Batches of 1 to 12 transactions, recorded on a portfolio holding every symbol and nothing else. */
  const batchArb = fc.array(transactionArb, { minLength: 1, maxLength: 12 });
  const start = fold(portfolioDecider, portfolioDecider.decide(add(...SYMBOLS), portfolioDecider.initialState));

  const rematches = (events: readonly PortfolioEvent[]): boolean =>
    events.some((event) => event.type === 'TradesRematched');

  it('record a batch of transactions deciding each on the state the ones before it left', function () {
    // Without back-dated trades, the batch decided at once gives the events that recording its transactions one
    // command each gives. A back-dated trade is rematched once at the end of a batch, but after each command
    // alone, so the events then differ (the state they leave does not: see below).
    let compared = 0;
    fc.assert(
      fc.property(batchArb, (transactions) => {
        const decided = atOnce(transactions, start);
        if (typeof decided === 'string') return;
        const single = oneByOne(transactions, start);
        if (typeof single === 'string' || rematches(decided) || rematches(single)) return;
        expect(decided).to.deep.equal(single);
        if (single.length > 2) compared += 1;
      }),
      { numRuns: 300, seed: 3 },
    );
    expect(compared).to.be.above(50);
  });

  it('leave, recorded in one batch, the state that recording them one command each leaves, back-dated ones too', function () {
    // The batch's one rematch per symbol at its end lands where the rematch after each command does.
    let backDated = 0;
    fc.assert(
      fc.property(batchArb, (transactions) => {
        const decided = atOnce(transactions, start);
        const single = oneByOne(transactions, start);
        if (typeof decided === 'string' || typeof single === 'string') {
          expect(typeof decided, 'refused at once as one by one').to.equal(typeof single);
          return;
        }
        expect(inFifoOrder(fold(portfolioDecider, decided, start))).to.deep.equal(
          inFifoOrder(fold(portfolioDecider, single, start)),
        );
        if (rematches(single)) backDated += 1;
      }),
      { numRuns: 300, seed: 17 },
    );
    expect(backDated).to.be.above(20);
  });
});
