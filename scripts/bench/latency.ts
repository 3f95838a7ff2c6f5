/**
 * `npm run bench -- latency`: how fast the live path is, end to end over loopback. The real gateway (embedded
 * adapters, `TICK_SOURCE=feed`) runs in a child process of its own, the background feed in another; this
 * process is the browsers and sends the ticks it times.
 *
 * 1. Notifications: 200 sockets (20 users, 10 each) are connected while the feed child pushes ticks through
 *    `POST /api/feed/ticks` at 5,000 a second, near the current prices; every 20 ms this process sends a tick
 *    that crosses an armed price alert on purpose. Measured: from sending the crossing tick to each of the
 *    user's sockets receiving `notification`.
 * 2. Quote fan-out: 2,000 sockets watch one symbol; each round one tick moves it. Measured: from sending the
 *    tick to each socket receiving the `quote`.
 *
 * The baseline, measured in the same run, is a bare server (Node http and Socket.IO, no application) in a child
 * process of its own that emits to every socket when a tick is posted: the transport's own cost. Prints a
 * table, then one JSON line. `BENCH_TPS` and `BENCH_FANOUT` override the tick rate and the fan-out's sockets.
 */
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Server } from 'socket.io';
import { io as connect, type Socket } from 'socket.io-client';
import type { NotificationPush } from '../../domain/contract/socket.ts';
import type { Quote } from '../../domain/market/types.ts';
import { MARKET_DB_FILE } from '../../engine/marketdata/store.ts';
import { marketTemplate, TEST_MARKET_DATE } from '../../gateway/testing/harness.ts';
import { isMain } from '../scriptIo.ts';
import { progress, startServerChild, stopChild } from './child.ts';
import { percentile } from './gateway.ts';

/** Figures of one run. */
export interface LatencyBenchResult {
  readonly bench: 'latency';
  /** Median ms from sending a crossing tick to a socket receiving its notification. */
  readonly p50Ms: number;
  /** 99th percentile of the same. */
  readonly p99Ms: number;
  /** Sockets receiving each quote in the fan-out. */
  readonly fanoutSockets: number;
  /** 99th percentile ms from sending a tick to a socket receiving its quote, over every socket and round. */
  readonly fanoutP99Ms: number;
  /** Median ms of the fan-out. */
  readonly fanoutP50Ms: number;
  /** The bare server: median and 99th percentile ms from posting a tick to the sockets receiving the emit. */
  readonly baselineP50Ms: number;
  readonly baselineP99Ms: number;
  /** The bare server's fan-out to as many sockets: 99th percentile ms. */
  readonly baselineFanoutP99Ms: number;
  /** p99Ms / baselineP99Ms. */
  readonly ratioToBaseline: number;
  /** Ticks pushed per second during the notification measurement, as achieved. */
  readonly ticksPerSec: number;
  /** Notifications measured (crossing ticks × sockets of the user). */
  readonly samples: number;
  /** Sockets connected during the notification measurement. */
  readonly sockets: number;
}

const TOKEN = 'bench-feed-token-0123456789';
const USERS = 20;
const SOCKETS_PER_USER = 10;
const ALERTS_PER_USER = 15;
const TICKS_PER_SEC = Number(process.env.BENCH_TPS ?? 5_000);
const BATCH_EVERY_MS = 10;
const CROSS_EVERY_MS = 20;
const FANOUT_SOCKETS = Number(process.env.BENCH_FANOUT ?? 2_000);
const FANOUT_ROUNDS = 20;
const FANOUT_SYMBOL = 'AAPL';
/** Budget of the issue: notification p99 under this many ms. */
export const P99_BUDGET_MS = 10;

const self = fileURLToPath(import.meta.url);

function startChild(
  kind: 'gateway' | 'bare' | 'feed',
  env: Record<string, string>,
): Promise<{ url: string; child: ChildProcess }> {
  return startServerChild(self, kind, env);
}

/** Keep-alive HTTP for the feed and the API, so connection set-up stays out of the figures. */
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

function request(
  url: string,
  method: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; cookies: string[] }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        agent,
        headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            cookies: res.headers['set-cookie'] ?? [],
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function must(
  what: string,
  done: Promise<{ status: number; text: string; cookies: string[] }>,
  status: number,
): Promise<{ text: string; cookies: string[] }> {
  const res = await done;
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res;
}

/** Registers and signs in a user; answers its cookie. */
async function user(url: string, name: string): Promise<string> {
  const credentials = { username: name, password: 'benchmark password' };
  await must('register', request(`${url}/api/register`, 'POST', credentials), 201);
  const login = await must('login', request(`${url}/api/login`, 'POST', credentials), 200);
  return login.cookies.map((c) => c.split(';')[0]!).join('; ');
}

function open(url: string, cookie: string): Promise<Socket> {
  const socket = connect(url, {
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    extraHeaders: { cookie },
  });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

async function openMany(url: string, cookies: readonly string[], count: number): Promise<Socket[]> {
  const sockets: Socket[] = [];
  for (let i = 0; i < count; i += 100) {
    const wave = Array.from({ length: Math.min(100, count - i) }, (_, j) =>
      open(url, cookies[(i + j) % cookies.length]!),
    );
    sockets.push(...(await Promise.all(wave)));
  }
  return sockets;
}

const round2 = (x: number): number => Math.round(x * 100) / 100;
const cents = (x: number): number => Math.round(x * 100) / 100;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Pushes noise ticks at {@link TICKS_PER_SEC} until stopped; answers how many it sent. */
function noise(url: string, prices: ReadonlyMap<string, number>): { stop: () => Promise<number> } {
  const symbols = [...prices.keys()];
  const perBatch = Math.max(1, Math.round((TICKS_PER_SEC * BATCH_EVERY_MS) / 1000));
  const started = performance.now();
  let sent = 0;
  let batches = 0;
  let running = true;
  const inFlight = new Set<Promise<void>>();
  let n = 0;
  const loop = (async () => {
    while (running) {
      const due = Math.floor((performance.now() - started) / BATCH_EVERY_MS);
      while (batches < due && running) {
        const ticks = Array.from({ length: perBatch }, () => {
          const symbol = symbols[n++ % symbols.length]!;
          // Within ±0.2% of the base: far below the alerts' thresholds.
          return { symbol, price: cents(prices.get(symbol)! * (1 + (((n * 7919) % 401) - 200) / 100_000)), size: 1 };
        });
        const post = must(
          'noise',
          request(`${url}/api/feed/ticks`, 'POST', ticks, { authorization: `Bearer ${TOKEN}` }),
          202,
        );
        const settled: Promise<void> = post.then(
          () => void inFlight.delete(settled),
          (error: unknown) => {
            inFlight.delete(settled);
            progress(`noise tick refused: ${String(error)}`);
          },
        );
        inFlight.add(settled);
        batches += 1;
        sent += perBatch;
      }
      await sleep(BATCH_EVERY_MS / 2);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      await Promise.all([...inFlight]);
      return Math.round((sent * 1000) / (performance.now() - started));
    },
  };
}

/** Starts the feed child, which pushes the noise ticks from a process of its own, like an external feed. */
async function startFeed(
  url: string,
  prices: ReadonlyMap<string, number>,
): Promise<{ child: ChildProcess; stop: () => Promise<number> }> {
  const { child } = await startChild('feed', {
    BENCH_URL: url,
    BENCH_PRICES: JSON.stringify([...prices]),
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  return {
    child,
    stop: async () => {
      // `close`, not `exit`: the last line must have been read.
      await new Promise((resolve) => {
        child.once('close', resolve);
        child.kill('SIGTERM');
      });
      const last = out.trim().split('\n').at(-1) ?? '{}';
      return (JSON.parse(last) as { ticksPerSec?: number }).ticksPerSec ?? 0;
    },
  };
}

/** Options of {@link benchLatency}, for `npm run bench -- scale`. */
export interface LatencyOptions {
  /**
   * Sockets connected during the notification measurement (default 200): the 200 of the users with alerts,
   * the rest of further users without alerts, 10 each.
   */
  readonly sockets?: number;
  /** Only the notification measurement: the fan-out and baseline figures are NaN. */
  readonly notificationsOnly?: boolean;
}

/** Runs the benchmark and returns its figures. */
export async function benchLatency(options: LatencyOptions = {}): Promise<LatencyBenchResult> {
  const idleUsers = Math.ceil(
    Math.max(0, (options.sockets ?? USERS * SOCKETS_PER_USER) - USERS * SOCKETS_PER_USER) / SOCKETS_PER_USER,
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'sp-bench-latency-'));
  const children: ChildProcess[] = [];
  const sockets: Socket[] = [];
  try {
    progress('building the market template (first run only) and starting the gateway');
    copyFileSync(marketTemplate(42), join(dataDir, MARKET_DB_FILE));
    const gateway = await startChild('gateway', {
      PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      TICK_SOURCE: 'feed',
      FEED_TOKEN: TOKEN,
      MARKET_AS_OF: TEST_MARKET_DATE,
      REGISTRATIONS_PER_ADDRESS: '1000000',
      REGISTRATIONS_PER_HOUR: '1000000',
    });
    children.push(gateway.child);
    const url = gateway.url;

    progress(`${USERS} users, ${USERS * ALERTS_PER_USER} price alerts, ${USERS * SOCKETS_PER_USER} sockets`);
    const cookies: string[] = [];
    for (let u = 0; u < USERS; u++) cookies.push(await user(url, `bench${u}x${Date.now().toString(36)}`));
    const universe = JSON.parse(
      (await must('universe', request(`${url}/api/universe`, 'GET', undefined, { cookie: cookies[0]! }), 200)).text,
    ) as { symbol: string }[];
    const symbols = universe.map((c) => c.symbol).filter((s) => s !== FANOUT_SYMBOL);
    const quotes = JSON.parse(
      (
        await must(
          'quotes',
          request(`${url}/api/quotes?symbols=${symbols.join(',')}`, 'GET', undefined, { cookie: cookies[0]! }),
          200,
        )
      ).text,
    ) as Quote[];
    const prices = new Map(quotes.map((q) => [q.symbol, q.price]));
    const alerts: { user: number; symbol: string; threshold: number }[] = [];
    for (let u = 0; u < USERS; u++) {
      for (let a = 0; a < ALERTS_PER_USER; a++) {
        const symbol = quotes[(u * ALERTS_PER_USER + a) % quotes.length]!.symbol;
        const threshold = cents(prices.get(symbol)! * 1.05);
        await must(
          'alert',
          request(
            `${url}/personalize/stockalerts`,
            'POST',
            { symbol, close: threshold, alerttype: 'U' },
            { cookie: cookies[u]! },
          ),
          200,
        );
        alerts.push({ user: u, symbol, threshold });
      }
    }
    const userSockets: Socket[][] = [];
    for (let u = 0; u < USERS; u++) {
      userSockets.push(await openMany(url, [cookies[u]!], SOCKETS_PER_USER));
      sockets.push(...userSockets[u]!);
    }
    if (idleUsers > 0) {
      progress(`${idleUsers} more users without alerts, ${idleUsers * SOCKETS_PER_USER} more sockets`);
      const idle: string[] = [];
      for (let u = 0; u < idleUsers; u += 20) {
        const wave = Array.from({ length: Math.min(20, idleUsers - u) }, (_, j) =>
          user(url, `idle${u + j}x${Date.now().toString(36)}`),
        );
        idle.push(...(await Promise.all(wave)));
      }
      sockets.push(...(await openMany(url, idle, idleUsers * SOCKETS_PER_USER)));
    }

    // 1. Notifications under load.
    const samples: number[] = [];
    const sentAt = new Map<string, number>();
    for (const [u, list] of userSockets.entries()) {
      for (const socket of list) {
        socket.on('notification', (n: NotificationPush) => {
          const at = sentAt.get(`${u}/${n.symbol}`);
          if (at !== undefined) samples.push(performance.now() - at);
        });
      }
    }
    progress(
      `notifications: ${TICKS_PER_SEC} ticks/s through the feed route, a crossing tick every ${CROSS_EVERY_MS} ms`,
    );
    const load = await startFeed(url, prices);
    children.push(load.child);
    await sleep(1000);
    for (const alert of alerts) {
      sentAt.set(`${alert.user}/${alert.symbol}`, performance.now());
      void must(
        'cross',
        request(`${url}/api/feed/ticks`, 'POST', [{ symbol: alert.symbol, price: alert.threshold, size: 1 }], {
          authorization: `Bearer ${TOKEN}`,
        }),
        202,
      );
      await sleep(CROSS_EVERY_MS);
    }
    const expected = alerts.length * SOCKETS_PER_USER;
    const deadline = Date.now() + 5000;
    while (samples.length < expected && Date.now() < deadline) await sleep(20);
    const ticksPerSec = await load.stop();
    if (samples.length < expected) progress(`only ${samples.length} of ${expected} notifications arrived`);
    const notifications = {
      bench: 'latency' as const,
      p50Ms: round2(percentile(samples, 50)),
      p99Ms: round2(percentile(samples, 99)),
      ticksPerSec,
      samples: samples.length,
      sockets: sockets.length,
    };
    if (options.notificationsOnly) {
      return {
        ...notifications,
        fanoutSockets: 0,
        fanoutP99Ms: NaN,
        fanoutP50Ms: NaN,
        baselineP50Ms: NaN,
        baselineP99Ms: NaN,
        baselineFanoutP99Ms: NaN,
        ratioToBaseline: NaN,
      };
    }

    // 2. Quote fan-out.
    progress(`fan-out: ${FANOUT_SOCKETS} sockets watching ${FANOUT_SYMBOL}, ${FANOUT_ROUNDS} rounds`);
    const more = await openMany(url, cookies, FANOUT_SOCKETS - sockets.length);
    sockets.push(...more);
    const base = JSON.parse(
      (
        await must(
          'quote',
          request(`${url}/api/quotes?symbols=${FANOUT_SYMBOL}`, 'GET', undefined, { cookie: cookies[0]! }),
          200,
        )
      ).text,
    ) as Quote[];
    const fanout = await fanOut(sockets, base[0]!.price, async (price) => {
      await must(
        'fan-out tick',
        request(`${url}/api/feed/ticks`, 'POST', [{ symbol: FANOUT_SYMBOL, price, size: 1 }], {
          authorization: `Bearer ${TOKEN}`,
        }),
        202,
      );
    });
    for (const s of sockets.splice(0)) s.disconnect();

    // The bare baseline.
    progress('baseline: bare Node http + Socket.IO server, same measurements');
    const bare = await startChild('bare', {});
    children.push(bare.child);
    const baseline = await bareBaseline(bare.url);

    return {
      ...notifications,
      fanoutSockets: FANOUT_SOCKETS,
      fanoutP99Ms: round2(percentile(fanout, 99)),
      fanoutP50Ms: round2(percentile(fanout, 50)),
      baselineP50Ms: round2(percentile(baseline.single, 50)),
      baselineP99Ms: round2(percentile(baseline.single, 99)),
      baselineFanoutP99Ms: round2(percentile(baseline.fanout, 99)),
      ratioToBaseline: round2(percentile(samples, 99) / percentile(baseline.single, 99)),
    };
  } finally {
    for (const s of sockets) s.disconnect();
    agent.destroy();
    await Promise.all(children.map(stopChild));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Rounds of one tick each, far enough apart for the quote throttle; answers every socket's latency. */
async function fanOut(
  sockets: readonly Socket[],
  from: number,
  post: (price: number) => Promise<void>,
): Promise<number[]> {
  const latencies: number[] = [];
  let price = from;
  let sentAt = 0;
  let expected = 0;
  let got = 0;
  const onQuote = (q: Quote): void => {
    if (q.price !== expected) return;
    latencies.push(performance.now() - sentAt);
    got += 1;
  };
  for (const s of sockets) {
    s.on('quote', onQuote);
    await new Promise<void>((resolve) => s.emit('quotes:subscribe', { symbols: [FANOUT_SYMBOL] }, () => resolve()));
  }
  for (let round = 0; round < FANOUT_ROUNDS; round++) {
    price = cents(price + 0.01);
    expected = price;
    got = 0;
    sentAt = performance.now();
    await post(price);
    const deadline = Date.now() + 3000;
    while (got < sockets.length && Date.now() < deadline) await sleep(5);
    await sleep(300);
  }
  for (const s of sockets) s.off('quote', onQuote);
  return latencies;
}

/** The bare server's figures: one socket per post (as a notification), then the fan-out to as many sockets. */
async function bareBaseline(url: string): Promise<{ single: number[]; fanout: number[] }> {
  const single: number[] = [];
  const [first] = await openMany(url, [''], 1);
  let sentAt = 0;
  first!.on('n', () => single.push(performance.now() - sentAt));
  for (let i = 0; i < 300; i++) {
    sentAt = performance.now();
    await must('bare', request(`${url}/one`, 'POST', [{ symbol: 'AAPL', price: 1 }]), 202);
    const deadline = Date.now() + 1000;
    while (single.length <= i && Date.now() < deadline) await sleep(0);
    await sleep(CROSS_EVERY_MS / 4);
  }
  first!.disconnect();
  const all = await openMany(url, [''], FANOUT_SOCKETS);
  const fanout: number[] = [];
  let got = 0;
  for (const s of all) {
    s.on('n', () => {
      fanout.push(performance.now() - sentAt);
      got += 1;
    });
  }
  for (let round = 0; round < FANOUT_ROUNDS; round++) {
    got = 0;
    sentAt = performance.now();
    await must('bare fan-out', request(`${url}/all`, 'POST', [{ symbol: 'AAPL', price: 1 }]), 202);
    const deadline = Date.now() + 3000;
    while (got < all.length && Date.now() < deadline) await sleep(5);
    await sleep(50);
  }
  for (const s of all) s.disconnect();
  return { single, fanout };
}

/** Prints the table, the budget verdict and, last, the JSON line; answers whether the budget was met. */
export function report(r: LatencyBenchResult): boolean {
  const met = r.p99Ms < P99_BUDGET_MS;
  console.log('measurement                                        p50 ms   p99 ms   bare p50   bare p99');
  console.log(
    `${`tick → notification (${r.sockets} sockets, ${r.ticksPerSec} ticks/s)`.padEnd(50)} ${String(r.p50Ms).padStart(6)}   ${String(r.p99Ms).padStart(6)}   ${String(r.baselineP50Ms).padStart(8)}   ${String(r.baselineP99Ms).padStart(8)}`,
  );
  console.log(
    `${`tick → quote fan-out (${r.fanoutSockets} sockets)`.padEnd(50)} ${String(r.fanoutP50Ms).padStart(6)}   ${String(r.fanoutP99Ms).padStart(6)}   ${''.padStart(8)}   ${String(r.baselineFanoutP99Ms).padStart(8)}`,
  );
  console.log(
    `notification p99 ${r.p99Ms} ms, ${r.ratioToBaseline}x the bare server's: ${met ? 'met' : 'MISSED'} (budget < ${P99_BUDGET_MS} ms; ${r.samples} samples)`,
  );
  const { bench, p50Ms, p99Ms, fanoutSockets, fanoutP99Ms, ...rest } = r;
  console.log(JSON.stringify({ bench, p50Ms, p99Ms, fanoutSockets, fanoutP99Ms, ...rest }));
  return met;
}

/**
 * A child: `serve gateway` starts the real gateway from the environment, `serve bare` the baseline, `serve feed`
 * pushes the background ticks until it is stopped, then prints the rate it achieved.
 */
async function serve(kind: string): Promise<void> {
  let close: () => Promise<void>;
  let url: string;
  if (kind === 'feed') {
    const prices = new Map(JSON.parse(process.env.BENCH_PRICES ?? '[]') as [string, number][]);
    const load = TICKS_PER_SEC > 0 ? noise(process.env.BENCH_URL ?? '', prices) : { stop: () => Promise.resolve(0) };
    process.stdout.write(`${JSON.stringify({ url: '' })}\n`);
    const stop = (): void => {
      void load.stop().then((ticksPerSec) => {
        process.stdout.write(`${JSON.stringify({ ticksPerSec })}\n`);
        agent.destroy();
        process.exit(0);
      });
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    return;
  }
  if (kind === 'gateway') {
    const { startGateway } = await import('../../gateway/main.ts');
    const running = await startGateway(process.env);
    url = running.url.replace('localhost', '127.0.0.1');
    close = () => running.close();
  } else {
    // The same work minus the application: read the JSON body, answer 202, emit to one socket or to all.
    const holder: { io?: Server } = {};
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const ticks = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown[];
        res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ accepted: ticks.length }));
        const payload = { symbol: 'AAPL', price: 1, at: Date.now() };
        if (req.url === '/one') holder.io?.of('/').sockets.values().next().value?.emit('n', payload);
        else holder.io?.emit('n', payload);
      });
    });
    const io = new Server(server, { serveClient: false });
    holder.io = io;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () =>
      new Promise((resolve) => {
        void io.close(() => resolve());
      });
  }
  process.stdout.write(`${JSON.stringify({ url })}\n`);
  const stop = (): void => {
    void close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (isMain(import.meta.url) && process.argv[2] === 'serve') await serve(process.argv[3] ?? '');
