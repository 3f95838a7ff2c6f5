/**
 * `npm run bench -- latency`: how fast the live path is, end to end over loopback. The real gateway (embedded
 * adapters, `TICK_SOURCE=feed`) runs in a child process of its own, the background feed in another; this
 * process is the browsers and sends the ticks it times.
 *
 * 1. Notifications: 200 sockets (20 users, 10 each) are connected while the feed child pushes ticks through
 *    `POST /api/feed/ticks` at 5,000 a second, near the current prices; every 20 ms this process sends a tick
 *    that crosses an armed price alert on purpose. Measured: from sending the crossing tick to each of the
 *    user's sockets receiving `notification`. Printed besides, for each measurement: the gateway's collections
 *    and event-loop delay (from its `/metrics`), and this process's own (a pause of the receiver lengthens what
 *    it times), with when each of its collections of 10 ms or more began. This process's heap is collected
 *    before each measurement, so that its own major collections fall outside it; the gateway's is left alone.
 *    Then, with `BENCH_ARMED` (e.g. 100000), the same again with that many mixed alerts armed: every
 *    operator, source kind and frequency, levels around the current values, armed through
 *    `POST /personalize/stockalerts` by further users (500 each, the most one user may hold, so 200 for
 *    100,000; one socket each), 8 users at a time (`BENCH_ARM_CONCURRENCY`). The feed then runs until what
 *    its first ticks fired has been delivered, before the measurement. Printed besides: how long arming took,
 *    the p99 against the run without them, and what the mixed alerts fired meanwhile (the engine's appended
 *    triggers from `/metrics`, and the notifications their users' sockets received). `BENCH_NEAR` is the
 *    share of them within 0.25% of the value (default 0.1%), which the feed's noise fires.
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
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Server } from 'socket.io';
import { io as connect, type Socket } from 'socket.io-client';
import { ALERTS_LIMIT } from '../../domain/alerts/alerts.ts';
import {
  ALERT_FREQUENCIES,
  ALERT_OPS,
  sourceKind,
  type AlertFrequency,
  type AlertSource,
} from '../../domain/alerts/conditions.ts';
import type { AlertConditionBody } from '../../domain/contract/alerts.ts';
import type { ChartBar } from '../../domain/contract/market.ts';
import type { NotificationPush } from '../../domain/contract/socket.ts';
import type { Quote } from '../../domain/market/types.ts';
import { Random } from '../../engine/marketdata/random.ts';
import { MARKET_DB_FILE } from '../../engine/marketdata/store.ts';
import { marketTemplate, TEST_MARKET_DATE } from '../../gateway/testing/harness.ts';
import { isMain } from '../scriptIo.ts';
import {
  collectHeap,
  expectExit,
  loopDelayMs,
  progress,
  PROM_CLIENT_LAG_RESOLUTION_MS,
  round2,
  startServerChild,
  stopChild,
} from './child.ts';
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
  /** Mixed alerts armed during the measurement (0: none, and the fields below are NaN or 0). */
  readonly armed: number;
  /** Seconds arming them over HTTP took. */
  readonly armSeconds: number;
  /** The same measurement in the same run before they were armed: median and 99th percentile ms. */
  readonly unarmedP50Ms: number;
  readonly unarmedP99Ms: number;
  /** p99Ms / unarmedP99Ms. */
  readonly armedRatio: number;
  /** Notifications of the mixed alerts delivered to their users' sockets during the measurement. */
  readonly backgroundNotifications: number;
  /** Triggers of the mixed alerts the engine appended during the measurement. */
  readonly backgroundTriggers: number;
  /** Seconds the measurement took (the crossing ticks and the wait for their last notifications). */
  readonly measureSeconds: number;
  /**
   * The gateway's event-loop delay during the measurement (with the mixed alerts, if armed): p99 and max, ms by
   * which the loop was late (its metrics' figures less their histogram's 10 ms interval; see `loopDelayMs`).
   */
  readonly loopDelayP99Ms: number;
  readonly loopDelayMaxMs: number;
}

const TOKEN = 'bench-feed-token-0123456789';
const USERS = 20;
const SOCKETS_PER_USER = 10;
const ALERTS_PER_USER = 15;
/** The measured alerts sit this far above the price: above the noise, so only the crossing tick fires them. */
const CROSS_ABOVE = 0.004;
/** Users arming their mixed alerts at the same time (`BENCH_ARM_CONCURRENCY`). */
const ARM_CONCURRENCY = Number(process.env.BENCH_ARM_CONCURRENCY ?? 8);
/** With mixed alerts armed, the feed runs this long before the measurement, past the first ticks' firings. */
const ARMED_WARMUP_MS = 5000;
/** Longest wait for the mixed alerts' first firings to be delivered before measuring. */
const SETTLE_MAX_MS = 300_000;
/** The share of mixed alerts with levels near the market (`BENCH_NEAR`), and how near, as a fraction. */
const NEAR_SHARE = Number(process.env.BENCH_NEAR ?? 0.001);
const NEAR_BAND = 0.0025;
const TICKS_PER_SEC = Number(process.env.BENCH_TPS ?? 5_000);
/** How the noise ticks move (`BENCH_NOISE`): `walk` (default) or `jump` (see {@link noise}). */
const NOISE = process.env.BENCH_NOISE === 'jump' ? 'jump' : 'walk';
/** The noise band, ±0.2% of the base, in steps of 0.001%. */
const NOISE_STEPS = 200;
/** The walk's largest move a tick, in the same steps (0.01%). */
const WALK_STEP = 10;
const BATCH_EVERY_MS = 10;
const CROSS_EVERY_MS = 20;
/**
 * How long the first crossing waits after this process collected its heap (see `measureNotifications`): the
 * collection's sweeping goes on in helper threads after it returns, on the cores the gateway runs on. With one
 * interval only, the first crossing (0/NVDA) was among the five slowest in 9 of 10 runs without the mixed alerts,
 * the slowest or second slowest in 6 (13.8 to 41.0 ms); after a second, 9.1 to 16.0 ms in 4 runs, third or
 * fourth, and the p99 of two runs alternated with two of the short wait 9.37 and 10.81 ms against 10.41 and 13.48.
 */
const AFTER_COLLECTION_MS = 1000;
const FANOUT_SOCKETS = Number(process.env.BENCH_FANOUT ?? 2_000);
const FANOUT_ROUNDS = 20;
const FANOUT_SYMBOL = 'AAPL';
/**
 * Mixed alerts `npm run bench -- latency` arms before measuring again: none unless `BENCH_ARMED` asks
 * (`BENCH_ARMED=100000` is the size the alert language is budgeted for; arming them takes minutes).
 */
export const ARMED_DEFAULT = 0;
/** Budget of the issue: notification p99 under this many ms. */
export const P99_BUDGET_MS = 10;

const self = fileURLToPath(import.meta.url);

function startChild(
  kind: 'gateway' | 'bare' | 'feed',
  env: Record<string, string>,
): Promise<{ url: string; child: ChildProcess }> {
  // The gateway logs its errors (and warnings) to stdout: shown, so a failure under load is not silent.
  return startServerChild(self, kind, env, kind === 'gateway');
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

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Pushes noise ticks at {@link TICKS_PER_SEC} until stopped; answers how many it sent. Each symbol's price stays
 * within ±0.2% of its base: by default it walks there as trades do, at most 0.01% a tick (a cent or two on most
 * prices); with `BENCH_NOISE=jump` each tick jumps anywhere in the band, so levels in it are crossed on most ticks.
 */
function noise(url: string, prices: ReadonlyMap<string, number>): { stop: () => Promise<number> } {
  const symbols = [...prices.keys()];
  const perBatch = Math.max(1, Math.round((TICKS_PER_SEC * BATCH_EVERY_MS) / 1000));
  const started = performance.now();
  let sent = 0;
  let batches = 0;
  let running = true;
  const inFlight = new Set<Promise<void>>();
  let n = 0;
  /** Each symbol's offset from its base in steps of 0.001%, within ±{@link NOISE_STEPS}. */
  const offsets = new Map<string, number>();
  const rng = new Random('bench-latency-noise');
  const next = (symbol: string): number => {
    if (NOISE === 'jump') return ((n * 7919) % 401) - NOISE_STEPS;
    // A random walk of at most ±WALK_STEP a tick, reflected at the band's edges.
    let o = (offsets.get(symbol) ?? 0) + rng.int(2 * WALK_STEP + 1) - WALK_STEP;
    if (o > NOISE_STEPS) o = 2 * NOISE_STEPS - o;
    if (o < -NOISE_STEPS) o = -2 * NOISE_STEPS - o;
    offsets.set(symbol, o);
    return o;
  };
  const loop = (async () => {
    while (running) {
      const due = Math.floor((performance.now() - started) / BATCH_EVERY_MS);
      while (batches < due && running) {
        const ticks = Array.from({ length: perBatch }, () => {
          const symbol = symbols[n++ % symbols.length]!;
          // Within ±0.2% of the base: below the measured alerts' thresholds.
          return { symbol, price: round2(prices.get(symbol)! * (1 + next(symbol) / 100_000)), size: 1 };
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
        expectExit(child);
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
  /**
   * Mixed alerts armed over HTTP before the measurement (default 0), {@link ALERTS_LIMIT} per further user,
   * each such user with one socket of its own. With some, the notifications are measured twice in the same
   * run: first without them, then with them armed.
   */
  readonly armed?: number;
}

/** The measured alerts: a price alert per user and symbol, and the price that crosses it. */
interface MeasuredAlert {
  readonly user: number;
  readonly symbol: string;
  readonly threshold: number;
}

/** What one notification measurement found. */
interface NotificationRun {
  readonly samples: number[];
  readonly ticksPerSec: number;
  /** Notifications the sockets of the users with mixed alerts received during the measurement. */
  readonly backgroundNotifications: number;
  /** Triggers the engine appended during the measurement, the measured alerts' left out. */
  readonly backgroundTriggers: number;
  /** How long the measurement took, in seconds. */
  readonly seconds: number;
  /** The gateway's garbage collection during the measurement: pauses, those of 10 ms or more, seconds in all. */
  readonly gc: GcFigures;
  /** The gateway's heap in use at the end of the measurement, MB. */
  readonly heapMb: number;
  /** The gateway's event-loop delay during the measurement. */
  readonly loopDelay: LoopDelayFigures;
}

/** Garbage collection pauses of the gateway over a span of time, from its `/metrics`. */
interface GcFigures {
  readonly pauses: number;
  readonly over10ms: number;
  /** Of those, per kind of collection (prom-client's `kind`: minor, major, incremental, weakcb). */
  readonly over10msByKind: Readonly<Record<GcKind, number>>;
  readonly seconds: number;
}

/** The kinds of collection prom-client labels its histogram with. */
const GC_KINDS = ['minor', 'major', 'incremental', 'weakcb'] as const;
type GcKind = (typeof GC_KINDS)[number];

/** A figure per kind of collection. */
function perGcKind(figure: (kind: GcKind) => number): Record<GcKind, number> {
  return Object.fromEntries(GC_KINDS.map((kind) => [kind, figure(kind)])) as Record<GcKind, number>;
}

/** The gateway's event-loop delay over a span of time, ms (prom-client's: the time between samplings 10 ms apart). */
interface LoopDelayFigures {
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** One reading of the gateway's `/metrics`: a counter or gauge, summed over its labels (or those with `labels`). */
type Scrape = (name: string, labels?: string) => number;

/**
 * Reads `/metrics` once. Reading it resets the gateway's event-loop delay histogram, so the delay figures of a
 * reading cover the time since the one before.
 */
async function scrape(url: string): Promise<Scrape> {
  const text = (await must('metrics', request(`${url}/metrics`, 'GET', undefined), 200)).text;
  const lines = text.split('\n');
  return (name, labels = '') => {
    let sum = 0;
    for (const line of lines) {
      if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) {
        if (labels && !line.includes(labels)) continue;
        sum += Number(line.slice(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  };
}

/** A counter or gauge of `/metrics`, read on its own. */
async function metric(url: string, name: string, labels = ''): Promise<number> {
  return (await scrape(url))(name, labels);
}

/** The gateway's garbage collection so far (`nodejs_gc_duration_seconds`, every kind). */
function gcOf(read: Scrape): GcFigures {
  const all = read('nodejs_gc_duration_seconds_count');
  const over10msOf = (kind: GcKind): number =>
    read('nodejs_gc_duration_seconds_count', `kind="${kind}"`) -
    read('nodejs_gc_duration_seconds_bucket', `le="0.01",kind="${kind}"`);
  return {
    pauses: all,
    over10ms: all - read('nodejs_gc_duration_seconds_bucket', 'le="0.01"'),
    over10msByKind: perGcKind(over10msOf),
    seconds: read('nodejs_gc_duration_seconds_sum'),
  };
}

/** The kinds of the collections of 10 ms or more, in words (" (minor 3, major 1)"), or nothing when none. */
function slowKinds(gc: GcFigures): string {
  const kinds = GC_KINDS.filter((kind) => gc.over10msByKind[kind] > 0);
  return kinds.length === 0 ? '' : ` (${kinds.map((kind) => `${kind} ${gc.over10msByKind[kind]}`).join(', ')})`;
}

const TRIGGERS_APPENDED: [string, string] = ['stockpulse_alert_triggers_total', 'outcome="appended"'];

const appendedTriggers = (url: string): Promise<number> => metric(url, ...TRIGGERS_APPENDED);

/**
 * Waits until the alerts the first ticks found already true have fired and been delivered: no trigger pending
 * and no projection behind, twice a second apart (at most {@link SETTLE_MAX_MS}).
 */
async function settle(url: string): Promise<void> {
  const started = performance.now();
  const from = await appendedTriggers(url);
  let quiet = 0;
  let reported = started;
  while (quiet < 2 && performance.now() - started < SETTLE_MAX_MS) {
    await sleep(1000);
    const busy =
      (await metric(url, 'stockpulse_alert_triggers_pending')) + (await metric(url, 'stockpulse_projection_behind'));
    quiet = busy === 0 ? quiet + 1 : 0;
    if (performance.now() - reported > 10_000) {
      reported = performance.now();
      const s = (reported - started) / 1000;
      progress(`  settling: ${(await appendedTriggers(url)) - from} triggers of the first ticks in ${s.toFixed(0)} s`);
    }
  }
  const fired = (await appendedTriggers(url)) - from;
  const s = ((performance.now() - started) / 1000).toFixed(0);
  progress(quiet < 2 ? `NOT settled after ${s} s and ${fired} triggers` : `settled in ${s} s after ${fired} triggers`);
}

/** Arms price alerts a little above the noise for each user with sockets; answers them. */
async function armMeasured(
  url: string,
  cookies: readonly string[],
  quotes: readonly Quote[],
): Promise<MeasuredAlert[]> {
  const alerts: MeasuredAlert[] = [];
  for (let u = 0; u < USERS; u++) {
    for (let a = 0; a < ALERTS_PER_USER; a++) {
      const { symbol, price } = quotes[(u * ALERTS_PER_USER + a) % quotes.length]!;
      // Above the noise (±0.2%), and close to it, so the crossing tick passes few of the mixed alerts' levels.
      const threshold = Math.max(round2(price * (1 + CROSS_ABOVE)), round2(price + 0.03));
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
  return alerts;
}

/**
 * Arms the mixed alerts through `POST /personalize/stockalerts`, {@link ALERTS_LIMIT} per user: the users
 * {@link ARM_CONCURRENCY} at a time, each user's alerts one after the other. Answers the seconds it took.
 */
async function armMixed(url: string, cookies: readonly string[], alerts: readonly MixedAlertBody[]): Promise<number> {
  const started = performance.now();
  let armed = 0;
  const ticker = setInterval(() => {
    const s = (performance.now() - started) / 1000;
    progress(`  ${armed.toLocaleString('en-US')} armed in ${s.toFixed(0)} s (${Math.round(armed / s)}/s)`);
  }, 10_000);
  try {
    await eachConcurrently(cookies, ARM_CONCURRENCY, async (cookie, u) => {
      for (const body of alerts.slice(u * ALERTS_LIMIT, (u + 1) * ALERTS_LIMIT)) {
        await must('mixed alert', request(`${url}/personalize/stockalerts`, 'POST', body, { cookie }), 200);
        armed += 1;
      }
    });
  } finally {
    clearInterval(ticker);
  }
  return (performance.now() - started) / 1000;
}

/**
 * One notification measurement: the feed child pushes the noise, and after `warmupMs` a crossing tick every
 * {@link CROSS_EVERY_MS} ms crosses one measured alert; answers each user socket's latency, and what fired in
 * the background meanwhile.
 */
async function measureNotifications(
  url: string,
  prices: ReadonlyMap<string, number>,
  alerts: readonly MeasuredAlert[],
  userSockets: readonly (readonly Socket[])[],
  backgroundSockets: readonly Socket[],
  warmupMs: number,
  children: ChildProcess[],
  settleFirst: boolean,
): Promise<NotificationRun> {
  const samples: number[] = [];
  const sentAt = new Map<string, number>();
  /** The slowest socket's latency of each crossing. */
  const slowestOf = new Map<string, number>();
  const fired = new Set<string>();
  let measuring = false;
  let backgroundNotifications = 0;
  const listeners = userSockets.map((list, u) => {
    const listener = (n: NotificationPush): void => {
      const key = `${u}/${n.symbol}`;
      const at = sentAt.get(key);
      if (at === undefined) return;
      const ms = performance.now() - at;
      samples.push(ms);
      slowestOf.set(key, Math.max(ms, slowestOf.get(key) ?? 0));
      fired.add(`${u}/${n.symbol}`);
    };
    for (const socket of list) socket.on('notification', listener);
    return listener;
  });
  /** When each background notification arrived, and its symbol, to tell what a slow crossing waited behind. */
  const backgroundAt: [number, string][] = [];
  const onBackground = (n: NotificationPush): void => {
    if (!measuring) return;
    backgroundNotifications += 1;
    backgroundAt.push([performance.now(), n.symbol]);
  };
  for (const socket of backgroundSockets) socket.on('notification', onBackground);
  const load = await startFeed(url, prices);
  children.push(load.child);
  await sleep(warmupMs);
  if (settleFirst) await settle(url);
  // One reading before, one after: the second's event-loop delay covers the measurement.
  const before = await scrape(url);
  const triggersBefore = before(...TRIGGERS_APPENDED);
  const gcBefore = gcOf(before);
  // The background notifications are counted from the same reading as the triggers.
  measuring = true;
  // This process times the notifications it receives, so a pause of its own lengthens them: its heap (the alerts
  // it armed, the sockets it opened) is collected first, and the sockets' backlog of that pause read, so that its
  // own major collections do not fall within the measurement (one of 15 ms made a run's two slowest crossings,
  // 28.8 and 18.0 ms). The first crossing then waits until the collection's sweeping is over (see
  // `AFTER_COLLECTION_MS`), the feed running meanwhile, rather than meeting it or the gateway still answering the
  // reading of its metrics just above.
  collectHeap();
  await nextTurn();
  await sleep(AFTER_COLLECTION_MS);
  const started = performance.now();
  const own = ownPauses();
  for (const alert of alerts) {
    sentAt.set(`${alert.user}/${alert.symbol}`, performance.now());
    void must(
      'cross',
      request(`${url}/api/feed/ticks`, 'POST', [{ symbol: alert.symbol, price: alert.threshold, size: 1 }], {
        authorization: `Bearer ${TOKEN}`,
      }),
      202,
    ).catch((error: unknown) => progress(`crossing tick refused: ${String(error)}`));
    await sleep(CROSS_EVERY_MS);
  }
  const expected = alerts.length * SOCKETS_PER_USER;
  const deadline = Date.now() + 5000;
  while (samples.length < expected && Date.now() < deadline) await sleep(20);
  measuring = false;
  const seconds = (performance.now() - started) / 1000;
  await own.report(started);
  const after = await scrape(url);
  const triggersAfter = after(...TRIGGERS_APPENDED);
  const gcAfter = gcOf(after);
  const heapMb = Math.round(after('nodejs_heap_size_used_bytes') / 1e6);
  const loopDelay = {
    p99Ms: loopDelayMs(after('nodejs_eventloop_lag_p99_seconds') * 1e9, PROM_CLIENT_LAG_RESOLUTION_MS),
    maxMs: loopDelayMs(after('nodejs_eventloop_lag_max_seconds') * 1e9, PROM_CLIENT_LAG_RESOLUTION_MS),
  };
  const ticksPerSec = await load.stop();
  children.splice(children.indexOf(load.child), 1);
  for (const [u, list] of userSockets.entries()) for (const socket of list) socket.off('notification', listeners[u]);
  for (const socket of backgroundSockets) socket.off('notification', onBackground);
  if (samples.length < expected) progress(`only ${samples.length} of ${expected} notifications arrived`);
  // The slowest crossings, with the background notifications that arrived while their own was awaited.
  const slowest = [...slowestOf.entries()].sort((a, b) => b[1] - a[1]).slice(0, 5);
  for (const [key, ms] of slowest) {
    const from = sentAt.get(key)!;
    const during = backgroundAt.filter(([at]) => at >= from && at <= from + ms);
    const same = during.filter(([, symbol]) => symbol === key.split('/')[1]).length;
    progress(
      `  slow crossing ${key} at ${((from - started) / 1000).toFixed(2)} s: ${ms.toFixed(1)} ms, ` +
        `${during.length} background notifications meanwhile (${same} of the same symbol)`,
    );
  }
  return {
    samples,
    ticksPerSec,
    backgroundNotifications,
    backgroundTriggers: Math.max(0, triggersAfter - triggersBefore - fired.size),
    seconds,
    gc: {
      pauses: gcAfter.pauses - gcBefore.pauses,
      over10ms: gcAfter.over10ms - gcBefore.over10ms,
      over10msByKind: perGcKind((kind) => gcAfter.over10msByKind[kind] - gcBefore.over10msByKind[kind]),
      seconds: round2(gcAfter.seconds - gcBefore.seconds),
    },
    heapMb,
    loopDelay,
  };
}

/** The resolution of this process's event-loop histogram, ms. */
const OWN_LAG_RESOLUTION_MS = 10;

/**
 * This process's own pauses from now on (it receives the notifications it times, so a pause of its own lengthens
 * them): `report` stops watching and prints its event-loop delay, how many collections it made and the longest,
 * and those of 10 ms or more, with when each began, in seconds from `started`.
 */
function ownPauses(): { report(started: number): Promise<void> } {
  const delay = monitorEventLoopDelay({ resolution: OWN_LAG_RESOLUTION_MS });
  const collections: { at: number; ms: number }[] = [];
  let count = 0;
  let longest = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      count += 1;
      longest = Math.max(longest, entry.duration);
      if (entry.duration >= 10) collections.push({ at: entry.startTime, ms: entry.duration });
    }
  });
  delay.enable();
  observer.observe({ entryTypes: ['gc'] });
  return {
    report: async (started) => {
      delay.disable();
      // The collections' entries arrive after the turn they ended in.
      await nextTurn();
      observer.disconnect();
      const when = collections.map((c) => `${c.ms.toFixed(0)} ms at ${((c.at - started) / 1000).toFixed(2)} s`);
      progress(
        `    this process (the sockets): event-loop delay p99 ${loopDelayMs(delay.percentile(99), OWN_LAG_RESOLUTION_MS)} ms, ` +
          `max ${loopDelayMs(delay.max, OWN_LAG_RESOLUTION_MS)} ms; ${count} collections, the longest ${longest.toFixed(1)} ms; ` +
          `of 10 ms or more: ${when.join(', ') || 'none'}`,
      );
    },
  };
}

/** Runs the benchmark and returns its figures. */
export async function benchLatency(options: LatencyOptions = {}): Promise<LatencyBenchResult> {
  const idleUsers = Math.ceil(
    Math.max(0, (options.sockets ?? USERS * SOCKETS_PER_USER) - USERS * SOCKETS_PER_USER) / SOCKETS_PER_USER,
  );
  const armed = Math.max(0, Math.floor(options.armed ?? 0));
  const armingUsers = Math.ceil(armed / ALERTS_LIMIT);
  const dataDir = mkdtempSync(join(tmpdir(), 'sp-bench-latency-'));
  const children: ChildProcess[] = [];
  const sockets: Socket[] = [];
  try {
    progress('building the market template (first run only) and starting the gateway');
    copyFileSync(marketTemplate(42), join(dataDir, MARKET_DB_FILE));
    const gateway = await startChild('gateway', {
      PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
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
    const alerts = await armMeasured(url, cookies, quotes);
    const userSockets: Socket[][] = [];
    for (let u = 0; u < USERS; u++) {
      userSockets.push(await openMany(url, [cookies[u]!], SOCKETS_PER_USER));
      sockets.push(...userSockets[u]!);
    }
    if (idleUsers > 0) {
      progress(`${idleUsers} more users without alerts, ${idleUsers * SOCKETS_PER_USER} more sockets`);
      const idle = await register(url, 'idle', idleUsers);
      sockets.push(...(await openMany(url, idle, idleUsers * SOCKETS_PER_USER)));
    }
    const armingCookies = await register(url, 'armed', armingUsers);
    const backgroundSockets = await openMany(url, armingCookies, armingCookies.length);
    sockets.push(...backgroundSockets);

    // 1. Notifications under load: without the mixed alerts, then (when asked) with them armed.
    const measure = (measured: readonly MeasuredAlert[], withArmed: boolean): Promise<NotificationRun> => {
      progress(
        `notifications: ${TICKS_PER_SEC} ticks/s through the feed route, a crossing tick every ${CROSS_EVERY_MS} ms`,
      );
      const warmupMs = withArmed ? ARMED_WARMUP_MS : 1000;
      return measureNotifications(url, prices, measured, userSockets, backgroundSockets, warmupMs, children, withArmed);
    };
    let run = await measure(alerts, false);
    let unarmed: NotificationRun | null = null;
    let armSeconds = NaN;
    if (armed > 0) {
      unarmed = run;
      progress(`${armed.toLocaleString('en-US')} mixed alerts: current values of every source`);
      const markets = await marketsOf(url, cookies[0]!, quotes);
      const mixed = mixedAlerts(armed, markets);
      progress(`arming them over HTTP: ${armingUsers} users, ${ALERTS_LIMIT} each, ${ARM_CONCURRENCY} users at a time`);
      armSeconds = await armMixed(url, armingCookies, mixed);
      progress(`armed in ${armSeconds.toFixed(1)} s (${Math.round(armed / armSeconds)} alerts/s)`);
      const again = await armMeasured(url, cookies, quotes);
      const inIndex = armed + again.length;
      const deadline = Date.now() + 120_000;
      while ((await metric(url, 'stockpulse_alerts_armed')) < inIndex && Date.now() < deadline) await sleep(200);
      run = await measure(again, true);
    }
    const notifications = {
      bench: 'latency' as const,
      p50Ms: round2(percentile(run.samples, 50)),
      p99Ms: round2(percentile(run.samples, 99)),
      ticksPerSec: run.ticksPerSec,
      samples: run.samples.length,
      sockets: sockets.length,
      armed,
      armSeconds: round2(armSeconds),
      unarmedP50Ms: unarmed ? round2(percentile(unarmed.samples, 50)) : NaN,
      unarmedP99Ms: unarmed ? round2(percentile(unarmed.samples, 99)) : NaN,
      armedRatio: unarmed ? round2(percentile(run.samples, 99) / percentile(unarmed.samples, 99)) : NaN,
      backgroundNotifications: run.backgroundNotifications,
      backgroundTriggers: run.backgroundTriggers,
      measureSeconds: round2(run.seconds),
      loopDelayP99Ms: run.loopDelay.p99Ms,
      loopDelayMaxMs: run.loopDelay.maxMs,
    };
    progress(
      `notifications: p50 ${notifications.p50Ms} ms, p99 ${notifications.p99Ms} ms over ${notifications.samples} samples` +
        (unarmed ? ` (without the mixed alerts: p99 ${notifications.unarmedP99Ms} ms)` : ''),
    );
    const runs = unarmed
      ? ([
          ['without the mixed alerts', unarmed],
          ['with them', run],
        ] as const)
      : [['', run] as const];
    for (const [what, r] of runs) {
      progress(
        `  gateway${what ? ` ${what}` : ''}: heap ${r.heapMb} MB; ${r.gc.pauses} collections in ${r.seconds.toFixed(1)} s, ` +
          `${r.gc.over10ms} of 10 ms or more${slowKinds(r.gc)}, ${(r.gc.seconds * 1000).toFixed(0)} ms in all; ` +
          `event-loop delay p99 ${r.loopDelay.p99Ms} ms, max ${r.loopDelay.maxMs} ms`,
      );
    }
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
    // Further users for the sockets still wanted, as many each as the measured users have (within the per-user limit).
    const wanted = Math.max(0, FANOUT_SOCKETS - sockets.length);
    const watchers = await register(url, 'fanout', Math.ceil(wanted / SOCKETS_PER_USER));
    sockets.push(...(await openMany(url, watchers, wanted)));
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
      ratioToBaseline: round2(percentile(run.samples, 99) / percentile(baseline.single, 99)),
    };
  } finally {
    for (const s of sockets) s.disconnect();
    agent.destroy();
    await Promise.all(children.map(stopChild));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Registers `count` users named `<prefix><n>`, 20 at a time; answers their cookies. */
async function register(url: string, prefix: string, count: number): Promise<string[]> {
  const cookies: string[] = [];
  for (let u = 0; u < count; u += 20) {
    const wave = Array.from({ length: Math.min(20, count - u) }, (_, j) =>
      user(url, `${prefix}${u + j}x${Date.now().toString(36)}`),
    );
    cookies.push(...(await Promise.all(wave)));
  }
  return cookies;
}

// ---------------------------------------------------------------------------------------------------------------
// The armed alerts of the mixed case.

/** What the mixed alerts are placed around: a symbol's current value of each source. */
interface SymbolMarket {
  readonly symbol: string;
  readonly values: Readonly<Record<MixedSource, number>>;
}

/** The sources the mixed alerts watch; price several times, as users watch it most. */
const MIXED_SOURCES = [
  'price',
  'sma:20',
  'sma:50',
  'sma:100',
  'sma:200',
  'ema:12',
  'ema:26',
  'ema:50',
  'rsi:14',
  'volume',
  'changepct',
] as const satisfies readonly AlertSource[];
type MixedSource = (typeof MIXED_SOURCES)[number];
const SOURCE_DRAW: readonly MixedSource[] = ['price', 'price', 'price', 'price', ...MIXED_SOURCES.slice(1)];

/** The body of one mixed alert, as a client posts it. */
interface MixedAlertBody {
  readonly symbol: string;
  readonly condition: AlertConditionBody;
  readonly frequency: AlertFrequency;
  readonly expires?: string;
}

/** A small deterministic generator (mulberry32), so every run arms the same alerts. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function emaOf(closes: readonly number[], period: number): number {
  if (closes.length < period) return closes.at(-1) ?? NaN;
  let ema = closes.slice(0, period).reduce((s, c) => s + c, 0) / period;
  const k = 2 / (period + 1);
  for (let i = period; i < closes.length; i++) ema += (closes[i]! - ema) * k;
  return ema;
}

/** Each symbol's current value of every source: the quote, and the last bar's averages and RSI. */
async function marketsOf(url: string, cookie: string, quotes: readonly Quote[]): Promise<SymbolMarket[]> {
  const markets: SymbolMarket[] = [];
  await eachConcurrently(quotes, 8, async (q) => {
    const { bars } = JSON.parse(
      (await must('bars', request(`${url}/api/bars/${q.symbol}?months=12`, 'GET', undefined, { cookie }), 200)).text,
    ) as { bars: ChartBar[] };
    const last = bars.at(-1);
    const closes = bars.map((b) => b.close);
    const or = (x: number | null | undefined): number => x ?? q.price;
    markets.push({
      symbol: q.symbol,
      values: {
        price: q.price,
        'sma:20': or(last?.SMA_20),
        'sma:50': or(last?.SMA_50),
        'sma:100': or(last?.SMA_100),
        'sma:200': or(last?.SMA_200),
        'ema:12': emaOf(closes, 12),
        'ema:26': emaOf(closes, 26),
        'ema:50': emaOf(closes, 50),
        'rsi:14': last?.rsi_14 ?? 50,
        volume: q.volume,
        changepct: q.changepct,
      },
    });
  });
  return markets.sort((a, b) => a.symbol.localeCompare(b.symbol));
}

/**
 * `count` alerts over the symbols, every operator, source kind and frequency in turn, with levels around the
 * current values: a share {@link NEAR_SHARE} within {@link NEAR_BAND} of the value (mostly inside the feed's
 * noise of ±0.2%, so they fire on its ticks), the rest spread evenly from there to 10% away (a crossing tick
 * of the measurement, 0.4% up, passes the few of its symbol up to there); channels on one side of the value,
 * or around it for exiting and outside; a tenth of the price levels another series (`{"ref": "sma:50"}`), a
 * tenth of the alerts expiring in a day.
 */
export function mixedAlerts(count: number, markets: readonly SymbolMarket[], seed = 14): MixedAlertBody[] {
  const rand = random(seed);
  const expires = new Date(Date.now() + 86_400_000).toISOString();
  const alerts: MixedAlertBody[] = [];
  for (let i = 0; i < count; i++) {
    const market = markets[Math.floor(rand() * markets.length)]!;
    const op = ALERT_OPS[i % ALERT_OPS.length]!;
    const frequency = ALERT_FREQUENCIES[Math.floor(i / ALERT_OPS.length) % ALERT_FREQUENCIES.length]!;
    const source = SOURCE_DRAW[Math.floor(rand() * SOURCE_DRAW.length)]!;
    const v = market.values[source];
    /** A distance from the value, as a fraction: near the market or away from it. */
    const distance = (): number =>
      rand() < NEAR_SHARE ? NEAR_BAND * (0.05 + 0.95 * rand()) : NEAR_BAND + (0.1 - NEAR_BAND) * rand();
    const kind = sourceKind(source);
    const priceLike = kind === 'price' || kind === 'sma' || kind === 'ema';
    /** The level `d` (a signed fraction) away from the value, in the source's unit. */
    const level = (d: number): number => {
      if (priceLike) return Math.max(0.01, round2(v * (1 + d)));
      if (kind === 'volume') return Math.max(0, Math.round(v + d * Math.max(v, 100_000)));
      return round2(v + d * 100); // RSI points, change in percentage points
    };
    const unit = priceLike ? 0.01 : 1;
    const side = rand() < 0.5 ? 1 : -1;
    let condition: AlertConditionBody;
    switch (op) {
      case 'crossing':
      case 'crossing_up':
      case 'crossing_down':
      case 'greater_than':
      case 'less_than': {
        const sign = op === 'crossing_up' || op === 'greater_than' ? 1 : op === 'crossing' ? side : -1;
        const ref = source === 'price' && rand() < 0.1 ? (rand() < 0.5 ? 'sma:50' : 'ema:26') : null;
        const golden = source === 'sma:50' && rand() < 0.2;
        condition = {
          op,
          source,
          value: golden ? { ref: 'sma:200' } : ref ? { ref } : level(sign * distance()),
        };
        break;
      }
      case 'entering_channel':
      case 'inside_channel': {
        const near = distance();
        const far = near + 0.005 + 0.02 * rand();
        const [a, b] = [level(side * near), level(side * far)].sort((x, y) => x - y) as [number, number];
        condition = { op, source, lower: a, upper: Math.max(b, a + unit) };
        break;
      }
      case 'exiting_channel':
      case 'outside_channel': {
        const lower = level(-distance());
        condition = { op, source, lower, upper: Math.max(level(distance()), lower + unit) };
        break;
      }
      default: {
        const d = distance();
        const amount = op.endsWith('_pct')
          ? d * 100
          : priceLike
            ? v * d
            : kind === 'volume'
              ? d * Math.max(v, 100_000)
              : d * 100;
        condition = { op, source, value: Math.max(0.01, round2(amount)), bars: 1 + (i % 5) };
      }
    }
    alerts.push({ symbol: market.symbol, condition, frequency, ...(i % 10 === 9 ? { expires } : {}) });
  }
  return alerts;
}

/** Runs `work` over the items, at most `concurrency` at a time. */
async function eachConcurrently<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await work(items[i]!, i);
      }
    }),
  );
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
    price = round2(price + 0.01);
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
  // From a collected heap, as the measurements of the gateway start.
  collectHeap();
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
  if (r.armed > 0) {
    console.log(
      `${`  the same before the ${r.armed.toLocaleString('en-US')} mixed alerts were armed`.padEnd(50)} ${String(r.unarmedP50Ms).padStart(6)}   ${String(r.unarmedP99Ms).padStart(6)}`,
    );
  }
  console.log(
    `${`tick → quote fan-out (${r.fanoutSockets} sockets)`.padEnd(50)} ${String(r.fanoutP50Ms).padStart(6)}   ${String(r.fanoutP99Ms).padStart(6)}   ${''.padStart(8)}   ${String(r.baselineFanoutP99Ms).padStart(8)}`,
  );
  console.log(
    `notification p99 ${r.p99Ms} ms, ${r.ratioToBaseline}x the bare server's: ${met ? 'met' : 'MISSED'} (budget < ${P99_BUDGET_MS} ms; ${r.samples} samples)`,
  );
  if (r.armed > 0) {
    console.log(
      `with ${r.armed.toLocaleString('en-US')} mixed alerts armed (over HTTP in ${r.armSeconds} s): p99 ${r.armedRatio}x the run without them; meanwhile ${r.backgroundTriggers} background triggers, ${r.backgroundNotifications} background notifications delivered in ${r.measureSeconds} s`,
    );
  }
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
