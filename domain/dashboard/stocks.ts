/**
 * The dashboard stock list: the symbols the dashboard's cards and charts show. Setting it keeps the first 30
 * distinct symbols; adding drops symbols already there and never takes the list past 30.
 */
import { DomainError, type Decider, type DomainEvent, eventTypes, unknownCommand } from '../decider.ts';
import { parseSymbol } from '../symbol.ts';

/** The concern name of dashboard-stock streams (`dashboardstocks-<userId>`). */
export const DASHBOARD_STOCKS_CONCERN = 'dashboardstocks';

/** Most symbols the dashboard stock list holds. */
export const DASHBOARD_STOCKS_LIMIT = 30;

/** Replaces the list: repeats are dropped, then only the first {@link DASHBOARD_STOCKS_LIMIT} are kept. */
export interface SetDashboardStocks {
  /** Command type. */
  readonly type: 'SetDashboardStocks';
  /** The payload. */
  readonly data: {
    /** The new list, in order; may be empty to clear the list. */
    readonly symbols: readonly string[];
  };
}

/** Adds symbols at the end of the list; ones already there, and repeats, are dropped. */
export interface AddDashboardStocks {
  /** Command type. */
  readonly type: 'AddDashboardStocks';
  /** The payload. */
  readonly data: {
    /** Symbols to add, in order; at least one. */
    readonly symbols: readonly string[];
  };
}

/** Every command of the dashboard stock list. */
export type DashboardStocksCommand = SetDashboardStocks | AddDashboardStocks;

/** The list was replaced. */
export type DashboardStocksSet = DomainEvent<'DashboardStocksSet', { readonly symbols: readonly string[] }>;

/** A symbol was put at the end of the list. */
export type DashboardStockAdded = DomainEvent<'DashboardStockAdded', { readonly symbol: string }>;

/** Every event of the dashboard stock list. */
export type DashboardStocksEvent = DashboardStocksSet | DashboardStockAdded;

/** Every event type of the dashboard stocks concern. */
export const DASHBOARD_STOCKS_EVENT_TYPES = eventTypes<DashboardStocksEvent>()(
  'DashboardStocksSet',
  'DashboardStockAdded',
);

/** A user's dashboard stock list: distinct normalised symbols, at most {@link DASHBOARD_STOCKS_LIMIT}. */
export interface DashboardStocksState {
  /** The symbols, in order. */
  readonly symbols: readonly string[];
}

function distinctSymbols(symbols: readonly string[]): string[] {
  const seen = new Set<string>();
  symbols.forEach((text, i) => seen.add(parseSymbol(text, `symbols[${i}]`)));
  return [...seen];
}

function decide(command: DashboardStocksCommand, state: DashboardStocksState): DashboardStocksEvent[] {
  switch (command.type) {
    case 'SetDashboardStocks': {
      const symbols = distinctSymbols(command.data.symbols).slice(0, DASHBOARD_STOCKS_LIMIT);
      const unchanged = symbols.length === state.symbols.length && symbols.every((s, i) => s === state.symbols[i]);
      return unchanged ? [] : [{ type: 'DashboardStocksSet', data: { symbols } }];
    }
    case 'AddDashboardStocks': {
      if (command.data.symbols.length === 0) {
        throw new DomainError('empty', 'symbols must name at least one symbol', 'symbols');
      }
      const added = distinctSymbols(command.data.symbols).filter((symbol) => !state.symbols.includes(symbol));
      if (state.symbols.length + added.length > DASHBOARD_STOCKS_LIMIT) {
        throw new DomainError(
          'limit',
          `symbols would make the dashboard stock list ${state.symbols.length + added.length} long; at most ${DASHBOARD_STOCKS_LIMIT}`,
          'symbols',
        );
      }
      return added.map((symbol) => ({ type: 'DashboardStockAdded', data: { symbol } }));
    }
    default:
      throw unknownCommand(command, 'dashboard-stocks');
  }
}

function evolve(state: DashboardStocksState, event: DashboardStocksEvent): DashboardStocksState {
  switch (event.type) {
    case 'DashboardStocksSet':
      return { symbols: [...new Set(event.data.symbols)].slice(0, DASHBOARD_STOCKS_LIMIT) };
    case 'DashboardStockAdded':
      return state.symbols.includes(event.data.symbol) || state.symbols.length >= DASHBOARD_STOCKS_LIMIT
        ? state
        : { symbols: [...state.symbols, event.data.symbol] };
    default: {
      // An event type this version does not know leaves the state as it is, so replaying the log never fails.
      const _exhaustive: never = event;
      return state;
    }
  }
}

/** The dashboard stock list's rules: symbol validation, de-duplication and the cap of 30. */
export const dashboardStocksDecider: Decider<DashboardStocksCommand, DashboardStocksEvent, DashboardStocksState> = {
  initialState: Object.freeze({ symbols: Object.freeze([]) }),
  decide,
  evolve,
};
