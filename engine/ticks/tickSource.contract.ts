/**
 * The contract every TickSource passes: valid ticks in non-empty batches and in time order, the same output
 * for the same construction, day closes whose bars agree with the day's ticks, and nothing after stop.
 */
import { expect } from 'chai';
import { checkBars } from '../marketdata/store.ts';
import type { TickSource } from './port.ts';
import { checkTick, type ClosedDay, type Tick } from './tick.ts';

/** What a contract run needs from a source. */
export interface TickSourceSubject {
  /** A fresh, unstarted source. */
  readonly source: TickSource;
  /**
   * Lets a started source produce: advances its clock or waits for it to play. What it produces must include
   * at least one day close and ticks after it.
   */
  run(): Promise<void>;
}

/** Makes a fresh subject; two subjects of one factory are built the same way (same seed, same clock start). */
export type TickSourceFactory = () => TickSourceSubject | Promise<TickSourceSubject>;

type Output = ({ kind: 'ticks'; ticks: Tick[] } | { kind: 'day'; day: ClosedDay })[];

async function record(factory: TickSourceFactory): Promise<Output> {
  const subject = await factory();
  const out: Output = [];
  subject.source.start({
    onTicks: (ticks) => void out.push({ kind: 'ticks', ticks: [...ticks] }),
    onDayClosed: (day) => out.push({ kind: 'day', day }),
  });
  await subject.run();
  await subject.source.stop();
  return out;
}

/** Runs the TickSource contract against a source. */
export function tickSourceContract(name: string, factory: TickSourceFactory): void {
  describe(`TickSource contract (${name})`, function () {
    let output: Output;

    before(async function () {
      output = await record(factory);
    });

    it('delivers valid ticks in non-empty batches', function () {
      const batches = output.flatMap((item) => (item.kind === 'ticks' ? [item.ticks] : []));
      expect(batches.length).to.be.greaterThan(0);
      for (const batch of batches) {
        expect(batch.length).to.be.greaterThan(0);
        for (const tick of batch) expect(checkTick(tick)).to.deep.equal(tick);
      }
    });

    it('delivers ticks in time order', function () {
      const ts = output.flatMap((item) => (item.kind === 'ticks' ? item.ticks.map((t) => t.ts) : []));
      for (let i = 1; i < ts.length; i++) expect(ts[i], `tick ${i}`).to.be.at.least(ts[i - 1]!);
    });

    it('closes days in date order, with ticks after a close', function () {
      const days = output.flatMap((item) => (item.kind === 'day' ? [item.day.date] : []));
      expect(days.length, 'day closes').to.be.greaterThan(0);
      for (let i = 1; i < days.length; i++)
        expect(days[i]! > days[i - 1]!, `${days[i]} after ${days[i - 1]}`).to.be.true;
      const firstClose = output.findIndex((item) => item.kind === 'day');
      expect(
        output.slice(firstClose).some((item) => item.kind === 'ticks'),
        'ticks after the first close',
      ).to.be.true;
    });

    it("gives each symbol that traded a bar that agrees with that day's ticks", function () {
      let day: Tick[] = [];
      let closes = 0;
      for (const item of output) {
        if (item.kind === 'ticks') {
          day.push(...item.ticks);
          continue;
        }
        closes += 1;
        const bars = new Map(item.day.bars.map((bar) => [bar.symbol, bar]));
        const symbols = [...item.day.bars.map((bar) => bar.symbol)];
        expect(symbols, 'bars in symbol order').to.deep.equal([...symbols].sort());
        for (const bar of item.day.bars) {
          expect(bar.date).to.equal(item.day.date);
          checkBars(bar.symbol, [bar]);
        }
        const traded = new Map<string, Tick[]>();
        for (const tick of day) traded.set(tick.symbol, [...(traded.get(tick.symbol) ?? []), tick]);
        for (const [symbol, ticks] of traded) {
          const bar = bars.get(symbol);
          expect(bar, `${item.day.date} bar of ${symbol}`).to.not.equal(undefined);
          const prices = ticks.map((t) => t.price);
          expect(bar).to.deep.include({
            open: prices[0],
            close: prices.at(-1),
            high: Math.max(...prices),
            low: Math.min(...prices),
            volume: ticks.reduce((s, t) => s + t.size, 0),
          });
        }
        day = [];
      }
      expect(closes).to.be.greaterThan(0);
    });

    it('gives the same ticks and closes when built the same way', async function () {
      expect(await record(factory)).to.deep.equal(output);
    });

    it('delivers nothing once stopped, and stopping twice is harmless', async function () {
      const subject = await factory();
      let calls = 0;
      subject.source.start({ onTicks: () => void (calls += 1), onDayClosed: () => (calls += 1) });
      await subject.source.stop();
      await subject.run();
      await subject.source.stop();
      expect(calls).to.equal(0);
    });

    it('refuses a second start', async function () {
      const subject = await factory();
      subject.source.start({ onTicks: () => undefined });
      expect(() => subject.source.start({ onTicks: () => undefined })).to.throw(Error);
      await subject.source.stop();
    });
  });
}
