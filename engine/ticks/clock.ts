/**
 * Time as the tick sources see it: the system clock in production, a {@link ManualClock} in tests, so a
 * simulated session runs in microseconds and the same seed gives the same ticks.
 */

/** A timer started by a {@link Clock}. */
export interface TimerHandle {
  /** Opaque identity of the timer. */
  readonly id: number;
}

/** Reads the time and runs code later. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `callback` once, `ms` milliseconds from now. */
  setTimeout(callback: () => void, ms: number): TimerHandle;
  /** Cancels a timer that has not run. */
  clearTimeout(handle: TimerHandle): void;
}

/** The system clock (`Date.now`, Node timers that do not keep the process alive). */
export function systemClock(): Clock {
  const timers = new Map<number, NodeJS.Timeout>();
  let next = 0;
  return {
    now: () => Date.now(),
    setTimeout: (callback, ms) => {
      const id = ++next;
      const timer = setTimeout(() => {
        timers.delete(id);
        callback();
      }, ms);
      timer.unref();
      timers.set(id, timer);
      return { id };
    },
    clearTimeout: (handle) => {
      const timer = timers.get(handle.id);
      if (timer !== undefined) clearTimeout(timer);
      timers.delete(handle.id);
    },
  };
}

interface PendingTimer {
  readonly id: number;
  readonly at: number;
  readonly callback: () => void;
}

/** A clock that moves only when told to, running the timers that fall due in time order. */
export class ManualClock implements Clock {
  private time: number;
  private timers: PendingTimer[] = [];
  private nextId = 0;

  /** Starts the clock at `start` (ms since the epoch). */
  constructor(start: number) {
    this.time = start;
  }

  /** The current time. */
  now(): number {
    return this.time;
  }

  /** Schedules a callback `ms` from now (at least 0). */
  setTimeout(callback: () => void, ms: number): TimerHandle {
    const id = ++this.nextId;
    this.timers.push({ id, at: this.time + Math.max(0, ms), callback });
    return { id };
  }

  /** Cancels a timer. */
  clearTimeout(handle: TimerHandle): void {
    this.timers = this.timers.filter((timer) => timer.id !== handle.id);
  }

  /** Moves the clock `ms` forward, running each timer due on the way at its own time. */
  advance(ms: number): void {
    this.advanceTo(this.time + ms);
  }

  /** Moves the clock forward to `time`, running each timer due on the way at its own time. */
  advanceTo(time: number): void {
    for (;;) {
      let due: PendingTimer | undefined;
      for (const timer of this.timers) {
        if (
          timer.at <= time &&
          (due === undefined || timer.at < due.at || (timer.at === due.at && timer.id < due.id))
        ) {
          due = timer;
        }
      }
      if (due === undefined) break;
      const running = due;
      this.timers = this.timers.filter((timer) => timer !== running);
      this.time = Math.max(this.time, running.at);
      running.callback();
    }
    this.time = Math.max(this.time, time);
  }

  /** How many timers wait. */
  get pending(): number {
    return this.timers.length;
  }
}
