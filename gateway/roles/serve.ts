/**
 * What a role serves on `PORT`: the API and Socket.IO (roles `all` and `gateway`), or the health routes and,
 * with Redis, the Socket.IO relay (roles `engine` and `projections`); and the running process it answers.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningEngine } from '../../engine/running.ts';
import { setUpDelivery, type DeliverySetup } from '../../engine/delivery/setup.ts';
import type { MarketData } from '../../engine/market/marketData.ts';
import type { LiveQuotes } from '../../engine/quotes/liveQuotes.ts';
import type { TickBus } from '../../platform/bus/port.ts';
import type { Config } from '../../platform/config.ts';
import type { EventStore } from '../../platform/eventstore/port.ts';
import { componentLogger, type Logger } from '../../platform/logger.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { openSqliteReadModelStore } from '../../platform/readmodels/sqlite.ts';
import type { RedisClient } from '../../platform/redis.ts';
import { checkpointSync, type ReadModelCommitListener, type RunningProjections } from '../../projections/index.ts';
import { RebuildChecks } from '../../projections/rebuildChecks.ts';
import { createApp, type AppDeps } from '../app.ts';
import { createAuthLimiter } from '../auth/limits.ts';
import { memoryLimiters, redisLimiters } from '../auth/rateLimit.ts';
import { createHealthApp } from '../healthApp.ts';
import { answerClientErrors } from '../http/clientError.ts';
import { attachRealtime, endingSockets, type Realtime } from '../realtime/realtime.ts';
import { startRelay, type Relay } from '../realtime/relay.ts';
import { partMetricsText } from '../http/metrics.ts';
import type { Ports, ProjectionsPart, Stops } from './parts.ts';

/** The opened ports and started parts of a process. */
export interface System {
  /** The event log. */
  readonly events: EventStore;
  /** The read models. */
  readonly readModels: ReadModelStore;
  /** The projections, when this process runs them. */
  readonly projections: RunningProjections | null;
  /** The market data (built on first start, reused after). */
  readonly market: MarketData;
  /** The live engine, when this process runs it (roles `all` and `engine`). */
  readonly engine: RunningEngine | null;
  /**
   * The tick bus: Redis Streams with `REDIS_URL`, else the engine's in-process bus (role `all`); null for a
   * gateway without Redis and for a projections process.
   */
  readonly bus: TickBus | null;
  /** The live quotes this process serves on REST and Socket.IO, when ticks reach it. */
  readonly liveQuotes: LiveQuotes | null;
  /** The Redis connection, when `REDIS_URL` is set (the Socket.IO adapter shares it). */
  readonly redis: RedisClient | null;
  /** Calls `listener` after each commit of a projection run by this process; returns the unsubscribe. */
  onReadModelCommit(listener: ReadModelCommitListener): () => void;
  /** What the gateway's application needs. */
  readonly appDeps: AppDeps;
}

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
  /**
   * Resolves with what made the process stop by itself (its lease of the read models taken by another process),
   * once it has stopped as {@link close} stops it; never otherwise.
   */
  readonly failure: Promise<Error>;
}

/** The parts a role started besides its ports. */
export interface Parts {
  /** The projections, when the role runs them. */
  readonly projections: ProjectionsPart | null;
  /** The live engine, when the role runs it. */
  readonly engine: RunningEngine | null;
  /** The tick bus the feed route publishes on, if any. */
  readonly bus: TickBus | null;
  /** The live quotes served, when ticks reach the process. */
  readonly liveQuotes: LiveQuotes | null;
  /** The delivery secrets and senders, when the role built them already (for its processor). */
  readonly delivery?: DeliverySetup;
}

/** The system of a role: its ports and parts, and what the application needs of them. */
export function systemOf(config: Config, logger: Logger, ports: Ports, parts: Parts): System {
  const { events, readModels, market } = ports;
  const projections = parts.projections?.projections ?? null;
  const appDeps: AppDeps = {
    logger,
    events,
    readModels,
    sessions: ports.sessions,
    symbols: market,
    market,
    readModelSync: projections ?? checkpointSync(readModels),
    feed: parts.bus && config.feedToken !== null ? { token: config.feedToken, bus: parts.bus } : undefined,
    health: { projections, engine: parts.engine, redis: ports.redis },
    dataDir: config.dataDir,
    origin: { publicOrigin: config.publicOrigin, trustProxy: config.trustProxy },
    delivery: parts.delivery ?? setUpDelivery(config, events, componentLogger(logger, 'delivery')),
    authLimiter: createAuthLimiter(config.authLimits, ports.redis ? redisLimiters(ports.redis) : memoryLimiters),
  };
  return {
    events,
    readModels,
    projections,
    market,
    engine: parts.engine,
    bus: parts.bus,
    liveQuotes: parts.liveQuotes,
    redis: ports.redis,
    onReadModelCommit: (listener) => parts.projections?.onReadModelCommit(listener) ?? (() => undefined),
    appDeps,
  };
}

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

/** The HTTP server of a Koa application; closed, once it listens, after what is attached to it. */
function serverOf(app: { callback(): http.RequestListener }, stops: Stops, logger: Logger): http.Server {
  const server = http.createServer(app.callback());
  answerClientErrors(server, componentLogger(logger, 'gateway'));
  stops.add(() => (server.listening ? closeServer(server) : undefined));
  return server;
}

/** The triggers of the engine this process runs, for Socket.IO or the relay. */
function triggersOf(system: System): RunningEngine['onTrigger'] | null {
  const engine = system.engine;
  return engine ? (listener) => engine.onTrigger(listener) : null;
}

/** Listens on `PORT` and answers the running process, whose close runs the role's stops. */
async function listening(
  config: Config,
  logger: Logger,
  stops: Stops,
  server: http.Server,
  started: Pick<RunningGateway, 'system' | 'realtime' | 'relay'>,
): Promise<RunningGateway> {
  const address = await listen(server, config.port);
  // The links of e-mails name the port bound (with `PORT=0`, known only now) when `PUBLIC_ORIGIN` is unset.
  started.system.appDeps.delivery?.listeningOn(address.port);
  const url = `http://localhost:${address.port}`;
  logger.info(
    { url, role: config.role, eventStore: config.eventStoreUrl === null ? 'sqlite' : 'esdb', dataDir: config.dataDir },
    `StockPulse listening on ${url}`,
  );
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await stops.run();
      logger.info('stopped');
    })();
    return closing;
  };
  const failure = new Promise<Error>((resolve) => {
    stops.onFailure((error) => {
      logger.fatal({ err: error }, 'stopping: a part of this process cannot go on');
      const stopped = (): void => resolve(error);
      close().then(stopped, stopped);
    });
  });
  return { config, url, ...started, close, failure };
}

/** Serves the API and Socket.IO (roles `all` and `gateway`). */
export async function serveApi(config: Config, logger: Logger, stops: Stops, system: System): Promise<RunningGateway> {
  const health = {
    projections: system.projections,
    engine: system.engine,
    redis: system.redis,
    sockets: () => realtime.socketCount(),
  };
  // A rebuild check of the Maint page replays into a scratch store of its own, in memory; the live read models
  // are only read.
  const rebuildChecks = new RebuildChecks({
    events: system.events,
    readModels: system.readModels,
    scratchReadModels: () => openSqliteReadModelStore({ file: ':memory:' }),
  });
  // The application first: Socket.IO, attached after, takes its own path and hands the rest to it.
  // Signing out ends the session's sockets too, on every gateway (through the adapter).
  let ended: ((tokenHashes: readonly string[]) => void) | null = null;
  const sessions = endingSockets(system.appDeps.sessions, (hashes) => ended?.(hashes));
  const server = serverOf(createApp({ ...system.appDeps, sessions, health, rebuildChecks }), stops, logger);
  // The price chart's 1D view draws the session so far from the minute candles these quotes keep (their owner,
  // the engine or the quote feed, keeps them from its start).
  const live = system.liveQuotes;
  const realtime = attachRealtime(server, {
    sessions: system.appDeps.sessions,
    symbols: system.appDeps.symbols,
    quotes: () => system.market.quotes,
    quoteUpdates: live ? (listener) => live.onUpdate(listener) : null,
    triggers: triggersOf(system),
    events: system.events,
    readModels: system.readModels,
    logger,
    onReadModelCommit: (listener) => system.onReadModelCommit(listener),
    redis: system.redis,
    origin: system.appDeps.origin,
  });
  ended = (hashes) => realtime.endSessions(hashes);
  stops.add(() => realtime.close());
  return listening(config, logger, stops, server, { system, realtime, relay: null });
}

/**
 * Serves `/healthz`, `/readyz` and `/metrics` only (roles `engine` and `projections`) and, with Redis, starts
 * the Socket.IO relay through which this process's triggers and commits reach the gateways' sockets.
 */
export async function serveHealth(
  config: Config,
  logger: Logger,
  stops: Stops,
  system: System,
): Promise<RunningGateway> {
  const server = serverOf(
    createHealthApp(system.events, {
      projections: system.projections,
      engine: system.engine,
      redis: system.redis,
      standard: partMetricsText,
    }),
    stops,
    logger,
  );
  const redis = system.redis;
  const relay = redis
    ? startRelay({
        redis,
        triggers: triggersOf(system),
        onReadModelCommit: (listener) => system.onReadModelCommit(listener),
      })
    : null;
  if (relay) stops.add(() => relay.close());
  return listening(config, logger, stops, server, { system, realtime: null, relay });
}
