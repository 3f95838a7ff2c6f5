/**
 * The tick source a configuration names, with its days closed by the NYSE calendar: the simulator, the replay
 * of a tick CSV, or (for the feed route and other producers on the bus) a closer that reads the bus.
 */
import { join } from 'node:path';
import type { DailyBar } from '../domain/market/types.ts';
import {
  fileDayCloseClaims,
  memoryDayCloseClaims,
  redisDayCloseClaims,
  rollByCalendar,
  type DayCloseClaims,
  type DayCloser,
} from '../engine/ticks/dayCloser.ts';
import { marketClockOf, parseMarketClockMode, regularMarketClock } from '../engine/ticks/marketClock.ts';
import { alpacaProtocol } from '../engine/ticks/alpaca.ts';
import { finnhubProtocol } from '../engine/ticks/finnhub.ts';
import type { TickSource } from '../engine/ticks/port.ts';
import {
  ProviderStream,
  type ProviderHealth,
  type ProviderStreamOptions,
  type SymbolDemand,
} from '../engine/ticks/providerStream.ts';
import type { AlertsState } from '../domain/alerts/alerts.ts';
import type { WatchlistState } from '../domain/watchlist/watchlist.ts';
import type { ReadModelStore } from '../platform/readmodels/port.ts';
import type { StoredDocument } from '../projections/projection.ts';
import type { PositionLotsDocument } from '../projections/positions/positions.projection.ts';
import { readTickCsv, TickReplay } from '../engine/ticks/replay.ts';
import { simulatedSymbols, TickSimulator } from '../engine/ticks/simulator.ts';
import type { TickBus } from '../platform/bus/port.ts';
import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';
import type { RedisClient } from '../platform/redis.ts';

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
}

/** What a provider stream needs besides the configuration (tests pass a clock and short waits). */
export interface ProviderWiring {
  /** The symbols to carry. */
  readonly demand: SymbolDemand;
  /** Stream options: clock, backoff, staleness. */
  readonly stream?: Omit<ProviderStreamOptions, 'demand'>;
}

/**
 * The symbols users need, from the read models: those on a watch list, with an armed alert, or held. Read
 * again on each refresh of the stream, so a change is followed within the refresh period.
 */
export function readModelDemand(readModels: ReadModelStore): SymbolDemand {
  return {
    symbols: async () => {
      const [watchlists, alerts, lots] = await Promise.all([
        readModels.list<StoredDocument<WatchlistState>>('watchlist'),
        readModels.list<StoredDocument<AlertsState>>('alerts'),
        readModels.list<StoredDocument<PositionLotsDocument>>('positionlots'),
      ]);
      const symbols = new Set<string>();
      for (const { doc } of watchlists) for (const symbol of doc.value.symbols) symbols.add(symbol);
      for (const { doc } of alerts)
        for (const alert of doc.value.alerts) if (alert.status === 'armed') symbols.add(alert.symbol);
      for (const { doc } of lots) if (doc.value.positions.length > 0) symbols.add(doc.value.symbol);
      return symbols;
    },
  };
}

/** Who closes each date: Redis `SET NX` when engines share a Redis, else a marker file in `DATA_DIR`. */
export function dayCloseClaims(config: Config, redis: RedisClient | null): DayCloseClaims {
  return redis ? redisDayCloseClaims(redis) : fileDayCloseClaims(join(config.dataDir, DAY_CLOSES_DIR));
}

/** The last finished bar's date among the seeded bars. */
function lastDate(bars: ReadonlyMap<string, readonly DailyBar[]>): string {
  let last = '0000-01-01';
  for (const list of bars.values()) {
    const date = list.at(-1)?.date;
    if (date !== undefined && date > last) last = date;
  }
  return last;
}

/**
 * Builds the configured source over the seeded bars (each symbol's last close is the price its day closes at
 * when it does not trade). Demo sessions (the accelerated clock) and replays close by memory, not by `claims`:
 * a restart plays them again.
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
    const { symbols, after } = simulatedSymbols(bars);
    const mode = parseMarketClockMode(config.marketClock);
    const sessions = marketClockOf(mode, Date.now(), after);
    const simulator = new TickSimulator({ symbols, seed: config.marketSeed, after, sessions });
    return rollByCalendar(bus, simulator, {
      sessions,
      claims: mode.mode === 'regular' ? claims : memoryDayCloseClaims(),
      lastPrices,
      onError,
    });
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
