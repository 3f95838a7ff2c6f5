import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import Database from 'better-sqlite3';
import { readModelStoreContract } from './readModelStore.contract.ts';
import { openSqliteReadModelStore } from './sqlite.ts';

readModelStoreContract('sqlite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-rm-'));
  const file = join(dir, 'readmodels.db');
  const store = openSqliteReadModelStore({ file });
  return Promise.resolve({
    store,
    openAnother: () => Promise.resolve(openSqliteReadModelStore({ file })),
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
});

describe('SQLite read-model store', function () {
  it('leaves documents and checkpoint untouched when a commit fails half-way', async function () {
    const dir = mkdtempSync(join(tmpdir(), 'sp-rm-'));
    const file = join(dir, 'readmodels.db');
    const store = openSqliteReadModelStore({ file });
    await store.commit('c', { position: { commit: 1, prepare: 1 }, version: 1 }, [
      { collection: 'x', key: 'a', doc: 1 },
    ]);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    let error: unknown;
    try {
      await store.commit('c', { position: { commit: 2, prepare: 2 }, version: 1 }, [
        { collection: 'x', key: 'a', doc: 2 },
        { collection: 'x', key: 'b', doc: cyclic },
      ]);
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(TypeError);
    expect(await store.get('x', 'a')).to.equal(1);
    expect((await store.readCheckpoint('c'))?.position.commit).to.equal(1);
    await store.close();
    const raw = new Database(file, { readonly: true });
    expect(raw.prepare('SELECT count(*) AS n FROM documents').get()).to.deep.equal({ n: 1 });
    raw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('rolls back alone a failing commit written together with others in one turn', async function () {
    const dir = mkdtempSync(join(tmpdir(), 'sp-rm-'));
    const file = join(dir, 'readmodels.db');
    const store = openSqliteReadModelStore({ file });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const at = (n: number) => ({ position: { commit: n, prepare: n }, version: 1 });
    const outcomes = await Promise.allSettled([
      store.commit('one', at(1), [{ collection: 'x', key: 'a', doc: 1 }]),
      store.commit('two', at(2), [
        { collection: 'x', key: 'b', doc: 2 },
        { collection: 'x', key: 'c', doc: cyclic },
      ]),
      store.commit('three', at(3), [{ collection: 'x', key: 'd', doc: 3 }]),
    ]);
    expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).to.be.instanceOf(TypeError);
    expect([await store.get('x', 'a'), await store.get('x', 'b'), await store.get('x', 'd')]).to.deep.equal([
      1,
      undefined,
      3,
    ]);
    expect(await store.readCheckpoint('two')).to.equal(null);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
