import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { startTestGateway } from '../gateway/testing/harness.ts';
import { eventHash } from '../platform/audit/hashChain.ts';
import type { EventMetadata } from '../platform/eventstore/port.ts';
import { runScript } from './testing/runScript.ts';
import { runVerify } from './verify.ts';
import type { ScriptIo } from './scriptIo.ts';

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
  });
  afterEach(function () {
    rmSync(dataDir, { recursive: true, force: true });
  });

  function tamper(sql: string, ...params: unknown[]): { id: string } {
    const db = new Database(join(dataDir, 'events.db'));
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

  it('names the next event when an altered event got a freshly computed hash of its own', async function () {
    const db = new Database(join(dataDir, 'events.db'));
    const stream = `watchlist-${username}`;
    const row = db.prepare('SELECT type, metadata FROM events WHERE stream = ? AND revision = 1').get(stream) as {
      type: string;
      metadata: string;
    };
    const data = { symbol: 'TSLA' };
    const metadata = JSON.parse(row.metadata) as EventMetadata;
    const hash = eventHash(stream, 1, row.type, data, metadata);
    db.prepare('UPDATE events SET data = ?, metadata = ? WHERE stream = ? AND revision = 1').run(
      JSON.stringify(data),
      JSON.stringify({ ...metadata, hash }),
      stream,
    );
    db.close();
    const io = capture();
    expect(await runVerify([username], { DATA_DIR: dataDir }, io)).to.equal(1);
    expect(io.lines[0]).to.contain(`stream ${stream} revision 2`);
    expect(io.lines[0]).to.contain('prevHash does not match the hash of the previous event');
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
