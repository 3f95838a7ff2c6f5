import { expect } from 'chai';
import { SMA } from 'trading-signals';
import { toCents } from '../../domain/alerts/alerts.ts';
import type { SmaPeriod } from '../../domain/screener/query.ts';
import { Random } from '../marketdata/random.ts';
import { AlertIndex, alertKey, type ArmedAlert } from './alertIndex.ts';
import { NaiveAlertScan } from './naiveScan.ts';

function price(id: string, symbol: string, alerttype: 'U' | 'D', threshold: number, userId = 'u1'): ArmedAlert {
  return {
    key: alertKey(userId, id),
    userId,
    alertId: id,
    symbol,
    kind: 'PRICE',
    alerttype,
    thresholdCents: toCents(threshold),
    period: null,
    arming: 1,
  };
}

function sma(id: string, symbol: string, alerttype: 'U' | 'D', period: SmaPeriod, userId = 'u1'): ArmedAlert {
  return {
    key: alertKey(userId, id),
    userId,
    alertId: id,
    symbol,
    kind: 'SMA',
    alerttype,
    thresholdCents: null,
    period,
    arming: 1,
  };
}

/** Finished closes for a symbol's moving averages: the base of each period is the sum of the last period − 1. */
type Closes = Record<string, readonly number[]>;

interface Then {
  /** The alert ids fired over the ticks, in firing order. */
  thenFired(ids: readonly string[]): void;
  /** No alert fires. */
  thenNothing(): void;
  /** The ids fired by each tick. */
  thenFiredPerTick(ids: readonly (readonly string[])[]): void;
}

interface Scenario {
  /** The finished daily closes of symbols, for SMA alerts. */
  withCloses(closes: Closes): Scenario;
  /** The last price of a symbol before the ticks (otherwise it has none). */
  from(symbol: string, price: number): Scenario;
  /** Something done to the index before the ticks. */
  after(change: (index: AlertIndex) => void): Scenario;
  /** The ticks: `[symbol, price]` in order. */
  when(...ticks: [string, number][]): Then;
}

/** Given armed alerts, when ticks, then the alerts that fire. */
function given(...alerts: ArmedAlert[]): Scenario {
  let closes: Closes = {};
  const last = new Map<string, number>();
  const changes: ((index: AlertIndex) => void)[] = [];
  const scenario: Scenario = {
    withCloses(c) {
      closes = c;
      return scenario;
    },
    from(symbol, p) {
      last.set(symbol, toCents(p));
      return scenario;
    },
    after(change) {
      changes.push(change);
      return scenario;
    },
    when(...ticks) {
      const run = (): string[][] => {
        const base = (symbol: string, period: number): number | null => {
          const c = closes[symbol] ?? [];
          return c.length < period - 1 ? null : c.slice(-(period - 1)).reduce((s, x) => s + toCents(x), 0);
        };
        const index = new AlertIndex(base);
        for (const alert of alerts) index.add(alert);
        for (const change of changes) change(index);
        const prices = new Map(last);
        return ticks.map(([symbol, p]) => {
          const out: ArmedAlert[] = [];
          const cents = toCents(p);
          const fired = index.evaluate(symbol, prices.get(symbol) ?? NaN, cents, out);
          expect(fired).to.equal(out.length);
          prices.set(symbol, cents);
          for (const alert of out) expect(index.has(alert.key), `${alert.alertId} left the index`).to.be.false;
          return out.map((alert) => alert.alertId);
        });
      };
      return {
        thenFired: (ids) => expect(run().flat()).to.deep.equal(ids),
        thenNothing: () => expect(run().flat()).to.deep.equal([]),
        thenFiredPerTick: (ids) => expect(run()).to.deep.equal(ids),
      };
    },
  };
  return scenario;
}

const flat = (value: number, days: number): number[] => Array.from({ length: days }, () => value);

describe('alert index', function () {
  describe('price alerts, up', function () {
    it('fires on the first tick exactly at the threshold', function () {
      given(price('a', 'AAPL', 'U', 190))
        .from('AAPL', 189.5)
        .when(['AAPL', 189.99], ['AAPL', 190])
        .thenFiredPerTick([[], ['a']]);
    });

    it('fires on a tick above the threshold', function () {
      given(price('a', 'AAPL', 'U', 190))
        .when(['AAPL', 190.01])
        .thenFired(['a']);
    });

    it('does not fire a cent below', function () {
      given(price('a', 'AAPL', 'U', 190))
        .when(['AAPL', 189.99], ['AAPL', 100])
        .thenNothing();
    });

    it('fires once: later ticks above do not fire it again', function () {
      given(price('a', 'AAPL', 'U', 190))
        .when(['AAPL', 191], ['AAPL', 189], ['AAPL', 192])
        .thenFiredPerTick([['a'], [], []]);
    });

    it('fires at once every alert at or below the price, lowest threshold first, and keeps those above', function () {
      given(
        price('a', 'AAPL', 'U', 190),
        price('b', 'AAPL', 'U', 185),
        price('c', 'AAPL', 'U', 195),
        price('d', 'AAPL', 'U', 190.5),
      )
        .when(['AAPL', 190.5], ['AAPL', 194.99], ['AAPL', 195])
        .thenFiredPerTick([['b', 'a', 'd'], [], ['c']]);
    });

    it('fires every alert of one threshold, whoever owns it', function () {
      given(price('a', 'AAPL', 'U', 190, 'u1'), price('a', 'AAPL', 'U', 190, 'u2'), price('b', 'AAPL', 'U', 190, 'u3'))
        .when(['AAPL', 190])
        .thenFired(['b', 'a', 'a']);
    });

    it('compares the threshold in cents as the alert rounded it: 190.005 is 190.01', function () {
      given(price('a', 'AAPL', 'U', 190.005))
        .when(['AAPL', 190], ['AAPL', 190.01])
        .thenFiredPerTick([[], ['a']]);
    });

    it('fires on the first tick when the price is already above at arming', function () {
      given(price('a', 'AAPL', 'U', 100))
        .from('AAPL', 150)
        .when(['AAPL', 150])
        .thenFired(['a']);
    });
  });

  describe('price alerts, down', function () {
    it('fires on the first tick exactly at the threshold', function () {
      given(price('a', 'AAPL', 'D', 180))
        .when(['AAPL', 180.01], ['AAPL', 180])
        .thenFiredPerTick([[], ['a']]);
    });

    it('fires every alert at or above the price, highest threshold first, and keeps those below', function () {
      given(price('a', 'AAPL', 'D', 180), price('b', 'AAPL', 'D', 185), price('c', 'AAPL', 'D', 170))
        .when(['AAPL', 180], ['AAPL', 170.01], ['AAPL', 169])
        .thenFiredPerTick([['b', 'a'], [], ['c']]);
    });

    it('leaves the up alerts of the symbol alone', function () {
      given(price('up', 'AAPL', 'U', 200), price('down', 'AAPL', 'D', 180))
        .when(['AAPL', 179])
        .thenFired(['down']);
    });
  });

  describe('arming and disarming', function () {
    it("ignores another symbol's ticks", function () {
      given(price('a', 'AAPL', 'U', 190))
        .when(['MSFT', 500], ['BRK.B', 1000])
        .thenNothing();
    });

    it('does not fire a removed alert', function () {
      given(price('a', 'AAPL', 'U', 190), price('b', 'AAPL', 'U', 190))
        .after((index) => expect(index.remove(alertKey('u1', 'a'))?.alertId).to.equal('a'))
        .when(['AAPL', 191])
        .thenFired(['b']);
    });

    it('answers nothing when removing an alert that is not armed', function () {
      given(price('a', 'AAPL', 'U', 190))
        .after((index) => expect(index.remove(alertKey('u1', 'zzz'))).to.equal(undefined))
        .when(['AAPL', 191])
        .thenFired(['a']);
    });

    it('moves an updated alert: the new threshold fires, the old one does not', function () {
      given(price('a', 'AAPL', 'U', 190))
        .after((index) => index.add({ ...price('a', 'AAPL', 'D', 150), arming: 2 }))
        .when(['AAPL', 191], ['AAPL', 150])
        .thenFiredPerTick([[], ['a']]);
    });

    it('moves an alert updated to another symbol', function () {
      given(price('a', 'AAPL', 'U', 190))
        .after((index) => index.add({ ...price('a', 'MSFT', 'U', 190), arming: 2 }))
        .when(['AAPL', 191], ['MSFT', 191])
        .thenFiredPerTick([[], ['a']]);
    });

    it('fires a re-armed alert again', function () {
      const alert = price('a', 'AAPL', 'U', 190);
      const index = new AlertIndex();
      index.add(alert);
      const out: ArmedAlert[] = [];
      index.evaluate('AAPL', NaN, 19100, out);
      index.add({ ...alert, arming: 2 });
      index.evaluate('AAPL', 19100, 19100, out);
      expect(out.map((a) => a.arming)).to.deep.equal([1, 2]);
      expect(index.size).to.equal(0);
    });

    it('removes the right one of several alerts with the same threshold', function () {
      const alerts = ['a', 'b', 'c', 'd'].map((id) => price(id, 'AAPL', 'D', 180));
      given(...alerts)
        .after((index) => index.remove(alertKey('u1', 'c')))
        .after((index) => index.remove(alertKey('u1', 'a')))
        .when(['AAPL', 170])
        .thenFired(['d', 'b']);
    });

    it('refuses a price alert without a threshold in cents and an SMA alert without a known period', function () {
      const index = new AlertIndex();
      expect(() => index.add({ ...price('a', 'AAPL', 'U', 1), thresholdCents: 1.5 })).to.throw(/whole cents/);
      expect(() => index.add({ ...sma('s', 'AAPL', 'U', 20), period: 30 as SmaPeriod })).to.throw(/period/);
      expect(index.size).to.equal(0);
    });
  });

  describe('SMA alerts', function () {
    // 19 closes of 100.00: the SMA(20) with a forming close p is (1900 + p) / 20, equal to p exactly at 100.00.
    const closes = { AAPL: flat(100, 19) };

    it('fires up when the previous price was below the average and this one is exactly at it', function () {
      given(sma('s', 'AAPL', 'U', 20))
        .withCloses(closes)
        .from('AAPL', 99.99)
        .when(['AAPL', 100])
        .thenFired(['s']);
    });

    it('fires up when the price jumps from below to above', function () {
      given(sma('s', 'AAPL', 'U', 20))
        .withCloses(closes)
        .from('AAPL', 90)
        .when(['AAPL', 120])
        .thenFired(['s']);
    });

    it('does not fire up from exactly at the average to above: the previous price was not below', function () {
      given(sma('s', 'AAPL', 'U', 20))
        .withCloses(closes)
        .from('AAPL', 100)
        .when(['AAPL', 100.01])
        .thenNothing();
    });

    it('does not fire up while the price stays below, nor while it stays above', function () {
      given(sma('s', 'AAPL', 'U', 20))
        .withCloses(closes)
        .from('AAPL', 99)
        .when(['AAPL', 99.5], ['AAPL', 99.99])
        .thenNothing();
      given(sma('s', 'AAPL', 'U', 20))
        .withCloses(closes)
        .from('AAPL', 101)
        .when(['AAPL', 102], ['AAPL', 100.5])
        .thenNothing();
    });

    it('fires down when the previous price was above and this one is exactly at the average', function () {
      given(sma('s', 'AAPL', 'D', 20))
        .withCloses(closes)
        .from('AAPL', 100.01)
        .when(['AAPL', 100])
        .thenFired(['s']);
    });

    it('does not fire down from exactly at the average to below', function () {
      given(sma('s', 'AAPL', 'D', 20))
        .withCloses(closes)
        .from('AAPL', 100)
        .when(['AAPL', 99.99])
        .thenNothing();
    });

    it('fires at the exact average where floating-point averages miss it (49 closes of 190.07, down)', function () {
      const s = new SMA(50);
      let avg: number | null = null;
      for (let i = 0; i < 50; i++) avg = s.add(190.07);
      expect(avg, 'the float average is below 190.07').to.be.below(190.07);
      given(sma('s', 'XYZ', 'D', 50))
        .withCloses({ XYZ: flat(190.07, 49) })
        .from('XYZ', 190.08)
        .when(['XYZ', 190.07])
        .thenFired(['s']);
    });

    it('fires at the exact average where floating-point averages miss it (49 closes of 1.10, up)', function () {
      const s = new SMA(50);
      let avg: number | null = null;
      for (let i = 0; i < 50; i++) avg = s.add(1.1);
      expect(avg, 'the float average is above 1.10').to.be.above(1.1);
      given(sma('s', 'XYZ', 'U', 50))
        .withCloses({ XYZ: flat(1.1, 49) })
        .from('XYZ', 1.09)
        .when(['XYZ', 1.1])
        .thenFired(['s']);
    });

    it('crosses where the average with the forming close says, not at the average of the finished days', function () {
      // Closes 18 × 100.00 and 100.01: the level is 1900.01 / 19 = 100.0005…, so 100.00 is below and 100.01 at or above.
      const c = { AAPL: [...flat(100, 18), 100.01] };
      given(sma('s', 'AAPL', 'U', 20))
        .withCloses(c)
        .from('AAPL', 99)
        .when(['AAPL', 100], ['AAPL', 100.01])
        .thenFiredPerTick([[], ['s']]);
    });

    it('fires every alert of the period and direction together, and only those', function () {
      const c = { AAPL: [...flat(80, 150), ...flat(100, 49)] };
      // SMA(50) level 100, SMA(200) level (150 × 80 + 49 × 100) / 199 ≈ 84.9: a move from 95 to 100 crosses only the 50.
      given(
        sma('a', 'AAPL', 'U', 50),
        sma('b', 'AAPL', 'U', 50, 'u2'),
        sma('c', 'AAPL', 'U', 200),
        sma('d', 'AAPL', 'D', 50),
      )
        .withCloses(c)
        .from('AAPL', 95)
        .when(['AAPL', 100])
        .thenFired(['a', 'b']);
    });

    it('never fires without enough finished closes for the period', function () {
      given(sma('s', 'AAPL', 'U', 50))
        .withCloses({ AAPL: flat(100, 48) })
        .from('AAPL', 1)
        .when(['AAPL', 1000])
        .thenNothing();
    });

    it('never fires on the first tick of a symbol without a previous price', function () {
      given(sma('s', 'AAPL', 'U', 20))
        .withCloses(closes)
        .when(['AAPL', 120], ['AAPL', 130])
        .thenNothing();
    });

    it('reads the moved averages after a day close', function () {
      let days = flat(100, 19);
      const index = new AlertIndex((_symbol, period) =>
        days.length < period - 1 ? null : days.slice(-(period - 1)).reduce((s, x) => s + toCents(x), 0),
      );
      index.add(sma('s', 'AAPL', 'U', 20));
      days = [...days.slice(1), 120];
      index.refreshSmaBases();
      const out: ArmedAlert[] = [];
      // The level is now (18 × 100 + 120) / 19 ≈ 101.05: 100 → 101 stays below, 101 → 101.06 crosses.
      index.evaluate('AAPL', 10000, 10100, out);
      expect(out).to.have.length(0);
      index.evaluate('AAPL', 10100, 10106, out);
      expect(out.map((a) => a.alertId)).to.deep.equal(['s']);
    });
  });

  it('fires exactly what a scan of every alert fires, over random alerts and prices', function () {
    const rng = new Random('alert-index-vs-scan');
    const symbols = ['AAA', 'BBB', 'CCC', 'DDD'];
    const closes = new Map(symbols.map((s) => [s, Array.from({ length: 199 }, () => 9000 + rng.int(2000))]));
    const base = (symbol: string, period: number): number =>
      closes
        .get(symbol)!
        .slice(-(period - 1))
        .reduce((s, x) => s + x, 0);
    const alerts: ArmedAlert[] = [];
    for (let i = 0; i < 2000; i++) {
      const symbol = symbols[rng.int(symbols.length)]!;
      const alerttype = rng.chance(0.5) ? 'U' : 'D';
      if (rng.chance(0.2)) {
        alerts.push(sma(`s${i}`, symbol, alerttype, ([20, 50, 100, 200] as const)[rng.int(4)]!, `u${i % 7}`));
      } else {
        alerts.push({ ...price(`p${i}`, symbol, alerttype, 1, `u${i % 7}`), thresholdCents: 8000 + rng.int(4000) });
      }
    }
    const index = new AlertIndex(base);
    for (const alert of alerts) index.add(alert);
    const scan = new NaiveAlertScan(alerts, base);
    const prices = new Map(symbols.map((s) => [s, 10_000]));
    let total = 0;
    for (let t = 0; t < 20_000; t++) {
      const symbol = symbols[rng.int(symbols.length)]!;
      const prev = prices.get(symbol)!;
      const next = Math.max(1, prev + rng.int(41) - 20);
      prices.set(symbol, next);
      const a: ArmedAlert[] = [];
      const b: ArmedAlert[] = [];
      index.evaluate(symbol, prev, next, a);
      scan.evaluate(symbol, prev, next, b);
      expect(a.map((x) => x.key).sort(), `tick ${t}`).to.deep.equal(b.map((x) => x.key).sort());
      total += a.length;
      if (rng.chance(0.01)) {
        // Re-arm a few fired alerts at new thresholds, as users do.
        const again = { ...alerts[rng.int(alerts.length)]!, arming: 2 };
        if (again.kind === 'PRICE') {
          const moved = { ...again, thresholdCents: next + rng.int(400) - 200 };
          index.add(moved);
          scan.add(moved);
        }
      }
    }
    expect(total).to.be.above(500);
    expect(index.size).to.equal(scan.size);
  });
});
