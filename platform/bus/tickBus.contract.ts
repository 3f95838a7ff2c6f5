/**
 * The contract every TickBus adapter passes: delivery in order to each subscriber, groups that split symbols,
 * day closes to everyone, unsubscribe and close. Waits are "eventually", so an adapter may deliver later.
 */
import { expect } from 'chai';
import { shardOf, type ClosedDay, type Tick, type TickBus, type TickListener } from './port.ts';

/** What a contract run needs from an adapter. */
export interface TickBusSubject {
  /** A fresh bus; `onError` receives what a listener throws. */
  readonly bus: TickBus;
  /** Releases the bus and whatever it started. */
  close(): Promise<void>;
}

/** Makes a fresh subject whose listener errors go to `onError`. */
export type TickBusFactory = (onError: (error: unknown) => void) => Promise<TickBusSubject>;

const SYMBOLS = [
  'AAPL',
  'MSFT',
  'NVDA',
  'BRK.B',
  'BF-B',
  'XOM',
  'JPM',
  'KO',
  'T',
  'F',
  'AMZN',
  'GOOGL',
  'META',
  'TSLA',
  'UNH',
  'V',
  'PG',
  'HD',
  'CVX',
  'PFE',
];

function ticksOf(count: number, from = 0): Tick[] {
  return Array.from({ length: count }, (_, i) => ({
    symbol: SYMBOLS[(from + i) % SYMBOLS.length]!,
    price: 100 + ((from + i) % 50) / 100,
    size: 100 + i,
    ts: 1_735_830_000_000 + from + i,
  }));
}

/** A listener that records what it gets. */
function recorder(): TickListener & { batches: Tick[][]; days: ClosedDay[]; log: string[] } {
  const batches: Tick[][] = [];
  const days: ClosedDay[] = [];
  const log: string[] = [];
  return {
    batches,
    days,
    log,
    onTicks: (ticks) => {
      batches.push([...ticks]);
      log.push(`ticks:${ticks.length}`);
    },
    onDayClosed: (day) => {
      days.push(day);
      log.push(`day:${day.date}`);
    },
  };
}

function until(predicate: () => boolean, timeoutMs = 3000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (predicate()) resolve();
      else if (Date.now() - started > timeoutMs) reject(new Error(`condition not met in ${timeoutMs} ms`));
      else setTimeout(check, 2);
    };
    check();
  });
}

/** Gives an adapter that delivers later the time to show a delivery it should not make. */
function settle(ms = 30): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const closedDay: ClosedDay = {
  date: '2025-01-02',
  bars: [{ symbol: 'AAPL', date: '2025-01-02', open: 250, high: 252.5, low: 248.1, close: 251.02, volume: 1200 }],
};

/** Runs the TickBus contract against an adapter. */
export function tickBusContract(name: string, factory: TickBusFactory): void {
  describe(`TickBus contract (${name})`, function () {
    let subject: TickBusSubject;
    let errors: unknown[];

    beforeEach(async function () {
      errors = [];
      subject = await factory((error) => errors.push(error));
    });

    afterEach(async function () {
      await subject.close();
    });

    it('delivers every batch published after subscribing, in order and unchanged', async function () {
      const a = recorder();
      await subject.bus.publish(ticksOf(3));
      const sub = subject.bus.subscribe(a);
      await sub.ready;
      const first = ticksOf(5, 10);
      const second = ticksOf(2, 20);
      await subject.bus.publish(first);
      await subject.bus.publish(second);
      await until(() => a.batches.length >= 2);
      expect(a.batches.flat()).to.deep.equal([...first, ...second]);
    });

    it('gives every plain subscriber all the ticks', async function () {
      const a = recorder();
      const b = recorder();
      await subject.bus.subscribe(a).ready;
      await subject.bus.subscribe(b).ready;
      const ticks = ticksOf(40);
      await subject.bus.publish(ticks);
      await until(() => a.batches.flat().length === 40 && b.batches.flat().length === 40);
      expect(a.batches.flat()).to.deep.equal(ticks);
      expect(b.batches.flat()).to.deep.equal(ticks);
    });

    it('never delivers an empty batch', async function () {
      const a = recorder();
      await subject.bus.subscribe(a).ready;
      await subject.bus.publish([]);
      await subject.bus.publish(ticksOf(1));
      await until(() => a.batches.length >= 1);
      await settle();
      expect(a.batches.map((batch) => batch.length)).to.deep.equal([1]);
    });

    it('stops delivering after unsubscribe', async function () {
      const a = recorder();
      const sub = subject.bus.subscribe(a);
      await sub.ready;
      await subject.bus.publish(ticksOf(2));
      await until(() => a.batches.length === 1);
      await sub.unsubscribe();
      await subject.bus.publish(ticksOf(2));
      await subject.bus.publishDayClosed(closedDay);
      await settle();
      expect(a.batches).to.have.length(1);
      expect(a.days).to.have.length(0);
    });

    it('splits the symbols of a group between its members: each tick once, a symbol always to the same member', async function () {
      const members = [recorder(), recorder(), recorder()];
      for (const m of members) await subject.bus.subscribe(m, { group: 'engines' }).ready;
      const all = recorder();
      await subject.bus.subscribe(all).ready;
      const ticks = ticksOf(200);
      await subject.bus.publish(ticks.slice(0, 100));
      await subject.bus.publish(ticks.slice(100));
      await until(() => members.reduce((n, m) => n + m.batches.flat().length, 0) === 200);
      await until(() => all.batches.flat().length === 200);
      const owner = new Map<string, number>();
      members.forEach((m, i) => {
        for (const tick of m.batches.flat()) {
          expect(owner.get(tick.symbol) ?? i, `owner of ${tick.symbol}`).to.equal(i);
          owner.set(tick.symbol, i);
        }
      });
      expect(owner.size).to.equal(SYMBOLS.length);
      const received = members
        .flatMap((m) => m.batches.flat())
        .sort((x, y) => x.ts - y.ts)
        .map((t) => t.ts);
      expect(received).to.deep.equal(ticks.map((t) => t.ts));
      for (const m of members) {
        const ts = m.batches.flat().map((t) => t.ts);
        expect(ts, 'in order').to.deep.equal([...ts].sort((x, y) => x - y));
      }
      expect(new Set(owner.values()).size, 'every member gets symbols').to.equal(3);
      await settle();
      expect(members.reduce((n, m) => n + m.batches.flat().length, 0)).to.equal(200);
    });

    it('splits a group by shardOf, so every adapter and process agrees', async function () {
      const members = [recorder(), recorder()];
      for (const m of members) await subject.bus.subscribe(m, { group: 'g' }).ready;
      await subject.bus.publish(ticksOf(SYMBOLS.length));
      await until(() => members.reduce((n, m) => n + m.batches.flat().length, 0) === SYMBOLS.length);
      members.forEach((m, i) => {
        for (const tick of m.batches.flat()) expect(shardOf(tick.symbol, 2), tick.symbol).to.equal(i);
      });
    });

    it('gives a group member that is left alone every symbol', async function () {
      const a = recorder();
      const b = recorder();
      const subA = subject.bus.subscribe(a, { group: 'g' });
      await subA.ready;
      await subject.bus.subscribe(b, { group: 'g' }).ready;
      await subA.unsubscribe();
      const ticks = ticksOf(30);
      await subject.bus.publish(ticks);
      await until(() => b.batches.flat().length === 30);
      expect(b.batches.flat()).to.deep.equal(ticks);
      expect(a.batches).to.have.length(0);
    });

    it('gives day closes to every subscriber, group members too, in order with the ticks', async function () {
      const a = recorder();
      const g1 = recorder();
      const g2 = recorder();
      await subject.bus.subscribe(a).ready;
      await subject.bus.subscribe(g1, { group: 'g' }).ready;
      await subject.bus.subscribe(g2, { group: 'g' }).ready;
      await subject.bus.publish(ticksOf(10));
      await subject.bus.publishDayClosed(closedDay);
      await subject.bus.publish(ticksOf(10, 10));
      await until(() => a.log.length === 3 && g1.days.length === 1 && g2.days.length === 1);
      expect(a.log).to.deep.equal(['ticks:10', 'day:2025-01-02', 'ticks:10']);
      expect(a.days[0]).to.deep.equal(closedDay);
      for (const m of [g1, g2]) expect(m.log.indexOf('day:2025-01-02')).to.be.greaterThan(0);
    });

    it('still delivers to the others when a listener throws, and reports the error', async function () {
      const good = recorder();
      await subject.bus.subscribe({
        onTicks: () => {
          throw new Error('listener failed');
        },
      }).ready;
      await subject.bus.subscribe(good).ready;
      await subject.bus.publish(ticksOf(4));
      await until(() => good.batches.length === 1 && errors.length === 1);
      expect((errors[0] as Error).message).to.equal('listener failed');
    });

    it('refuses to publish once closed', async function () {
      const a = recorder();
      await subject.bus.subscribe(a).ready;
      await subject.bus.close();
      let refused: unknown;
      await subject.bus.publish(ticksOf(1)).catch((error: unknown) => (refused = error));
      expect(refused).to.be.instanceOf(Error);
      await settle();
      expect(a.batches).to.have.length(0);
    });
  });
}
