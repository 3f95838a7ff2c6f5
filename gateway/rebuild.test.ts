import { join } from 'node:path';
import { expect } from 'chai';
import { startTestGateway, type TestGateway } from './testing/harness.ts';
import { comparePositions, type LogPosition } from '../platform/eventstore/port.ts';
import { openSqliteReadModelStore, type SqliteReadModelStore } from '../platform/readmodels/sqlite.ts';
import { ALL_PROJECTIONS } from '../projections/index.ts';
import { compareReadModels, firstDifference, rebuildReadModels } from '../projections/rebuild.ts';
import { openSqliteFile } from '../platform/testing/sqliteFile.ts';

describe('rebuild of the read models', function () {
  let gw: TestGateway;
  let fresh: SqliteReadModelStore;
  let live: SqliteReadModelStore;
  let users: string[];

  beforeEach(async function () {
    gw = await startTestGateway();
    fresh = openSqliteReadModelStore({ file: ':memory:' });
    const ada = await gw.user('ada');
    const bob = await gw.user('bob');
    await ada.post('/personalize/createwatchlist', ['NVDA', 'AAPL', 'MSFT']);
    await ada.post('/personalize/delstkwatchlist/AAPL');
    await bob.post('/personalize/createwatchlist', ['XOM']);
    users = [ada.username, bob.username];
    // The live read models as a separate reader of the file sees them (the gateway keeps its own cache).
    live = openSqliteReadModelStore({ file: join(gw.dataDir, 'readmodels.db') });
  });
  afterEach(async function () {
    await fresh.close();
    await live.close();
    await gw.close();
  });

  /** Changes the live read-model file behind the running gateway's back, as a disk fault or a stray edit would. */
  function corrupt(sql: string, ...params: unknown[]): void {
    const db = openSqliteFile(join(gw.dataDir, 'readmodels.db'));
    db.prepare(sql).run(...params);
    db.close();
  }

  async function rebuildAndCompare(head?: LogPosition) {
    const result = await rebuildReadModels(gw.running.system.events, fresh);
    return { result, comparison: await compareReadModels(live, fresh, head ?? result.head) };
  }

  it('replays every event into every projection and finds the live read models identical, positions included', async function () {
    const { result, comparison } = await rebuildAndCompare();
    const head = await gw.running.system.events.headPosition();
    expect(comparePositions(result.head, head)).to.equal(0);
    expect(result.events).to.equal(head.commit);
    expect(result.documents).to.deep.include({ accounts: 2, watchlist: 2 });
    expect(comparison.differences).to.deep.equal([]);
    const watchlist = comparison.collections.find((c) => c.collection === 'watchlist')!;
    expect(watchlist).to.deep.include({ compared: 2, differences: 0, skipped: 0, liveBehind: false });
    expect(comparison.collections.map((c) => c.collection)).to.deep.equal(ALL_PROJECTIONS.map((p) => p.name));
    expect(await fresh.get('watchlist', users[0]!)).to.deep.equal(await live.get('watchlist', users[0]!));
  });

  it('leaves checkpoints at the head with each projection version, so the fresh store could serve at once', async function () {
    const { result } = await rebuildAndCompare();
    const checkpoints = await fresh.listCheckpoints();
    for (const projection of ALL_PROJECTIONS) {
      expect(checkpoints.get(`projection:${projection.name}`)).to.deep.equal({
        position: result.head,
        version: projection.version,
      });
    }
  });

  it('reports a changed document with its collection, key and first differing path', async function () {
    const stored = (await live.get<{ value: { symbols: string[] } }>('watchlist', users[0]!))!;
    corrupt(
      'UPDATE documents SET doc = ? WHERE collection = ? AND key = ?',
      JSON.stringify({ ...stored, value: { symbols: ['NVDA', 'TSLA'] } }),
      'watchlist',
      users[0],
    );
    const { comparison } = await rebuildAndCompare();
    expect(
      comparison.differences.map(({ collection, key, kind, path }) => ({ collection, key, kind, path })),
    ).to.deep.equal([{ collection: 'watchlist', key: users[0], kind: 'changed', path: 'value.symbols[1]' }]);
    expect(comparison.collections.find((c) => c.collection === 'watchlist')!.differences).to.equal(1);
  });

  it('reports a document whose position differs although its value is the same', async function () {
    const stored = (await live.get<{ position: LogPosition }>('watchlist', users[1]!))!;
    const earlier = { commit: stored.position.commit - 1, prepare: stored.position.prepare - 1 };
    corrupt(
      'UPDATE documents SET doc = ? WHERE collection = ? AND key = ?',
      JSON.stringify({ ...stored, position: earlier }),
      'watchlist',
      users[1],
    );
    const { comparison } = await rebuildAndCompare();
    expect(comparison.differences.map((d) => [d.key, d.path])).to.deep.equal([[users[1], 'position.commit']]);
  });

  it('reports a document missing from the live store and one the log does not make', async function () {
    corrupt('DELETE FROM documents WHERE collection = ? AND key = ?', 'accounts', users[1]);
    corrupt(
      'INSERT INTO documents (collection, key, doc) VALUES (?, ?, ?)',
      'watchlist',
      'ghost',
      JSON.stringify({ position: { commit: 1, prepare: 1 }, value: { symbols: ['NVDA'] } }),
    );
    const { comparison } = await rebuildAndCompare();
    expect(comparison.differences.map(({ collection, key, kind }) => ({ collection, key, kind }))).to.deep.equal([
      { collection: 'accounts', key: users[1], kind: 'missing' },
      { collection: 'watchlist', key: 'ghost', kind: 'extra' },
    ]);
  });

  it('finds one alert document per alert identical, after firings and deletions, and marks a live projection of another version', async function () {
    const user = await gw.user('alerts');
    const made: string[] = [];
    for (const close of [190, 200, 210]) {
      const res = await user.post('/personalize/stockalerts', { symbol: 'AAPL', close, alerttype: 'U' });
      made.push((res.body as { id: string }).id);
    }
    await user.post(`/personalize/deletealert/${made[1]!}`);
    await user.post(`/personalize/stockalerts/${made[2]!}/pause`);
    const { result, comparison } = await rebuildAndCompare();
    expect(comparison.differences).to.deep.equal([]);
    expect(result.documents).to.deep.include({ alerts: 2 });
    expect((await live.list('alerts', { prefix: `${user.username}/` })).map((d) => d.key).sort()).to.deep.equal(
      [made[0], made[2]].map((id) => `${user.username}/${id}`).sort(),
    );
    expect(comparison.collections.find((c) => c.collection === 'alerts')).to.deep.include({ liveBehind: false });
    // A live store still of the earlier version (one document per user) differs everywhere, and says why.
    corrupt("UPDATE checkpoints SET version = 2 WHERE consumer = 'projection:alerts'");
    corrupt(
      'INSERT INTO documents (collection, key, doc) VALUES (?, ?, ?)',
      'alerts',
      user.username,
      JSON.stringify({ position: { commit: 1, prepare: 1 }, value: { alerts: [] } }),
    );
    const stale = await compareReadModels(live, fresh, result.head);
    expect(stale.differences.map((d) => d.key)).to.deep.equal([user.username]);
    expect(stale.collections.find((c) => c.collection === 'alerts')).to.deep.include({ liveBehind: true });
  });

  it('skips a live document that reflects events after the head the replay stopped at', async function () {
    const { result } = await rebuildAndCompare();
    const carol = await gw.user('carol');
    await carol.post('/personalize/createwatchlist', ['IBM']);
    const comparison = await compareReadModels(live, fresh, result.head);
    expect(comparison.differences).to.deep.equal([]);
    expect(comparison.collections.find((c) => c.collection === 'watchlist')!.skipped).to.equal(1);
  });

  it('replaces what the target held of the projections on a second rebuild', async function () {
    await fresh.commit('projection:watchlist', { position: { commit: 1, prepare: 1 }, version: 1 }, [
      { collection: 'watchlist', key: 'stale', doc: { position: { commit: 1, prepare: 1 }, value: { symbols: [] } } },
    ]);
    const { comparison } = await rebuildAndCompare();
    expect(comparison.differences).to.deep.equal([]);
    expect(await fresh.get('watchlist', 'stale')).to.equal(undefined);
  });

  it('reports its progress page by page up to the head', async function () {
    const seen: number[] = [];
    const result = await rebuildReadModels(gw.running.system.events, fresh, ALL_PROJECTIONS, {
      pageSize: 3,
      onProgress: (p) => seen.push(p.events),
    });
    expect(seen.length).to.be.greaterThan(2);
    expect(seen.at(-1)).to.equal(result.events);
    expect([...seen].sort((a, b) => a - b)).to.deep.equal(seen);
  });
});

describe('first difference of two documents', function () {
  const cases: [string, unknown, unknown, string | null][] = [
    ['equal nested values', { a: [1, { b: 'x' }] }, { a: [1, { b: 'x' }] }, null],
    ['a changed array item', { a: [1, 2] }, { a: [1, 3] }, 'a[1]'],
    ['a longer array', { a: [1] }, { a: [1, 2] }, 'a[1]'],
    ['a key on one side only', { a: 1 }, { a: 1, b: 2 }, 'b'],
    ['a changed type', { a: '1' }, { a: 1 }, 'a'],
    ['an object against null', { a: {} }, { a: null }, 'a'],
    ['different roots', 1, 2, '(document)'],
  ];
  for (const [what, a, b, path] of cases) {
    it(`names ${path ?? 'nothing'} for ${what}`, function () {
      expect(firstDifference(a, b)).to.equal(path);
    });
  }
});
