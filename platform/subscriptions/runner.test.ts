import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { comparePositions, type EventData } from '../eventstore/port.ts';
import { openSqliteEventStore, type SqliteEventStore } from '../eventstore/sqlite.ts';
import type { ReadModelStore } from '../readmodels/port.ts';
import { openSqliteReadModelStore, type SqliteReadModelStore } from '../readmodels/sqlite.ts';
import { IDLE_CHECKPOINT_MS, measureLag, startConsumer } from './runner.ts';
import { countingConsumer } from './testing/countingConsumer.ts';

const worker = fileURLToPath(new URL('./testing/consumerWorker.ts', import.meta.url));

const events = (n: number): EventData[] =>
  Array.from({ length: n }, (_, i) => ({
    id: randomUUID(),
    type: 'Counted',
    data: { i },
  }));

describe('Checkpointed subscription runner', function () {
  let dir: string;
  let store: SqliteEventStore;
  let readModels: SqliteReadModelStore;

  beforeEach(function () {
    dir = mkdtempSync(join(tmpdir(), 'sp-runner-'));
    store = openSqliteEventStore({ file: join(dir, 'events.db') });
    readModels = openSqliteReadModelStore({ file: join(dir, 'readmodels.db') });
  });

  afterEach(async function () {
    await store.close();
    await readModels.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies the history, then live events, and resumes from its checkpoint after a restart', async function () {
    await store.appendToStream('count-a', events(5));
    await store.appendToStream('other-a', events(3));
    const first = await startConsumer(store, readModels, countingConsumer('counter', 'count-'));
    await first.caughtUp;
    expect(await readModels.get('counter-counts', 'count-a')).to.deep.equal({
      count: 5,
      last: 4,
    });
    const live = await store.appendToStream('count-b', events(2));
    await first.waitFor(live.position);
    expect(await readModels.get('counter-counts', 'count-b')).to.deep.equal({
      count: 2,
      last: 1,
    });
    await first.stop();

    await store.appendToStream('count-a', events(3));
    const second = await startConsumer(store, readModels, countingConsumer('counter', 'count-'));
    await second.caughtUp;
    expect(await readModels.get('counter-counts', 'count-a')).to.deep.equal({
      count: 8,
      last: 7,
    });
    expect((await second.lag()).applied).to.equal(3);
    await second.stop();
  });

  it('clears the documents a consumer without a checkpoint left behind, then replays the whole log', async function () {
    await store.appendToStream('count-a', events(2));
    // The checkpoint is gone (a store that lost it), its documents are not.
    await readModels.commit('counter', { position: { commit: 99, prepare: 99 }, version: 1 }, [
      { collection: 'counter-counts', key: 'count-a', doc: { count: 7, last: 6 } },
      { collection: 'counter-counts', key: 'count-gone', doc: { count: 1, last: 0 } },
    ]);
    await readModels.reset('counter', []);
    const runner = await startConsumer(store, readModels, countingConsumer('counter', 'count-'));
    await runner.caughtUp;
    expect(await readModels.list('counter-counts')).to.deep.equal([{ key: 'count-a', doc: { count: 2, last: 1 } }]);
    await runner.stop();
  });

  it('stores the checkpoint past filtered-out events', async function () {
    await store.appendToStream('count-a', events(2));
    const last = await store.appendToStream('other-a', events(3));
    const runner = await startConsumer(store, readModels, countingConsumer('counter', 'count-'));
    await runner.caughtUp;
    expect(comparePositions(runner.checkpoint(), last.position)).to.equal(0);
    expect((await readModels.readCheckpoint('counter'))?.position).to.deep.equal(last.position);
    await runner.stop();
  });

  it('commits a live checkpoint past skipped events later, in one commit, or at once when someone waits', async function () {
    const runner = await startConsumer(store, readModels, countingConsumer('counter', 'count-'));
    await runner.caughtUp;
    const before = runner.checkpoint();
    let skipped = await store.appendToStream('other-a', events(1));
    for (let i = 0; i < 4; i += 1) skipped = await store.appendToStream('other-a', events(1));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(comparePositions(runner.checkpoint(), before), 'held back while idle').to.equal(0);
    await new Promise((resolve) => setTimeout(resolve, IDLE_CHECKPOINT_MS + 50));
    expect(comparePositions(runner.checkpoint(), skipped.position)).to.equal(0);

    const waited = await store.appendToStream('other-a', events(1));
    const started = Date.now();
    await runner.waitFor(waited.position);
    expect(Date.now() - started, 'a waiter does not wait for the idle delay').to.be.below(IDLE_CHECKPOINT_MS);
    await runner.stop();
  });

  it('commits the checkpoints several consumers held back while idle together, in one turn of the loop (one group commit), however far apart they began to wait', async function () {
    // The process's idle timer may still be pending for a consumer of the test before: it would commit the
    // checkpoint held here early.
    await new Promise((resolve) => setTimeout(resolve, IDLE_CHECKPOINT_MS + 20));
    // Each commit asked for, with the turn of the event loop it was asked in.
    const commits: { consumer: string; commit: number; turn: number }[] = [];
    let turns = 0;
    let turn: number | undefined;
    let committedBoth!: () => void;
    const both = new Promise<void>((resolve) => (committedBoth = resolve));
    let idleAt = Infinity;
    const counted = new Proxy(readModels, {
      get(target, prop) {
        if (prop === 'commit') {
          return (...args: Parameters<SqliteReadModelStore['commit']>) => {
            if (turn === undefined) {
              turn = ++turns;
              setImmediate(() => (turn = undefined));
            }
            commits.push({ consumer: args[0], commit: args[1].position.commit, turn });
            if (commits.filter((c) => c.commit >= idleAt).length === 2) committedBoth();
            return target.commit(...args);
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const first = await startConsumer(store, counted, countingConsumer('first', 'count-'));
    const second = await startConsumer(store, counted, countingConsumer('second', 'tally-'));
    await Promise.all([first.caughtUp, second.caughtUp]);
    // An event the second applies (and commits at once) and the first skips: the first holds its checkpoint.
    const early = await store.appendToStream('tally-a', events(1));
    await second.waitFor(early.position);
    // Some milliseconds later, so that timers of their own would fall apart, an event both skip.
    await new Promise((resolve) => setTimeout(resolve, 30));
    const late = await store.appendToStream('other-a', events(1));
    idleAt = late.position.commit;
    await both;
    const idle = commits.filter((c) => c.commit >= idleAt);
    expect(idle.map((c) => c.consumer).sort()).to.deep.equal(['first', 'second']);
    expect(idle[0]!.turn, 'in the same turn').to.equal(idle[1]!.turn);
    expect(
      commits.filter((c) => c.consumer === 'first' && c.commit < idleAt),
      'the first held its checkpoint past the early event',
    ).to.deep.equal([]);
    await Promise.all([first.stop(), second.stop()]);
    expect(comparePositions(first.checkpoint(), late.position)).to.equal(0);
    expect(comparePositions(second.checkpoint(), late.position)).to.equal(0);
  });

  it('commits an event applied while the commit before it is under way', async function () {
    // The real store, its next commit held at a gate the test opens.
    let held: { entered: () => void; release: Promise<void> } | undefined;
    const slow = new Proxy(readModels, {
      get(target, prop) {
        if (prop === 'commit') {
          return async (...args: Parameters<SqliteReadModelStore['commit']>) => {
            const gate = held;
            held = undefined;
            if (gate) {
              gate.entered();
              await gate.release;
            }
            return target.commit(...args);
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    // The second event's handler waits until the commit of the first has started.
    const counting = countingConsumer('counter', 'count-');
    let secondStarted!: () => void;
    const secondStarting = new Promise<void>((resolve) => (secondStarted = resolve));
    let finishSecond!: () => void;
    const secondMayFinish = new Promise<void>((resolve) => (finishSecond = resolve));
    let secondDone!: () => void;
    const secondHandled = new Promise<void>((resolve) => (secondDone = resolve));
    let failed!: (error: Error) => void;
    const failure = new Promise<never>((_, reject) => (failed = reject));
    const runner = await startConsumer(
      store,
      slow,
      {
        ...counting,
        handle: async (event, tx) => {
          if (event.streamId === 'count-b' && event.revision === 1) {
            secondStarted();
            await secondMayFinish;
            try {
              await counting.handle(event, tx);
            } finally {
              secondDone();
            }
            return;
          }
          await counting.handle(event, tx);
        },
      },
      { onError: (error) => failed(error) },
    );
    await runner.caughtUp;
    let open!: () => void;
    const entered = new Promise<void>((resolve) => {
      held = { entered: resolve, release: new Promise<void>((r) => (open = r)) };
    });
    const written = await store.appendToStream('count-b', events(2));
    await Promise.all([secondStarting, entered]);
    finishSecond();
    await secondHandled;
    // The runner schedules its commit of the second event while the first's is still held.
    for (let i = 0; i < 3; i += 1) await new Promise((resolve) => setImmediate(resolve));
    open();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      runner.waitFor(written.position),
      failure,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('the second event was never committed')), 5000);
      }),
    ]).finally(() => clearTimeout(timer));
    expect(await readModels.get('counter-counts', 'count-b')).to.deep.equal({ count: 2, last: 1 });
    expect((await readModels.readCheckpoint('counter'))?.position).to.deep.equal(written.position);
    await runner.stop();
  });

  it('rebuilds from the start when its version changes', async function () {
    await store.appendToStream('count-a', events(4));
    const v1 = await startConsumer(store, readModels, countingConsumer('counter', 'count-', 1));
    await v1.caughtUp;
    await v1.stop();
    await readModels.commit('counter', { position: v1.checkpoint(), version: 1 }, [
      {
        collection: 'counter-counts',
        key: 'stale',
        doc: { count: 99, last: 98 },
      },
    ]);
    const v2 = await startConsumer(store, readModels, countingConsumer('counter', 'count-', 2));
    await v2.caughtUp;
    expect(await readModels.get('counter-counts', 'stale')).to.equal(undefined);
    expect(await readModels.get('counter-counts', 'count-a')).to.deep.equal({
      count: 4,
      last: 3,
    });
    await v2.stop();
  });

  it('reports its lag: behind with an age while events wait, not behind once committed', async function () {
    await store.appendToStream('count-a', events(3));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const counting = countingConsumer('counter', 'count-');
    const runner = await startConsumer(store, readModels, {
      ...counting,
      handle: async (event, tx) => {
        await gate;
        await counting.handle(event, tx);
      },
    });
    await new Promise((r) => setTimeout(r, 30));
    const waiting = await runner.lag();
    expect(waiting.behind).to.equal(true);
    expect(waiting.lagMs).to.be.at.least(25);
    release();
    await runner.caughtUp;
    const done = await runner.lag();
    expect(done.behind).to.equal(false);
    expect(done.lagMs).to.equal(0);
    expect(done.applied).to.equal(3);
    expect(done.checkpoint).to.deep.equal(await store.headPosition());
    await runner.stop();
  });

  it('is not behind when the only events past its checkpoint are ones it skips, and counts those it takes', async function () {
    const runner = await startConsumer(store, readModels, countingConsumer('counter', 'count-'));
    await runner.caughtUp;
    const before = runner.checkpoint();
    await store.appendToStream('other-a', events(2));
    // Right after the append: the checkpoint past skipped events is committed later, and nothing is to apply.
    const skipped = await runner.lag();
    expect(comparePositions(skipped.head, before)).to.be.above(0);
    expect(skipped).to.deep.include({ behind: false, pending: 0, lagMs: 0 });

    await runner.stop();
    await store.appendToStream('count-a', events(3));
    await store.appendToStream('other-b', events(4));
    const stopped = await measureLag(store, countingConsumer('counter', 'count-'), runner.checkpoint());
    expect(stopped).to.deep.include({ behind: true, pending: 3 });
    expect(stopped.lagMs).to.be.at.least(0);
  });

  it('applies each event at most once when its process is killed with -9 mid-stream', async function () {
    this.timeout(60000);
    const streams = Array.from({ length: 20 }, (_, i) => `crash-${i}`);
    for (let round = 0; round < 50; round++) {
      for (const s of streams) store.appendSync(s, events(3));
    }
    const eventsFile = join(dir, 'events.db');
    const readModelsFile = join(dir, 'readmodels.db');
    for (let attempt = 0; attempt < 3; attempt++) {
      const child = spawn(process.execPath, ['--import', 'tsx', worker, eventsFile, readModelsFile], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise<void>((resolve) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if ((out.match(/commit/g) ?? []).length >= 10) resolve();
        });
        child.on('exit', () => resolve());
      });
      child.kill('SIGKILL');
      await new Promise((r) => child.on('exit', r));
    }
    const runner = await startConsumer(store, readModels, countingConsumer('crashy', 'crash-'), { batchSize: 37 });
    await runner.caughtUp;
    await runner.stop();
    for (const s of streams) {
      expect(await readModels.get('crashy-counts', s)).to.deep.equal({
        count: 150,
        last: 149,
      });
    }
  });

  it('checks the checkpoints of every consumer on one store with one listing per period, and fails the one whose checkpoint is gone', async function () {
    for (const name of ['a', 'b', 'c']) await store.appendToStream(`${name}-1`, events(1));
    let listings = 0;
    let listed!: () => void;
    const firstListing = new Promise<void>((resolve) => (listed = resolve));
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const gated: ReadModelStore = {
      get: (collection, key) => readModels.get(collection, key),
      list: (collection, options) => readModels.list(collection, options),
      readCheckpoint: (consumer) => readModels.readCheckpoint(consumer),
      listCheckpoints: async () => {
        listings += 1;
        listed();
        await gate;
        return readModels.listCheckpoints();
      },
      commit: (consumer, checkpoint, writes) => readModels.commit(consumer, checkpoint, writes),
      reset: (consumer, collections) => readModels.reset(consumer, collections),
      close: () => readModels.close(),
    };
    const errors = new Map<string, Error>();
    const runners = await Promise.all(
      ['a', 'b', 'c'].map((name) =>
        startConsumer(store, gated, countingConsumer(name, `${name}-`), {
          verifyMs: 10,
          onError: (error) => errors.set(name, error),
        }),
      ),
    );
    await Promise.all(runners.map((runner) => runner.caughtUp));
    await firstListing;
    // Five periods: a timer per consumer would have asked for three listings in the first.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(listings).to.equal(1);
    await readModels.reset('b', ['b-counts']);
    const failed = new Promise<void>((resolve) => {
      const poll = (): void => void (errors.has('b') ? resolve() : setImmediate(poll));
      poll();
    });
    open();
    await failed;
    expect([...errors.keys()]).to.deep.equal(['b']);
    expect(errors.get('b')?.name).to.equal('ReadModelStateLostError');
    await Promise.all(runners.map((runner) => runner.stop()));
  });
});

describe('Checkpointed subscription runner failures', function () {
  it('rejects caughtUp and commits nothing past a handler that throws', async function () {
    const dir = mkdtempSync(join(tmpdir(), 'sp-runner-'));
    const store = openSqliteEventStore({ file: join(dir, 'events.db') });
    const readModels = openSqliteReadModelStore({ file: join(dir, 'readmodels.db') });
    await store.appendToStream('count-a', events(3));
    const counting = countingConsumer('counter', 'count-');
    const errors: Error[] = [];
    const runner = await startConsumer(
      store,
      readModels,
      {
        ...counting,
        handle: async (event, tx) => {
          if (event.revision === 2) throw new Error('cannot apply');
          await counting.handle(event, tx);
        },
      },
      { onError: (e) => errors.push(e), batchSize: 1 },
    );
    // Waiting for the failing event's position: answered with the failure, not left waiting for ever.
    const waiting = runner.waitFor({ commit: Number.MAX_SAFE_INTEGER, prepare: Number.MAX_SAFE_INTEGER });
    let rejected: unknown;
    await runner.caughtUp.catch((e: unknown) => (rejected = e));
    expect((rejected as Error).message).to.equal('cannot apply');
    expect(errors).to.have.length(1);
    let waitedFor: unknown;
    await waiting.catch((e: unknown) => (waitedFor = e));
    expect(waitedFor).to.equal(rejected);
    // And so is anyone who comes to wait later.
    let later: unknown;
    await runner.waitFor({ commit: Number.MAX_SAFE_INTEGER, prepare: 0 }).catch((e: unknown) => (later = e));
    expect(later).to.equal(rejected);
    await runner.stop();
    expect(await readModels.get('counter-counts', 'count-a')).to.deep.equal({ count: 2, last: 1 });
    await store.close();
    await readModels.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stops without rejecting when the store refuses its last commit because it lost the consumer', async function () {
    const dir = mkdtempSync(join(tmpdir(), 'sp-runner-'));
    const store = openSqliteEventStore({ file: join(dir, 'events.db') });
    const readModels = openSqliteReadModelStore({ file: join(dir, 'readmodels.db') });
    let open: Promise<void> = Promise.resolve();
    let release!: () => void;
    let asked: (() => void) | undefined;
    const gated: ReadModelStore = {
      get: (collection, key) => readModels.get(collection, key),
      list: (collection, options) => readModels.list(collection, options),
      readCheckpoint: (consumer) => readModels.readCheckpoint(consumer),
      listCheckpoints: () => readModels.listCheckpoints(),
      commit: async (consumer, checkpoint, writes) => {
        asked?.();
        await open;
        return readModels.commit(consumer, checkpoint, writes);
      },
      reset: (consumer, collections) => readModels.reset(consumer, collections),
      close: () => readModels.close(),
    };
    const errors: Error[] = [];
    const runner = await startConsumer(store, gated, countingConsumer('counter', 'count-'), {
      onError: (e) => errors.push(e),
    });
    await runner.waitFor((await store.appendToStream('count-a', events(1))).position);
    // Its next commit waits until the store lost the consumer's checkpoint and documents.
    open = new Promise<void>((resolve) => (release = resolve));
    const commitAsked = new Promise<void>((resolve) => (asked = resolve));
    await store.appendToStream('count-a', events(1));
    await commitAsked;
    const other = openSqliteReadModelStore({ file: join(dir, 'readmodels.db') });
    await other.reset('counter', ['counter-counts']);
    await other.close();
    const stopped = runner.stop();
    release();
    await stopped;
    expect(errors.map((e) => e.name)).to.deep.equal(['ReadModelStateLostError']);
    expect(await readModels.readCheckpoint('counter')).to.equal(null);
    await store.close();
    await readModels.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
