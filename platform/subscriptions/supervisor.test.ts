import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { EventData } from '../eventstore/port.ts';
import { openSqliteEventStore, type SqliteEventStore } from '../eventstore/sqlite.ts';
import type { ReadModelStore } from '../readmodels/port.ts';
import { openSqliteReadModelStore, type SqliteReadModelStore } from '../readmodels/sqlite.ts';
import { superviseConsumer } from './supervisor.ts';
import { countingConsumer } from './testing/countingConsumer.ts';

const events = (n: number): EventData[] =>
  Array.from({ length: n }, (_, i) => ({ id: randomUUID(), type: 'Counted', data: { i } }));

/** A store whose commits and checkpoint reads fail while `down` is set, and which counts the reads. */
interface FlakyStore extends ReadModelStore {
  down: boolean;
  /** When each checkpoint read was asked for (a run starting), in ms since the epoch. */
  readonly reads: number[];
}

function flaky(store: SqliteReadModelStore): FlakyStore {
  const offline = () => Promise.reject(new Error('The client is closed (the store is down for this test)'));
  const wrapper: FlakyStore = {
    down: false,
    reads: [],
    get: (collection, key) => store.get(collection, key),
    list: (collection, options) => store.list(collection, options),
    readCheckpoint: (consumer) => {
      wrapper.reads.push(Date.now());
      return wrapper.down ? offline() : store.readCheckpoint(consumer);
    },
    listCheckpoints: () => store.listCheckpoints(),
    commit: (consumer, checkpoint, writes) => (wrapper.down ? offline() : store.commit(consumer, checkpoint, writes)),
    reset: (consumer, collections) => store.reset(consumer, collections),
    close: () => store.close(),
  };
  return wrapper;
}

describe('Supervised consumer', function () {
  let dir: string;
  let log: SqliteEventStore;
  let readModels: SqliteReadModelStore;
  let store: FlakyStore;

  beforeEach(function () {
    dir = mkdtempSync(join(tmpdir(), 'sp-supervisor-'));
    log = openSqliteEventStore({ file: join(dir, 'events.db') });
    readModels = openSqliteReadModelStore({ file: join(dir, 'readmodels.db') });
    store = flaky(readModels);
  });

  afterEach(async function () {
    await log.close();
    await readModels.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts a consumer whose commit failed again from its checkpoint, and its waiters are answered', async function () {
    await log.appendToStream('count-a', events(2));
    const errors: string[] = [];
    const runner = await superviseConsumer(log, store, countingConsumer('counter', 'count-'), {
      restartDelayMs: 10,
      onError: (error) => errors.push(error.message),
    });
    await runner.caughtUp;
    store.down = true;
    const appended = await log.appendToStream('count-a', events(3));
    const answered = runner.waitFor(appended.position);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(errors.length, 'failed, then failed to start again while the store is down').to.be.at.least(2);
    expect(errors[0]).to.contain('the store is down');
    store.down = false;
    await answered;
    expect(await readModels.get('counter-counts', 'count-a')).to.deep.equal({ count: 5, last: 4 });
    expect(runner.checkpoint()).to.deep.equal(appended.position);
    // 2, then 3 in the run whose commit failed, then those 3 again.
    expect((await runner.lag()).applied).to.equal(8);
    await runner.stop();
  });

  it('doubles the delay before each start again up to the longest, and stop() cancels the one pending', async function () {
    await log.appendToStream('count-a', events(1));
    const runner = await superviseConsumer(log, store, countingConsumer('counter', 'count-'), {
      restartDelayMs: 20,
      maxRestartDelayMs: 80,
    });
    await runner.caughtUp;
    store.down = true;
    await log.appendToStream('count-a', events(1));
    while (store.reads.length < 6) await new Promise((resolve) => setTimeout(resolve, 5));
    const gaps = store.reads.slice(2).map((at, i) => at - store.reads[i + 1]!);
    // Timers fire at their delay or later, never earlier.
    expect(gaps.map((gap, i) => gap >= [40, 80, 80, 80][i]! - 2)).to.deep.equal([true, true, true, true]);
    const started = Date.now();
    await runner.stop();
    expect(Date.now() - started, 'stop does not wait for the delay').to.be.below(60);
    const reads = store.reads.length;
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(store.reads.length, 'no start after stop').to.equal(reads);
  });

  it('waits for the delay of its first failure again once a run caught up', async function () {
    const runner = await superviseConsumer(log, store, countingConsumer('counter', 'count-'), {
      restartDelayMs: 20,
      maxRestartDelayMs: 10_000,
    });
    await runner.caughtUp;
    for (let round = 0; round < 2; round++) {
      store.down = true;
      const appended = await log.appendToStream('count-a', events(1));
      const reads = store.reads.length;
      while (store.reads.length < reads + 3) await new Promise((resolve) => setTimeout(resolve, 5));
      store.down = false;
      await runner.waitFor(appended.position);
    }
    const started = Date.now();
    store.down = true;
    const appended = await log.appendToStream('count-a', events(1));
    await new Promise((resolve) => setTimeout(resolve, 5));
    store.down = false;
    await runner.waitFor(appended.position);
    expect(Date.now() - started, 'the first delay, not the last one doubled').to.be.below(1_000);
    expect(await readModels.get('counter-counts', 'count-a')).to.deep.equal({ count: 3, last: 2 });
    await runner.stop();
  });

  it('rejects a waiter when stopped before a run reached its position', async function () {
    const runner = await superviseConsumer(log, store, countingConsumer('counter', 'count-'), {
      restartDelayMs: 60_000,
    });
    await runner.caughtUp;
    store.down = true;
    const appended = await log.appendToStream('count-a', events(1));
    const answer = runner.waitFor(appended.position).then(
      () => 'resolved',
      (error: Error) => error.message,
    );
    await new Promise((resolve) => setTimeout(resolve, 30));
    await runner.stop();
    expect(await answer).to.contain('the store is down');
  });
});
