import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { startTestGateway } from '../gateway/testing/harness.ts';
import { progressBar, runRebuild } from './rebuild.ts';
import type { ScriptIo } from './scriptIo.ts';
import { runScript } from './testing/runScript.ts';
import { openSqliteFile } from '../platform/testing/sqliteFile.ts';

function capture(): ScriptIo & { lines: string[]; errors: string[]; bars: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  const bars: string[] = [];
  return { lines, errors, bars, out: (l) => lines.push(l), err: (l) => errors.push(l), progress: (t) => bars.push(t) };
}

describe('npm run rebuild', function () {
  let dataDir: string;
  let username: string;

  beforeEach(async function () {
    const gw = await startTestGateway();
    const user = await gw.user('ada');
    await user.post('/personalize/createwatchlist', ['NVDA', 'AAPL']);
    username = user.username;
    dataDir = gw.dataDir;
    await gw.close({ keepData: true });
  });
  afterEach(function () {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('replays the log, prints the rate and the table, and exits 0 when the live read models match', async function () {
    const run = await runScript('rebuild', [], { DATA_DIR: dataDir });
    expect(run.code).to.equal(0, run.stderr + run.stdout);
    expect(run.stdout).to.match(
      /^replayed 5 events up to 5\/5 through \d+ projections in \d+\.\d\d s: [\d,]+ events\/s$/m,
    );
    expect(run.stdout).to.match(/^watchlist\s+1\s+0\s+0\s+5\/5$/m);
    expect(run.stdout).to.match(/^read models match the log: \d+ documents in \d+ collections$/m);
  });

  it('prints the corrupted document with its first differing path and exits 1', async function () {
    const db = openSqliteFile(join(dataDir, 'readmodels.db'));
    const row = db.prepare("SELECT doc FROM documents WHERE collection = 'watchlist' AND key = ?").get(username) as {
      doc: string;
    };
    const doc = JSON.parse(row.doc) as { value: { symbols: string[] } };
    doc.value.symbols[0] = 'TSLA';
    db.prepare("UPDATE documents SET doc = ? WHERE collection = 'watchlist' AND key = ?").run(
      JSON.stringify(doc),
      username,
    );
    db.close();
    const run = await runScript('rebuild', [], { DATA_DIR: dataDir });
    expect(run.code).to.equal(1);
    expect(run.stdout).to.contain(
      `difference: watchlist "${username}" differs at value.symbols[0]: live "TSLA", rebuilt "NVDA"`,
    );
    expect(run.stdout).to.match(/^1 of \d+ documents differ$/m);
  });

  it('draws a progress bar while it replays', async function () {
    const io = capture();
    expect(await runRebuild([], { DATA_DIR: dataDir }, io)).to.equal(0);
    expect(io.bars.some((b) => b.startsWith('[##############################] 100%  5 events'))).to.equal(
      true,
      io.bars.join('\n'),
    );
  });

  it('shows the share of the log replayed by position', function () {
    const bar = progressBar(
      { events: 50, position: { commit: 50, prepare: 50 }, head: { commit: 200, prepare: 200 } },
      0.5,
    );
    expect(bar).to.equal(`[${'#'.repeat(8)}${'.'.repeat(22)}]  25%  50 events  100 events/s`);
  });

  it('refuses with exit code 2 when there are no live read models to compare with', async function () {
    rmSync(join(dataDir, 'readmodels.db'));
    const io = capture();
    expect(await runRebuild([], { DATA_DIR: dataDir }, io)).to.equal(2);
    expect(io.errors[0]).to.match(/^rebuild refused: no live read models at .*readmodels\.db$/);
  });
});
