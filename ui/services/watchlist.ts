/** The quick "add to watch list" offered next to a symbol anywhere in the app. */
import { watchlistApi } from '../../domain/contract/watchlist.ts';
import { call, errorMessage } from './api.ts';
import { showToast } from './toast.ts';

/** Adds a symbol to the watch list and says so; answers the list after the merge. */
export async function quickAddToWatchlist(symbol: string): Promise<readonly string[] | null> {
  try {
    const list = await call(watchlistApi.postCreatewatchlist, { body: [symbol] });
    showToast(`${symbol} is on your watch list`);
    return list;
  } catch (error) {
    showToast(`Could not add ${symbol}: ${errorMessage(error)}`, 'error');
    return null;
  }
}
