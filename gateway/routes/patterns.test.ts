import { expect } from 'chai';
import type { DailyBar } from '../../domain/market/types.ts';
import { PATTERN_NAMES, PATTERNS } from '../../domain/screener/patterns.ts';
import { loadUniverse } from '../../engine/marketdata/universe.ts';
import { detectAll, type PatternDetection } from '../../engine/patterns/patterns.ts';
import { HORIZONS, patternPerformance } from '../../engine/patterns/performance.ts';
import { useTestGateway, TEST_MARKET_DATE, type TestClient, type TestGateway } from '../testing/harness.ts';

interface Row {
  id: string;
  symbol: string;
  date: string;
  stockpatterns: { name: string; bullish: boolean | null }[];
}

/** Rows sorted by date, newest first, then by symbol. */
function isNewestFirst(rows: readonly Row[]): boolean {
  return rows.every((r, i) => {
    const next = rows[i + 1];
    return next === undefined || r.date > next.date || (r.date === next.date && r.symbol < next.symbol);
  });
}

describe('pattern routes', function () {
  let gw: TestGateway;
  let user: TestClient;
  /** Full daily histories fetched through the bars route, by symbol. */
  const histories = new Map<string, DailyBar[]>();

  useTestGateway(async (started) => {
    gw = started;
    user = await gw.user();
  });

  /** A symbol's whole history: the bars route's longest window, preceded by the stored bars before it. */
  async function history(symbol: string): Promise<DailyBar[]> {
    let bars = histories.get(symbol);
    if (bars === undefined) {
      const res = await user.getOk<{ bars: (DailyBar & Record<string, unknown>)[] }>(`/api/bars/${symbol}?months=60`);
      const window = res.bars.map(({ date, open, high, low, close, volume }) => ({
        date,
        open,
        high,
        low,
        close,
        volume,
      }));
      const stored = gw.running.system.market.store.bars(symbol);
      bars = [...stored.filter((b) => b.date < window[0]!.date), ...window];
      expect(bars).to.deep.equal(stored);
      histories.set(symbol, bars);
    }
    return bars;
  }

  const asRows = (symbol: string, detections: readonly PatternDetection[]) =>
    detections.map((d) => ({
      id: `${symbol}:${d.date}`,
      symbol,
      date: d.date,
      stockpatterns: d.hits.map((h) => ({ name: h.name, bullish: h.bullish })),
    }));

  for (const symbol of ['AAPL', 'XOM', 'DUK']) {
    it(`answers ${symbol}'s rows of the last 1250 days exactly as detectAll finds them on the same bars`, async function () {
      const bars = await history(symbol);
      const rows = await user.getOk<Row[]>(`/api/patterns/recentstkpattern/${symbol}/1250`);
      expect(rows.length).to.be.above(50);
      // The last 1250 trading days of the market, which are this symbol's last 1250 bars.
      const since = bars.at(-1250)!.date;
      expect(rows).to.deep.equal(
        asRows(symbol, detectAll(bars))
          .filter((r) => r.date >= since)
          .reverse(),
      );
    });
  }

  it('answers the newest rows by date then symbol, the first being the latest date', async function () {
    const rows = await user.getOk<Row[]>('/api/patterns/all/500');
    expect(rows).to.have.length(500);
    expect(isNewestFirst(rows)).to.equal(true);
    expect(rows[0]?.date).to.equal(TEST_MARKET_DATE);
    for (const row of rows) expect(row.id).to.equal(`${row.symbol}:${row.date}`);
    expect(await user.getOk('/api/patterns/all/3')).to.deep.equal(rows.slice(0, 3));
  });

  it('answers the newest dates with patterns and the number of patterns on each', async function () {
    const dates = await user.getOk<{ date: string; patterncount: number }[]>('/api/patterns/dates/5');
    expect(dates.map((d) => d.date)).to.deep.equal([
      TEST_MARKET_DATE,
      // Presidents' Day, 2025-02-17, is a holiday.
      '2025-02-21',
      '2025-02-20',
      '2025-02-19',
      '2025-02-18',
    ]);
    for (const { date, patterncount } of dates.slice(0, 2)) {
      const rows = await user.getOk<Row[]>(`/api/patterns/bydate/${date}`);
      expect(patterncount).to.equal(rows.reduce((n, r) => n + r.stockpatterns.length, 0));
    }
  });

  it("answers one date's rows by symbol, each as detectAll finds it on that symbol's bars", async function () {
    const rows = await user.getOk<Row[]>('/api/patterns/bydate/2024-11-15');
    expect(rows.length).to.be.above(20);
    expect(rows.map((r) => r.symbol)).to.deep.equal(rows.map((r) => r.symbol).sort());
    for (const row of [rows[0], rows[Math.floor(rows.length / 2)], rows.at(-1)] as Row[]) {
      const detection = detectAll(await history(row.symbol)).find((d) => d.date === '2024-11-15');
      expect(row).to.deep.equal(asRows(row.symbol, detection ? [detection] : [])[0]);
    }
    expect(await user.getOk('/api/patterns/bydate/2024-11-16')).to.deep.equal([]);
  });

  it('answers the rows of the latest date as the most recent day', async function () {
    const latest = await user.getOk<Row[]>('/api/patterns/mostrecentday');
    expect(latest.length).to.be.above(0);
    expect(latest).to.deep.equal(await user.getOk(`/api/patterns/bydate/${TEST_MARKET_DATE}`));
  });

  it('ranks symbols by their pattern days of the last N trading days', async function () {
    const ranked = await user.getOk<{ symbol: string; count: number }[]>('/api/patterns/groupbysym/60');
    expect(ranked.length).to.be.above(100);
    expect(ranked.every((r, i) => i === 0 || (ranked[i - 1] as { count: number }).count >= r.count)).to.equal(true);
    for (const { symbol, count } of [ranked[0], ranked.find((r) => r.symbol === 'AAPL')] as {
      symbol: string;
      count: number;
    }[]) {
      expect(count).to.equal((await user.getOk<Row[]>(`/api/patterns/recentstkpattern/${symbol}/60`)).length);
    }
  });

  it("answers a symbol's latest patterns grouped by direction", async function () {
    for (const symbol of loadUniverse()
      .slice(0, 12)
      .map((e) => e.symbol)) {
      const [latest] = await user.getOk<Row[]>(`/api/patterns/recentstkpattern/${symbol}/1250`);
      const groups = await user.getOk<
        { type: string; bullish: boolean | null; stock: string; date: string; patterns: string[] }[]
      >(`/realtime/stockpatterns/${symbol}`);
      expect(groups.flatMap((g) => g.patterns).sort()).to.deep.equal(latest?.stockpatterns.map((h) => h.name).sort());
      for (const g of groups) {
        expect(g).to.deep.include({ stock: symbol, date: latest?.date });
        expect(g.type).to.equal(g.bullish === true ? 'bullish' : g.bullish === false ? 'bearish' : 'neutral');
        for (const name of g.patterns) expect(PATTERNS.find((p) => p.name === name)?.bullish).to.equal(g.bullish);
      }
    }
  });

  it("answers a symbol's bars since a date with the change of the close", async function () {
    const res = await user.getOk<{
      symbol: string;
      datefrom: string;
      bars: DailyBar[];
      change: number;
      changepct: number;
    }>('/api/patterns/performance/aapl/2024-11-30');
    const bars = (await history('AAPL')).filter((b) => b.date >= '2024-11-30');
    expect(res.symbol).to.equal('AAPL');
    expect(res.datefrom).to.equal('2024-11-30');
    expect(res.bars).to.deep.equal(bars);
    const first = bars[0] as DailyBar;
    const last = bars.at(-1) as DailyBar;
    expect(res.change).to.be.closeTo(last.close - first.close, 1e-4);
    expect(res.changepct).to.equal(Math.round(((last.close - first.close) / first.close) * 10000) / 100);
  });

  it('answers how every pattern did over the whole market, as patternPerformance computes it', async function () {
    this.timeout(60_000);
    const stats = await user.getOk<
      {
        name: string;
        label: string;
        bullish: boolean | null;
        count: number;
        horizons: { days: number; count: number; hitRate: number | null; median: number | null }[];
      }[]
    >('/api/patterns/stats');
    const store = gw.running.system.market.store;
    const expected = patternPerformance(loadUniverse().map((e) => store.bars(e.symbol)));
    expect(stats.map((s) => s.name)).to.deep.equal(expected.map((e) => e.name));
    stats.forEach((s, i) => {
      const e = expected[i]!;
      expect(s.count).to.equal(e.detections);
      expect(s.count).to.be.above(0);
      expect(s.label).to.equal(PATTERNS.find((p) => p.name === s.name)?.label);
      expect(s.horizons.map((h) => h.days)).to.deep.equal([...HORIZONS]);
      for (const h of s.horizons)
        expect({ count: h.count, hitRate: h.hitRate, median: h.median }).to.deep.equal(
          e.horizons[h.days as 1 | 5 | 20],
        );
    });
  });

  it('answers the written definition of every pattern', async function () {
    const definitions =
      await user.getOk<{ name: string; label: string; bullish: boolean | null; candles: number; definition: string }[]>(
        '/api/patterns/definitions',
      );
    expect(definitions.map((d) => d.name)).to.deep.equal([...PATTERN_NAMES]);
    for (const d of definitions) {
      expect(d.bullish).to.equal(PATTERNS.find((p) => p.name === d.name)?.bullish);
      expect(d.candles).to.be.oneOf([1, 2, 3]);
      expect(d.definition.length).to.be.above(20);
    }
  });

  const badInputs: [string, string, string][] = [
    ['no rows', '/api/patterns/all/0', 'params.limitrows'],
    ['too many rows', '/api/patterns/all/5001', 'params.limitrows'],
    ['rows that are not a number', '/api/patterns/all/ten', 'params.limitrows'],
    ['no dates', '/api/patterns/dates/0', 'params.limitDays'],
    ['a month that does not exist', '/api/patterns/bydate/2024-13-01', 'params.date'],
    ['a date without dashes', '/api/patterns/bydate/20241231', 'params.date'],
    ['a day that does not exist', '/api/patterns/bydate/2024-02-30', 'params.date'],
    ['recent rows of an unknown symbol', '/api/patterns/recentstkpattern/ZZZZZZ/10', 'params.stock'],
    ['recent rows of no days', '/api/patterns/recentstkpattern/AAPL/0', 'params.limitdays'],
    ['recent rows of too many days', '/api/patterns/recentstkpattern/AAPL/1251', 'params.limitdays'],
    ['performance from after the last bar', '/api/patterns/performance/AAPL/2025-03-17', 'params.datefrom'],
    ['performance from a text', '/api/patterns/performance/AAPL/yesterday', 'params.datefrom'],
    ['performance of an unknown symbol', '/api/patterns/performance/ZZZZZZ/2024-01-02', 'params.stock'],
    ['a ranking over too many days', '/api/patterns/groupbysym/1251', 'params.limitDays'],
    ['latest patterns of an unknown symbol', '/realtime/stockpatterns/ZZZZZZ', 'params.symbol'],
    ['latest patterns of a bad symbol', '/realtime/stockpatterns/a$b', 'params.symbol'],
  ];
  for (const [what, path, field] of badInputs) {
    it(`refuses ${what} with 400 naming ${field}`, async function () {
      await user.getRefused(path, field);
    });
  }

  const paths = [
    '/realtime/stockpatterns/AAPL',
    '/api/patterns/all/10',
    '/api/patterns/dates/10',
    '/api/patterns/bydate/2024-12-31',
    '/api/patterns/mostrecentday',
    '/api/patterns/recentstkpattern/AAPL/10',
    '/api/patterns/performance/AAPL/2024-12-02',
    '/api/patterns/groupbysym/10',
    '/api/patterns/stats',
    '/api/patterns/definitions',
  ];
  for (const path of paths) {
    it(`answers 401 without a session on ${path}`, async function () {
      const res = await gw.client().get(path);
      expect(res.status).to.equal(401);
      expect(res.body).to.deep.include({ error: 'unauthorized' });
    });
  }
});
