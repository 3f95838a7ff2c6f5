import { expect } from 'chai';
import { ApiError } from '../errors.ts';
import { PerUserConcurrency } from './concurrency.ts';

/** A job that runs until released. */
function held(): { job: () => Promise<string>; release: () => void } {
  let release: () => void = () => undefined;
  const done = new Promise<string>((resolve) => (release = () => resolve('done')));
  return { job: () => done, release };
}

describe('per-user concurrency limit', function () {
  it('refuses a third job of a user while two run, with 429 and Retry-After, and lets other users run', async function () {
    const limit = new PerUserConcurrency(2, 'prediction fits');
    const headers = new Map<string, string>();
    const ctx = { set: (name: string, value: string) => void headers.set(name, value) };
    const first = held();
    const second = held();
    const running = [limit.run(ctx, 'ada', first.job), limit.run(ctx, 'ada', second.job)];

    const refusal = await limit
      .run(ctx, 'ada', () => Promise.resolve('third'))
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(refusal).to.be.instanceOf(ApiError);
    expect(refusal).to.include({ status: 429, code: 'rate_limited' });
    expect((refusal as ApiError).message).to.equal('too many prediction fits at once: at most 2 per user');
    expect(headers.get('Retry-After')).to.equal('1');

    expect(await limit.run(ctx, 'bob', () => Promise.resolve('other user'))).to.equal('other user');

    first.release();
    second.release();
    expect(await Promise.all(running)).to.deep.equal(['done', 'done']);
    expect(await limit.run(ctx, 'ada', () => Promise.resolve('after'))).to.equal('after');
  });

  it('frees the slot of a job that fails', async function () {
    const limit = new PerUserConcurrency(1, 'fits');
    const ctx = { set: () => undefined };
    const failed = await limit
      .run(ctx, 'ada', () => Promise.reject(new Error('boom')))
      .then(
        () => null,
        (error: unknown) => (error as Error).message,
      );
    expect(failed).to.equal('boom');
    expect(await limit.run(ctx, 'ada', () => Promise.resolve('next'))).to.equal('next');
  });
});
