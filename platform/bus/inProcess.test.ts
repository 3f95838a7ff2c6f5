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
});
