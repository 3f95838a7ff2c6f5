/**
 * The portfolio: the symbols a user holds and, per symbol, the position lots that make up the holding. One
 * stream holds both, so a lot always belongs to a symbol of the portfolio: adding a lot for a new symbol adds
 * the symbol first, and removing a symbol removes its lots.
 */
import { DomainError, type Decider, type DomainEvent } from '../decider.ts';
import { LOTS_PER_SYMBOL_LIMIT, lotMatches, parseLotFields, type Lot, type LotFields } from '../positions/lots.ts';
import { newSymbols, parseSymbol } from '../symbol.ts';

/** The concern name of portfolio streams (`portfolio-<userId>`). */
export const PORTFOLIO_CONCERN = 'portfolio';

/** Most symbols a portfolio may hold. */
export const PORTFOLIO_LIMIT = 200;

/** Adds symbols to the portfolio; ones already there, and repeats within the command, are ignored. */
export interface AddSymbolsToPortfolio {
  /** Command type. */
  readonly type: 'AddSymbolsToPortfolio';
  /** The payload. */
  readonly data: {
    /** Symbols to add, in order; case does not matter. */
    readonly symbols: readonly string[];
  };
}

/** Removes a symbol and all its lots; nothing happens when it is not in the portfolio. */
export interface RemoveSymbolFromPortfolio {
  /** Command type. */
  readonly type: 'RemoveSymbolFromPortfolio';
  /** The payload. */
  readonly data: {
    /** The symbol to remove; case does not matter. */
    readonly symbol: string;
  };
}

/** Adds lots to a symbol, adding the symbol to the portfolio when it is not there yet. */
export interface AddPositionLots {
  /** Command type. */
  readonly type: 'AddPositionLots';
  /** The payload. */
  readonly data: {
    /** The symbol the lots are of. */
    readonly symbol: string;
    /** The lots, with ids derived from the command's id. */
    readonly lots: readonly Lot[];
    /** The command's time (ISO 8601, UTC): lots dated after it are refused. */
    readonly at: string;
  };
}

/** Removes one lot of a symbol, named by its id or by its fields (the oldest such lot). */
export interface RemovePositionLot {
  /** Command type. */
  readonly type: 'RemovePositionLot';
  /** The payload. */
  readonly data: {
    /** The symbol the lot is of. */
    readonly symbol: string;
    /** The lot: its id, or its date, price and quantity. */
    readonly lot: { readonly id: string } | LotFields;
  };
}

/** Every command of the portfolio. */
export type PortfolioCommand = AddSymbolsToPortfolio | RemoveSymbolFromPortfolio | AddPositionLots | RemovePositionLot;

/** A symbol was put at the end of the portfolio. */
export type SymbolAddedToPortfolio = DomainEvent<'SymbolAddedToPortfolio', { readonly symbol: string }>;

/** A symbol was taken out of the portfolio (its lots were removed just before). */
export type SymbolRemovedFromPortfolio = DomainEvent<'SymbolRemovedFromPortfolio', { readonly symbol: string }>;

/** A lot was added to a symbol of the portfolio. */
export type PositionLotAdded = DomainEvent<'PositionLotAdded', { readonly symbol: string; readonly lot: Lot }>;

/** A lot was removed from a symbol of the portfolio. */
export type PositionLotRemoved = DomainEvent<'PositionLotRemoved', { readonly symbol: string; readonly id: string }>;

/** Every event of the portfolio. */
export type PortfolioEvent =
  SymbolAddedToPortfolio | SymbolRemovedFromPortfolio | PositionLotAdded | PositionLotRemoved;

/** A user's portfolio: its symbols in the order added, and the lots of each symbol in the order added. */
export interface PortfolioState {
  /** The symbols, oldest first, without duplicates. */
  readonly symbols: readonly string[];
  /** The lots of each symbol that has any. */
  readonly lots: Readonly<Record<string, readonly Lot[]>>;
}

/** The lots of a symbol in a portfolio state (none when it has none). */
export function lotsOf(state: PortfolioState, symbol: string): readonly Lot[] {
  return Object.hasOwn(state.lots, symbol) ? state.lots[symbol]! : [];
}

function parseLotId(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 100) {
    throw new DomainError('invalid_lot', `${field} must be a lot id`, field);
  }
  return value;
}

function tooMany(symbols: number): DomainError {
  return new DomainError(
    'limit',
    `symbols would make the portfolio ${symbols} long; at most ${PORTFOLIO_LIMIT}`,
    'symbols',
  );
}

function decide(command: PortfolioCommand, state: PortfolioState): PortfolioEvent[] {
  switch (command.type) {
    case 'AddSymbolsToPortfolio': {
      const added = newSymbols(state.symbols, command.data.symbols);
      if (state.symbols.length + added.length > PORTFOLIO_LIMIT) throw tooMany(state.symbols.length + added.length);
      return added.map((symbol) => ({ type: 'SymbolAddedToPortfolio', data: { symbol } }));
    }
    case 'RemoveSymbolFromPortfolio': {
      const symbol = parseSymbol(command.data.symbol, 'symbol');
      if (!state.symbols.includes(symbol)) return [];
      return [
        ...lotsOf(state, symbol).map((lot): PortfolioEvent => ({
          type: 'PositionLotRemoved',
          data: { symbol, id: lot.id },
        })),
        { type: 'SymbolRemovedFromPortfolio', data: { symbol } },
      ];
    }
    case 'AddPositionLots': {
      const symbol = parseSymbol(command.data.symbol, 'symbol');
      const { lots, at } = command.data;
      if (lots.length === 0) throw new DomainError('empty', 'lots must hold at least one lot', 'lots');
      const held = lotsOf(state, symbol);
      if (held.length + lots.length > LOTS_PER_SYMBOL_LIMIT) {
        throw new DomainError(
          'limit',
          `lots would give ${symbol} ${held.length + lots.length} lots; at most ${LOTS_PER_SYMBOL_LIMIT}`,
          'lots',
        );
      }
      const ids = new Set(held.map((lot) => lot.id));
      const added = lots.map((lot, i): Lot => {
        const id = parseLotId(lot.id, `lots[${i}].id`);
        if (ids.has(id))
          throw new DomainError('conflict', `lots[${i}].id ${id} is already a lot of ${symbol}`, `lots[${i}].id`);
        ids.add(id);
        return { id, ...parseLotFields(lot, `lots[${i}]`, at) };
      });
      const events: PortfolioEvent[] = [];
      if (!state.symbols.includes(symbol)) {
        if (state.symbols.length + 1 > PORTFOLIO_LIMIT) throw tooMany(state.symbols.length + 1);
        events.push({ type: 'SymbolAddedToPortfolio', data: { symbol } });
      }
      for (const lot of added) events.push({ type: 'PositionLotAdded', data: { symbol, lot } });
      return events;
    }
    case 'RemovePositionLot': {
      const symbol = parseSymbol(command.data.symbol, 'symbol');
      const held = lotsOf(state, symbol);
      const named = command.data.lot;
      let found: Lot | undefined;
      if (typeof named === 'object' && named !== null && 'id' in named) {
        const id = parseLotId(named.id, 'lot.id');
        found = held.find((lot) => lot.id === id);
        if (!found) throw new DomainError('not_found', `lot.id ${id} is not a lot of ${symbol}`, 'lot.id');
      } else {
        // The date bound does not matter when matching: any date a lot was accepted with is fine here.
        const fields = parseLotFields(named, 'lot', '9999-12-31T00:00:00Z');
        found = held.find((lot) => lotMatches(lot, fields));
        if (!found) {
          throw new DomainError(
            'not_found',
            `lot ${fields.date} ${fields.close} × ${fields.position} is not a lot of ${symbol}`,
            'lot',
          );
        }
      }
      return [{ type: 'PositionLotRemoved', data: { symbol, id: found.id } }];
    }
    default: {
      const _exhaustive: never = command;
      throw new DomainError(
        'unknown_command',
        `type ${JSON.stringify((_exhaustive as { type?: unknown }).type)} is not a portfolio command`,
        'type',
      );
    }
  }
}

function withLots(state: PortfolioState, symbol: string, lots: readonly Lot[]): PortfolioState['lots'] {
  const next = Object.fromEntries(Object.entries(state.lots).filter(([key]) => key !== symbol));
  if (lots.length > 0) next[symbol] = lots;
  return next;
}

function evolve(state: PortfolioState, event: PortfolioEvent): PortfolioState {
  switch (event.type) {
    case 'SymbolAddedToPortfolio':
      return state.symbols.includes(event.data.symbol)
        ? state
        : { symbols: [...state.symbols, event.data.symbol], lots: state.lots };
    case 'SymbolRemovedFromPortfolio': {
      const { symbol } = event.data;
      if (!state.symbols.includes(symbol) && !Object.hasOwn(state.lots, symbol)) return state;
      return { symbols: state.symbols.filter((s) => s !== symbol), lots: withLots(state, symbol, []) };
    }
    case 'PositionLotAdded': {
      const { symbol, lot } = event.data;
      const held = lotsOf(state, symbol);
      if (held.some((l) => l.id === lot.id)) return state;
      const symbols = state.symbols.includes(symbol) ? state.symbols : [...state.symbols, symbol];
      const copy = { id: lot.id, date: lot.date, close: lot.close, position: lot.position };
      return { symbols, lots: withLots(state, symbol, [...held, copy]) };
    }
    case 'PositionLotRemoved': {
      const { symbol, id } = event.data;
      const held = lotsOf(state, symbol);
      if (!held.some((lot) => lot.id === id)) return state;
      return {
        symbols: state.symbols,
        lots: withLots(
          state,
          symbol,
          held.filter((lot) => lot.id !== id),
        ),
      };
    }
    default: {
      // An event type this version does not know leaves the state as it is, so replaying the log never fails.
      const _exhaustive: never = event;
      return state;
    }
  }
}

/**
 * The portfolio's rules: symbols merged without duplicates (at most {@link PORTFOLIO_LIMIT}), lots checked one
 * by one (at most {@link LOTS_PER_SYMBOL_LIMIT} per symbol), and lots that never outlive their symbol.
 */
export const portfolioDecider: Decider<PortfolioCommand, PortfolioEvent, PortfolioState> = {
  initialState: Object.freeze({ symbols: Object.freeze([]), lots: Object.freeze({}) }),
  decide,
  evolve,
};
