import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { startTestGateway } from '../gateway/testing/harness.ts';
import { createHash } from 'node:crypto';
import { KEYED_CHAIN, canonicalJson } from '../platform/audit/hashChain.ts';
import { startSealer } from '../platform/audit/seals.ts';
import { loadConfig } from '../platform/config.ts';
import { openEventStore } from '../platform/eventstore/index.ts';
import type { EventMetadata } from '../platform/eventstore/port.ts';
import { runScript } from './testing/runScript.ts';
import { runVerify } from './verify.ts';
import type { ScriptIo } from './scriptIo.ts';
import { openSqliteFile } from '../platform/testing/sqliteFile.ts';

function capture(): ScriptIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l) };
}

describe('npm run verify', function () {
  let dataDir: string;
  let username: string;

  beforeEach(async function () {
    const gw = await startTestGateway();
    const user = await gw.user('ada');
    await user.post('/personalize/createwatchlist', ['NVDA', 'AAPL', 'MSFT']);
    await user.post('/personalize/delstkwatchlist/AAPL');
    username = user.username;
    dataDir = gw.dataDir;
    await gw.close({ keepData: true });
    // The seal a minute later (or at the next start) covers these events.
    const events = await openEventStore(loadConfig({ DATA_DIR: dataDir }));
    const sealer = startSealer(events, { intervalMs: 3_600_000 });
    await sealer.sealNow();
    await sealer.stop();
    await events.close();
  });
  afterEach(function () {
    rmSync(dataDir, { recursive: true, force: true });
  });

  function tamper(sql: string, ...params: unknown[]): { id: string } {
    const db = openSqliteFile(join(dataDir, 'events.db'));
    try {
      const row = db
        .prepare('SELECT id FROM events WHERE stream = ? AND revision = 2')
        .get(`watchlist-${username}`) as { id: string };
      db.prepare(sql).run(...params);
      return row;
    } finally {
      db.close();
    }
  }

  it('prints chain intact with the counts and exits 0 on an untouched history', async function () {
    const run = await runScript('verify', [username], { DATA_DIR: dataDir });
    expect(run.code).to.equal(0, run.stderr);
    expect(run.stdout).to.equal('chain intact: 6 events in 2 streams\n');
  });

  it('names the event whose data was changed in the events table and exits 1', async function () {
    const { id } = tamper(
      'UPDATE events SET data = ? WHERE stream = ? AND revision = 2',
      JSON.stringify({ symbol: 'TSLA' }),
      `watchlist-${username}`,
    );
    const run = await runScript('verify', [username], { DATA_DIR: dataDir });
    expect(run.code).to.equal(1);
    expect(run.stdout).to.equal(
      `first break: stream watchlist-${username} revision 2 (event ${id}): hash does not match the event: it was altered\n`,
    );
  });

  it('names a deleted event as missing', async function () {
    tamper('DELETE FROM events WHERE stream = ? AND revision = 1', `watchlist-${username}`);
    const io = capture();
    expect(await runVerify([username], { DATA_DIR: dataDir }, io)).to.equal(1);
    expect(io.lines[0]).to.match(
      new RegExp(
        `^first break: stream watchlist-${username} revision 2 \\(event [0-9a-f-]+\\): revision 2 follows 0: events are missing$`,
      ),
    );
  });

  /** Rewrites one event of the watch list with `data` and a plain SHA-256 hash, as someone without the key can. */
  function rewritePlain(revision: number, data: unknown, keepMarker = false): string {
    const db = openSqliteFile(join(dataDir, 'events.db'));
    try {
      const stream = `watchlist-${username}`;
      const row = db
        .prepare('SELECT id, type, metadata FROM events WHERE stream = ? AND revision = ?')
        .get(stream, revision) as { id: string; type: string; metadata: string };
      const { chain, ...rest } = JSON.parse(row.metadata) as EventMetadata;
      expect(chain).to.equal(KEYED_CHAIN);
      const metadata = keepMarker ? { ...rest, chain } : rest;
      const hash = createHash('sha256')
        .update(canonicalJson({ stream, revision, type: row.type, data, metadata: { ...metadata, hash: undefined } }))
        .digest('hex');
      db.prepare('UPDATE events SET data = ?, metadata = ? WHERE stream = ? AND revision = ?').run(
        JSON.stringify(data),
        JSON.stringify({ ...metadata, hash }),
        stream,
        revision,
      );
      return row.id;
    } finally {
      db.close();
    }
  }

  it('names an event with one byte edited in the store', async function () {
    const { id } = tamper(
      "UPDATE events SET data = replace(data, 'MSFT', 'MSFU') WHERE stream = ? AND revision = 2",
      `watchlist-${username}`,
    );
    const io = capture();
    expect(await runVerify([username], { DATA_DIR: dataDir }, io)).to.equal(1);
    expect(io.lines[0]).to.equal(
      `first break: stream watchlist-${username} revision 2 (event ${id}): hash does not match the event: it was altered`,
    );
  });

  const plainRewrites: [string, number, boolean, string][] = [
    [
      'an edited field whose plain hash was recomputed',
      1,
      false,
      'plain hash after keyed events: rewritten without the chain key',
    ],
    [
      'an edited field whose plain hash was recomputed under the keyed mark',
      1,
      true,
      'hash does not match the event: it was altered',
    ],
    [
      'a first event re-chained with a plain hash, written after the log was keyed',
      0,
      false,
      'plain hash on an event written after the log was keyed: rewritten without the chain key',
    ],
  ];
  for (const [what, revision, keepMarker, reason] of plainRewrites) {
    it(`names ${what}`, async function () {
      const id = rewritePlain(revision, { symbol: 'TSLA' }, keepMarker);
      const io = capture();
      expect(await runVerify([username], { DATA_DIR: dataDir }, io)).to.equal(1);
      expect(io.lines[0]).to.equal(
        `first break: stream watchlist-${username} revision ${revision} (event ${id}): ${reason}`,
      );
    });
  }

  it('names a deleted last event: the stream is shorter than its seal', async function () {
    const db = openSqliteFile(join(dataDir, 'events.db'));
    const stream = `watchlist-${username}`;
    const kept = db.prepare('SELECT id FROM events WHERE stream = ? AND revision = 2').get(stream) as { id: string };
    db.prepare('DELETE FROM events WHERE stream = ? AND revision = 3').run(stream);
    db.close();
    const io = capture();
    expect(await runVerify([username], { DATA_DIR: dataDir }, io)).to.equal(1);
    expect(io.lines[0]).to.equal(
      `first break: stream ${stream} revision 3 (event ${kept.id}): the stream ends at revision 2 but was sealed at revision 3: events were deleted`,
    );
  });

  it('names a seal that was edited', async function () {
    const db = openSqliteFile(join(dataDir, 'events.db'));
    db.prepare(
      "UPDATE events SET data = replace(data, '\"revision\":3', '\"revision\":2') WHERE stream = 'seals'",
    ).run();
    db.close();
    const io = capture();
    expect(await runVerify([username], { DATA_DIR: dataDir }, io)).to.equal(1);
    expect(io.lines[0]).to.match(
      /^first break: stream seals revision \d+ \(event [0-9a-f-]+\): hash does not match the event/,
    );
  });

  it('cannot check keyed hashes without the key the log was written with', async function () {
    const io = capture();
    expect(
      await runVerify([username], { DATA_DIR: dataDir, CHAIN_KEY: 'another-key-of-at-least-32-characters' }, io),
    ).to.equal(1);
    expect(io.lines[0]).to.match(/hash does not match the event: it was altered$/);
  });

  const refusals: [string, string[], RegExp][] = [
    ['an unknown user', ['nosuchuser'], /^verify refused: no user "nosuchuser"$/],
    ['a name that is no username', ['No Such'], /^verify refused: "No Such" is not a username/],
    ['no username', [], /^usage: npm run verify -- <username>$/],
  ];
  for (const [what, args, message] of refusals) {
    it(`refuses ${what} with exit code 2`, async function () {
      const io = capture();
      expect(await runVerify(args, { DATA_DIR: dataDir }, io)).to.equal(2);
      expect(io.errors[0]).to.match(message);
    });
  }
});
