/**
 * What each operator means, on the values of one tick (`v` the source, `lo` the level or the channel's lower
 * bound, `hi` the upper bound) and of the tick before: the one definition the index's groups and the reference
 * evaluator both apply, and that the index's sorted ladders reproduce.
 *
 * - `greater_than` v ≥ lo, `less_than` v ≤ lo (as the price alerts always were: at or above, at or below);
 * - `crossing_up` previous v < lo and now v ≥ lo; `crossing_down` previous v > lo and now v ≤ lo; `crossing`
 *   either (TradingView's crossings, the level compared at each tick);
 * - `inside_channel` lo ≤ v ≤ hi, `outside_channel` not inside; `entering_channel` outside then inside,
 *   `exiting_channel` inside then outside; a channel is the range between its bounds whichever is higher (a
 *   bound that is a series may pass the other: the channel between two averages stays between them);
 * - `moving_up(_pct)` v ≥ lo and `moving_down(_pct)` v ≤ lo, with lo the value `bars` bars back plus or minus
 *   the amount (see `SourceFeed.movingLevel`).
 */
import { EDGE_OPS, type AlertCondition, type AlertOp } from '../../domain/alerts/conditions.ts';
import { toUnits, type FeedBook, type SourceFeed } from './series.ts';

const EDGE: ReadonlySet<AlertOp> = new Set(EDGE_OPS);

/** Whether `v` is within the channel between `a` and `b`, bounds included, whichever of the two is higher. */
function within(v: number, a: number, b: number): boolean {
  return a <= b ? a <= v && v <= b : b <= v && v <= a;
}

/** Whether an operator fires on a change between two ticks (never on the first tick after arming). */
export function isEdgeOp(op: AlertOp): boolean {
  return EDGE.has(op);
}

/** Whether a condition holds on one tick's values (for the edge operators: whether the state they leave holds). */
export function truthOf(op: AlertOp, v: number, lo: number, hi: number): boolean {
  switch (op) {
    case 'greater_than':
    case 'crossing_up':
    case 'moving_up':
    case 'moving_up_pct':
      return v >= lo;
    case 'less_than':
    case 'crossing_down':
    case 'moving_down':
    case 'moving_down_pct':
      return v <= lo;
    case 'crossing':
      return v >= lo;
    case 'inside_channel':
    case 'entering_channel':
      return within(v, lo, hi);
    default:
      return !within(v, lo, hi);
  }
}

/** Whether an edge operator fires between the previous tick's values and this one's. */
export function edgeOf(op: AlertOp, pv: number, plo: number, phi: number, v: number, lo: number, hi: number): boolean {
  switch (op) {
    case 'crossing_up':
      return pv < plo && v >= lo;
    case 'crossing_down':
      return pv > plo && v <= lo;
    case 'crossing':
      return (pv < plo && v >= lo) || (pv > plo && v <= lo);
    case 'entering_channel':
      return !within(pv, plo, phi) && within(v, lo, hi);
    case 'exiting_channel':
      return within(pv, plo, phi) && !within(v, lo, hi);
    default:
      return false;
  }
}

/** Prices in cents, both bounds excluded. */
export interface PriceRange {
  lo: number;
  hi: number;
}

/** Far enough from zero (in the values' units) for a difference's sign to be the same in floating point. */
const SIGN_MARGIN = 0.01;

/**
 * Narrows `range` to the price `cents` alone. Every source but volume is a function of the price within a day and
 * with the same previous close, so a tick at the same price reads the same values and changes no comparison.
 */
function pin(range: PriceRange, cents: number): void {
  range.lo = Math.max(range.lo, cents - 1);
  range.hi = Math.min(range.hi, cents + 1);
}

/**
 * Narrows `range` to the prices on the side of `cents` where `slope × c + intercept` keeps its sign, at least
 * {@link SIGN_MARGIN} from zero (and half a cent from the root); to `cents` alone when it is nearer the root than
 * that (or the slope too flat to tell).
 */
function narrowTo(range: PriceRange, cents: number, slope: number, intercept: number): void {
  const magnitude = Math.abs(slope);
  if (magnitude < 1e-9) {
    if (!(Math.abs(intercept) > 2 * SIGN_MARGIN)) pin(range, cents);
    return;
  }
  const root = -intercept / slope;
  const margin = Math.max(0.5, (2 * SIGN_MARGIN) / magnitude);
  if (cents <= root - margin) range.hi = Math.min(range.hi, root - margin);
  else if (cents >= root + margin) range.lo = Math.max(range.lo, root + margin);
  else pin(range, cents);
}

/** One operand: a constant in the source's unit, or a feed. */
interface Operand {
  readonly constant: number;
  readonly feed: SourceFeed | null;
}

/**
 * Reads the values `v`, `lo`, `hi` of one condition on a tick, from the feeds of its symbol. A price compared
 * with its SMA is compared exactly, in integers: with `base` the sum of the last `period − 1` closes, price p
 * is at or above the SMA exactly when `(period − 1) × p ≥ base`, so `v` and `lo` are those two integers.
 */
export class ConditionProbe {
  v = NaN;
  lo = NaN;
  hi = NaN;
  private readonly source: SourceFeed;
  private readonly lower: Operand;
  private readonly upper: Operand;
  private readonly smaScale: number;

  constructor(
    readonly condition: AlertCondition,
    symbol: string,
    feeds: FeedBook,
  ) {
    this.source = feeds.feed(symbol, condition.source);
    const operand = (value: AlertCondition['value']): Operand =>
      value === null
        ? { constant: NaN, feed: null }
        : typeof value === 'number'
          ? { constant: toUnits(condition.source, value), feed: null }
          : { constant: NaN, feed: feeds.feed(symbol, value.ref) };
    this.lower = operand(condition.bars === null ? (condition.value ?? condition.lower) : null);
    this.upper = operand(condition.upper);
    const ref = this.lower.feed;
    this.smaScale =
      condition.source === 'price' && condition.upper === null && ref !== null && ref.source.startsWith('sma:')
        ? ref.period
        : 0;
  }

  /** The source's own value on a tick, in its unit. */
  sourceValue(cents: number, volume: number, prevCloseCents: number): number {
    return this.source.value(cents, volume, prevCloseCents);
  }

  /**
   * Narrows `range` (prices in cents, both bounds excluded) to where no comparison of the source with a level
   * differs from what it is at `cents`: answers `'narrowed'`; `'inert'` when a value is unknown all day (the
   * condition cannot be evaluated); or `'opaque'` when an operand is the day's volume, which may change the
   * comparisons at any tick. When every operand is linear in the price (price, SMA, EMA, constants) the range
   * reaches the nearest crossing; otherwise (RSI, the day's change, a moving level), or too near a crossing to be
   * sure in floating point, it holds `cents` alone.
   */
  narrow(cents: number, range: PriceRange): 'narrowed' | 'inert' | 'opaque' {
    if (this.source.byVolume || this.lower.feed?.byVolume === true || this.upper.feed?.byVolume === true) {
      return 'opaque';
    }
    if (this.condition.bars !== null) {
      pin(range, cents);
      return 'narrowed';
    }
    let vA: number;
    let vB: number;
    let loA: number;
    let loB: number;
    if (this.smaScale > 0) {
      vA = this.smaScale - 1;
      vB = 0;
      loA = 0;
      loB = this.lower.feed!.smaBase;
    } else {
      vA = this.source.slope;
      vB = this.source.intercept;
      loA = this.lower.feed === null ? 0 : this.lower.feed.slope;
      loB = this.lower.feed === null ? this.lower.constant : this.lower.feed.intercept;
    }
    const hasUpper = this.condition.upper !== null;
    const hiA = !hasUpper ? 0 : this.upper.feed === null ? 0 : this.upper.feed.slope;
    const hiB = !hasUpper ? 0 : this.upper.feed === null ? this.upper.constant : this.upper.feed.intercept;
    if (Number.isNaN(vA + loA + hiA)) {
      pin(range, cents);
      return 'narrowed';
    }
    if (Number.isNaN(vB + loB + hiB)) return 'inert';
    narrowTo(range, cents, vA - loA, vB - loB);
    if (hasUpper) narrowTo(range, cents, vA - hiA, vB - hiB);
    return 'narrowed';
  }

  /** Reads the values on a tick; answers false when one is unknown (NaN). */
  read(cents: number, volume: number, prevCloseCents: number): boolean {
    const condition = this.condition;
    if (this.smaScale > 0) {
      this.v = (this.smaScale - 1) * cents;
      this.lo = this.lower.feed!.smaBase;
      return !Number.isNaN(this.lo);
    }
    this.v = this.source.value(cents, volume, prevCloseCents);
    if (condition.bars !== null) {
      this.lo = this.source.movingLevel(condition.op, condition.value as number, condition.bars);
    } else {
      this.lo = this.lower.feed === null ? this.lower.constant : this.lower.feed.value(cents, volume, prevCloseCents);
    }
    this.hi = this.upper.feed === null ? this.upper.constant : this.upper.feed.value(cents, volume, prevCloseCents);
    return !Number.isNaN(this.v) && !Number.isNaN(this.lo) && (condition.upper === null || !Number.isNaN(this.hi));
  }
}
