import { expect } from 'chai';
import { KeyedQueue } from './keyedQueue.ts';

/** A task that records when it starts and ends, and ends when `release` is called. */
function gated(log: string[], name: string) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const task = async (): Promise<string> => {
    log.push(`start ${name}`);
    await gate;
    log.push(`end ${name}`);
    return name;
  };
  return { task, release: () => release() };
}

describe('KeyedQueue', function () {
  it('runs the tasks of one key one after the other, in order, and those of other keys beside them', async function () {
    const queue = new KeyedQueue();
    const log: string[] = [];
    const [a1, a2, b1] = [gated(log, 'a1'), gated(log, 'a2'), gated(log, 'b1')];
    const answers = [queue.run('a', a1.task), queue.run('a', a2.task), queue.run('b', b1.task)];
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).to.deep.equal(['start a1', 'start b1']);
    a2.release();
    b1.release();
    await answers[2];
    expect(log).to.deep.equal(['start a1', 'start b1', 'end b1']);
    a1.release();
    expect(await Promise.all(answers)).to.deep.equal(['a1', 'a2', 'b1']);
    expect(log).to.deep.equal(['start a1', 'start b1', 'end b1', 'end a1', 'start a2', 'end a2']);
    expect(queue.size).to.equal(0);
  });

  it('starts the next task of a key after one that failed, and answers each its own outcome', async function () {
    const queue = new KeyedQueue();
    const failed = queue.run('a', () => Promise.reject(new Error('refused')));
    const next = queue.run('a', () => Promise.resolve(2));
    const error = await failed.then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(error?.message).to.equal('refused');
    expect(await next).to.equal(2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(queue.size).to.equal(0);
  });
});
