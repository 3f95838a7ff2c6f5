/**
 * `npm start`'s process, stopped with SIGTERM, exits with code 0 once everything is closed, even when a library
 * leaves a handle open after the stop (here a timer a preloaded module keeps, as a pooled connection would).
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MARKET_DB_FILE } from '../engine/marketdata/store.ts';
import { loadConfig } from '../platform/config.ts';
import { marketTemplate, TEST_MARKET_DATE } from './testing/harness.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('stopping the process', function () {
  it('exits with code 0 after "stopped", although a handle is left open', async function () {
    this.timeout(120_000);
    const dataDir = mkdtempSync(join(tmpdir(), 'sp-stop-'));
    copyFileSync(marketTemplate(loadConfig({}).marketSeed), join(dataDir, MARKET_DB_FILE));
    try {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', '--import', 'data:text/javascript,setInterval(() => {}, 60000)', 'scripts/start.ts'],
        {
          cwd: root,
          env: { ...process.env, PORT: '0', DATA_DIR: dataDir, TICK_SOURCE: 'feed', MARKET_AS_OF: TEST_MARKET_DATE },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let output = '';
      const listening = new Promise<void>((resolve) => {
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes('StockPulse listening on')) resolve();
        });
      });
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      await Promise.race([listening, exited]);
      const stoppedAt = Date.now();
      child.kill('SIGTERM');
      const code = await exited;
      expect(code, output.slice(-2000)).to.equal(0);
      expect(output).to.include('"msg":"stopped"');
      expect(output).to.include('exiting with handles still open after stopping');
      expect(output).not.to.include('shutdown took too long');
      expect(Date.now() - stoppedAt).to.be.below(9000);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
