/** What the footer says of where the market data comes from. */
import type { MarketStatus } from '../../domain/contract/market.ts';

/** The footer's part of the market status. */
export type MarketLabelStatus = Pick<MarketStatus, 'asOf' | 'to' | 'source' | 'feed'>;

const BARS: Record<MarketStatus['source'], string> = {
  simulated: 'simulated market',
  mixed: 'partly simulated market',
  imported: 'imported market',
};

/**
 * "Alpaca IEX prices (real-time, IEX trades only), live · imported market, data as of <date>": the live feed
 * with its delay and health, then where the daily bars come from and their last day (the build's, or a later one
 * the days closed since stored); null when there is nothing to say.
 */
export function marketLabelText(status: MarketLabelStatus | null): string | null {
  if (status === null) return null;
  const day = status.to !== null && status.to > status.asOf ? status.to : status.asOf;
  const bars = `${BARS[status.source]}, data as of ${day}`;
  const { feed } = status;
  if (feed === null) return status.source === 'imported' ? null : bars;
  return `${feed.name} prices (${feed.delay}), ${feed.health} · ${bars}`;
}
