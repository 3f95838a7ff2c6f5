/**
 * The "add stocks" card: the app's symbol search over the universe (symbol or a word of the company name), whose
 * pick adds the stock to the dashboard list; stocks already shown are marked in the matches.
 */
import { useId, useMemo } from 'react';
import { SymbolSearch } from '../../components/SymbolSearch.tsx';
import { DASHBOARD_STOCKS_MAX, shownStocks } from './dashboard.logic.ts';
import { Dashboard, sameItems } from './dashboardActor.ts';

/** The card; `empty` when the dashboard has no stocks yet. */
export function AddStocksCard({ empty }: { readonly empty: boolean }) {
  const actor = Dashboard.useActorRef();
  const shown = Dashboard.useSelector((s) => shownStocks(s.context.lists), sameItems);
  const marked = useMemo(() => new Set(shown), [shown]);
  const hint = useId();
  const full = shown.length >= DASHBOARD_STOCKS_MAX;
  return (
    <article className="card add-card" aria-labelledby={`${hint}-title`}>
      <h3 id={`${hint}-title`}>Add stocks</h3>
      {empty && (
        <p className="empty">
          Your dashboard has no stocks yet: search a symbol or company to add one, or choose where they come from in the
          bar below.
        </p>
      )}
      <SymbolSearch
        label="Symbol or company"
        placeholder={full ? 'The dashboard is full' : 'e.g. NVDA or Apple'}
        marked={marked}
        markedText="on the dashboard"
        describedBy={hint}
        disabled={full}
        onPick={(hit) => actor.send({ type: 'user.addSymbol', symbol: hit.symbol })}
      />
      <p className="hint" id={hint}>
        {full
          ? `The dashboard holds at most ${DASHBOARD_STOCKS_MAX} stocks: remove one to add another.`
          : `${shown.length} of ${DASHBOARD_STOCKS_MAX} stocks. Enter adds the highlighted match.`}
      </p>
    </article>
  );
}
