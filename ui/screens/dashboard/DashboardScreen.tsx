/**
 * The dashboard (/Dashboard): the user's layouts, each showing its components (performance chart, stock
 * cards, alerts and notifications, market movers, latest patterns); the options; and the bottom bar that
 * chooses where the dashboard's stocks come from.
 */
import { useState } from 'react';
import { Empty, Skeleton } from '../../components/LoadState.tsx';
import { Link } from '../../components/Link.tsx';
import { chartPath, navigate } from '../../services/router.ts';
import { DASHBOARD_LAYOUTS_MAX, breadth, listSource, shownStocks, sliderLabel } from './dashboard.logic.ts';
import { formatPercent } from '../watchlist/quotes.ts';
import { dashboardMachine } from './dashboard.machine.ts';
import { Dashboard, sameItems } from './dashboardActor.ts';
import { LayoutRow } from './LayoutRow.tsx';
import { OptionsPanel } from './OptionsPanel.tsx';
import { SourceBar } from './SourceBar.tsx';
import './dashboard.css';

const machine = dashboardMachine.provide({
  actions: { openChart: (_, params) => navigate(chartPath(params.symbol)) },
});

/** The line under the title: how many stocks, from where, over which period; with today's breadth when detailed. */
function Subheader() {
  const shown = Dashboard.useSelector((s) => shownStocks(s.context.lists), sameItems);
  const subheader = Dashboard.useSelector((s) => s.context.options.subheader);
  const slider = Dashboard.useSelector((s) => s.context.options.slider);
  const source = Dashboard.useSelector((s) => listSource(s.context.lists, s.context.options));
  const sector = Dashboard.useSelector((s) => s.context.sectors[s.context.options.selectedsector]?.sector ?? '');
  const loading = Dashboard.useSelector((s) => s.matches({ list: 'loading' }));
  const quotes = Dashboard.useSelector((s) => (subheader === 'detailed' ? s.context.live.quotes : null));
  if (loading) return <p className="dash-subheader">Loading your stocks…</p>;
  const from =
    source === 'portfolio'
      ? 'your portfolio'
      : source === 'watchlist'
        ? 'your watch list'
        : source === 'sector'
          ? `the ${sector || 'chosen'} sector`
          : 'your own list';
  const count = `${shown.length} ${shown.length === 1 ? 'stock' : 'stocks'}`;
  const today = quotes ? breadth(shown, quotes) : null;
  return (
    <p className="dash-subheader">
      {count} from {from} · charts over {sliderLabel(slider)}
      {today && (
        <>
          {' · today: '}
          <span className="up">{today.up} up</span>, <span className="down">{today.down} down</span>
          {today.flat > 0 ? `, ${today.flat} unchanged` : ''}
          {today.averagePct !== null && (
            <>
              {', average '}
              <span className={today.averagePct > 0 ? 'up' : today.averagePct < 0 ? 'down' : ''}>
                {formatPercent(today.averagePct)}
              </span>
            </>
          )}
        </>
      )}
    </p>
  );
}

/** Load notes (the defaults are in use) and the messages of refused or failed changes. */
function Notices() {
  const actor = Dashboard.useActorRef();
  const layoutNote = Dashboard.useSelector((s) => s.context.layoutNote);
  const optionsNote = Dashboard.useSelector((s) => s.context.optionsNote);
  const messages = Dashboard.useSelector(
    (s) => [s.context.layoutError, s.context.optionsError, s.context.listNotice].filter((m): m is string => !!m),
    sameItems,
  );
  return (
    <>
      {layoutNote && (
        <p className="hint dash-note">
          {layoutNote}.{' '}
          <button type="button" className="link-button" onClick={() => actor.send({ type: 'user.retryLayout' })}>
            Load my layout again
          </button>
        </p>
      )}
      {optionsNote && <p className="hint dash-note">{optionsNote}.</p>}
      {messages.length > 0 && (
        <div className="dash-notice" role="status">
          <span>{messages.join(' · ')}</span>
          <button
            type="button"
            className="icon-button small"
            aria-label="Dismiss the message"
            onClick={() => actor.send({ type: 'user.dismissNotice' })}
          >
            ✕
          </button>
        </div>
      )}
    </>
  );
}

function DashboardView() {
  const actor = Dashboard.useActorRef();
  const layouts = Dashboard.useSelector((s) => s.context.layouts);
  const loading = Dashboard.useSelector((s) => s.matches({ settings: 'loading' }));
  const [optionsOpen, setOptionsOpen] = useState(false);
  return (
    <section className="screen dashboard" aria-labelledby="dashboard-title">
      <header className="dash-header">
        <div>
          <h1 id="dashboard-title">Dashboard</h1>
          <Subheader />
        </div>
        <div className="dash-tools">
          <nav className="dash-links" aria-label="Your lists">
            <Link to="/Watchlist" className="button">
              Watch list
            </Link>
            <Link to="/Portfolio" className="button">
              Portfolio
            </Link>
            <Link to="/CompanyStats" className="button">
              Company statistics
            </Link>
          </nav>
          <button
            type="button"
            className="button"
            aria-expanded={optionsOpen}
            aria-controls="dash-options"
            onClick={() => setOptionsOpen((open) => !open)}
          >
            Options
          </button>
          <button
            type="button"
            className="button"
            disabled={loading || layouts.length >= DASHBOARD_LAYOUTS_MAX}
            onClick={() => actor.send({ type: 'user.addLayout' })}
          >
            Add layout
          </button>
        </div>
      </header>
      <Notices />
      {optionsOpen && <OptionsPanel id="dash-options" onClose={() => setOptionsOpen(false)} />}
      {loading ? (
        <Skeleton lines={8} height={28} />
      ) : layouts.length === 0 ? (
        <Empty>Your dashboard has no layouts: use “Add layout”, then choose its components.</Empty>
      ) : (
        layouts.map((layout) => <LayoutRow key={layout.layoutId} layout={layout} />)
      )}
      <SourceBar />
    </section>
  );
}

/** The dashboard screen. */
export default function DashboardScreen() {
  return (
    <Dashboard.Provider logic={machine}>
      <DashboardView />
    </Dashboard.Provider>
  );
}
