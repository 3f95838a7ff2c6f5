/**
 * The "add stocks" card: a symbol search over the universe (symbol or a word of the company name) whose
 * results add the stock to the dashboard list.
 */
import { useId } from 'react';
import { Failed } from '../../components/LoadState.tsx';
import { formatNumber } from '../../../domain/format.ts';
import { DASHBOARD_STOCKS_MAX, shownStocks } from './dashboard.logic.ts';
import { Dashboard, sameItems } from './dashboardActor.ts';

/** The card; `empty` when the dashboard has no stocks yet. */
export function AddStocksCard({ empty }: { readonly empty: boolean }) {
  const actor = Dashboard.useActorRef();
  const search = Dashboard.useSelector((s) => s.context.search);
  const busy = Dashboard.useSelector((s) => s.matches({ search: 'debouncing' }) || s.matches({ search: 'searching' }));
  const done = Dashboard.useSelector((s) => s.matches({ search: 'results' }));
  const shown = Dashboard.useSelector((s) => shownStocks(s.context.lists), sameItems);
  const hint = useId();
  const full = shown.length >= DASHBOARD_STOCKS_MAX;
  const add = (symbol: string) => {
    actor.send({ type: 'user.addSymbol', symbol });
    actor.send({ type: 'user.clearSearch' });
  };
  const first = search.results.find((hit) => !shown.includes(hit.symbol));
  return (
    <article className="card add-card" aria-labelledby={`${hint}-title`}>
      <h3 id={`${hint}-title`}>Add stocks</h3>
      {empty && (
        <p className="empty">
          Your dashboard has no stocks yet: search a symbol or company to add one, or choose where they come from in the
          bar below.
        </p>
      )}
      <label>
        Symbol or company
        <input
          type="search"
          value={search.text}
          placeholder="e.g. NVDA or Apple"
          autoComplete="off"
          aria-describedby={hint}
          disabled={full}
          onChange={(e) => actor.send({ type: 'user.search', text: e.target.value })}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && first) {
              e.preventDefault();
              add(first.symbol);
            }
            if (e.key === 'Escape') actor.send({ type: 'user.clearSearch' });
          }}
        />
      </label>
      {busy && search.text.trim() !== '' && <p className="hint">Searching…</p>}
      {search.error && (
        <Failed message={search.error} onRetry={() => actor.send({ type: 'user.search', text: search.text })} />
      )}
      {search.results.length > 0 && (
        <ul className="dash-results" aria-label="Matching companies">
          {search.results.map((hit) => {
            const there = shown.includes(hit.symbol);
            return (
              <li key={hit.symbol}>
                <button
                  type="button"
                  disabled={there || full}
                  aria-label={`Add ${hit.symbol} (${hit.name}) to the dashboard`}
                  onClick={() => add(hit.symbol)}
                >
                  <strong>{hit.symbol}</strong>
                  <span className="dash-result-name">{hit.name}</span>
                  <span className="hint">{there ? 'on the dashboard' : formatNumber(hit.marketcap)}</span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {done && search.results.length === 0 && search.text.trim() !== '' && (
        <p className="hint">No company matches “{search.text.trim()}”: try a symbol such as AAPL.</p>
      )}
      <p className="hint" id={hint}>
        {full
          ? `The dashboard holds at most ${DASHBOARD_STOCKS_MAX} stocks: remove one to add another.`
          : `${shown.length} of ${DASHBOARD_STOCKS_MAX} stocks. Enter adds the first match.`}
      </p>
    </article>
  );
}
