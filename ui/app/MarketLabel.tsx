/** The small label that says the market is simulated, and as of which date its data is. */
import { Session } from './sessionContext.ts';

/** "simulated market, data as of <date>" in simulated mode; nothing otherwise. */
export function MarketLabel() {
  const status = Session.useSelector((s) => s.context.market);
  if (!status || status.source === 'imported') return null;
  return (
    <footer className="market-label" data-testid="market-label">
      {status.source === 'simulated' ? 'simulated market' : 'partly simulated market'}, data as of {status.asOf}
    </footer>
  );
}
