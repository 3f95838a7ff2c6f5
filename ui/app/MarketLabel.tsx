/** The small label that says where the prices come from (feed, delay, health) and as of which date the bars are. */
import { marketLabelText } from './marketLabel.ts';
import { Session } from './sessionContext.ts';

/** The footer naming the live feed and the market's data; nothing when there is nothing to say. */
export function MarketLabel() {
  const status = Session.useSelector((s) => s.context.market);
  const text = marketLabelText(status);
  if (text === null) return null;
  return (
    <footer className={`market-label${status?.feed?.ok === false ? ' down' : ''}`} data-testid="market-label">
      {text}
    </footer>
  );
}
