import { expect } from 'chai';
import { isDomainError } from '../domain/decider.ts';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../domain/ids.ts';
import { openSqliteEventStore, type SqliteEventStore } from '../platform/eventstore/sqlite.ts';
import type { ReadModelStore } from '../platform/readmodels/port.ts';
import { openSqliteReadModelStore, type SqliteReadModelStore } from '../platform/readmodels/sqlite.ts';
import { startProjections } from './index.ts';
import { RebuildChecks } from './rebuildChecks.ts';

describe('rebuild checks', function () {
  let events: SqliteEventStore;
  let live: SqliteReadModelStore;
  /** Each scratch store the checks opened, and whether it was closed. */
  let scratches: { closed: boolean }[];

  /** Opens a scratch store as the composition root does, remembering whether the check closes it. */
  const scratchReadModels = (): ReadModelStore => {
    const store = openSqliteReadModelStore({ file: ':memory:' });
    const seen = { closed: false };
    scratches.push(seen);
    return new Proxy(store, {
      get: (target, key, receiver) => {
        if (key !== 'close') return Reflect.get(target, key, receiver) as unknown;
        return () => {
          seen.closed = true;
          return target.close();
        };
      },
    });
  };

  beforeEach(async function () {
    scratches = [];
    events = openSqliteEventStore({ file: ':memory:' });
    live = openSqliteReadModelStore({ file: ':memory:' });
    await events.appendToStream(
      'watchlist-ada',
      ['NVDA', 'AAPL', 'MSFT'].map((symbol, i) => ({
        id: uuidV5(`rebuild-checks/${i}`, STOCKPULSE_NAMESPACE),
        type: 'SymbolAddedToWatchlist',
        data: { symbol },
        metadata: { userId: 'ada' },
      })),
    );
    const projections = await startProjections(events, live);
    await projections.caughtUp;
    await projections.stop();
  });
  afterEach(async function () {
    await live.close();
    await events.close();
  });

  it('replays the log into the scratch store it is given, finds the live read models identical and closes it', async function () {
    const checks = new RebuildChecks({ events, readModels: live, scratchReadModels });
    expect(checks.current()).to.equal(null);
    const job = checks.start();
    expect(job.state).to.equal('running');
    await checks.settled();
    expect(checks.current()).to.deep.include({ jobId: job.jobId, state: 'done', processed: 3, total: 3 });
    expect(checks.current()!.differenceCount).to.equal(0);
    expect(checks.current()!.head).to.equal('3/3');
    expect(scratches).to.deep.equal([{ closed: true }]);
  });

  it('finds a live document that differs from the log', async function () {
    const stored = (await live.get<{ value: { symbols: string[] } }>('watchlist', 'ada'))!;
    const checkpoint = (await live.readCheckpoint('projection:watchlist'))!;
    await live.commit('projection:watchlist', checkpoint, [
      { collection: 'watchlist', key: 'ada', doc: { ...stored, value: { symbols: ['NVDA', 'TSLA'] } } },
    ]);
    const checks = new RebuildChecks({ events, readModels: live, scratchReadModels });
    checks.start();
    await checks.settled();
    const done = checks.current()!;
    expect(done.state).to.equal('done');
    expect(done.differences.map(({ collection, key, kind }) => ({ collection, key, kind }))).to.deep.equal([
      { collection: 'watchlist', key: 'ada', kind: 'changed' },
    ]);
  });

  it('refuses a second check while one runs, naming the running job', async function () {
    const checks = new RebuildChecks({ events, readModels: live, scratchReadModels });
    const first = checks.start();
    let refusal: unknown;
    try {
      checks.start();
    } catch (error) {
      refusal = error;
    }
    expect(isDomainError(refusal) && refusal.code).to.equal('conflict');
    expect((refusal as Error).message).to.include(`job ${first.jobId}`);
    await checks.settled();
    expect(checks.start().jobId).to.not.equal(first.jobId);
    await checks.settled();
    expect(scratches).to.have.length(2);
  });

  it('fails the check, saying why, when the scratch store cannot be opened', async function () {
    const checks = new RebuildChecks({
      events,
      readModels: live,
      scratchReadModels: () => {
        throw new Error('no room for a scratch store');
      },
    });
    checks.start();
    await checks.settled();
    expect(checks.current()).to.deep.include({ state: 'failed', error: 'no room for a scratch store' });
    expect(checks.current()!.finishedAt).to.be.a('string');
  });
});
