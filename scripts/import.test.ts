import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { FakeAlpaca, alpacaRow } from '../engine/marketdata/alpacaTesting.ts';
import { MARKET_DB_FILE } from '../engine/marketdata/store.ts';
import { marketTemplate, startTestGateway, TEST_MARKET_DATE, type TestGateway } from '../gateway/testing/harness.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Runs `npm run import -- …args` on a data folder; answers the exit code and both outputs. */
function runImport(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'import.ts'), ...args], {
    cwd: root,
    env: { ...process.env, MARKET_AS_OF: TEST_MARKET_DATE, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** Five trading days as Alpaca rows of a symbol, closing from `price` up. */
function week(price: number) {
  return ['2025-03-10', '2025-03-11', '2025-03-12', '2025-03-13', '2025-03-14'].map((d, i) => alpacaRow(d, price + i));
}

describe('npm run import -- provider alpaca', function () {
  this.timeout(180_000);
  let alpaca: FakeAlpaca;
  let dataDir: string;
  let env: Record<string, string>;
  beforeEach(async function () {
    alpaca = new FakeAlpaca();
    await alpaca.start();
    dataDir = mkdtempSync(join(tmpdir(), 'sp-import-'));
    copyFileSync(marketTemplate(42), join(dataDir, MARKET_DB_FILE));
    env = { DATA_DIR: dataDir, ALPACA_KEY_ID: 'key-id', ALPACA_SECRET_KEY: 'secret', ALPACA_DATA_URL: alpaca.url };
  });
  afterEach(async function () {
    await alpaca.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('imports a symbol outside the universe that a user can then chart, watch and alert on', async function () {
    alpaca.answer(
      { body: { bars: { ZZZT: week(10).slice(0, 3) }, next_page_token: 'page2' } },
      { status: 429, headers: { 'retry-after': '0' }, body: { message: 'rate limit exceeded' } },
      { body: { bars: { ZZZT: week(10).slice(3) }, next_page_token: null } },
    );
    const run = await runImport(
      ['provider', 'alpaca', '--symbols', 'zzzt', '--from', '2025-03-10', '--name', 'Zed Tools Inc.'],
      env,
    );
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.equal(
      'ZZZT: 5 bars imported, 2025-03-10 to 2025-03-14 (not in the shipped universe: listed)\n',
    );
    expect(run.stderr).to.match(/fetching daily bars from alpaca \[#+\] 100%/);
    expect(alpaca.requests.map((r) => r.searchParams.get('page_token'))).to.deep.equal([null, 'page2', 'page2']);

    let gw: TestGateway | undefined;
    try {
      gw = await startTestGateway({ dataDir });
      const user = await gw.user();
      const { bars } = await user.getOk<{ bars: { date: string; close: number }[] }>('/api/bars/ZZZT?months=1');
      expect(bars.map((b) => [b.date, b.close])).to.deep.equal(week(10).map((r) => [r.t.slice(0, 10), r.c]));
      expect((await user.post('/personalize/createwatchlist', ['ZZZT'])).body).to.deep.equal(['ZZZT']);
      const alert = await user.post('/personalize/stockalerts', { symbol: 'ZZZT', close: 20, alerttype: 'U' });
      expect(alert.status, alert.text).to.equal(200);
      const fired = await gw.pushTicks([{ symbol: 'ZZZT', price: 21 }]);
      expect(fired.filter((t) => t.userId === user.username)).to.have.length(1);
      // A symbol neither shipped nor imported stays unknown.
      await user.getRefused('/api/bars/ZZZQ', 'params.symbol');
    } finally {
      await gw?.close({ keepData: true });
    }
  });

  it('refuses a bad row naming it, and writes nothing', async function () {
    alpaca.answer({
      body: { bars: { AAPL: week(200), MSFT: [alpacaRow('2025-03-10', 380, { v: 1.5 })] }, next_page_token: null },
    });
    const run = await runImport(['provider', 'alpaca', '--symbols', 'AAPL,MSFT'], env);
    expect(run.code).to.equal(1);
    expect(run.stderr).to.contain('import refused, nothing written: page 1: bars.MSFT[0].v: must be a whole number');
    let gw: TestGateway | undefined;
    try {
      gw = await startTestGateway({ dataDir });
      expect(gw.running.system.market.status().source).to.equal('simulated');
    } finally {
      await gw?.close({ keepData: true });
    }
  });

  for (const [what, args, message] of [
    ['no symbols', ['provider', 'alpaca'], '--symbols is needed'],
    ['an unknown provider', ['provider', 'polygon', '--symbols', 'AAPL'], 'the provider must be one of alpaca'],
    ['a bad date', ['provider', 'alpaca', '--symbols', 'AAPL', '--from', '2025-02-30'], '--from must be a YYYY-MM-DD'],
    ['a bad symbol', ['provider', 'alpaca', '--symbols', 'AAPL,A$B'], '--symbols: "A$B" is not a symbol'],
    ['a sector of no symbol', ['provider', 'alpaca', '--symbols', 'A,B', '--sector', 'Energy'], 'import it alone'],
  ] as const) {
    it(`refuses ${what} with the usage`, async function () {
      const run = await runImport(args, env);
      expect(run.code).to.equal(1);
      expect(run.stderr).to.contain(message);
      expect(run.stderr).to.contain('usage: npm run import');
      expect(alpaca.requests).to.deep.equal([]);
    });
  }

  it('needs both Alpaca keys', async function () {
    const run = await runImport(['provider', 'alpaca', '--symbols', 'AAPL'], { ...env, ALPACA_SECRET_KEY: '' });
    expect(run.code).to.equal(1);
    expect(run.stderr).to.contain('ALPACA_SECRET_KEY must be set to import bars from Alpaca');
  });
});
