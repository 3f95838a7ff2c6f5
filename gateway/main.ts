/**
 * The composition root: reads the configuration, opens the ports, builds the application, listens, and
 * shuts everything down on SIGINT or SIGTERM. No other module wires adapters together.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.ts';
import { loadConfig, type Config } from '../platform/config.ts';
import { createLogger, type Logger } from '../platform/logger.ts';
import { openSystem, type System } from './system.ts';
import { attachRealtime, type Realtime } from './realtime/realtime.ts';
import { startRelay, type Relay } from './realtime/relay.ts';
import { createHealthApp } from './healthApp.ts';

/** A started process: where it listens and how to stop it. */
export interface RunningGateway {
  /** The configuration it runs with. */
  readonly config: Config;
  /** Base URL of the HTTP server. */
  readonly url: string;
  /** The opened ports and started parts. */
  readonly system: System;
  /** Socket.IO on the HTTP server, when this process runs the gateway. */
  readonly realtime: Realtime | null;
  /** The Socket.IO relay of an engine or projections process in the distributed mode. */
  readonly relay: Relay | null;
  /** Stops accepting requests, then closes the ports; safe to call more than once. */
  close(): Promise<void>;
}

/** Longest wait for open connections and ports to close before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

function listen(server: http.Server, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    // Idle keep-alive connections would otherwise hold the server open until they time out.
    server.closeIdleConnections();
  });
}

/** Starts the gateway with the configuration read from `env`, without installing signal handlers. */
export async function startGateway(env: NodeJS.ProcessEnv = process.env, logger?: Logger): Promise<RunningGateway> {
  const config = loadConfig(env);
  const log = logger ?? createLogger(config);
  if (config.eventStoreUrl === null) fs.mkdirSync(config.dataDir, { recursive: true });

  const system = await openSystem(config, log);
  // Roles `engine` and `projections` serve no API: their port answers the health routes only.
  const servesApi = config.role === 'all' || config.role === 'gateway';
  let realtime: Realtime | null = null;
  const health = {
    projections: null,
    engine: null,
    ...system.appDeps.health,
    sockets: servesApi ? () => realtime?.socketCount() ?? 0 : undefined,
  };
  // The application first: Socket.IO, attached after, takes its own path and hands the rest to it.
  const app = servesApi ? createApp({ ...system.appDeps, health }) : createHealthApp(system.events, health);
  const server = http.createServer(app.callback());
  const engine = system.engine;
  const triggers = engine ? (listener: Parameters<typeof engine.onTrigger>[0]) => engine.onTrigger(listener) : null;
  const onReadModelCommit = (listener: Parameters<System['onReadModelCommit']>[0]) =>
    system.onReadModelCommit(listener);
  if (servesApi) {
    const live = system.liveQuotes;
    realtime = attachRealtime(server, {
      sessions: system.appDeps.sessions,
      symbols: system.appDeps.symbols,
      quotes: () => system.market.quotes,
      quoteUpdates: live ? (listener) => live.onUpdate(listener) : null,
      triggers,
      events: system.events,
      readModels: system.readModels,
      logger: log,
      onReadModelCommit,
      redis: system.redis,
      origin: system.appDeps.origin,
    });
  }
  const relay = !servesApi && system.redis ? startRelay({ redis: system.redis, triggers, onReadModelCommit }) : null;
  let address: AddressInfo;
  try {
    address = await listen(server, config.port);
  } catch (err) {
    await realtime?.close();
    await relay?.close();
    await system.close();
    throw err;
  }
  const url = `http://localhost:${address.port}`;
  log.info(
    { url, role: config.role, eventStore: config.eventStoreUrl === null ? 'sqlite' : 'esdb', dataDir: config.dataDir },
    `StockPulse listening on ${url}`,
  );

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      try {
        await realtime?.close();
        await relay?.close();
        await closeServer(server);
      } finally {
        await system.close();
      }
      log.info('stopped');
    })();
    return closing;
  };
  return { config, url, system, realtime, relay, close };
}

/** Runs the gateway until SIGINT or SIGTERM, then closes it and lets the process exit. */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<RunningGateway> {
  const logger = createLogger(loadConfig(env));
  const running = await startGateway(env, logger);
  const stop = (signal: NodeJS.Signals): void => {
    logger.info({ signal }, 'shutting down');
    // The timer is unref'd: it only matters when something keeps the process alive after closing.
    setTimeout(() => {
      logger.error('shutdown took too long, exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    running.close().then(
      () => {
        process.exitCode = 0;
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return running;
}
