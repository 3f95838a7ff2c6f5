import { join } from 'node:path';
import { expect } from 'chai';
import type { DailyBar } from '../../domain/market/types.ts';
import { createInProcessTickBus } from '../../platform/bus/inProcess.ts';
import { ManualClock } from './clock.ts';
import {
  DayCloser,
  fileDayCloseClaims,
  memoryDayCloseClaims,
  rollByCalendar,
  type DayCloseClaims,
} from './dayCloser.ts';
import { acceleratedMarketClock, newYorkInstant, regularMarketClock } from './marketClock.ts';
import { isEarlyClose } from './nyseCalendar.ts';
import { EnginePath } from './providerTesting.ts';
import { parseTickCsv, TickReplay } from './replay.ts';
import { TickSimulator } from './simulator.ts';
import type { ClosedDay, Tick } from './tick.ts';
import type { TickSource } from './port.ts';
import { tickSourceContract } from './tickSource.contract.ts';

const SYMBOLS = [
  { symbol: 'AAPL', lastClose: 250.42, dailyVolatility: 0.015, averageVolume: 50_000_000, ticksPerSecond: 2 },
  { symbol: 'KO', lastClose: 62.26, dailyVolatility: 0.01, averageVolume: 12_000_000, ticksPerSecond: 1 },
];

tickSourceContract('simulator closed by the calendar, regular session', () => {
  const clock = new ManualClock(Date.parse('2025-01-03T20:00:00Z'));
  const sessions = regularMarketClock('2025-01-02');
  const simulator = new TickSimulator({ symbols: SYMBOLS, seed: 42, after: '2025-01-02', clock, stepMs: 1000 });
  const { source, closer } = rollByCalendar(createInProcessTickBus(), simulator, {
    sessions,
    clock,
    claims: memoryDayCloseClaims(),
    lastPrices: SYMBOLS.map((s) => [s.symbol, s.lastClose] as const),
  });
  return {
    source,
    run: async () => {
      clock.advanceTo(Date.parse('2025-01-06T15:00:00Z'));
      await closer.settled();
    },
  };
});

tickSourceContract('simulator closed by the calendar, accelerated', () => {
  const start = Date.parse('2026-11-21T03:00:00Z');
  const clock = new ManualClock(start);
  const sessions = acceleratedMarketClock(start, '2024-12-31', 1);
  const simulator = new TickSimulator({
    symbols: SYMBOLS,
    seed: 42,
    after: '2024-12-31',
    clock,
    sessions,
  });
  const { source, closer } = rollByCalendar(createInProcessTickBus(), simulator, {
    sessions,
    clock,
    graceMs: 0,
    claims: memoryDayCloseClaims(),
    lastPrices: SYMBOLS.map((s) => [s.symbol, s.lastClose] as const),
  });
  return {
    source,
    run: async () => {
      clock.advance(150_000);
      await closer.settled();
    },
  };
});

const CSV = [
  'ts,symbol,price,size',
  '2025-01-02T14:30:00.000Z,AAPL,250.00,100',
  '2025-01-02T15:00:00Z,AAPL,251.25,200',
  '2025-01-02T20:59:59-05:00,MSFT,421.00,10',
  '2025-01-03T15:59:00.000-05:00,MSFT,419.99,70',
  '2025-01-03T15:59:30.000-05:00,AAPL,252.10,80',
].join('\n');

tickSourceContract('replay closed by the calendar', () => {
  const replay = new TickReplay(parseTickCsv(CSV), { batchSize: 2 });
  const { source, closer } = rollByCalendar(createInProcessTickBus(), replay, {
    sessions: regularMarketClock(),
    time: 'ticks',
    claims: memoryDayCloseClaims(),
    lastPrices: [],
  });
  return {
    source,
    run: async () => {
      await replay.done;
      closer.finish();
      await closer.settled();
    },
  };
});

describe('day closes played rather than kept', function () {
  /** The day closes a closer delivers as its source plays. */
  async function closesOf(source: TickSource, run: () => Promise<void>): Promise<ClosedDay[]> {
    const days: ClosedDay[] = [];
    source.start({ onTicks: () => undefined, onDayClosed: (day) => days.push(day) });
    await run();
    await source.stop();
    return days;
  }

  it('marks a demo session `demo` and a replayed day `replay`', async function () {
    const start = Date.parse('2026-11-21T03:00:00Z');
    const clock = new ManualClock(start);
    const sessions = acceleratedMarketClock(start, '2024-12-31', 1);
    const simulator = new TickSimulator({ symbols: SYMBOLS, seed: 42, after: '2024-12-31', clock, sessions });
    const demo = rollByCalendar(createInProcessTickBus(), simulator, {
      sessions,
      clock,
      graceMs: 0,
      claims: memoryDayCloseClaims(),
      lastPrices: SYMBOLS.map((s) => [s.symbol, s.lastClose] as const),
    });
    const demoDays = await closesOf(demo.source, async () => {
      clock.advance(150_000);
      await demo.closer.settled();
    });
    expect(demoDays.length).to.be.at.least(2);
    expect(demoDays.map((d) => d.played)).to.deep.equal(demoDays.map(() => 'demo'));
    const replay = new TickReplay(parseTickCsv(CSV), { batchSize: 2 });
    const played = rollByCalendar(createInProcessTickBus(), replay, {
      sessions: regularMarketClock(),
      time: 'ticks',
      claims: memoryDayCloseClaims(),
      lastPrices: [],
    });
    const replayed = await closesOf(played.source, async () => {
      await replay.done;
      played.closer.finish();
      await played.closer.settled();
    });
    expect(replayed.map((d) => `${d.date} ${d.played}`)).to.deep.equal(['2025-01-02 replay', '2025-01-03 replay']);
  });
});

describe('NYSE session hours', function () {
  it('closes early on the day after Thanksgiving, Christmas Eve and July 3, not on other days', function () {
    expect(['2026-11-27', '2026-12-24', '2025-07-03', '2024-12-24', '2025-11-28'].map(isEarlyClose)).to.deep.equal([
      true,
      true,
      true,
      true,
      true,
    ]);
    // A holiday, a weekend, a plain day, a July 3 on a Friday (a holiday), a Dec 24 on a Friday (a holiday).
    expect(['2026-11-26', '2026-11-28', '2026-11-25', '2026-07-03', '2021-12-24'].map(isEarlyClose)).to.deep.equal([
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('answers the 13:00 New York end for an early-close session', function () {
    const clock = regularMarketClock('2026-11-25');
    const session = clock.sessionAt(Date.parse('2026-11-26T15:00:00Z'));
    expect(session.date).to.equal('2026-11-27');
    expect(session.end).to.equal(Date.parse('2026-11-27T18:00:00Z'));
  });
});

/** 60 finished days: MSFT flat at 100.00 (every SMA level is 100.00), AAPL flat at 189.00. */
function seeds(): { symbol: string; bars: DailyBar[] }[] {
  const bars = (close: number): DailyBar[] =>
    Array.from({ length: 60 }, (_, i) => ({
      date: new Date(Date.UTC(2026, 7, 1) + i * 86_400_000).toISOString().slice(0, 10),
      open: close,
      high: close,
      low: close,
      close,
      volume: 1000,
    }));
  return [
    { symbol: 'AAPL', bars: bars(189) },
    { symbol: 'MSFT', bars: bars(100) },
  ];
}

describe('feed-mode day close by the calendar', function () {
  let engine: EnginePath;
  let clock: ManualClock;
  let closes: ClosedDay[];
  let stopRoll: () => Promise<void>;
  let closer: DayCloser;

  /** Starts the closer the way the composition root does in feed mode: it reads the bus, publishes closes. */
  function startRoll(claims: DayCloseClaims, after = '2026-11-20'): void {
    const rolled = rollByCalendar(engine.bus, null, {
      sessions: regularMarketClock(after),
      clock,
      claims,
      lastPrices: [
        ['AAPL', 189],
        ['MSFT', 100],
      ],
    });
    closer = rolled.closer;
    rolled.source.start({ onTicks: () => undefined, onDayClosed: (day) => void engine.bus.publishDayClosed(day) });
    stopRoll = () => rolled.source.stop();
  }

  /** Publishes ticks as the feed route does, at New York times of a date, and waits for their triggers. */
  async function feed(date: string, ...trades: [string, number, number, number][]): Promise<void> {
    const ticks: Tick[] = trades.map(([symbol, price, hour, minute]) => ({
      symbol,
      price,
      size: 100,
      ts: newYorkInstant(date, hour, minute),
    }));
    await engine.bus.publish(ticks);
    await engine.alerts.flush();
  }

  async function advanceTo(date: string, hour: number, minute: number): Promise<void> {
    clock.advanceTo(newYorkInstant(date, hour, minute));
    await closer.settled();
  }

  beforeEach(async function () {
    engine = await EnginePath.start(seeds());
    closes = [];
    await engine.bus.subscribe({ onTicks: () => undefined, onDayClosed: (day) => closes.push(day) }).ready;
    // Tuesday 2026-11-24, 10:00 New York.
    clock = new ManualClock(newYorkInstant('2026-11-24', 10, 0));
  });

  afterEach(async function () {
    await stopRoll();
    await engine.close();
  });

  it('closes at 16:00 New York, moves the previous close and the SMA, and fires an SMA alert on the new average', async function () {
    startRoll(memoryDayCloseClaims());
    const alertId = await engine.createAlert('u1', { symbol: 'MSFT', kind: 'SMA', alerttype: 'U', period: 20 });
    await feed('2026-11-24', ['MSFT', 97, 11, 0], ['MSFT', 95, 15, 30]);
    await advanceTo('2026-11-24', 15, 59);
    expect(closes, 'not before 16:00').to.deep.equal([]);
    await advanceTo('2026-11-24', 16, 1);
    expect(closes.map((d) => d.date)).to.deep.equal(['2026-11-24']);
    expect(closes[0]!.played, "a day of the calendar's, kept").to.equal(undefined);
    expect(closes[0]!.bars).to.deep.equal([
      { symbol: 'AAPL', date: '2026-11-24', open: 189, high: 189, low: 189, close: 189, volume: 0 },
      { symbol: 'MSFT', date: '2026-11-24', open: 97, high: 97, low: 95, close: 95, volume: 200 },
    ]);
    // The new 20-day level is (18 × 100 + 95) / 19 = 99.74: 99.73 stays below it, 99.74 crosses it.
    await feed('2026-11-25', ['MSFT', 99.73, 9, 31]);
    expect(engine.quotes.quote('MSFT')).to.deep.include({ prevClose: 95, change: 4.73 });
    expect(await engine.triggered('u1')).to.deep.equal([]);
    await feed('2026-11-25', ['MSFT', 99.74, 9, 32]);
    const fired = await engine.triggered('u1');
    expect(fired).to.have.length(1);
    expect(fired[0]).to.deep.include({ alertId, kind: 'SMA', price: 99.74 });
    expect(fired[0]!.sma).to.be.closeTo((18 * 100 + 95) / 19, 0.001);
  });

  it('closes at 13:00 on an early close, skips the holiday before it, and closes a symbol without a tick at its last price', async function () {
    startRoll(memoryDayCloseClaims());
    await feed('2026-11-24', ['AAPL', 190, 10, 30]);
    await advanceTo('2026-11-25', 12, 0);
    expect(closes.map((d) => d.date)).to.deep.equal(['2026-11-24']);
    await feed('2026-11-25', ['MSFT', 101, 10, 0]);
    await advanceTo('2026-11-27', 12, 59);
    // Thanksgiving (Thursday 2026-11-26) is a holiday: no close.
    expect(closes.map((d) => d.date)).to.deep.equal(['2026-11-24', '2026-11-25']);
    await advanceTo('2026-11-27', 13, 1);
    expect(closes.map((d) => d.date)).to.deep.equal(['2026-11-24', '2026-11-25', '2026-11-27']);
    // Nobody traded on the 27th: each symbol's bar is its last price.
    expect(closes[2]!.bars.map((b) => [b.symbol, b.close, b.volume])).to.deep.equal([
      ['AAPL', 190, 0],
      ['MSFT', 101, 0],
    ]);
    await advanceTo('2026-12-24', 13, 1);
    expect(closes.at(-1)!.date).to.equal('2026-12-24');
    expect(closes.map((d) => d.date)).to.not.include('2026-12-25');
  });

  it('closes as soon as a tick past the close arrives, but not on a tick stamped in the future', async function () {
    startRoll(memoryDayCloseClaims());
    await feed('2026-11-25', ['MSFT', 98, 10, 0]);
    await closer.settled();
    expect(closes, 'a tick stamped tomorrow').to.deep.equal([]);
    await feed('2026-11-24', ['MSFT', 99, 15, 0]);
    clock.advanceTo(newYorkInstant('2026-11-24', 16, 0) + 200);
    await feed('2026-11-24', ['MSFT', 99.5, 16, 0]);
    await closer.settled();
    expect(closes.map((d) => d.date)).to.deep.equal(['2026-11-24']);
    expect(closes[0]!.bars.find((b) => b.symbol === 'MSFT')).to.deep.include({ close: 99, volume: 100 });
    await advanceTo('2026-11-24', 16, 5);
    expect(closes, 'once').to.have.length(1);
  });

  it('gives back the claim of a close it was stopped before delivering, so the next start can close that date', async function () {
    const claims = memoryDayCloseClaims();
    startRoll(claims);
    await feed('2026-11-24', ['MSFT', 99, 11, 0]);
    // 16:00 passes and the stop comes while the date is being claimed.
    clock.advanceTo(newYorkInstant('2026-11-24', 16, 1));
    await stopRoll();
    expect(closes).to.deep.equal([]);
    expect(closer.stats()).to.deep.include({ closed: 0, lastDate: '2026-11-24' });
    expect(await claims.claim('2026-11-24'), 'the claim given back').to.equal(true);
  });

  it('closes each date once across two engines sharing the claims, and not again after a restart', async function () {
    const claimsDir = join(engine.dir, 'day-closes');
    startRoll(fileDayCloseClaims(claimsDir));
    const first = { stop: stopRoll, closer };
    startRoll(fileDayCloseClaims(claimsDir));
    await feed('2026-11-24', ['MSFT', 99, 11, 0]);
    await advanceTo('2026-11-24', 16, 1);
    await first.closer.settled();
    expect(closes.map((d) => d.date)).to.deep.equal(['2026-11-24']);
    expect([
      first.closer.stats().closed + closer.stats().closed,
      first.closer.stats().skipped + closer.stats().skipped,
    ]).to.deep.equal([1, 1]);
    await first.stop();
    await stopRoll();
    // A restart the same evening, with the same claims: the date is already closed.
    clock = new ManualClock(newYorkInstant('2026-11-24', 15, 0));
    startRoll(fileDayCloseClaims(claimsDir));
    await advanceTo('2026-11-24', 16, 1);
    expect(closes.map((d) => d.date)).to.deep.equal(['2026-11-24']);
    expect(closer.stats()).to.deep.include({ closed: 0, skipped: 1, lastDate: '2026-11-24' });
  });
});
