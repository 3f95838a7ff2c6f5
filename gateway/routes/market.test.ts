import { expect } from 'chai';
import { join } from 'node:path';
import type { MinuteCandles, NextAverages } from '../../domain/contract/market.ts';
import { formingRsi, wilderAverages } from '../../domain/market/rsi.ts';
import { SECTORS, type DailyBar } from '../../domain/market/types.ts';
import { loadUniverse } from '../../engine/marketdata/universe.ts';
import { tradingDays } from '../../engine/marketdata/calendar.ts';
import { DataDirInUseError } from '../../platform/readmodels/writerLock.ts';
import {
  startTestGateway,
  useTestGateway,
  TEST_MARKET_DATE,
  type TestClient,
  type TestGateway,
} from '../testing/harness.ts';

interface ChartBar extends DailyBar {
  SMA_20: number | null;
  SMA_50: number | null;
  SMA_100: number | null;
  SMA_200: number | null;
  rsi_14: number | null;
}

interface Series {
  dates: string[];
  series: { symbol?: string; sector?: string; values: (number | null)[] }[];
}

/** The bearer token of the feed route of this file's gateway. */
const TEST_FEED_TOKEN = 'market-feed-token-0123456789';

const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

describe('market routes', function () {
  let gw: TestGateway;
  let user: TestClient;
  useTestGateway({ env: { FEED_TOKEN: TEST_FEED_TOKEN } }, async (started) => {
    gw = started;
    user = await gw.user();
  });

  it("states the simulated market's date, with its counts and range", async function () {
    const status = await user.getOk<Record<string, unknown>>('/api/market/status');
    expect(status).to.deep.equal({
      asOf: TEST_MARKET_DATE,
      seed: 42,
      symbols: loadUniverse().length,
      bars: status['bars'],
      from: '2020-01-02',
      to: TEST_MARKET_DATE,
      source: 'simulated',
      importedSymbols: [],
      feed: { source: 'feed', name: 'Feed', delay: 'as the producer sends them', ok: true, health: 'live' },
    });
    expect(status['bars']).to.be.above(loadUniverse().length * 1250);
  });

  it('names the simulator as the live feed of a simulated session, and its quotes as closes until a tick', async function () {
    const simulated = await startTestGateway({ env: { TICK_SOURCE: 'simulator' } });
    try {
      const other = await simulated.user();
      const status = await other.getOk<{ feed: unknown }>('/api/market/status');
      expect(status.feed).to.deep.equal({
        source: 'simulated',
        name: 'Simulated',
        // The test gateway's simulator runs on the demo clock (MARKET_CLOCK's default).
        delay: 'no delay, a trading day every 10 minutes',
        ok: true,
        health: 'live',
      });
    } finally {
      await simulated.close();
    }
  });

  it('reuses the market built once for the test run, and a restart on the same data reuses it again', async function () {
    expect(gw.running.system.market.report).to.include({ built: 0, analysed: 0 });
    const own = await startTestGateway();
    let kept = false;
    try {
      await own.close({ keepData: true });
      kept = true;
      const again = await startTestGateway({ dataDir: own.dataDir });
      try {
        expect(again.running.system.market.report).to.include({ built: 0, analysed: 0 });
        const other = await again.user();
        expect((await other.get('/api/market/status')).body).to.deep.equal((await user.get('/api/market/status')).body);
      } finally {
        await again.close();
      }
    } finally {
      if (!kept) await own.close();
    }
  });

  it('refuses to start a second process on a DATA_DIR whose read models one is running, naming the folder', async function () {
    let refused: unknown;
    await startTestGateway({ dataDir: gw.dataDir }).then(
      (second) => second.close({ keepData: true }),
      (error: unknown) => (refused = error),
    );
    expect(refused).to.be.instanceOf(DataDirInUseError);
    expect((refused as Error).message).to.equal(
      `DATA_DIR ${gw.dataDir} is in use: another StockPulse process runs the projections on its read models (it ` +
        `holds ${join(gw.dataDir, 'projections.lock')}); stop that process first, or start this one with another DATA_DIR`,
    );
    // The first goes on recording and projecting, its read models its own.
    await user.post('/personalize/createwatchlist', ['MSFT', 'AAPL']);
    expect((await user.get('/personalize/watchlist')).body).to.deep.equal(['MSFT', 'AAPL']);
  });

  it('answers the whole universe without parameters, in the contract shape', async function () {
    const list = await user.getOk<Record<string, unknown>[]>('/api/universe');
    const universe = loadUniverse();
    expect(list).to.have.length(universe.length);
    const shares = new Map(universe.map((e) => [e.symbol, e.shares]));
    for (const entry of list) {
      expect(entry).to.have.all.keys('symbol', 'name', 'sector', 'industry', 'shares', 'marketcap', 'capclass');
      expect(entry['shares']).to.equal(shares.get(entry['symbol'] as string));
    }
  });

  it('searches the universe by text, sector and cap class', async function () {
    const apple = await user.getOk<{ symbol: string }[]>('/api/universe?q=app');
    expect(apple[0]?.symbol).to.equal('AAPL');
    const energy = await user.getOk<{ sector: string; capclass: string }[]>(
      `/api/universe?sector=${encodeURIComponent('Energy')}&cap=small`,
    );
    expect(energy.length).to.be.above(0);
    expect(energy.every((e) => e.sector === 'Energy' && e.capclass === 'small')).to.equal(true);
    expect(await user.getOk('/api/universe?q=zzzzqqq')).to.deep.equal([]);
  });

  it('lists the 11 GICS sectors with every symbol of the universe once', async function () {
    const sectors = await user.getOk<{ sector: string; symbols: string[] }[]>('/api/sectors');
    expect(sectors.map((s) => s.sector)).to.deep.equal([...SECTORS]);
    const universe = new Map(loadUniverse().map((e) => [e.symbol, e]));
    const all = sectors.flatMap((s) => s.symbols);
    expect(all).to.have.length(universe.size);
    for (const { sector, symbols } of sectors) {
      for (const symbol of symbols) expect(universe.get(symbol)?.sector).to.equal(sector);
    }
  });

  it('quotes the last close against the previous close, in the order asked, stamped at the New York close', async function () {
    const quotes = await user.getOk<Record<string, unknown>[]>('/api/quotes?symbols=msft,AAPL');
    expect(quotes.map((q) => q['symbol'])).to.deep.equal(['MSFT', 'AAPL']);
    const { bars } = await user.getOk<{ bars: ChartBar[] }>('/api/bars/AAPL?months=1');
    const [prev, last] = bars.slice(-2) as [ChartBar, ChartBar];
    expect(quotes[1]).to.deep.equal({
      symbol: 'AAPL',
      price: last.close,
      change: Math.round((last.close - prev.close) * 10000) / 10000,
      changepct: Math.round(((last.close - prev.close) / prev.close) * 10000) / 100,
      volume: last.volume,
      // 16:00 New York on the market date, standard time.
      ts: '2025-02-24T21:00:00.000Z',
      source: 'close',
      // The day's bar, which a chart forms the session's candle from.
      open: last.open,
      high: last.high,
      low: last.low,
    });
  });

  it('answers 3 months of bars by default, with SMA and RSI over the whole history', async function () {
    const res = await user.getOk<{ symbol: string; bars: ChartBar[] }>('/api/bars/aapl');
    expect(res.symbol).to.equal('AAPL');
    // Three months before Monday 2025-02-24 is a Sunday: the window starts on the Friday before.
    expect(res.bars[0]?.date).to.equal('2024-11-22');
    expect(res.bars.at(-1)?.date).to.equal(TEST_MARKET_DATE);
    expect(res.bars[0]).to.have.all.keys(
      'date',
      'open',
      'high',
      'low',
      'close',
      'volume',
      'SMA_20',
      'SMA_50',
      'SMA_100',
      'SMA_200',
      'rsi_14',
    );
    const { bars: all } = await user.getOk<{ bars: ChartBar[] }>('/api/bars/AAPL?months=60');
    expect(all[0]?.date).to.equal('2020-02-24');
    const closes = all.map((b) => b.close);
    const last = all.at(-1) as ChartBar;
    expect(last.SMA_50).to.be.closeTo(mean(closes.slice(-50)), 1e-9);
    expect(last.SMA_200).to.be.closeTo(mean(closes.slice(-200)), 1e-9);
    // The history starts on 2020-01-02: its 200th bar is the first with an SMA 200.
    const first = 199 - tradingDays('2020-01-02', '2020-02-21').length;
    expect(all[first - 1]?.SMA_200).to.equal(null);
    const history = gw.running.system.market.store.bars('AAPL');
    expect(all[first]?.SMA_200).to.be.closeTo(mean(history.slice(0, 200).map((b) => b.close)), 1e-9);
    expect(res.bars.at(-1)).to.deep.equal(last);
  });

  it("answers a symbol's minute candles of its live session, made of every tick the feed sent", async function () {
    const empty = await user.getOk<MinuteCandles>('/api/bars/wmt/minutes');
    expect(empty, 'before its first tick').to.deep.equal({ symbol: 'WMT', prevClose: null, candles: [] });
    const lastClose = (await user.getOk<{ bars: ChartBar[] }>('/api/bars/WMT')).bars.at(-1)!.close;
    // 14:59 and 15:00 New York (EST) on 2026-01-05, the feed route's ticks.
    const t0 = Date.UTC(2026, 0, 5, 19, 59, 0);
    const feed = { authorization: `Bearer ${TEST_FEED_TOKEN}` };
    const ticks = [
      [60.5, 3, 15],
      [60.25, 4, 45],
      [61, 2, 61],
    ].map(([price, size, s]) => ({ symbol: 'WMT', price, size, ts: t0 + s! * 1000 }));
    expect((await gw.client().post('/api/feed/ticks', ticks, feed)).status).to.equal(202);
    expect(await user.getOk<MinuteCandles>('/api/bars/WMT/minutes')).to.deep.equal({
      symbol: 'WMT',
      prevClose: lastClose,
      candles: [
        {
          time: '2026-01-05 14:59',
          start: '2026-01-05T19:59:00.000Z',
          open: 60.5,
          high: 60.5,
          low: 60.25,
          close: 60.25,
          volume: 7,
          sessionVolume: 7,
        },
        {
          time: '2026-01-05 15:00',
          start: '2026-01-05T20:00:00.000Z',
          open: 61,
          high: 61,
          low: 61,
          close: 61,
          volume: 2,
          sessionVolume: 9,
        },
      ],
    });
    await user.getRefused('/api/bars/ZZZZZZ/minutes', 'params.symbol');
  });

  it("answers with the bars what the next day's averages are made of: the sums of the last closes", async function () {
    const { bars, next } = await user.getOk<{ bars: ChartBar[]; next: NextAverages }>('/api/bars/AAPL?months=12');
    const closes = bars.map((b) => b.close);
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    expect(next.after).to.equal(TEST_MARKET_DATE);
    for (const period of [20, 50, 100, 200] as const) {
      expect(next[`SMA_${period}`], `SMA ${period}`).to.be.closeTo(sum(closes.slice(-(period - 1))), 1e-6);
    }
    // RSI 14's averages as of the last close: the last bar's RSI is the day before's averages smoothed by its
    // change, as the chart computes a forming bar's (and the alerts' rsi:14 source a tick's).
    const history = gw.running.system.market.store.bars('AAPL').map((b) => b.close);
    const [lastGain, lastLoss] = wilderAverages(history, 14, history.length);
    expect(next.rsi_14).to.deep.equal({ gain: lastGain, loss: lastLoss });
    const [gain, loss] = wilderAverages(history, 14, history.length - 1);
    const change = history.at(-1)! - history.at(-2)!;
    expect(formingRsi(gain, loss, change, 14)).to.be.closeTo(bars.at(-1)!.rsi_14!, 1e-9);
  });

  it('answers fundamentals newest first in the contract shape, by period and limit', async function () {
    const annual = await user.getOk<Record<string, unknown>[]>('/api/fundamentals/revenue/AAPL/0/A');
    expect(annual.length).to.be.at.least(5);
    for (const row of annual) expect(row).to.have.all.keys('end', 'val', 'fy', 'fp', 'label');
    expect(annual.every((r) => r['fp'] === 'FY' && r['label'] === 'derived')).to.equal(true);
    const ends = annual.map((r) => r['end'] as string);
    expect(ends).to.deep.equal([...ends].sort().reverse());
    const quarters = await user.getOk<{ fp: string }[]>('/api/fundamentals/earningspershare/MSFT/4/q');
    expect(quarters).to.have.length(4);
    expect(quarters.every((r) => /^Q[1-4]$/.test(r.fp))).to.equal(true);
  });

  it('answers % change series of symbols that start at 0 and end at the change over the window', async function () {
    const perf = await user.getOk<Series>('/api/performance?symbols=AAPL,XOM&months=3');
    const { bars } = await user.getOk<{ bars: ChartBar[] }>('/api/bars/XOM?months=3');
    expect(perf.dates).to.deep.equal(bars.map((b) => b.date));
    expect(perf.series.map((s) => s.symbol)).to.deep.equal(['AAPL', 'XOM']);
    for (const s of perf.series) expect(s.values[0]).to.equal(0);
    const first = bars[0]?.close as number;
    const last = bars.at(-1)?.close as number;
    expect(perf.series[1]?.values.at(-1)).to.equal(Math.round((last / first - 1) * 10000) / 100);
    const long = await user.getOk<Series>('/api/performance?symbols=AAPL&months=12');
    expect(long.dates[0]).to.equal('2024-02-23');
  });

  it('answers per-sector % change series, each the mean of its symbols', async function () {
    const perf = await user.getOk<Series>('/api/performance/sectors?months=6');
    expect(perf.series.map((s) => s.sector)).to.deep.equal([...SECTORS]);
    for (const s of perf.series) {
      expect(s.values).to.have.length(perf.dates.length);
      expect(s.values[0]).to.equal(0);
    }
    const sectors = await user.getOk<{ sector: string; symbols: string[] }[]>('/api/sectors');
    const utilities = sectors.find((s) => s.sector === 'Utilities')?.symbols ?? [];
    const members = await user.getOk<Series>(`/api/performance?symbols=${utilities.join(',')}&months=6`);
    const expected = mean(members.series.map((s) => s.values.at(-1) as number));
    const got = perf.series.find((s) => s.sector === 'Utilities')?.values.at(-1) as number;
    expect(Math.abs(got - expected)).to.be.below(0.006);
  });

  it('answers a symmetric correlation matrix with ones on the diagonal', async function () {
    const stks = ['XOM', 'CVX', 'COP', 'AAPL', 'MSFT', 'DUK', 'SO', 'JPM'];
    const res = await user.getOk<{ symbols: string[]; values: number[][] }>(
      `/api/corelation/250/matrix/?stks=${stks.join(',')}`,
    );
    expect(res.symbols).to.deep.equal(stks);
    expect(res.values).to.have.length(stks.length);
    res.values.forEach((row, i) => {
      expect(row).to.have.length(stks.length);
      expect(row[i]).to.equal(1);
      row.forEach((v, j) => {
        expect(v).to.equal(res.values[j]?.[i]);
        expect(v).to.be.within(-1, 1);
      });
    });
    const xomCvx = res.values[0]?.[1] as number;
    const xomMsft = res.values[0]?.[4] as number;
    expect(xomCvx).to.be.above(xomMsft);
  });

  it('groups mutually correlated stocks in the default format, every stock once, with or without the trailing slash', async function () {
    const stks = 'XOM,CVX,COP,EOG,AAPL,DUK,SO,AEP';
    const groups = await user.getOk<{ stock: string; value: number }[][]>(`/api/corelation/500/default/?stks=${stks}`);
    expect(
      groups
        .flat()
        .map((m) => m.stock)
        .sort(),
    ).to.deep.equal(stks.split(',').sort());
    const utilities = groups.find((g) => g.some((m) => m.stock === 'DUK'));
    expect(utilities?.map((m) => m.stock)).to.include.members(['SO', 'AEP']);
    expect(groups.find((g) => g.some((m) => m.stock === 'AAPL'))).to.deep.equal([{ stock: 'AAPL', value: 0 }]);
    expect(await user.getOk(`/api/corelation/500/default?stks=${stks}`)).to.deep.equal(groups);
    expect((await user.get('/api/corelation/5/matrix/?stks=AAPL,MSFT')).status).to.equal(200);
    expect((await user.get('/api/corelation/1250/matrix/?stks=AAPL,MSFT')).status).to.equal(200);
  });

  const manySymbols = loadUniverse()
    .slice(0, 101)
    .map((e) => e.symbol)
    .join(',');
  const badInputs: [string, string, string][] = [
    ['months of 0', '/api/bars/AAPL?months=0', 'query.months'],
    ['months above 60', '/api/bars/AAPL?months=61', 'query.months'],
    ['months that are not a number', '/api/bars/AAPL?months=abc', 'query.months'],
    ['a fraction of a month', '/api/bars/AAPL?months=1.5', 'query.months'],
    ['months in hexadecimal', '/api/bars/AAPL?months=0x10', 'query.months'],
    ['months with an exponent', '/api/performance?symbols=AAPL&months=1e1', 'query.months'],
    ['months after a space', '/api/performance?symbols=AAPL&months=%203', 'query.months'],
    ['months with a leading zero', '/api/bars/AAPL?months=016', 'query.months'],
    ['a correlation of +20 days', '/api/corelation/+20/matrix/?stks=AAPL,MSFT', 'params.dur'],
    ['a symbol outside the universe', '/api/bars/ZZZZZZ', 'params.symbol'],
    ['a symbol breaking the rule', '/api/bars/BAD!SYM', 'params.symbol'],
    ['quotes without symbols', '/api/quotes', 'query.symbols'],
    ['quotes with an empty list', '/api/quotes?symbols=', 'query.symbols'],
    ['quotes of an unknown symbol', '/api/quotes?symbols=AAPL,ZZZZZZ', 'query.symbols[1]'],
    ['quotes naming a symbol twice', '/api/quotes?symbols=AAPL,aapl', 'query.symbols[1]'],
    ['quotes with a bad symbol', '/api/quotes?symbols=AAPL,,MSFT', 'query.symbols[1]'],
    ['an unknown sector', '/api/universe?sector=Tech', 'query.sector'],
    ['an unknown cap class', '/api/universe?cap=huge', 'query.cap'],
    ['a search text of 51 characters', `/api/universe?q=${'a'.repeat(51)}`, 'query.q'],
    ['an unknown fundamental type', '/api/fundamentals/sales/AAPL/0/A', 'params.type'],
    ['a negative fundamentals limit', '/api/fundamentals/revenue/AAPL/-1/A', 'params.limit'],
    ['an unknown period', '/api/fundamentals/revenue/AAPL/0/M', 'params.period'],
    ['fundamentals of an unknown symbol', '/api/fundamentals/revenue/ZZZZZZ/0/A', 'params.symbol'],
    ['performance without symbols', '/api/performance?months=3', 'query.symbols'],
    ['performance of an unknown symbol', '/api/performance?symbols=ZZZZZZ', 'query.symbols[0]'],
    ['performance of 101 symbols', `/api/performance?symbols=${manySymbols}`, 'query.symbols'],
    ['sector performance over 99 months', '/api/performance/sectors?months=99', 'query.months'],
    ['a correlation of 4 days', '/api/corelation/4/matrix/?stks=AAPL,MSFT', 'params.dur'],
    ['a correlation of 1251 days', '/api/corelation/1251/matrix/?stks=AAPL,MSFT', 'params.dur'],
    ['an unknown correlation format', '/api/corelation/20/table/?stks=AAPL,MSFT', 'params.format'],
    ['a correlation of one symbol', '/api/corelation/20/matrix/?stks=AAPL', 'query.stks'],
    ['a correlation without stks', '/api/corelation/20/matrix/', 'query.stks'],
    ['a correlation of 101 symbols', `/api/corelation/20/matrix/?stks=${manySymbols}`, 'query.stks'],
    ['a correlation naming a symbol twice', '/api/corelation/20/matrix/?stks=AAPL,AAPL', 'query.stks[1]'],
    ['a correlation of an unknown symbol', '/api/corelation/20/matrix/?stks=AAPL,ZZZZZZ', 'query.stks[1]'],
  ];
  for (const [what, path, field] of badInputs) {
    it(`refuses ${what} with 400 naming ${field}`, async function () {
      await user.getRefused(path, field);
    });
  }

  const paths = [
    '/api/market/status',
    '/api/universe',
    '/api/sectors',
    '/api/quotes?symbols=AAPL',
    '/api/bars/AAPL',
    '/api/bars/AAPL/minutes',
    '/api/fundamentals/revenue/AAPL/0/A',
    '/api/performance?symbols=AAPL',
    '/api/performance/sectors',
    '/api/corelation/20/matrix/?stks=AAPL,MSFT',
  ];
  for (const path of paths) {
    it(`answers 401 without a session on ${path}`, async function () {
      const res = await gw.client().get(path);
      expect(res.status).to.equal(401);
      expect(res.body).to.deep.include({ error: 'unauthorized' });
    });
  }
});
