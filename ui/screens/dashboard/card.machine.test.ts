import { expect } from 'chai';
import { createActor, fromPromise, waitFor } from 'xstate';
import type { MinuteCandles } from '../../../domain/contract/market.ts';
import type { AlertAnswer } from '../../../domain/contract/alerts.ts';
import { priceAlertAnswer } from '../../../domain/testing/alertAnswers.ts';
import {
  alertDirection,
  cardMachine,
  closesByDate,
  type CardAlert,
  type CardBar,
  type CardBars,
  type CompanyInfo,
  type Fundamentals,
  type RecentPattern,
} from './card.machine.ts';

function bar(date: string, close: number): CardBar {
  return {
    date,
    open: close,
    high: close + 1,
    low: close - 1,
    close,
    volume: 100,
    SMA_20: null,
    SMA_50: close - 2,
    SMA_100: null,
    SMA_200: close - 5,
    rsi_14: null,
  };
}

const INFO: CompanyInfo = {
  name: 'Apple Inc.',
  sector: 'Information Technology',
  industry: 'Hardware',
  marketcap: 3e12,
  eps: 6.5,
  epsYear: 2025,
  range52: { low: 150, high: 240 },
};

function card(options: { barsFail?: boolean; alertFails?: boolean; sessionFails?: boolean } = {}) {
  const calls: { name: string; input: unknown }[] = [];
  const opened: string[] = [];
  let alerts: CardAlert[] = [];
  const actor = createActor(
    cardMachine.provide({
      actors: {
        loadBars: fromPromise<CardBars, { symbol: string; months: number }>(async ({ input }) => {
          calls.push({ name: 'bars', input });
          if (options.barsFail) throw new Error('Not found');
          return Promise.resolve({ bars: [bar('2026-01-02', 100), bar('2026-01-05', 102)], next: null });
        }),
        loadSession: fromPromise<MinuteCandles, string>(async ({ input }) => {
          calls.push({ name: 'session', input });
          if (options.sessionFails) throw new Error('Not found');
          return Promise.resolve({ symbol: input, prevClose: 100, candles: [] });
        }),
        loadInfo: fromPromise<CompanyInfo, string>(async ({ input }) => {
          calls.push({ name: 'info', input });
          return Promise.resolve(INFO);
        }),
        loadPatterns: fromPromise<RecentPattern[], string>(async ({ input }) => {
          calls.push({ name: 'patterns', input });
          return Promise.resolve([{ date: '2026-01-02', patterns: [{ name: 'Hammer', bullish: true }], close: 100 }]);
        }),
        loadFundamentals: fromPromise<Fundamentals, string>(async ({ input }) => {
          calls.push({ name: 'fundamentals', input });
          return Promise.resolve({ revenue: [], grossprofit: [], income: [], earningspershare: [] });
        }),
        loadAlerts: fromPromise<CardAlert[], string>(async ({ input }) => {
          calls.push({ name: 'alerts', input });
          return Promise.resolve(alerts);
        }),
        createAlert: fromPromise<CardAlert, { symbol: string; threshold: number; alerttype: 'U' | 'D' }>(
          async ({ input }) => {
            calls.push({ name: 'createAlert', input });
            if (options.alertFails) throw new Error('body.close: must be positive');
            const up = input.alerttype === 'U';
            const base = priceAlertAnswer(`a${alerts.length + 1}`, input.threshold, {
              symbol: input.symbol,
              alerttype: input.alerttype,
            });
            // A card's alert is the answer without its creation time.
            const { createdt: _created, ...alert }: AlertAnswer = {
              ...base,
              condition: { ...base.condition, op: up ? 'greater_than' : 'less_than' },
              conditiontext: `Price is at or ${up ? 'above' : 'below'} ${input.threshold.toFixed(2)}`,
            };
            alerts = [...alerts, alert];
            return Promise.resolve(alert);
          },
        ),
      },
      actions: { openChart: (_, params) => void opened.push(params.symbol) },
    }),
    { input: { symbol: 'AAPL', months: 3 } },
  ).start();
  const count = (name: string) => calls.filter((c) => c.name === name).length;
  return { actor, calls, opened, count };
}

describe('stock card machine', () => {
  it('loads the bars of the slider period for the chart and the SMA', async () => {
    const { actor, calls } = card();
    await waitFor(actor, (s) => s.matches({ bars: 'ready' }));
    expect(calls[0]).to.deep.equal({ name: 'bars', input: { symbol: 'AAPL', months: 3 } });
    expect(actor.getSnapshot().context.bars.at(-1)?.SMA_50).to.equal(100);
    expect(actor.getSnapshot().matches({ body: 'chart' })).to.equal(true);
  });

  it("loads the session's minutes each time Today is shown, and goes on without them when they fail", async () => {
    const { actor, count } = card();
    await waitFor(actor, (s) => s.matches({ bars: 'ready' }));
    expect(actor.getSnapshot().context.session).to.equal(null);
    actor.send({ type: 'user.showToday' });
    await waitFor(actor, (s) => s.matches({ today: 'idle' }) && s.context.session !== null);
    expect(actor.getSnapshot().context.session).to.deep.equal({ symbol: 'AAPL', prevClose: 100, candles: [] });
    actor.send({ type: 'user.showToday' });
    await waitFor(actor, (s) => s.matches({ today: 'idle' }));
    expect(count('session')).to.equal(2);
    const failing = card({ sessionFails: true }).actor;
    failing.send({ type: 'user.showToday' });
    await waitFor(failing, (s) => s.matches({ today: 'idle' }));
    expect(failing.getSnapshot().status).to.equal('active');
    expect(failing.getSnapshot().context.session).to.equal(null);
  });

  it('loads the bars again when the slider changes, and not for the same months', async () => {
    const { actor, calls, count } = card();
    await waitFor(actor, (s) => s.matches({ bars: 'ready' }));
    actor.send({ type: 'parent.months', months: 3 });
    expect(count('bars')).to.equal(1);
    actor.send({ type: 'parent.months', months: 12 });
    await waitFor(actor, (s) => s.matches({ bars: 'ready' }));
    expect(calls.at(-1)).to.deep.equal({ name: 'bars', input: { symbol: 'AAPL', months: 12 } });
  });

  it('keeps the failure of the bars and retries on demand', async () => {
    const { actor, count } = card({ barsFail: true });
    await waitFor(actor, (s) => s.matches({ bars: 'failed' }));
    expect(actor.getSnapshot().context.barsError).to.equal('Not found');
    actor.send({ type: 'user.retry' });
    await waitFor(actor, (s) => s.matches({ bars: 'failed' }) && count('bars') === 2);
  });

  it('loads the company info when first shown, and reuses it after coming back', async () => {
    const { actor, count } = card();
    actor.send({ type: 'user.showMode', mode: 'info' });
    await waitFor(actor, (s) => s.matches({ body: { info: 'ready' } }));
    expect(actor.getSnapshot().context.info).to.deep.equal(INFO);
    actor.send({ type: 'user.showMode', mode: 'patterns' });
    await waitFor(actor, (s) => s.matches({ body: { patterns: 'ready' } }));
    actor.send({ type: 'user.showMode', mode: 'info' });
    expect(actor.getSnapshot().matches({ body: { info: 'ready' } })).to.equal(true);
    expect(count('info')).to.equal(1);
    actor.send({ type: 'user.showMode', mode: 'fundamentals' });
    await waitFor(actor, (s) => s.matches({ body: { fundamentals: 'ready' } }));
    actor.send({ type: 'user.showMode', mode: 'chart' });
    expect(actor.getSnapshot().matches({ body: 'chart' })).to.equal(true);
  });

  it('shows the alert lines, adds an alert above the price as an up alert, and hides them again', async () => {
    const { actor, calls, count } = card();
    actor.send({ type: 'user.toggleAlertLines' });
    await waitFor(actor, (s) => s.matches({ alerts: 'shown' }));
    expect(actor.getSnapshot().context.alerts).to.deep.equal([]);
    actor.send({ type: 'user.addAlert', threshold: 110, price: 102 });
    await waitFor(actor, (s) => s.matches({ alerts: 'shown' }) && s.context.alerts.length === 1);
    expect(calls.find((c) => c.name === 'createAlert')?.input).to.deep.equal({
      symbol: 'AAPL',
      threshold: 110,
      alerttype: 'U',
    });
    actor.send({ type: 'user.toggleAlertLines' });
    expect(actor.getSnapshot().matches({ alerts: 'hidden' })).to.equal(true);
    actor.send({ type: 'user.toggleAlertLines' });
    expect(actor.getSnapshot().matches({ alerts: 'shown' })).to.equal(true);
    expect(count('alerts')).to.equal(2);
  });

  it('keeps the message of a refused alert and ignores a threshold that is not positive', async () => {
    const { actor, count } = card({ alertFails: true });
    actor.send({ type: 'user.addAlert', threshold: 0, price: 100 });
    expect(actor.getSnapshot().matches({ alerts: 'hidden' })).to.equal(true);
    actor.send({ type: 'user.addAlert', threshold: 90, price: 100 });
    await waitFor(actor, (s) => s.matches({ alerts: 'failed' }));
    expect(actor.getSnapshot().context.alertsError).to.equal(
      'The alert could not be created: body.close: must be positive',
    );
    expect(count('createAlert')).to.equal(1);
  });

  it('opens the chart of its symbol', () => {
    const { actor, opened } = card();
    actor.send({ type: 'user.openChart' });
    expect(opened).to.deep.equal(['AAPL']);
  });

  it('reads an alert at or above the price as up and below as down', () => {
    expect(alertDirection(101, 100)).to.equal('U');
    expect(alertDirection(100, 100)).to.equal('U');
    expect(alertDirection(99.99, 100)).to.equal('D');
  });

  it('maps each date to its close', () => {
    expect(closesByDate([bar('2026-01-02', 10), bar('2026-01-05', 11)]).get('2026-01-05')).to.equal(11);
  });
});
