/**
 * The distributed mode end to end: a real `redis-server` and, on loopback, two gateways, one engine and one
 * projections process, each its own Node process started the way `npm start` does, sharing one SQLite log in
 * one data folder. A user connected to gateway A gets the notification of an alert created through gateway
 * B; an engine killed with SIGKILL and restarted loses no trigger and duplicates none.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { io as connect, type Socket } from 'socket.io-client';
import type { MinuteCandles } from '../domain/contract/market.ts';
import type {
  ClientToServerEvents,
  NotificationPush,
  ReadModelChange,
  ServerToClientEvents,
} from '../domain/contract/socket.ts';
import type { Quote } from '../domain/market/types.ts';
import { MARKET_DB_FILE } from '../engine/marketdata/store.ts';
import { startTestRedis, type TestRedis } from '../platform/testing/redisServer.ts';
import { marketTemplate, TEST_MARKET_DATE, TestClient } from './testing/harness.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const TOKEN = 'feed-token-distributed-0123';
const AUTH = { authorization: `Bearer ${TOKEN}` };

/** One StockPulse process of the test. */
interface Proc {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  child: ChildProcess;
  output: string;
}

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

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await Promise.resolve()
      .then(probe)
      .catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('distributed mode (Redis, two gateways, an engine and a projections process)', function () {
  this.timeout(180_000);
  let redis: TestRedis;
  let dataDir: string;
  const procs = new Map<string, Proc>();

  function spawnProc(proc: Omit<Proc, 'child' | 'output'>, role: string): Proc {
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'start.ts')], {
      cwd: root,
      env: {
        ...process.env,
        ROLE: role,
        REDIS_URL: redis.url,
        PORT: String(proc.port),
        DATA_DIR: dataDir,
        FEED_TOKEN: TOKEN,
        TICK_SOURCE: 'feed',
        ENGINE_NAME: 'engine1',
        MARKET_AS_OF: TEST_MARKET_DATE,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const running: Proc = { ...proc, child, output: '' };
    child.stdout?.on('data', (chunk: Buffer) => (running.output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (running.output += chunk.toString()));
    procs.set(proc.name, running);
    return running;
  }

  async function start(name: string, role: string, port?: number): Promise<Proc> {
    const p = port ?? (await freePort());
    const proc = spawnProc({ name, port: p, url: `http://127.0.0.1:${p}` }, role);
    // Generous: four processes start at once on a small machine.
    await until(
      `${name} answers /healthz`,
      async () => {
        if (proc.child.exitCode !== null) return `exited: ${proc.output}`;
        const res = await fetch(`${proc.url}/healthz`);
        return res.ok ? 'ok' : undefined;
      },
      60_000,
    ).then((state) => {
      if (state !== 'ok') throw new Error(`${name} ${state}`);
    });
    return proc;
  }

  function exited(proc: Proc): Promise<void> {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => proc.child.once('exit', () => resolve()));
  }

  async function armed(engine: Proc): Promise<number> {
    const text = await (await fetch(`${engine.url}/metrics`)).text();
    return Number(/^stockpulse_alerts_armed (\d+)$/m.exec(text)?.[1] ?? NaN);
  }

  before(async function () {
    redis = await startTestRedis();
    dataDir = mkdtempSync(join(tmpdir(), 'sp-dist-'));
    copyFileSync(marketTemplate(42), join(dataDir, MARKET_DB_FILE));
    // The projections process first: it creates the log and the read models the others read.
    await start('projections', 'projections');
    await Promise.all([start('engine', 'engine'), start('gatewayA', 'gateway'), start('gatewayB', 'gateway')]);
  });

  after(async function () {
    for (const proc of procs.values()) {
      if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGTERM');
    }
    await Promise.all([...procs.values()].map(exited));
    await redis?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed') {
      for (const proc of procs.values()) console.error(`--- ${proc.name}\n${proc.output.slice(-4000)}`);
    }
  });

  it('gives an engine and a projections process no API, only the health routes', async function () {
    for (const name of ['engine', 'projections']) {
      const proc = procs.get(name)!;
      expect((await fetch(`${proc.url}/healthz`)).status).to.equal(200);
      expect((await fetch(`${proc.url}/api/quotes?symbols=AAPL`)).status).to.equal(404);
      expect((await fetch(`${proc.url}/metrics`)).status).to.equal(200);
    }
  });

  it('notifies a user on gateway A of an alert created through gateway B, then survives an engine kill', async function () {
    const [gwA, gwB] = [procs.get('gatewayA')!, procs.get('gatewayB')!];
    let engine = procs.get('engine')!;
    const onB = new TestClient(gwB.url);
    const username = `dist${Date.now().toString(36)}`;
    expect((await onB.post('/api/register', { username, password: 'correct horse' })).status).to.equal(201);
    expect((await onB.post('/api/login', { username, password: 'correct horse' })).status).to.equal(200);
    // Sessions live in Redis: the cookie signed in on B opens a socket on A.
    const cookie = [...onB.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const socket: Socket<ServerToClientEvents, ClientToServerEvents> = connect(gwA.url, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      extraHeaders: { cookie },
    });
    const pushed: NotificationPush[] = [];
    socket.on('notification', (n) => pushed.push(n));
    const changed: ReadModelChange[] = [];
    socket.on('readmodel:changed', (c) => changed.push(c));
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });

    try {
      const alert = async (symbol: string): Promise<number> => {
        const quotes = (await onB.get(`/api/quotes?symbols=${symbol}`)).body as Quote[];
        const threshold = Math.round((quotes[0]!.price + 1) * 100) / 100;
        const res = await onB.post('/personalize/stockalerts', { symbol, close: threshold, alerttype: 'U' });
        expect(res.status).to.equal(200, res.text);
        return threshold;
      };
      const feed = async (via: Proc, ticks: { symbol: string; price: number }[]): Promise<void> => {
        const res = await new TestClient(via.url).post('/api/feed/ticks', ticks, AUTH);
        expect(res.status).to.equal(202, res.text);
      };

      // 1. Created through B, fired by the engine, pushed to the socket on A; the quote reaches A's socket too.
      const nvda = await alert('NVDA');
      await until('the engine indexes the alert', async () => ((await armed(engine)) >= 1 ? true : undefined));
      await new Promise<void>((resolve) => socket.emit('quotes:subscribe', { symbols: ['NVDA'] }, () => resolve()));
      const quoted = new Promise<Quote>((resolve) => socket.once('quote', resolve));
      await feed(gwB, [{ symbol: 'NVDA', price: nvda }]);
      expect((await quoted).price).to.equal(nvda);
      await until('the notification reaches gateway A', () => (pushed.length >= 1 ? true : undefined), 10_000);
      expect(pushed[0]).to.include({ symbol: 'NVDA', notificationtype: 1, read: false });
      // The projections process's commit of the trigger reaches the socket on A too, through the relay.
      const commitOf = (position: string): number => Number(position.split('/')[0]);
      await until(
        "the alerts read model's change reaches gateway A",
        () => changed.find((c) => c.name === 'alerts' && commitOf(c.position) >= commitOf(pushed[0]!.position)),
        10_000,
      );

      // Gateways without an engine serve live quotes from the bus.
      const onA = new TestClient(gwA.url);
      for (const [k, v] of onB.cookies) onA.cookies.set(k, v);
      const quotes = await onA.get('/api/quotes?symbols=NVDA');
      expect(quotes.status).to.equal(200, quotes.text);
      expect((quotes.body as Quote[])[0]!.price).to.equal(nvda);
      // And the session's minute candles (the price chart's 1D) from the same ticks.
      const minutes = await onA.get('/api/bars/NVDA/minutes');
      expect(minutes.status).to.equal(200, minutes.text);
      expect((minutes.body as MinuteCandles).candles.at(-1)).to.include({ close: nvda });

      // 2. The engine dies; alerts are created and their ticks published while it is down.
      engine.child.kill('SIGKILL');
      await exited(engine);
      const msft = await alert('MSFT');
      const xom = await alert('XOM');
      await feed(gwA, [
        { symbol: 'MSFT', price: msft },
        { symbol: 'NVDA', price: nvda + 0.5 },
      ]);
      await feed(gwB, [{ symbol: 'XOM', price: xom }]);

      // 3. Restarted under the same name, it reads what it missed: each trigger once.
      engine = await start('engine', 'engine', engine.port);
      const listed = await until(
        'the notifications of the missed triggers',
        async () => {
          const list = (await onB.get('/personalize/usernotifications/ALL')).body as { id: string; symbol: string }[];
          return list.length >= 3 ? list : undefined;
        },
        20_000,
      );
      await until('the pushes of the missed triggers', () => (pushed.length >= 3 ? true : undefined), 10_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const again = (await onB.get('/personalize/usernotifications/ALL')).body as { id: string; symbol: string }[];
      expect(again.map((n) => n.symbol).sort()).to.deep.equal(['MSFT', 'NVDA', 'XOM']);
      expect(listed.map((n) => n.id).sort()).to.deep.equal(again.map((n) => n.id).sort());
      expect(pushed.map((n) => n.symbol).sort()).to.deep.equal(['MSFT', 'NVDA', 'XOM']);
      expect(new Set(pushed.map((n) => n.id)).size).to.equal(3);
    } finally {
      socket.disconnect();
    }
  });
});
