/** A symbol as the app shows it anywhere: a link to its chart and a quick "add to watch list". */
import { chartPath } from '../services/router.ts';
import { quickAddToWatchlist } from '../services/watchlist.ts';
import { Link } from './Link.tsx';

/** A symbol chip. */
export function SymbolChip({ symbol, addable = true }: { readonly symbol: string; readonly addable?: boolean }) {
  return (
    <span className="symbol-chip">
      <Link to={chartPath(symbol)} title={`Open the ${symbol} chart`}>
        {symbol}
      </Link>
      {addable && (
        <button
          type="button"
          className="icon-button small"
          aria-label={`Add ${symbol} to the watch list`}
          title="Add to watch list"
          onClick={() => void quickAddToWatchlist(symbol)}
        >
          +
        </button>
      )}
    </span>
  );
}
