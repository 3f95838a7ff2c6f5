/**
 * The TickBus port: how market data moves from where it is made (the simulator, a replay, the feed route) to
 * the engines that evaluate it. Ticks are market data, not events of the log: a subscriber sees what is
 * published while it is subscribed (a named group member of a durable bus also what it missed while down).
 * Adapters: in-process (`inProcess.ts`) and Redis Streams for the distributed mode (`redisStreams.ts`); both
 * pass `tickBus.contract.ts`.
 */
import type { DailyBar } from '../../domain/market/types.ts';

/** One trade of a symbol: the wire shape of the bus, of the tick sources and of the feed route. */
export interface Tick {
  /** Ticker, upper case (`AAPL`, `BRK.B`). */
  readonly symbol: string;
  /** Trade price in dollars. */
  readonly price: number;
  /** Shares traded. */
  readonly size: number;
  /** When it traded, in milliseconds since the epoch. */
  readonly ts: number;
}

/** A finished daily bar of one symbol. */
export interface SymbolBar extends DailyBar {
  /** Ticker. */
  readonly symbol: string;
}

/** The end of a trading day: the day's bar of every symbol, so indicators and patterns advance. */
export interface ClosedDay {
  /** The trading day that closed, `YYYY-MM-DD` (New York). */
  readonly date: string;
  /** One bar per symbol, in symbol order. */
  readonly bars: readonly SymbolBar[];
  /**
   * Set when the day is not one the calendar closed by the wall clock: a session of the demo clock (`demo`, dated
   * ahead of the calendar) or a day of recorded ticks played back (`replay`, played again at every start).
   */
  readonly played?: 'demo' | 'replay';
}

/** What receives market data: ticks in batches, and the day's bars at each close. */
export interface TickListener {
  /**
   * A batch of ticks, in time order; never empty. A promise answered resolves once what the batch caused is
   * durable (an engine's triggers appended): a durable bus acknowledges the batch only then, so a crash before
   * it delivers the batch again.
   */
  onTicks(ticks: readonly Tick[]): void | Promise<void>;
  /** A trading day closed; called after the day's last ticks and before the next day's first. */
  onDayClosed?(day: ClosedDay): void;
}

/** Options of {@link TickBus.subscribe}. */
export interface TickSubscribeOptions {
  /**
   * Subscribers of one group share the ticks: each symbol's ticks go to exactly one member, always the same
   * while the membership is unchanged (engines split symbols this way). Without a group a subscriber gets all.
   * Day closes go to every subscriber.
   */
  readonly group?: string;
  /**
   * A stable name of this member of `group`, unique among the live members: a bus that keeps a member's place
   * (Redis Streams) lets a member restarted under the same name resume where it stopped, with the ticks it
   * had not finished. Without it a member is anonymous and starts afresh. Ignored without `group`.
   */
  readonly member?: string;
}

/** A live subscription to the bus. */
export interface TickSubscription {
  /** Resolves once the subscription receives what is published from then on. */
  readonly ready: Promise<void>;
  /** Stops delivery; resolves when the listener will not be called again. */
  unsubscribe(): Promise<void>;
}

/** Carries ticks and day closes from the sources to the engines. */
export interface TickBus {
  /**
   * Publishes a batch of ticks (an empty batch is ignored); resolves once the bus has taken it for good: a
   * durable bus once it is stored; the in-process bus, which keeps nothing, once its listeners have made durable
   * what the batch caused (their `onTicks` promises settled), so a caller answered has lost nothing to a crash.
   */
  publish(ticks: readonly Tick[]): Promise<void>;
  /**
   * Publishes the close of a trading day, in order with the ticks published before and after it. A durable bus
   * also keeps the closes of the latest trading days ({@link recentCloses}), a day played again (`played`) apart.
   */
  publishDayClosed(day: ClosedDay): Promise<void>;
  /**
   * The closes of the latest trading days kept by a durable bus, dated after `after` (a date; default every one),
   * oldest first, one per date (the last published): what a process that starts after a close, having missed it,
   * stores to go on from it. The in-process bus, whose processes see every close they live through, keeps none.
   */
  recentCloses(after?: string): Promise<readonly ClosedDay[]>;
  /** Delivers what is published from now on to a listener, alone or as a member of a group. */
  subscribe(listener: TickListener, options?: TickSubscribeOptions): TickSubscription;
  /** Ends every subscription; publishing afterwards rejects. */
  close(): Promise<void>;
}

/** Publishing on a closed bus. */
export class TickBusClosedError extends Error {
  override readonly name = 'TickBusClosedError';
  constructor() {
    super('the tick bus is closed');
  }
}

/**
 * The member of a group of `members` that owns a symbol: FNV-1a of the symbol modulo the group's size, so
 * every adapter (and every process) splits symbols the same way.
 */
export function shardOf(symbol: string, members: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < symbol.length; i++) {
    hash ^= symbol.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % members;
}
