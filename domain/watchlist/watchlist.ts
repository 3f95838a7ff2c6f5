/**
 * The watch list: the symbols a user follows. Adding merges without duplicates, removing filters out.
 */
import { DomainError, type Decider, type DomainEvent, eventTypes, unknownCommand } from '../decider.ts';
import { newSymbols, parseSymbol } from '../symbol.ts';

/** The concern name of watch-list streams (`watchlist-<userId>`). */
export const WATCHLIST_CONCERN = 'watchlist';

/** Most symbols a watch list may hold. */
export const WATCHLIST_LIMIT = 200;

/** Adds symbols to the watch list; ones already there, and repeats within the command, are dropped. */
export interface AddSymbolsToWatchlist {
  /** Command type. */
  readonly type: 'AddSymbolsToWatchlist';
  /** The payload. */
  readonly data: {
    /** Symbols to add, in the order they should appear; case does not matter. */
    readonly symbols: readonly string[];
  };
}

/** Removes one symbol from the watch list; nothing happens when it is not there. */
export interface RemoveSymbolFromWatchlist {
  /** Command type. */
  readonly type: 'RemoveSymbolFromWatchlist';
  /** The payload. */
  readonly data: {
    /** The symbol to remove; case does not matter. */
    readonly symbol: string;
  };
}

/** Every command of the watch list. */
export type WatchlistCommand = AddSymbolsToWatchlist | RemoveSymbolFromWatchlist;

/** A symbol was put at the end of the watch list. */
export type SymbolAddedToWatchlist = DomainEvent<'SymbolAddedToWatchlist', { readonly symbol: string }>;

/** A symbol was taken off the watch list. */
export type SymbolRemovedFromWatchlist = DomainEvent<'SymbolRemovedFromWatchlist', { readonly symbol: string }>;

/** Every event of the watch list. */
export type WatchlistEvent = SymbolAddedToWatchlist | SymbolRemovedFromWatchlist;

/** Every event type of the watch list concern. */
export const WATCHLIST_EVENT_TYPES = eventTypes<WatchlistEvent>()(
  'SymbolAddedToWatchlist',
  'SymbolRemovedFromWatchlist',
);

/** A user's watch list: normalised symbols in the order they were added, without duplicates. */
export interface WatchlistState {
  /** The symbols, oldest first. */
  readonly symbols: readonly string[];
}

function decide(command: WatchlistCommand, state: WatchlistState): WatchlistEvent[] {
  switch (command.type) {
    case 'AddSymbolsToWatchlist': {
      const added = newSymbols(state.symbols, command.data.symbols);
      if (state.symbols.length + added.length > WATCHLIST_LIMIT) {
        throw new DomainError(
          'limit',
          `symbols would make the watch list ${state.symbols.length + added.length} long; at most ${WATCHLIST_LIMIT}`,
          'symbols',
        );
      }
      return added.map((symbol) => ({ type: 'SymbolAddedToWatchlist', data: { symbol } }));
    }
    case 'RemoveSymbolFromWatchlist': {
      const symbol = parseSymbol(command.data.symbol, 'symbol');
      return state.symbols.includes(symbol) ? [{ type: 'SymbolRemovedFromWatchlist', data: { symbol } }] : [];
    }
    default:
      throw unknownCommand(command, 'watch-list');
  }
}

function evolve(state: WatchlistState, event: WatchlistEvent): WatchlistState {
  switch (event.type) {
    case 'SymbolAddedToWatchlist':
      return state.symbols.includes(event.data.symbol) ? state : { symbols: [...state.symbols, event.data.symbol] };
    case 'SymbolRemovedFromWatchlist':
      return state.symbols.includes(event.data.symbol)
        ? { symbols: state.symbols.filter((symbol) => symbol !== event.data.symbol) }
        : state;
    default: {
      // An event type this version does not know leaves the state as it is, so replaying the log never fails.
      const _exhaustive: never = event;
      return state;
    }
  }
}

/** The watch list's rules: de-duplication, symbol validation and the {@link WATCHLIST_LIMIT} cap. */
export const watchlistDecider: Decider<WatchlistCommand, WatchlistEvent, WatchlistState> = {
  initialState: Object.freeze({ symbols: Object.freeze([]) }),
  decide,
  evolve,
};
