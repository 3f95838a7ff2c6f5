/**
 * The bottom bar: where the dashboard's stocks come from (the portfolio by default, the watch list or one of
 * the 11 sectors), with how many the list holds of its 30.
 */
import { DASHBOARD_STOCKS_MAX, listSource, shownStocks } from './dashboard.logic.ts';
import { Dashboard } from './dashboardActor.ts';

/** The source bar. */
export function SourceBar() {
  const actor = Dashboard.useActorRef();
  const lists = Dashboard.useSelector((s) => s.context.lists);
  const options = Dashboard.useSelector((s) => s.context.options);
  const selected = Dashboard.useSelector((s) => s.context.options.selectedsector);
  const sectors = Dashboard.useSelector((s) => s.context.sectors);
  const sectorsError = Dashboard.useSelector((s) => s.context.sectorsError);
  const usable = Dashboard.useSelector((s) => s.matches({ settings: 'ready' }) && !s.matches({ list: 'loading' }));
  const failed = Dashboard.useSelector((s) => s.matches({ list: 'failed' }));
  const saving = Dashboard.useSelector((s) => s.matches({ list: 'saving' }));
  const source = listSource(lists, options);
  const count = shownStocks(lists).length;
  const disabled = !usable || failed;
  return (
    <nav className="dash-sourcebar" aria-label="Where the dashboard stocks come from">
      <span className="dash-source-label">Stocks from</span>
      <div className="segmented" role="group" aria-label="Stock source">
        <button
          type="button"
          aria-pressed={source === 'portfolio'}
          disabled={disabled}
          onClick={() => actor.send({ type: 'user.useSource', source: 'portfolio' })}
        >
          Portfolio ({lists.portfolio.length})
        </button>
        <button
          type="button"
          aria-pressed={source === 'watchlist'}
          disabled={disabled || lists.watchlist.length === 0}
          title={lists.watchlist.length === 0 ? 'Your watch list is empty: add symbols to it first' : undefined}
          onClick={() => actor.send({ type: 'user.useSource', source: 'watchlist' })}
        >
          Watch list ({lists.watchlist.length})
        </button>
      </div>
      <label className="dash-sector">
        <span>Sector</span>
        <select
          value={options.sectorflag ? String(selected) : ''}
          disabled={disabled || sectors.length === 0}
          onChange={(e) => {
            if (e.target.value !== '') actor.send({ type: 'user.useSector', index: Number(e.target.value) });
          }}
        >
          <option value="">{sectorsError ? 'Sectors unavailable' : 'Choose a sector…'}</option>
          {sectors.map((s, i) => (
            <option key={s.sector} value={i}>
              {s.sector} ({s.symbols.length})
            </option>
          ))}
        </select>
      </label>
      {sectorsError && (
        <button type="button" className="link-button" onClick={() => actor.send({ type: 'user.retrySectors' })}>
          Load the sectors again
        </button>
      )}
      {source === 'custom' && <span className="hint">Your own list</span>}
      <span className="hint dash-count">
        {saving ? 'Saving… ' : ''}
        {count} of {DASHBOARD_STOCKS_MAX} stocks
      </span>
    </nav>
  );
}
