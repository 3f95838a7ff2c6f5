import { expect } from 'chai';
import { repeat } from './repeat.ts';

describe('repeat', () => {
  it('starts each run after the previous one ended, never two at once', async () => {
    let running = 0;
    let most = 0;
    const ends: number[] = [];
    const starts: number[] = [];
    let release!: () => void;
    const third = new Promise<void>((resolve) => (release = resolve));
    const stop = repeat(5, async () => {
      running += 1;
      most = Math.max(most, running);
      starts.push(performance.now());
      // Slower than the period: a timer-driven loop would start the next run before this one ends.
      await new Promise((resolve) => setTimeout(resolve, 20));
      running -= 1;
      ends.push(performance.now());
      if (ends.length === 3) release();
    });
    await third;
    stop();
    expect(most).to.equal(1);
    for (let i = 1; i < starts.length; i += 1) expect(starts[i]).to.be.at.least(ends[i - 1]! + 4);
  });

  it('goes on after a failed run, which goes to onError', async () => {
    const errors: string[] = [];
    let runs = 0;
    let release!: () => void;
    const second = new Promise<void>((resolve) => (release = resolve));
    const stop = repeat(
      1,
      () => {
        runs += 1;
        if (runs === 1) return Promise.reject(new Error('refused'));
        if (runs === 2) release();
        return Promise.resolve();
      },
      (error) => errors.push(error.message),
    );
    await second;
    stop();
    expect(errors).to.deep.equal(['refused']);
  });

  it('runs no more once stopped, not even the run it had planned', async () => {
    let runs = 0;
    let release!: () => void;
    const first = new Promise<void>((resolve) => (release = resolve));
    const stop = repeat(1, () => {
      runs += 1;
      release();
      return Promise.resolve();
    });
    await first;
    stop();
    const after = runs;
    // A run planned before the stop would come 1 ms later; a macrotask well past it shows none came.
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(runs).to.equal(after);
  });
});
