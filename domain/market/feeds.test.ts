import { expect } from 'chai';
import { DATA_FEEDS, FEED_DESCRIPTIONS, dataFeedOf } from './feeds.ts';

describe('data feeds', () => {
  it('names the feed of each configured tick source, Alpaca by its IEX or SIP feed', () => {
    expect(dataFeedOf('simulator')).to.equal('simulated');
    expect(dataFeedOf('replay')).to.equal('replay');
    expect(dataFeedOf('feed')).to.equal('feed');
    expect(dataFeedOf('alpaca', 'iex')).to.equal('alpaca-iex');
    expect(dataFeedOf('alpaca', 'sip')).to.equal('alpaca-sip');
    expect(dataFeedOf('alpaca')).to.equal('alpaca-iex');
    expect(dataFeedOf('finnhub')).to.equal('finnhub');
  });

  it('says the name and delay of every feed', () => {
    expect(DATA_FEEDS.map((feed) => FEED_DESCRIPTIONS[feed].name)).to.deep.equal([
      'Simulated',
      'Replay',
      'Feed',
      'Alpaca IEX',
      'Alpaca SIP',
      'Finnhub',
    ]);
    expect(FEED_DESCRIPTIONS['alpaca-sip'].delay).to.equal('real-time, consolidated');
    expect(FEED_DESCRIPTIONS['alpaca-iex'].delay).to.equal('real-time, IEX trades only');
  });
});
