import { expect } from 'chai';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as idle } from 'node:timers/promises';
import { loopDelayMs } from './child.ts';

describe('loopDelayMs', () => {
  it("reads a free loop's histogram as no delay, and a blocked loop's as the time it was blocked", async () => {
    const histogram = monitorEventLoopDelay({ resolution: 10 });
    histogram.enable();
    await idle(200);
    // The histogram records the time between its timer's callbacks: a free loop's is about the resolution itself
    // (one callback may come a little early after a late one: a clean clone's run saw a least of 9.1 ms).
    expect(histogram.percentile(50) / 1e6).to.be.at.least(9);
    expect(loopDelayMs(histogram.min, 10)).to.be.below(2);

    // (A reset histogram takes its next callback as its start: the block is watched through, not after a reset.)
    const until = performance.now() + 50;
    while (performance.now() < until) {
      // The loop held for 50 ms.
    }
    await idle(30);
    histogram.disable();
    expect(loopDelayMs(histogram.max, 10)).to.be.at.least(39);
  });
});
