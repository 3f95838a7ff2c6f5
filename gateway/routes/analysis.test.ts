import { expect } from 'chai';
import { useTestGateway, TEST_MARKET_DATE, type TestClient, type TestGateway } from '../testing/harness.ts';

interface Bar {
  date: string;
  close: number;
}

interface Row {
  date: string;
  stockpatterns: { name: string; bullish: boolean | null }[];
}

describe('analysis routes', function () {
  let gw: TestGateway;
  let user: TestClient;
  useTestGateway(async (started) => {
    gw = started;
    user = await gw.user();
  });

  it("answers each symbol's close on a trading day exactly as its bar of that day", async function () {
    const [aapl, xom] = await Promise.all(
      ['AAPL', 'XOM'].map(async (s) => (await user.getOk<{ bars: Bar[] }>(`/api/bars/${s}?months=1`)).bars),
    );
    const day = aapl?.[3]?.date as string;
    const closes = await user.getOk(`/api/analysis/closes/${day}?symbols=AAPL,xom`);
    expect(closes).to.deep.equal([
      { symbol: 'AAPL', date: day, close: aapl?.[3]?.close },
      { symbol: 'XOM', date: day, close: xom?.find((b) => b.date === day)?.close },
    ]);
  });

  it('answers the last close before a day without trading, and null before the first bar', async function () {
    const week = (await user.getOk<{ bars: Bar[] }>('/api/bars/MSFT?months=1')).bars;
    const friday = week.find((b) => new Date(`${b.date}T12:00:00Z`).getUTCDay() === 5) as Bar;
    const saturday = new Date(Date.parse(`${friday.date}T12:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    expect(await user.getOk(`/api/analysis/closes/${saturday}?symbols=MSFT`)).to.deep.equal([
      { symbol: 'MSFT', date: friday.date, close: friday.close },
    ]);
    expect(await user.getOk('/api/analysis/closes/1990-01-02?symbols=MSFT')).to.deep.equal([
      { symbol: 'MSFT', date: null, close: null },
    ]);
  });

  it("answers each symbol's pattern days of the window, oldest first, the same as the per-symbol route", async function () {
    const answer = await user.getOk<{ from: string; to: string; timelines: { symbol: string; days: Row[] }[] }>(
      '/api/analysis/timelines/60?symbols=AAPL,JPM',
    );
    expect(answer.to).to.equal(TEST_MARKET_DATE);
    expect(answer.from < answer.to).to.equal(true);
    expect(answer.timelines.map((t) => t.symbol)).to.deep.equal(['AAPL', 'JPM']);
    for (const { symbol, days } of answer.timelines) {
      const rows = await user.getOk<(Row & { id: string; symbol: string })[]>(
        `/api/patterns/recentstkpattern/${symbol}/60`,
      );
      expect(rows.length).to.be.above(0);
      expect(days).to.deep.equal(rows.reverse().map(({ date, stockpatterns }) => ({ date, stockpatterns })));
      expect(days.every((d) => d.date >= answer.from && d.date <= answer.to)).to.equal(true);
    }
  });

  it('counts the window in trading days: one day is the last trading day only', async function () {
    const answer = await user.getOk<{ from: string; to: string }>('/api/analysis/timelines/1?symbols=AAPL');
    expect(answer.from).to.equal(answer.to);
  });

  const badInputs: [string, string, string][] = [
    ['a date that does not exist', '/api/analysis/closes/2024-02-30?symbols=AAPL', 'params.date'],
    ['no symbols', '/api/analysis/closes/2024-12-31?symbols=', 'query.symbols'],
    ['a missing symbol list', '/api/analysis/closes/2024-12-31', 'query.symbols'],
    ['a symbol outside the universe', '/api/analysis/closes/2024-12-31?symbols=AAPL,ZZZZZZ', 'query.symbols[1]'],
    ['a symbol named twice', '/api/analysis/closes/2024-12-31?symbols=AAPL,AAPL', 'query.symbols[1]'],
    ['no days', '/api/analysis/timelines/0?symbols=AAPL', 'params.limitDays'],
    ['too many days', '/api/analysis/timelines/1251?symbols=AAPL', 'params.limitDays'],
    ['a symbol breaking the rule', '/api/analysis/timelines/60?symbols=AAPL,BAD!', 'query.symbols[1]'],
    [
      'more than 100 symbols',
      `/api/analysis/timelines/60?symbols=${Array.from({ length: 101 }, (_, i) => `S${i}`).join(',')}`,
      'query.symbols',
    ],
  ];
  for (const [what, path, field] of badInputs) {
    it(`refuses ${what} with 400 naming ${field}`, async function () {
      await user.getRefused(path, field);
    });
  }

  it('refuses a request without a session', async function () {
    const res = await gw.client().get('/api/analysis/timelines/60?symbols=AAPL');
    expect(res.status).to.equal(401);
  });
});
