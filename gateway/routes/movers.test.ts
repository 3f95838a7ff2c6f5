import { expect } from 'chai';
import { useTestGateway, type TestClient, type TestGateway } from '../testing/harness.ts';
import { FEED_PATH } from './feed.ts';
import { MOVERS_LIMIT, rankMovers, type Mover, type Movers } from './movers.ts';

const TOKEN = 'movers-feed-token-0123456789';

function mover(symbol: string, changepct: number, volume: number): Mover {
  return {
    symbol,
    name: `${symbol} Inc`,
    price: 100,
    change: changepct,
    changepct,
    volume,
    ts: '2026-01-02T21:00:00Z',
    source: 'feed',
  };
}

async function movers(client: TestClient, query = ''): Promise<Movers> {
  const res = await client.get(`/api/market/movers${query}`);
  expect(res.status).to.equal(200, res.text);
  return res.body as Movers;
}

describe('market movers', function () {
  describe('rankMovers', function () {
    const quotes = [
      mover('AAA', 2, 10),
      mover('BBB', -3, 50),
      mover('CCC', 5, 0),
      mover('DDD', 0, 70),
      mover('EEE', -1, 50),
      mover('FFF', 2, 5),
    ];

    it('ranks gainers by % change, losers from the lowest, most active by volume, ties by symbol', function () {
      const ranked = rankMovers(quotes, 10);
      expect(ranked.gainers.map((m) => m.symbol)).to.deep.equal(['CCC', 'AAA', 'FFF']);
      expect(ranked.losers.map((m) => m.symbol)).to.deep.equal(['BBB', 'EEE']);
      expect(ranked.active.map((m) => m.symbol)).to.deep.equal(['DDD', 'BBB', 'EEE', 'AAA', 'FFF']);
    });

    it('keeps an unchanged symbol out of both gainers and losers, and cuts each list at the limit', function () {
      const ranked = rankMovers(quotes, 1);
      expect(ranked.gainers.map((m) => m.symbol)).to.deep.equal(['CCC']);
      expect(ranked.losers.map((m) => m.symbol)).to.deep.equal(['BBB']);
      expect(ranked.active.map((m) => m.symbol)).to.deep.equal(['DDD']);
    });
  });

  describe('GET /api/market/movers', function () {
    let gw: TestGateway;
    useTestGateway({ env: { FEED_TOKEN: TOKEN } }, (started) => {
      gw = started;
    });

    it('answers five of each by default, ranked, with the company names', async function () {
      const user = await gw.user();
      const answer = await movers(user);
      for (const list of [answer.gainers, answer.losers, answer.active]) {
        expect(list).to.have.length(MOVERS_LIMIT.default);
        for (const m of list) expect(m.name).to.be.a('string').and.not.equal('');
      }
      expect(answer.gainers.every((m) => m.changepct > 0)).to.equal(true);
      expect(answer.losers.every((m) => m.changepct < 0)).to.equal(true);
      const pcts = answer.gainers.map((m) => m.changepct);
      expect(pcts).to.deep.equal([...pcts].sort((a, b) => b - a));
      const volumes = answer.active.map((m) => m.volume);
      expect(volumes).to.deep.equal([...volumes].sort((a, b) => b - a));
    });

    it('puts a symbol pushed far up by a tick at the top of the gainers', async function () {
      const user = await gw.user();
      const quotes = (await user.get('/api/quotes?symbols=XOM')).body as { price: number }[];
      const price = Math.round(quotes[0]!.price * 1.5 * 100) / 100;
      const pushed = await gw.client().post(FEED_PATH, [{ symbol: 'XOM', price, size: 100 }], {
        authorization: `Bearer ${TOKEN}`,
      });
      expect(pushed.status).to.equal(202, pushed.text);
      const until = Date.now() + 5000;
      let answer = await movers(user, '?limit=3');
      while (answer.gainers[0]?.symbol !== 'XOM' && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        answer = await movers(user, '?limit=3');
      }
      expect(answer.gainers[0]?.symbol).to.equal('XOM');
      expect(answer.gainers[0]?.price).to.equal(price);
      expect(answer.gainers).to.have.length(3);
    });

    const badLimits: [string, string][] = [
      ['0', '?limit=0'],
      ['above the most', `?limit=${MOVERS_LIMIT.max + 1}`],
      ['not a number', '?limit=abc'],
      ['a fraction', '?limit=2.5'],
    ];
    for (const [what, query] of badLimits) {
      it(`refuses a limit of ${what} with 400 naming query.limit`, async function () {
        const user = await gw.user();
        const res = await user.get(`/api/market/movers${query}`);
        expect(res.status).to.equal(400, res.text);
        expect((res.body as { message: string }).message).to.match(/^query\.limit: /);
      });
    }

    it('refuses a caller without a session with 401', async function () {
      expect((await gw.client().get('/api/market/movers')).status).to.equal(401);
    });
  });
});
