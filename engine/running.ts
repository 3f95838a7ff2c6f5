/**
 * The running live engine of a process (roles `all` and `engine`): the tick source publishes on the tick bus,
 * the alert engine evaluates the ticks against the armed alerts and appends each trigger once, and the live
 * quotes follow the ticks.
 */
import { hostname } from 'node:os';
import type { Config } from '../platform/config.ts';
import type { EventStore } from '../platform/eventstore/port.ts';
import type { Logger } from '../platform/logger.ts';
import type { ReadModelStore } from '../platform/readmodels/port.ts';
import { createInProcessTickBus } from '../platform/bus/inProcess.ts';
import type { TickBus } from '../platform/bus/port.ts';
import { AlertEngine, type EngineTrigger } from './alerts/alertEngine.ts';
import { TriggerReports } from './triggerReports.ts';
import type { MarketData } from './market/marketData.ts';
import type { LiveQuotes } from './quotes/liveQuotes.ts';
import { seedQuotes, serveQuotes } from './quotes/quoteFeed.ts';
import type { RedisClient } from '../platform/redis.ts';
import type { ProviderHealth, SymbolDemand } from './ticks/providerStream.ts';
import type { DayCloseClaims, DayCloser } from './ticks/dayCloser.ts';
import { parseMarketClockMode, regularMarketClock } from './ticks/marketClock.ts';
import type { ClosedDay, Tick } from './ticks/tick.ts';
import { keptClose, missedSession, resumeSession, SessionKeeper, type SessionStore } from './ticks/keptSession.ts';
import { pickUpSession } from './quotes/sessionBackfill.ts';
import { MinuteKeeper, type MinuteStore } from './quotes/keptMinutes.ts';
import {
  configuredFeed,
  dayCloseClaims,
  keptMinuteStore,
  keptSessionStore,
  lastDate,
  openTickSource,
} from './ticks/sources.ts';

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
  /** The simulator's demo clock: real minutes per trading day; null for New York hours or another source. */
  readonly sessionMinutes: number | null;
  /**
   * Calls `listener` once per durable trigger (deduplicated by event id); the first listener first gets the
   * triggers reported before anything listened; returns the unsubscribe.
   */
  onTrigger(listener: (trigger: EngineTrigger) => void): () => void;
  /** Whether ticks can flow: the source is started (the feed is always live) and the bus is open. */
  live(): boolean;
  /** A provider stream's health (connected, authenticated, not stale, with the reason), when one runs. */
  readonly sourceHealth?: () => ProviderHealth;
  /** A symbol's bar of the open session so far, as the day close will publish it (undefined before a tick). */
  sessionBar(symbol: string): ReturnType<DayCloser['formingBar']>;
  /** Stops the source, the alert engine (settling the triggers under way) and the bus. */
  stop(): Promise<void>;
}

/** Event ids of the latest triggers remembered to report each once. */
const REPORTED_TRIGGERS_KEPT = 10_000;
/** Triggers held while nothing listens yet (see `triggerReports.ts`), the newest. */
const HELD_TRIGGERS_KEPT = 10_000;

/** The simulator's demo clock: real minutes per trading day; null for New York hours or another source. */
export function demoSessionMinutes(config: Pick<Config, 'tickSource' | 'marketClock'>): number | null {
  if (config.tickSource !== 'simulator') return null;
  const mode = parseMarketClockMode(config.marketClock);
  return mode.mode === 'accelerated' ? mode.sessionMinutes : null;
}

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

/** Where the engine reads ticks, when another part owns the bus. */
export interface EngineBus {
  /** The bus (Redis Streams). */
  readonly bus: TickBus;
  /** The engine's stable member name in {@link ENGINE_GROUP}; it also names its index in the read models. */
  readonly member: string;
  /** The shared Redis, where the engines claim each day close once. */
  readonly redis?: RedisClient;
}

/** How a missed session's close is made: where it goes, and the words the log says of it. */
interface MissedCloseWay {
  /** Who was down (`the engine`, `every engine`). */
  readonly down: string;
  /** What was done with the kept bars (`stored`, `published`). */
  readonly done: string;
  /** Stores or publishes the close; answers what the log adds. */
  close(day: ClosedDay): Promise<Record<string, unknown>>;
}

/**
 * Closes a session that ended while no engine ran (`missedSession`, its date never claimed), claimed once
 * (`claims`, as the day closer claims each date): its kept bars, and a flat bar at its last close for each
 * symbol of the market store that did not trade, unless the store holds a bar of that day already (the
 * simulated history, extended at the start to the last session the wall clock closed); a traded symbol's kept
 * bar replaces such a bar. Logs what it closed, with the time of the last tick kept (a crash before the end of
 * the session leaves its last trades out), or why not.
 */
async function closeMissedSession(
  store: SessionStore,
  market: MarketData,
  claims: DayCloseClaims,
  logger: Logger,
  way: MissedCloseWay,
  now: number,
): Promise<void> {
  let claimed: string | null = null;
  try {
    const kept = await missedSession(store, now);
    if (kept === null || !(await claims.claim(kept.date))) return;
    claimed = kept.date;
    const idle: [string, number][] = [];
    for (const [symbol, bars] of market.store.lastBars(market.symbols(), 1)) {
      const last = bars.at(-1);
      if (last !== undefined && last.date < kept.date) idle.push([symbol, last.close]);
    }
    const fields = await way.close(keptClose(kept, idle));
    const lastTick = new Date(Math.max(...Object.values(kept.bars).map((bar) => bar.last))).toISOString();
    logger.warn(
      { date: kept.date, ...fields, traded: Object.keys(kept.bars).length, lastTick },
      `the session of ${kept.date} ended while ${way.down} was down: its kept bars ${way.done} as its close`,
    );
  } catch (error) {
    // Claimed but not closed: the claim is given back, so that the next start closes it from the same bars.
    const released = claimed !== null && (await giveBack(claims, claimed, logger));
    logger.warn(
      { err: error, ...(claimed !== null ? { date: claimed, released } : {}) },
      `the kept bars of a session that ended while ${way.down} was down were not ${way.done}` +
        (released ? ': the next start closes it from them' : ''),
    );
  }
}

/**
 * Publishes a day close the day closer made (its date claimed for it); when the bus refuses it (closed by a stop
 * under way at 16:00, an error of Redis), gives the claim back, so that the next start closes the date from the
 * kept bars (the feed's, Finnhub's) rather than no process ever closing it. Answers whether it was published.
 */
export async function publishClose(
  bus: TickBus,
  claims: DayCloseClaims,
  logger: Logger,
  day: ClosedDay,
): Promise<boolean> {
  try {
    await bus.publishDayClosed(day);
    return true;
  } catch (error) {
    const released = await giveBack(claims, day.date, logger);
    logger.error(
      { err: error, date: day.date, released },
      `the close of ${day.date} was not published` + (released ? ': its claim given back' : ''),
    );
    return false;
  }
}

/** Gives back the claim of a date whose close was not delivered; answers whether it was given back. */
async function giveBack(claims: DayCloseClaims, date: string, logger: Logger): Promise<boolean> {
  try {
    await claims.release(date);
    return true;
  } catch (error) {
    logger.error({ err: error, date }, `the claim of the close of ${date} was not given back: it stays unclosed`);
    return false;
  }
}

/**
 * Alone: stores the close of a session that ended while the process was down ({@link closeMissedSession}) in the
 * market store (`MarketData.rollDay`) before the quotes are seeded, so the quotes, the indicators and the alerts'
 * series seeded next go on from it.
 */
export function storeMissedSession(
  store: SessionStore,
  market: MarketData,
  claims: DayCloseClaims,
  logger: Logger,
  now: number = Date.now(),
): Promise<void> {
  return closeMissedSession(
    store,
    market,
    claims,
    logger,
    {
      down: 'the engine',
      done: 'stored',
      close: (day) => {
        const { written, earlier } = market.rollDay(day);
        return Promise.resolve({ written, earlier: earlier.length });
      },
    },
    now,
  );
}

/**
 * With engines sharing a Redis: publishes the close of a session that ended while every engine was down
 * ({@link closeMissedSession}, claimed once among them) on the shared bus, as a day closer publishes a close:
 * each running process stores its bars (`storeClosedDays`), and the quotes and the alert engines roll,
 * evaluating the once-per-bar-close alerts on its bars as at any close. Call it once the caller's own readers
 * are subscribed.
 */
export async function publishMissedSession(
  config: Config,
  redis: RedisClient,
  bus: TickBus,
  market: MarketData,
  logger: Logger,
  now: number = Date.now(),
): Promise<void> {
  const kept = keptSessionStore(config, redis);
  if (kept === null) return;
  const way: MissedCloseWay = {
    down: 'every engine',
    done: 'published',
    close: async (day) => {
      await bus.publishDayClosed(day);
      return {};
    },
  };
  await closeMissedSession(kept, market, dayCloseClaims(config, redis), logger, way, now);
}

/** Where {@link takeBackSession} takes the open session from, and the clock. */
export interface TakeBackOptions {
  /** The last day stored (the session taken back is a later one). */
  readonly after: string;
  /** The symbols a provider stream carries (`TICK_SOURCE=alpaca`), whose session the provider's bars give. */
  readonly demand?: SymbolDemand;
  /** The session the last run kept (the feed's and Finnhub's), or null. */
  readonly kept: SessionStore | null;
  /** Where the kept minute candles are, for quotes that keep minutes. */
  readonly minutes?: MinuteStore | null;
  /** The clock (default `Date.now`). */
  readonly now?: () => number;
}

/**
 * Takes the open session back into `quotes` at start: the provider's minute bars of the symbols `demand` names,
 * then the session the last run kept; the alerts armed before the restart are then measured from the prices taken
 * back, as their next tick would be (`AlertEngine.resumeFrom`). Answers both sessions' ticks, which the day
 * closer takes too.
 */
export async function takeBackSession(
  config: Pick<Config, 'alpaca' | 'alpacaDataUrl'>,
  quotes: LiveQuotes,
  alerts: Pick<AlertEngine, 'resumeFrom'>,
  logger: Logger,
  options: TakeBackOptions,
): Promise<{ played: readonly Tick[]; resumed: readonly Tick[] }> {
  const { after, demand, kept, minutes = null, now = Date.now } = options;
  const played = demand ? await pickUpSession(config, quotes, demand, after, logger, now) : [];
  const resumed = kept
    ? await resumeSession(kept, regularMarketClock(after), quotes, logger, { minutes, now: now() })
    : [];
  alerts.resumeFrom(new Set([...played, ...resumed].map((tick) => tick.symbol)));
  return { played, resumed };
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
  demandOf?: (armedSymbols: () => Iterable<string>) => SymbolDemand,
): Promise<RunningEngine> {
  const bus =
    shared?.bus ?? createInProcessTickBus({ onError: (error) => logger.error({ err: error }, 'tick listener failed') });
  const redis = shared?.redis ?? null;
  // The feed's and Finnhub's session so far, as the last run kept it: no provider can fill those in again.
  const kept = keptSessionStore(config, redis);
  const claims = dayCloseClaims(config, redis);
  // Alone, a session that ended while the process was down closes from its kept bars before the quotes seed.
  if (kept && !shared) await storeMissedSession(kept, market, claims, logger);
  const { quotes, bars } = seedQuotes(market, configuredFeed(config));
  const reports = new TriggerReports({ remembered: REPORTED_TRIGGERS_KEPT, held: HELD_TRIGGERS_KEPT }, (error) =>
    logger.error({ err: error }, 'trigger listener failed'),
  );
  const onTriggered = (trigger: EngineTrigger): void => reports.report(trigger);
  const alerts = new AlertEngine({
    events,
    readModels,
    quotes,
    ...(shared ? { instance: shared.member } : {}),
    onTriggered,
    onError: (error) => logger.error({ err: error }, 'alert engine error'),
  });
  await alerts.start();
  // What a provider stream carries: the symbols with an armed alert come from the index, not the read models.
  const demand = demandOf?.(() => alerts.armedSymbols());
  // Alone, the engine's quotes are the market's: the 1D chart's minute candles are kept from the first tick.
  if (!shared) quotes.keepMinutes();
  // Alone, the engine's quotes keep the 1D chart's minutes: their finished candles are kept too.
  const minutes = shared ? null : keptMinuteStore(config, redis);
  const { played, resumed } = await takeBackSession(config, quotes, alerts, logger, {
    after: lastDate(bars),
    ...(demand ? { demand } : {}),
    kept,
    minutes,
  });
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
  const {
    source,
    closer,
    health: sourceHealth,
    demoSessions,
  } = openTickSource(config, bus, bars, claims, logger, demand ? { demand } : undefined);
  // On the demo clock a trading day is a session of a few minutes: once-per-bar alerts go by its date.
  if (demoSessions) alerts.useSessions(demoSessions);
  let live = config.tickSource === 'feed';
  let open = true;
  const publishFailed = (error: unknown): void => {
    if (open) logger.error({ err: error }, 'tick publish failed');
  };
  source.start({
    onTicks: (batch) => void bus.publish(batch).catch(publishFailed),
    onDayClosed: (day) => void publishClose(bus, claims, logger, day),
  });
  // The session picked up goes into the day's bars too, before any live tick: its close publishes the whole day.
  if (played.length > 0) closer.observe(played);
  if (resumed.length > 0) closer.observe(resumed);
  const keeper = kept
    ? new SessionKeeper(closer, kept, {
        onError: (error) => logger.warn({ err: error }, 'the session so far was not kept'),
        appended: () => alerts.appended(),
      }).start()
    : null;
  const minuteKeeper = minutes
    ? new MinuteKeeper(quotes, minutes, {
        onError: (error) => logger.warn({ err: error }, 'the minute candles so far were not kept'),
      }).start()
    : null;
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
    sessionMinutes: demoSessionMinutes(config),
    live: () => live && open && (sourceHealth?.().ok ?? true),
    ...(sourceHealth ? { sourceHealth } : {}),
    onTrigger: (listener) => reports.listen(listener),
    sessionBar: (symbol) => closer.formingBar(symbol),
    stop: async () => {
      open = false;
      live = false;
      stopServing();
      await source.stop();
      await keeper?.stop();
      await minuteKeeper?.stop();
      await subscription.unsubscribe();
      await alerts.stop();
      if (!shared) await bus.close();
    },
  };
}
