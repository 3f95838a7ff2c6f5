import { expect } from 'chai';
import { METRIC_KEYS, metricKeyDefinition } from '../../domain/screener/metrics.ts';
import { BULLISH_PATTERN_NAMES, PATTERNS } from '../../domain/screener/patterns.ts';
import { SCREENER_PRESETS, SPEC_PRESETS } from '../../domain/screener/query.ts';
import { loadUniverse } from '../../engine/marketdata/universe.ts';
import { naiveScreener, type ScreenerRow } from '../../engine/screener/screener.ts';
import { servedAt, useTestGateway, type TestClient, type TestGateway } from '../testing/harness.ts';

interface Answer {
  rows: ScreenerRow[];
  total: number;
}

/** What each preset asks of a row. */
const PRESET_HOLDS: Record<string, (row: ScreenerRow) => boolean> = {
  'Bullish Patterns': (r) => r.patterns.some((p) => (BULLISH_PATTERN_NAMES as readonly string[]).includes(p)),
  'Close below 50-day average': (r) => r.SMA_50 !== null && r.close < r.SMA_50,
  '200-day average above 50-day average': (r) => r.SMA_200 !== null && r.SMA_50 !== null && r.SMA_200 > r.SMA_50,
  '200-day average above close': (r) => r.SMA_200 !== null && r.SMA_200 > r.close,
  '14-day RSI below 30': (r) => r.rsi_14 !== null && r.rsi_14 < 30,
  '14-day RSI above 80': (r) => r.rsi_14 !== null && r.rsi_14 > 80,
  'Top Gainers': (r) => r.changepct > 3,
  'Top Losers': (r) => r.changepct < -3,
  'New High': (r) => r.high52 !== null && r.high52 > 0,
  'New Low': (r) => r.low52 !== null && r.low52 < 0,
  'Most Volatile': (r) => r.volatility !== null && r.volatility > 3,
  'Most Active': (r) => r.volume !== null && r.volume > 20e6,
  'Unusual Volume': (r) => r.relvolume !== null && r.relvolume > 2,
  Overbought: (r) => r.rsi_14 !== null && r.rsi_14 > 70,
  Oversold: (r) => r.rsi_14 !== null && r.rsi_14 < 30,
  'Golden Cross': (r) => r.sma_cross !== null && r.sma_cross >= 1 && r.sma_cross <= 5,
  'Death Cross': (r) => r.sma_cross !== null && r.sma_cross >= -5 && r.sma_cross <= -1,
  ...Object.fromEntries(PATTERNS.map((p) => [p.label, (r: ScreenerRow) => r.patterns.includes(p.name)])),
};

describe('screener routes', function () {
  let gw: TestGateway;
  let user: TestClient;
  useTestGateway(async (started) => {
    gw = started;
    user = await gw.user();
  });

  async function run(body: unknown): Promise<Answer> {
    const res = await user.post('/api/screener/run', body);
    expect(res.status, res.text).to.equal(200);
    return res.body as Answer;
  }

  it('answers the six presets of the product, then the signals', async function () {
    const res = await user.get('/api/screener/presets');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(SCREENER_PRESETS);
    expect(Object.keys(PRESET_HOLDS)).to.deep.equal(SCREENER_PRESETS.map((p) => p.name));
  });

  for (const preset of SCREENER_PRESETS) {
    it(`answers the preset "${preset.name}" on the default market, each row meeting it`, async function () {
      const answer = await run({ query: preset.query, limit: 1000 });
      // The spec's presets always find stocks; a signal may find none on a given day.
      if (SPEC_PRESETS.includes(preset)) expect(answer.total).to.be.above(0);
      expect(answer.rows).to.have.length(answer.total);
      for (const row of answer.rows) expect(PRESET_HOLDS[preset.name]?.(row), row.symbol).to.equal(true);
      const market = gw.running.system.market;
      const naive = naiveScreener(market.screenerInputs(), preset.query, { limit: 1000 });
      expect(answer).to.deep.equal({
        ...naive,
        rows: naive.rows.map((r) => ({ ...r, shares: market.company(r.symbol)?.shares })),
      });
    });
  }

  it('answers 50 rows by default, largest market cap first, with the total before the cut', async function () {
    const answer = await run({ query: [] });
    expect(answer.total).to.equal(loadUniverse().length);
    expect(answer.rows).to.have.length(50);
    expect(answer.rows[0]).to.have.all.keys(
      'symbol',
      'name',
      'sector',
      'close',
      'changepct',
      'shares',
      'marketcap',
      'capclass',
      'SMA_50',
      'SMA_200',
      'rsi_14',
      'patterns',
      'industry',
      ...METRIC_KEYS,
    );
    const caps = answer.rows.map((r) => r.marketcap);
    expect(caps).to.deep.equal([...caps].sort((a, b) => b - a));
    const shares = new Map(loadUniverse().map((e) => [e.symbol, e.shares]));
    for (const row of answer.rows) expect(row, row.symbol).to.include({ shares: shares.get(row.symbol) });
  });

  it('sorts and cuts as asked', async function () {
    const query = [{ type: 'mcap', op: 'like', val: 'mid' }];
    const answer = await run({ query, limit: 7, sort: { field: 'rsi_14', dir: 'asc' } });
    expect(answer.rows).to.have.length(7);
    expect(answer.total).to.be.above(7);
    expect(answer.rows.every((r) => r.capclass === 'mid')).to.equal(true);
    const rsi = answer.rows.map((r) => r.rsi_14 as number);
    expect(rsi).to.deep.equal([...rsi].sort((a, b) => a - b));
    expect((await run({ query, limit: 0 })).rows).to.deep.equal([]);
  });

  it('shows the same close and change as the quotes', async function () {
    const answer = await run({
      query: [{ label: 'Apple', query: { type: 'close', op: 'bet', val: [0, 1e9] } }],
      limit: 5,
    });
    const symbols = answer.rows.map((r) => r.symbol);
    const quotes = (await user.get(`/api/quotes?symbols=${symbols.join(',')}`)).body as {
      price: number;
      changepct: number;
    }[];
    answer.rows.forEach((row, i) => {
      expect(row.close).to.equal(quotes[i]?.price);
      expect(row.changepct).to.equal(quotes[i]?.changepct);
    });
  });

  it('compares columns and combines clauses', async function () {
    const answer = await run({
      query: [
        { type: 'close', op: '>', val: { ref: 'SMA', param: 200 } },
        { type: 'rsi', param: 14, op: 'bet', val: [40, 70] },
      ],
      limit: 1000,
    });
    expect(answer.total).to.be.above(0);
    for (const row of answer.rows) {
      expect(row.close).to.be.above(row.SMA_200 as number);
      expect(row.rsi_14).to.be.within(40, 70);
    }
  });

  const badBodies: [string, unknown, string][] = [
    ['a list instead of an object', [{ type: 'rsi', param: 14, op: '<', val: 30 }], 'body'],
    ['a body without query', { limit: 5 }, 'body.query'],
    ['a query that is not a list', { query: 'rsi < 30' }, 'body.query'],
    ['a clause with a bad operator', { query: [{ type: 'rsi', param: 14, op: 'like', val: 30 }] }, 'body.query[0]'],
    [
      'a second clause of an unknown type',
      {
        query: [
          { type: 'close', op: '>', val: 1 },
          { type: 'turnover', op: '>', val: 1 },
        ],
      },
      'body.query[1]',
    ],
    ['an unknown pattern', { query: [{ type: 'pattern_rocket_', op: 'like', val: null }] }, 'body.query[0]'],
    ['21 clauses', { query: Array.from({ length: 21 }, () => ({ type: 'close', op: '>', val: 1 })) }, 'body.query'],
    ['a negative limit', { query: [], limit: -1 }, 'body.limit'],
    ['a limit above 1000', { query: [], limit: 1001 }, 'body.limit'],
    ['a fractional limit', { query: [], limit: 2.5 }, 'body.limit'],
    ['an unknown sort field', { query: [], sort: { field: 'turnover', dir: 'asc' } }, 'body.sort.field'],
    ['a metric clause with a text value', { query: [{ type: 'pe', op: '<', val: 'low' }] }, 'body.query[0]'],
    [
      'a perf clause of an unknown period',
      { query: [{ type: 'perf', param: '2W', op: '>', val: 1 }] },
      'body.query[0]',
    ],
    ['an unknown sector', { query: [{ type: 'sector', op: '=', val: 'Tech' }] }, 'body.query[0]'],
    ['a category clause with >', { query: [{ type: 'industry', op: '>', val: 'Banks' }] }, 'body.query[0]'],
    ['an unknown sort direction', { query: [], sort: { field: 'close', dir: 'up' } }, 'body.sort.dir'],
  ];
  for (const [what, input, field] of badBodies) {
    it(`refuses ${what} with 400 naming ${field}`, async function () {
      const res = await user.post('/api/screener/run', input);
      expect(res.status, res.text).to.equal(400);
      expect((res.body as { message: string }).message).to.match(
        new RegExp(`^${field.replace(/[.[\]]/g, '\\$&')}[: ]`),
      );
    });
  }

  it('describes every metric of the answer rows in the API reference', async function () {
    const doc = JSON.stringify((await gw.client().get('/api/docs')).body);
    for (const key of METRIC_KEYS) {
      expect(doc, key).to.include(JSON.stringify(metricKeyDefinition(key)).slice(1, -1));
    }
  });

  it('answers 401 without a session', async function () {
    const client = gw.client();
    expect((await client.get('/api/screener/presets')).status).to.equal(401);
    expect((await client.post('/api/screener/run', { query: [] })).status).to.equal(401);
  });
});

describe('screener routes, while ticks move prices', function () {
  let gw: TestGateway;
  let user: TestClient;
  useTestGateway(async (started) => {
    gw = started;
    user = await gw.user();
  });

  interface UniverseHit {
    symbol: string;
    shares: number;
    marketcap: number;
    capclass: string;
  }

  async function rowOf(symbol: string, query: unknown[] = []): Promise<ScreenerRow | undefined> {
    const res = await user.post('/api/screener/run', { query, limit: 1000 });
    expect(res.status, res.text).to.equal(200);
    return (res.body as Answer).rows.find((r) => r.symbol === symbol);
  }

  async function lastPrice(symbol: string): Promise<number> {
    const [quote] = await user.getOk<{ price: number }[]>(`/api/quotes?symbols=${symbol}`);
    return quote!.price;
  }

  it('answers one market cap in the watch list, search and screener: shares × the tick’s price', async function () {
    const company = loadUniverse().find((e) => e.symbol === 'KO')!;
    expect((await user.post('/personalize/createwatchlist', ['KO'])).status).to.equal(200);
    const price = Math.round((await lastPrice('KO')) * 107) / 100;
    const served = servedAt(gw, 'KO', price);
    await gw.pushTicks([{ symbol: 'KO', price, size: 100 }]);
    await served;
    const marketcap = company.shares * price;

    // The watch list shows its symbols with the universe's figures, as the watch list screen reads them.
    expect(await user.getOk<string[]>('/personalize/watchlist')).to.include('KO');
    const universe = await user.getOk<UniverseHit[]>('/api/universe');
    expect(universe.find((e) => e.symbol === 'KO')).to.deep.include({ marketcap, capclass: 'large' });
    const [hit] = await user.getOk<UniverseHit[]>('/api/universe?q=KO');
    expect(hit).to.deep.include({ symbol: 'KO', shares: company.shares, marketcap });
    expect(await rowOf('KO')).to.deep.include({ close: price, shares: company.shares, marketcap, capclass: 'large' });
    expect(await lastPrice('KO')).to.equal(price);
    // Every company agrees between the universe and the screener, not only the one that moved.
    const rows = (await user.post('/api/screener/run', { query: [], limit: 1000 })).body as Answer;
    expect(new Map(rows.rows.map((r) => [r.symbol, r.marketcap]))).to.deep.equal(
      new Map(universe.map((e) => [e.symbol, e.marketcap])),
    );
  });

  it("answers the forming bar's gap in a session: the day's first tick against the previous close", async function () {
    const previousClose = await lastPrice('PEP');
    const before = await rowOf('PEP');
    const first = Math.round(previousClose * 105) / 100;
    const later = Math.round(previousClose * 102) / 100;
    const served = servedAt(gw, 'PEP', later);
    await gw.pushTicks([{ symbol: 'PEP', price: first, size: 10 }]);
    await gw.pushTicks([{ symbol: 'PEP', price: later, size: 10 }]);
    await served;

    const gap = (first / previousClose - 1) * 100;
    const row = await rowOf('PEP');
    expect(row?.close).to.equal(later);
    expect(row?.gap).to.be.closeTo(gap, 1e-9);
    expect(before?.gap, "the stored day's gap is another").to.not.be.closeTo(gap, 1e-6);
    expect(await rowOf('PEP', [{ type: 'gap', op: '>', val: 1 }])).to.deep.include({ symbol: 'PEP' });
    expect(await rowOf('PEP', [{ type: 'gap', op: '<', val: 1 }])).to.equal(undefined);
  });
});
