import { expect } from 'chai';
import fc from 'fast-check';
import { toCents } from '../../domain/alerts/alerts.ts';
import {
  ALERT_FREQUENCIES,
  ALERT_OPS,
  CHANNEL_OPS,
  MOVING_OPS,
  conditionKey,
  type AlertCondition,
  type AlertFrequency,
  type AlertOp,
  type AlertOperand,
  type AlertSource,
} from '../../domain/alerts/conditions.ts';
import type { SymbolHistory } from '../quotes/liveQuotes.ts';
import { alertKey } from '../../domain/alerts/alerts.ts';
import { AlertIndex, isLadderCondition, newArmedAlert, type ArmedAlert } from './alertIndex.ts';
import { NaiveAlertScan } from './naiveScan.ts';

/** A condition with the fields its operator does not use left null. */
function cond(op: AlertOp, fields: Partial<AlertCondition> = {}): AlertCondition {
  return { op, source: 'price', value: null, lower: null, upper: null, bars: null, ...fields };
}

function alert(id: string, symbol: string, condition: AlertCondition, frequency: AlertFrequency = 'once'): ArmedAlert {
  return newArmedAlert({
    key: alertKey('u1', id),
    userId: 'u1',
    alertId: id,
    symbol,
    condition,
    frequency,
    arming: 1,
    expiresMs: Infinity,
  });
}

/** Mutable finished days per symbol, closes in dollars as a test writes them. */
class Histories {
  private readonly days = new Map<string, { closes: number[]; volumes: number[] }>();

  set(symbol: string, closes: readonly number[], volume = 1000): void {
    this.days.set(symbol, { closes: closes.map(toCents), volumes: closes.map(() => volume) });
  }

  close(symbol: string, cents: number, volume: number): void {
    const days = this.days.get(symbol) ?? { closes: [], volumes: [] };
    days.closes.push(cents);
    days.volumes.push(volume);
    this.days.set(symbol, days);
  }

  lookup = (symbol: string): SymbolHistory | undefined => this.days.get(symbol);

  prevClose(symbol: string): number {
    return this.days.get(symbol)?.closes.at(-1) ?? NaN;
  }
}

/** A tick of a scenario: `[symbol, price]`, optionally the day's volume so far and the trading day. */
type ScenarioTick = readonly [string, number, number?, string?];

interface Then {
  /** The ids fired by each tick. */
  thenFiredPerTick(ids: readonly (readonly string[])[]): void;
  /** The ids fired over all the ticks, in order. */
  thenFired(ids: readonly string[]): void;
}

/** Given armed alerts (and the symbols' finished closes), when ticks, then the alerts that fire. */
function given(...alerts: ArmedAlert[]) {
  const histories = new Histories();
  const scenario = {
    withCloses(symbol: string, closes: readonly number[]) {
      histories.set(symbol, closes);
      return scenario;
    },
    when(...ticks: ScenarioTick[]): Then {
      const run = (): string[][] => {
        const index = new AlertIndex(histories.lookup);
        const naive = new NaiveAlertScan([], histories.lookup);
        for (const a of alerts) {
          index.add({ ...a });
          naive.add({ ...a });
        }
        return ticks.map(([symbol, price, volume = 0, day = '2025-03-03']) => {
          const out: ArmedAlert[] = [];
          const reference: ArmedAlert[] = [];
          const cents = toCents(price);
          index.evaluate(symbol, cents, volume, histories.prevClose(symbol), day, out);
          naive.evaluate(symbol, cents, volume, histories.prevClose(symbol), day, reference);
          // Every scenario is also a check against the reference evaluator.
          expect(out.map((a) => a.alertId)).to.deep.equal(
            reference.map((a) => a.alertId),
            `${symbol} ${price}`,
          );
          return out.map((a) => a.alertId);
        });
      };
      return {
        thenFiredPerTick: (ids) => expect(run()).to.deep.equal(ids),
        thenFired: (ids) => expect(run().flat()).to.deep.equal(ids),
      };
    },
  };
  return scenario;
}

const flat = (value: number, days: number): number[] => Array.from({ length: days }, () => value);

describe('alert index', function () {
  describe('greater than and less than (the price alerts)', function () {
    it('fires greater_than on the first tick at the level, to the cent, and only once', function () {
      given(alert('a', 'AAPL', cond('greater_than', { value: 190 })))
        .when(['AAPL', 189.99], ['AAPL', 190], ['AAPL', 189], ['AAPL', 191])
        .thenFiredPerTick([[], ['a'], [], []]);
    });

    it('fires greater_than on the first tick after arming when it already holds', function () {
      given(alert('a', 'AAPL', cond('greater_than', { value: 190 })))
        .when(['AAPL', 250])
        .thenFired(['a']);
    });

    it('fires less_than at or below the level, not a cent above', function () {
      given(alert('a', 'AAPL', cond('less_than', { value: 180 })))
        .when(['AAPL', 180.01], ['AAPL', 180])
        .thenFiredPerTick([[], ['a']]);
    });
  });

  describe('crossings', function () {
    it('crossing_up: the first tick only sets the previous value; fires when below then at or above', function () {
      given(alert('a', 'AAPL', cond('crossing_up', { value: 190 })))
        .when(['AAPL', 191], ['AAPL', 189], ['AAPL', 190])
        .thenFiredPerTick([[], [], ['a']]);
    });

    it('crossing_up does not fire from exactly the level upward', function () {
      given(alert('a', 'AAPL', cond('crossing_up', { value: 190 }), 'every_time'))
        .when(['AAPL', 189], ['AAPL', 190], ['AAPL', 191], ['AAPL', 190], ['AAPL', 189.99], ['AAPL', 190])
        .thenFiredPerTick([[], ['a'], [], [], [], ['a']]);
    });

    it('crossing_down fires when above then at or below', function () {
      given(alert('a', 'AAPL', cond('crossing_down', { value: 190 })))
        .when(['AAPL', 190.5], ['AAPL', 190])
        .thenFiredPerTick([[], ['a']]);
    });

    it('crossing fires every time either way with every_time', function () {
      given(alert('a', 'AAPL', cond('crossing', { value: 190 }), 'every_time'))
        .when(['AAPL', 189], ['AAPL', 191], ['AAPL', 192], ['AAPL', 188], ['AAPL', 195])
        .thenFiredPerTick([[], ['a'], [], ['a'], ['a']]);
    });

    it('a price crossing its 50-day SMA is decided at the exact average', function () {
      // 49 closes of 100 and a forming close p: the SMA is (4900 + p) / 50, at or below p exactly when p >= 100.
      given(alert('a', 'AAPL', cond('crossing_up', { value: { ref: 'sma:50' } })))
        .withCloses('AAPL', flat(100, 49))
        .when(['AAPL', 99.99], ['AAPL', 100])
        .thenFiredPerTick([[], ['a']]);
    });

    it('a price a fraction of a cent from its SMA crosses it on the next cent, each way', function () {
      // 48 closes of 100 and one of 100.01: price and SMA meet at 10,000.02 cents (490,001 / 49), just above 100.
      // At 100 the group keeps that price alone as its range; the next tick at another price is evaluated.
      given(alert('a', 'AAPL', cond('crossing', { value: { ref: 'sma:50' } }), 'every_time'))
        .withCloses('AAPL', [...flat(100, 48), 100.01])
        .when(['AAPL', 100], ['AAPL', 100.01], ['AAPL', 100], ['AAPL', 100], ['AAPL', 100.01])
        .thenFiredPerTick([[], ['a'], ['a'], [], ['a']]);
    });

    it('the golden cross: sma:50 crossing up sma:200', function () {
      given(alert('g', 'AAPL', cond('crossing_up', { source: 'sma:50', value: { ref: 'sma:200' } })))
        .withCloses('AAPL', [...flat(110, 150), ...flat(100, 49)])
        .when(['AAPL', 90], ['AAPL', 500], ['AAPL', 2000])
        .thenFiredPerTick([[], [], ['g']]);
    });
  });

  describe('channels', function () {
    const channel = (op: AlertOp, frequency: AlertFrequency = 'once') =>
      alert(op, 'AAPL', cond(op, { lower: 180, upper: 190 }), frequency);

    it('entering_channel fires coming in from below or above, bounds included, not on its first tick', function () {
      given(channel('entering_channel', 'every_time'))
        .when(['AAPL', 185], ['AAPL', 179], ['AAPL', 180], ['AAPL', 195], ['AAPL', 190], ['AAPL', 170], ['AAPL', 200])
        .thenFiredPerTick([[], [], ['entering_channel'], [], ['entering_channel'], [], []]);
    });

    it('exiting_channel fires leaving on either side', function () {
      given(channel('exiting_channel', 'every_time'))
        .when(['AAPL', 185], ['AAPL', 179.99], ['AAPL', 185], ['AAPL', 190.01], ['AAPL', 200])
        .thenFiredPerTick([[], ['exiting_channel'], [], ['exiting_channel'], []]);
    });

    it('inside_channel fires on the first tick inside; outside_channel on the first outside', function () {
      given(channel('inside_channel'), channel('outside_channel'))
        .when(['AAPL', 185], ['AAPL', 200])
        .thenFiredPerTick([['inside_channel'], ['outside_channel']]);
    });

    it('outside_channel with every_time does not fire again jumping over the channel', function () {
      given(channel('outside_channel', 'every_time'))
        .when(['AAPL', 170], ['AAPL', 200], ['AAPL', 185], ['AAPL', 170])
        .thenFiredPerTick([['outside_channel'], [], [], ['outside_channel']]);
    });
  });

  describe('moving', function () {
    it('moving_up: at least the amount above the close before the window (1 bar: the last close)', function () {
      given(alert('a', 'AAPL', cond('moving_up', { value: 5, bars: 1 })))
        .withCloses('AAPL', [90, 100])
        .when(['AAPL', 104.99], ['AAPL', 105])
        .thenFiredPerTick([[], ['a']]);
    });

    it('moving_down_pct over 2 bars: at least the percent below the close two bars back', function () {
      given(alert('a', 'AAPL', cond('moving_down_pct', { value: 10, bars: 2 })))
        .withCloses('AAPL', [200, 100, 150])
        .when(['AAPL', 90.01], ['AAPL', 90])
        .thenFiredPerTick([[], ['a']]);
    });
  });

  describe('an alert taken to hold (a firing the log has and the index did not make)', function () {
    /** moving_up 5 over 1 bar, every time: fires on 106, not on 104, a close at 104 (level 109), then 110. */
    function run(takeAsHeld: boolean): string[][] {
      const histories = new Histories();
      histories.set('AAPL', [100]);
      const index = new AlertIndex(histories.lookup);
      const a = alert('a', 'AAPL', cond('moving_up', { value: 5, bars: 1 }), 'every_time');
      index.add(a);
      const fired: string[][] = [];
      const tick = (price: number, day: string): void => {
        const out: ArmedAlert[] = [];
        index.evaluate('AAPL', toCents(price), 0, histories.prevClose('AAPL'), day, out);
        fired.push(out.map((x) => x.alertId));
      };
      tick(106, '2025-03-03');
      tick(104, '2025-03-03');
      histories.close('AAPL', toCents(104), 0);
      index.roll();
      if (takeAsHeld) index.takeAsHeld(a);
      tick(110, '2025-03-04');
      tick(100, '2025-03-04');
      tick(110, '2025-03-04');
      return fired;
    }

    it('a repeating moving alert does not fire on the first tick after a close, but once it stopped holding', function () {
      expect(run(true)).to.deep.equal([['a'], [], [], [], ['a']]);
    });

    it('(without it, that first tick fires it: it did not hold at the close)', function () {
      expect(run(false)).to.deep.equal([['a'], [], ['a'], [], ['a']]);
    });
  });

  describe('indicator sources', function () {
    it('RSI(14) at or below 30 after a run of losses', function () {
      const closes = Array.from({ length: 20 }, (_, i) => 100 + (i % 2 === 0 ? 1 : -1));
      given(alert('r', 'AAPL', cond('less_than', { source: 'rsi:14', value: 30 })))
        .withCloses('AAPL', closes)
        .when(['AAPL', 99], ['AAPL', 80])
        .thenFiredPerTick([[], ['r']]);
    });

    it("volume greater than a number of shares, and the day's change in percent", function () {
      given(
        alert('v', 'AAPL', cond('greater_than', { source: 'volume', value: 1_000_000 })),
        alert('c', 'AAPL', cond('crossing_down', { source: 'changepct', value: -2 })),
      )
        .withCloses('AAPL', [100])
        .when(['AAPL', 99, 500_000], ['AAPL', 97.99, 1_000_000])
        .thenFiredPerTick([[], ['v', 'c']]);
    });

    it('an EMA is unknown until the history is long enough, so nothing fires', function () {
      given(alert('e', 'AAPL', cond('greater_than', { source: 'ema:20', value: 1 })))
        .withCloses('AAPL', flat(100, 5))
        .when(['AAPL', 100])
        .thenFired([]);
    });
  });

  describe('frequencies', function () {
    it('once_per_bar fires at most once a trading day, and again the next day while it holds', function () {
      given(alert('a', 'AAPL', cond('greater_than', { value: 190 }), 'once_per_bar'))
        .when(
          ['AAPL', 191, 0, '2025-03-03'],
          ['AAPL', 189, 0, '2025-03-03'],
          ['AAPL', 192, 0, '2025-03-03'],
          ['AAPL', 193, 0, '2025-03-04'],
          ['AAPL', 194, 0, '2025-03-04'],
        )
        .thenFiredPerTick([['a'], [], [], ['a'], []]);
    });

    it('every_time fires a level condition again only after it stopped holding', function () {
      given(alert('a', 'AAPL', cond('greater_than', { value: 190 }), 'every_time'))
        .when(['AAPL', 191], ['AAPL', 192], ['AAPL', 189], ['AAPL', 190])
        .thenFiredPerTick([['a'], [], [], ['a']]);
    });

    it('a repeating alert that fired before a restart must stop holding before it fires again', function () {
      const restored = alert('a', 'AAPL', cond('greater_than', { value: 190 }), 'every_time');
      restored.firings = 3;
      restored.lastTruth = true;
      given(restored)
        .when(['AAPL', 191], ['AAPL', 189], ['AAPL', 191])
        .thenFiredPerTick([[], [], ['a']]);
    });

    it('a once-per-bar alert that fired today before a restart does not fire again today', function () {
      const restored = alert('a', 'AAPL', cond('greater_than', { value: 190 }), 'once_per_bar');
      restored.firedDay = '2025-03-03';
      given(restored)
        .when(['AAPL', 191, 0, '2025-03-03'], ['AAPL', 192, 0, '2025-03-04'])
        .thenFiredPerTick([[], ['a']]);
    });
  });

  it('disarms, re-arms and moves alerts; a fired once alert leaves the index', function () {
    const index = new AlertIndex();
    const a = alert('a', 'AAPL', cond('greater_than', { value: 190 }));
    const b = alert('b', 'AAPL', cond('less_than', { value: 100 }));
    index.add(a);
    index.add(b);
    expect(index.remove(b.key)).to.equal(b);
    const out: ArmedAlert[] = [];
    index.evaluate('AAPL', 9000, 0, NaN, '2025-03-03', out);
    expect(out).to.deep.equal([]);
    index.add(alert('a', 'AAPL', cond('less_than', { value: 95 })));
    index.evaluate('AAPL', 9400, 0, NaN, '2025-03-03', out);
    expect(out.map((x) => x.alertId)).to.deep.equal(['a']);
    expect(index.size).to.equal(0);
  });

  it('keeps nothing of alerts armed and disarmed on a symbol that does not tick, nor of their conditions', function () {
    const index = new AlertIndex();
    const sma: AlertOperand = { ref: 'sma:50' };
    // One alert that stays, in a group and on a ladder, and many that come and go before any tick.
    index.add(alert('keep', 'IBM', cond('crossing', { value: sma })));
    index.add(alert('level', 'IBM', cond('greater_than', { value: 150 })));
    for (let i = 0; i < 3000; i++) {
      const id = `churn${i % 7}`;
      const condition =
        i % 3 === 0
          ? cond('crossing', { value: sma })
          : i % 3 === 1
            ? cond('inside_channel', { lower: sma, upper: 100 + i })
            : cond('less_than', { value: 50 + i / 100 });
      index.add(alert(id, 'IBM', condition));
      if (i % 2 === 0) index.remove(alertKey('u1', id));
    }
    for (let k = 0; k < 7; k++) index.remove(alertKey('u1', `churn${k}`));
    expect(index.size).to.equal(2);
    // Each waiting list is swept once those disarmed outnumber half of it and 32 more: 2 structures at most 65 each.
    expect(index.waitingCount).to.be.within(2, 132);
    expect(index.groupCount).to.equal(1);
  });

  it('a fired once alert is gone from every view of the index, and can be armed again under its key', function () {
    const index = new AlertIndex();
    const a = alert('a', 'AAPL', cond('greater_than', { value: 190 }));
    const b = alert('b', 'AAPL', cond('greater_than', { value: 500 }));
    index.add(a);
    index.add(b);
    const out: ArmedAlert[] = [];
    index.evaluate('AAPL', 19_500, 0, NaN, '2025-03-03', out);
    expect(out).to.deep.equal([a]);
    expect(index.size).to.equal(1);
    expect(index.has(a.key)).to.equal(false);
    expect(index.get(a.key)).to.equal(undefined);
    expect(index.alertsOf('AAPL')).to.deep.equal([b]);
    expect([...index.all()]).to.deep.equal([b]);
    // The engine disarms it once its trigger is folded: nothing armed to answer.
    expect(index.remove(a.key)).to.equal(undefined);
    expect(index.size).to.equal(1);
    // Armed again (the engine re-arms the same alert when its trigger could not be appended), it fires again.
    index.add(a);
    expect(index.has(a.key)).to.equal(true);
    expect(index.size).to.equal(2);
    index.evaluate('AAPL', 18_000, 0, NaN, '2025-03-03', out);
    index.evaluate('AAPL', 19_600, 0, NaN, '2025-03-03', out);
    expect(out).to.deep.equal([a, a]);
    expect([...index.armedSymbols()]).to.deep.equal(['AAPL']);
    index.remove(b.key);
    expect([...index.armedSymbols()]).to.deep.equal([]);
    expect(index.size).to.equal(0);
  });

  it('forgets fired once alerts in one sweep once they outnumber the armed ones', function () {
    const index = new AlertIndex();
    const count = 3_000;
    for (let i = 0; i < count; i++) index.add(alert(`a${i}`, 'AAPL', cond('greater_than', { value: 100 + i / 100 })));
    const out: ArmedAlert[] = [];
    index.evaluate('AAPL', 9_000, 0, NaN, '2025-03-03', out);
    // Each tick fires the alerts it reaches; the last one fires them all.
    for (let cents = 10_000; cents <= 13_000; cents += 500) index.evaluate('AAPL', cents, 0, NaN, '2025-03-03', out);
    expect(out).to.have.length(count);
    expect(index.size).to.equal(0);
    expect(index.alertsOf('AAPL')).to.deep.equal([]);
    // What the key map still holds is bounded (its own field, read here for that bound only).
    const keyMap = (index as unknown as { byKey: Map<string, ArmedAlert> }).byKey;
    expect(keyMap.size).to.be.at.most(1024 + index.size);
    // The key map and the book hold nothing more: arming every key again counts each once.
    for (let i = 0; i < count; i++) index.add(alert(`a${i}`, 'AAPL', cond('greater_than', { value: 200 })));
    expect(index.size).to.equal(count);
    expect(index.alertsOf('AAPL')).to.have.length(count);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The index against the reference evaluator, on random alerts and random ticks.

const SOURCES: readonly AlertSource[] = ['price', 'sma:20', 'sma:50', 'ema:5', 'rsi:14', 'volume', 'changepct'];
const PRICE_LIKE = new Set<AlertSource>(['price', 'sma:20', 'sma:50', 'ema:5']);
const SYMBOLS = ['AAA', 'BBB'];

/** A constant level near the series' values in the walk below, in the user's unit. */
function levelArb(source: AlertSource): fc.Arbitrary<number> {
  if (PRICE_LIKE.has(source)) return fc.integer({ min: 9_700, max: 10_300 }).map((c) => c / 100);
  if (source === 'rsi:14') return fc.integer({ min: 10, max: 90 });
  if (source === 'volume') return fc.integer({ min: 0, max: 4_000 });
  return fc.integer({ min: -300, max: 300 }).map((c) => c / 100);
}

function operandArb(source: AlertSource): fc.Arbitrary<AlertOperand> {
  const refs = SOURCES.filter((s) => s !== source && PRICE_LIKE.has(s) === PRICE_LIKE.has(source));
  return refs.length === 0
    ? levelArb(source)
    : fc.oneof(
        { weight: 3, arbitrary: levelArb(source) },
        { weight: 1, arbitrary: fc.constantFrom(...refs).map((ref) => ({ ref })) },
      );
}

const conditionArb: fc.Arbitrary<AlertCondition> = fc
  .tuple(fc.constantFrom(...ALERT_OPS), fc.constantFrom(...SOURCES))
  .chain(([op, source]) => {
    if (CHANNEL_OPS.includes(op)) {
      return fc.tuple(operandArb(source), operandArb(source)).map(([a, b]) => {
        const [lower, upper] = typeof a === 'number' && typeof b === 'number' ? (a < b ? [a, b] : [b, a + 1]) : [a, b];
        return cond(op, { source, lower, upper });
      });
    }
    if (MOVING_OPS.includes(op)) {
      const amount = PRICE_LIKE.has(source)
        ? fc.integer({ min: 1, max: 300 }).map((c) => c / 100)
        : fc.integer({ min: 1, max: 2_000 }).map((c) => c / 100);
      return fc.tuple(amount, fc.integer({ min: 1, max: 3 })).map(([value, bars]) => cond(op, { source, value, bars }));
    }
    return operandArb(source).map((value) => cond(op, { source, value }));
  });

const alertArb = fc.record({
  symbol: fc.constantFrom(...SYMBOLS),
  condition: conditionArb,
  frequency: fc.constantFrom(...ALERT_FREQUENCIES),
});

type Step =
  | { readonly kind: 'tick'; readonly symbol: number; readonly step: number; readonly shares: number }
  | { readonly kind: 'close' }
  | { readonly kind: 'day' }
  | { readonly kind: 'rearm'; readonly alert: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 40,
    arbitrary: fc.record({
      kind: fc.constant('tick' as const),
      symbol: fc.integer({ min: 0, max: SYMBOLS.length - 1 }),
      // Now and then a step of a cent or two, or none: ticks that stay by a crossing or repeat a price.
      step: fc.oneof(
        { weight: 3, arbitrary: fc.integer({ min: -60, max: 60 }) },
        { weight: 1, arbitrary: fc.integer({ min: -2, max: 2 }) },
      ),
      shares: fc.integer({ min: 0, max: 300 }),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'close' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'day' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('rearm' as const), alert: fc.nat() }) },
);

describe('alert index against the reference evaluator', function () {
  it('fires exactly what the reference fires, with the same values, for every operator, source and frequency', function () {
    this.timeout(120_000);
    let totalFired = 0;
    const firedOps = new Set<string>();
    fc.assert(
      fc.property(
        fc.array(alertArb, { minLength: 10, maxLength: 40 }),
        fc.array(stepArb, { minLength: 100, maxLength: 400 }),
        fc.array(fc.integer({ min: -150, max: 150 }), { minLength: 25, maxLength: 25 }),
        (specs, steps, history) => {
          const histories = new Histories();
          for (const symbol of SYMBOLS) {
            histories.set(
              symbol,
              history.map((d, i) => 100 + d / 100 + (i % 3) * 0.1),
            );
          }
          const made = specs.map((spec, i) => ({ ...spec, id: `a${i}` }));
          const fresh = (i: number, arming: number): ArmedAlert => ({
            ...alert(made[i]!.id, made[i]!.symbol, made[i]!.condition, made[i]!.frequency),
            arming,
          });
          const index = new AlertIndex(histories.lookup);
          const naive = new NaiveAlertScan([], histories.lookup);
          made.forEach((_, i) => {
            index.add(fresh(i, 1));
            naive.add(fresh(i, 1));
          });
          const prices = SYMBOLS.map(() => 10_000);
          const volumes = SYMBOLS.map(() => 0);
          let day = 1;
          let arming = 1;
          steps.forEach((step, t) => {
            if (step.kind === 'close' || step.kind === 'day') {
              if (step.kind === 'close') {
                SYMBOLS.forEach((symbol, s) => histories.close(symbol, prices[s]!, volumes[s]!));
                index.roll();
                naive.roll();
              }
              day += 1;
              volumes.fill(0);
              return;
            }
            if (step.kind === 'rearm') {
              arming += 1;
              const i = step.alert % made.length;
              index.add(fresh(i, arming));
              naive.add(fresh(i, arming));
              return;
            }
            const symbol = SYMBOLS[step.symbol]!;
            prices[step.symbol] = Math.max(9_500, Math.min(10_500, prices[step.symbol]! + step.step));
            volumes[step.symbol] = volumes[step.symbol]! + step.shares;
            const dayText = `2025-01-${String(day % 28).padStart(2, '0')}`;
            const cents = prices[step.symbol]!;
            const prevClose = histories.prevClose(symbol);
            const out: ArmedAlert[] = [];
            const reference: ArmedAlert[] = [];
            const values: number[] = [];
            index.evaluate(symbol, cents, volumes[step.symbol]!, prevClose, dayText, out);
            naive.evaluate(symbol, cents, volumes[step.symbol]!, prevClose, dayText, reference, values);
            const got = out.map((a) => `${a.alertId}@${a.firedValue}`).sort();
            const want = reference.map((a, k) => `${a.alertId}@${values[k]}`).sort();
            expect(got, `step ${t}`).to.deep.equal(want);
            totalFired += out.length;
            for (const a of out) firedOps.add(`${a.condition.op}/${a.frequency}`);
          });
          expect(index.size).to.equal(naive.size);
        },
      ),
      { numRuns: 300, seed: 14 },
    );
    // The random alerts did fire, under every operator.
    expect(totalFired).to.be.above(1000);
    for (const op of ALERT_OPS) {
      for (const frequency of ALERT_FREQUENCIES)
        expect(firedOps.has(`${op}/${frequency}`), `${op}/${frequency}`).to.equal(true);
    }
  });
});

/** What the arming property tests draw per alert: its condition and frequency, and whether it fired before. */
interface ArmingSpec {
  readonly condition: AlertCondition;
  readonly frequency: AlertFrequency;
  readonly fired: boolean;
}

/**
 * Arms the next `count` of `specs` (in turn, from the first) as a new arming in every evaluator; a spec that
 * `fired` is restored as having fired before (every_time counts two firings, once_per_bar the day `dayText`).
 */
function armer(
  specs: readonly ArmingSpec[],
  evaluators: readonly { add(alert: ArmedAlert): void }[],
  dayText: () => string,
): (count: number) => void {
  let next = 0;
  let arming = 0;
  return (count) => {
    arming += 1;
    for (let k = 0; k < count; k++) {
      const i = next++ % specs.length;
      const { condition, frequency, fired } = specs[i]!;
      const made: ArmedAlert = { ...alert(`a${i}`, 'AAA', condition, frequency), arming };
      if (fired && frequency === 'every_time') made.firings = 2;
      if (fired && frequency === 'once_per_bar') made.firedDay = dayText();
      made.lastTruth = made.firings > 0;
      for (const evaluator of evaluators) evaluator.add({ ...made });
    }
  };
}

describe('alert index arming and disarming between ticks', function () {
  it('fires what the reference fires when many alerts are armed, re-armed, merged and disarmed while the price moves', function () {
    this.timeout(120_000);
    let totalFired = 0;
    let groupsSeen = 0;
    const levelCondition = fc.constantFrom(...ALERT_OPS).chain((op) => {
      const level = fc.integer({ min: 9_900, max: 10_100 }).map((c) => c / 100);
      if (CHANNEL_OPS.includes(op)) {
        return fc.tuple(level, level).map(([a, b]) => cond(op, { lower: Math.min(a, b), upper: Math.max(a, b) }));
      }
      if (MOVING_OPS.includes(op)) {
        return fc
          .tuple(fc.integer({ min: 1, max: 150 }), fc.integer({ min: 1, max: 2 }))
          .map(([amount, bars]) => cond(op, { value: op.endsWith('_pct') ? amount / 100 : amount / 100, bars }));
      }
      return level.map((value) => cond(op, { value }));
    });
    // Levels that are another series (the 2-day EMA), alone or with a number: a group per distinct condition.
    const seriesCondition = fc.constantFrom(...ALERT_OPS.filter((op) => !MOVING_OPS.includes(op))).chain((op) => {
      const ema: AlertOperand = { ref: 'ema:2' };
      if (!CHANNEL_OPS.includes(op)) return fc.constant(cond(op, { value: ema }));
      return fc
        .tuple(fc.integer({ min: 9_900, max: 10_100 }), fc.boolean())
        .map(([c, below]) => cond(op, below ? { lower: c / 100, upper: ema } : { lower: ema, upper: c / 100 }));
    });
    const priceCondition = fc.oneof(
      { weight: 4, arbitrary: levelCondition },
      { weight: 1, arbitrary: seriesCondition },
    );
    const spec = fc.record({
      condition: priceCondition,
      frequency: fc.constantFrom(...ALERT_FREQUENCIES),
      // A restored alert: it fired before (every_time counts, once_per_bar the day).
      fired: fc.boolean(),
    });
    type Move =
      | { readonly kind: 'tick'; readonly step: number }
      | { readonly kind: 'arm'; readonly count: number }
      | { readonly kind: 'disarm'; readonly alert: number }
      | { readonly kind: 'close' }
      | { readonly kind: 'merge' };
    const moveArb: fc.Arbitrary<Move> = fc.oneof(
      {
        weight: 20,
        arbitrary: fc.record({ kind: fc.constant('tick' as const), step: fc.integer({ min: -40, max: 40 }) }),
      },
      {
        weight: 2,
        arbitrary: fc.record({ kind: fc.constant('arm' as const), count: fc.integer({ min: 1, max: 120 }) }),
      },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('disarm' as const), alert: fc.nat() }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'close' as const }) },
      // The alerts armed since the last merge merged among the levels before the next tick (the engine's start).
      { weight: 1, arbitrary: fc.constant({ kind: 'merge' as const }) },
    );
    fc.assert(
      fc.property(
        fc.array(spec, { minLength: 40, maxLength: 120 }),
        fc.array(moveArb, { minLength: 50, maxLength: 200 }),
        (specs, moves) => {
          const histories = new Histories();
          histories.set('AAA', [99.5, 100.2, 100]);
          const index = new AlertIndex(histories.lookup);
          const naive = new NaiveAlertScan([], histories.lookup);
          let day = 3;
          const dayText = (): string => `2025-02-${String(day).padStart(2, '0')}`;
          const arm = armer(specs, [index, naive], dayText);
          arm(specs.length);
          let cents = 10_000;
          moves.forEach((move, t) => {
            if (move.kind === 'arm') return arm(move.count);
            if (move.kind === 'merge') return index.mergeArmed();
            if (move.kind === 'disarm') {
              const key = alertKey('u1', `a${move.alert % specs.length}`);
              index.remove(key);
              naive.remove(key);
              return;
            }
            if (move.kind === 'close') {
              histories.close('AAA', cents, 0);
              index.roll();
              naive.roll();
              day += 1;
              return;
            }
            cents = Math.max(9_850, Math.min(10_150, cents + move.step));
            const out: ArmedAlert[] = [];
            const reference: ArmedAlert[] = [];
            const values: number[] = [];
            const prevClose = histories.prevClose('AAA');
            index.evaluate('AAA', cents, 0, prevClose, dayText(), out);
            naive.evaluate('AAA', cents, 0, prevClose, dayText(), reference, values);
            const got = out.map((a) => `${a.alertId}#${a.arming}@${a.firedValue}`).sort();
            const want = reference.map((a, k) => `${a.alertId}#${a.arming}@${values[k]}`).sort();
            expect(got, `move ${t}`).to.deep.equal(want);
            totalFired += out.length;
          });
          expect(index.size).to.equal(naive.size);
          // One group per distinct condition on another series still armed: none left behind by the disarmed.
          const armedGroups = new Set(
            [...index.all()].filter((a) => !isLadderCondition(a.condition)).map((a) => conditionKey(a.condition)),
          );
          expect(index.groupCount).to.equal(armedGroups.size);
          groupsSeen += armedGroups.size;
        },
      ),
      { numRuns: 200, seed: 41 },
    );
    expect(totalFired).to.be.above(1000);
    expect(groupsSeen).to.be.above(200);
  });
});

describe('alert index with many moving alerts sharing runs', function () {
  it('fires what the reference fires when dozens of moving alerts per operator and window are re-leveled at each close', function () {
    this.timeout(120_000);
    let totalFired = 0;
    let firedAfterClose = 0;
    // Few amounts, so that many alerts share a level; two windows; enough alerts per run, and constant levels
    // on the price, to be merged in batches besides being placed one by one.
    const moving = fc
      .record({
        op: fc.constantFrom(...MOVING_OPS),
        amount: fc.integer({ min: 1, max: 12 }).map((k) => k / 10),
        bars: fc.integer({ min: 1, max: 2 }),
        source: fc.constantFrom<AlertSource>('price', 'price', 'price', 'sma:20', 'changepct'),
      })
      .map(({ op, amount, bars, source }) => cond(op, { source, value: amount, bars }));
    const level = fc.integer({ min: 9_700, max: 10_300 }).map((c) => c / 100);
    const constant = fc
      .constantFrom(...ALERT_OPS.filter((op) => !MOVING_OPS.includes(op)))
      .chain((op) =>
        CHANNEL_OPS.includes(op)
          ? fc.tuple(level, level).map(([a, b]) => cond(op, { lower: Math.min(a, b), upper: Math.max(a, b) + 0.01 }))
          : level.map((value) => cond(op, { value })),
      );
    const spec = fc.record({
      condition: fc.oneof({ weight: 3, arbitrary: moving }, { weight: 2, arbitrary: constant }),
      frequency: fc.constantFrom(...ALERT_FREQUENCIES),
      fired: fc.boolean(),
    });
    type Move =
      | { readonly kind: 'tick'; readonly step: number }
      | { readonly kind: 'arm'; readonly count: number }
      | { readonly kind: 'disarm'; readonly alert: number; readonly count: number }
      | { readonly kind: 'close' }
      | { readonly kind: 'day' };
    const moveArb: fc.Arbitrary<Move> = fc.oneof(
      {
        weight: 24,
        arbitrary: fc.record({ kind: fc.constant('tick' as const), step: fc.integer({ min: -60, max: 60 }) }),
      },
      {
        weight: 2,
        arbitrary: fc.record({ kind: fc.constant('arm' as const), count: fc.integer({ min: 1, max: 400 }) }),
      },
      {
        weight: 2,
        arbitrary: fc.record({
          kind: fc.constant('disarm' as const),
          alert: fc.nat(),
          count: fc.integer({ min: 1, max: 60 }),
        }),
      },
      { weight: 3, arbitrary: fc.constant({ kind: 'close' as const }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'day' as const }) },
    );
    fc.assert(
      fc.property(
        fc.array(spec, { minLength: 400, maxLength: 900 }),
        fc.array(moveArb, { minLength: 40, maxLength: 120 }),
        (specs, moves) => {
          const histories = new Histories();
          histories.set(
            'AAA',
            [
              99.4, 100.3, 99.8, 100.1, 100, 99.9, 100.2, 100, 100.4, 99.7, 100, 100.1, 99.6, 100, 100.3, 99.9, 100,
              100.2, 99.8, 100,
            ],
          );
          const index = new AlertIndex(histories.lookup);
          const naive = new NaiveAlertScan([], histories.lookup);
          let day = 3;
          let sinceClose = Infinity;
          const dayText = (): string => `2025-02-${String(day).padStart(2, '0')}`;
          const arm = armer(specs, [index, naive], dayText);
          arm(specs.length);
          let cents = 10_000;
          let volume = 0;
          moves.forEach((move, t) => {
            if (move.kind === 'arm') return arm(move.count);
            if (move.kind === 'disarm') {
              for (let k = 0; k < move.count; k++) {
                const key = alertKey('u1', `a${(move.alert + k * 7) % specs.length}`);
                index.remove(key);
                naive.remove(key);
              }
              return;
            }
            if (move.kind === 'close' || move.kind === 'day') {
              if (move.kind === 'close') {
                histories.close('AAA', cents, volume);
                index.roll();
                naive.roll();
                sinceClose = 0;
              }
              day += 1;
              volume = 0;
              return;
            }
            cents = Math.max(9_700, Math.min(10_300, cents + move.step));
            volume += 100;
            const out: ArmedAlert[] = [];
            const reference: ArmedAlert[] = [];
            const values: number[] = [];
            const prevClose = histories.prevClose('AAA');
            index.evaluate('AAA', cents, volume, prevClose, dayText(), out);
            naive.evaluate('AAA', cents, volume, prevClose, dayText(), reference, values);
            const got = out.map((a) => `${a.alertId}#${a.arming}@${a.firedValue}`).sort();
            const want = reference.map((a, k) => `${a.alertId}#${a.arming}@${values[k]}`).sort();
            expect(got, `move ${t}`).to.deep.equal(want);
            totalFired += out.length;
            if (sinceClose++ === 0) firedAfterClose += out.length;
          });
          expect(index.size).to.equal(naive.size);
        },
      ),
      { numRuns: 40, seed: 7 },
    );
    expect(totalFired).to.be.above(1000);
    // The first ticks after a close fired too (the moving alerts' new levels).
    expect(firedAfterClose).to.be.above(100);
  });
});
