/**
 * The small label that says where the prices come from (feed, delay, health), as of which date the bars are, and
 * the zone times are shown in.
 */
import { usePreferences } from '../services/preferences.ts';
import { zoneLabel } from '../services/time.ts';
import { marketLabelText } from './marketLabel.ts';
import { Session } from './sessionContext.ts';

/**
 * The footer naming the live feed and the market's data, and the zone times are shown in; nothing when there is
 * nothing to say.
 */
export function MarketLabel() {
  const status = Session.useSelector((s) => s.context.market);
  const text = marketLabelText(status);
  const { timeZone } = usePreferences();
  if (text === null) return null;
  return (
    <footer className={`market-label${status?.feed?.ok === false ? ' down' : ''}`} data-testid="market-label">
      {text} · times in {zoneLabel(Date.now(), timeZone)}
    </footer>
  );
}
