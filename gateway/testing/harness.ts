/**
 * For API tests: the real gateway on port 0 with the embedded adapters in a temporary `DATA_DIR`, and a
 * client with its own cookie jar (one per simulated browser).
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import http from 'node:http';
import { join } from 'node:path';
import type { EngineTrigger } from '../../engine/alerts/alertEngine.ts';
import { openMarketData } from '../../engine/market/marketData.ts';
import { MARKET_DB_FILE } from '../../engine/marketdata/store.ts';
import { loadConfig } from '../../platform/config.ts';
import { startGateway, type RunningGateway } from '../main.ts';

/** A running test gateway. */
export interface TestGateway {
  /** Base URL. */
  readonly url: string;
  /** Its data folder. */
  readonly dataDir: string;
  /** The running gateway. */
  readonly running: RunningGateway;
  /** A new client with an empty cookie jar. */
  client(): TestClient;
  /** A new user, registered and signed in, with its client. */
  user(prefix?: string): Promise<TestClient & { readonly username: string }>;
  /**
   * Publishes ticks on the tick bus, as the feed route and the tick sources do, once the engine's alert index
   * includes every alert created so far; resolves when the engine has evaluated them and the read models hold
   * the notifications they fired, answering those triggers in the order they were appended.
   */
  pushTicks(ticks: readonly TestTick[]): Promise<EngineTrigger[]>;
  /**
   * Opens the trading day of `symbols` with a tick at each one's last close, so that the change on the day of
   * the ticks that follow is measured from that close (the quote's `prevClose`).
   */
  openDay(symbols: readonly string[]): Promise<void>;
  /** How many events a stream of the log holds (0 for one never written). */
  eventCount(stream: string): Promise<number>;
  /** Stops the gateway; `keepData` leaves the folder for a restart. */
  close(options?: { keepData?: boolean }): Promise<void>;
}

/** A tick as a test pushes it; `ts` defaults to now, `size` to 0. */
export interface TestTick {
  readonly symbol: string;
  readonly price: number;
  readonly size?: number;
  readonly ts?: number;
}

/** An answer as a test reads it. */
export interface TestResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
  readonly text: string;
}

/** A request body as refusal tests write it: `raw` text, or else `body` sent as JSON, with extra headers. */
export interface TestInput {
  readonly raw?: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

/** One HTTP exchange with node:http, which (unlike fetch) sends any header, `Origin` included. */
function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<{ status: number; headers: Headers; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const out = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) out.append(name, v);
        }
        resolve({ status: res.statusCode ?? 0, headers: out, text: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A client with a cookie jar. */
export class TestClient {
  readonly cookies = new Map<string, string>();

  constructor(readonly url: string) {}

  /** Sends a request; `body` is sent as JSON unless `raw` is given. */
  async request(
    method: string,
    path: string,
    options: { body?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ): Promise<TestResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookies.size > 0) {
      headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    }
    let body: string | undefined = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await send(`${this.url}${path}`, method, headers, body);
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = res.text;
    let parsed: unknown = text;
    try {
      parsed = text ? (JSON.parse(text) as unknown) : undefined;
    } catch {
      // Not JSON: the text is the body.
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  /** GET. */
  get(path: string, headers?: Record<string, string>): Promise<TestResponse> {
    return this.request('GET', path, headers ? { headers } : {});
  }

  /** POST with a JSON body. */
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse> {
    return this.request('POST', path, { body, ...(headers ? { headers } : {}) });
  }

  /** POSTs `input`'s raw text, or else its body as JSON, declared JSON unless its headers say otherwise. */
  postInput(path: string, input: TestInput): Promise<TestResponse> {
    return this.request('POST', path, {
      ...(input.raw !== undefined ? { raw: input.raw } : { body: input.body }),
      headers: { 'content-type': 'application/json', ...input.headers },
    });
  }

  /** GETs `path`, expects 200 (naming the path and the answer otherwise) and answers the body. */
  async getOk<T>(path: string): Promise<T> {
    const res = await this.get(path);
    expect(res.status, `${path}: ${res.text}`).to.equal(200);
    return res.body as T;
  }

  /** GETs `path` and expects a 400 whose message starts with the refused field (`query.stks[1]: …`). */
  async getRefused(path: string, field: string): Promise<void> {
    const res = await this.get(path);
    expect(res.status, res.text).to.equal(400);
    const escaped = field.replace(/[.[\]]/g, '\\$&');
    expect((res.body as { message: string }).message).to.match(new RegExp(`^${escaped}: `));
  }
}

/**
 * The day the test market's history ends on (`MARKET_AS_OF` of every test gateway), fixed so that no test
 * depends on the real date; after the universe date, so tests see a history that runs on past it.
 */
export const TEST_MARKET_DATE = '2025-02-24';

/** Market databases built once per test process, by seed, copied into each new data folder. */
const marketTemplates = new Map<number, string>();

/**
 * The path of a market database built and analysed with `seed`, made on first use in a temporary folder that is
 * removed when the process exits, so that each new test gateway copies it instead of building the market again.
 */
export function marketTemplate(seed: number): string {
  let file = marketTemplates.get(seed);
  if (file === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'sp-market-template-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    openMarketData({ dataDir: dir, seed, endDate: TEST_MARKET_DATE }).close();
    file = join(dir, MARKET_DB_FILE);
    marketTemplates.set(seed, file);
  }
  return file;
}

// Under mocha, the default market is built before the first test, with the time a busy machine needs, rather
// than inside whichever test starts the first gateway.
if (typeof before === 'function') {
  before(function () {
    this.timeout(300_000);
    marketTemplate(loadConfig({}).marketSeed);
  });
}

/** See {@link TestGateway.pushTicks}. */
async function pushTicks(running: RunningGateway, ticks: readonly TestTick[]): Promise<EngineTrigger[]> {
  const { engine, events, projections } = running.system;
  if (!engine) throw new Error('this gateway runs no engine');
  await engine.alerts.waitFor(await events.headPosition());
  const fired: EngineTrigger[] = [];
  const stop = engine.onTrigger((trigger) => fired.push(trigger));
  try {
    const at = Date.now();
    // The in-process bus calls the engine before `publish` resolves; `flush` settles the appends it started.
    await engine.bus.publish(
      ticks.map((t) => ({ symbol: t.symbol, price: t.price, size: t.size ?? 0, ts: t.ts ?? at })),
    );
    await engine.alerts.flush();
  } finally {
    stop();
  }
  const last = fired.at(-1)?.position;
  if (last && projections) await projections.waitFor(last, ['AlertTriggered']);
  return fired;
}

/** The data folders this process made and has not removed yet. */
const dataDirs = new Set<string>();
let removalArranged = false;

/** Removes, when the process exits, every data folder a test left behind (one that failed before closing). */
function removeLeftDataDirs(): void {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  dataDirs.clear();
}

/** A fresh temporary data folder, removed at the latest when the process exits. */
function makeDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sp-gw-'));
  if (!removalArranged) process.once('exit', removeLeftDataDirs);
  removalArranged = true;
  dataDirs.add(dir);
  return dir;
}

/**
 * Resolves once the market serves a quote source made after `symbol` traded at `price`: the quotes it prices the
 * screener's rows and the market caps with are replaced at most once a second while prices move.
 */
export function servedAt(gw: TestGateway, symbol: string, price: number): Promise<void> {
  const { market, liveQuotes } = gw.running.system;
  return new Promise((resolve) => {
    const stop = market.onQuoteSource(() => {
      if (liveQuotes?.quote(symbol)?.price !== price) return;
      stop();
      resolve();
    });
  });
}

/** What {@link startTestGateway} takes: a data folder to restart on, variables of the environment. */
export interface TestGatewayOptions {
  readonly dataDir?: string;
  readonly env?: Record<string, string>;
}

/**
 * Starts a gateway before the tests of the suite it is called in and closes it after them (mocha's `before` and
 * `after`), calling `ready` with it once it listens (to keep it, register users, arm alerts): a suite's
 * gateway in one call. It is closed even when `ready` fails.
 */
export function useTestGateway(ready: (gw: TestGateway) => void | Promise<void>): void;
export function useTestGateway(options: TestGatewayOptions, ready: (gw: TestGateway) => void | Promise<void>): void;
export function useTestGateway(
  first: TestGatewayOptions | ((gw: TestGateway) => void | Promise<void>),
  second?: (gw: TestGateway) => void | Promise<void>,
): void {
  const options = typeof first === 'function' ? {} : first;
  const ready = typeof first === 'function' ? first : second!;
  let gw: TestGateway | undefined;
  before(async function () {
    // The market is built once per test process; on a busy machine that outlasts a test's time.
    this.timeout(180_000);
    gw = await startTestGateway(options);
    await ready(gw);
  });
  after(async function () {
    await gw?.close();
  });
}

/**
 * Starts the gateway in a fresh temporary folder (or `dataDir`, to restart on the same data); a fresh folder
 * gets a copy of the market database built once per process for its seed.
 */
export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const dataDir = options.dataDir ?? makeDataDir();
  if (options.dataDir === undefined) {
    copyFileSync(marketTemplate(loadConfig({ ...options.env }).marketSeed), join(dataDir, MARKET_DB_FILE));
  }
  // The feed source by default: no price moves unless a test pushes ticks, so tests stay deterministic.
  const running = await startGateway({
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    TICK_SOURCE: 'feed',
    // Every test user registers from the loopback address.
    REGISTRATIONS_PER_ADDRESS: '1000000',
    REGISTRATIONS_PER_HOUR: '1000000',
    MARKET_AS_OF: TEST_MARKET_DATE,
    ...options.env,
  });
  const url = running.url.replace('localhost', '127.0.0.1');
  return {
    url,
    dataDir,
    running,
    client: () => new TestClient(url),
    user: async (prefix = 'u') => {
      const username = `${prefix}${randomUUID().replaceAll('-', '').slice(0, 12)}`;
      const client = new TestClient(url);
      const reg = await client.post('/api/register', { username, password: 'correct horse' });
      if (reg.status !== 201) throw new Error(`register ${username}: ${reg.status} ${reg.text}`);
      const login = await client.post('/api/login', { username, password: 'correct horse' });
      if (login.status !== 200) throw new Error(`login ${username}: ${login.status} ${login.text}`);
      return Object.assign(client, { username });
    },
    pushTicks: (ticks) => pushTicks(running, ticks),
    eventCount: async (stream) => (await running.system.events.readStream(stream).catch(() => [])).length,
    openDay: async (symbols) => {
      const quotes = running.system.liveQuotes;
      if (!quotes) throw new Error('this gateway serves no live quotes');
      await pushTicks(
        running,
        quotes.quotes(symbols).map((q) => ({ symbol: q.symbol, price: q.price })),
      );
    },
    close: async ({ keepData = false } = {}) => {
      await running.close();
      if (!keepData) {
        rmSync(dataDir, { recursive: true, force: true });
        dataDirs.delete(dataDir);
      }
    },
  };
}
