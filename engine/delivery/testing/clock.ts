/**
 * For tests: a clock that moves only when the test moves it, for the processor's `now` and `setTimer`, so a
 * cooldown or a retry minutes away comes due at once, and a timer runs as the clock passes its time.
 */

/** A clock the test moves. */
export interface ManualClock {
  /** Milliseconds since the epoch, on this clock. */
  readonly now: () => number;
  /** Calls `wake` once the clock has moved `delayMs` on; answers what cancels it. */
  readonly setTimer: (wake: () => void, delayMs: number) => () => void;
  /** Moves the clock `ms` on, and runs the timers it passes, earliest first. */
  advance(ms: number): void;
}

/** A clock reading `start` until the test moves it. */
export function manualClock(start: number): ManualClock {
  let at = start;
  const timers = new Set<{ readonly due: number; readonly wake: () => void }>();
  return {
    now: () => at,
    setTimer: (wake, delayMs) => {
      const timer = { due: at + Math.max(0, delayMs), wake };
      timers.add(timer);
      return () => timers.delete(timer);
    },
    advance: (ms) => {
      at += ms;
      const due = [...timers].filter((timer) => timer.due <= at).sort((a, b) => a.due - b.due);
      for (const timer of due) {
        if (!timers.delete(timer)) continue;
        timer.wake();
      }
    },
  };
}
