import { expect } from 'chai';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sessionStoreContract } from './sessionStore.contract.ts';
import { openSqliteSessionStore } from './sqlite.ts';

sessionStoreContract('sqlite', () => {
  const store = openSqliteSessionStore(':memory:');
  return Promise.resolve({ store, close: () => store.close() });
});

describe('SQLite session store', function () {
  it('stores a hash of the token, never the token itself', async function () {
    const dir = mkdtempSync(join(tmpdir(), 'sp-sess-'));
    const file = join(dir, 'sessions.db');
    const store = openSqliteSessionStore(file);
    const token = await store.create('ada', ['user'], 60_000);
    await store.close();
    const raw = new Database(file, { readonly: true });
    const rows = raw.prepare('SELECT token_hash FROM sessions').all() as { token_hash: string }[];
    raw.close();
    rmSync(dir, { recursive: true, force: true });
    expect(rows).to.have.length(1);
    expect(rows[0]!.token_hash).to.not.equal(token);
  });
});
