/**
 * Opens every port the configuration names and starts the parts of the system the role runs. `main.ts`
 * listens on top of it; tests use it with a temporary `DATA_DIR` and port 0.
 */
import { join } from 'node:path';
import { openMarketData, type MarketData, type MarketPhase, type MarketProgress } from '../engine/market/marketData.ts';
import { marketEndDate } from '../engine/market/marketDate.ts';
import { refreshBarsAtClose } from '../engine/marketdata/providerRefresh.ts';
import type { Config } from '../platform/config.ts';
import { openEventStore } from '../platform/eventstore/index.ts';
import type { EventStore, LogPosition } from '../platform/eventstore/port.ts';
import { componentLogger, type Logger } from '../platform/logger.ts';
import type { DocumentWrite, ReadModelStore } from '../platform/readmodels/port.ts';
import { hostname } from 'node:os';
import { connectRedis, type RedisClient } from '../platform/redis.ts';
import { RedisReadModelStore } from '../platform/readmodels/redis.ts';
import { openSqliteReadModelStore } from '../platform/readmodels/sqlite.ts';
import { RedisSessionStore } from '../platform/sessions/redis.ts';
import type { SessionStore } from '../platform/sessions/port.ts';
import { openSqliteSessionStore } from '../platform/sessions/sqlite.ts';
import { checkpointSync, startProjections, type RunningProjections } from '../projections/index.ts';
import type { AppDeps } from './app.ts';
import { cacheSessions } from './auth/sessionCache.ts';
import { cacheReadModels } from './readModelCache.ts';
import { progressBar, renderProgress, type ProgressBar } from '../platform/progress.ts';
import { AlertEngine, type EngineTrigger } from '../engine/alerts/alertEngine.ts';
import type { Quote, QuoteSource } from '../engine/market/quotes.ts';
import { LiveQuotes } from '../engine/quotes/liveQuotes.ts';
import { createInProcessTickBus } from '../platform/bus/inProcess.ts';
import type { TickBus } from '../platform/bus/port.ts';
import { createRedisTickBus } from '../platform/bus/redisStreams.ts';
import { dayCloseClaims, openTickSource, readModelDemand } from './tickSources.ts';
import type { ProviderHealth } from '../engine/ticks/providerStream.ts';

/** File names inside `DATA_DIR`. */
export const DATA_FILES = Object.freeze({ readModels: 'readmodels.db', sessions: 'sessions.db' });

/** The opened ports and started parts. */
export interface System {
  /** The event log. */
  readonly events: EventStore;
  /** The read models. */
  readonly readModels: ReadModelStore;
  /** Sessions. */
  readonly sessions: SessionStore;
  /** The projections, when this process runs them. */
  readonly projections: RunningProjections | null;
  /** The market data (built on first start, reused after). */
  readonly market: MarketData;
  /** The live engine, when this process runs it (roles `all` and `engine`). */
  readonly engine: RunningEngine | null;
  /**
   * The tick bus: Redis Streams with `REDIS_URL` (every role), else the engine's in-process bus (role `all`);
   * null for a gateway or projections process without Redis.
   */
  readonly bus: TickBus | null;
  /** The live quotes this process serves on REST and Socket.IO, when ticks reach it. */
  readonly liveQuotes: LiveQuotes | null;
  /** The Redis connection, when `REDIS_URL` is set (the Socket.IO adapter shares it). */
  readonly redis: RedisClient | null;
  /** Calls `listener` after each commit of a projection run by this process; returns the unsubscribe. */
  onReadModelCommit(listener: ReadModelCommitListener): () => void;
  /** What the gateway needs. */
  readonly appDeps: AppDeps;
  /** Stops what was started and closes the ports. */
  close(): Promise<void>;
}

/** Called after a projection committed documents up to a position. */
export type ReadModelCommitListener = (name: string, position: LogPosition, writes: readonly DocumentWrite[]) => void;

/** The started live engine: tick source → tick bus → live quotes and alert engine. */
export interface RunningEngine {
  /** Where ticks are published (the tick source and the feed route) and read (the alert engine). */
  readonly bus: TickBus;
  /** The live quotes, the market's quote source. */
  readonly quotes: LiveQuotes;
  /** The alert engine. */
  readonly alerts: AlertEngine;
  /** Which source produces ticks. */
  readonly source: Config['tickSource'];
  /** Calls `listener` once per durable trigger (deduplicated by event id); returns the unsubscribe. */
  onTrigger(listener: (trigger: EngineTrigger) => void): () => void;
  /** Whether ticks can flow: the source is started (the feed is always live) and the bus is open. */
  live(): boolean;
  /** A provider stream's health (connected, authenticated, not stale, with the reason), when one runs. */
  readonly sourceHealth?: () => ProviderHealth;
  /** Stops the source, the alert engine (settling the triggers under way) and the bus. */
  stop(): Promise<void>;
}

/** The API's quote shape over the live quotes (which also carry the previous close and the day's range). */
function apiQuotes(quotes: LiveQuotes): QuoteSource {
  const shape = (q: Quote): Quote => ({
    symbol: q.symbol,
    price: q.price,
    change: q.change,
    changepct: q.changepct,
    volume: q.volume,
    ts: q.ts,
  });
  return {
    quote: (symbol) => {
      const q = quotes.quote(symbol);
      return q && shape(q);
    },
    quotes: (symbols) => quotes.quotes(symbols).map(shape),
  };
}

/**
 * How often (ms) the market gets a new quote source object when prices moved: its screener keeps its rows
 * while the source is the same object, so they are at most this old.
 */
const QUOTE_REFRESH_MS = 1000;

/** Event ids of the latest triggers remembered to report each once. */
const REPORTED_TRIGGERS_KEPT = 10_000;

/** Seeded days of history for the live quotes and the simulator's volatility. */
const SEED_DAYS = 400;

/** The group of the engines on the tick bus: they split the symbols between them. */
export const ENGINE_GROUP = 'engines';

/** The name of this engine among the engines of the Redis tick bus: `ENGINE_NAME`, else from the host name. */
export function engineNameOf(config: Config, host: string = hostname()): string {
  return (
    config.engineName ??
    (host
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '')
      .slice(0, 32) ||
      'engine')
  );
}

/** Live quotes seeded with the market's last closes, and those bars (the simulator's volatility). */
function seedQuotes(market: MarketData): { quotes: LiveQuotes; bars: ReturnType<MarketData['store']['lastBars']> } {
  const symbols = market.symbols();
  const bars = market.store.lastBars(symbols, SEED_DAYS);
  return { quotes: new LiveQuotes(symbols.map((symbol) => ({ symbol, bars: bars.get(symbol) ?? [] }))), bars };
}

/** Makes live quotes the market's quote source (REST, screener), refreshed at most once a second; answers the stop. */
function serveQuotes(market: MarketData, quotes: LiveQuotes): () => void {
  market.useQuoteSource(apiQuotes(quotes));
  let moved = false;
  const stopWatching = quotes.onUpdate(() => {
    moved = true;
  });
  const refresh = setInterval(() => {
    if (!moved) return;
    moved = false;
    market.useQuoteSource(apiQuotes(quotes));
  }, QUOTE_REFRESH_MS);
  refresh.unref();
  return () => {
    clearInterval(refresh);
    stopWatching();
  };
}

/** Where the engine reads ticks, when another part owns the bus. */
export interface EngineBus {
  /** The bus (Redis Streams). */
  readonly bus: TickBus;
  /** The engine's stable member name in {@link ENGINE_GROUP}; it also names its index in the read models. */
  readonly member: string;
  /** The shared Redis, where the engines claim each day close once. */
  readonly redis?: RedisClient;
}

/**
 * Starts the live engine: the alert engine catches up with the log, then reads the ticks, and the tick source
 * (if any) starts publishing on the bus. Without `shared` the bus is in-process and the engine's live quotes,
 * which then see every tick, become the market's quotes; with a shared Redis bus the engine is a member of
 * {@link ENGINE_GROUP} and evaluates only the symbols it owns.
 */
export async function startEngine(
  config: Config,
  events: EventStore,
  readModels: ReadModelStore,
  market: MarketData,
  logger: Logger,
  shared?: EngineBus,
): Promise<RunningEngine> {
  const bus =
    shared?.bus ?? createInProcessTickBus({ onError: (error) => logger.error({ err: error }, 'tick listener failed') });
  const { quotes, bars } = seedQuotes(market);
  const triggerListeners = new Set<(trigger: EngineTrigger) => void>();
  // Two engines racing on one alert may both report it: the event id tells them apart.
  const reported = new Set<string>();
  const onTriggered = (trigger: EngineTrigger): void => {
    if (reported.has(trigger.eventId)) return;
    reported.add(trigger.eventId);
    if (reported.size > REPORTED_TRIGGERS_KEPT) reported.delete(reported.values().next().value!);
    for (const listener of triggerListeners) {
      try {
        listener(trigger);
      } catch (error) {
        logger.error({ err: error }, 'trigger listener failed');
      }
    }
  };
  const alerts = new AlertEngine({
    events,
    readModels,
    quotes,
    ...(shared ? { instance: shared.member } : {}),
    onTriggered,
    onError: (error) => logger.error({ err: error }, 'alert engine error'),
  });
  await alerts.start();
  const stopServing = shared ? () => undefined : serveQuotes(market, quotes);
  const subscription = bus.subscribe(alerts, shared ? { group: ENGINE_GROUP, member: shared.member } : {});
  try {
    await subscription.ready;
  } catch (error) {
    stopServing();
    await alerts.stop();
    throw error;
  }
  // Every source's days close by the calendar, the feed's too (its closer reads the bus).
  const { source, health: sourceHealth } = openTickSource(
    config,
    bus,
    bars,
    dayCloseClaims(config, shared?.redis ?? null),
    logger,
    { demand: readModelDemand(readModels) },
  );
  let live = config.tickSource === 'feed';
  let open = true;
  const publishFailed = (error: unknown): void => {
    if (open) logger.error({ err: error }, 'tick publish failed');
  };
  source.start({
    onTicks: (batch) => void bus.publish(batch).catch(publishFailed),
    onDayClosed: (day) => void bus.publishDayClosed(day).catch(publishFailed),
  });
  live ||= config.tickSource !== 'replay' || config.replayFile !== null;
  logger.info(
    {
      source: config.tickSource,
      symbols: market.companies.length,
      armed: alerts.stats().armed,
      bus: shared ? 'redis' : 'in-process',
      ...(shared ? { member: shared.member } : {}),
    },
    'engine started',
  );
  return {
    bus,
    quotes,
    alerts,
    source: config.tickSource,
    live: () => live && open && (sourceHealth?.().ok ?? true),
    ...(sourceHealth ? { sourceHealth } : {}),
    onTrigger: (listener) => {
      triggerListeners.add(listener);
      return () => triggerListeners.delete(listener);
    },
    stop: async () => {
      open = false;
      live = false;
      stopServing();
      await source.stop();
      await subscription.unsubscribe();
      await alerts.stop();
      if (!shared) await bus.close();
    },
  };
}

/** Live quotes fed by a plain subscription to the bus: what a gateway serves when the engines run elsewhere. */
export interface QuoteFeed {
  /** The live quotes, every symbol. */
  readonly quotes: LiveQuotes;
  /** Stops reading the bus and serving the quotes. */
  stop(): Promise<void>;
}

/** Reads every tick and day close of the bus into live quotes that become the market's quotes. */
export async function startQuoteFeed(bus: TickBus, market: MarketData): Promise<QuoteFeed> {
  const { quotes } = seedQuotes(market);
  const subscription = bus.subscribe({
    onTicks: (ticks) => quotes.apply(ticks),
    onDayClosed: (day) => quotes.roll(day),
  });
  await subscription.ready;
  const stopServing = serveQuotes(market, quotes);
  return {
    quotes,
    stop: async () => {
      stopServing();
      await subscription.unsubscribe();
    },
  };
}

const PHASE_LABELS: Readonly<Record<MarketPhase, string>> = {
  build: 'building market data',
  analyse: 'analysing market data',
};

/**
 * How opening the market data shows its progress: a progress bar on a terminal (standard error), else a log
 * line at each tenth; nothing when logging is off.
 */
function marketProgress(config: Config, logger: Logger): MarketProgress | undefined {
  if (config.logLevel === 'silent') return undefined;
  if (process.stderr.isTTY === true) {
    let current: { phase: MarketPhase; bar: ProgressBar } | undefined;
    return (phase, done, total) => {
      if (current?.phase !== phase) current = { phase, bar: progressBar(PHASE_LABELS[phase]) };
      current.bar.update(done, total);
      if (done >= total) current.bar.finish();
    };
  }
  let last = { phase: '', tenth: -1 };
  return (phase, done, total) => {
    const tenth = total > 0 ? Math.floor((10 * done) / total) : 10;
    if (last.phase === phase && tenth <= last.tenth) return;
    last = { phase, tenth };
    logger.info({ phase, done, total }, renderProgress(PHASE_LABELS[phase], done, total));
  };
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

/** Opens the ports and starts the projections (roles `all` and `projections`). */
export async function openSystem(config: Config, logger: Logger): Promise<System> {
  // Built on first start (seconds), reused after; opened first so that a failure leaves nothing else open.
  const marketLogger = componentLogger(logger, 'market');
  const market = openMarketData({
    dataDir: config.dataDir,
    seed: config.marketSeed,
    endDate: marketEndDate(config.marketAsOf, Date.now()),
    logger: marketLogger,
    onProgress: marketProgress(config, marketLogger),
  });
  const events = await openEventStore(config);
  const redis = config.redisUrl
    ? await connectRedis(config.redisUrl, (error) => logger.error({ err: error }, 'redis connection error'))
    : null;
  const storedReadModels: ReadModelStore = redis
    ? new RedisReadModelStore(redis, undefined, false)
    : openSqliteReadModelStore({ file: join(config.dataDir, DATA_FILES.readModels) });
  // Every authenticated request looks its session up: a one-second cache keeps that off the store.
  const sessions: SessionStore = cacheSessions(
    redis
      ? new RedisSessionStore(redis, undefined, false)
      : openSqliteSessionStore(join(config.dataDir, DATA_FILES.sessions)),
  );
  const runsProjections = config.role === 'all' || config.role === 'projections';
  // A process running the projections commits every document it serves, so it can keep them in memory.
  const readModels = runsProjections ? cacheReadModels(storedReadModels) : storedReadModels;
  const commitListeners = new Set<ReadModelCommitListener>();
  const projections = runsProjections
    ? await startProjections(events, readModels, undefined, {
        onError: (name, error) => logger.error({ err: error, projection: name }, 'projection stopped'),
        onCommit: (name, position, writes) => {
          for (const listener of commitListeners) {
            try {
              listener(name, position, writes);
            } catch (error) {
              logger.error({ err: error, projection: name }, 'read model listener failed');
            }
          }
        },
      })
    : null;
  if (projections) await projections.caughtUp;
  const busLogger = componentLogger(logger, 'bus');
  const redisBus = redis
    ? createRedisTickBus(redis, { onError: (error) => busLogger.error({ err: error }, 'tick bus error') })
    : null;
  const runsEngine = config.role === 'all' || config.role === 'engine';
  let engine: RunningEngine | null = null;
  let quoteFeed: QuoteFeed | null = null;
  try {
    engine = runsEngine
      ? await startEngine(
          config,
          events,
          readModels,
          market,
          componentLogger(logger, 'engine'),
          redisBus && redis ? { bus: redisBus, member: engineNameOf(config), redis } : undefined,
        )
      : null;
    // A gateway serves every symbol's quotes: with Redis its engine (if any) sees only its share of the ticks.
    const servesHttp = config.role === 'all' || config.role === 'gateway';
    quoteFeed = redisBus && servesHttp ? await startQuoteFeed(redisBus, market) : null;
  } catch (error) {
    await engine?.stop();
    await redisBus?.close();
    await projections?.stop();
    throw error;
  }
  const bus: TickBus | null = redisBus ?? engine?.bus ?? null;
  const barRefresh = engine
    ? refreshProviderBarsAtClose(config, engine.bus, market, componentLogger(logger, 'market'))
    : null;
  const liveQuotes = quoteFeed?.quotes ?? (redisBus ? null : (engine?.quotes ?? null));
  const appDeps: AppDeps = {
    logger,
    events,
    readModels,
    sessions,
    symbols: market,
    market,
    readModelSync: projections ?? checkpointSync(readModels),
    feed: bus && config.feedToken !== null ? { token: config.feedToken, bus } : undefined,
    health: { projections, engine },
    dataDir: config.dataDir,
  };
  return {
    events,
    readModels,
    sessions,
    projections,
    market,
    engine,
    bus,
    liveQuotes,
    redis,
    appDeps,
    onReadModelCommit: (listener) => {
      commitListeners.add(listener);
      return () => commitListeners.delete(listener);
    },
    close: async () => {
      await barRefresh?.stop();
      await engine?.stop();
      await quoteFeed?.stop();
      await redisBus?.close();
      await projections?.stop();
      await events.close();
      await readModels.close();
      await sessions.close();
      if (redis?.isOpen) await redis.quit();
      market.close();
    },
  };
}
