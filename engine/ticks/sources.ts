/**
 * The tick source a configuration names, with its days closed by the NYSE calendar: the simulator, the replay
 * of a tick CSV, or (for the feed route and other producers on the bus) a closer that reads the bus.
 */
import { join } from 'node:path';
import { dataFeedOf, type DataFeed } from '../../domain/market/feeds.ts';
import type { DailyBar } from '../../domain/market/types.ts';
import {
  fileDayCloseClaims,
  memoryDayCloseClaims,
  redisDayCloseClaims,
  rollByCalendar,
  type DayCloseClaims,
  type DayCloser,
} from './dayCloser.ts';
import { marketClockOf, parseMarketClockMode, regularMarketClock, type MarketClock } from './marketClock.ts';
import { alpacaProtocol } from './alpaca.ts';
import { finnhubProtocol } from './finnhub.ts';
import type { TickSource } from './port.ts';
import {
  ProviderStream,
  type ProviderHealth,
  type ProviderStreamOptions,
  type SymbolDemand,
} from './providerStream.ts';
import { readTickCsv, TickReplay } from './replay.ts';
import { fileSessionStore, redisSessionStore, type SessionStore } from './keptSession.ts';
import { fileMinuteStore, redisMinuteStore, type MinuteStore } from '../quotes/keptMinutes.ts';
import { latestDemoSession, rememberedSessions } from './demoSessions.ts';
import { simulatedSymbols, TickSimulator } from './simulator.ts';
import type { TickBus } from '../../platform/bus/port.ts';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import type { RedisClient } from '../../platform/redis.ts';

/** The directory of `DATA_DIR` holding one marker per closed date. */
export const DAY_CLOSES_DIR = 'day-closes';

/** The started tick source and its day closer. */
export interface OpenedTickSource {
  /** The source to start: its ticks and the calendar's day closes. */
  readonly source: TickSource;
  /** The closer (what it closed, the session it watches). */
  readonly closer: DayCloser;
  /** A provider stream's health (connection, authentication, staleness), for `/readyz` and `/metrics`. */
  readonly health?: () => ProviderHealth;
  /** The demo clock's sessions, each a trading day of a few real minutes; absent on New York hours. */
  readonly demoSessions?: MarketClock;
}

/** What a provider stream needs besides the configuration (tests pass a clock and short waits). */
export interface ProviderWiring {
  /** The symbols to carry. */
  readonly demand: SymbolDemand;
  /** Stream options: clock, backoff, staleness. */
  readonly stream?: Omit<ProviderStreamOptions, 'demand'>;
}

/** The feed a configuration's ticks come from (`TICK_SOURCE`, and `ALPACA_FEED` for Alpaca). */
export function configuredFeed(config: Pick<Config, 'tickSource' | 'alpaca'>): DataFeed {
  return dataFeedOf(config.tickSource, config.alpaca?.feed ?? null);
}

/** Who closes each date: Redis `SET NX` when engines share a Redis, else a marker file in `DATA_DIR`. */
export function dayCloseClaims(config: Config, redis: RedisClient | null): DayCloseClaims {
  return redis ? redisDayCloseClaims(redis) : fileDayCloseClaims(join(config.dataDir, DAY_CLOSES_DIR));
}

/**
 * Where the open session's bars are kept across restarts (`keptSession.ts`): for the feed route and Finnhub, whose
 * sessions no provider fills in again (Alpaca's are, from its minute bars; the simulator's and a replay's are
 * played afresh), in Redis when engines share one, else in `DATA_DIR`; null for the other sources.
 */
export function keptSessionStore(config: Config, redis: RedisClient | null): SessionStore | null {
  if (!keepsSession(config)) return null;
  return redis ? redisSessionStore(redis) : fileSessionStore(config.dataDir);
}

/** Where the open session's finished minute candles are kept, beside its bars (`engine/quotes/keptMinutes.ts`). */
export function keptMinuteStore(config: Config, redis: RedisClient | null): MinuteStore | null {
  if (!keepsSession(config)) return null;
  return redis ? redisMinuteStore(redis) : fileMinuteStore(config.dataDir);
}

function keepsSession(config: Config): boolean {
  return config.tickSource === 'feed' || config.tickSource === 'finnhub';
}

/** The last finished bar's date among the seeded bars. */
export function lastDate(bars: ReadonlyMap<string, readonly DailyBar[]>): string {
  let last = '0000-01-01';
  for (const list of bars.values()) {
    const date = list.at(-1)?.date;
    if (date !== undefined && date > last) last = date;
  }
  return last;
}

/**
 * Builds the configured source over the seeded bars (each symbol's last close is the price its day closes at
 * when it does not trade). Demo sessions (the accelerated clock) and replays close by memory, not by `claims`;
 * a restart replays a tick file from its start, and dates its demo sessions after the latest one before it
 * (`demoSessions.ts`), at the stored bars' prices.
 */
export function openTickSource(
  config: Config,
  bus: TickBus,
  bars: ReadonlyMap<string, readonly DailyBar[]>,
  claims: DayCloseClaims,
  logger: Logger,
  provider?: ProviderWiring,
): OpenedTickSource {
  const lastPrices: [string, number][] = [];
  for (const [symbol, list] of bars) {
    const close = list.at(-1)?.close;
    if (close !== undefined) lastPrices.push([symbol, close]);
  }
  const onError = (error: unknown): void => logger.error({ err: error }, 'day close failed');
  if (config.tickSource === 'simulator') {
    const { symbols, after: lastBar } = simulatedSymbols(bars);
    const mode = parseMarketClockMode(config.marketClock);
    // Demo sessions go on after the latest one a run before told of, not from the last stored bar again.
    const played = mode.mode === 'accelerated' ? latestDemoSession(config.dataDir) : null;
    const after = played !== null && played > lastBar ? played : lastBar;
    const clock = marketClockOf(mode, Date.now(), after);
    const sessions =
      mode.mode === 'accelerated'
        ? rememberedSessions(clock, config.dataDir, (error) =>
            logger.warn({ err: error }, 'the demo session date was not kept'),
          )
        : clock;
    const simulator = new TickSimulator({ symbols, seed: config.marketSeed, after, sessions });
    const rolled = rollByCalendar(bus, simulator, {
      sessions,
      claims: mode.mode === 'regular' ? claims : memoryDayCloseClaims(),
      lastPrices,
      onError,
    });
    return mode.mode === 'accelerated' ? { ...rolled, demoSessions: sessions } : rolled;
  }
  if (config.tickSource === 'replay' && config.replayFile !== null) {
    const replay = new TickReplay(readTickCsv(config.replayFile), { speed: 1 });
    const rolled = rollByCalendar(bus, replay, {
      sessions: regularMarketClock(),
      time: 'ticks',
      claims: memoryDayCloseClaims(),
      lastPrices,
      onError,
    });
    void replay.done.then(() => rolled.closer.finish());
    return rolled;
  }
  const sessions = regularMarketClock(lastDate(bars));
  const protocol = config.alpaca
    ? alpacaProtocol(config.alpaca)
    : config.finnhub
      ? finnhubProtocol(config.finnhub)
      : null;
  if (protocol !== null) {
    if (provider === undefined) throw new Error(`the ${protocol.name} stream needs the symbols to carry`);
    let reported: string | null = null;
    const stream = new ProviderStream(protocol, {
      sessions,
      ...provider.stream,
      onHealth: (health) => {
        provider.stream?.onHealth?.(health);
        const summary = `${health.state}: ${health.reason ?? ''}`;
        if (summary === reported) return;
        reported = summary;
        const fields = { provider: health.provider, state: health.state, reason: health.reason };
        if (health.ok) logger.info(fields, 'market data stream');
        else logger.warn(fields, 'market data stream');
      },
      demand: provider.demand,
    });
    const clock = provider.stream?.clock;
    const rolled = rollByCalendar(bus, stream, {
      sessions,
      claims,
      lastPrices,
      onError,
      ...(clock ? { clock } : {}),
    });
    return { ...rolled, health: () => stream.health() };
  }
  return rollByCalendar(bus, null, { sessions, claims, lastPrices, onError });
}
