/**
 * Component 4: the universe's top gainers, top losers and most active stocks of the session, as chips that open
 * the chart and add to the watch list; read again every few seconds. Each stock keeps to one line: the lists sit
 * side by side as the panel's width allows (`dashboard.css`), one under another on a phone.
 */
import { useMachine } from '@xstate/react';
import { useId } from 'react';
import { Empty, Failed, Skeleton } from '../../components/LoadState.tsx';
import { SymbolChip } from '../../components/SymbolChip.tsx';
import { formatNumber } from '../../../domain/format.ts';
import { formatPercent, signClass } from '../watchlist/quotes.ts';
import { moversMachine, type Mover, type Movers } from './panels.ts';

function MoverList({
  title,
  movers,
  className,
  volume = false,
}: {
  title: string;
  movers: readonly Mover[];
  className: string;
  volume?: boolean;
}) {
  return (
    <div className={className}>
      <h3>{title}</h3>
      {movers.length === 0 ? (
        <Empty>None right now.</Empty>
      ) : (
        <ol className={volume ? 'dash-list movers with-volume' : 'dash-list movers'}>
          {movers.map((m) => (
            <li key={m.symbol} title={m.name}>
              <SymbolChip symbol={m.symbol} />
              <span className="mover-price">{m.price.toFixed(2)}</span>
              <span className={`mover-change ${signClass(m.changepct)}`}>{formatPercent(m.changepct)}</span>
              {volume && <span className="mover-volume hint">{formatNumber(m.volume)}</span>}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

/** The movers panel. */
export function MoversPanel() {
  const [state, send] = useMachine(moversMachine, { input: null });
  const titleId = useId();
  const data = state.context.data as Movers | null;
  return (
    <section className="dash-panel" aria-labelledby={titleId}>
      <h2 id={titleId}>Market movers</h2>
      {data === null && (state.matches('loading') || state.matches('refreshing')) ? (
        <Skeleton lines={5} />
      ) : state.matches('failed') ? (
        <Failed
          message={`The movers could not be loaded: ${state.context.error ?? ''}`}
          onRetry={() => send({ type: 'user.retry' })}
        />
      ) : data ? (
        <div className="movers-columns">
          <MoverList title="Gainers" movers={data.gainers} className="movers-gainers" />
          <MoverList title="Losers" movers={data.losers} className="movers-losers" />
          <MoverList title="Most active" movers={data.active} className="movers-active" volume />
        </div>
      ) : null}
    </section>
  );
}
