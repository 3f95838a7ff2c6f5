import { expect } from 'chai';
import type { z } from 'zod';
import type { marketApi } from '../../domain/contract/market.ts';
import type { DayRolled } from '../../engine/market/marketData.ts';
import type { ClosedDay } from '../../platform/bus/port.ts';
import { startTestGateway, TEST_MARKET_DATE, type TestGateway } from '../testing/harness.ts';

type BarsAnswer = z.infer<typeof marketApi.getBarsBySymbol.response>;

/** Resolves once the gateway's market has stored the bars of `date` (at once when it has). */
function stored(gw: TestGateway, date: string): Promise<void> {
  const market = gw.running.system.market;
  return new Promise((resolve) => {
    const check = (): void => {
      if ((market.status().to ?? '') < date) return;
      stop();
      resolve();
    };
    const stop = market.onDayRolled(check);
    check();
  });
}

/** The next day close on the gateway's engine bus. */
function nextClose(gw: TestGateway): Promise<ClosedDay> {
  return new Promise((resolve) => {
    const subscription = gw.running.system.engine!.bus.subscribe({
      onTicks: () => undefined,
      onDayClosed: (day) => {
        void subscription.unsubscribe();
        resolve(day);
      },
    });
  });
}

const TOKEN = 'closed-days-feed-token';

describe('closed trading days in the market store', function () {
  this.timeout(90_000);

  it('stores a day as it closes: the chart goes on with it, its averages the engine’s, and after a restart', async function () {
    const gw = await startTestGateway({ env: { FEED_TOKEN: TOKEN } });
    let dataKept = false;
    try {
      const user = await gw.user('closes');
      const engine = gw.running.system.engine!;
      // The trading day after the test market's last one (a Tuesday): AAPL trades three times through the feed.
      const date = '2025-02-25';
      const ticks = [
        { symbol: 'AAPL', price: 250.1, size: 100, ts: Date.parse(`${date}T14:30:00.000Z`) },
        { symbol: 'AAPL', price: 251.37, size: 200, ts: Date.parse(`${date}T15:00:00.000Z`) },
        { symbol: 'AAPL', price: 249.93, size: 300, ts: Date.parse(`${date}T20:59:00.000Z`) },
      ];
      const fed = await gw.client().post('/api/feed/ticks', ticks, { authorization: `Bearer ${TOKEN}` });
      expect(fed.status).to.equal(202, fed.text);
      // At 16:00 New York the closer publishes every symbol's bar (`engine/ticks/dayCloser.ts`, its own tests):
      // AAPL's of its ticks, a flat one at the last price for the others.
      const bars = gw.running.system.market.symbols().map((symbol) => {
        if (symbol === 'AAPL')
          return { symbol, date, open: 250.1, high: 251.37, low: 249.93, close: 249.93, volume: 600 };
        const close = engine.quotes.quote(symbol)!.price;
        return { symbol, date, open: close, high: close, low: close, close, volume: 0 };
      });
      const storedDay = stored(gw, date);
      await engine.bus.publishDayClosed({ date, bars });
      await storedDay;
      const chart = (await user.get('/api/bars/AAPL?months=1')).body as BarsAnswer;
      expect(chart.bars.at(-2)?.date).to.equal(TEST_MARKET_DATE);
      expect(chart.bars.at(-1)).to.deep.include({ date, open: 250.1, high: 251.37, low: 249.93, close: 249.93 });
      // The chart's next averages are made of the closes the engine's SMA alerts compare with.
      expect(chart.next?.after).to.equal(date);
      expect(Math.round(chart.next!.SMA_20! * 100)).to.equal(engine.quotes.smaBase('AAPL', 20));
      expect(Math.round(chart.next!.SMA_200! * 100)).to.equal(engine.quotes.smaBase('AAPL', 200));
      expect(((await user.get('/api/market/status')).body as { to: string }).to).to.equal(date);
      // Then the symbols are analysed again: the screener's indicators are those of the chart's new last bar.
      await gw.running.system.market.analysed();
      const run = await user.post('/api/screener/run', { query: [], limit: 500 });
      expect(run.status).to.equal(200, run.text);
      const row = (run.body as { rows: { symbol: string; SMA_50: number | null }[] }).rows.find(
        (r) => r.symbol === 'AAPL',
      );
      expect(row?.SMA_50).to.equal(chart.bars.at(-1)?.SMA_50);
      // A day played (a demo session, a replay) is not the calendar's: not stored (the engine rolls it, as ever).
      const later = '2025-02-26';
      await engine.bus.publishDayClosed({
        date: later,
        bars: bars.map((b) => ({ ...b, date: later })),
        played: 'demo',
      });
      expect(gw.running.system.market.status().to).to.equal(date);
      await gw.close({ keepData: true });
      dataKept = true;
      // A restart keeps the day, and its engine's quotes start from it.
      const again = await startTestGateway({ dataDir: gw.dataDir, env: { FEED_TOKEN: TOKEN } });
      try {
        const client = await again.user('closes2');
        const kept = (await client.get('/api/bars/AAPL?months=1')).body as BarsAnswer;
        expect(kept.bars.at(-1)).to.deep.include({ date, close: 249.93 });
        const quote = again.running.system.engine!.quotes.quote('AAPL')!;
        expect(quote, 'the quote before a tick: the stored close').to.deep.include({ price: 249.93, source: 'close' });
        expect(Math.round(kept.next!.SMA_20! * 100)).to.equal(again.running.system.engine!.quotes.smaBase('AAPL', 20));
      } finally {
        await again.close();
      }
    } finally {
      if (!dataKept) await gw.close();
    }
  });

  it('keeps the demo clock’s sessions, dated ahead of the calendar, out of the store', async function () {
    const gw = await startTestGateway({ env: { TICK_SOURCE: 'simulator', MARKET_CLOCK: 'accelerated:0.05' } });
    try {
      const user = await gw.user('demo');
      const rolled: DayRolled[] = [];
      const stop = gw.running.system.market.onDayRolled((r) => rolled.push(r));
      const closed = await nextClose(gw);
      stop();
      expect(closed.date > TEST_MARKET_DATE).to.equal(true);
      expect(rolled).to.deep.equal([]);
      const chart = (await user.get('/api/bars/AAPL?months=1')).body as BarsAnswer;
      expect(chart.bars.at(-1)?.date).to.equal(TEST_MARKET_DATE);
    } finally {
      await gw.close();
    }
  });
});
