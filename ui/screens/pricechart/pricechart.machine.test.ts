import { expect } from 'chai';
import { createActor, fromCallback, fromPromise, waitFor, type SnapshotFrom } from 'xstate';
import {
  ALERT_NOTE_MAX,
  parseCondition,
  type AlertCondition,
  type AlertSource,
} from '../../../domain/alerts/conditions.ts';
import type { MinuteCandles, NextAverages } from '../../../domain/contract/market.ts';
import type { Quote } from '../../../domain/market/types.ts';
import { PATTERN_LABEL_BOX, type Bar, type ChartAlert, type Duration, type PatternRow } from './chartData.ts';
import { conditionAlert, priceAlert } from './chartFixtures.ts';
import {
  alertRequest,
  compareProblem,
  initialContext,
  movableLevel,
  priceChartMachine,
  type AlertRequest,
  type AlertToggle,
  type ChartLoad,
  type ChartRequest,
  type CompareLoad,
  type PriceChartEvent,
  type SnapshotRequest,
} from './pricechart.machine.ts';

function bar(date: string, close: number): Bar {
  return {
    date,
    open: close - 0.5,
    high: close + 1,
    low: close - 1,
    close,
    volume: 1000,
    SMA_20: close - 1,
    SMA_50: close - 2,
    SMA_100: null,
    SMA_200: null,
    rsi_14: 50,
  };
}

const BARS = Array.from({ length: 30 }, (_, i) => bar(`2026-01-${String(i + 1).padStart(2, '0')}`, 100 + (i % 7)));

const alert = priceAlert;

interface Options {
  failChart?: string;
  failAlerts?: string;
  alerts?: ChartAlert[];
  patterns?: PatternRow[];
  saveFails?: string;
  /** Holds saves until released. */
  holdSaves?: boolean;
  /** The server's minute candles of the session (the 1D chart); none by default. */
  minutes?: MinuteCandles;
  /** The status the server answers a saved alert with (armed by default). */
  savedStatus?: ChartAlert['status'];
}

function chart(options: Options = {}) {
  const calls: {
    chart: ChartRequest[];
    alerts: number;
    saves: AlertRequest[];
    deletes: string[];
    toggles: string[];
    compares: string[];
    minutes: number;
  } = { chart: [], alerts: 0, saves: [], deletes: [], toggles: [], compares: [], minutes: 0 };
  const notes: string[] = [];
  const paths: string[] = [];
  let push: ((event: PriceChartEvent) => void) | null = null;
  let failChart = options.failChart;
  let serverMinutes = options.minutes ?? { symbol: 'AAPL', prevClose: 105, candles: [] };
  let failMinutes: string | undefined;
  let serverAlerts = options.alerts ?? [];
  let release: (() => void) | null = null;
  // What the server holds: the bars, and the sums of the last closes the next day's averages are made of.
  let stored: { bars: Bar[]; next: NextAverages } = {
    bars: BARS,
    // The sum of the last 49 closes: 50-day averages only.
    next: { after: '2026-01-30', SMA_20: null, SMA_50: 4900, SMA_100: null, SMA_200: null, rsi_14: null },
  };
  const actor = createActor(
    priceChartMachine.provide({
      actors: {
        loadChart: fromPromise<ChartLoad, ChartRequest>(async ({ input }) => {
          calls.chart.push(input);
          if (failChart) throw new Error(failChart);
          const bars = input.duration === '5D' ? stored.bars.slice(-5) : stored.bars;
          return Promise.resolve({
            bars,
            next: stored.next,
            patterns: options.patterns ?? [],
            minutes: input.duration === '1D' ? serverMinutes : null,
            compareBars: Object.fromEntries(input.compares.map((s) => [s, BARS.map((b) => ({ ...b, close: 50 }))])),
          });
        }),
        loadMinutes: fromPromise<MinuteCandles, { symbol: string }>(async () => {
          calls.minutes += 1;
          if (failMinutes) throw new Error(failMinutes);
          return Promise.resolve(serverMinutes);
        }),
        loadAlerts: fromPromise<ChartAlert[], { symbol: string }>(async () => {
          calls.alerts += 1;
          if (options.failAlerts) throw new Error(options.failAlerts);
          return Promise.resolve(serverAlerts);
        }),
        saveAlert: fromPromise<ChartAlert, AlertRequest>(async ({ input }) => {
          calls.saves.push(input);
          if (options.holdSaves) await new Promise<void>((resolve) => (release = resolve));
          if (options.saveFails) throw new Error(options.saveFails);
          const saved = input.condition
            ? conditionAlert(input.id ?? `new-${calls.saves.length}`, parseCondition(input.condition) as AlertCondition)
            : input.kind === 'SMA'
              ? alert(`sma-${input.period}`, 0, {
                  threshold: null,
                  kind: 'SMA',
                  period: input.period!,
                  alerttype: input.alerttype as 'U' | 'D',
                })
              : alert(input.id ?? `new-${calls.saves.length}`, input.close!, {
                  alerttype: input.alerttype as 'U' | 'D',
                });
          if (options.savedStatus) saved.status = options.savedStatus;
          serverAlerts = [...serverAlerts.filter((a) => a.id !== saved.id), saved];
          return saved;
        }),
        deleteAlert: fromPromise<{ id: string }, { id: string }>(async ({ input }) => {
          calls.deletes.push(input.id);
          serverAlerts = serverAlerts.filter((a) => a.id !== input.id);
          return Promise.resolve({ id: input.id });
        }),
        toggleAlert: fromPromise<ChartAlert, AlertToggle>(async ({ input }) => {
          calls.toggles.push(`${input.action} ${input.id}`);
          const status = input.action === 'pause' ? 'paused' : 'armed';
          serverAlerts = serverAlerts.map((a) => (a.id === input.id ? { ...a, status } : a));
          return Promise.resolve(serverAlerts.find((a) => a.id === input.id)!);
        }),
        loadCompare: fromPromise<CompareLoad, { symbol: string; mode: 'normalized' | 'axis'; duration: Duration }>(
          async ({ input }) => {
            calls.compares.push(input.symbol);
            if (input.symbol === 'NOPE') throw new Error('Compare: there is no symbol NOPE');
            return Promise.resolve({
              symbol: input.symbol,
              mode: input.mode,
              bars: BARS.map((b) => ({ ...b, close: 50 })),
            });
          },
        ),
        saveSnapshot: fromPromise<{ id: string; title: string }, SnapshotRequest>(async ({ input }) =>
          Promise.resolve({ id: 's1', title: input.title }),
        ),
        liveQuotes: fromCallback<PriceChartEvent, { symbol: string }>(({ sendBack }) => {
          push = sendBack;
        }),
        liveChanges: fromCallback<PriceChartEvent, { symbol: string }>(() => undefined),
      },
      actions: {
        navigate: (_, params: { path: string }) => {
          paths.push(params.path);
        },
        notify: (_, params: { text: string }) => {
          notes.push(params.text);
        },
      },
    }),
    { input: { symbol: 'aapl' } },
  ).start();
  const ready = () =>
    waitFor(actor, (s) => s.matches({ chart: 'ready' }) && s.matches({ alerts: 'ready' }), { timeout: 2000 });
  return {
    actor,
    calls,
    notes,
    paths,
    ready,
    push: (event: PriceChartEvent) => push?.(event),
    setFailChart: (message: string | undefined) => (failChart = message),
    setFailMinutes: (message: string | undefined) => (failMinutes = message),
    setMinutes: (minutes: MinuteCandles) => (serverMinutes = minutes),
    store: (bars: Bar[], next: NextAverages) => (stored = { bars, next }),
    release: () => release?.(),
  };
}

const ctx = (s: SnapshotFrom<typeof priceChartMachine>) => s.context;

/** A minute candle of a January (New York winter) session opening at its low, as the server answers it. */
function minuteCandle(time: string, low: number, high: number, close: number, sessionVolume: number) {
  return {
    time,
    start: `${time.slice(0, 10)}T${String(Number(time.slice(11, 13)) + 5).padStart(2, '0')}:${time.slice(14)}:00.000Z`,
    open: low,
    high,
    low,
    close,
    volume: 100,
    sessionVolume,
  };
}

/** A quote of a session whose previous close is 100. */
function quote(price: number, ts = '2026-01-30T18:00:00Z'): Quote {
  const change = Math.round((price - 100) * 10_000) / 10_000;
  return { symbol: 'AAPL', price, change, changepct: change, volume: 9000, ts, source: 'simulated' };
}

describe('price chart machine', () => {
  it('loads the bars, patterns and alerts of the symbol, then is ready with its elements', async () => {
    const { actor, calls, ready } = chart({
      alerts: [alert('a1', 120)],
      patterns: [{ id: 'p', symbol: 'AAPL', date: '2026-01-10', stockpatterns: [{ name: 'Hammer', bullish: true }] }],
    });
    expect(actor.getSnapshot().matches({ chart: 'loading' })).to.equal(true);
    await ready();
    const c = ctx(actor.getSnapshot());
    expect(c.symbol).to.equal('AAPL');
    expect(calls.chart[0]).to.deep.equal({ symbol: 'AAPL', duration: '3M', compares: [] });
    expect(c.bars).to.have.length(30);
    const types = c.elements.map((e) => e.type);
    expect(types).to.include.members(['ALERT', 'SAR', 'IMAGE']);
    const image = c.elements.find((e) => e.type === 'IMAGE');
    expect(image?.type === 'IMAGE' && image.chartdata.points.map((p) => p.text)).to.deep.equal(['Hammer']);
  });

  it("places the patterns' names again for the chart's measured width, and for the averages drawn", async () => {
    const rows = BARS.map((b, i) => ({
      id: `p${i}`,
      symbol: 'AAPL',
      date: b.date,
      stockpatterns: [{ name: 'bullish_marubozu', bullish: true }],
    }));
    const { actor, ready } = chart({ patterns: rows });
    await ready();
    const written = () => {
      const image = ctx(actor.getSnapshot()).elements.find((e) => e.type === 'IMAGE');
      return image?.type === 'IMAGE' ? image.chartdata.points.filter((p) => p.label).length : -1;
    };
    const wide = written();
    expect(ctx(actor.getSnapshot()).plotWidth).to.equal(PATTERN_LABEL_BOX.plotWidth);
    actor.send({ type: 'ui.resized', plotWidth: 250 });
    const phone = written();
    expect(ctx(actor.getSnapshot()).plotWidth).to.equal(250);
    expect(phone, 'fewer names on a phone').to.be.within(1, wide - 1);
    // A change of a few pixels, or no width at all, leaves them as they are.
    const before = ctx(actor.getSnapshot()).elements;
    actor.send({ type: 'ui.resized', plotWidth: 254 });
    actor.send({ type: 'ui.resized', plotWidth: Number.NaN });
    actor.send({ type: 'ui.resized', plotWidth: 0 });
    expect(ctx(actor.getSnapshot()).elements).to.equal(before);
    actor.send({ type: 'ui.resized', plotWidth: 900 });
    expect(written()).to.be.at.least(wide);
    // Turning an average on or off places them again too (the elements are derived anew).
    const drawn = ctx(actor.getSnapshot()).elements;
    actor.send({ type: 'user.toggleSma', period: 50 });
    expect(ctx(actor.getSnapshot()).elements).to.not.equal(drawn);
  });

  it('keeps the failure message, stops loading, and retries', async () => {
    const { actor, calls, setFailChart } = chart({ failChart: 'The chart could not be loaded: Not found' });
    await waitFor(actor, (s) => s.matches({ chart: 'failed' }));
    expect(ctx(actor.getSnapshot()).error).to.equal('The chart could not be loaded: Not found');
    setFailChart(undefined);
    actor.send({ type: 'user.retry' });
    await waitFor(actor, (s) => s.matches({ chart: 'ready' }));
    expect(ctx(actor.getSnapshot()).error).to.equal(null);
    expect(calls.chart).to.have.length(2);
  });

  it('keeps the alerts failure apart from the chart and retries it', async () => {
    const { actor } = chart({ failAlerts: 'Your session has ended: sign in again' });
    await waitFor(actor, (s) => s.matches({ alerts: 'failed' }) && s.matches({ chart: 'ready' }));
    expect(ctx(actor.getSnapshot()).alertsError).to.equal(
      'The alerts could not be loaded: Your session has ended: sign in again',
    );
  });

  it('loads again when the duration changes, and not for the same duration', async () => {
    const { actor, calls, ready } = chart();
    await ready();
    actor.send({ type: 'user.setDuration', duration: '3M' });
    expect(calls.chart).to.have.length(1);
    actor.send({ type: 'user.setDuration', duration: '5D' });
    expect(actor.getSnapshot().matches({ chart: 'loading' })).to.equal(true);
    await ready();
    expect(calls.chart[1]).to.deep.include({ duration: '5D' });
    expect(ctx(actor.getSnapshot()).bars).to.have.length(5);
    actor.send({ type: 'user.setDuration', duration: '1D' });
    await ready();
    const sar = ctx(actor.getSnapshot()).elements.filter((e) => e.type === 'SAR');
    expect(
      sar.map((e) => e.charttype),
      'the 1D chart draws the previous close',
    ).to.deep.equal(['close']);
  });

  it("draws the session so far on 1D from the server's minute candles, live quotes moving the last one", async () => {
    const candle = (time: string, close: number, sessionVolume: number) =>
      minuteCandle(time, close, close, close, sessionVolume);
    const minutes: MinuteCandles = {
      symbol: 'AAPL',
      prevClose: 100,
      candles: [candle('2026-01-31 09:30', 106, 100), candle('2026-01-31 09:31', 107, 200)],
    };
    const { actor, ready, push } = chart({ minutes });
    await ready();
    expect(ctx(actor.getSnapshot()).intraday, 'no candle on a daily duration').to.deep.equal([]);
    // A quote of the session received before the candles were asked for: older than their last trading.
    push({ type: 'server.quote', quote: { ...quote(106.5, '2026-01-31T14:31:10Z'), volume: 150 } });
    actor.send({ type: 'user.setDuration', duration: '1D' });
    await ready();
    expect(ctx(actor.getSnapshot()).intraday).to.deep.equal(minutes.candles.map((c) => ({ ...c, prevClose: 100 })));
    push({ type: 'server.quote', quote: { ...quote(108, '2026-01-31T14:31:40Z'), volume: 250 } });
    expect(ctx(actor.getSnapshot()).intraday.at(-1)).to.include({
      time: '2026-01-31 09:31',
      high: 108,
      close: 108,
      volume: 150,
      sessionVolume: 250,
    });
  });

  it("reads the session's candles again once a minute is over, the server's made of every tick", async () => {
    const first = minuteCandle('2026-01-31 09:30', 106, 106, 106, 100);
    const { actor, ready, push, calls, setMinutes, setFailMinutes } = chart({
      minutes: { symbol: 'AAPL', prevClose: 100, candles: [first] },
    });
    actor.send({ type: 'user.setDuration', duration: '1D' });
    await ready();
    // Quotes within the minute move its candle and ask for nothing.
    push({ type: 'server.quote', quote: { ...quote(106.4, '2026-01-31T14:30:20Z'), volume: 150 } });
    push({ type: 'server.quote', quote: { ...quote(106.2, '2026-01-31T14:30:50Z'), volume: 180 } });
    expect(calls.minutes).to.equal(0);
    expect(ctx(actor.getSnapshot()).intraday.at(-1)).to.include({ high: 106.4, close: 106.2 });
    // The server saw a trade at 105.5 between the throttled quotes; the next minute's first quote reads it.
    setMinutes({
      symbol: 'AAPL',
      prevClose: 100,
      candles: [
        minuteCandle('2026-01-31 09:30', 105.5, 106.9, 106.2, 190),
        minuteCandle('2026-01-31 09:31', 106.3, 106.3, 106.3, 200),
      ],
    });
    push({ type: 'server.quote', quote: { ...quote(106.6, '2026-01-31T14:31:05Z'), volume: 230 } });
    await waitFor(actor, (s) => s.matches({ chart: { ready: 'live' } }) && calls.minutes === 1);
    const settled = ctx(actor.getSnapshot()).intraday;
    expect(settled[0]).to.include({ time: '2026-01-31 09:30', low: 105.5, high: 106.9, sessionVolume: 190 });
    // The quote newer than the server's answer stays on the forming candle.
    expect(settled.at(-1)).to.include({ time: '2026-01-31 09:31', close: 106.6, sessionVolume: 230 });
    push({ type: 'server.quote', quote: { ...quote(106.7, '2026-01-31T14:31:30Z'), volume: 240 } });
    expect(calls.minutes, 'once a minute').to.equal(1);
    // A refused read keeps the candles made of the quotes.
    setFailMinutes('The server is restarting');
    push({ type: 'server.quote', quote: { ...quote(106.8, '2026-01-31T14:32:01Z'), volume: 260 } });
    await waitFor(actor, (s) => s.matches({ chart: { ready: 'live' } }) && calls.minutes === 2);
    expect(ctx(actor.getSnapshot()).intraday.map((c) => c.time)).to.deep.equal([
      '2026-01-31 09:30',
      '2026-01-31 09:31',
      '2026-01-31 09:32',
    ]);
    // A daily duration asks for none.
    actor.send({ type: 'user.setDuration', duration: '3M' });
    await ready();
    push({ type: 'server.quote', quote: { ...quote(106.9, '2026-01-31T14:33:01Z'), volume: 270 } });
    expect(calls.minutes).to.equal(2);
  });

  it('toggles the moving-average overlays', async () => {
    const { actor, ready } = chart();
    await ready();
    expect(ctx(actor.getSnapshot()).smas).to.deep.equal([50, 200]);
    actor.send({ type: 'user.toggleSma', period: 20 });
    actor.send({ type: 'user.toggleSma', period: 200 });
    expect(ctx(actor.getSnapshot()).smas).to.deep.equal([20, 50]);
  });

  it('draws an RSI channel on the RSI panel once it is turned on, and a price channel following its 50-day SMA', async () => {
    const rsi = conditionAlert('r1', {
      op: 'outside_channel',
      source: 'rsi:14',
      value: null,
      lower: 30,
      upper: 70,
      bars: null,
    });
    const sma = conditionAlert('s1', {
      op: 'inside_channel',
      source: 'price',
      value: null,
      lower: { ref: 'sma:50' },
      upper: 130,
      bars: null,
    });
    const { actor, ready } = chart({ alerts: [rsi, sma] });
    await ready();
    const band = (id: string) => {
      const element = ctx(actor.getSnapshot()).elements.find((e) => e.id === id);
      return element?.type === 'BAND' ? element.chartdata : null;
    };
    expect(ctx(actor.getSnapshot()).rsiPanel).to.equal(false);
    expect(band('r1'), 'no RSI panel yet').to.equal(null);
    expect(band('s1')).to.deep.include({ lower: BARS.map((b) => b.SMA_50), upper: 130, axis: 'y' });
    actor.send({ type: 'user.toggleRsi' });
    expect(ctx(actor.getSnapshot()).rsiPanel).to.equal(true);
    expect(band('r1')).to.deep.include({ lower: 30, upper: 70, axis: 'y4' });
    actor.send({ type: 'user.toggleRsi' });
    expect(band('r1')).to.equal(null);
  });

  it('moves the last candle and the header price with live quotes, flashing up and down', async () => {
    const { actor, ready, push } = chart();
    await ready();
    push({ type: 'server.quote', quote: quote(110) });
    push({ type: 'server.quote', quote: quote(112) });
    let c = ctx(actor.getSnapshot());
    expect(c.quote?.price).to.equal(112);
    expect(c.flash).to.deep.equal({ direction: 'up', key: 1 });
    expect(c.bars.at(-1)).to.include({ date: '2026-01-30', close: 112 });
    push({ type: 'server.quote', quote: quote(111, '2026-01-31T15:00:00Z') });
    c = ctx(actor.getSnapshot());
    expect(c.flash).to.deep.equal({ direction: 'down', key: 2 });
    expect(c.bars.at(-1)).to.include({ date: '2026-01-31', close: 111 });
    // Today's 50-day average counts today's price, as the alerts' does: (4,900 + 111) / 50, then 112.
    expect(c.bars.at(-1)).to.include({ SMA_50: 100.22, SMA_20: null });
    push({ type: 'server.quote', quote: quote(112, '2026-01-31T15:01:00Z') });
    expect(ctx(actor.getSnapshot()).bars.at(-1)?.SMA_50).to.be.closeTo(100.24, 1e-9);
    c = ctx(actor.getSnapshot());
    expect(c.intraday.length).to.equal(2);
    push({ type: 'server.quote', quote: { ...quote(1), symbol: 'MSFT' } });
    expect(ctx(actor.getSnapshot()).quote?.price, "another symbol's quote is ignored").to.equal(112);
  });

  it("draws a move at today's level from the server's bars when an evening quote formed the next session's bar", async () => {
    const move = conditionAlert('m1', {
      op: 'moving_up',
      source: 'price',
      value: 10,
      lower: null,
      upper: null,
      bars: 1,
    });
    const { actor, ready, push } = chart({ alerts: [move] });
    await ready();
    // After Friday's close at 101, a quote of the next session on Friday's date forms Monday's bar.
    push({ type: 'server.quote', quote: { ...quote(115, '2026-01-30T22:39:00Z'), change: 14, changepct: 13.86 } });
    const c = ctx(actor.getSnapshot());
    expect(c.bars.at(-2)).to.include({ date: '2026-01-30', close: 101 });
    expect(c.bars.at(-1)).to.include({ date: '2026-02-02', close: 115 });
    // One bar back from the forming one is Friday's close: 101 + 10.
    const line = c.elements.find((e) => e.id === 'm1');
    expect(line?.type === 'ALERT' ? line.chartdata.y : null).to.equal(111);
  });

  it('loads the bars again when the day it formed a bar of has closed (a page kept open overnight)', async () => {
    const { actor, calls, ready, push, store } = chart();
    await ready();
    push({ type: 'server.quote', quote: quote(111, '2026-01-31T15:00:00Z') });
    expect(ctx(actor.getSnapshot()).bars.at(-1)).to.include({ date: '2026-01-31', close: 111, SMA_50: 100.22 });
    push({ type: 'server.quote', quote: quote(111.5, '2026-01-31T20:59:00Z') });
    expect(calls.chart).to.have.length(1);
    // The day closes at 111.5: the server stores its bar, and the sum of the last 49 closes moves on (one of
    // 100 out, 111.5 in).
    const sum = 4911.5;
    store([...BARS, bar('2026-01-31', 111.5)], {
      after: '2026-01-31',
      SMA_20: null,
      SMA_50: sum,
      SMA_100: null,
      SMA_200: null,
      rsi_14: null,
    });
    // Monday's first quote: the page loads the bars again, and forms Monday's from the new sums.
    const monday = quote(113, '2026-02-02T14:30:00Z');
    push({ type: 'server.quote', quote: monday });
    await waitFor(actor, (s) => s.matches({ chart: 'ready' }) && calls.chart.length === 2, { timeout: 2000 });
    const c = ctx(actor.getSnapshot());
    expect(c.quote).to.equal(monday);
    expect(c.bars.at(-2)).to.include({ date: '2026-01-31', close: 111.5 });
    expect(c.bars.at(-1)?.date).to.equal('2026-02-02');
    expect(c.bars.at(-1)?.SMA_50).to.be.closeTo((sum + 113) / 50, 1e-9);
    push({ type: 'server.quote', quote: quote(113.2, '2026-02-02T14:31:00Z') });
    expect(calls.chart, 'the same day: no load').to.have.length(2);
    expect(ctx(actor.getSnapshot()).bars.at(-1)).to.include({ date: '2026-02-02', close: 113.2 });
  });

  it('adds a price alert with the server answer and draws its line', async () => {
    const { actor, calls, notes, ready } = chart();
    await ready();
    actor.send({ type: 'user.addAlert', price: 121.5, alerttype: 'U' });
    expect(actor.getSnapshot().matches({ alerts: 'saving' })).to.equal(true);
    await waitFor(actor, (s) => s.matches({ alerts: 'ready' }));
    expect(calls.saves[0]).to.deep.equal({ symbol: 'AAPL', close: 121.5, alerttype: 'U', kind: 'PRICE' });
    const c = ctx(actor.getSnapshot());
    expect(c.alerts.map((a) => a.threshold)).to.deep.equal([121.5]);
    const line = c.elements.find((e) => e.type === 'ALERT');
    expect(line?.type === 'ALERT' && line.chartdata).to.include({ y: 121.5, label: '▲ Up 121.50 ✕' });
    expect(notes[0]).to.equal('Alert ▲ Up 121.50 on AAPL created');
  });

  it('says a new price alert whose condition already holds fires on the next tick, rather than that it is armed', async () => {
    const { actor, notes, ready, push } = chart();
    await ready();
    push({ type: 'server.quote', quote: quote(120) });
    actor.send({ type: 'user.addAlert', price: 115, alerttype: 'U' });
    await waitFor(actor, (s) => s.matches({ alerts: 'ready' }));
    expect(notes[0]).to.equal(
      'Alert ▲ Up 115.00 on AAPL created: the price (120.00) is already above 115.00, so it fires on the next tick',
    );
    actor.send({ type: 'user.addAlert', price: 120, alerttype: 'D' });
    await waitFor(actor, (s) => s.matches({ alerts: 'ready' }));
    expect(notes[1], 'at the threshold').to.equal(
      'Alert ▼ Down 120.00 on AAPL created: the price (120.00) is already at 120.00, so it fires on the next tick',
    );
    actor.send({ type: 'user.addAlert', price: 125, alerttype: 'U' });
    await waitFor(actor, (s) => s.matches({ alerts: 'ready' }));
    expect(notes[2]).to.equal('Alert ▲ Up 125.00 on AAPL created');
    expect(notes.join(' ')).not.to.include('armed');
  });

  it('names the status the server answered a new alert with, and says a dragged alert moved', async () => {
    const triggered = chart({ savedStatus: 'triggered' });
    await triggered.ready();
    triggered.actor.send({ type: 'user.addAlert', price: 95, alerttype: 'U' });
    await waitFor(triggered.actor, (s) => s.matches({ alerts: 'ready' }));
    expect(triggered.notes[0]).to.equal('Alert ▲ Up 95.00 on AAPL created, triggered');

    const { actor, notes, ready } = chart({ alerts: [alert('a1', 120)] });
    await ready();
    actor.send({ type: 'user.moveAlert', id: 'a1', price: 130 });
    await waitFor(actor, (s) => s.matches({ alerts: 'ready' }));
    expect(notes[0]).to.equal('Alert ▲ Up 130.00 on AAPL moved');
  });

  it('refuses a threshold the server would refuse, without sending it', async () => {
    const { actor, calls, ready } = chart();
    await ready();
    actor.send({ type: 'user.addAlert', price: 0, alerttype: 'D' });
    expect(ctx(actor.getSnapshot()).alertError).to.equal('Price: at least 0.01');
    expect(calls.saves).to.have.length(0);
  });

  it('draws a channel with two clicks and creates a channel alert shown as a shaded band', async () => {
    const { actor, calls, notes, ready } = chart();
    await ready();
    actor.send({ type: 'user.channelPoint', price: 130 });
    expect(ctx(actor.getSnapshot()).channelStart, 'a click draws a level unless drawing a channel').to.equal(null);
    actor.send({ type: 'user.setDrawing', drawing: 'channel' });
    actor.send({ type: 'user.channelPoint', price: 130 });
    const first = ctx(actor.getSnapshot()).elements.find((e) => e.id === 'channel-start');
    expect(first?.type === 'SAR' && first.chartdata.y).to.equal(130);
    actor.send({ type: 'user.channelPoint', price: 130 });
    expect(ctx(actor.getSnapshot()).channel, 'the same price twice is no channel').to.equal(null);
    actor.send({ type: 'user.channelPoint', price: 120.5 });
    expect(ctx(actor.getSnapshot()).channel).to.deep.equal({ lower: 120.5, upper: 130 });
    actor.send({ type: 'user.addChannel', op: 'entering_channel', frequency: 'once_per_bar' });
    expect(ctx(actor.getSnapshot()).channel).to.equal(null);
    await waitFor(actor, (s) => s.matches({ alerts: 'ready' }));
    expect(calls.saves[0]).to.deep.equal({
      symbol: 'AAPL',
      condition: { op: 'entering_channel', source: 'price', lower: 120.5, upper: 130 },
      frequency: 'once_per_bar',
    });
    const bands = ctx(actor.getSnapshot()).elements.filter((e) => e.type === 'BAND');
    expect(bands.map((b) => b.type === 'BAND' && b.chartdata)).to.deep.equal([
      {
        lower: 120.5,
        upper: 130,
        axis: 'y',
        label: 'Enter 120.50 – 130.00 ✕',
        brief: 'Enter ✕',
        words: 'Price enters the channel 120.50 – 130.00',
        dash: 'dash',
        clickable: true,
      },
    ]);
    expect(notes[0]).to.equal('Alert Price enters the channel 120.50 – 130.00 on AAPL created');
  });

  it('refuses a channel alert before both bounds are drawn, and cancels a drawing', async () => {
    const { actor, calls, ready } = chart();
    await ready();
    actor.send({ type: 'user.setDrawing', drawing: 'channel' });
    actor.send({ type: 'user.addChannel', op: 'inside_channel', frequency: 'once' });
    expect(ctx(actor.getSnapshot()).alertError).to.equal('Draw the channel first: click its two bounds on the chart');
    actor.send({ type: 'user.channelPoint', price: 110 });
    actor.send({ type: 'user.cancelChannel' });
    expect(ctx(actor.getSnapshot()).elements.some((e) => e.id === 'channel-start')).to.equal(false);
    expect(calls.saves).to.have.length(0);
  });

  it('creates an indicator alert from the builder and refuses one the contract refuses, naming the field', async () => {
    const { actor, calls, ready } = chart();
    await ready();
    actor.send({
      type: 'user.addCondition',
      body: { symbol: 'AAPL', condition: { op: 'less_than', source: 'rsi:14', value: 30 }, frequency: 'every_time' },
    });
    await waitFor(actor, (s) => s.matches({ alerts: 'ready' }));
    expect(calls.saves[0]?.condition).to.deep.equal({ op: 'less_than', source: 'rsi:14', value: 30 });
    const c = ctx(actor.getSnapshot());
    expect(c.alerts.map((a) => a.conditiontext)).to.deep.equal(['RSI(14) is at or below 30']);
    expect(
      c.elements.some((e) => e.id === c.alerts[0]?.id),
      'an RSI level is not on the price axis',
    ).to.equal(false);
    actor.send({
      type: 'user.addCondition',
      body: { symbol: 'AAPL', condition: { op: 'crossing_up', source: 'ema:12', value: { ref: 'ema:12' } } },
    });
    expect(ctx(actor.getSnapshot()).alertError).to.equal(
      'condition.value.ref: must name a series other than the source',
    );
    expect(calls.saves).to.have.length(1);
  });

  it('adds an SMA alert by period and direction', async () => {
    const { actor, calls, ready } = chart();
    await ready();
    actor.send({ type: 'user.addSmaAlert', period: 50, alerttype: 'D' });
    await waitFor(actor, (s) => s.matches({ alerts: 'ready' }));
    expect(calls.saves[0]).to.deep.equal({ symbol: 'AAPL', alerttype: 'D', kind: 'SMA', period: 50 });
    const sma = ctx(actor.getSnapshot()).elements.find((e) => e.type === 'ALERT');
    expect(sma?.charttype).to.equal('sma');
  });

  it('counts each alert request answered, and whether it was saved: a form clears what was typed only then', async () => {
    const { actor, ready } = chart({ saveFails: 'body.note: must be at most 200 characters, got 201' });
    await ready();
    expect(ctx(actor.getSnapshot()).answered).to.deep.equal({ count: 0, saved: false });
    actor.send({ type: 'user.addAlert', price: 0, alerttype: 'U', note: 'kept' });
    expect(ctx(actor.getSnapshot()).answered, 'refused here').to.deep.equal({ count: 1, saved: false });
    actor.send({ type: 'user.addSmaAlert', period: 50, alerttype: 'U', note: 'two\nlines' });
    expect(ctx(actor.getSnapshot()).answered, 'refused here').to.deep.equal({ count: 2, saved: false });
    actor.send({ type: 'user.addAlert', price: 125, alerttype: 'U' });
    await waitFor(actor, (s) => s.matches({ alerts: 'ready' }) && s.context.answered.count === 3);
    expect(ctx(actor.getSnapshot()).answered, 'refused by the server').to.deep.equal({ count: 3, saved: false });
    const saved = chart();
    await saved.ready();
    saved.actor.send({ type: 'user.addAlert', price: 125, alerttype: 'U' });
    await waitFor(saved.actor, (s) => s.matches({ alerts: 'ready' }) && s.context.answered.count === 1);
    expect(ctx(saved.actor.getSnapshot()).answered).to.deep.equal({ count: 1, saved: true });
  });

  it('sends the note typed in each alert form, none when blank, and refuses one the contract refuses', async () => {
    const { actor, calls, ready } = chart();
    await ready();
    actor.send({ type: 'user.addAlert', price: 125, alerttype: 'U', note: 'Breakout: add on the retest' });
    await waitFor(actor, (s) => s.matches({ alerts: 'ready' }));
    actor.send({ type: 'user.addSmaAlert', period: 200, alerttype: 'D', note: '   ' });
    await waitFor(actor, (s) => s.matches({ alerts: 'ready' }) && calls.saves.length === 2);
    actor.send({ type: 'user.setDrawing', drawing: 'channel' });
    actor.send({ type: 'user.channelPoint', price: 110 });
    actor.send({ type: 'user.channelPoint', price: 115 });
    const long = 'x'.repeat(ALERT_NOTE_MAX + 1);
    actor.send({ type: 'user.addChannel', op: 'exiting_channel', frequency: 'once', note: long });
    expect(ctx(actor.getSnapshot()).alertError).to.equal(
      `note: must be at most ${ALERT_NOTE_MAX} characters, got ${ALERT_NOTE_MAX + 1}`,
    );
    expect(ctx(actor.getSnapshot()).channel, 'the channel stays drawn for another try').to.deep.equal({
      lower: 110,
      upper: 115,
    });
    actor.send({ type: 'user.addChannel', op: 'exiting_channel', frequency: 'once', note: 'Range broke' });
    await waitFor(actor, (s) => s.matches({ alerts: 'ready' }) && calls.saves.length === 3);
    expect(calls.saves.map((body) => body.note)).to.deep.equal([
      'Breakout: add on the retest',
      undefined,
      'Range broke',
    ]);
    expect(calls.saves[1]).to.deep.equal({ symbol: 'AAPL', alerttype: 'D', kind: 'SMA', period: 200 });
    actor.send({ type: 'user.addSmaAlert', period: 50, alerttype: 'U', note: 'two\nlines' });
    expect(ctx(actor.getSnapshot()).alertError).to.equal('note: must be one line, without control characters');
    expect(calls.saves).to.have.length(3);
  });

  it('moves an alert with update: true and its id, keeping its direction', async () => {
    const { actor, calls, ready } = chart({ alerts: [alert('a1', 120, { alerttype: 'D', status: 'triggered' })] });
    await ready();
    actor.send({ type: 'user.moveAlert', id: 'a1', price: 118.25 });
    await waitFor(actor, (s) => s.matches({ alerts: 'ready' }));
    expect(calls.saves[0]).to.deep.equal({
      symbol: 'AAPL',
      id: 'a1',
      update: true,
      close: 118.25,
      alerttype: 'D',
      kind: 'PRICE',
    });
    expect(ctx(actor.getSnapshot()).alerts).to.have.length(1);
    expect(ctx(actor.getSnapshot()).alerts[0]).to.include({ threshold: 118.25, status: 'armed' });
  });

  it('moves a condition of the price against one price, keeping its operator, and no other condition', async () => {
    const level = conditionAlert('c1', {
      op: 'crossing_down',
      source: 'price',
      value: 120,
      lower: null,
      upper: null,
      bars: null,
    });
    const channel = conditionAlert('c2', {
      op: 'inside_channel',
      source: 'price',
      value: null,
      lower: 110,
      upper: 120,
      bars: null,
    });
    const { actor, calls, ready } = chart({ alerts: [level, channel] });
    await ready();
    expect(movableLevel(level)).to.equal(120);
    expect(movableLevel(channel)).to.equal(null);
    actor.send({ type: 'user.moveAlert', id: 'c1', price: 117.5 });
    await waitFor(actor, (s) => s.matches({ alerts: 'ready' }) && calls.saves.length === 1);
    expect(calls.saves[0]).to.deep.equal({
      symbol: 'AAPL',
      id: 'c1',
      update: true,
      condition: { op: 'crossing_down', source: 'price', value: 117.5 },
    });
    const before = ctx(actor.getSnapshot()).revision;
    actor.send({ type: 'user.moveAlert', id: 'c2', price: 115 });
    expect(ctx(actor.getSnapshot()).alertError).to.equal('Only an alert at one price level can be moved');
    expect(ctx(actor.getSnapshot()).revision, 'the dragged line goes back').to.equal(before + 1);
    expect(calls.saves).to.have.length(1);
  });

  it('puts a dragged line back and says why when the move fails', async () => {
    const { actor, ready } = chart({ alerts: [alert('a1', 120)], saveFails: 'body.close: must be at most 1000000' });
    await ready();
    const before = ctx(actor.getSnapshot()).revision;
    actor.send({ type: 'user.moveAlert', id: 'a1', price: 125 });
    await waitFor(actor, (s) => s.matches({ alerts: 'ready' }) && s.context.alertError !== null);
    const c = ctx(actor.getSnapshot());
    expect(c.alertError).to.equal('The alert could not be saved: body.close: must be at most 1000000');
    expect(c.revision).to.equal(before + 1);
    expect(c.alerts[0]?.threshold).to.equal(120);
  });

  it('deletes an alert once confirmed and removes it locally; none left leaves an empty list', async () => {
    const { actor, calls, notes, ready } = chart({ alerts: [alert('a1', 120)] });
    await ready();
    actor.send({ type: 'user.deleteAlert', id: 'unknown' });
    expect(ctx(actor.getSnapshot()).toDelete).to.equal(null);
    // Asked (its tag on the chart clicked), then kept: nothing is sent.
    actor.send({ type: 'user.deleteAlert', id: 'a1' });
    expect(ctx(actor.getSnapshot()).toDelete).to.equal('a1');
    expect(actor.getSnapshot().matches({ alerts: 'ready' })).to.equal(true);
    actor.send({ type: 'user.cancelDelete' });
    expect(ctx(actor.getSnapshot()).toDelete).to.equal(null);
    actor.send({ type: 'user.confirmDelete' });
    expect(actor.getSnapshot().matches({ alerts: 'ready' }), 'nothing to confirm').to.equal(true);
    expect(calls.deletes).to.deep.equal([]);
    // Asked again and confirmed.
    actor.send({ type: 'user.deleteAlert', id: 'a1' });
    actor.send({ type: 'user.confirmDelete' });
    expect(actor.getSnapshot().matches({ alerts: 'deleting' })).to.equal(true);
    await waitFor(actor, (s) => s.matches({ alerts: 'ready' }));
    expect(calls.deletes).to.deep.equal(['a1']);
    expect(ctx(actor.getSnapshot()).alerts).to.deep.equal([]);
    expect(ctx(actor.getSnapshot()).elements.some((e) => e.type === 'ALERT')).to.equal(false);
    expect(notes).to.include('Alert deleted');
    expect(ctx(actor.getSnapshot()).toDelete).to.equal(null);
  });

  it('pauses an armed alert and resumes a paused one from its list, and leaves a triggered one', async () => {
    const { actor, calls, notes, ready } = chart({
      alerts: [alert('a1', 120), alert('a2', 130, { status: 'triggered' })],
    });
    await ready();
    actor.send({ type: 'user.toggleAlert', id: 'a2' });
    actor.send({ type: 'user.toggleAlert', id: 'unknown' });
    expect(actor.getSnapshot().matches({ alerts: 'ready' })).to.equal(true);
    actor.send({ type: 'user.toggleAlert', id: 'a1' });
    expect(actor.getSnapshot().matches({ alerts: 'toggling' })).to.equal(true);
    await waitFor(actor, (s) => s.matches({ alerts: 'ready' }));
    expect(ctx(actor.getSnapshot()).alerts.map((a) => a.status)).to.deep.equal(['paused', 'triggered']);
    actor.send({ type: 'user.toggleAlert', id: 'a1' });
    await waitFor(actor, (s) => s.matches({ alerts: 'ready' }) && ctx(s).alerts[0]?.status === 'armed');
    expect(calls.toggles).to.deep.equal(['pause a1', 'resume a1']);
    expect(notes.filter((n) => n.startsWith('Alert paused') || n.startsWith('Alert resumed'))).to.have.length(2);
  });

  it('reads the alerts again when the server says they changed, also after a save that crossed the change', async () => {
    const { actor, calls, ready, release } = chart({ holdSaves: true });
    await ready();
    expect(calls.alerts).to.equal(1);
    actor.send({ type: 'server.alertsChanged' });
    await waitFor(actor, (s) => s.matches({ alerts: 'ready' }));
    expect(calls.alerts).to.equal(2);
    actor.send({ type: 'user.addAlert', price: 130, alerttype: 'U' });
    actor.send({ type: 'server.alertsChanged' });
    expect(ctx(actor.getSnapshot()).alertsStale).to.equal(true);
    // Told again while already to be read again: nothing changes (no new context to draw).
    const marked = ctx(actor.getSnapshot());
    actor.send({ type: 'server.alertsChanged' });
    expect(ctx(actor.getSnapshot())).to.equal(marked);
    await waitFor(actor, () => calls.saves.length === 1);
    release();
    await waitFor(actor, (s) => s.matches({ alerts: 'ready' }) && calls.alerts === 3);
    expect(ctx(actor.getSnapshot()).alerts.map((a) => a.threshold)).to.deep.equal([130]);
    expect(ctx(actor.getSnapshot()).alertsStale).to.equal(false);
  });

  it('compares symbols as normalised lines in the colour sequence, hides them and resets', async () => {
    const { actor, calls, ready } = chart();
    await ready();
    actor.send({ type: 'user.addCompare', symbol: ' msft ', mode: 'normalized' });
    await waitFor(actor, (s) => s.matches({ compare: 'idle' }) && s.context.compares.length === 1);
    actor.send({ type: 'user.addCompare', symbol: 'IBM', mode: 'axis' });
    await waitFor(actor, (s) => s.context.compares.length === 2);
    let c = ctx(actor.getSnapshot());
    expect(calls.compares).to.deep.equal(['MSFT', 'IBM']);
    const added = c.elements.filter((e) => e.type === 'LINE' || e.type === 'AXIS');
    expect(added.map((e) => [e.symbol, e.type, e.color, e.normalize])).to.deep.equal([
      ['MSFT', 'LINE', 'red', true],
      ['IBM', 'AXIS', 'black', false],
    ]);
    const line = added[0];
    expect(line?.type === 'LINE' && line.chartdata.y[0], 'rebased on the first close').to.equal(BARS[0]?.close);
    actor.send({ type: 'user.hideElement', id: 'compare-MSFT' });
    expect(ctx(actor.getSnapshot()).removed).to.deep.equal(['compare-MSFT']);
    actor.send({ type: 'user.hideAdded' });
    expect(ctx(actor.getSnapshot()).removed).to.deep.equal(['compare-MSFT', 'compare-IBM']);
    actor.send({ type: 'user.reset' });
    expect(ctx(actor.getSnapshot()).removed).to.deep.equal([]);
    actor.send({ type: 'user.setDuration', duration: '1Y' });
    await ready();
    expect(calls.chart.at(-1)?.compares, 'a new duration loads the compared symbols too').to.deep.equal([
      'MSFT',
      'IBM',
    ]);
    c = ctx(actor.getSnapshot());
    expect(c.elements.filter((e) => e.type === 'LINE' || e.type === 'AXIS')).to.have.length(2);
  });

  it('refuses to compare the symbol itself, a symbol twice, or one the server does not know', async () => {
    const { actor, calls, ready } = chart();
    await ready();
    actor.send({ type: 'user.addCompare', symbol: 'AAPL', mode: 'normalized' });
    expect(ctx(actor.getSnapshot()).compareError).to.equal("Compare: AAPL is the chart's own symbol");
    actor.send({ type: 'user.addCompare', symbol: 'NOPE', mode: 'normalized' });
    await waitFor(actor, (s) => s.matches({ compare: 'idle' }) && s.context.compareError !== null);
    expect(ctx(actor.getSnapshot()).compareError).to.equal('Compare: there is no symbol NOPE');
    expect(calls.compares).to.deep.equal(['NOPE']);
    expect(compareProblem(initialContext('AAPL'), '')).to.equal('Compare: type a symbol');
    expect(compareProblem(initialContext('AAPL'), 'bad symbol!')).to.match(/1 to 10 characters/);
  });

  it('saves a snapshot and says so', async () => {
    const { actor, notes, ready } = chart();
    await ready();
    actor.send({ type: 'user.saveSnapshot', graph: {} as HTMLElement, title: 'AAPL 3M' });
    expect(actor.getSnapshot().matches({ snapshot: 'saving' })).to.equal(true);
    await waitFor(actor, (s) => s.matches({ snapshot: 'idle' }));
    expect(notes).to.include('Snapshot "AAPL 3M" saved to the Art gallery');
  });

  it('opens another symbol through the navigate action', async () => {
    const { actor, paths, ready } = chart();
    await ready();
    actor.send({ type: 'user.openSymbol', symbol: 'msft' });
    actor.send({ type: 'user.openSymbol', symbol: 'not a symbol' });
    expect(paths).to.deep.equal(['/PriceCharts?stock=MSFT']);
  });

  it('builds the request of each alert action', () => {
    const context = { ...initialContext('AAPL'), alerts: [alert('a1', 100, { alerttype: 'D' })] };
    expect(alertRequest(context, { type: 'user.moveAlert', id: 'zz', price: 1 })).to.equal(null);
    expect(alertRequest(context, { type: 'user.reset' })).to.equal(null);
    expect(alertRequest(context, { type: 'user.moveAlert', id: 'a1', price: 90 })).to.deep.include({
      alerttype: 'D',
      update: true,
    });
    const drawn = { ...context, channel: { lower: 95, upper: 105 } };
    const channelOf = (source?: AlertSource) =>
      alertRequest(drawn, {
        type: 'user.addChannel',
        op: 'inside_channel',
        frequency: 'once',
        ...(source ? { source } : {}),
      });
    expect(channelOf()).to.deep.include({
      condition: { op: 'inside_channel', source: 'price', lower: 95, upper: 105 },
    });
    expect(channelOf('sma:50'), 'a drawn channel of a moving average').to.deep.include({
      condition: { op: 'inside_channel', source: 'sma:50', lower: 95, upper: 105 },
    });
  });
});
