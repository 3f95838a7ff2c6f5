/**
 * Analyze (/Analyzer): latest patterns by date with live prices, the stock list ranked by pattern days with
 * each symbol's pattern timeline, and the pattern statistics.
 */
import { useMachine } from '@xstate/react';
import { memo, useMemo, useState } from 'react';
import type { ColDef, ColGroupDef, ValueFormatterParams } from 'ag-grid-community';
import { formatSigned, formatSignedPercent } from '../../../domain/format.ts';
import { Chart } from '../../components/Chart.tsx';
import { Grid } from '../../components/Grid.tsx';
import { Empty, Failed, Skeleton } from '../../components/LoadState.tsx';
import { plural } from '../../components/plural.ts';
import { SymbolChip } from '../../components/SymbolChip.tsx';
import { tradingDayTitle } from '../../services/time.ts';
import { signClass } from '../watchlist/quotes.ts';
import {
  analyzeMachine,
  changeSince,
  directionOf,
  filterCards,
  formatPrice,
  patternLabel,
  RANK_DAYS,
  shortDate,
  statRows,
  timelineFigure,
  timelinePoints,
  type AnalyzeTab,
  type CardFilter,
  type LivePrice,
  type PatternCard,
  type PatternDefinition,
  type StatRow,
  type TimelineDay,
} from './analyze.machine.ts';
import { Tabs } from './Tabs.tsx';
import './analyze.css';

type Definitions = Readonly<Record<string, PatternDefinition>>;

/**
 * A card's live price, flashing the direction of its last move. The element stays: a move in the same direction
 * as the one before replays the flash through the animation's second name (`again`), so no element is created.
 * The change goes under the price when the two do not fit beside the symbol (`analyze.css`).
 */
function LivePriceTag({ price }: { price: LivePrice }) {
  const flash = price.flash ? ` flash-${price.flash}${price.seq % 2 === 0 ? ' again' : ''}` : '';
  return (
    <span className={`live-price${flash}`}>
      <strong>{formatPrice(price.price)}</strong>{' '}
      <span className={`live-change ${signClass(price.change)}`}>
        {formatSigned(price.change)} ({formatSignedPercent(price.changepct)})
      </span>
    </span>
  );
}

/** A stock's card; drawn again only when its own price (or card) changes, not on every other card's quote. */
const Card = memo(function Card({
  card,
  price,
  definitions,
}: {
  card: PatternCard;
  price?: LivePrice;
  definitions: Definitions;
}) {
  const since = changeSince(card.close, price?.price);
  return (
    <article className="card pattern-card" aria-label={`${card.symbol} patterns`}>
      <header>
        <SymbolChip symbol={card.symbol} />
        {price ? <LivePriceTag price={price} /> : <span className="live-price hint">price…</span>}
      </header>
      <ul className="pattern-list">
        {card.patterns.map((p) => (
          <li key={p.name} className={`pattern ${directionOf(p.bullish)}`} title={definitions[p.name]?.definition}>
            {p.bullish === true ? '▲ ' : p.bullish === false ? '▼ ' : '◆ '}
            {patternLabel(p.name, definitions)}
          </li>
        ))}
      </ul>
      <p className="since">
        {since === null ? (
          <span className="hint">Change since {shortDate(card.date)}: waiting for the price</span>
        ) : (
          <>
            Since {shortDate(card.date)} close {card.close === null ? '' : formatPrice(card.close)}:{' '}
            <strong className={signClass(since.change)}>
              {formatSigned(since.change)} ({formatSignedPercent(since.pct)})
            </strong>
          </>
        )}
      </p>
    </article>
  );
});

/** A symbol's pattern timeline; its chart is drawn again only when its days, window or definitions change. */
const Timeline = memo(function Timeline({
  days,
  window,
  definitions,
}: {
  days: readonly TimelineDay[];
  window: { from: string | null; to: string | null } | null;
  definitions: Definitions;
}) {
  const figure = useMemo(() => timelineFigure(days, window, definitions), [days, window, definitions]);
  const points = timelinePoints(days, definitions);
  return (
    <Chart
      data={figure.data}
      height={84}
      label={`Pattern timeline: ${points.bullish.x.length} bullish, ${points.bearish.x.length} bearish, ${points.neutral.x.length} neutral days`}
      layout={figure.layout}
      config={{ displayModeBar: false, staticPlot: false }}
    />
  );
});

const percent = (digits: number) => (p: ValueFormatterParams<StatRow, number | null>) =>
  p.value === null || p.value === undefined ? '–' : `${(p.value * 100).toFixed(digits)}%`;
const signedPercent = (p: ValueFormatterParams<StatRow, number | null>) =>
  formatSignedPercent((p.value ?? Number.NaN) * 100, '–');
const medianClass = (p: { value: number | null | undefined }) =>
  p.value === null || p.value === undefined ? '' : p.value > 0 ? 'up' : p.value < 0 ? 'down' : '';

const statColumns: (ColDef<StatRow> | ColGroupDef<StatRow>)[] = [
  { headerName: 'Pattern', field: 'label', minWidth: 170, flex: 2, tooltipField: 'definition', pinned: 'left' },
  {
    headerName: 'Direction',
    field: 'direction',
    flex: 1,
    minWidth: 110,
    valueFormatter: (p: ValueFormatterParams<StatRow, string>) =>
      p.value ? p.value.charAt(0).toUpperCase() + p.value.slice(1) : '',
    cellClass: (p) => (p.value === 'bullish' ? 'up' : p.value === 'bearish' ? 'down' : ''),
  },
  { headerName: 'Occurrences', field: 'count', flex: 1, minWidth: 130, type: 'numericColumn', sort: 'desc' },
  {
    headerName: 'Hit rate',
    children: [
      { headerName: '1 day', field: 'hit1', flex: 1, minWidth: 90, type: 'numericColumn', valueFormatter: percent(1) },
      { headerName: '5 days', field: 'hit5', flex: 1, minWidth: 90, type: 'numericColumn', valueFormatter: percent(1) },
      {
        headerName: '20 days',
        field: 'hit20',
        flex: 1,
        minWidth: 90,
        type: 'numericColumn',
        valueFormatter: percent(1),
      },
    ],
  },
  {
    headerName: 'Median return',
    children: [
      {
        headerName: '1 day',
        field: 'median1',
        flex: 1,
        minWidth: 90,
        type: 'numericColumn',
        valueFormatter: signedPercent,
        cellClass: medianClass,
      },
      {
        headerName: '5 days',
        field: 'median5',
        flex: 1,
        minWidth: 90,
        type: 'numericColumn',
        valueFormatter: signedPercent,
        cellClass: medianClass,
      },
      {
        headerName: '20 days',
        field: 'median20',
        flex: 1,
        minWidth: 90,
        type: 'numericColumn',
        valueFormatter: signedPercent,
        cellClass: medianClass,
      },
    ],
  },
];

/** How many patterns the day's cards show, and in how many stocks: "95 patterns in 90 stocks". */
function patternTotal(cards: readonly PatternCard[]): string {
  const patterns = cards.reduce((sum, card) => sum + card.patterns.length, 0);
  return `${plural(patterns, 'pattern')} in ${plural(cards.length, 'stock')}`;
}

const TABS: readonly { key: AnalyzeTab; label: string }[] = [
  { key: 'latest', label: 'Latest patterns' },
  { key: 'stocks', label: 'Stock list' },
  { key: 'stats', label: 'Pattern statistics' },
];

/** The Analyze page. */
export default function AnalyzeScreen() {
  const [state, send] = useMachine(analyzeMachine);
  const [filter, setFilter] = useState<CardFilter>('all');
  const { context } = state;
  const { tab, definitions } = context;
  const retry = (section: AnalyzeTab) => () => send({ type: 'user.retry', section });
  const rows = useMemo(() => statRows(context.stats, definitions), [context.stats, definitions]);

  let panel;
  if (tab === 'latest') {
    const cards = filterCards(context.cards, filter);
    const bullish = filterCards(context.cards, 'bullish').length;
    const bearish = filterCards(context.cards, 'bearish').length;
    panel = state.matches({ latest: 'loading' }) ? (
      <Skeleton lines={8} height={22} />
    ) : state.matches({ latest: 'failed' }) && context.dates.length === 0 ? (
      <Failed message={context.latestError ?? 'The pattern dates could not be loaded'} onRetry={retry('latest')} />
    ) : context.dates.length === 0 ? (
      <Empty>No patterns have been detected yet: they appear here once the market data is analysed.</Empty>
    ) : (
      <>
        <p className="hint">{tradingDayTitle('Pattern dates')}</p>
        <Tabs
          label="Pattern dates"
          idPrefix="pattern-date"
          className="tabs date-tabs"
          items={context.dates.map((d) => ({
            key: d.date,
            label: (
              <>
                {shortDate(d.date)}{' '}
                <span className="count" title={plural(d.patterncount, 'pattern')}>
                  {d.patterncount}
                  <span className="sr-only"> patterns</span>
                </span>
              </>
            ),
          }))}
          selected={context.date}
          onSelect={(date) => send({ type: 'user.selectDate', date })}
        />
        <div id="pattern-date-panel" role="tabpanel" aria-labelledby={`pattern-date-tab-${context.date ?? ''}`}>
          {state.matches({ latest: 'loadingDay' }) ? (
            <Skeleton lines={8} height={22} />
          ) : state.matches({ latest: 'failed' }) ? (
            <Failed message={context.latestError ?? 'The patterns could not be loaded'} onRetry={retry('latest')} />
          ) : context.cards.length === 0 ? (
            <Empty>No patterns on this date: pick another date.</Empty>
          ) : (
            <>
              <p className="hint pattern-total">{patternTotal(context.cards)}</p>
              <div className="toolbar card-filter" role="group" aria-label="Show">
                {(
                  [
                    ['all', `All stocks (${context.cards.length})`],
                    ['bullish', `Bullish (${bullish})`],
                    ['bearish', `Bearish (${bearish})`],
                  ] as const
                ).map(([key, label]) => (
                  <button
                    key={key}
                    type="button"
                    className={filter === key ? 'button primary' : 'button'}
                    aria-pressed={filter === key}
                    onClick={() => setFilter(key)}
                  >
                    {label}
                  </button>
                ))}
              </div>
              {cards.length === 0 ? (
                <Empty>No {filter} patterns on this date: show all of them.</Empty>
              ) : (
                <div className="cards pattern-cards">
                  {cards.map((card) => (
                    <Card
                      key={card.symbol}
                      card={card}
                      definitions={definitions}
                      {...(context.prices[card.symbol] ? { price: context.prices[card.symbol] } : {})}
                    />
                  ))}
                </div>
              )}
            </>
          )}
        </div>
      </>
    );
  } else if (tab === 'stocks') {
    const shown = context.ranked.slice(0, context.shown);
    panel =
      state.matches({ stocks: 'ranking' }) ||
      (state.matches({ stocks: 'timelines' }) && shown.every((r) => !(r.symbol in context.timelines))) ? (
        <Skeleton lines={10} height={28} />
      ) : state.matches({ stocks: 'failed' }) && shown.every((r) => !(r.symbol in context.timelines)) ? (
        <Failed message={context.stocksError ?? 'The stock list could not be loaded'} onRetry={retry('stocks')} />
      ) : context.ranked.length === 0 ? (
        <Empty>No stock had a pattern in the last {RANK_DAYS} trading days.</Empty>
      ) : (
        <>
          <p className="hint">
            Symbols ranked by the number of days with a pattern in the last {RANK_DAYS} trading days
            {context.window?.from ? ` (${context.window.from} to ${context.window.to ?? ''})` : ''}.
          </p>
          <ol className="ranked">
            {shown.map((r, i) => (
              <li key={r.symbol} className="card ranked-row">
                <span className="rank">{i + 1}</span>
                <div className="ranked-symbol">
                  <SymbolChip symbol={r.symbol} />
                  <span className="hint">{plural(r.count, 'pattern day')}</span>
                </div>
                <div className="ranked-timeline">
                  {r.symbol in context.timelines ? (
                    <Timeline
                      days={context.timelines[r.symbol] ?? []}
                      window={context.window}
                      definitions={definitions}
                    />
                  ) : (
                    <Skeleton lines={1} height={40} />
                  )}
                </div>
              </li>
            ))}
          </ol>
          {state.matches({ stocks: 'failed' }) && (
            <Failed message={context.stocksError ?? 'More timelines could not be loaded'} onRetry={retry('stocks')} />
          )}
          {context.shown < context.ranked.length && (
            <button
              type="button"
              className="button"
              disabled={!state.matches({ stocks: 'ready' })}
              onClick={() => send({ type: 'user.showMore' })}
            >
              Show more ({context.ranked.length - context.shown} left)
            </button>
          )}
        </>
      );
  } else {
    panel = state.matches({ stats: 'failed' }) ? (
      <Failed message={context.statsError ?? 'The statistics could not be loaded'} onRetry={retry('stats')} />
    ) : !state.matches({ stats: 'ready' }) ? (
      <Skeleton lines={10} height={22} />
    ) : context.stats.length === 0 ? (
      <Empty>No pattern has been detected yet, so there is nothing to measure.</Empty>
    ) : (
      <>
        <p className="hint">
          Over the whole market history: how often each pattern was detected, how often the price then moved its way
          (hit rate; neutral patterns have none) and the median return 1, 5 and 20 trading days later. Hover a pattern
          for its definition.
        </p>
        <div className="stats-grid">
          <Grid<StatRow>
            rowData={rows}
            columnDefs={statColumns}
            getRowId={(p) => p.data.name}
            domLayout="autoHeight"
            tooltipShowDelay={300}
          />
        </div>
      </>
    );
  }

  return (
    <section className="screen analyze">
      <h1>Analyze</h1>
      <Tabs
        label="Analysis"
        idPrefix="analyze"
        items={TABS}
        selected={tab}
        onSelect={(key) => send({ type: 'user.selectTab', tab: key })}
      />
      <div id="analyze-panel" role="tabpanel" aria-labelledby={`analyze-tab-${tab}`}>
        {panel}
      </div>
    </section>
  );
}
