/**
 * Company statistics: pick a company, then one card per statistic of the user's list (revenue, gross profit,
 * net income, EPS) drawn as a bar chart of its annual or quarterly figures. Each card switches its period and
 * how many figures it shows, and can be removed; statistics not shown can be added. Every change is saved.
 */
import { useMachine } from '@xstate/react';
import { useEffect, useId, useState } from 'react';
import type { CompanyStat, CompanyStatType } from '../../../domain/companystats/companystats.ts';
import { formatNumber } from '../../../domain/format.ts';
import { Chart } from '../../components/Chart.tsx';
import { Dismissible, Empty, Failed, Skeleton } from '../../components/LoadState.tsx';
import { SymbolChip } from '../../components/SymbolChip.tsx';
import { SymbolSearch } from '../../components/SymbolSearch.tsx';
import { unknownCompanyText } from '../../components/symbolSearch.machine.ts';
import { navigate, useLocation } from '../../services/router.ts';
import {
  STAT_TITLES,
  addableTypes,
  barsOf,
  companyStatsMachine,
  figureKey,
  limitChoices,
  limitLabel,
  type FigureLoad,
} from './companystats.machine.ts';
import './companystats.css';

const machine = companyStatsMachine.provide({
  actions: {
    showSymbol: (_, params: { symbol: string; replace: boolean }) =>
      navigate(`/CompanyStats?stock=${encodeURIComponent(params.symbol)}`, { replace: params.replace }),
  },
});

/** A figure as the chart's hover shows it: dollars per share for EPS, else the display rule. */
function figureText(type: CompanyStatType, value: number): string {
  return type === 'earningspershare' ? `$${value.toFixed(2)}` : `$${formatNumber(value)}`;
}

/** One statistic: its controls and its bar chart. */
function StatCard(props: {
  readonly symbol: string;
  readonly stat: CompanyStat;
  readonly figures: FigureLoad | undefined;
  readonly removable: boolean;
  readonly onPeriod: (period: 'A' | 'Q') => void;
  readonly onLimit: (limit: number) => void;
  readonly onRemove: () => void;
  readonly onRetry: () => void;
}) {
  const { stat, figures, symbol } = props;
  const id = useId();
  const title = STAT_TITLES[stat.type];
  const periodName = stat.period === 'A' ? 'annual' : 'quarterly';
  let body;
  if (!figures || figures.status === 'loading') {
    body = <Skeleton lines={4} height={28} />;
  } else if (figures.status === 'failed') {
    body = <Failed message={figures.error} onRetry={props.onRetry} />;
  } else if (figures.rows.length === 0) {
    body = (
      <Empty>
        No {periodName} figures are reported for {symbol}: try the other period.
      </Empty>
    );
  } else {
    const bars = barsOf(figures.rows);
    body = (
      <Chart
        label={`${title} of ${symbol}, ${periodName}, ${bars.x.length} figures from ${bars.x[0]} to ${bars.x.at(-1)}`}
        height={240}
        data={[
          {
            type: 'bar',
            x: bars.x,
            y: bars.y,
            text: bars.y.map((v) => figureText(stat.type, v)),
            textposition: 'none',
            hovertemplate: '%{x}: %{text}<extra></extra>',
            marker: { color: bars.y.map((v) => (v < 0 ? '#c62828' : '#2563eb')) },
          },
        ]}
        layout={{
          margin: { l: 56, r: 8, t: 8, b: 56 },
          xaxis: { type: 'category', tickangle: stat.period === 'Q' ? -45 : 'auto', automargin: true },
          yaxis:
            stat.type === 'earningspershare'
              ? { tickprefix: '$', tickformat: '.2f' }
              : { tickprefix: '$', exponentformat: 'B' },
          bargap: 0.25,
        }}
        config={{ displayModeBar: false }}
      />
    );
  }
  return (
    <section className="card stat-card" aria-labelledby={`${id}-title`} data-stat={stat.type}>
      <header className="stat-card-header">
        <h2 id={`${id}-title`}>{title}</h2>
        <div className="segmented" role="group" aria-label={`Period of ${title}`}>
          {(['A', 'Q'] as const).map((period) => (
            <button
              key={period}
              type="button"
              className={stat.period === period ? 'active' : undefined}
              aria-pressed={stat.period === period}
              onClick={() => props.onPeriod(period)}
            >
              {period === 'A' ? 'Annual' : 'Quarterly'}
            </button>
          ))}
        </div>
        <label className="stat-limit">
          <span className="sr-only">Figures of {title}</span>
          <select value={stat.limit} onChange={(e) => props.onLimit(Number(e.target.value))}>
            {limitChoices(stat.limit).map((limit) => (
              <option key={limit} value={limit}>
                {limitLabel(limit)}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          className="icon-button small"
          aria-label={`Remove the ${title} card`}
          title={props.removable ? `Remove ${title}` : 'The last statistic stays'}
          disabled={!props.removable}
          onClick={props.onRemove}
        >
          ✕
        </button>
      </header>
      {body}
    </section>
  );
}

/** The company statistics screen. */
export default function CompanyStatsScreen() {
  const location = useLocation();
  const stock = location.params.get('stock');
  const [state, send] = useMachine(machine, { input: { symbol: stock } });
  const { symbol, company, stats, statsError, saveError, figures } = state.context;
  const [choice, setChoice] = useState<CompanyStatType | ''>('');
  const addable = addableTypes(stats);
  const toAdd = choice !== '' && addable.includes(choice) ? choice : (addable[0] ?? '');

  useEffect(() => {
    if (stock && stock.trim() !== '') send({ type: 'user.pickSymbol', symbol: stock });
  }, [stock, send]);

  const statsLoading = state.matches({ stats: 'loading' }) && stats.length === 0;
  return (
    <section className="screen companystats" aria-labelledby="companystats-title">
      <div className="companystats-header">
        <h1 id="companystats-title">Company statistics</h1>
        {symbol && !state.matches({ company: 'unknown' }) && (
          <p className="companystats-company">
            <SymbolChip symbol={symbol} />
            {company ? (
              <span>
                {company.name} · {company.sector} · market cap ${formatNumber(company.marketcap)}
              </span>
            ) : null}
          </p>
        )}
      </div>
      <div className="toolbar">
        <SymbolSearch
          label="Company"
          placeholder="Symbol or company, e.g. MSFT"
          onPick={(hit) => send({ type: 'user.pickSymbol', symbol: hit.symbol })}
        />
        {state.matches({ stats: 'ready' }) &&
          (addable.length > 0 ? (
            <form
              className="stat-add"
              onSubmit={(event) => {
                event.preventDefault();
                if (toAdd !== '') send({ type: 'user.addStat', statType: toAdd });
                setChoice('');
              }}
            >
              <label>
                Add a statistic
                <select value={toAdd} onChange={(e) => setChoice(e.target.value as CompanyStatType)}>
                  {addable.map((type) => (
                    <option key={type} value={type}>
                      {STAT_TITLES[type]}
                    </option>
                  ))}
                </select>
              </label>
              <button type="submit" className="button primary">
                Add
              </button>
            </form>
          ) : (
            <p className="hint">Every statistic is shown.</p>
          ))}
      </div>
      {statsError && (
        <div className="failed companystats-notice" role="alert">
          <span>Your statistics could not be loaded ({statsError}): showing the defaults.</span>
          <button type="button" className="button" onClick={() => send({ type: 'user.retry' })}>
            Retry
          </button>
        </div>
      )}
      {saveError && (
        <Dismissible
          message={saveError}
          className="companystats-notice"
          onDismiss={() => send({ type: 'user.dismissError' })}
        />
      )}
      {state.matches({ company: 'choosing' }) || statsLoading ? (
        <Skeleton lines={8} />
      ) : !symbol ? (
        <Empty>Pick a company above to see its revenue, profit and earnings.</Empty>
      ) : state.matches({ company: 'unknown' }) ? (
        <Empty>{unknownCompanyText(symbol)}</Empty>
      ) : (
        <div className="companystats-cards">
          {stats.map((stat) => (
            <StatCard
              key={stat.type}
              symbol={symbol}
              stat={stat}
              figures={figures[figureKey(symbol, stat)]}
              removable={stats.length > 1}
              onPeriod={(period) => send({ type: 'user.modifyStat', statType: stat.type, period })}
              onLimit={(limit) => send({ type: 'user.modifyStat', statType: stat.type, limit })}
              onRemove={() => send({ type: 'user.removeStat', statType: stat.type })}
              onRetry={() => send({ type: 'user.retryFigures', statType: stat.type })}
            />
          ))}
        </div>
      )}
      {state.matches({ stats: { ready: 'saving' } }) && (
        <p className="hint" role="status">
          Saving…
        </p>
      )}
    </section>
  );
}
