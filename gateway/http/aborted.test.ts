import { expect } from 'chai';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { MARKET_DB_FILE } from '../../engine/marketdata/store.ts';
import { createLogger } from '../../platform/logger.ts';
import { startGateway, type RunningGateway } from '../main.ts';
import { marketTemplate } from '../testing/harness.ts';

describe('a client that aborts its upload', function () {
  const lines: { level: string; msg: string; path?: string }[] = [];
  let running: RunningGateway;
  let dataDir: string;
  before(async function () {
    // The market is built once per test process; on a busy machine that outlasts a test's time.
    this.timeout(180_000);
    dataDir = mkdtempSync(join(tmpdir(), 'sp-abort-'));
    copyFileSync(marketTemplate(42), join(dataDir, MARKET_DB_FILE));
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n')) {
          if (line) lines.push(JSON.parse(line) as { level: string; msg: string });
        }
        done();
      },
    });
    const env = { PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', TICK_SOURCE: 'feed' };
    running = await startGateway(env, createLogger({ level: 'info' }, destination));
  });
  after(async function () {
    await running.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is logged once at info level, with no error line', async function () {
    const port = Number(new URL(running.url).port);
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const before = lines.length;
    socket.write(
      'POST /personalize/stockalertquery HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        'Content-Length: 4000\r\n\r\n{"queryname":"half',
    );
    // Long enough for the server to route the request and start reading its body.
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    const logged = (): typeof lines => lines.slice(before).filter((l) => l.msg !== 'stopped');
    for (let i = 0; i < 200 && logged().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    // A second line for the same abort (the socket's own error) would follow within a few milliseconds.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(logged().map((l) => [l.level, l.msg, l.path])).to.deep.equal([
      ['info', 'client closed the connection before its request was read', '/personalize/stockalertquery'],
    ]);
  });

  it('a request Node cannot parse is logged at info level, without its bytes (a password, a session cookie)', async function () {
    const port = Number(new URL(running.url).port);
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const before = lines.length;
    const answers: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => answers.push(chunk));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    // A length shorter than the body: the rest of it is read as a next request on the connection, which fails.
    socket.write(
      'POST /api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        'Cookie: sid=secret-session-token\r\nContent-Length: 1\r\n\r\n{"username":"pd1x","password":"hunter22x"}',
    );
    await closed;
    expect(Buffer.concat(answers).toString('utf8')).to.match(/^HTTP\/1\.1 400 /);
    const logged = (): typeof lines => lines.slice(before).filter((l) => l.msg !== 'stopped');
    for (let i = 0; i < 200 && logged().length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const text = logged().map((l) => JSON.stringify(l));
    expect(text.join('\n')).not.to.match(/hunter22x|secret-session-token|rawPacket/);
    expect(logged().map((l) => l.level)).not.to.include('error');
    expect(logged().map((l) => l.msg)).to.include('a request the server could not read');
  });
});
