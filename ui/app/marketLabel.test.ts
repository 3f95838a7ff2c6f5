import { expect } from 'chai';
import { FEED_DESCRIPTIONS, simulatedDelay } from '../../domain/market/feeds.ts';
import { marketLabelText } from './marketLabel.ts';

describe('market label', () => {
  it('names the live feed, its delay and health, then where the bars come from', () => {
    const feed = {
      source: 'alpaca-iex' as const,
      ...FEED_DESCRIPTIONS['alpaca-iex'],
      ok: false,
      health: 'alpaca-iex stale: no message for 60 s',
    };
    expect(marketLabelText({ asOf: '2026-11-24', to: '2026-11-24', source: 'mixed', feed })).to.equal(
      'Alpaca IEX prices (real-time, IEX trades only), alpaca-iex stale: no message for 60 s · partly simulated market, data as of 2026-11-24',
    );
    const simulated = { source: 'simulated' as const, ...FEED_DESCRIPTIONS.simulated, ok: true, health: 'live' };
    expect(marketLabelText({ asOf: '2026-11-24', to: '2026-11-24', source: 'simulated', feed: simulated })).to.equal(
      'Simulated prices (no delay, New York trading hours), live · simulated market, data as of 2026-11-24',
    );
    // On the demo clock a day passes in minutes, and the label says so (a day's change is of those minutes).
    const demo = { ...simulated, delay: simulatedDelay(10) };
    expect(marketLabelText({ asOf: '2026-11-24', to: '2026-11-24', source: 'simulated', feed: demo })).to.equal(
      'Simulated prices (no delay, a trading day every 10 minutes), live · simulated market, data as of 2026-11-24',
    );
    expect(simulatedDelay(1)).to.equal('no delay, a trading day every minute');
    expect(simulatedDelay(null)).to.equal('no delay, New York trading hours');
  });

  it('says only where the bars come from without a feed, and nothing of an imported market without one', () => {
    expect(marketLabelText({ asOf: '2026-11-24', to: '2026-11-24', source: 'simulated', feed: null })).to.equal(
      'simulated market, data as of 2026-11-24',
    );
    expect(marketLabelText({ asOf: '2026-11-24', to: '2026-11-24', source: 'imported', feed: null })).to.equal(null);
    expect(marketLabelText(null)).to.equal(null);
  });

  it('dates the data by the last day stored, the days closed since the build included', () => {
    expect(marketLabelText({ asOf: '2026-11-24', to: '2026-11-27', source: 'simulated', feed: null })).to.equal(
      'simulated market, data as of 2026-11-27',
    );
    expect(marketLabelText({ asOf: '2026-11-24', to: null, source: 'simulated', feed: null })).to.equal(
      'simulated market, data as of 2026-11-24',
    );
  });
});
