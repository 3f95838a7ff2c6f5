import { expect } from 'chai';
import { fold } from '../decider.ts';
import { given } from '../testing/givenWhenThen.ts';
import {
  DASHBOARD_STOCKS_LIMIT,
  dashboardStocksDecider,
  type DashboardStocksCommand,
  type DashboardStocksEvent,
} from './stocks.ts';

const set = (...symbols: string[]): DashboardStocksCommand => ({ type: 'SetDashboardStocks', data: { symbols } });
const add = (...symbols: string[]): DashboardStocksCommand => ({ type: 'AddDashboardStocks', data: { symbols } });
const wasSet = (...symbols: string[]): DashboardStocksEvent => ({ type: 'DashboardStocksSet', data: { symbols } });
const added = (symbol: string): DashboardStocksEvent => ({ type: 'DashboardStockAdded', data: { symbol } });
const numbered = (count: number, from = 0): string[] =>
  Array.from({ length: count }, (_, i) => `S${String(from + i).padStart(3, '0')}`);

describe('dashboard stock list decider', () => {
  it('starts empty', () => {
    expect(fold(dashboardStocksDecider, [])).to.deep.equal({ symbols: [] });
  });

  describe('setting the list', () => {
    it('records the new list, normalised', () => {
      given(dashboardStocksDecider)
        .when(set('nvda', ' AAPL '))
        .then([wasSet('NVDA', 'AAPL')]);
    });

    it('drops repeats, keeping the first place of each symbol', () => {
      given(dashboardStocksDecider)
        .when(set('NVDA', 'AAPL', 'nvda', 'MSFT'))
        .then([wasSet('NVDA', 'AAPL', 'MSFT')]);
    });

    it(`keeps only the first ${DASHBOARD_STOCKS_LIMIT} distinct symbols`, () => {
      const many = numbered(DASHBOARD_STOCKS_LIMIT + 5);
      given(dashboardStocksDecider)
        .when(set(many[0]!, many[0]!, ...many))
        .then([wasSet(...many.slice(0, DASHBOARD_STOCKS_LIMIT))]);
    });

    it('replaces whatever was there, in the order given', () => {
      given(dashboardStocksDecider, [wasSet('AAPL', 'MSFT'), added('IBM')])
        .when(set('IBM', 'AAPL'))
        .then([wasSet('IBM', 'AAPL')]);
    });

    it('clears the list with an empty one', () => {
      given(dashboardStocksDecider, [wasSet('AAPL')])
        .when(set())
        .then([wasSet()]);
    });

    it('decides nothing when the list does not change', () => {
      given(dashboardStocksDecider, [wasSet('AAPL', 'MSFT')])
        .when(set('aapl', 'MSFT', 'AAPL'))
        .thenNothing();
      given(dashboardStocksDecider).when(set()).thenNothing();
    });

    it('refuses an invalid symbol even past the cap', () => {
      given(dashboardStocksDecider)
        .when(set(...numbered(DASHBOARD_STOCKS_LIMIT), 'NOT A SYMBOL'))
        .thenError('invalid_symbol');
    });
  });

  describe('adding symbols', () => {
    it('appends new symbols and drops ones already there and repeats', () => {
      given(dashboardStocksDecider, [wasSet('AAPL')])
        .when(add('MSFT', 'aapl', 'msft', 'IBM'))
        .then([added('MSFT'), added('IBM')]);
    });

    it('decides nothing when every symbol is there already', () => {
      given(dashboardStocksDecider, [wasSet('AAPL', 'MSFT')])
        .when(add('MSFT', 'AAPL'))
        .thenNothing();
    });

    it(`fills the list up to exactly ${DASHBOARD_STOCKS_LIMIT}`, () => {
      given(dashboardStocksDecider, [wasSet(...numbered(DASHBOARD_STOCKS_LIMIT - 2))])
        .when(add('ZZZ', 'YYY', 'ZZZ'))
        .then([added('ZZZ'), added('YYY')]);
    });

    it(`refuses an addition that would take the list past ${DASHBOARD_STOCKS_LIMIT}`, () => {
      given(dashboardStocksDecider, [wasSet(...numbered(DASHBOARD_STOCKS_LIMIT - 1))])
        .when(add('ZZZ', 'YYY'))
        .thenError('limit');
      given(dashboardStocksDecider)
        .when(add(...numbered(DASHBOARD_STOCKS_LIMIT + 1)))
        .thenError('limit');
    });

    it('counts only new symbols against the cap', () => {
      const full = numbered(DASHBOARD_STOCKS_LIMIT);
      given(dashboardStocksDecider, [wasSet(...full)])
        .when(add(full[3]!, full[4]!))
        .thenNothing();
    });

    it('refuses an empty addition and an invalid symbol', () => {
      given(dashboardStocksDecider).when(add()).thenError('empty');
      given(dashboardStocksDecider).when(add('AAPL', '$$')).thenError('invalid_symbol');
    });
  });

  it('refuses a command type it does not know', () => {
    given(dashboardStocksDecider)
      .when({ type: 'ClearDashboardStocks', data: {} } as unknown as DashboardStocksCommand)
      .thenError('unknown_command');
  });

  describe('evolve', () => {
    it('folds sets and additions in order', () => {
      expect(fold(dashboardStocksDecider, [added('A'), wasSet('B', 'C'), added('D'), added('B')])).to.deep.equal({
        symbols: ['B', 'C', 'D'],
      });
    });

    it('is total: never holds a repeat or more than the cap, whatever the log says', () => {
      const state = fold(dashboardStocksDecider, [wasSet('A', 'A', ...numbered(DASHBOARD_STOCKS_LIMIT)), added('Z')]);
      expect(state.symbols).to.have.length(DASHBOARD_STOCKS_LIMIT);
      expect(new Set(state.symbols).size).to.equal(DASHBOARD_STOCKS_LIMIT);
    });

    it('ignores an event type it does not know', () => {
      const unknown = { type: 'DashboardStocksSorted', data: {} } as unknown as DashboardStocksEvent;
      expect(dashboardStocksDecider.evolve({ symbols: ['A'] }, unknown)).to.deep.equal({ symbols: ['A'] });
    });
  });
});
