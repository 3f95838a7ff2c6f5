/**
 * The steps the roles share: open the ports, run the projections, the engine and the quote feed. Each step
 * registers its stop with the role's {@link Stops} as soon as it has started.
 */
import { startEngine, engineNameOf, publishMissedSession, type RunningEngine } from '../../engine/running.ts';
import { openMarketData, type MarketData } from '../../engine/market/marketData.ts';
import { marketProgress } from '../../engine/market/marketProgress.ts';
import { marketEndDate } from '../../engine/market/marketDate.ts';
import { refreshBarsAtClose } from '../../engine/marketdata/providerRefresh.ts';
import { startQuoteFeed, type QuoteFeed } from '../../engine/quotes/quoteFeed.ts';
import { pickUpSession } from '../../engine/quotes/sessionBackfill.ts';
import { configuredFeed, keptMinuteStore, keptSessionStore, lastDate } from '../../engine/ticks/sources.ts';
import { resumeSession } from '../../engine/ticks/keptSession.ts';
import { MinuteKeeper } from '../../engine/quotes/keptMinutes.ts';
import { regularMarketClock } from '../../engine/ticks/marketClock.ts';
import type { ClosedDay, TickBus } from '../../platform/bus/port.ts';
import { createRedisTickBus } from '../../platform/bus/redisStreams.ts';
import type { Config } from '../../platform/config.ts';
import { openEventStore } from '../../platform/eventstore/index.ts';
import type { EventStore } from '../../platform/eventstore/port.ts';
import { componentLogger, type Logger } from '../../platform/logger.ts';
import { openReadModelStore } from '../../platform/readmodels/index.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { holdWriterLease } from '../../platform/readmodels/writerLease.ts';
import { holdWriterLock, type ReadModelWriter } from '../../platform/readmodels/writerLock.ts';
import { connectRedis, type RedisClient } from '../../platform/redis.ts';
import { openSessionStore } from '../../platform/sessions/index.ts';
import type { SessionStore } from '../../platform/sessions/port.ts';
import { startProjections, type ReadModelCommitListener, type RunningProjections } from '../../projections/index.ts';
import { readModelDemand } from '../../projections/demand.ts';
import { startSealer } from '../../platform/audit/seals.ts';
import { cacheSessions } from '../auth/sessionCache.ts';
import { cacheReadModels } from '../readModelCache.ts';
import { startDeliveryProcessor, type DeliveryProcessor } from '../../engine/delivery/processor.ts';
import { setUpDelivery, type DeliverySetup } from '../../engine/delivery/setup.ts';
import { deliveryMetrics } from '../../engine/delivery/metrics.ts';
import { redisPartition } from '../../engine/delivery/partition.ts';
import { registerPartMetrics } from '../http/metrics.ts';

/** What a role started, stopped last started first: on close, or when a later step of the start fails. */
export class Stops {
  private readonly stops: (() => void | Promise<void>)[] = [];
  private failure: Error | null = null;
  private readonly failureListeners: ((error: Error) => void)[] = [];

  /**
   * Reports that a started part cannot go on (its lease of the read models lost to another process): the process
   * must stop. The first report only counts; see {@link onFailure}.
   */
  fail(error: Error): void {
    if (this.failure !== null) return;
    this.failure = error;
    for (const listener of this.failureListeners.splice(0)) listener(error);
  }

  /** Calls `listener` with the first {@link fail}ure, at once if it came already. */
  onFailure(listener: (error: Error) => void): void {
    if (this.failure !== null) listener(this.failure);
    else this.failureListeners.push(listener);
  }

  /** Registers the stop of a part that has just started. */
  add(stop: () => void | Promise<void>): void {
    this.stops.push(stop);
  }

  /** Runs every stop, last registered first; after all have run, rethrows the first failure. */
  async run(): Promise<void> {
    const failures: unknown[] = [];
    for (let stop = this.stops.pop(); stop; stop = this.stops.pop()) {
      try {
        await stop();
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length > 0) throw failures[0];
  }
}

/** Runs a role's start with its {@link Stops}; when a step fails, stops what had started and rethrows. */
export async function starting<T>(start: (stops: Stops) => Promise<T>): Promise<T> {
  const stops = new Stops();
  try {
    return await start(stops);
  } catch (error) {
    await stops.run().catch(() => undefined);
    throw error;
  }
}

/** The ports every role opens, each the adapter the configuration names. */
export interface Ports {
  /** The market data (built on first start, reused after). */
  readonly market: MarketData;
  /** The event log: SQLite in `DATA_DIR`, or EventStoreDB with `EVENTSTORE_URL`. */
  readonly events: EventStore;
  /** The Redis connection, when `REDIS_URL` is set (read models, sessions, the tick bus and Socket.IO share it). */
  readonly redis: RedisClient | null;
  /** The read models: SQLite in `DATA_DIR`, or Redis. */
  readonly readModels: ReadModelStore;
  /** Sessions: SQLite in `DATA_DIR`, or Redis; looked up through a one-second cache. */
  readonly sessions: SessionStore;
}

/**
 * Opens the ports. `cacheReadModels` is for a process that runs the projections: it commits every document it
 * serves, so it can keep them in memory. `writers` are the parts the process runs that write read models: on the
 * SQLite read models it holds their locks in `DATA_DIR` for its life (`platform/readmodels/writerLock.ts`), so a
 * second process running one of them on the same folder is refused at its start, before it opens anything, rather
 * than refusing the first one's commits; on the read models in Redis it holds their leases
 * (`platform/readmodels/writerLease.ts`): the projections' one per Redis, the delivery's one per `ENGINE_NAME` (the
 * delivery processes share the users there, each with read models of its own under its name).
 */
export async function openPorts(
  config: Config,
  logger: Logger,
  stops: Stops,
  options: { readonly cacheReadModels: boolean; readonly writers: readonly ReadModelWriter[] },
): Promise<Ports> {
  if (config.redisUrl === null) for (const part of options.writers) stops.add(holdWriterLock(config.dataDir, part));
  // Built on first start (seconds), reused after; opened first so that a failure leaves nothing else open.
  const marketLogger = componentLogger(logger, 'market');
  const market = openMarketData({
    dataDir: config.dataDir,
    seed: config.marketSeed,
    endDate: marketEndDate(config.marketAsOf, Date.now()),
    logger: marketLogger,
    onProgress: marketProgress(config, marketLogger),
  });
  stops.add(() => market.close());
  const events = await openEventStore(config);
  stops.add(() => events.close());
  const redis = config.redisUrl
    ? await connectRedis(config.redisUrl, (error) => logger.error({ err: error }, 'redis connection error'))
    : null;
  if (redis) {
    stops.add(async () => {
      if (redis.isOpen) await redis.quit();
    });
    // The projections on the read models in Redis: one process per Redis, as one per SQLite file; the delivery:
    // one process per name, each name with read models of its own.
    for (const part of options.writers) {
      const partLogger = componentLogger(logger, part);
      stops.add(
        await holdWriterLease(redis, part, {
          ...(part === 'delivery' ? { instance: engineNameOf(config) } : {}),
          onError: (error) => partLogger.error({ err: error }, `renewing the lease of the ${part} failed`),
          onLost: (error) => stops.fail(error),
        }),
      );
    }
  }
  const storedReadModels = openReadModelStore(config, redis);
  const readModels = options.cacheReadModels ? cacheReadModels(storedReadModels) : storedReadModels;
  stops.add(() => readModels.close());
  // Every authenticated request looks its session up: a one-second cache keeps that off the store.
  const sessions = cacheSessions(openSessionStore(config, redis));
  stops.add(() => sessions.close());
  return { market, events, redis, readModels, sessions };
}

/** The running projections and the commits they make. */
export interface ProjectionsPart {
  /** The projections. */
  readonly projections: RunningProjections;
  /** Calls `listener` after each commit of a projection; returns the unsubscribe. */
  onReadModelCommit(listener: ReadModelCommitListener): () => void;
}

/** Starts every projection and waits until they have caught up with the log. */
export async function runProjections(ports: Ports, logger: Logger, stops: Stops): Promise<ProjectionsPart> {
  const commitListeners = new Set<ReadModelCommitListener>();
  const projections = await startProjections(ports.events, ports.readModels, undefined, {
    onError: (name, error) => logger.error({ err: error, projection: name }, 'projection failed; it starts again'),
    onCommit: (name, position, writes) => {
      for (const listener of commitListeners) {
        try {
          listener(name, position, writes);
        } catch (error) {
          logger.error({ err: error, projection: name }, 'read model listener failed');
        }
      }
    },
  });
  stops.add(() => projections.stop());
  await projections.caughtUp;
  // The process running the projections seals the log (one per log).
  const sealer = startSealer(ports.events, {
    onError: (error) => logger.error({ err: error }, 'sealing the log failed'),
  });
  stops.add(() => sealer.stop());
  return {
    projections,
    onReadModelCommit: (listener) => {
      commitListeners.add(listener);
      return () => commitListeners.delete(listener);
    },
  };
}

/**
 * The tick bus on Redis Streams, shared by every process of the deployment. The closes it kept that the market
 * store lacks are stored first (`storeMissedCloses`), so the engine and the quotes seeded next go on from them.
 */
export async function openRedisTickBus(
  redis: RedisClient,
  market: MarketData,
  logger: Logger,
  stops: Stops,
): Promise<TickBus> {
  const busLogger = componentLogger(logger, 'bus');
  const bus = createRedisTickBus(redis, { onError: (error) => busLogger.error({ err: error }, 'tick bus error') });
  stops.add(() => bus.close());
  await storeMissedCloses(bus, market, componentLogger(logger, 'market'));
  return bus;
}

/**
 * Starts the live engine: on the shared Redis bus as a member of the engines' group under its `ENGINE_NAME`,
 * or, without one, on an in-process bus of its own whose live quotes become the market's.
 */
export async function runEngine(
  config: Config,
  ports: Ports,
  logger: Logger,
  stops: Stops,
  sharedBus: TickBus | null,
): Promise<RunningEngine> {
  const engine = await startEngine(
    config,
    ports.events,
    ports.readModels,
    ports.market,
    componentLogger(logger, 'engine'),
    sharedBus
      ? { bus: sharedBus, member: engineNameOf(config), ...(ports.redis ? { redis: ports.redis } : {}) }
      : undefined,
    (armedSymbols) => readModelDemand(ports.readModels, armedSymbols),
  );
  stops.add(() => engine.stop());
  const barRefresh = refreshProviderBarsAtClose(config, engine.bus, ports.market, componentLogger(logger, 'market'));
  if (barRefresh) stops.add(() => barRefresh.stop());
  return engine;
}

/**
 * With a provider configured (`TICK_SOURCE=alpaca`), the engine refreshes the bars of the symbols imported from
 * it after each session close; null otherwise.
 */
function refreshProviderBarsAtClose(
  config: Config,
  bus: TickBus,
  market: MarketData,
  logger: Logger,
): { stop(): Promise<void> } | null {
  if (config.alpaca === null) return null;
  const { keyId, secretKey, feed } = config.alpaca;
  return refreshBarsAtClose({
    bus,
    store: market.store,
    api: { keyId, secretKey, feed, baseUrl: config.alpacaDataUrl },
    onRefreshed: (date, result) => logger.info({ date, ...result }, `provider bars refreshed for ${date}`),
    onError: (date, error) => logger.warn({ date, err: error }, `provider bars not refreshed for ${date}`),
  });
}

/**
 * Stores each trading day's bars as the day closes on `bus` (`MarketData.rollDay`): the charts go on with the
 * days the quotes and the alerts roll, and a restart starts from them. Only the days the calendar closes by the
 * wall clock (the feed, the providers, the simulator on New York hours), whichever process's source closed them:
 * a day `played` is left out, a demo session (dated ahead of the calendar, a trading day every few minutes: bars
 * of days still to come would stay in the market store for every later start) or a replayed day (played again at
 * every start, whose bars the store would then hold already). With Redis, once it reads the bus, the closes kept
 * there that the store still lacks are stored (one published since the bus was opened), and the close of a kept
 * session that ended while every engine was down is published there (`publishMissedSession`), once.
 */
export async function storeClosedDays(
  config: Config,
  ports: Ports,
  bus: TickBus,
  logger: Logger,
  stops: Stops,
): Promise<void> {
  const { market } = ports;
  const marketLogger = componentLogger(logger, 'market');
  const subscription = bus.subscribe({
    onTicks: () => undefined,
    onDayClosed: (day) => storeDay(market, marketLogger, day),
  });
  stops.add(() => subscription.unsubscribe());
  await subscription.ready;
  if (ports.redis) {
    // A close published since the bus was opened, before this subscription, is stored too.
    await storeMissedCloses(bus, market, marketLogger);
    await publishMissedSession(config, ports.redis, bus, market, marketLogger);
  }
}

/**
 * Stores the closes the bus kept (a durable bus: the latest trading days') that the market store lacks, dated
 * after its last bar: the sessions that closed while this process was down or before it first started, when
 * other processes ran. Before the engine's and the quotes' seeding, so that they go on from them.
 */
async function storeMissedCloses(bus: TickBus, market: MarketData, logger: Logger): Promise<void> {
  try {
    for (const day of await bus.recentCloses(market.status().to ?? undefined)) storeDay(market, logger, day, true);
  } catch (error) {
    logger.warn({ err: error }, 'the closes kept on the tick bus were not read');
  }
}

/**
 * Stores a closed day's bars (`MarketData.rollDay`), unless it is `played`, and has the symbols analysed again
 * with them; logs what was stored and left out. `missed`: a close published while this process was down.
 */
function storeDay(market: MarketData, logger: Logger, day: ClosedDay, missed = false): void {
  if (day.played !== undefined) return;
  try {
    const started = performance.now();
    const { written, earlier } = market.rollDay(day);
    logger.info(
      { date: day.date, written, earlier: earlier.length, ...(missed ? { missed } : {}) },
      missed ? `bars of ${day.date} stored, closed while this process was down` : `bars of ${day.date} stored`,
    );
    if (written > 0) {
      market.analysed().then(
        () =>
          logger.info(
            { date: day.date, ms: Math.round(performance.now() - started) },
            `symbols analysed again with the bars of ${day.date}`,
          ),
        (error: unknown) => logger.error({ err: error, date: day.date }, `analysis of ${day.date} failed`),
      );
    }
    if (earlier.length > 0) {
      logger.warn(
        { date: day.date, symbols: earlier.slice(0, 10) },
        `${earlier.length} bars of ${day.date} not stored: their symbols' stored bars end later`,
      );
    }
  } catch (error) {
    logger.error({ err: error, date: day.date }, `bars of ${day.date} not stored`);
  }
}

/**
 * Reads every tick of the shared bus into live quotes that become the market's quotes, from the open session so
 * far when a provider is configured (the symbols users need, as the engines' stream carries them), or as the
 * engines keep it for the feed route and Finnhub (`engine/ticks/keptSession.ts`).
 */
export async function runQuoteFeed(
  config: Config,
  ports: Ports,
  logger: Logger,
  stops: Stops,
  bus: TickBus,
): Promise<QuoteFeed> {
  const marketLogger = componentLogger(logger, 'market');
  const kept = keptSessionStore(config, ports.redis);
  // The 1D chart's finished minute candles, which the quote feeds keep (the same candles, each once per field).
  const minutes = keptMinuteStore(config, ports.redis);
  const feed = await startQuoteFeed(bus, ports.market, configuredFeed(config), async (quotes, bars) => {
    await pickUpSession(config, quotes, readModelDemand(ports.readModels), lastDate(bars), marketLogger);
    // The feed's and Finnhub's session so far, as the engines keep it.
    if (kept) await resumeSession(kept, regularMarketClock(lastDate(bars)), quotes, marketLogger, { minutes });
  });
  const keeper = minutes
    ? new MinuteKeeper(feed.quotes, minutes, {
        onError: (error) => marketLogger.warn({ err: error }, 'the minute candles so far were not kept'),
      }).start()
    : null;
  stops.add(async () => {
    await feed.stop();
    await keeper?.stop();
  });
  return feed;
}

/** The delivery processor and the secrets and senders it shares with the routes. */
export interface DeliveryPart {
  readonly setup: DeliverySetup;
  readonly processor: DeliveryProcessor;
}

/**
 * Starts the delivery processor (roles `all` and `delivery`) under `instance`: processors sharing a read-model
 * store keep their queues apart, and the log decides which of them makes each attempt. With Redis they split
 * the users between them (`engine/delivery/partition.ts`). Its figures join the process's `/metrics`.
 */
export async function runDelivery(
  config: Config,
  ports: Ports,
  logger: Logger,
  stops: Stops,
  instance?: string,
): Promise<DeliveryPart> {
  const deliveryLogger = componentLogger(logger, 'delivery');
  const setup = setUpDelivery(config, ports.events, deliveryLogger);
  stops.add(() => setup.close());
  // With Redis, the delivery processes share the users between them instead of racing for each delivery.
  const partition = ports.redis
    ? await redisPartition(ports.redis, {
        name: instance ?? engineNameOf(config),
        onError: (error) => deliveryLogger.warn({ err: error }, 'delivery heartbeat failed'),
      })
    : undefined;
  if (partition) stops.add(() => partition.stop());
  const metrics = deliveryMetrics();
  stops.add(registerPartMetrics(metrics.registry));
  const processor = await startDeliveryProcessor({
    events: ports.events,
    readModels: ports.readModels,
    senders: setup.senders,
    secrets: setup.secrets,
    publicOrigin: setup.publicOrigin,
    ...(instance !== undefined ? { instance } : {}),
    ...(partition ? { partition } : {}),
    onOutcome: metrics.observe,
    onUnsent: metrics.unsent,
    onTaken: metrics.taken,
    onError: (error) => deliveryLogger.error({ err: error }, 'delivery failed'),
  });
  metrics.track(processor, partition);
  stops.add(() => processor.stop());
  await processor.caughtUp;
  return { setup, processor };
}
