/**
 * The armed-alert index: the alerts waiting for their condition, organised per symbol so that a tick costs
 * O(1 + fired) for price alerts and O(periods) for SMA alerts, whatever the number of alerts.
 *
 * Per symbol, `U` price alerts are kept sorted by threshold descending and `D` alerts ascending, so the alerts a
 * price meets are always at the end of their array: a tick compares the price with the last threshold, pops
 * while it fires and stops at the first that does not (an insert or a removal is a binary search and a splice).
 * SMA alerts are grouped by period and direction; all alerts of a group share one condition, so a crossing
 * fires the whole group. Prices and thresholds are integer cents; the moving-average test is integer too.
 */
import type { Alert, AlertDirection, AlertKind } from '../../domain/alerts/alerts.ts';
import { SMA_PERIODS, type SmaPeriod } from '../../domain/screener/query.ts';

/** An alert as the index holds it. */
export interface ArmedAlert {
  /** `<userId>/<alertId>`: unique over every user. */
  readonly key: string;
  /** The user whose alert it is. */
  readonly userId: string;
  /** The alert's id. */
  readonly alertId: string;
  /** The symbol watched. */
  readonly symbol: string;
  /** Price or SMA alert. */
  readonly kind: AlertKind;
  /** `U` up, `D` down. */
  readonly alerttype: AlertDirection;
  /** Price alerts: the threshold in cents; null for SMA alerts. */
  readonly thresholdCents: number | null;
  /** SMA alerts: the period; null for price alerts. */
  readonly period: SmaPeriod | null;
  /** Which arming of the alert this is (keys the trigger's command id). */
  readonly arming: number;
}

/** The index key of a user's alert. */
export function alertKey(userId: string, alertId: string): string {
  return `${userId}/${alertId}`;
}

/** The index entry of a user's alert. */
export function armedAlertOf(userId: string, alert: Alert): ArmedAlert {
  return {
    key: alertKey(userId, alert.id),
    userId,
    alertId: alert.id,
    symbol: alert.symbol,
    kind: alert.kind === 'SMA' ? 'SMA' : 'PRICE',
    alerttype: alert.alerttype ?? 'U',
    thresholdCents: alert.thresholdCents,
    period: alert.period,
    arming: alert.arming,
  };
}

/**
 * Where the index reads a symbol's moving-average level: the sum in cents of its last `period − 1` finished
 * closes, or null when it has fewer (see `LiveQuotes.smaBase`).
 */
export type SmaBaseLookup = (symbol: string, period: SmaPeriod) => number | null;

const PERIOD_SLOT = new Map<number, number>(SMA_PERIODS.map((period, i) => [period, i]));

class Book {
  /** `U` thresholds, descending (the lowest, first to fire, last), with their alerts. */
  readonly upTh: number[] = [];
  readonly up: ArmedAlert[] = [];
  /** `D` thresholds, ascending (the highest, first to fire, last), with their alerts. */
  readonly downTh: number[] = [];
  readonly down: ArmedAlert[] = [];
  /** SMA groups at `2 × slot` (U) and `2 × slot + 1` (D), slot = index of the period in SMA_PERIODS. */
  readonly sma: ArmedAlert[][] = SMA_PERIODS.flatMap(() => [[], []]);
  /** Per slot: the sum in cents of the last `period − 1` finished closes, or NaN. */
  readonly bases: number[] = SMA_PERIODS.map(() => NaN);
  smaCount = 0;
}

/** First index of a descending array whose value is below `t` (insert after equal ones). */
function afterDescending(values: readonly number[], t: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! >= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index of an ascending array whose value is above `t` (insert after equal ones). */
function afterAscending(values: readonly number[], t: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Removes `alert` from a sorted pair of arrays; `end` is where the run of its threshold ends. */
function removeFrom(thresholds: number[], alerts: ArmedAlert[], alert: ArmedAlert, end: number): boolean {
  for (let i = end - 1; i >= 0 && thresholds[i] === alert.thresholdCents; i--) {
    if (alerts[i] === alert) {
      thresholds.splice(i, 1);
      alerts.splice(i, 1);
      return true;
    }
  }
  return false;
}

/** The armed alerts of every user, per symbol. */
export class AlertIndex {
  private readonly books = new Map<string, Book>();
  private readonly byKey = new Map<string, ArmedAlert>();

  /** An empty index reading moving-average levels from `smaBase`. */
  constructor(private readonly smaBase: SmaBaseLookup = () => null) {}

  /** How many alerts are armed. */
  get size(): number {
    return this.byKey.size;
  }

  /** How many symbols have a book (armed alerts now or before). */
  get symbolCount(): number {
    return this.books.size;
  }

  /** Whether an alert is in the index. */
  has(key: string): boolean {
    return this.byKey.has(key);
  }

  /** The alert of a key, if armed. */
  get(key: string): ArmedAlert | undefined {
    return this.byKey.get(key);
  }

  /** Arms an alert, replacing the one of the same key (an update moves it). */
  add(alert: ArmedAlert): void {
    if (this.byKey.has(alert.key)) this.remove(alert.key);
    if (alert.kind === 'PRICE' && (alert.thresholdCents === null || !Number.isSafeInteger(alert.thresholdCents))) {
      throw new RangeError(`alert ${alert.key}: a price alert needs a threshold in whole cents`);
    }
    if (alert.kind === 'SMA' && (alert.period === null || !PERIOD_SLOT.has(alert.period))) {
      throw new RangeError(`alert ${alert.key}: an SMA alert needs a period of ${SMA_PERIODS.join(', ')}`);
    }
    const book = this.bookOf(alert.symbol);
    const t = alert.thresholdCents!;
    if (alert.kind === 'SMA') {
      book.sma[2 * PERIOD_SLOT.get(alert.period!)! + (alert.alerttype === 'U' ? 0 : 1)]!.push(alert);
      book.smaCount += 1;
    } else if (alert.alerttype === 'U') {
      const at = afterDescending(book.upTh, t);
      book.upTh.splice(at, 0, t);
      book.up.splice(at, 0, alert);
    } else {
      const at = afterAscending(book.downTh, t);
      book.downTh.splice(at, 0, t);
      book.down.splice(at, 0, alert);
    }
    this.byKey.set(alert.key, alert);
  }

  /** Disarms an alert; answers it, or undefined when it was not armed. */
  remove(key: string): ArmedAlert | undefined {
    const alert = this.byKey.get(key);
    if (alert === undefined) return undefined;
    this.byKey.delete(key);
    const book = this.books.get(alert.symbol)!;
    if (alert.kind === 'SMA') {
      const group = book.sma[2 * PERIOD_SLOT.get(alert.period!)! + (alert.alerttype === 'U' ? 0 : 1)]!;
      group.splice(group.indexOf(alert), 1);
      book.smaCount -= 1;
    } else if (alert.alerttype === 'U') {
      removeFrom(book.upTh, book.up, alert, afterDescending(book.upTh, alert.thresholdCents!));
    } else {
      removeFrom(book.downTh, book.down, alert, afterAscending(book.downTh, alert.thresholdCents!));
    }
    return alert;
  }

  /**
   * Evaluates a tick of `symbol` that moved the price from `prevCents` (NaN when unknown) to `cents`: appends
   * the alerts it fires to `out` and disarms them; answers how many fired.
   *
   * - price `U`: threshold ≤ price; price `D`: threshold ≥ price (both at the exact cent);
   * - SMA `U`: the previous price below the moving average and this one at or above it; SMA `D` the mirror. The
   *   average has today's price as its forming close, so with `base` the sum of the last `period − 1` closes,
   *   price p is at or above it exactly when `(period − 1) × p >= base`.
   */
  evaluate(symbol: string, prevCents: number, cents: number, out: ArmedAlert[]): number {
    const book = this.books.get(symbol);
    if (book === undefined) return 0;
    const before = out.length;
    const upTh = book.upTh;
    let n = upTh.length;
    if (n > 0 && upTh[n - 1]! <= cents) {
      const up = book.up;
      do out.push(up[--n]!);
      while (n > 0 && upTh[n - 1]! <= cents);
      upTh.length = n;
      up.length = n;
    }
    const downTh = book.downTh;
    n = downTh.length;
    if (n > 0 && downTh[n - 1]! >= cents) {
      const down = book.down;
      do out.push(down[--n]!);
      while (n > 0 && downTh[n - 1]! >= cents);
      downTh.length = n;
      down.length = n;
    }
    if (book.smaCount > 0) this.crossings(book, prevCents, cents, out);
    const fired = out.length - before;
    for (let i = before; i < out.length; i++) this.byKey.delete(out[i]!.key);
    return fired;
  }

  /** Reads every book's moving-average levels again, e.g. after a day close moved them. */
  refreshSmaBases(): void {
    for (const [symbol, book] of this.books) this.readBases(symbol, book);
  }

  /** The armed alerts of a symbol: `U` price alerts in firing order, then `D`, then SMA alerts. */
  alertsOf(symbol: string): ArmedAlert[] {
    const book = this.books.get(symbol);
    if (book === undefined) return [];
    return [...[...book.up].reverse(), ...[...book.down].reverse(), ...book.sma.flat()];
  }

  /** Every armed alert. */
  all(): IterableIterator<ArmedAlert> {
    return this.byKey.values();
  }

  private crossings(book: Book, prevCents: number, cents: number, out: ArmedAlert[]): void {
    for (let slot = 0; slot < SMA_PERIODS.length; slot++) {
      const base = book.bases[slot]!;
      // NaN (no level, or no previous price) fails every comparison below.
      const m = SMA_PERIODS[slot]! - 1;
      const before = m * prevCents;
      const now = m * cents;
      const up = book.sma[2 * slot]!;
      if (up.length > 0 && before < base && now >= base) {
        book.smaCount -= up.length;
        for (const alert of up) out.push(alert);
        up.length = 0;
      }
      const down = book.sma[2 * slot + 1]!;
      if (down.length > 0 && before > base && now <= base) {
        book.smaCount -= down.length;
        for (const alert of down) out.push(alert);
        down.length = 0;
      }
    }
  }

  private bookOf(symbol: string): Book {
    let book = this.books.get(symbol);
    if (book === undefined) {
      book = new Book();
      this.readBases(symbol, book);
      this.books.set(symbol, book);
    }
    return book;
  }

  private readBases(symbol: string, book: Book): void {
    SMA_PERIODS.forEach((period, slot) => {
      const base = this.smaBase(symbol, period);
      book.bases[slot] = base === null ? NaN : base;
    });
  }
}
