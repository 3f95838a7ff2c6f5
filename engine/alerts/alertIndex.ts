/**
 * The armed-alert index: the alerts waiting for their condition, organised per symbol and source so that a tick
 * costs O(1 + flips) per source watched, whatever the number of alerts.
 *
 * - **Ladders** (a constant level, or a channel of constant bounds): per symbol and source, the levels sorted
 *   ascending in two sides, one for the predicates `v ≥ level` and one for `v ≤ level`, each with a cursor at
 *   the last value. A tick moves the cursors from the previous value to the new one; only the levels between
 *   the two change truth (flip), and each operator decides from its flips (see `semantics.ts`): `crossing_up`
 *   fires when `v ≥ level` flips true, `entering_channel` when `v ≥ lower` flips true below the upper bound,
 *   and so on. What each alert does on a flip sits next to its level, so a tick reads only the alerts it fires.
 * - **Runs** (the moving operators, whose level is constant through a day): per ladder, operator and window,
 *   sorted once by amount, which keeps them sorted by level on every day; a close sets their levels in place.
 * - **Groups** (a level or a bound that is another series, e.g. the price crossing its 50-day SMA): alerts
 *   with the same condition share it; a tick evaluates each group once.
 *
 * Per alert the index keeps what its frequency needs: the firing count (`every_time`), the day of its last
 * firing (`once_per_bar`, which fires again the next day when the condition still holds), and whether the
 * condition held (`every_time` must see it false before firing again). A new alert waits for its first tick,
 * which only sets its previous value for the edge operators (crossing, entering, exiting) and fires the level
 * operators (greater, less, inside, outside, moving) when they hold.
 */
import { alertKey, type Alert } from '../../domain/alerts/alerts.ts';
import {
  conditionKey,
  movingLevelOf,
  type AlertCondition,
  type AlertFrequency,
  type AlertOp,
  type AlertOperand,
  type FiredLevels,
} from '../../domain/alerts/conditions.ts';
import { ConditionProbe, edgeOf, isEdgeOp, truthOf, type PriceRange } from './semantics.ts';
import { FeedBook, fromUnits, inCents, toUnits, type HistoryLookup, type SourceFeed } from './series.ts';

/** An alert as the index holds it; the fields below `expiresMs` are the index's own state. */
export interface ArmedAlert {
  /** `<userId>/<alertId>`: unique over every user. */
  readonly key: string;
  /** The user whose alert it is. */
  readonly userId: string;
  /** The alert's id. */
  readonly alertId: string;
  /** The symbol watched. */
  readonly symbol: string;
  /** What it watches. */
  readonly condition: AlertCondition;
  /** How often it may fire. */
  readonly frequency: AlertFrequency;
  /** Which arming of the alert this is (keys the trigger's command id). */
  readonly arming: number;
  /** When it expires (ms since the epoch), Infinity when never. */
  readonly expiresMs: number;
  /** Firings recorded in this arming (an `every_time` trigger's command id has the next one); the engine counts them. */
  firings: number;
  /** The trading day of its last firing in this arming, or null. */
  firedDay: string | null;
  /**
   * Whether the condition held before its first tick in the index (an `every_time` alert fires on it only if not):
   * from the log when armed, true when it fired (`AlertIndex.takeAsHeld`). From then on its structure keeps its
   * truth (a ladder's cursors, a group's last evaluation, a moving alert's run at each close), not this field.
   */
  lastTruth: boolean;
  /** When fired: the source's value then (dollars for price-like series). */
  firedValue: number;
  /** When fired: the trading day it fired on. */
  firedOn: string;
  /** Index state: the level (or lower bound) in the source's unit (a moving alert's as of when it was last read). */
  lo: number;
  /** Index state: the upper bound. */
  hi: number;
  /** Index state: where it is (0 nowhere, 1 waiting, 2 evaluated, 4 about to be merged into a ladder's levels). */
  place: number;
  /** Index state: on a ladder, its count of ticks when the alert was placed (the next is its first), else −1. */
  since: number;
  /** Index state: the revival round of its structure it waits in, for the next day's first tick (once per bar), else −1. */
  reviving: number;
  /** Index state: the structure that holds it (a ladder or a group), null when not in the index. */
  slot: object | null;
  /** Index state: on a ladder, the run of moving alerts that holds it, else null. */
  run: object | null;
  /** Index state: a moving alert's amount in its run's unit (the feed's, or percent). */
  amount: number;
  /** From the condition and frequency, read by a firing instead of them: an edge operator (crossing, entering, exiting). */
  readonly edge: boolean;
  /** A moving operator (its level set at each close). */
  readonly moving: boolean;
  /** `once_per_bar` or `once_per_bar_close`. */
  readonly perBar: boolean;
  /** `once`: leaves the index when fired. */
  readonly once: boolean;
  /** When a level operator holds (`HOLDS_*`: `v ≥ lo`, `v ≤ lo`, within or outside `[lo, hi]`), −1 for an edge one. */
  readonly holds: number;
}

/** The index entry of a user's alert, its frequency state rebuilt from the alert the log folded. */
export function armedAlertOf(userId: string, alert: Alert): ArmedAlert {
  return newArmedAlert({
    key: alertKey(userId, alert.id),
    userId,
    alertId: alert.id,
    symbol: alert.symbol,
    condition: alert.condition,
    frequency: alert.frequency,
    arming: alert.arming,
    expiresMs: alert.expires === null ? Infinity : Date.parse(alert.expires),
    firings: alert.firings,
    firedDay: alert.lastFiredDay,
  });
}

/** A fresh index entry (every field in one order, so every entry has one shape). */
export function newArmedAlert(
  fields: Pick<
    ArmedAlert,
    'key' | 'userId' | 'alertId' | 'symbol' | 'condition' | 'frequency' | 'arming' | 'expiresMs'
  > &
    Partial<Pick<ArmedAlert, 'firings' | 'firedDay'>>,
): ArmedAlert {
  const firings = fields.firings ?? 0;
  return {
    key: fields.key,
    userId: fields.userId,
    alertId: fields.alertId,
    symbol: fields.symbol,
    condition: fields.condition,
    frequency: fields.frequency,
    arming: fields.arming,
    expiresMs: fields.expiresMs,
    firings,
    firedDay: fields.firedDay ?? null,
    // A repeating alert that fired before a restart is taken to still hold: it fires again once it became false.
    lastTruth: firings > 0,
    firedValue: NaN,
    firedOn: '',
    lo: NaN,
    hi: NaN,
    place: 0,
    since: -1,
    reviving: -1,
    slot: null,
    run: null,
    amount: NaN,
    edge: isEdgeOp(fields.condition.op),
    moving: fields.condition.bars !== null,
    perBar: perBar(fields.frequency),
    once: fields.frequency === 'once',
    holds: holdsOf(fields.condition.op),
  };
}

/** A waiting level alert holds when `v ≥ lo` (greater_than, moving up), `v ≤ lo`, `lo ≤ v ≤ hi`, or outside. */
const HOLDS_GE = 0;
const HOLDS_LE = 1;
const HOLDS_IN = 2;
const HOLDS_OUT = 3;

/** When a level operator holds (`HOLDS_*`), −1 for an edge operator. */
function holdsOf(op: AlertOp): number {
  switch (op) {
    case 'greater_than':
    case 'moving_up':
    case 'moving_up_pct':
      return HOLDS_GE;
    case 'less_than':
    case 'moving_down':
    case 'moving_down_pct':
      return HOLDS_LE;
    case 'inside_channel':
      return HOLDS_IN;
    case 'outside_channel':
      return HOLDS_OUT;
    default:
      return -1;
  }
}

/** Whether a level condition of `HOLDS_*` code `holds` holds for the value `v` and levels `lo`, `hi`. */
function holdsAt(holds: number, v: number, lo: number, hi: number): boolean {
  return holds === HOLDS_GE ? v >= lo : holds === HOLDS_LE ? v <= lo : (lo <= v && v <= hi) === (holds === HOLDS_IN);
}

/** Below this many levels, a ladder takes a new alert in place at once rather than in a later merge. */
const SMALL_LADDER = 256;
/** The same for a run of moving alerts. */
const SMALL_RUN = 32;

/** Not in the index. */
const NOWHERE = 0;
/** Waiting: in a group, for its first tick; on a ladder, for a moving level that is not known yet. */
const WAITING = 1;
/** Evaluated on every tick. */
const EVALUATED = 2;
/** On a ladder, its level known, about to be merged into the sorted levels. */
const PENDING = 4;

/** Whether a condition's levels are all constants (or a moving level), so it goes on a ladder. */
export function isLadderCondition(condition: AlertCondition): boolean {
  return [condition.value, condition.lower, condition.upper].every((o) => o === null || typeof o === 'number');
}

function perBar(frequency: AlertFrequency): boolean {
  return frequency === 'once_per_bar' || frequency === 'once_per_bar_close';
}

/** Whether the operator watches `v ≥ lo`. */
function usesGe(op: AlertOp): boolean {
  return (
    op === 'greater_than' ||
    op === 'crossing_up' ||
    op === 'moving_up' ||
    op === 'moving_up_pct' ||
    op === 'crossing' ||
    op.endsWith('_channel')
  );
}

/** Whether the operator watches `v ≤ level` (its level: `hi` for channels, `lo` otherwise). */
function usesLe(op: AlertOp): boolean {
  return (
    op === 'less_than' ||
    op === 'crossing_down' ||
    op === 'moving_down' ||
    op === 'moving_down_pct' ||
    op === 'crossing' ||
    op.endsWith('_channel')
  );
}

/**
 * Disarmed alerts a structure's waiting list may keep, beyond half its length, before it is swept: a tick empties
 * it, but a symbol may not tick for long (outside a provider's plan), while alerts on it are armed and disarmed.
 */
const STALE_WAITS = 32;

/**
 * Drops, from parallel arrays of one length (`columns`), the entries `drop` tells by their index, keeping the
 * others in order; answers how many of the first `cut` entries remain (a cursor over what remains).
 */
function dropWhere(columns: readonly unknown[][], drop: (i: number) => boolean, cut = 0): number {
  const length = columns[0]!.length;
  let k = 0;
  let kept = cut;
  for (let i = 0; i < length; i++) {
    if (drop(i)) {
      if (i < cut) kept -= 1;
      continue;
    }
    for (const column of columns) column[k] = column[i];
    k++;
  }
  // Setting a length is a call into the runtime: skipped when nothing was dropped (the common case at a close).
  if (k !== length) for (const column of columns) column.length = k;
  return kept;
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

/** First index of an ascending array whose value is at or above `t`. */
function atOrAfterAscending(values: readonly number[], t: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** On a ladder's side, the alert fires when the side's predicate turns true. */
const FLIP_TRUE = 0;
/** It fires when the predicate turns true with the value within the channel's other bound (inside, entering). */
const FLIP_INTO = 1;
/** It fires when the predicate turns false with the previous value within the other bound (outside, exiting). */
const FLIP_OUT = 2;
/** Its alert left: the level stays (a tombstone, firing nothing) until the side is compacted. */
const GONE = 3;

/** What a constant-level alert does when a side's predicate flips (see {@link Side}). */
function flipCode(op: AlertOp): number {
  switch (op) {
    case 'inside_channel':
    case 'entering_channel':
      return FLIP_INTO;
    case 'outside_channel':
    case 'exiting_channel':
      return FLIP_OUT;
    default:
      return FLIP_TRUE;
  }
}

/**
 * One side of a ladder's constant levels, `v ≥ level` or `v ≤ level`: the levels ascending, and next to each
 * what its alert does when the predicate flips (`FLIP_*`) and a channel's other bound (its upper bound on the
 * `≥` side, its lower one on the `≤` side), so a tick decides from these arrays and reads only the alerts it fires.
 */
class Side {
  readonly lv: number[] = [];
  readonly al: ArmedAlert[] = [];
  readonly code: number[] = [];
  readonly oth: number[] = [];
  /** How many entries are tombstones (`GONE`). */
  dead = 0;

  /** Inserts an alert after the equal levels. */
  insert(level: number, alert: ArmedAlert, other: number): void {
    const at = afterAscending(this.lv, level);
    this.lv.splice(at, 0, level);
    this.al.splice(at, 0, alert);
    this.code.splice(at, 0, flipCode(alert.condition.op));
    this.oth.splice(at, 0, other);
  }

  /**
   * Takes out the entry at `i`, a tombstone in its place (no shift, so the cursors stay); answers whether the side
   * should be compacted, once a quarter of it is tombstones.
   */
  bury(i: number): boolean {
    this.code[i] = GONE;
    this.dead += 1;
    return this.dead > 16 + (this.lv.length >> 2);
  }

  /** Drops the tombstones; answers the cursor `cut` (a count of entries from the start) over what remains. */
  compact(cut: number): number {
    const { lv, al, code, oth } = this;
    this.dead = 0;
    return dropWhere([lv, al, code, oth], (i) => code[i] === GONE, cut);
  }

  /** The first level at or after `cut` that is not a tombstone (a tombstone moves nothing), or Infinity. */
  levelUp(cut: number): number {
    const { lv, code } = this;
    let i = cut;
    while (i < lv.length && code[i] === GONE) i++;
    return i < lv.length ? lv[i]! : Infinity;
  }

  /** The last level before `cut` that is not a tombstone, or −Infinity. */
  levelDown(cut: number): number {
    const { lv, code } = this;
    let i = cut - 1;
    while (i >= 0 && code[i] === GONE) i--;
    return i >= 0 ? lv[i]! : -Infinity;
  }

  /** Where an alert of level `level` is (not a tombstone), or −1. */
  find(level: number, alert: ArmedAlert): number {
    for (let i = atOrAfterAscending(this.lv, level); i < this.lv.length && this.lv[i] === level; i++) {
      if (this.al[i] === alert && this.code[i] !== GONE) return i;
    }
    for (let i = 0; i < this.al.length; i++) if (this.al[i] === alert && this.code[i] !== GONE) return i;
    return -1;
  }

  /**
   * Merges `levels` (any order), their alerts and other bounds, each after the equal levels already there and in
   * its given order among equal new ones: what inserting them one by one gives.
   */
  merge(levels: readonly number[], alerts: readonly ArmedAlert[], others: readonly number[]): void {
    if (levels.length === 0) return;
    const order = levels.map((_, k) => k).sort((x, y) => levels[x]! - levels[y]! || x - y);
    const { lv, al, code, oth } = this;
    let i = lv.length - 1;
    let j = order.length - 1;
    for (let k = 0; k < order.length; k++) {
      lv.push(0);
      al.push(alerts[0]!);
      code.push(0);
      oth.push(0);
    }
    for (let k = lv.length - 1; j >= 0; k--) {
      if (i >= 0 && lv[i]! > levels[order[j]!]!) {
        lv[k] = lv[i]!;
        al[k] = al[i]!;
        code[k] = code[i]!;
        oth[k] = oth[i]!;
        i--;
      } else {
        const n = order[j]!;
        lv[k] = levels[n]!;
        al[k] = alerts[n]!;
        code[k] = flipCode(alerts[n]!.condition.op);
        oth[k] = others[n]!;
        j--;
      }
    }
  }
}

/** What the index's structures share: the firing of one alert, by its frequency. */
abstract class Slot {
  /** Alerts waiting for their first tick (on a ladder, already among its levels or about to be merged in). */
  waiting: ArmedAlert[] = [];
  /** Alerts taken out since `waiting` was last swept, some of which may still be in it. */
  private staleWaits = 0;
  day = '';
  /** Its place in its book's ladders or groups (and their ranges). */
  at = -1;

  constructor(
    protected readonly index: AlertIndex,
    /** Whether the source's values are in cents (fired values are then in dollars). */
    private readonly inCents: boolean,
  ) {}

  abstract delete(alert: ArmedAlert): void;

  /**
   * Counts an alert taken out that may still be in `waiting` (a tick skips it); answers whether the list is due a
   * sweep, once those taken out outnumber half of it and {@link STALE_WAITS} more.
   */
  protected waitingSweepDue(): boolean {
    this.staleWaits += 1;
    if (this.staleWaits <= STALE_WAITS + (this.waiting.length >> 1)) return false;
    this.staleWaits = 0;
    return true;
  }

  /** Fires an alert that met its condition on `day`, if its frequency allows; answers whether it fired. */
  protected fireIfAllowed(alert: ArmedAlert, value: number, day: string, out: ArmedAlert[]): boolean {
    if (alert.perBar) {
      if (alert.firedDay === day) {
        this.markRevive(alert);
        return false;
      }
      alert.firedDay = day;
      if (!alert.edge) this.markRevive(alert);
    }
    alert.firedValue = this.inCents ? value / 100 : value;
    alert.firedOn = day;
    out.push(alert);
    if (alert.once) this.index.doom(alert);
    return true;
  }

  /** A once-per-bar level alert that held when it fired or was muted: evaluated again on the next day. */
  protected abstract markRevive(alert: ArmedAlert): void;

  /** A first evaluation (new alert, or a new day for a muted one): level operators fire when they hold. */
  protected evaluateOnce(alert: ArmedAlert, truth: boolean, value: number, day: string, out: ArmedAlert[]): void {
    if (!alert.edge && truth) {
      const allowed = alert.frequency === 'every_time' ? !alert.lastTruth : true;
      if (allowed) this.fireIfAllowed(alert, value, day, out);
    }
    alert.lastTruth = truth;
  }
}

/** The moving operators' codes in a run's key (with the window): `MOVING_CODES[op] + 4 × bars`. */
const MOVING_CODES: Readonly<Record<string, number>> = {
  moving_up: 0,
  moving_down: 1,
  moving_up_pct: 2,
  moving_down_pct: 3,
};

/**
 * The levels next to the cursor of each of a ladder's runs (by the run's place in the ladder), in flat arrays:
 * a tick finds the runs whose cursor it moves without reading the runs themselves.
 */
class RunEdges {
  /** The first level above the cursor (Infinity when none, or the levels are unknown). */
  readonly up: number[] = [];
  /** The last level below the cursor (−Infinity when none, or the levels are unknown). */
  readonly down: number[] = [];
  /** Whether the run watches `v ≥ level`. */
  readonly ge: boolean[] = [];
}

/**
 * The moving alerts of one ladder with one operator and window. Their levels all come from one value, the
 * source `bars` bars back (`base`), each plus or minus its own amount, and a moving level is monotonic in its
 * amount (see `movingLevelOf`): sorted by amount once, when armed, they stay sorted by level on every day. A
 * level is computed from its amount where it is read (`levelAt`), so a close only sets the new `base` and
 * recuts the cursor with a binary search, O(log n), and reads no alert. They are all level operators that
 * hold on one side of their level (`v ≥ level` going up, `v ≤ level` going down), so a tick visits only the
 * alerts whose level it passes in the direction that fires them, and their first tick after a close only the
 * ones that hold: a contiguous range at one end of the levels.
 */
class MoverRun {
  /** `v ≥ level` (moving_up, moving_up_pct) rather than `v ≤ level`. */
  readonly ge: boolean;
  readonly pct: boolean;
  /** The alerts, their levels ascending; null where one left (compacted when many did, and at each close). */
  al: (ArmedAlert | null)[] = [];
  /** Each alert's amount (the feed's unit, or percent): ascending when `ge`, descending otherwise. */
  amt: number[] = [];
  /** Whether each alert is `every_time`: the one frequency whose firing depends on whether it held before. */
  rep: boolean[] = [];
  /**
   * Per `every_time` alert, whether it held at the ladder's last value before the last close (or, placed since,
   * its `lastTruth` then): kept here, next to the levels, so a close and the first tick after it read no alert
   * that does not fire. Written lazily: a close keeps its cursor (`heldCut`, the range that held) rather than
   * writing each alert's, until the first tick after it reads them or the alerts move in the arrays.
   */
  held: boolean[] = [];
  /** Whether `held` of the alerts not placed at count `heldSeq` is told by `heldCut` rather than written. */
  private heldLazy = false;
  private heldCut = 0;
  private heldSeq = -1;
  /** Per alert, the ladder's count of ticks when it was placed (its first tick is the one at that count). */
  from: number[] = [];
  /** Once-per-bar alerts of the run that held when they fired or were muted: re-evaluated on a new day. */
  revive: ArmedAlert[] = [];
  /** `ge`: how many levels are at or below the ladder's last value (hold); else how many are below it. */
  cut = 0;
  /** The value `bars` bars back; while unknown (NaN) the alerts wait (place WAITING) for a close that tells it. */
  base: number;
  /** The ladder's count of ticks when a close set the levels: on that tick every alert here is on its first. */
  fresh = -1;
  /** Alerts armed since the last merge (place PENDING), not yet among the levels, and their amounts. */
  pending: ArmedAlert[] = [];
  /** How many of `al` are null. */
  private dead = 0;

  constructor(
    op: AlertOp,
    readonly bars: number,
    private readonly feed: SourceFeed,
    private readonly edges: RunEdges,
    /** Its place in `edges`. */
    private readonly r: number,
  ) {
    this.ge = op === 'moving_up' || op === 'moving_up_pct';
    this.pct = op === 'moving_up_pct' || op === 'moving_down_pct';
    this.base = feed.valueBarsAgo(bars);
    edges.ge[r] = this.ge;
    this.setCut(0);
  }

  /** Moves the cursor, and the levels next to it in `edges`. */
  setCut(cut: number): void {
    this.cut = cut;
    const n = this.amt.length;
    const leveled = this.leveled;
    this.edges.up[this.r] = leveled && cut < n ? this.levelAt(cut) : Infinity;
    this.edges.down[this.r] = leveled && cut > 0 ? this.levelAt(cut - 1) : -Infinity;
  }

  /** Today's level of the alert at `i` (NaN while `base` is unknown): ascending in `i`. */
  levelAt(i: number): number {
    return movingLevelOf(this.ge, this.pct, this.base, this.amt[i]!);
  }

  /** Whether the alert at `i` held before the last close (see `held`). */
  heldAt(i: number): boolean {
    if (this.heldLazy && this.from[i] !== this.heldSeq) return this.ge ? i < this.heldCut : i >= this.heldCut;
    return this.held[i]!;
  }

  /** Writes `held` of each alert before they move in the arrays (or another close keeps its own cursor). */
  private writeHeld(): void {
    if (!this.heldLazy) return;
    this.heldLazy = false;
    const { rep, held, from } = this;
    const cut = this.heldCut;
    const seq = this.heldSeq;
    for (let i = 0; i < rep.length; i++) if (rep[i] && from[i] !== seq) held[i] = this.ge ? i < cut : i >= cut;
  }

  /** The first tick after a close read what held before it: nothing reads `held` again until the next close. */
  heldRead(): void {
    this.heldLazy = false;
  }

  /** Whether today's levels are known. */
  get leveled(): boolean {
    return !Number.isNaN(this.base);
  }

  /**
   * Takes a new alert (place PENDING, `since` set), merged among the levels on the next tick, or at once when
   * many wait; answers its level today.
   */
  stage(alert: ArmedAlert, last: number): number {
    const amount = alert.condition.value as number;
    alert.amount = this.pct ? amount : this.feed.movingAmount(amount);
    const level = movingLevelOf(this.ge, this.pct, this.base, alert.amount);
    if (this.al.length < SMALL_RUN && this.pending.length === 0) {
      // A short run takes it in place at once, which costs less than a later sort and merge.
      this.writeHeld();
      let at = 0;
      while (at < this.amt.length && (this.ge ? this.amt[at]! <= alert.amount : this.amt[at]! >= alert.amount)) at++;
      alert.lo = level;
      alert.place = this.leveled ? EVALUATED : WAITING;
      this.al.splice(at, 0, alert);
      this.amt.splice(at, 0, alert.amount);
      this.rep.splice(at, 0, alert.frequency === 'every_time');
      this.held.splice(at, 0, alert.lastTruth);
      this.from.splice(at, 0, alert.since);
      this.recut(last);
      return level;
    }
    this.pending.push(alert);
    if (this.pending.length >= 32 + (this.al.length >> 3)) this.merge(last);
    return level;
  }

  /** Sets the cursor for the ladder's last value (0 when unknown). */
  recut(last: number): void {
    // The first place whose level is above `last` (`ge`: the levels at or below it hold), or at or above it.
    let lo = 0;
    let hi = this.amt.length;
    if (this.leveled) {
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const level = this.levelAt(mid);
        if (this.ge ? level <= last : level < last) lo = mid + 1;
        else hi = mid;
      }
    }
    this.setCut(lo);
  }

  /**
   * Merges the pending alerts among the levels, each after the equal amounts there (as inserting them one by one
   * would), dropping the tombstones on the way; `last` is the ladder's last value.
   */
  merge(last: number): void {
    const incoming = this.pending;
    if (incoming.length === 0) return;
    this.pending = [];
    this.writeHeld();
    const sign = this.ge ? 1 : -1;
    const amounts = incoming.map((alert) => alert.amount);
    const order = amounts.map((_, k) => k).sort((x, y) => sign * (amounts[x]! - amounts[y]!) || x - y);
    const al: ArmedAlert[] = [];
    const amt: number[] = [];
    const rep: boolean[] = [];
    const held: boolean[] = [];
    const from: number[] = [];
    const keep = (i: number): void => {
      al.push(this.al[i]!);
      amt.push(this.amt[i]!);
      rep.push(this.rep[i]!);
      held.push(this.held[i]!);
      from.push(this.from[i]!);
    };
    const place = this.leveled ? EVALUATED : WAITING;
    let i = 0;
    for (const k of order) {
      const alert = incoming[k]!;
      // Disarmed before it was merged.
      if (alert.place !== PENDING) continue;
      const amount = amounts[k]!;
      for (; i < this.al.length && sign * (this.amt[i]! - amount) <= 0; i++) if (this.al[i] !== null) keep(i);
      alert.lo = movingLevelOf(this.ge, this.pct, this.base, amount);
      alert.place = place;
      al.push(alert);
      amt.push(amount);
      rep.push(alert.frequency === 'every_time');
      held.push(alert.lastTruth);
      from.push(alert.since);
    }
    for (; i < this.al.length; i++) if (this.al[i] !== null) keep(i);
    this.al = al;
    this.amt = amt;
    this.rep = rep;
    this.held = held;
    this.from = from;
    this.dead = 0;
    this.recut(last);
  }

  /** Takes an alert out (place EVALUATED or WAITING): a tombstone, the arrays compacted once many are. */
  remove(alert: ArmedAlert): void {
    const at = this.find(alert);
    if (at < 0) return;
    this.al[at] = null;
    this.dead += 1;
    if (this.dead > 16 + (this.al.length >> 2)) this.compact();
  }

  /** An alert of the run (among its levels) is taken to hold at the last value (see `AlertIndex.takeAsHeld`). */
  hold(alert: ArmedAlert): void {
    const at = this.find(alert);
    if (at < 0) return;
    this.writeHeld();
    this.held[at] = true;
  }

  /** Where an alert is among the levels, or −1 (pending, or not here). */
  private find(alert: ArmedAlert): number {
    const amount = alert.amount;
    const sign = this.ge ? 1 : -1;
    // First index whose amount is not before `amount` in the run's order.
    let lo = 0;
    let hi = this.amt.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sign * (this.amt[mid]! - amount) < 0) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.al.length && this.amt[i] === amount; i++) if (this.al[i] === alert) return i;
    return this.al.indexOf(alert);
  }

  /** Drops the tombstones, keeping the cursor on the same levels. */
  private compact(): void {
    this.writeHeld();
    const { al, amt, rep, held, from } = this;
    this.dead = 0;
    this.setCut(dropWhere([al, amt, rep, held, from], (i) => al[i] === null, this.cut));
  }

  /**
   * After a day close (the feed read its finished days again), at the ladder's count of ticks `seq`: the
   * `every_time` alerts seen since they were placed keep whether they held at the last value (they fire again
   * only after it stopped holding: `held`, told by the cursor), the levels move with the new `base`, and the
   * next tick is the first of every alert here. No alert is read or written (a firing sets its `lo`, see
   * `Ladder.levelOf`); the tombstones stay until `remove` compacts them.
   */
  roll(last: number, seq: number): void {
    this.merge(last);
    if (this.leveled && !Number.isNaN(last) && this.fresh !== seq) {
      // The cursor is at `last`: the alerts that held are a contiguous range, kept as the cursor.
      this.writeHeld();
      this.heldLazy = true;
      this.heldCut = this.cut;
      this.heldSeq = seq;
    }
    const wasLeveled = this.leveled;
    this.base = this.feed.valueBarsAgo(this.bars);
    const leveled = this.leveled;
    if (leveled !== wasLeveled) {
      for (const alert of this.al) if (alert !== null) alert.place = leveled ? EVALUATED : WAITING;
    }
    this.recut(last);
    this.fresh = leveled && this.al.length > this.dead ? seq : -1;
  }

  /** Today's level of an alert of this run. */
  levelOf(alert: ArmedAlert): number {
    return movingLevelOf(this.ge, this.pct, this.base, alert.amount);
  }
}

/**
 * One symbol's source with the alerts of constant levels on it (the constant levels in two sorted arrays), and
 * its moving alerts in runs of their own per operator and window.
 */
class Ladder extends Slot {
  last = NaN;
  /** The constant levels watched with `v ≥ level`. */
  readonly ge = new Side();
  /** How many `ge` levels are at or below `last` (hold). */
  geCut = 0;
  /** The constant levels watched with `v ≤ level` (a channel's upper bound). */
  readonly le = new Side();
  /** How many `le` levels are below `last` (do not hold). */
  leCut = 0;
  /** The moving alerts' runs, by operator and window. */
  readonly runs: MoverRun[] = [];
  private readonly edges = new RunEdges();
  private readonly runByKey = new Map<number, MoverRun>();
  /** Whether a run has pending alerts. */
  private runsPending = false;
  /** Once-per-bar constant-level alerts that held when they last fired or were muted: evaluated again on a new day. */
  private revive: ArmedAlert[] = [];
  /** Whether a run has once-per-bar alerts waiting for the next day. */
  private runsRevive = false;
  /** The round of the revival lists (the ladder's and its runs'): an alert waits in one while its `reviving` is this. */
  private round = 0;
  /** The count of ticks when a close made runs fresh (their next tick is every alert's first), else −1. */
  freshAt = -1;
  /** New alerts with their level, merged into the sorted levels in one sort when there are enough, or on a tick. */
  private pending: ArmedAlert[] = [];
  /** Per alert of `waiting`: when it holds (`HOLDS_*`), and its levels. */
  private waitCode: number[] = [];
  private waitLo: number[] = [];
  private waitHi: number[] = [];
  /**
   * The ticks evaluated: an alert placed when the count was `since` is on its first tick while the count is still
   * `since`, and its cursors' moves do not fire it (its first tick only sets its previous value).
   */
  private seq = 0;
  /**
   * Whether `downCents`/`upCents` hold for the cursors as they are: the prices in cents (excluded) between
   * which the source's value moves no cursor (the volume's own bounds for the volume).
   */
  bounded = false;
  downCents = -Infinity;
  upCents = Infinity;
  volGeUp = Infinity;
  volLeUp = Infinity;
  volGeDown = -Infinity;
  volLeDown = -Infinity;
  boundPrevClose = NaN;

  constructor(
    index: AlertIndex,
    readonly feed: SourceFeed,
  ) {
    super(index, inCents(feed.source));
  }

  /** Whether every alert has had its first tick (nothing waits for the next tick). */
  get settled(): boolean {
    return this.waiting.length === 0 && this.freshAt < 0;
  }

  private runOf(alert: ArmedAlert): MoverRun {
    const c = alert.condition;
    const key = MOVING_CODES[c.op]! + 4 * c.bars!;
    let run = this.runByKey.get(key);
    if (run === undefined) {
      run = new MoverRun(c.op, c.bars!, this.feed, this.edges, this.runs.length);
      this.runByKey.set(key, run);
      this.runs.push(run);
    }
    return run;
  }

  /**
   * Takes a new alert: among the levels, where the cursors' moves on its first tick do not fire it (that tick
   * only sets its previous value, or fires a level condition that holds). The levels are merged in batches of at
   * least an eighth of the ladder (or of the run), so arming n alerts costs O(n log n) in all. A moving alert
   * whose level is not known yet (too short a history) waits in its run for a close that tells it.
   */
  place(alert: ArmedAlert): void {
    alert.place = PENDING;
    alert.since = this.seq;
    this.bounded = false;
    if (alert.moving) {
      const run = this.runOf(alert);
      alert.run = run;
      this.runsPending = true;
      const level = run.stage(alert, this.last);
      // A fresh run's next tick is every alert's first already.
      if (run.leveled && run.fresh !== this.seq) this.wait(alert, run.ge ? HOLDS_GE : HOLDS_LE, level, NaN);
      return;
    }
    const c = alert.condition;
    alert.lo = toUnits(c.source, (c.value ?? c.lower) as number);
    alert.hi = c.upper === null ? NaN : toUnits(c.source, c.upper as number);
    // Only a level condition does anything on its first tick (fire when it holds).
    if (!alert.edge) this.wait(alert, alert.holds, alert.lo, alert.hi);
    if (this.ge.lv.length + this.le.lv.length < SMALL_LADDER && this.pending.length === 0) {
      // A short ladder takes it in place at once, which costs less than a later sort and merge.
      const op = alert.condition.op;
      if (usesGe(op)) this.ge.insert(alert.lo, alert, alert.hi);
      if (usesLe(op)) {
        if (op.endsWith('_channel')) this.le.insert(alert.hi, alert, alert.lo);
        else this.le.insert(alert.lo, alert, NaN);
      }
      alert.place = EVALUATED;
      this.recut();
      return;
    }
    this.pending.push(alert);
    if (this.pending.length >= 32 + ((this.ge.lv.length + this.le.lv.length) >> 3)) this.mergePending();
  }

  /**
   * Makes a level alert wait for its first tick, with what tells whether it holds then (`holds`, and its levels)
   * next to it, so that tick reads only the alerts it fires or whose `lastTruth` matters (`every_time`).
   */
  private wait(alert: ArmedAlert, holds: number, lo: number, hi: number): void {
    this.waiting.push(alert);
    this.waitCode.push(holds);
    this.waitLo.push(lo);
    this.waitHi.push(hi);
  }

  /** Takes an alert out (the index calls it for the ones among the levels, place EVALUATED or WAITING). */
  delete(alert: ArmedAlert): void {
    const op = alert.condition.op;
    this.bounded = false;
    if (this.waitingSweepDue()) {
      const waiting = this.waiting;
      dropWhere([waiting, this.waitCode, this.waitLo, this.waitHi], (i) => waiting[i]!.slot !== this);
    }
    if (alert.moving) {
      (alert.run as MoverRun).remove(alert);
      return;
    }
    if (usesGe(op)) {
      const i = this.ge.find(alert.lo, alert);
      if (i >= 0 && this.ge.bury(i)) this.geCut = this.ge.compact(this.geCut);
    }
    if (usesLe(op)) {
      const i = this.le.find(op.endsWith('_channel') ? alert.hi : alert.lo, alert);
      if (i >= 0 && this.le.bury(i)) this.leCut = this.le.compact(this.leCut);
    }
  }

  /** Evaluates the source's new value `n` on `day`. */
  evaluate(n: number, day: string, out: ArmedAlert[]): void {
    this.mergeArmed();
    if (Number.isNaN(n)) return;
    const p = this.last;
    const geLv = this.ge.lv;
    const leLv = this.le.lv;
    if (Number.isNaN(p)) {
      this.geCut = afterAscending(geLv, n);
      this.leCut = atOrAfterAscending(leLv, n);
      this.bounded = false;
    } else if (n > p) {
      // `v ≥ level` turns true over (p, n], `v ≤ level` false over [p, n).
      let i = this.geCut;
      if (i < geLv.length && geLv[i]! <= n) {
        const { code, oth, al } = this.ge;
        do {
          if (code[i] === FLIP_TRUE || (code[i] === FLIP_INTO && n <= oth[i]!)) this.fire(al[i]!, n, day, out);
        } while (++i < geLv.length && geLv[i]! <= n);
        this.geCut = i;
        this.bounded = false;
      }
      i = this.leCut;
      if (i < leLv.length && leLv[i]! < n) {
        const { code, oth, al } = this.le;
        do {
          if (code[i] === FLIP_OUT && p >= oth[i]!) this.fire(al[i]!, n, day, out);
        } while (++i < leLv.length && leLv[i]! < n);
        this.leCut = i;
        this.bounded = false;
      }
    } else if (n < p) {
      // `v ≥ level` turns false over (n, p], `v ≤ level` true over [n, p).
      let i = this.geCut - 1;
      if (i >= 0 && geLv[i]! > n) {
        const { code, oth, al } = this.ge;
        do {
          if (code[i] === FLIP_OUT && p <= oth[i]!) this.fire(al[i]!, n, day, out);
        } while (--i >= 0 && geLv[i]! > n);
        this.geCut = i + 1;
        this.bounded = false;
      }
      i = this.leCut - 1;
      if (i >= 0 && leLv[i]! >= n) {
        const { code, oth, al } = this.le;
        do {
          if (code[i] === FLIP_TRUE || (code[i] === FLIP_INTO && n >= oth[i]!)) this.fire(al[i]!, n, day, out);
        } while (--i >= 0 && leLv[i]! >= n);
        this.leCut = i + 1;
        this.bounded = false;
      }
    }
    if (this.runs.length > 0) this.moveRuns(p, n, day, out);
    this.last = n;
    if (day !== this.day) this.newDay(n, day, out);
    if (this.freshAt >= 0) {
      this.freshAt = -1;
      const runs = this.runs;
      for (let r = 0; r < runs.length; r++) if (runs[r]!.fresh === this.seq) this.admitRun(runs[r]!, n, day, out);
    }
    if (this.waiting.length > 0) this.admit(n, day, out);
    this.seq += 1;
  }

  /**
   * Moves each run's cursor from `p` to `n`, firing the alerts whose level it passes in the direction that makes
   * them hold (none on their first tick: a fresh run's cursor only moves). Only the runs whose next level the
   * value passed are read.
   */
  private moveRuns(p: number, n: number, day: string, out: ArmedAlert[]): void {
    const runs = this.runs;
    const seq = this.seq;
    if (Number.isNaN(p)) {
      for (const run of runs) run.recut(n);
      this.bounded = false;
      return;
    }
    if (n > p) {
      const up = this.edges.up;
      for (let r = 0; r < up.length; r++) {
        if (!(n >= up[r]!)) continue;
        const run = runs[r]!;
        this.bounded = false;
        if (run.fresh === seq) {
          run.recut(n);
          continue;
        }
        const length = run.amt.length;
        let i = run.cut;
        if (run.ge) {
          for (; i < length && run.levelAt(i) <= n; i++) {
            const alert = run.al[i];
            if (alert != null && alert.since !== seq) this.fireIfAllowed(alert, n, day, out);
          }
        } else {
          while (i < length && run.levelAt(i) < n) i++;
        }
        run.setCut(i);
      }
    } else if (n < p) {
      const down = this.edges.down;
      for (let r = 0; r < down.length; r++) {
        if (!(n <= down[r]!)) continue;
        const run = runs[r]!;
        this.bounded = false;
        if (run.fresh === seq) {
          run.recut(n);
          continue;
        }
        let i = run.cut;
        if (run.ge) {
          while (i > 0 && run.levelAt(i - 1) > n) i--;
        } else {
          for (; i > 0 && run.levelAt(i - 1) >= n; i--) {
            const alert = run.al[i - 1];
            if (alert != null && alert.since !== seq) this.fireIfAllowed(alert, n, day, out);
          }
        }
        run.setCut(i);
      }
    }
  }

  /**
   * A fresh run's first tick (after a close set its levels): the alerts that hold, a contiguous range at one end
   * of the levels, fire as new level alerts do (an `every_time` one only if it did not hold before: its `held`,
   * or for one placed since the last tick its `lastTruth`); the others are not read. Nothing reads `held`
   * again until the next close sets it.
   */
  private admitRun(run: MoverRun, n: number, day: string, out: ArmedAlert[]): void {
    const { al, rep, from } = run;
    const seq = this.seq;
    const start = run.ge ? 0 : run.cut;
    const end = run.ge ? run.cut : al.length;
    for (let i = start; i < end; i++) {
      const alert = al[i];
      if (alert == null) continue;
      if (rep[i]) {
        const before = from[i] === seq ? alert.lastTruth : run.heldAt(i);
        if (before) continue;
      }
      alert.lo = run.levelAt(i);
      this.fireIfAllowed(alert, n, day, out);
      alert.lastTruth = true;
    }
    run.heldRead();
  }

  /**
   * On a new day, the muted once-per-bar alerts are evaluated again: the constant levels' and the runs' (but a
   * fresh run's, whose alerts all have their first tick next, in `admitRun`, and are not read here).
   */
  private newDay(n: number, day: string, out: ArmedAlert[]): void {
    this.day = day;
    if (this.revive.length === 0 && !this.runsRevive) return;
    // A new round: the alerts of the last one no longer wait in a revival list (without writing each).
    this.round += 1;
    const revive = this.revive;
    this.revive = [];
    this.reevaluateAll(revive, n, day, out);
    if (!this.runsRevive) return;
    this.runsRevive = false;
    const runs = this.runs;
    for (let r = 0; r < runs.length; r++) {
      const run = runs[r]!;
      if (run.revive.length === 0) continue;
      const list = run.revive;
      run.revive = [];
      if (run.fresh !== this.seq) this.reevaluateAll(list, n, day, out);
    }
  }

  /** Evaluates again the alerts of a revival list still armed here and not on their first tick. */
  private reevaluateAll(list: readonly ArmedAlert[], n: number, day: string, out: ArmedAlert[]): void {
    for (let i = 0; i < list.length; i++) {
      const alert = list[i]!;
      if (alert.place === EVALUATED && alert.since !== this.seq) this.reevaluate(alert, n, day, out);
    }
  }

  /** A once-per-bar level alert that held waits for the next day, in its run's list when it is a moving one. */
  protected override markRevive(alert: ArmedAlert): void {
    if (alert.reviving === this.round || alert.edge) return;
    alert.reviving = this.round;
    if (alert.moving) {
      (alert.run as MoverRun).revive.push(alert);
      this.runsRevive = true;
    } else {
      this.revive.push(alert);
    }
  }

  private reevaluate(alert: ArmedAlert, n: number, day: string, out: ArmedAlert[]): void {
    if (holdsAt(alert.holds, n, this.levelOf(alert), alert.hi)) this.fireIfAllowed(alert, n, day, out);
  }

  /** An alert's level today (a moving alert's is kept by its run, and set on the alert when read here). */
  private levelOf(alert: ArmedAlert): number {
    if (alert.moving) alert.lo = (alert.run as MoverRun).levelOf(alert);
    return alert.lo;
  }

  /**
   * The level conditions on their first tick fire when they hold (they are among the levels already). One that
   * does not hold has nothing to do, so it is not read at all: from then on the cursors fire it when it turns
   * true (a moving one's truth at a close is kept by its run), and nothing reads its `lastTruth` again.
   */
  private admit(n: number, day: string, out: ArmedAlert[]): void {
    const waiting = this.waiting;
    const code = this.waitCode;
    const lo = this.waitLo;
    const hi = this.waitHi;
    const seq = this.seq;
    this.waiting = [];
    this.waitCode = [];
    this.waitLo = [];
    this.waitHi = [];
    for (let i = 0; i < waiting.length; i++) {
      if (!holdsAt(code[i]!, n, lo[i]!, hi[i]!)) continue;
      const alert = waiting[i]!;
      if (alert.place !== EVALUATED || alert.since !== seq) continue;
      // `evaluateOnce` for a level condition that holds (all that wait on a ladder are level conditions).
      if (!alert.lastTruth || alert.frequency !== 'every_time') this.fireIfAllowed(alert, n, day, out);
      alert.lastTruth = true;
    }
  }

  /** Merges the pending alerts into the sorted levels at once: sorted, then merged. */
  private mergePending(): void {
    const pending = this.pending;
    this.pending = [];
    const geLevels: number[] = [];
    const geAlerts: ArmedAlert[] = [];
    const geOthers: number[] = [];
    const leLevels: number[] = [];
    const leAlerts: ArmedAlert[] = [];
    const leOthers: number[] = [];
    for (const alert of pending) {
      if (alert.place !== PENDING) continue;
      const op = alert.condition.op;
      const channel = op.endsWith('_channel');
      if (usesGe(op)) {
        geLevels.push(alert.lo);
        geAlerts.push(alert);
        geOthers.push(alert.hi);
      }
      if (usesLe(op)) {
        leLevels.push(channel ? alert.hi : alert.lo);
        leAlerts.push(alert);
        leOthers.push(channel ? alert.lo : NaN);
      }
      alert.place = EVALUATED;
    }
    this.ge.merge(geLevels, geAlerts, geOthers);
    this.le.merge(leLevels, leAlerts, leOthers);
    this.recut();
    this.bounded = false;
  }

  /** Merges the alerts armed since the last merge among the sorted levels (and the runs'). */
  mergeArmed(): void {
    if (this.pending.length > 0) this.mergePending();
    if (this.runsPending) {
      this.runsPending = false;
      const runs = this.runs;
      for (let r = 0; r < runs.length; r++) if (runs[r]!.pending.length > 0) runs[r]!.merge(this.last);
    }
  }

  /** Sets the cursors for the last value. */
  private recut(): void {
    this.geCut = afterAscending(this.ge.lv, this.last);
    this.leCut = atOrAfterAscending(this.le.lv, this.last);
  }

  /** Fires an alert a cursor passed, unless it is on its first tick (which only sets its previous value). */
  private fire(alert: ArmedAlert, n: number, day: string, out: ArmedAlert[]): void {
    if (alert.place === EVALUATED && alert.since !== this.seq) this.fireIfAllowed(alert, n, day, out);
  }

  /**
   * Sets `downCents`/`upCents` for the cursors as they are after a tick at `cents`: the first price up and
   * down where the source's value passes the next level (the sources are monotonic in the price).
   */
  bound(cents: number, prevCloseCents: number): void {
    if (this.bounded && (prevCloseCents === this.boundPrevClose || this.feed.source !== 'changepct')) return;
    // The next levels of each kind up and down, over the constant levels and the runs.
    let geUp = this.ge.levelUp(this.geCut);
    let leUp = this.le.levelUp(this.leCut);
    let geDown = this.ge.levelDown(this.geCut);
    let leDown = this.le.levelDown(this.leCut);
    const edges = this.edges;
    for (let r = 0; r < edges.up.length; r++) {
      const up = edges.up[r]!;
      const down = edges.down[r]!;
      if (edges.ge[r]) {
        if (up < geUp) geUp = up;
        if (down > geDown) geDown = down;
      } else {
        if (up < leUp) leUp = up;
        if (down > leDown) leDown = down;
      }
    }
    const feed = this.feed;
    let up = Infinity;
    let down = -Infinity;
    if (feed.byVolume) {
      // The value is the volume itself: a volume moves no cursor while below the next `≥` level, at or below
      // the next `≤` one, at or above the last `≥` one and above the last `≤` one.
      this.volGeUp = geUp;
      this.volLeUp = leUp;
      this.volGeDown = geDown;
      this.volLeDown = leDown;
    } else {
      // The value is monotonic in the price, so the nearer of the two levels each way is passed first (`v ≥ L`
      // before `v > L` going up, `v ≤ L` after `v < L` going down): one search each way.
      if (geUp <= leUp) {
        if (geUp !== Infinity) up = feed.firstCentsUp(cents, prevCloseCents, geUp, false);
      } else {
        up = feed.firstCentsUp(cents, prevCloseCents, leUp, true);
      }
      if (geDown > leDown) {
        down = feed.lastCentsDown(cents, prevCloseCents, geDown, false);
      } else if (leDown !== -Infinity) {
        down = feed.lastCentsDown(cents, prevCloseCents, leDown, true);
      }
    }
    this.downCents = down;
    this.upCents = up;
    this.boundPrevClose = prevCloseCents;
    this.bounded = true;
  }

  /**
   * After a day close (the feed's constants moved): each run's moving alerts take their new levels in place and
   * wait for their next tick as new alerts would, their condition's truth at the last value kept for `every_time`.
   */
  roll(): void {
    this.bounded = false;
    if (this.runs.length === 0) return;
    this.runsPending = false;
    this.freshAt = -1;
    for (const run of this.runs) {
      run.roll(this.last, this.seq);
      if (run.fresh === this.seq) this.freshAt = this.seq;
    }
    // A fresh run's next tick is the first of all its alerts: they no longer wait one by one.
    const waiting = this.waiting;
    dropWhere([waiting, this.waitCode, this.waitLo, this.waitHi], (i) => waiting[i]!.moving);
  }
}

/** The alerts of one symbol that share one condition whose levels are other series. */
class Group extends Slot {
  members: ArmedAlert[] = [];
  private hasPrev = false;
  private prevTruth = false;
  private pv = NaN;
  private plo = NaN;
  private phi = NaN;

  constructor(
    index: AlertIndex,
    /** Its condition's key in its book (`conditionKey`). */
    readonly key: string,
    readonly probe: ConditionProbe,
    private readonly sourceFeed: SourceFeed,
  ) {
    super(index, inCents(sourceFeed.source));
  }

  insert(alert: ArmedAlert): void {
    this.members.push(alert);
    alert.place = EVALUATED;
  }

  /** Whether no armed alert is left in it, evaluated or waiting for its first tick. */
  isEmpty(): boolean {
    if (this.members.length > 0) return false;
    for (let i = 0; i < this.waiting.length; i++) {
      const alert = this.waiting[i]!;
      if (alert.place === WAITING && alert.slot === this) return false;
    }
    return true;
  }

  /** A group re-evaluates its once-per-bar members on each new day itself. */
  protected override markRevive(): void {}

  delete(alert: ArmedAlert): void {
    const at = this.members.indexOf(alert);
    if (at >= 0) return void this.members.splice(at, 1);
    if (this.waitingSweepDue()) {
      this.waiting = this.waiting.filter((waiting) => waiting.place === WAITING && waiting.slot === this);
    }
  }

  evaluate(cents: number, volume: number, prevCloseCents: number, day: string, out: ArmedAlert[]): void {
    const probe = this.probe;
    if (!probe.read(cents, volume, prevCloseCents)) return;
    const op = probe.condition.op;
    const { v, lo, hi } = probe;
    const truth = truthOf(op, v, lo, hi);
    const newDay = day !== this.day;
    let value: number;
    if (this.members.length > 0 && this.hasPrev) {
      if (isEdgeOp(op)) {
        if (edgeOf(op, this.pv, this.plo, this.phi, v, lo, hi)) {
          value = this.sourceFeed.value(cents, volume, prevCloseCents);
          // Fired `once` members leave after the tick (see `doom`), so the members do not change here.
          const members = this.members;
          for (let i = 0; i < members.length; i++) this.fireIfAllowed(members[i]!, value, day, out);
        }
      } else {
        const flipped = truth && !this.prevTruth;
        if (flipped || (truth && newDay)) {
          value = this.sourceFeed.value(cents, volume, prevCloseCents);
          const members = this.members;
          for (let i = 0; i < members.length; i++) {
            const alert = members[i]!;
            if (flipped || alert.perBar) this.fireIfAllowed(alert, value, day, out);
          }
        }
      }
    }
    this.day = day;
    if (this.waiting.length > 0) {
      const waiting = this.waiting;
      this.waiting = [];
      value = this.sourceFeed.value(cents, volume, prevCloseCents);
      for (let i = 0; i < waiting.length; i++) {
        const alert = waiting[i]!;
        if (alert.place !== WAITING) continue;
        this.evaluateOnce(alert, truth, value, day, out);
        if (alert.place === WAITING) this.insert(alert);
      }
    }
    this.hasPrev = true;
    this.prevTruth = truth;
    this.pv = v;
    this.plo = lo;
    this.phi = hi;
  }
}

/**
 * One symbol's structures, and where its next tick may move nothing: every source but volume is monotonic in
 * the price within a day, so after each evaluation the book keeps the prices (in cents, excluded) and the
 * volumes between which no ladder cursor moves and no group comparison changes; a tick of the same day inside
 * them costs a few comparisons. Each structure's own range sits in flat arrays next to the others', so a tick
 * outside the book's range reads the structures it must evaluate, and only those.
 */
class Book {
  day = '';
  prevCloseCents = NaN;
  /** The prices (excluded) within which a tick moves nothing; an empty range (+∞, −∞) until evaluated. */
  lo = Infinity;
  hi = -Infinity;
  /** The volume ladder's bounds (see `Ladder.bound`). */
  volGeUp = Infinity;
  volLeUp = Infinity;
  volGeDown = -Infinity;
  volLeDown = -Infinity;
  readonly ladders: Ladder[] = [];
  /**
   * Per ladder (by place), the prices (excluded) within which a tick of `day` with the same previous close moves
   * none of its cursors and admits nothing; (−∞, +∞) for the volume ladder (its own bounds are the volumes
   * above) and for a source unknown all day; empty (+∞, −∞) when it must be evaluated.
   */
  readonly ladderLo: number[] = [];
  readonly ladderHi: number[] = [];
  readonly ladderBySource = new Map<string, Ladder>();
  readonly groups: Group[] = [];
  /** Per group (by place), the prices (excluded) within which none of its comparisons changes, as above. */
  readonly groupLo: number[] = [];
  readonly groupHi: number[] = [];
  readonly groupByKey = new Map<string, Group>();
  /** Its alerts, and its fired `once` alerts not yet forgotten (their slot null; see `AlertIndex.ghosts`). */
  readonly alerts = new Set<ArmedAlert>();
  /** How many of `alerts` are armed. */
  armed = 0;
  /** The place of the volume ladder, or −1. */
  volumeAt = -1;

  /** The structure's next tick is evaluated in full (and the book's). */
  unbound(slot: Slot): void {
    if (slot instanceof Ladder) {
      this.ladderLo[slot.at] = Infinity;
      this.ladderHi[slot.at] = -Infinity;
    } else {
      this.groupLo[slot.at] = Infinity;
      this.groupHi[slot.at] = -Infinity;
    }
    this.lo = Infinity;
    this.hi = -Infinity;
  }

  /**
   * Takes a group no alert is left in out of the book (the last one takes its place), so that conditions armed
   * and disarmed over time (each distinct level its own group) leave nothing behind to evaluate on every tick.
   */
  dropGroup(group: Group): void {
    const at = group.at;
    const last = this.groups.length - 1;
    const moved = this.groups[last]!;
    this.groups[at] = moved;
    this.groupLo[at] = this.groupLo[last]!;
    this.groupHi[at] = this.groupHi[last]!;
    moved.at = at;
    this.groups.pop();
    this.groupLo.pop();
    this.groupHi.pop();
    this.groupByKey.delete(group.key);
    group.at = -1;
  }

  /** Every structure's next tick is evaluated in full. */
  unboundAll(): void {
    this.ladderLo.fill(Infinity);
    this.ladderHi.fill(-Infinity);
    this.groupLo.fill(Infinity);
    this.groupHi.fill(-Infinity);
    this.lo = Infinity;
    this.hi = -Infinity;
  }
}

/** The armed alerts of every user, per symbol and source. */
export class AlertIndex {
  private readonly books = new Map<string, Book>();
  private readonly byKey = new Map<string, ArmedAlert>();
  private readonly feeds: FeedBook;
  private doomed: ArmedAlert[] = [];
  /**
   * Fired `once` alerts out of their structures (slot null) but still in `byKey` and their book's `alerts`, so a
   * firing does not look up the key map: taken out of those by `remove` (the engine disarms each once its
   * trigger is folded), by arming the key again, or all at once when they outnumber the armed alerts.
   */
  private ghosts = 0;
  /** What `ConditionProbe.narrow` narrows, reused. */
  private readonly scratchRange: PriceRange = { lo: -Infinity, hi: Infinity };

  /** An empty index reading each symbol's finished days from `history`. */
  constructor(history: HistoryLookup = () => undefined) {
    this.feeds = new FeedBook(history);
  }

  /** How many alerts are armed. */
  get size(): number {
    return this.byKey.size - this.ghosts;
  }

  /** How many symbols have a book (armed alerts now or before). */
  get symbolCount(): number {
    return this.books.size;
  }

  /** Whether an alert is in the index. */
  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** The alert of a key, if armed. */
  get(key: string): ArmedAlert | undefined {
    const alert = this.byKey.get(key);
    return alert !== undefined && alert.slot !== null ? alert : undefined;
  }

  /**
   * Arms an alert, replacing the one of the same key: a constant level goes among the sorted levels at once,
   * and the symbol's next tick is its first (which only sets its previous value for the edge operators).
   */
  add(alert: ArmedAlert): void {
    if (this.byKey.has(alert.key)) this.remove(alert.key);
    const book = this.bookOf(alert.symbol);
    const condition = alert.condition;
    let slot: Ladder | Group;
    if (isLadderCondition(condition)) {
      let ladder = book.ladderBySource.get(condition.source);
      if (ladder === undefined) {
        ladder = new Ladder(this, this.feeds.feed(alert.symbol, condition.source));
        ladder.at = book.ladders.length;
        if (ladder.feed.byVolume) book.volumeAt = ladder.at;
        book.ladderBySource.set(condition.source, ladder);
        book.ladders.push(ladder);
        book.ladderLo.push(Infinity);
        book.ladderHi.push(-Infinity);
      }
      alert.lo = NaN;
      alert.reviving = -1;
      ladder.place(alert);
      slot = ladder;
    } else {
      const key = conditionKey(condition);
      let group = book.groupByKey.get(key);
      if (group === undefined) {
        group = new Group(
          this,
          key,
          new ConditionProbe(condition, alert.symbol, this.feeds),
          this.feeds.feed(alert.symbol, condition.source),
        );
        group.at = book.groups.length;
        book.groupByKey.set(key, group);
        book.groups.push(group);
        book.groupLo.push(Infinity);
        book.groupHi.push(-Infinity);
      }
      alert.place = WAITING;
      alert.reviving = -1;
      group.waiting.push(alert);
      slot = group;
    }
    book.unbound(slot);
    alert.slot = slot;
    book.alerts.add(alert);
    book.armed += 1;
    this.byKey.set(alert.key, alert);
  }

  /**
   * Merges every alert armed since the last merge among its ladder's sorted levels now, rather than on its
   * symbol's next tick: after arming many at once (the engine's start), so the first ticks do not wait for it.
   */
  mergeArmed(): void {
    for (const book of this.books.values()) for (const ladder of book.ladders) ladder.mergeArmed();
  }

  /**
   * The values of a condition's levels that are not constants (another series, a moving operator's level) on a
   * tick of its symbol, in their series' unit: what a trigger's message says they were. Null for a constant
   * level, and for one whose value is unknown (too short a history).
   */
  firedLevels(
    symbol: string,
    condition: AlertCondition,
    cents: number,
    volume: number,
    prevCloseCents: number,
  ): FiredLevels {
    const known = (value: number): number | null => (Number.isFinite(value) ? value : null);
    if (condition.bars !== null) {
      const feed = this.feeds.feed(symbol, condition.source);
      const level = feed.movingLevel(condition.op, condition.value as number, condition.bars);
      return { level: known(fromUnits(condition.source, level)), upper: null };
    }
    const valueOf = (operand: AlertOperand | null): number | null => {
      if (operand === null || typeof operand === 'number') return null;
      const value = this.feeds.feed(symbol, operand.ref).value(cents, volume, prevCloseCents);
      return known(fromUnits(operand.ref, value));
    };
    return { level: valueOf(condition.value ?? condition.lower), upper: valueOf(condition.upper) };
  }

  /** Disarms an alert; answers it, or undefined when it was not armed. */
  remove(key: string): ArmedAlert | undefined {
    const alert = this.byKey.get(key);
    if (alert === undefined) return undefined;
    const armed = alert.slot !== null;
    if (armed) this.detach(alert);
    else this.ghosts -= 1;
    this.forget(alert);
    return armed ? alert : undefined;
  }

  /** Takes an alert out of the key map and its book's `alerts`. */
  private forget(alert: ArmedAlert): void {
    this.byKey.delete(alert.key);
    this.books.get(alert.symbol)?.alerts.delete(alert);
  }

  /** Forgets every fired `once` alert still in the key map (see `ghosts`). */
  private forgetGhosts(): void {
    for (const alert of this.byKey.values()) if (alert.slot === null) this.forget(alert);
    this.ghosts = 0;
  }

  /** Takes an armed alert out of its structure (the key map and its book's `alerts` are the caller's). */
  private detach(alert: ArmedAlert): void {
    const slot = alert.slot as Ladder | Group;
    alert.slot = null;
    // On a ladder, a moving alert waiting for its level is among its run's too; in a group, one waiting for its
    // first tick is taken out of the group's waiting list.
    if (alert.place === EVALUATED || alert.place === WAITING) slot.delete(alert);
    alert.place = NOWHERE;
    alert.run = null;
    const book = this.books.get(alert.symbol);
    if (book !== undefined) {
      book.armed -= 1;
      book.unbound(slot);
      if (slot instanceof Group && slot.isEmpty()) book.dropGroup(slot);
    }
  }

  /**
   * Takes an armed alert's condition to hold, as if its last evaluation had found it true (the engine, when the
   * log has a firing of it the index did not make): a repeating one fires again only once it stopped holding.
   */
  takeAsHeld(alert: ArmedAlert): void {
    alert.lastTruth = true;
    if (alert.slot !== null && alert.run !== null) (alert.run as MoverRun).hold(alert);
  }

  /** Takes a fired `once` alert out, once the tick's evaluation is over. */
  doom(alert: ArmedAlert): void {
    this.doomed.push(alert);
  }

  /**
   * Evaluates a tick of `symbol` (its forming bar: price in cents, the day's volume, the previous close) on
   * trading day `day`: appends the alerts it fires to `out` (each with `firedValue` and `firedOn`); fired `once`
   * alerts leave the index. Answers how many fired.
   */
  evaluate(
    symbol: string,
    cents: number,
    volume: number,
    prevCloseCents: number,
    day: string,
    out: ArmedAlert[],
  ): number {
    const book = this.books.get(symbol);
    if (book === undefined) return 0;
    // A new day or a new previous close moves every structure (once-per-bar revivals, the day's change).
    const same =
      day === book.day &&
      (prevCloseCents === book.prevCloseCents ||
        (prevCloseCents !== prevCloseCents && book.prevCloseCents !== book.prevCloseCents));
    const volumeHolds =
      volume < book.volGeUp && volume <= book.volLeUp && volume >= book.volGeDown && volume > book.volLeDown;
    if (same && cents > book.lo && cents < book.hi && volumeHolds) return 0;
    const before = out.length;
    // Each structure whose own range holds the tick moves nothing either.
    const ladders = book.ladders;
    const ladderLo = book.ladderLo;
    const ladderHi = book.ladderHi;
    for (let i = 0; i < ladders.length; i++) {
      if (same && cents > ladderLo[i]! && cents < ladderHi[i]! && (i !== book.volumeAt || volumeHolds)) continue;
      ladderLo[i] = Infinity;
      ladderHi[i] = -Infinity;
      const ladder = ladders[i]!;
      ladder.evaluate(ladder.feed.value(cents, volume, prevCloseCents), day, out);
    }
    const groups = book.groups;
    const groupLo = book.groupLo;
    const groupHi = book.groupHi;
    for (let i = 0; i < groups.length; i++) {
      if (same && cents > groupLo[i]! && cents < groupHi[i]!) continue;
      groupLo[i] = Infinity;
      groupHi[i] = -Infinity;
      groups[i]!.evaluate(cents, volume, prevCloseCents, day, out);
    }
    if (this.doomed.length > 0) {
      const doomed = this.doomed;
      // Each is still armed unless disarmed already (its slot then null).
      for (let i = 0; i < doomed.length; i++) {
        if (doomed[i]!.slot === null) continue;
        this.detach(doomed[i]!);
        this.ghosts += 1;
      }
      doomed.length = 0;
      if (this.ghosts > 1024 + this.size) this.forgetGhosts();
    }
    this.bound(book, cents, volume, prevCloseCents, day);
    return out.length - before;
  }

  /**
   * Sets where the book's next tick may move nothing, after an evaluation at `cents`: the structures evaluated
   * (their range empty) set theirs again, and the book keeps the intersection.
   */
  private bound(book: Book, cents: number, volume: number, prevCloseCents: number, day: string): void {
    let lo = -Infinity;
    let hi = Infinity;
    book.day = day;
    book.prevCloseCents = prevCloseCents;
    let whole = false;
    const ladders = book.ladders;
    const ladderLo = book.ladderLo;
    const ladderHi = book.ladderHi;
    for (let i = 0; i < ladders.length; i++) {
      if (!(ladderLo[i]! < cents && cents < ladderHi[i]!)) {
        const ladder = ladders[i]!;
        // By default a ladder whose source is unknown all day (too short a history): it moves nothing, and
        // admits nothing.
        ladderLo[i] = -Infinity;
        ladderHi[i] = Infinity;
        if (!ladder.settled) {
          if (!Number.isNaN(ladder.feed.value(cents, volume, prevCloseCents))) {
            ladderLo[i] = Infinity;
            ladderHi[i] = -Infinity;
            whole = true;
          }
          continue;
        }
        if (!ladder.bounded && Number.isNaN(ladder.feed.value(cents, volume, prevCloseCents))) continue;
        ladder.bound(cents, prevCloseCents);
        if (ladder.feed.byVolume) {
          book.volGeUp = ladder.volGeUp;
          book.volLeUp = ladder.volLeUp;
          book.volGeDown = ladder.volGeDown;
          book.volLeDown = ladder.volLeDown;
        } else {
          ladderLo[i] = ladder.downCents;
          ladderHi[i] = ladder.upCents;
        }
      }
      if (ladderLo[i]! > lo) lo = ladderLo[i]!;
      if (ladderHi[i]! < hi) hi = ladderHi[i]!;
    }
    const groups = book.groups;
    const groupLo = book.groupLo;
    const groupHi = book.groupHi;
    const own = this.scratchRange;
    for (let i = 0; i < groups.length; i++) {
      if (!(groupLo[i]! < cents && cents < groupHi[i]!)) {
        // Evaluated on this tick: its range is set again.
        const group = groups[i]!;
        own.lo = -Infinity;
        own.hi = Infinity;
        const narrowed = group.probe.narrow(cents, own);
        if (narrowed === 'opaque' || (narrowed === 'narrowed' && group.waiting.length > 0)) {
          whole = true;
          continue;
        }
        groupLo[i] = own.lo;
        groupHi[i] = own.hi;
      }
      if (groupLo[i]! > lo) lo = groupLo[i]!;
      if (groupHi[i]! < hi) hi = groupHi[i]!;
    }
    if (whole || !(lo < cents && cents < hi)) {
      lo = Infinity;
      hi = -Infinity;
    }
    book.lo = lo;
    book.hi = hi;
  }

  /** After a day close: every source reads its finished days again, and moving levels are set afresh. */
  roll(): void {
    this.feeds.refresh();
    for (const book of this.books.values()) {
      book.unboundAll();
      for (const ladder of book.ladders) ladder.roll();
    }
  }

  /** The alerts waiting for their symbol's next tick in a ladder or a group, over every symbol. */
  get waitingCount(): number {
    let count = 0;
    for (const book of this.books.values()) {
      for (const ladder of book.ladders) count += ladder.waiting.length;
      for (const group of book.groups) count += group.waiting.length;
    }
    return count;
  }

  /** The groups (conditions whose levels are other series) held over every symbol: one per distinct armed one. */
  get groupCount(): number {
    let count = 0;
    for (const book of this.books.values()) count += book.groups.length;
    return count;
  }

  /** The symbols with at least one armed alert. */
  *armedSymbols(): IterableIterator<string> {
    for (const [symbol, book] of this.books) if (book.armed > 0) yield symbol;
  }

  /** The armed alerts of a symbol, in the order they were armed. */
  alertsOf(symbol: string): ArmedAlert[] {
    return [...(this.books.get(symbol)?.alerts ?? [])].filter((alert) => alert.slot !== null);
  }

  /** Every armed alert. */
  *all(): IterableIterator<ArmedAlert> {
    for (const alert of this.byKey.values()) if (alert.slot !== null) yield alert;
  }

  private bookOf(symbol: string): Book {
    let book = this.books.get(symbol);
    if (book === undefined) {
      book = new Book();
      this.books.set(symbol, book);
    }
    return book;
  }
}
