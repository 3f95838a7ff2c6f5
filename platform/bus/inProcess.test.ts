import { expect } from 'chai';
import { createInProcessTickBus } from './inProcess.ts';
import type { Tick } from './port.ts';
import { tickBusContract } from './tickBus.contract.ts';

tickBusContract('in-process', (onError) => {
  const bus = createInProcessTickBus({ onError });
  return Promise.resolve({ bus, close: () => bus.close() });
});

const tick: Tick = { symbol: 'AAPL', price: 250.01, size: 100, ts: 1_735_830_000_000 };

describe('in-process tick bus', function () {
  it('has delivered a batch to every listener when publish returns', function () {
    const bus = createInProcessTickBus();
    const seen: Tick[] = [];
    bus.subscribe({ onTicks: (ticks) => void seen.push(...ticks) });
    void bus.publish([tick]);
    expect(seen).to.deep.equal([tick]);
  });

  it('rejects the publish with a listener error when no onError is given, after the others got the batch', async function () {
    const bus = createInProcessTickBus();
    bus.subscribe({
      onTicks: () => {
        throw new Error('boom');
      },
    });
    const seen: Tick[] = [];
    bus.subscribe({ onTicks: (ticks) => void seen.push(...ticks) });
    let refused: unknown;
    await bus.publish([tick]).catch((error: unknown) => (refused = error));
    expect((refused as Error).message).to.equal('boom');
    expect(seen).to.have.length(1);
  });

  it("answers a publish once the promises its listeners answered have settled, reporting a listener's failure", async function () {
    const reported: unknown[] = [];
    const bus = createInProcessTickBus({ onError: (error) => reported.push(error) });
    const made: { resolve: () => void; reject: (error: Error) => void }[] = [];
    const later = () =>
      new Promise<void>((resolve, reject) => {
        made.push({ resolve, reject });
      });
    bus.subscribe({ onTicks: later });
    bus.subscribe({ onTicks: later });
    let answered = false;
    const published = bus.publish([tick]).then(() => (answered = true));
    expect(made).to.have.length(2);
    made[0]!.resolve();
    await Promise.resolve();
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(answered, 'one listener is still at work').to.equal(false);
    made[1]!.reject(new Error('append failed'));
    await published;
    expect(answered).to.equal(true);
    expect((reported as Error[]).map((e) => e.message)).to.deep.equal(['append failed']);
  });
});
