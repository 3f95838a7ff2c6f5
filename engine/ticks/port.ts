/**
 * The TickSource port: where ticks come from. The simulator (`simulator.ts`, the default) and the replay of a
 * tick CSV (`replay.ts`) implement it and pass `tickSource.contract.ts`; the feed route and the Redis stream
 * arrive through the TickBus instead.
 */
import type { TickListener } from './tick.ts';

/** A producer of ticks and day closes. */
export interface TickSource {
  /**
   * Starts delivering ticks in batches (in time order, never empty) and a day close after each trading day's
   * last ticks; throws when already started.
   */
  start(listener: TickListener): void;
  /** Stops delivering; resolves when the listener will not be called again. Stopping twice is harmless. */
  stop(): Promise<void>;
}
