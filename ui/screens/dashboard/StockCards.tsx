/**
 * Component 2: a card per dashboard stock, and the "add stocks" card (always when the list is empty, else when
 * the option asks for it).
 */
import { useId } from 'react';
import { Failed, Skeleton } from '../../components/LoadState.tsx';
import { AddStocksCard } from './AddStocksCard.tsx';
import { shownStocks } from './dashboard.logic.ts';
import { Dashboard, sameItems } from './dashboardActor.ts';
import { StockCard } from './StockCard.tsx';

/** The stock cards. */
export function StockCards() {
  const actor = Dashboard.useActorRef();
  const shown = Dashboard.useSelector((s) => shownStocks(s.context.lists), sameItems);
  const addstks = Dashboard.useSelector((s) => s.context.options.addstks);
  const loading = Dashboard.useSelector((s) => s.matches({ list: 'loading' }));
  const error = Dashboard.useSelector((s) => (s.matches({ list: 'failed' }) ? s.context.listError : null));
  const titleId = useId();
  return (
    <section className="dash-panel dash-wide" aria-labelledby={titleId}>
      <h2 id={titleId}>Stocks</h2>
      {loading ? (
        <div className="cards stock-cards">
          {[0, 1, 2].map((i) => (
            <div className="card" key={i}>
              <Skeleton lines={5} />
            </div>
          ))}
        </div>
      ) : error !== null ? (
        <Failed
          message={`Your dashboard stocks could not be loaded: ${error}`}
          onRetry={() => actor.send({ type: 'user.retryList' })}
        />
      ) : (
        <div className="cards stock-cards">
          {shown.map((symbol) => (
            <StockCard key={symbol} symbol={symbol} />
          ))}
          {(addstks || shown.length === 0) && <AddStocksCard empty={shown.length === 0} />}
        </div>
      )}
    </section>
  );
}
