/**
 * A write repeated each period, one at a time, and once more when it stops: what keeps the open session's bars
 * and minute candles across a restart (`keptSession.ts`, `engine/quotes/keptMinutes.ts`).
 */
import { systemClock, type Clock, type TimerHandle } from './clock.ts';

/** How often the session's bars and candles are written while they move (ms). */
export const KEEP_EVERY_MS = 1000;

/** Options of a {@link PeriodicWriter}. */
export interface PeriodicOptions {
  /** How often the write runs (default {@link KEEP_EVERY_MS}). */
  readonly everyMs?: number;
  /** The timers (default the system clock). */
  readonly clock?: Clock;
  /** A write that failed (the next one tries again). */
  readonly onError?: (error: unknown) => void;
}

/**
 * Runs its `write` each period after the last one ended, never two at once, and once more at {@link stop}: the
 * keepers of the session's bars and minute candles.
 */
export abstract class PeriodicWriter {
  private readonly clock: Clock;
  private readonly everyMs: number;
  private timer: TimerHandle | undefined;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: PeriodicOptions = {}) {
    this.clock = options.clock ?? systemClock();
    this.everyMs = options.everyMs ?? KEEP_EVERY_MS;
  }

  /** Writes what changed since the last write (a failure is thrown, and the next period tries again). */
  protected abstract write(): Promise<void>;

  /** Starts writing each period. */
  start(): this {
    this.schedule();
    return this;
  }

  /** Writes now, after the write under way; resolves once it ended (a failure goes to `onError`). */
  save(): Promise<void> {
    this.running = this.running.then(async () => {
      try {
        await this.write();
      } catch (error) {
        this.options.onError?.(error);
      }
    });
    return this.running;
  }

  /** Stops the period's writes, then writes once more. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    await this.save();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      void this.save().then(() => this.schedule());
    }, this.everyMs);
  }
}
