/**
 * `npm run bench -- ingest`: trades per second from a provider stream into evaluated alerts. A loopback server
 * speaking the Alpaca market data v2 protocol sends trade batches; the Alpaca stream client reads them, the
 * in-process tick bus carries them and the real alert engine (SQLite log and read models, armed price alerts)
 * evaluates them. Measured in the same run:
 *
 * - baseline: the raw WebSocket read of the same messages (`ws` client, JSON parsed, nothing else);
 * - feed: the same trades posted to `POST /api/feed/ticks` of a test gateway (`TICK_SOURCE=feed`), in batches of
 *   the route's maximum, until every batch is accepted;
 * - while the provider path runs, one trade in every `CROSS_EVERY` crosses an armed alert: the time from sending
 *   its batch to the engine appending its trigger gives the tick-to-notification p50 and p99.
 *
 * The raw read and the provider path are timed from their first trade to their last; the feed route from its
 * first post to the last acceptance. Prints a table, then one JSON line. `BENCH_TRADES` overrides the number of trades.
 */
import http from 'node:http';
import WebSocket from 'ws';
import { FEED_MAX_TICKS } from '../../domain/contract/feed.ts';
import type { EngineTrigger } from '../../engine/alerts/alertEngine.ts';
import { alpacaProtocol } from '../../engine/ticks/alpaca.ts';
import { ProviderStream } from '../../engine/ticks/providerStream.ts';
import { EnginePath, LoopbackProvider } from '../../engine/ticks/providerTesting.ts';
import { startTestGateway } from '../../gateway/testing/harness.ts';
import { progress } from './child.ts';
import { percentile } from './gateway.ts';

/** Figures of one run. */
export interface IngestBenchResult {
  readonly bench: 'ingest';
  readonly trades: number;
  /** Trades per second through the Alpaca client, the tick bus and the alert engine. */
  readonly providerTradesPerSec: number;
  /** Trades per second accepted by the feed route of a test gateway. */
  readonly feedTradesPerSec: number;
  /** Trades per second of the raw WebSocket read (the baseline). */
  readonly rawTradesPerSec: number;
  /** providerTradesPerSec / rawTradesPerSec and feedTradesPerSec / rawTradesPerSec. */
  readonly providerToRaw: number;
  readonly feedToRaw: number;
  /** Armed alerts during the provider run. */
  readonly armedAlerts: number;
  /** Crossing trades timed, and the ms from sending their batch to the engine's trigger. */
  readonly crossings: number;
  readonly notifyP50Ms: number;
  readonly notifyP99Ms: number;
}

const TRADES = Number(process.env.BENCH_TRADES ?? 200_000);
const BATCH = 1_000;
const SYMBOLS = ['AAPL', 'MSFT', 'NVDA', 'AMZN', 'GOOGL', 'META', 'TSLA', 'JPM', 'V', 'KO'];
/** Price alerts armed per symbol, far from the prices the run sends. */
const ALERTS_PER_SYMBOL = 50;
const CROSS_EVERY = 2_000;
const KEY = 'PKBENCH';
const SECRET = 'bench-secret';
const TOKEN = 'bench-feed-token-0123456789';
/** Budgets: trades per second through the provider path, and the p99 tick-to-notification. */
export const BUDGET_TRADES_PER_SEC = 50_000;
export const BUDGET_P99_MS = 10;

/** The run's trades: symbol and price; every `CROSS_EVERY`th crosses the next crossing alert. */
function priceOf(i: number): { symbol: string; price: number } {
  return { symbol: SYMBOLS[i % SYMBOLS.length]!, price: 100 + (i % 97) / 100 };
}

/** The Alpaca trade message of trade i. */
function alpacaTrade(i: number, crossing: string | null): Record<string, unknown> {
  const { symbol, price } = priceOf(i);
  const at = new Date().toISOString();
  return crossing === null
    ? { T: 't', S: symbol, p: price, s: 10, t: at, i, x: 'V', z: 'C', c: ['@'] }
    : { T: 't', S: crossing, p: 1_000, s: 1, t: at, i, x: 'V', z: 'C', c: ['@'] };
}

/** A loopback Alpaca server that, once the client subscribes, sends `TRADES` trades in batches and records when. */
function tradeServer(crossingSymbol: (n: number) => string | null): {
  server: LoopbackProvider;
  sentAt: Map<number, number>;
} {
  const sentAt = new Map<number, number>();
  const server = new LoopbackProvider({
    onConnection: (c) => c.socket.send(JSON.stringify([{ T: 'success', msg: 'connected' }])),
    onMessage: (c, message) => {
      const m = message as { action: string; trades?: string[] };
      if (m.action === 'auth') {
        c.socket.send(JSON.stringify([{ T: 'success', msg: 'authenticated' }]));
        return;
      }
      if (m.action !== 'subscribe') return;
      c.socket.send(JSON.stringify([{ T: 'subscription', trades: m.trades ?? [], quotes: [], bars: [] }]));
      const sendFrom = (start: number): void => {
        if (start >= TRADES || c.socket.readyState !== c.socket.OPEN) return;
        const batch: Record<string, unknown>[] = [];
        for (let i = start; i < Math.min(TRADES, start + BATCH); i++) {
          const crossing = i % CROSS_EVERY === CROSS_EVERY - 1 ? crossingSymbol(Math.floor(i / CROSS_EVERY)) : null;
          if (crossing !== null) sentAt.set(Math.floor(i / CROSS_EVERY), performance.now());
          batch.push(alpacaTrade(i, crossing));
        }
        c.socket.send(JSON.stringify(batch), () => setImmediate(() => sendFrom(start + BATCH)));
      };
      sendFrom(0);
    },
  });
  return { server, sentAt };
}

/** The raw read: a plain `ws` client parsing every message until it has seen every trade. */
async function rawRead(): Promise<number> {
  const { server } = tradeServer(() => null);
  await server.listening();
  let started = 0;
  await new Promise<void>((resolve, reject) => {
    const socket = new WebSocket(server.url);
    let seen = 0;
    socket.on('error', reject);
    socket.on('message', (data: Buffer) => {
      const messages = JSON.parse(data.toString()) as { T: string }[];
      for (const m of messages) {
        if (m.T === 't') {
          if (seen === 0) started = performance.now();
          seen++;
        } else if (m.T === 'success' && (m as { msg?: string }).msg === 'connected')
          socket.send(JSON.stringify({ action: 'auth', key: KEY, secret: SECRET }));
        else if (m.T === 'success') socket.send(JSON.stringify({ action: 'subscribe', trades: SYMBOLS }));
      }
      if (seen >= TRADES) {
        socket.close();
        resolve();
      }
    });
  });
  const seconds = (performance.now() - started) / 1000;
  await server.close();
  return TRADES / seconds;
}

/** The provider path: Alpaca client → tick bus → alert engine; answers trades/s and the crossings' latencies. */
async function providerPath(): Promise<{ perSec: number; armed: number; latencies: number[] }> {
  const crossings = Math.floor(TRADES / CROSS_EVERY);
  const crossSymbols = Array.from({ length: crossings }, (_, n) => `X${String(n).padStart(3, '0')}`);
  const engine = await EnginePath.start([...SYMBOLS, ...crossSymbols].map((symbol) => ({ symbol, bars: [] })));
  let armed = 0;
  for (const symbol of SYMBOLS) {
    for (let k = 0; k < ALERTS_PER_SYMBOL; k++) {
      await engine.createAlert(`u${k % 20}`, { symbol, kind: 'PRICE', alerttype: 'U', threshold: 500 + k });
      armed++;
    }
  }
  const alertSymbol = new Map<string, number>();
  for (const [n, symbol] of crossSymbols.entries()) {
    await engine.createAlert('crosser', { symbol, kind: 'PRICE', alerttype: 'U', threshold: 999 });
    alertSymbol.set(symbol, n);
    armed++;
  }
  progress(`provider path: ${armed} alerts armed`);
  const { server, sentAt } = tradeServer((n) => crossSymbols[n] ?? null);
  await server.listening();
  const latencies: number[] = [];
  engine.on('trigger', (trigger: EngineTrigger) => {
    const n = alertSymbol.get(trigger.event.data.symbol);
    const at = n === undefined ? undefined : sentAt.get(n);
    if (at !== undefined) latencies.push(performance.now() - at);
  });
  let delivered = 0;
  let started = 0;
  const done = new Promise<void>((resolve) => {
    const stream = new ProviderStream(
      alpacaProtocol({ keyId: KEY, secretKey: SECRET, feed: 'sip', streamUrl: server.url }),
      { demand: { symbols: () => [...SYMBOLS, ...crossSymbols] } },
    );
    stream.start({
      onTicks: (batch) => {
        if (delivered === 0) started = performance.now();
        delivered += batch.length;
        void engine.bus.publish(batch).then(() => {
          if (delivered >= TRADES) {
            void stream.stop().then(resolve);
          }
        });
      },
    });
  });
  await done;
  await engine.alerts.flush();
  const seconds = (performance.now() - started) / 1000;
  await server.close();
  await engine.close();
  return { perSec: TRADES / seconds, armed, latencies };
}

/** The feed route of a test gateway: the same trades posted in batches of the route's maximum. */
async function feedRoute(): Promise<number> {
  const gw = await startTestGateway({ env: { TICK_SOURCE: 'feed', FEED_TOKEN: TOKEN } });
  try {
    const { port } = new URL(gw.url);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    const post = (body: string): Promise<number> =>
      new Promise((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            path: '/api/feed/ticks',
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const started = performance.now();
    for (let start = 0; start < TRADES; start += FEED_MAX_TICKS) {
      const ticks = [];
      for (let i = start; i < Math.min(TRADES, start + FEED_MAX_TICKS); i++) ticks.push({ ...priceOf(i), size: 10 });
      const status = await post(JSON.stringify(ticks));
      if (status !== 202) throw new Error(`feed route answered ${status}`);
    }
    const seconds = (performance.now() - started) / 1000;
    agent.destroy();
    return TRADES / seconds;
  } finally {
    await gw.close();
  }
}

/** Runs the three paths. */
export async function benchIngest(): Promise<IngestBenchResult> {
  progress(`raw WebSocket read of ${TRADES} trades`);
  const raw = await rawRead();
  progress(`provider path (Alpaca client → tick bus → alert engine)`);
  const provider = await providerPath();
  progress(`feed route of a test gateway`);
  const feed = await feedRoute();
  const sorted = [...provider.latencies].sort((a, b) => a - b);
  return {
    bench: 'ingest',
    trades: TRADES,
    providerTradesPerSec: Math.round(provider.perSec),
    feedTradesPerSec: Math.round(feed),
    rawTradesPerSec: Math.round(raw),
    providerToRaw: Math.round((provider.perSec / raw) * 100) / 100,
    feedToRaw: Math.round((feed / raw) * 100) / 100,
    armedAlerts: provider.armed,
    crossings: sorted.length,
    notifyP50Ms: Math.round(percentile(sorted, 50) * 100) / 100,
    notifyP99Ms: Math.round(percentile(sorted, 99) * 100) / 100,
  };
}

/** Prints the figures; answers whether the budgets are met. */
export function report(r: IngestBenchResult): boolean {
  const met = r.providerTradesPerSec >= BUDGET_TRADES_PER_SEC && r.notifyP99Ms < BUDGET_P99_MS && r.crossings > 0;
  console.log(`ingest of ${r.trades} trades (${r.armedAlerts} armed alerts)`);
  console.log(`  raw WebSocket read        ${r.rawTradesPerSec.toLocaleString('en-US')} trades/s (baseline)`);
  console.log(
    `  provider → bus → alerts   ${r.providerTradesPerSec.toLocaleString('en-US')} trades/s (${r.providerToRaw} × raw; budget ≥ ${BUDGET_TRADES_PER_SEC.toLocaleString('en-US')})`,
  );
  console.log(
    `  feed route                ${r.feedTradesPerSec.toLocaleString('en-US')} trades/s (${r.feedToRaw} × raw)`,
  );
  console.log(
    `  tick → trigger            p50 ${r.notifyP50Ms} ms, p99 ${r.notifyP99Ms} ms over ${r.crossings} crossings (budget p99 < ${BUDGET_P99_MS} ms)`,
  );
  console.log(met ? 'budgets met' : 'BUDGET MISSED');
  console.log(JSON.stringify(r));
  return met;
}
