/**
 * A stock card: "SYM  price  change (pct%)" live and tinted by sign, flashing on change; the 50- and 200-day
 * SMA; a body that is the small chart (the slider's period or today's live prices), the company info, the
 * recent patterns with the change since, or the fundamentals; and the card's actions.
 */
import { useMachine } from '@xstate/react';
import { memo, useEffect, useMemo, useState, type FormEvent } from 'react';
import type { Data, Layout, Shape } from 'plotly.js';
import { Chart } from '../../components/Chart.tsx';
import { Failed, Skeleton } from '../../components/LoadState.tsx';
import { SymbolChip } from '../../components/SymbolChip.tsx';
import { formatNumber } from '../../../domain/format.ts';
import type { Quote } from '../../../domain/market/types.ts';
import { usePreferences } from '../../services/preferences.ts';
import { chartPath, navigate } from '../../services/router.ts';
import { TRADING_DAY, plotTime, tradingDayTitle, zoneLabel } from '../../services/time.ts';
import {
  alertDirection,
  cardMachine,
  FUNDAMENTAL_TYPES,
  FUNDAMENTAL_YEARS,
  type CardBar,
  type CardMode,
  type CompanyInfo,
  type Fundamentals,
  type RecentPattern,
} from './card.machine.ts';
import {
  axisTicks,
  cardAlertMarks,
  cardAverage,
  changeSince,
  paddedRange,
  patternLabel,
  peRatio,
  periodBars,
  sliderMonths,
  todayLine,
  type CardMarks,
  type TrailPoint,
} from './dashboard.logic.ts';
import { formatPercent, formatSigned, signClass } from '../watchlist/quotes.ts';
import { Dashboard } from './dashboardActor.ts';

const cardLogic = cardMachine.provide({
  actions: { openChart: (_, params) => navigate(chartPath(params.symbol)) },
});

const UP = '#138a36';
const DOWN = '#c62828';
const ALERT = '#d97706';
/** The fill of a channel alert's band: the alert colour, translucent. */
const ALERT_BAND = 'rgba(217,119,6,0.12)';
const NO_TRAIL: readonly TrailPoint[] = [];
const NO_MARKS: CardMarks = { levels: [], bands: [] };

const MODES: readonly { readonly mode: CardMode; readonly label: string }[] = [
  { mode: 'chart', label: 'Chart' },
  { mode: 'info', label: 'Company' },
  { mode: 'patterns', label: 'Patterns' },
  { mode: 'fundamentals', label: 'Financials' },
];

const FUNDAMENTAL_LABELS: Readonly<Record<(typeof FUNDAMENTAL_TYPES)[number], string>> = {
  revenue: 'Revenue',
  grossprofit: 'Gross profit',
  income: 'Net income',
  earningspershare: 'EPS',
};

function price(value: number): string {
  return value.toFixed(2);
}

/** The small chart: closes over the period (or today's live prices) and the alert lines when shown. */
const CardChart = memo(function CardChart(props: {
  readonly symbol: string;
  readonly bars: readonly CardBar[];
  readonly trail: readonly TrailPoint[] | null;
  /** The alerts' lines and bands, when shown (`cardAlertMarks`). */
  readonly marks: CardMarks | null;
  readonly height: number;
  readonly interactive: boolean;
}) {
  const { symbol, bars, trail, marks, height, interactive } = props;
  const { timeZone } = usePreferences();
  const figure = useMemo(() => {
    // Live prices at their time in the chosen zone; closes by their New York trading day.
    const x = trail ? trail.map((p) => plotTime(p.ts, timeZone) ?? p.ts) : bars.map((b) => b.date);
    const y = trail ? trail.map((p) => p.price) : bars.map((b) => b.close);
    const first = y[0] ?? 0;
    const last = y.at(-1) ?? 0;
    const color = last >= first ? UP : DOWN;
    const data: Data[] = [
      {
        type: 'scatter',
        mode: trail ? 'lines+markers' : 'lines',
        x,
        y,
        line: { color, width: 1.6 },
        marker: { size: 3 },
        hovertemplate: trail
          ? `%{x|%H:%M:%S} ${zoneLabel(trail.at(-1)?.ts ?? Date.now(), timeZone)}<br>%{y:.2f}<extra></extra>`
          : `%{x|%Y-%m-%d} (${TRADING_DAY})<br>%{y:.2f}<extra></extra>`,
        name: symbol,
      },
    ];
    const { levels, bands } = marks ?? NO_MARKS;
    const shapes: Partial<Shape>[] = [
      ...bands.map((b): Partial<Shape> => ({
        type: 'rect',
        xref: 'paper',
        x0: 0,
        x1: 1,
        y0: b.lower,
        y1: b.upper,
        line: { color: ALERT, width: 1, dash: 'dash' },
        fillcolor: ALERT_BAND,
        layer: 'below',
      })),
      ...levels.map((a): Partial<Shape> => ({
        type: 'line',
        xref: 'paper',
        x0: 0,
        x1: 1,
        y0: a.y,
        y1: a.y,
        line: { color: ALERT, width: 1, dash: 'dash' },
      })),
    ];
    // Padded, so the lowest price label clears the dates; the alert lines shown stay on the chart.
    const range = paddedRange([...y, ...levels.map((a) => a.y), ...bands.flatMap((b) => [b.lower, b.upper])]);
    const layout: Partial<Layout> = {
      margin: { l: 44, r: 8, t: 6, b: 22 },
      showlegend: false,
      hovermode: 'x',
      xaxis: { showgrid: false, tickfont: { size: 10 }, nticks: 4 },
      // Labels at round steps within the range: two to five of them, whatever the prices' span.
      yaxis: {
        tickfont: { size: 10 },
        ...(range ? { range, tickmode: 'array', tickvals: axisTicks(range) } : { nticks: 4 }),
      },
      shapes,
      annotations: [
        ...levels.map((a) => ({ y: a.y, text: a.text })),
        ...bands.map((b) => ({ y: b.upper, text: b.text })),
      ].map((a) => ({
        xref: 'paper',
        x: 1,
        xanchor: 'right',
        y: a.y,
        yanchor: 'bottom',
        text: a.text,
        showarrow: false,
        font: { size: 10, color: ALERT },
      })),
    };
    return { data, layout };
  }, [symbol, bars, trail, marks, timeZone]);
  const config = useMemo(() => ({ displayModeBar: false, staticPlot: !interactive }), [interactive]);
  if ((trail ?? bars).length === 0) {
    return <p className="hint">{trail ? 'No live prices yet today: they appear as they arrive.' : 'No bars.'}</p>;
  }
  return (
    <Chart
      data={figure.data}
      layout={figure.layout}
      config={config}
      height={height}
      label={trail ? `${symbol} prices today` : `${symbol} closing prices`}
    />
  );
});

function InfoBody({ info, quote }: { readonly info: CompanyInfo; readonly quote: Quote | undefined }) {
  const pe = quote ? peRatio(quote.price, info.eps) : null;
  return (
    <dl className="card-facts">
      <dt>Company</dt>
      <dd title={info.industry}>{info.name}</dd>
      <dt>Market cap</dt>
      <dd>{formatNumber(info.marketcap)}</dd>
      <dt>P/E</dt>
      <dd>{pe === null ? 'n/a' : formatNumber(pe)}</dd>
      <dt>EPS{info.epsYear ? ` (FY ${info.epsYear})` : ''}</dt>
      <dd>{info.eps === null ? 'n/a' : formatNumber(info.eps)}</dd>
      <dt>52-week range</dt>
      <dd>{info.range52 ? `${price(info.range52.low)} – ${price(info.range52.high)}` : 'n/a'}</dd>
      <dt>Volume</dt>
      <dd>{quote ? formatNumber(quote.volume) : 'n/a'}</dd>
      <dt>Sector</dt>
      <dd>{info.sector || 'n/a'}</dd>
    </dl>
  );
}

function PatternsBody({ patterns, quote }: { readonly patterns: readonly RecentPattern[]; readonly quote?: Quote }) {
  if (patterns.length === 0) return <p className="empty">No patterns in the last 60 trading days.</p>;
  return (
    <ul className="card-patterns">
      {patterns.slice(0, 6).map((row) => {
        const since = quote ? changeSince(row.close, quote.price) : null;
        return (
          <li key={row.date}>
            <span className="card-pattern-date" title={tradingDayTitle()}>
              {row.date}
            </span>
            <span className="card-pattern-names">
              {row.patterns.map((p) => (
                <span key={p.name} className={p.bullish === true ? 'up' : p.bullish === false ? 'down' : ''}>
                  {patternLabel(p.name)}
                </span>
              ))}
            </span>
            <span className={`card-pattern-since ${signClass(since?.pct)}`} title="Change since that day's close">
              {since ? `${formatPercent(since.pct)} since` : '–'}
            </span>
          </li>
        );
      })}
    </ul>
  );
}

function FundamentalsBody({ fundamentals }: { readonly fundamentals: Fundamentals }) {
  const years = [...new Set(FUNDAMENTAL_TYPES.flatMap((t) => fundamentals[t].map((f) => f.fy)))]
    .sort((a, b) => b - a)
    .slice(0, FUNDAMENTAL_YEARS);
  if (years.length === 0) return <p className="empty">No fundamentals for this company.</p>;
  return (
    <table className="card-table">
      <caption className="sr-only">Fundamentals by fiscal year</caption>
      <thead>
        <tr>
          <th scope="col">FY</th>
          {years.map((y) => (
            <th key={y} scope="col">
              {y}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {FUNDAMENTAL_TYPES.map((type) => (
          <tr key={type}>
            <th scope="row">{FUNDAMENTAL_LABELS[type]}</th>
            {years.map((y) => {
              const value = fundamentals[type].find((f) => f.fy === y)?.val;
              return <td key={y}>{value === undefined ? '–' : formatNumber(value)}</td>;
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function AlertForm(props: {
  readonly symbol: string;
  readonly price: number | null;
  readonly onSubmit: (threshold: number) => void;
  readonly onCancel: () => void;
}) {
  const [text, setText] = useState(props.price === null ? '' : price(props.price));
  const value = Number(text);
  const valid = text.trim() !== '' && Number.isFinite(value) && value > 0;
  const direction = valid && props.price !== null ? alertDirection(value, props.price) : null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (valid) props.onSubmit(Math.round(value * 100) / 100);
  };
  return (
    <form className="card-alert-form" onSubmit={submit} aria-label={`New ${props.symbol} price alert`}>
      <label>
        Alert price
        <input
          type="number"
          inputMode="decimal"
          min="0.01"
          step="0.01"
          value={text}
          autoFocus
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape') props.onCancel();
          }}
        />
      </label>
      <button type="submit" className="button primary small" disabled={!valid}>
        Create alert
      </button>
      <button type="button" className="button small" onClick={props.onCancel}>
        Cancel
      </button>
      {direction && (
        <span className="hint">
          {direction === 'U' ? 'Fires when the price rises to it' : 'Fires when the price falls to it'}
        </span>
      )}
    </form>
  );
}

/** A card of the dashboard. */
export function StockCard({ symbol }: { readonly symbol: string }) {
  const dashboard = Dashboard.useActorRef();
  const months = Dashboard.useSelector((s) => sliderMonths(s.context.options.slider));
  const showDetail = Dashboard.useSelector((s) => s.context.options.showcarddetail);
  const showActions = Dashboard.useSelector((s) => s.context.options.showcardactions);
  const quote = Dashboard.useSelector((s) => s.context.live.quotes[symbol]);
  const flash = Dashboard.useSelector((s) => s.context.live.flashes[symbol]);
  const [range, setRange] = useState<'period' | 'today'>('period');
  const liveTrail = Dashboard.useSelector((s) =>
    range === 'today' ? (s.context.live.trails[symbol] ?? NO_TRAIL) : null,
  );
  const [state, send] = useMachine(cardLogic, { input: { symbol, months } });
  // Today's line: the session's minutes from the server, then the live prices since the page opened.
  const session = state.context.session;
  const trail = useMemo(() => (liveTrail === null ? null : todayLine(session, liveTrail)), [liveTrail, session]);
  const [expanded, setExpanded] = useState(false);
  const [alertFormOpen, setAlertFormOpen] = useState(false);
  useEffect(() => send({ type: 'parent.months', months }), [months, send]);

  const ctx = state.context;
  const lastBar = ctx.bars.at(-1);
  // The period's line ends at the live price, today's bar formed from the quote.
  const shownBars = useMemo(() => periodBars(ctx.bars, ctx.next, quote), [ctx.bars, ctx.next, quote]);
  const current = quote?.price ?? lastBar?.close ?? null;
  const sign = signClass(quote?.change);
  const alertsShown = state.matches({ alerts: 'shown' });
  // The alerts' lines and bands on the chart, and how many alerts it has none for (on another series, against
  // one, or a move).
  const marks = useMemo(() => (alertsShown ? cardAlertMarks(ctx.alerts) : null), [alertsShown, ctx.alerts]);
  const undrawn = marks === null ? null : ctx.alerts.length - marks.levels.length - marks.bands.length;
  const alertsBusy = state.matches({ alerts: 'loading' }) || state.matches({ alerts: 'saving' });
  const mode: CardMode = state.matches({ body: 'info' })
    ? 'info'
    : state.matches({ body: 'patterns' })
      ? 'patterns'
      : state.matches({ body: 'fundamentals' })
        ? 'fundamentals'
        : 'chart';

  // Today's averages at the live price, as the chart's forming candle and the alerts have them.
  const sma50 = cardAverage(50, ctx.bars, ctx.next, quote);
  const sma200 = cardAverage(200, ctx.bars, ctx.next, quote);
  const smaTone = (sma: number | null | undefined) =>
    sma === null || sma === undefined || current === null ? '' : signClass(current - sma);

  let body;
  if (mode === 'chart') {
    body = state.matches({ bars: 'loading' }) ? (
      <Skeleton lines={3} height={24} />
    ) : state.matches({ bars: 'failed' }) ? (
      <Failed message={ctx.barsError ?? 'The chart could not be loaded'} onRetry={() => send({ type: 'user.retry' })} />
    ) : (
      <CardChart
        symbol={symbol}
        bars={shownBars}
        trail={trail}
        marks={marks}
        height={expanded ? 280 : 130}
        interactive={expanded}
      />
    );
  } else {
    const region = mode === 'info' ? 'info' : mode === 'patterns' ? 'patterns' : 'fundamentals';
    const loading = state.matches({ body: { [region]: 'loading' } }) || state.matches({ body: { [region]: 'check' } });
    const error = mode === 'info' ? ctx.infoError : mode === 'patterns' ? ctx.patternsError : ctx.fundamentalsError;
    body = loading ? (
      <Skeleton lines={4} />
    ) : state.matches({ body: { [region]: 'failed' } }) ? (
      <Failed message={error ?? 'Could not be loaded'} onRetry={() => send({ type: 'user.retry' })} />
    ) : mode === 'info' && ctx.info ? (
      <InfoBody info={ctx.info} quote={quote} />
    ) : mode === 'patterns' && ctx.patterns ? (
      <PatternsBody patterns={ctx.patterns} {...(quote ? { quote } : {})} />
    ) : mode === 'fundamentals' && ctx.fundamentals ? (
      <FundamentalsBody fundamentals={ctx.fundamentals} />
    ) : null;
  }

  return (
    <article
      className={`card stock-card ${sign ? `tint-${sign}` : ''} ${expanded ? 'expanded' : ''}`}
      aria-label={`${symbol} card`}
      data-symbol={symbol}
    >
      <header className="stock-head">
        <SymbolChip symbol={symbol} />
        <span
          key={flash?.seq ?? 0}
          className={`stock-price ${flash ? `flash-${flash.dir}` : ''}`}
          data-testid={`price-${symbol}`}
        >
          {current === null ? '–' : price(current)}
        </span>
        <span className={`stock-change ${sign}`}>
          {quote ? `${formatSigned(quote.change)} (${formatPercent(quote.changepct)})` : '–'}
        </span>
      </header>
      {showDetail && (
        <>
          <p className="stock-sma">
            <span className={smaTone(sma50)}>
              SMA 50 <strong>{sma50 !== null ? price(sma50) : '–'}</strong>
            </span>
            <span className={smaTone(sma200)}>
              SMA 200 <strong>{sma200 !== null ? price(sma200) : '–'}</strong>
            </span>
          </p>
          <div className="segmented small" role="group" aria-label={`${symbol} card view`}>
            {MODES.map((m) => (
              <button
                key={m.mode}
                type="button"
                aria-pressed={mode === m.mode}
                onClick={() => send({ type: 'user.showMode', mode: m.mode })}
              >
                {m.label}
              </button>
            ))}
          </div>
          <div className="stock-body">
            {mode === 'chart' && (
              <div className="segmented tiny" role="group" aria-label={`${symbol} chart period`}>
                <button type="button" aria-pressed={range === 'period'} onClick={() => setRange('period')}>
                  {months === 1 ? '1 month' : `${months} months`}
                </button>
                <button
                  type="button"
                  aria-pressed={range === 'today'}
                  title="The session so far, then its live prices"
                  onClick={() => {
                    setRange('today');
                    send({ type: 'user.showToday' });
                  }}
                >
                  Today
                </button>
              </div>
            )}
            {body}
            {mode === 'chart' && alertsShown && undrawn !== null && undrawn === ctx.alerts.length && (
              <p className="hint">
                No price alerts on {symbol} yet: “Add alert” creates one
                {undrawn > 0
                  ? ` (${undrawn === 1 ? '1 alert on another condition' : `${undrawn} alerts on other conditions`})`
                  : ''}
                .
              </p>
            )}
          </div>
        </>
      )}
      {ctx.alertsError && (
        <Failed
          message={ctx.alertsError}
          {...(state.matches({ alerts: 'failed' }) ? { onRetry: () => send({ type: 'user.retry' }) } : {})}
        />
      )}
      {alertFormOpen && (
        <AlertForm
          symbol={symbol}
          price={current}
          onCancel={() => setAlertFormOpen(false)}
          onSubmit={(threshold) => {
            setAlertFormOpen(false);
            if (mode !== 'chart') send({ type: 'user.showMode', mode: 'chart' });
            send({ type: 'user.addAlert', threshold, price: current ?? threshold });
          }}
        />
      )}
      {showActions && (
        <div className="card-actions" role="group" aria-label={`${symbol} actions`}>
          <button type="button" className="button small" onClick={() => send({ type: 'user.openChart' })}>
            Open chart
          </button>
          <button
            type="button"
            className="button small"
            aria-pressed={alertsShown}
            disabled={alertsBusy}
            onClick={() => {
              if (mode !== 'chart') send({ type: 'user.showMode', mode: 'chart' });
              send({ type: 'user.toggleAlertLines' });
            }}
          >
            Alert lines
          </button>
          <button
            type="button"
            className="button small"
            aria-expanded={alertFormOpen}
            onClick={() => setAlertFormOpen((open) => !open)}
          >
            Add alert
          </button>
          <span className="card-actions-end">
            <button
              type="button"
              className="icon-button small"
              aria-label={expanded ? `Collapse ${symbol}` : `Expand ${symbol}`}
              aria-expanded={expanded}
              title={expanded ? 'Collapse' : 'Expand'}
              onClick={() => setExpanded((v) => !v)}
            >
              {expanded ? '⤡' : '⤢'}
            </button>
            <button
              type="button"
              className="icon-button small"
              aria-label={`Remove ${symbol} from the dashboard`}
              title="Remove from the dashboard"
              onClick={() => dashboard.send({ type: 'user.removeSymbol', symbol })}
            >
              ✕
            </button>
          </span>
        </div>
      )}
    </article>
  );
}
