import type { EventStore, LogPosition } from '../eventstore/port.ts';
import type { ReadModelStore } from '../readmodels/port.ts';
import { startConsumer, type Consumer, type ConsumerRunner, type RunnerOptions } from './runner.ts';

/** First delay (ms) before a failed consumer is started again; it doubles with each failure in a row. */
export const RESTART_DELAY_MS = 500;

/** Longest delay (ms) before a failed consumer is started again. */
export const MAX_RESTART_DELAY_MS = 30_000;

/** Options of {@link superviseConsumer}. */
export interface SupervisorOptions extends RunnerOptions {
  /**
   * Called when the consumer fails, and when starting it again fails; it is started again after the delay
   * either way.
   */
  readonly onError?: (error: Error) => void;
  /** First delay (ms) before a failed consumer is started again (default {@link RESTART_DELAY_MS}). */
  readonly restartDelayMs?: number;
  /** Longest delay (ms), reached by doubling (default {@link MAX_RESTART_DELAY_MS}). */
  readonly maxRestartDelayMs?: number;
}

/** A promise with its resolve. */
function signal<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * Runs a consumer with {@link startConsumer} and, each time it fails (its subscription, a handler or a commit:
 * the read-model store unreachable, or its state lost), starts it again from its durable checkpoint after a
 * delay: {@link RESTART_DELAY_MS}, doubling with each failure in a row up to {@link MAX_RESTART_DELAY_MS}, and
 * back to the first once a run has caught up with the log. A store that lost the consumer's checkpoint has it
 * replay the whole log, so its read model is rebuilt. The first start is not retried: its failure rejects.
 *
 * Across restarts, `caughtUp` resolves once a run has caught up, `waitFor` resolves once a run has committed
 * the position (it rejects only when stopped first), `checkpoint()` and `lag()` are those of the latest run
 * (`applied` counts the events of every run), and `stop()` also cancels a restart not yet made.
 */
export async function superviseConsumer(
  events: EventStore,
  readModels: ReadModelStore,
  consumer: Consumer,
  options: SupervisorOptions = {},
): Promise<ConsumerRunner> {
  const firstDelay = options.restartDelayMs ?? RESTART_DELAY_MS;
  const maxDelay = options.maxRestartDelayMs ?? MAX_RESTART_DELAY_MS;
  let delay = firstDelay;
  let applied = 0;
  let stopped = false;
  const stopping = signal();
  const caughtUp = signal();
  /** Resolved (and replaced) each time a new run takes over, and when stopped. */
  let changed = signal();
  /** Ends the delay under way, if any. */
  let endPause: (() => void) | undefined;

  const counted: Consumer = {
    ...consumer,
    handle: async (event, tx) => {
      await consumer.handle(event, tx);
      applied += 1;
    },
  };
  const report = (error: Error): void => options.onError?.(error);

  /** Starts one run; its promise `failed` resolves at its failure. */
  const run = async (): Promise<{ runner: ConsumerRunner; failed: Promise<void> }> => {
    const failure = signal();
    const runner = await startConsumer(events, readModels, counted, {
      batchSize: options.batchSize,
      verifyMs: options.verifyMs,
      onCommit: options.onCommit,
      onError: (error) => {
        report(error);
        failure.resolve();
      },
    });
    runner.caughtUp.then(
      () => {
        delay = firstDelay;
        caughtUp.resolve();
      },
      () => undefined,
    );
    return { runner, failed: failure.promise };
  };

  /** Waits `ms`, or less when stopped meanwhile. */
  const pause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => endPause?.(), ms);
      endPause = () => {
        clearTimeout(timer);
        endPause = undefined;
        resolve();
      };
    });

  let { runner: current, failed } = await run();

  const supervise = async (): Promise<void> => {
    for (;;) {
      await Promise.race([failed, stopping.promise]);
      if (stopped) return;
      await current.stop().catch(() => undefined);
      for (;;) {
        await pause(delay);
        delay = Math.min(delay * 2, maxDelay);
        if (stopped) return;
        try {
          ({ runner: current, failed } = await run());
          break;
        } catch (error) {
          report(error instanceof Error ? error : new Error(String(error)));
        }
      }
      const previous = changed;
      changed = signal();
      previous.resolve();
    }
  };
  const supervising = supervise();

  return {
    caughtUp: caughtUp.promise,
    checkpoint: () => current.checkpoint(),
    waitFor: async (position: LogPosition) => {
      for (;;) {
        const runner = current;
        const next = changed.promise;
        try {
          await runner.waitFor(position);
          return;
        } catch (error) {
          // This run failed before reaching the position: the next one may.
          if (current === runner) await next;
          if (current === runner) throw error;
        }
      }
    },
    lag: async () => ({ ...(await current.lag()), applied }),
    stop: async () => {
      stopped = true;
      stopping.resolve();
      endPause?.();
      await supervising;
      changed.resolve();
      await current.stop();
    },
  };
}
