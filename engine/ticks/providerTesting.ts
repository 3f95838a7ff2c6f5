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
    private readonly dir: string,
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
      onTriggered: () => this.emit('event'),
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
