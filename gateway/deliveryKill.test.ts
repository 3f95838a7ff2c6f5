/**
 * Exactly-once delivery across a crash: the process is killed with SIGKILL while a webhook receiver holds the
 * request unanswered; after a restart on the same data the receiver gets the same delivery again, with the same
 * `Idempotency-Key`, and the log ends with one success for it.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChannelAnswer, DeliveryAnswer } from '../domain/contract/channels.ts';
import type { Quote } from '../domain/market/types.ts';
import { startReceiver, type TestReceiver } from '../engine/delivery/testing/receiver.ts';
import { MARKET_DB_FILE } from '../engine/marketdata/store.ts';
import { openSqliteEventStore } from '../platform/eventstore/sqlite.ts';
import { marketTemplate, TEST_MARKET_DATE, TestClient } from './testing/harness.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const TOKEN = 'feed-token-delivery-kill-0123';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe('delivery across a SIGKILL', function () {
  this.timeout(120_000);
  let dataDir: string;
  let receiver: TestReceiver;
  let child: ChildProcess | undefined;
  let output = '';

  before(async function () {
    dataDir = mkdtempSync(join(tmpdir(), 'sp-kill-'));
    copyFileSync(marketTemplate(42), join(dataDir, MARKET_DB_FILE));
    // The first request is never answered: the process dies waiting for it.
    receiver = await startReceiver((index) => (index === 0 ? 'hang' : 200));
  });
  after(async function () {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited(child);
    }
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  afterEach(function () {
    if (this.currentTest?.state === 'failed') console.error(output.slice(-4000));
  });

  function exited(proc: ChildProcess): Promise<void> {
    if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => proc.once('exit', () => resolve()));
  }

  async function startProcess(port: number): Promise<string> {
    child = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'start.ts')], {
      cwd: root,
      env: {
        ...process.env,
        ROLE: 'all',
        PORT: String(port),
        DATA_DIR: dataDir,
        FEED_TOKEN: TOKEN,
        TICK_SOURCE: 'feed',
        MARKET_AS_OF: TEST_MARKET_DATE,
        WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const url = `http://127.0.0.1:${port}`;
    const proc = child;
    // Ready once it answers; started the way `npm start` starts it.
    const ready = new Promise<void>((resolve, reject) => {
      proc.once('exit', () => reject(new Error(`exited: ${output}`)));
      const probe = (): void => {
        fetch(`${url}/healthz`)
          .then((res) => (res.ok ? resolve() : setTimeout(probe, 100)))
          .catch(() => setTimeout(probe, 100));
      };
      probe();
    });
    await ready;
    return url;
  }

  it('sends the same delivery again after a restart, and records one success', async function () {
    const port = await freePort();
    let url = await startProcess(port);
    const user = new TestClient(url);
    const username = `kill${Date.now().toString(36)}`;
    expect((await user.post('/api/register', { username, password: 'correct horse' })).status).to.equal(201);
    expect((await user.post('/api/login', { username, password: 'correct horse' })).status).to.equal(200);
    const channel = (await user.post('/personalize/channels', { type: 'webhook', url: `${receiver.url}/hook` }))
      .body as ChannelAnswer;
    const [quote] = await user.getOk<Quote[]>('/api/quotes?symbols=AAPL');
    const threshold = Math.round(quote!.price * 100 + 100) / 100;
    const alert = await user.post('/personalize/stockalerts', { symbol: 'AAPL', close: threshold, alerttype: 'U' });
    expect(alert.status, alert.text).to.equal(200);
    const feed = await user.post('/api/feed/ticks', [{ symbol: 'AAPL', price: threshold + 1 }], {
      authorization: `Bearer ${TOKEN}`,
    });
    expect(feed.status, feed.text).to.be.below(300);

    const [first] = await receiver.waitFor(1, 20_000);
    child!.kill('SIGKILL');
    await exited(child!);

    url = await startProcess(port);
    const requests = await receiver.waitFor(2, 30_000);
    expect(requests[1]!.headers['idempotency-key']).to.equal(first!.headers['idempotency-key']);
    expect(requests[1]!.body).to.equal(first!.body);
    const again = new TestClient(url);
    expect((await again.post('/api/login', { username, password: 'correct horse' })).status).to.equal(200);
    const until = Date.now() + 10_000;
    let list: DeliveryAnswer[] = [];
    while (Date.now() < until) {
      list = await again.getOk<DeliveryAnswer[]>('/personalize/deliveries');
      if (list[0]?.status === 'succeeded') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(list).to.have.length(1);
    expect(list[0]).to.include({
      status: 'succeeded',
      attempts: 2,
      channelId: channel.id,
      id: first!.headers['idempotency-key'],
    });

    child!.kill('SIGTERM');
    await exited(child!);
    expect(receiver.requests).to.have.length(2);
    const events = openSqliteEventStore({ file: join(dataDir, 'events.db') });
    try {
      const recorded = await events.readStream(`deliveries-${username}`);
      expect(recorded.map((e) => e.type)).to.deep.equal([
        'DeliveryAttempted',
        'DeliveryAttempted',
        'DeliverySucceeded',
      ]);
    } finally {
      await events.close();
    }
  });
});
