/**
 * Replay of a tick CSV (`ts,symbol,price,size`): validated line by line (an error names the line and the
 * field), then played as fast as possible or paced at a multiple of the recorded speed, with a day close
 * whenever the New York date of the ticks moves on.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { systemClock, type Clock, type TimerHandle } from './clock.ts';
import { DayBars } from './dayBars.ts';
import { newYorkTime } from './marketClock.ts';
import type { TickSource } from './port.ts';
import { TickError, checkTick, parseTickTime, type Tick, type TickListener } from './tick.ts';

/** The header a tick CSV starts with. */
export const TICK_CSV_COLUMNS = Object.freeze(['ts', 'symbol', 'price', 'size'] as const);

/** A tick CSV that cannot be read; the message names the file and the line. */
export class TickCsvError extends Error {
  override readonly name = 'TickCsvError';
  constructor(
    message: string,
    /** The 1-based line, or 0 when the problem is the file as a whole. */
    readonly line: number,
  ) {
    super(message);
  }
}

/**
 * Parses a tick CSV: the header `ts,symbol,price,size`, then one tick per line; `ts` is milliseconds since the
 * epoch or an ISO 8601 instant with its zone; ticks must not go back in time. Blank lines are skipped. Throws a
 * {@link TickCsvError} naming the first bad line.
 */
export function parseTickCsv(text: string, name = 'ticks.csv'): Tick[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const header = (lines[0] ?? '').split(',').map((cell) => cell.trim().toLowerCase());
  if (header.join(',') !== TICK_CSV_COLUMNS.join(',')) {
    throw new TickCsvError(
      `${name} line 1: the header must be ${TICK_CSV_COLUMNS.join(',')}, got ${JSON.stringify(lines[0] ?? '')}`,
      1,
    );
  }
  const ticks: Tick[] = [];
  let previous = -Infinity;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    const where = `${name} line ${i + 1}`;
    const cells = line.split(',');
    if (cells.length !== TICK_CSV_COLUMNS.length) {
      throw new TickCsvError(
        `${where}: expected ${TICK_CSV_COLUMNS.length} fields (ts,symbol,price,size), got ${cells.length}`,
        i + 1,
      );
    }
    const [tsText, symbol, priceText, sizeText] = cells.map((cell) => cell.trim()) as [string, string, string, string];
    const ts = parseTickTime(tsText);
    if (ts === null) {
      throw new TickCsvError(
        `${where}: ts ${JSON.stringify(tsText)} is neither milliseconds since the epoch nor an ISO 8601 instant with a zone`,
        i + 1,
      );
    }
    const price = priceText === '' || !/^[0-9.eE+-]+$/.test(priceText) ? NaN : Number(priceText);
    const size = sizeText === '' || !/^\d+$/.test(sizeText) ? NaN : Number(sizeText);
    let tick: Tick;
    try {
      tick = checkTick(
        { symbol, price: Number.isNaN(price) ? priceText : price, size: Number.isNaN(size) ? sizeText : size, ts },
        where,
      );
    } catch (error) {
      if (error instanceof TickError) throw new TickCsvError(error.message, i + 1);
      throw error;
    }
    if (ts < previous) {
      throw new TickCsvError(`${where}: ts ${tsText} is before the line above; ticks must be in time order`, i + 1);
    }
    previous = ts;
    ticks.push(tick);
  }
  return ticks;
}

/** Reads and parses a tick CSV file. */
export function readTickCsv(file: string): Tick[] {
  return parseTickCsv(readFileSync(file, 'utf8'), basename(file));
}

/** Options of {@link TickReplay}. */
export interface ReplayOptions {
  /** 0 (default): as fast as possible; otherwise a multiple of the recorded pace (1 = as recorded). */
  readonly speed?: number;
  /** Most ticks per batch (default 500); a paced replay also batches the ticks due at each step. */
  readonly batchSize?: number;
  /** Real ms between the steps of a paced replay (default 50). */
  readonly stepMs?: number;
  /** Whether the last day is closed at the end of the file (default true: the file is a finished record). */
  readonly closeLastDay?: boolean;
  /** The time (default the system clock). */
  readonly clock?: Clock;
}

/** A recorded list of ticks played back, a {@link TickSource}. */
export class TickReplay implements TickSource {
  private readonly speed: number;
  private readonly batchSize: number;
  private readonly stepMs: number;
  private readonly clock: Clock;
  private listener: TickListener | undefined;
  private next = 0;
  private day = new DayBars();
  private dayDate: string | undefined;
  private timer: TimerHandle | undefined;
  private stopped = false;
  private origin = 0;
  private resolveDone!: () => void;
  /** Resolves when every tick has been delivered (and the last day closed), or when stopped. */
  readonly done: Promise<void>;

  constructor(
    private readonly ticks: readonly Tick[],
    private readonly options: ReplayOptions = {},
  ) {
    this.speed = options.speed ?? 0;
    this.batchSize = options.batchSize ?? 500;
    this.stepMs = options.stepMs ?? 50;
    this.clock = options.clock ?? systemClock();
    if (!(this.speed >= 0) || !Number.isFinite(this.speed))
      throw new RangeError(`speed must be >= 0, got ${this.speed}`);
    if (!Number.isSafeInteger(this.batchSize) || this.batchSize < 1) {
      throw new RangeError(`batchSize must be a whole number >= 1, got ${this.batchSize}`);
    }
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
  }

  /** Starts playing from the first tick. */
  start(listener: TickListener): void {
    if (this.listener) throw new Error('the replay is already started');
    this.listener = listener;
    this.origin = this.clock.now();
    this.timer = this.clock.setTimeout(() => this.step(), 0);
  }

  /** Stops playing. */
  stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.resolveDone();
    return Promise.resolve();
  }

  private step(): void {
    this.timer = undefined;
    if (this.stopped || !this.listener) return;
    const first = this.ticks[0];
    // The recorded time up to which ticks are due now.
    const dueUntil =
      this.speed === 0 || first === undefined ? Infinity : first.ts + (this.clock.now() - this.origin) * this.speed;
    let batch: Tick[] = [];
    while (this.next < this.ticks.length && batch.length < this.batchSize) {
      const tick = this.ticks[this.next]!;
      if (tick.ts > dueUntil) break;
      const date = newYorkTime(tick.ts).date;
      if (this.dayDate !== undefined && date !== this.dayDate) {
        this.deliver(batch);
        batch = [];
        this.closeDay();
        if (this.stopped) return;
      }
      this.dayDate = date;
      this.day.add(tick);
      batch.push(tick);
      this.next += 1;
    }
    this.deliver(batch);
    if (this.stopped) return;
    if (this.next >= this.ticks.length) {
      if (this.options.closeLastDay ?? true) this.closeDay();
      this.resolveDone();
      return;
    }
    this.timer = this.clock.setTimeout(() => this.step(), this.waitForNext());
  }

  /** Real ms until the next step: none when unpaced, else until the next tick is due (at least one step). */
  private waitForNext(): number {
    if (this.speed === 0) return 0;
    const first = this.ticks[0]!.ts;
    const dueAt = (this.ticks[this.next]!.ts - first) / this.speed;
    return Math.max(this.stepMs, Math.ceil(dueAt - (this.clock.now() - this.origin)));
  }

  private deliver(batch: Tick[]): void {
    if (batch.length > 0 && !this.stopped) void this.listener?.onTicks(batch);
  }

  private closeDay(): void {
    if (this.dayDate === undefined || this.day.isEmpty || this.stopped) return;
    this.listener?.onDayClosed?.(this.day.close(this.dayDate));
  }
}
