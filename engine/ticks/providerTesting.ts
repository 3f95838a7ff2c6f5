/**
 * Test support for the provider streams: a WebSocket server on loopback whose connections a test drives, a
 * wait on events, and the engine path a provider's trades take in production (tick bus, alert engine on
 * SQLite).
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { alertsDecider, type AlertTriggeredData } from '../../domain/alerts/alerts.ts';
import { createInProcessTickBus } from '../../platform/bus/inProcess.ts';
import type { TickBus } from '../../platform/bus/port.ts';
import { handleCommand } from '../../platform/commandHandler.ts';
import { StreamNotFoundError, type EventStore } from '../../platform/eventstore/port.ts';
import { openSqliteEventStore } from '../../platform/eventstore/sqlite.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { openSqliteReadModelStore } from '../../platform/readmodels/sqlite.ts';
import { AlertEngine } from '../alerts/alertEngine.ts';
import { LiveQuotes, type QuoteSeed } from '../quotes/liveQuotes.ts';
import { ManualClock } from './clock.ts';
import { memoryDayCloseClaims, rollByCalendar } from './dayCloser.ts';
import { newYorkInstant, regularMarketClock } from './marketClock.ts';
import { ProviderStream, type ProviderHealth, type ProviderProtocol } from './providerStream.ts';
import type { Tick, TickListener } from './tick.ts';
import type { TickSourceSubject } from './tickSource.contract.ts';

/** Resolves once `check()` holds, checking again on each event of `emitters`; rejects after `timeoutMs`. */
export async function until(
  check: () => boolean,
  emitters: readonly EventEmitter[],
  what: string,
  timeoutMs = 5000,
): Promise<void> {
  if (check()) return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timed out waiting for ${what}`));
    }, timeoutMs);
    const onEvent = (): void => {
      if (!check()) return;
      off();
      resolve();
    };
    const off = (): void => {
      clearTimeout(timer);
      for (const emitter of emitters) emitter.off('event', onEvent);
    };
    for (const emitter of emitters) emitter.on('event', onEvent);
  });
}

/** One client connection of a {@link LoopbackProvider}, with the messages it sent (decoded). */
export interface ProviderConnection {
  readonly socket: WebSocket;
  readonly received: unknown[];
  /** The URL the client asked (its query carries a token for some providers). */
  readonly url: string;
}

/**
 * A WebSocket server on 127.0.0.1 (a free port) that answers like a provider: `onConnection` and `onMessage`
 * are the provider's behaviour; every connection and message emits `event`.
 */
export class LoopbackProvider extends EventEmitter {
  readonly connections: ProviderConnection[] = [];
  private readonly server: WebSocketServer;

  constructor(behaviour: {
    onConnection?(connection: ProviderConnection): void;
    onMessage(connection: ProviderConnection, message: unknown): void;
    /** Refuses the upgrade with this HTTP status when it answers one (e.g. a bad token). */
    refuse?(request: IncomingMessage): number | null;
  }) {
    super();
    this.server = new WebSocketServer({
      host: '127.0.0.1',
      port: 0,
      verifyClient: (info, done) => {
        const status = behaviour.refuse?.(info.req) ?? null;
        if (status === null) done(true);
        else {
          done(false, status, 'Unauthorized');
          this.emit('event');
        }
      },
    });
    this.server.on('connection', (socket, request) => {
      const connection: ProviderConnection = { socket, received: [], url: request.url ?? '/' };
      this.connections.push(connection);
      socket.on('message', (data: Buffer) => {
        const message: unknown = JSON.parse(data.toString());
        connection.received.push(message);
        behaviour.onMessage(connection, message);
        this.emit('event');
      });
      socket.on('close', () => this.emit('event'));
      behaviour.onConnection?.(connection);
      this.emit('event');
    });
  }

  /** Resolves once listening. */
  async listening(): Promise<void> {
    if (this.server.address() === null) await once(this.server, 'listening');
  }

  /** `ws://127.0.0.1:<port>`. */
  get url(): string {
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The latest connection. */
  get current(): ProviderConnection {
    const last = this.connections.at(-1);
    if (!last) throw new Error('no connection yet');
    return last;
  }

  /** Sends raw text (or JSON of a value) on the latest connection. */
  send(message: unknown): void {
    this.current.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Closes the server and every connection. */
  async close(): Promise<void> {
    for (const client of this.server.clients) client.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The production path of ticks in one process: in-process bus → alert engine (SQLite log and read models). */
export class EnginePath extends EventEmitter {
  readonly bus: TickBus = createInProcessTickBus();
  readonly quotes: LiveQuotes;
  readonly alerts: AlertEngine;
  readonly events: EventStore;
  private readonly readModels: ReadModelStore;

  constructor(
    /** The folder of its files. */
    readonly dir: string,
    seeds: readonly QuoteSeed[],
  ) {
    super();
    this.events = openSqliteEventStore({ file: join(dir, 'events.db') });
    this.readModels = openSqliteReadModelStore({ file: join(dir, 'readmodels.db') });
    this.quotes = new LiveQuotes(seeds);
    this.alerts = new AlertEngine({
      events: this.events,
      readModels: this.readModels,
      quotes: this.quotes,
      onTriggered: (trigger) => {
        this.emit('trigger', trigger);
        this.emit('event');
      },
    });
  }

  /** Opens stores in a fresh temporary directory and starts the engine on the bus. */
  static async start(seeds: readonly QuoteSeed[]): Promise<EnginePath> {
    const path = new EnginePath(mkdtempSync(join(tmpdir(), 'sp-engine-path-')), seeds);
    await path.alerts.start();
    await path.bus.subscribe(path.alerts).ready;
    await path.bus.subscribe({ onTicks: () => void path.emit('event') }).ready;
    return path;
  }

  /** Creates an alert as a user's command does and waits until the engine has it. */
  async createAlert(userId: string, data: Record<string, unknown>): Promise<string> {
    const alertId = randomUUID();
    const at = new Date().toISOString();
    const outcome = await handleCommand(
      this.events,
      alertsDecider,
      `alerts-${userId}`,
      { type: 'CreateAlert', data: { alertId, period: null, threshold: null, at, ...data } } as never,
      { commandId: randomUUID(), userId, at, actor: `user:${userId}` },
    );
    await this.alerts.waitFor(outcome.position!);
    return alertId;
  }

  /** The triggers appended on a user's alerts stream. */
  async triggered(userId: string): Promise<AlertTriggeredData[]> {
    await this.alerts.flush();
    try {
      const all = await this.events.readStream(`alerts-${userId}`);
      return all.filter((e) => e.type === 'AlertTriggered').map((e) => e.data as AlertTriggeredData);
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
  }

  /** Stops the engine and removes its files. */
  async close(): Promise<void> {
    await this.alerts.stop();
    await this.bus.close();
    await this.readModels.close();
    await this.events.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A started provider stream, what it delivered, and its health changes (each also an `event`). */
export interface WatchedStream {
  readonly stream: ProviderStream;
  readonly events: EventEmitter;
  readonly ticks: Tick[];
  readonly healths: ProviderHealth[];
}

/** Starts a stream of `protocol` carrying `demand()`, with waits of a few milliseconds. */
export function watchStream(protocol: ProviderProtocol, demand: () => string[]): WatchedStream {
  const events = new EventEmitter();
  const ticks: Tick[] = [];
  const healths: ProviderHealth[] = [];
  const stream = new ProviderStream(protocol, {
    demand: { symbols: demand },
    backoffMs: { initial: 5, max: 20 },
    refreshMs: 20,
    onHealth: (h) => {
      healths.push(h);
      events.emit('event');
    },
  });
  stream.start({
    onTicks: (batch) => {
      ticks.push(...batch);
      events.emit('event');
    },
  });
  return { stream, events, ticks, healths };
}

/** A trade a test server sends: symbol, price, size, time (ms). */
export type TradeRow = [string, number, number, number];

/**
 * The tick-source contract's subject for a provider stream closed by the calendar: AAPL and KO trade on
 * Friday 2025-01-03 before the close, the clock passes the weekend, AAPL trades on Monday.
 */
export function calendarStreamSubject(
  server: LoopbackProvider,
  protocolAt: (url: string) => ProviderProtocol,
  sendTrades: (rows: TradeRow[]) => void,
): TickSourceSubject {
  const clock = new ManualClock(newYorkInstant('2025-01-03', 15, 0));
  const sessions = regularMarketClock('2025-01-02');
  const events = new EventEmitter();
  const stream = new ProviderStream(protocolAt(server.url), {
    demand: { symbols: () => ['AAPL', 'KO'] },
    clock,
    staleMs: 1e12,
    onHealth: () => events.emit('event'),
  });
  const { source, closer } = rollByCalendar(createInProcessTickBus(), stream, {
    sessions,
    clock,
    claims: memoryDayCloseClaims(),
    lastPrices: [
      ['AAPL', 243],
      ['KO', 62],
    ],
  });
  let received = 0;
  const counted = {
    start: (listener: TickListener) =>
      source.start({
        onTicks: (batch) => {
          received += batch.length;
          events.emit('event');
          return listener.onTicks(batch);
        },
        onDayClosed: (day) => listener.onDayClosed?.(day),
      }),
    stop: async () => {
      await source.stop();
      await server.close();
    },
  };
  return {
    source: counted,
    run: async () => {
      if (stream.health().state === 'stopped') return;
      await until(() => stream.health().subscribed === 2, [server, events], 'the subscription');
      sendTrades([
        ['AAPL', 243.1, 100, Date.parse('2025-01-03T20:00:01Z')],
        ['KO', 62.2, 7, Date.parse('2025-01-03T20:30:00Z')],
      ]);
      sendTrades([['AAPL', 242.9, 30, Date.parse('2025-01-03T20:59:00Z')]]);
      await until(() => received === 3, [events], 'the first day');
      clock.advanceTo(newYorkInstant('2025-01-06', 9, 0));
      await closer.settled();
      sendTrades([['AAPL', 244, 100, Date.parse('2025-01-06T14:31:00Z')]]);
      await until(() => received === 4, [events], 'the next day');
    },
  };
}

/** A loopback server speaking the Alpaca market data v2 stream protocol, with each connection's subscriptions. */
export type AlpacaServer = LoopbackProvider & { subscriptions: (c?: ProviderConnection) => string[] };

/** A loopback Alpaca stream accepting one key and secret (a 402 and a close for others). */
export function loopbackAlpaca(key: string, secret: string): AlpacaServer {
  const subs = new Map<ProviderConnection, Set<string>>();
  const server = new LoopbackProvider({
    onConnection: (c) => c.socket.send(JSON.stringify([{ T: 'success', msg: 'connected' }])),
    onMessage: (c, message) => {
      const m = message as { action: string; key?: string; secret?: string; trades?: string[] };
      const reply = (value: unknown): void => c.socket.send(JSON.stringify([value]));
      if (m.action === 'auth') {
        if (m.key === key && m.secret === secret) reply({ T: 'success', msg: 'authenticated' });
        else {
          reply({ T: 'error', code: 402, msg: 'auth failed' });
          c.socket.close();
        }
        return;
      }
      const set = subs.get(c) ?? new Set<string>();
      subs.set(c, set);
      if (m.action === 'subscribe') for (const s of m.trades ?? []) set.add(s);
      else if (m.action === 'unsubscribe') for (const s of m.trades ?? []) set.delete(s);
      else return reply({ T: 'error', code: 400, msg: 'invalid syntax' });
      reply({ T: 'subscription', trades: [...set].sort(), quotes: [], bars: [] });
    },
  });
  return Object.assign(server, { subscriptions: (c = server.current) => [...(subs.get(c) ?? [])].sort() });
}
