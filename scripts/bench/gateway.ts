/**
 * `npm run bench -- gateway`: requests per second and p99 latency of the read-model GET routes of the real
 * gateway (embedded adapters, a temporary DATA_DIR, LOG_LEVEL silent) for a signed-in user, against a bare
 * Koa app answering the same JSON on one route, measured in the same run. Each server runs in a child
 * process of its own; autocannon drives them over loopback from this one. Prints a table, then one JSON line.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Koa from 'koa';
import { isMain } from '../scriptIo.ts';
import { progress, startServerChild, stopChild } from './child.ts';

/** Figures of one route. */
export interface RouteFigures {
  /** The route measured. */
  readonly path: string;
  /** Requests answered per second. */
  readonly reqPerSec: number;
  /** 99th percentile latency in ms. */
  readonly p99Ms: number;
  /** Median of its per-round ratios of requests per second to bare Koa. */
  readonly ratio: number;
}

/** Figures of one run: the worst gateway route, the bare Koa baseline, and every route. */
export interface GatewayBenchResult {
  readonly bench: 'gateway';
  /** Requests per second of the gateway route with the lowest ratio. */
  readonly reqPerSec: number;
  /** Requests per second of the bare Koa route. */
  readonly bareKoaReqPerSec: number;
  /** The lowest route ratio: the median of that route's per-round ratios to bare Koa. */
  readonly ratio: number;
  /** The highest p99 latency among the gateway routes, in ms. */
  readonly p99Ms: number;
  /** The bare Koa route's p99 latency, in ms. */
  readonly bareKoaP99Ms: number;
  /** Every gateway route measured. */
  readonly routes: readonly RouteFigures[];
  /** Routes left out because the gateway does not serve them yet. */
  readonly skipped: readonly string[];
}

/**
 * Rounds of the measurement: each target runs once per round, in a rotating order, and the gateway's ratio is
 * the median of its per-round ratios to bare Koa, so a change in the machine's load (other processes) weighs
 * on both sides of each ratio alike and a spike in one round does not decide the result.
 */
const ROUNDS = 20;
/** Seconds each target runs per round (5 s in all per target). */
const ROUND_S = 0.25;
/** Untimed seconds per target before the first round, so JIT warm-up and first-touch costs fall outside. */
const WARM_UP_S = 2;
/** Concurrent connections. */
const CONNECTIONS = 10;
/** The budget: at least this share of bare Koa's requests per second. */
export const RATIO_BUDGET = 0.8;
/** The budget: p99 under this many ms. */
export const P99_BUDGET_MS = 5;
/** Symbols on the benchmark user's watch list, so the answer has a realistic size. */
const SYMBOLS = ['AAPL', 'MSFT', 'NVDA', 'AMZN', 'GOOGL', 'META', 'TSLA', 'JPM', 'XOM', 'UNH'];
const ROUTES = ['/personalize/watchlist', '/personalize/usernotifications/ALL'];

const self = fileURLToPath(import.meta.url);

function startChild(
  kind: 'gateway' | 'koa',
  env: Record<string, string>,
): Promise<{ url: string; child: ChildProcess }> {
  return startServerChild(self, kind, env);
}

/** Registers and signs in a user, fills the watch list, and answers the session cookie. */
async function signedInUser(url: string): Promise<string> {
  const credentials = { username: 'bench', password: 'benchmark password' };
  const post = (path: string, body: unknown, cookie = '') =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
      body: JSON.stringify(body),
    });
  const registered = await post('/api/register', credentials);
  if (registered.status !== 201) throw new Error(`register answered ${registered.status}`);
  const login = await post('/api/login', credentials);
  if (login.status !== 200) throw new Error(`login answered ${login.status}`);
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .join('; ');
  const added = await post('/personalize/createwatchlist', SYMBOLS, cookie);
  if (added.status !== 200) throw new Error(`createwatchlist answered ${added.status}`);
  return cookie;
}

/** One target of the measurement and what it gathered. */
interface Target {
  readonly url: string;
  readonly headers: Record<string, string>;
  /** Requests per second of each round. */
  readonly rounds: number[];
  requests: number;
  seconds: number;
  readonly latencies: number[];
}

/** Runs autocannon against a target for `seconds`; records answers and latencies unless it is a warm-up. */
function load(target: Target, seconds: number, record: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      { url: target.url, connections: CONNECTIONS, duration: seconds, headers: target.headers },
      (error, r) => {
        if (error) return reject(error instanceof Error ? error : new Error(String(error)));
        if (r.non2xx > 0 || r.errors > 0) {
          return reject(new Error(`${target.url}: ${r.non2xx} answers not 2xx, ${r.errors} errors`));
        }
        if (record) {
          target.requests += r.requests.total;
          target.seconds += r.duration;
          target.rounds.push(r.requests.total / r.duration);
        }
        resolve();
      },
    );
    if (record) {
      instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => {
        target.latencies.push(ms);
      });
    }
  });
}

/** The value below which `p` percent of the values lie (nearest rank). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** What the interleaved rounds found for one target. */
interface Measured {
  readonly reqPerSec: number;
  readonly p99Ms: number;
  /** Median of the per-round ratios to the first target (bare Koa). */
  readonly ratio: number;
}

/** Measures the targets (the first is the baseline) in interleaved rounds of rotating order. */
async function measure(targets: readonly Target[]): Promise<Measured[]> {
  for (const target of targets) await load(target, WARM_UP_S, false);
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < targets.length; i++) await load(targets[(round + i) % targets.length]!, ROUND_S, true);
  }
  const baseline = targets[0]!.rounds;
  return targets.map((t) => ({
    reqPerSec: Math.round(t.requests / t.seconds),
    p99Ms: Math.round(percentile(t.latencies, 99) * 100) / 100,
    ratio:
      Math.round(
        percentile(
          t.rounds.map((rate, r) => rate / baseline[r]!),
          50,
        ) * 1000,
      ) / 1000,
  }));
}

/** Runs the benchmark and returns its figures. */
export async function benchGateway(): Promise<GatewayBenchResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sp-bench-gw-'));
  const children: ChildProcess[] = [];
  try {
    const gateway = await startChild('gateway', { PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    children.push(gateway.child);
    const cookie = await signedInUser(gateway.url);
    const watchlist = await fetch(`${gateway.url}/personalize/watchlist`, { headers: { cookie } });
    const body = await watchlist.text();
    const koa = await startChild('koa', { BENCH_BODY: body });
    children.push(koa.child);

    const target = (url: string, headers: Record<string, string> = {}): Target => ({
      url,
      headers,
      rounds: [],
      requests: 0,
      seconds: 0,
      latencies: [],
    });
    const paths: string[] = [];
    const skipped: string[] = [];
    for (const path of ROUTES) {
      const probe = await fetch(`${gateway.url}${path}`, { headers: { cookie } });
      await probe.arrayBuffer();
      if (probe.status === 404) skipped.push(path);
      else paths.push(path);
    }
    for (const path of skipped) progress(`gateway: ${path} is not served yet, left out`);
    progress(
      `bare Koa GET /bare and gateway ${paths.map((p) => `GET ${p}`).join(', ')}: ${CONNECTIONS} connections, ` +
        `${ROUNDS} interleaved rounds of ${ROUND_S} s each after ${WARM_UP_S} s of warm-up`,
    );
    const [bare, ...measured] = await measure([
      target(`${koa.url}/bare`),
      ...paths.map((path) => target(`${gateway.url}${path}`, { cookie })),
    ]);
    const routes: RouteFigures[] = paths.map((path, i) => ({ path, ...measured[i]! }));
    const worst = routes.reduce((w, r) => (r.ratio < w.ratio ? r : w));
    return {
      bench: 'gateway',
      reqPerSec: worst.reqPerSec,
      bareKoaReqPerSec: bare!.reqPerSec,
      ratio: worst.ratio,
      p99Ms: Math.max(...routes.map((r) => r.p99Ms)),
      bareKoaP99Ms: bare!.p99Ms,
      routes,
      skipped,
    };
  } finally {
    await Promise.all(children.map(stopChild));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Prints the table, the budget verdicts and, last, the JSON line; answers whether every budget was met. */
export function report(r: GatewayBenchResult): boolean {
  console.log('route                                  req/s    p99 ms   ratio to bare Koa   budget');
  console.log(
    `${'bare Koa (same JSON)'.padEnd(36)} ${String(r.bareKoaReqPerSec).padStart(7)}  ${String(r.bareKoaP99Ms).padStart(7)}`,
  );
  let met = true;
  for (const route of r.routes) {
    const ok = route.ratio >= RATIO_BUDGET && route.p99Ms < P99_BUDGET_MS;
    met &&= ok;
    console.log(
      `${route.path.padEnd(36)} ${String(route.reqPerSec).padStart(7)}  ${String(route.p99Ms).padStart(7)}   ${route.ratio.toFixed(2).padStart(17)}   ${ok ? 'met' : 'MISSED'} (>= ${RATIO_BUDGET}, p99 < ${P99_BUDGET_MS} ms)`,
    );
  }
  for (const path of r.skipped) console.log(`${path.padEnd(36)} not served yet: not measured`);
  const { bench, reqPerSec, bareKoaReqPerSec, ratio, p99Ms, ...rest } = r;
  console.log(JSON.stringify({ bench, reqPerSec, bareKoaReqPerSec, ratio, p99Ms, ...rest }));
  return met;
}

/** A server child: `serve gateway` starts the real gateway from the environment, `serve koa` a bare Koa app. */
async function serve(kind: string): Promise<void> {
  let close: () => Promise<void>;
  let url: string;
  if (kind === 'gateway') {
    const { startGateway } = await import('../../gateway/main.ts');
    const running = await startGateway(process.env);
    url = running.url.replace('localhost', '127.0.0.1');
    close = () => running.close();
  } else {
    const body: unknown = JSON.parse(process.env.BENCH_BODY ?? '[]');
    const app = new Koa();
    app.use((ctx) => {
      if (ctx.method === 'GET' && ctx.path === '/bare') ctx.body = body;
    });
    const server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise((resolve) => server.close(() => resolve()));
  }
  process.stdout.write(`${JSON.stringify({ url })}\n`);
  const stop = (): void => {
    void close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (isMain(import.meta.url) && process.argv[2] === 'serve') await serve(process.argv[3] ?? '');
