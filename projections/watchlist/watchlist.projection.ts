import { watchlistDecider, type WatchlistEvent, type WatchlistState } from '../../domain/watchlist/watchlist.ts';
import { deciderProjection, type Projection } from '../projection.ts';

/** `GET /personalize/watchlist`: each user's watch list, folded with the decider's own `evolve`. */
export const watchlistProjection: Projection<WatchlistState> = deciderProjection('watchlist', 1, watchlistDecider, [
  'SymbolAddedToWatchlist',
  'SymbolRemovedFromWatchlist',
] satisfies WatchlistEvent['type'][]);
