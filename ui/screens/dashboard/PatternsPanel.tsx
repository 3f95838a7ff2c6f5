/**
 * Component 5: the latest candlestick patterns detected on each dashboard stock, newest first; bullish in
 * green, bearish in red.
 */
import { useMachine } from '@xstate/react';
import { useEffect, useId, useMemo } from 'react';
import { Empty, Failed, Skeleton } from '../../components/LoadState.tsx';
import { SymbolChip } from '../../components/SymbolChip.tsx';
import { tradingDayTitle } from '../../services/time.ts';
import { patternLabel, shownStocks } from './dashboard.logic.ts';
import { Dashboard, sameItems } from './dashboardActor.ts';
import { patternsMachine, type LatestPatterns } from './panels.ts';

/** Rows the panel lists at most. */
export const PATTERN_ROWS_SHOWN = 20;

function PatternList({ symbols }: { readonly symbols: readonly string[] }) {
  const input = useMemo(() => ({ symbols }), [symbols]);
  const [state, send] = useMachine(patternsMachine, { input });
  useEffect(() => send({ type: 'parent.input', input }), [input, send]);
  const rows = state.context.data as LatestPatterns[] | null;
  if (rows === null && (state.matches('loading') || state.matches('refreshing'))) return <Skeleton lines={5} />;
  if (state.matches('failed')) {
    return (
      <Failed
        message={`The patterns could not be loaded: ${state.context.error ?? ''}`}
        onRetry={() => send({ type: 'user.retry' })}
      />
    );
  }
  if (symbols.length === 0) return <Empty>Add stocks to the dashboard to see their latest patterns.</Empty>;
  if (!rows || rows.length === 0) return <Empty>No patterns were detected on your dashboard stocks.</Empty>;
  return (
    <ul className="dash-list patterns">
      {rows.slice(0, PATTERN_ROWS_SHOWN).map((row) => (
        <li key={`${row.stock}-${row.type}`}>
          <SymbolChip symbol={row.stock} />
          <span className="hint" title={tradingDayTitle()}>
            {row.date}
          </span>
          <span className={row.bullish === true ? 'up' : row.bullish === false ? 'down' : ''}>
            {row.bullish === true ? '▲ ' : row.bullish === false ? '▼ ' : ''}
            {row.patterns.map(patternLabel).join(', ')}
          </span>
        </li>
      ))}
    </ul>
  );
}

/** The latest patterns panel. */
export function PatternsPanel() {
  const symbols = Dashboard.useSelector((s) => shownStocks(s.context.lists), sameItems);
  const listLoading = Dashboard.useSelector((s) => s.matches({ list: 'loading' }) || s.matches({ list: 'failed' }));
  const titleId = useId();
  return (
    <section className="dash-panel" aria-labelledby={titleId}>
      <h2 id={titleId}>Latest patterns</h2>
      {listLoading ? <Skeleton lines={5} /> : <PatternList symbols={symbols} />}
    </section>
  );
}
