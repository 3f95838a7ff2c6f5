import { expect } from 'chai';
import type { DailyBar } from '../../domain/market/types.ts';
import { ManualClock } from './clock.ts';
import { newYorkTime, regularSession, type MarketClockMode } from './marketClock.ts';
import {
  TickSimulator,
  activityProfile,
  simulatedSymbols,
  volatilityProfile,
  type SimulatedSymbol,
} from './simulator.ts';
import type { ClosedDay, Tick } from './tick.ts';
import { tickSourceContract } from './tickSource.contract.ts';

const SYMBOLS: SimulatedSymbol[] = [
  { symbol: 'AAPL', lastClose: 250.42, dailyVolatility: 0.015, averageVolume: 50_000_000, ticksPerSecond: 2 },
  { symbol: 'KO', lastClose: 62.26, dailyVolatility: 0.01, averageVolume: 12_000_000, ticksPerSecond: 1 },
  { symbol: 'BF-B', lastClose: 37.1, dailyVolatility: 0.02, averageVolume: 2_000_000, ticksPerSecond: 0.5 },
];

/** Saturday 2026-11-21 03:00 UTC: the US market is shut, the demo market is not. */
const NIGHT = Date.parse('2026-11-21T03:00:00Z');

function run(options: {
  market: MarketClockMode;
  start: number;
  forMs: number;
  seed?: number;
  stepMs?: number;
  symbols?: SimulatedSymbol[];
  after?: string;
}): { ticks: Tick[]; days: ClosedDay[]; batches: number } {
  const clock = new ManualClock(options.start);
  const sim = new TickSimulator({
    symbols: options.symbols ?? SYMBOLS,
    seed: options.seed ?? 7,
    after: options.after ?? '2024-12-31',
    clock,
    market: options.market,
    stepMs: options.stepMs ?? 100,
  });
  const ticks: Tick[] = [];
  const days: ClosedDay[] = [];
  let batches = 0;
  sim.start({
    onTicks: (batch) => {
      batches += 1;
      ticks.push(...batch);
    },
    onDayClosed: (day) => days.push(day),
  });
  clock.advance(options.forMs);
  void sim.stop();
  return { ticks, days, batches };
}

tickSourceContract('simulator, accelerated', () => {
  const clock = new ManualClock(NIGHT);
  return {
    source: new TickSimulator({
      symbols: SYMBOLS,
      seed: 42,
      after: '2024-12-31',
      clock,
      market: { mode: 'accelerated', sessionMinutes: 1 },
    }),
    run: () => Promise.resolve(clock.advance(150_000)),
  };
});

tickSourceContract('simulator, regular session', () => {
  // Friday 2025-01-03 15:00 New York, an hour before the close, to Monday 10:00.
  const clock = new ManualClock(Date.parse('2025-01-03T20:00:00Z'));
  return {
    source: new TickSimulator({
      symbols: SYMBOLS,
      seed: 42,
      after: '2025-01-02',
      clock,
      market: { mode: 'regular' },
      stepMs: 1000,
    }),
    run: () => Promise.resolve(clock.advanceTo(Date.parse('2025-01-06T15:00:00Z'))),
  };
});

describe('tick simulator', function () {
  it('trades only in the regular session on trading days, and closes the day at 16:00 New York', function () {
    const { ticks, days } = run({
      market: { mode: 'regular' },
      start: Date.parse('2025-01-03T20:00:00Z'),
      forMs: Date.parse('2025-01-06T15:00:00Z') - Date.parse('2025-01-03T20:00:00Z'),
      after: '2025-01-02',
      stepMs: 1000,
    });
    expect(ticks.length).to.be.greaterThan(1000);
    for (const tick of ticks) {
      const t = newYorkTime(tick.ts);
      expect(['2025-01-03', '2025-01-06'], t.date).to.include(t.date);
      const minutes = t.hour * 60 + t.minute;
      expect(minutes, `${t.date} ${t.hour}:${t.minute}`).to.be.within(9 * 60 + 30, 16 * 60 - 1);
    }
    expect(days.map((d) => d.date)).to.deep.equal(['2025-01-03']);
    const friday = ticks.filter((t) => t.ts < regularSession('2025-01-03').end);
    expect(days[0]!.bars.find((b) => b.symbol === 'AAPL')!.close).to.equal(
      friday.filter((t) => t.symbol === 'AAPL').at(-1)!.price,
    );
  });

  it('waits for the open when started at night in the regular mode', function () {
    const { ticks } = run({ market: { mode: 'regular' }, start: NIGHT, forMs: 3_600_000 });
    expect(ticks).to.have.length(0);
  });

  it('keeps the demo market moving at any hour, one trading day per session', function () {
    const { ticks, days } = run({
      market: { mode: 'accelerated', sessionMinutes: 1 },
      start: NIGHT,
      forMs: 3 * 60_000 + 1,
    });
    expect(days.map((d) => d.date)).to.deep.equal(['2025-01-02', '2025-01-03', '2025-01-06']);
    expect(ticks[0]!.ts).to.be.at.least(NIGHT);
    for (const day of days) expect(day.bars.map((b) => b.symbol)).to.deep.equal(['AAPL', 'BF-B', 'KO']);
  });

  it('moves in whole cents from the last close', function () {
    const { ticks } = run({ market: { mode: 'accelerated', sessionMinutes: 1 }, start: NIGHT, forMs: 60_000 });
    for (const tick of ticks) expect(Math.abs(tick.price * 100 - Math.round(tick.price * 100))).to.be.below(1e-9);
    const firstAapl = ticks.find((t) => t.symbol === 'AAPL')!;
    expect(firstAapl.price).to.be.within(250.42 * 0.95, 250.42 * 1.05);
  });

  it('gives the same ticks whatever the batching step, and other ticks with another seed', function () {
    const options = { market: { mode: 'accelerated', sessionMinutes: 1 } as const, start: NIGHT, forMs: 130_000 };
    // 130,000 ms is a whole number of both steps, so both runs stop at the same instant.
    const a = run({ ...options, stepMs: 50 });
    const b = run({ ...options, stepMs: 650 });
    expect(b.batches).to.be.below(a.batches);
    expect(b.ticks).to.deep.equal(a.ticks);
    expect(b.days).to.deep.equal(a.days);
    expect(run({ ...options, seed: 8 }).ticks).to.not.deep.equal(a.ticks);
  });

  it('trades each symbol at its own rate', function () {
    const { ticks } = run({ market: { mode: 'accelerated', sessionMinutes: 5 }, start: NIGHT, forMs: 20 * 60_000 });
    const count = (symbol: string): number => ticks.filter((t) => t.symbol === symbol).length;
    // 2, 1 and 0.5 trades per second over 1,200 s.
    expect(count('AAPL')).to.be.within(2400 * 0.9, 2400 * 1.1);
    expect(count('KO')).to.be.within(1200 * 0.9, 1200 * 1.1);
    expect(count('BF-B')).to.be.within(600 * 0.85, 600 * 1.15);
  });

  it('is busier and more volatile at the open and the close than at midday (U-shaped)', function () {
    const symbols: SimulatedSymbol[] = [
      { symbol: 'XYZ', lastClose: 100, dailyVolatility: 0.02, averageVolume: 1_000_000, ticksPerSecond: 5 },
    ];
    const session = 60_000;
    const { ticks } = run({
      market: { mode: 'accelerated', sessionMinutes: 1 },
      start: NIGHT,
      forMs: 40 * session,
      symbols,
    });
    const counts = [0, 0, 0];
    const moves = [0, 0, 0];
    const volume = [0, 0, 0];
    for (let i = 1; i < ticks.length; i++) {
      const f = ((ticks[i]!.ts - NIGHT) % session) / session;
      const part = f < 0.15 || f >= 0.85 ? 0 : f >= 0.4 && f < 0.6 ? 1 : 2;
      counts[part]! += 1;
      volume[part]! += ticks[i]!.size;
      moves[part]! += Math.log(ticks[i]!.price / ticks[i - 1]!.price) ** 2;
    }
    // Both ends together span 0.3 of the session, the middle 0.2: compare per unit of session time.
    expect(counts[0]! / 0.3).to.be.above((counts[1]! / 0.2) * 2);
    expect(volume[0]! / 0.3).to.be.above((volume[1]! / 0.2) * 2);
    // Realised variance per unit of session time.
    expect(moves[0]! / 0.3).to.be.above((moves[1]! / 0.2) * 1.5);
    expect(activityProfile(0)).to.equal(2);
    expect(activityProfile(0.5)).to.equal(0.5);
    expect(volatilityProfile(0)).to.be.above(volatilityProfile(0.5) * 2.9);
  });

  it('has close-to-close moves of about its daily volatility', function () {
    const symbols: SimulatedSymbol[] = [
      { symbol: 'XYZ', lastClose: 100, dailyVolatility: 0.02, averageVolume: 1_000_000, ticksPerSecond: 0.5 },
    ];
    const { days } = run({
      market: { mode: 'accelerated', sessionMinutes: 1 },
      start: NIGHT,
      forMs: 300 * 60_000,
      symbols,
    });
    const closes = days.map((d) => d.bars[0]!.close);
    const returns = closes.slice(1).map((c, i) => Math.log(c / closes[i]!));
    const sd = Math.sqrt(returns.reduce((s, r) => s + r * r, 0) / returns.length);
    expect(sd).to.be.within(0.016, 0.024);
  });

  it('gives a flat bar with no volume to a symbol that did not trade', function () {
    const symbols: SimulatedSymbol[] = [
      ...SYMBOLS,
      { symbol: 'IDLE', lastClose: 10.5, dailyVolatility: 0.02, averageVolume: 0, ticksPerSecond: 0 },
    ];
    const { days } = run({ market: { mode: 'accelerated', sessionMinutes: 1 }, start: NIGHT, forMs: 60_000, symbols });
    expect(days[0]!.bars.find((b) => b.symbol === 'IDLE')).to.deep.equal({
      symbol: 'IDLE',
      date: '2025-01-02',
      open: 10.5,
      high: 10.5,
      low: 10.5,
      close: 10.5,
      volume: 0,
    });
  });

  it('refuses a symbol listed twice or without a price', function () {
    const clock = new ManualClock(NIGHT);
    expect(
      () => new TickSimulator({ symbols: [SYMBOLS[0]!, SYMBOLS[0]!], seed: 1, after: '2024-12-31', clock }),
    ).to.throw(/AAPL is listed twice/);
    expect(
      () => new TickSimulator({ symbols: [{ ...SYMBOLS[0]!, lastClose: 0 }], seed: 1, after: '2024-12-31', clock }),
    ).to.throw(/lastClose/);
  });

  it('derives each symbol from its daily bars: last close, volatility, volume, and a rate by dollar volume', function () {
    const bars = (close: number, volume: number, wiggle: number): DailyBar[] =>
      Array.from({ length: 80 }, (_, i) => {
        const c = close * (1 + (i % 2 ? wiggle : -wiggle));
        return { date: `2024-09-${String((i % 28) + 1).padStart(2, '0')}`, open: c, high: c, low: c, close: c, volume };
      }).map((bar, i, all) => (i === all.length - 1 ? { ...bar, date: '2024-12-31', close } : bar));
    const { symbols, after } = simulatedSymbols(
      new Map([
        ['BIG', bars(100, 4_000_000, 0.01)],
        ['MID', bars(50, 2_000_000, 0.01)],
        ['SML', bars(10, 100_000, 0.02)],
      ]),
      { ticksPerSecond: 2 },
    );
    expect(after).to.equal('2024-12-31');
    const by = new Map(symbols.map((s) => [s.symbol, s]));
    expect(by.get('BIG')!.lastClose).to.equal(100);
    expect(by.get('MID')!.ticksPerSecond).to.equal(2);
    expect(by.get('BIG')!.ticksPerSecond).to.be.closeTo(2 * Math.sqrt(4), 1e-9);
    expect(by.get('SML')!.ticksPerSecond).to.equal(0.5);
    expect(by.get('SML')!.dailyVolatility).to.be.above(by.get('BIG')!.dailyVolatility);
    expect(by.get('MID')!.averageVolume).to.equal(2_000_000);
  });
});
