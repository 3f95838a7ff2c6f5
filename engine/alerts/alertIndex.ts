/**
 * The armed-alert index: the alerts waiting for their condition, organised per symbol and source so that a tick
 * costs O(1 + flips) per source watched, whatever the number of alerts.
 *
 * - **Ladders** (a constant level, or a channel of constant bounds; the moving operators, whose level is
 *   constant through a day): per symbol and source, the levels sorted ascending in two arrays, one for the
 *   predicates `v ≥ level` and one for `v ≤ level`, each with a cursor at the last value. A tick moves the
 *   cursors from the previous value to the new one; only the levels between the two change truth (flip), and
 *   each operator decides from its flips (see `semantics.ts`): `crossing_up` fires when `v ≥ level` flips
 *   true, `entering_channel` when `v ≥ lower` flips true below the upper bound, and so on.
 * - **Groups** (a level or a bound that is another series, e.g. the price crossing its 50-day SMA): alerts
 *   with the same condition share it; a tick evaluates each group once.
 *
 * Per alert the index keeps what its frequency needs: the firing count (`every_time`), the day of its last
 * firing (`once_per_bar`, which fires again the next day when the condition still holds), and whether the
 * condition held (`every_time` must see it false before firing again). A new alert waits for its first tick,
 * which only sets its previous value for the edge operators (crossing, entering, exiting) and fires the level
 * operators (greater, less, inside, outside, moving) when they hold.
 */
import type { Alert } from '../../domain/alerts/alerts.ts';
import {
  conditionKey,
  type AlertCondition,
  type AlertFrequency,
  type AlertOp,
} from '../../domain/alerts/conditions.ts';
import { ConditionProbe, edgeOf, isEdgeOp, truthOf, type PriceRange } from './semantics.ts';
import { FeedBook, fromUnits, toUnits, type HistoryLookup, type SourceFeed } from './series.ts';

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
  /** Whether the condition held at its last evaluation. */
  lastTruth: boolean;
  /** When fired: the source's value then (dollars for price-like series). */
  firedValue: number;
  /** When fired: the trading day it fired on. */
  firedOn: string;
  /** Index state: the level (or lower bound) in the source's unit. */
  lo: number;
  /** Index state: the upper bound. */
  hi: number;
  /** Index state: where it is (0 nowhere, 1 waiting, 2 evaluated, 4 about to be merged into a ladder's levels). */
  place: number;
  /** Index state: on a ladder, its count of ticks when the alert was placed (the next is its first), else −1. */
  since: number;
  /** Index state: whether it waits for the next day's first tick to fire again (once per bar). */
  reviving: boolean;
}

/** The index key of a user's alert. */
export function alertKey(userId: string, alertId: string): string {
  return `${userId}/${alertId}`;
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
    reviving: false,
  };
}

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
 * Orders moving alerts so that their levels on any day come in ascending runs: by operator and window, then by
 * amount, ascending for the operators that add it to the value back then and descending for those that subtract
 * it (a moving level is monotonic in its amount, in floating point too).
 */
function byMovingLevel(a: ArmedAlert, b: ArmedAlert): number {
  const x = a.condition;
  const y = b.condition;
  if (x.op !== y.op) return x.op < y.op ? -1 : 1;
  if (x.bars !== y.bars) return x.bars! - y.bars!;
  const up = x.op === 'moving_up' || x.op === 'moving_up_pct';
  return up ? (x.value as number) - (y.value as number) : (y.value as number) - (x.value as number);
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

/**
 * Merges `levels` (any order) and their alerts into the ascending `intoLevels`/`intoAlerts`, each after the
 * equal levels already there and in its given order among equal new ones: what inserting them one by one gives.
 */
function mergeSorted(
  intoLevels: number[],
  intoAlerts: ArmedAlert[],
  levels: readonly number[],
  alerts: readonly ArmedAlert[],
): void {
  if (levels.length === 0) return;
  const order = levels.map((_, k) => k).sort((x, y) => levels[x]! - levels[y]! || x - y);
  let i = intoLevels.length - 1;
  let j = order.length - 1;
  for (let k = 0; k < order.length; k++) {
    intoLevels.push(0);
    intoAlerts.push(alerts[0]!);
  }
  for (let k = intoLevels.length - 1; j >= 0; k--) {
    if (i >= 0 && intoLevels[i]! > levels[order[j]!]!) {
      intoLevels[k] = intoLevels[i]!;
      intoAlerts[k] = intoAlerts[i]!;
      i--;
    } else {
      intoLevels[k] = levels[order[j]!]!;
      intoAlerts[k] = alerts[order[j]!]!;
      j--;
    }
  }
}

/** What the index's structures share: the firing of one alert, by its frequency. */
abstract class Slot {
  /** Alerts waiting for their first tick (on a ladder, already among its levels or about to be merged in). */
  waiting: ArmedAlert[] = [];
  /** Once-per-bar level alerts that held when they last fired or were muted: re-evaluated on a new day. */
  revive: ArmedAlert[] = [];
  day = '';

  constructor(protected readonly index: AlertIndex) {}

  abstract delete(alert: ArmedAlert): void;

  /** Fires an alert that met its condition on `day`, if its frequency allows; answers whether it fired. */
  protected fireIfAllowed(alert: ArmedAlert, value: number, day: string, out: ArmedAlert[]): boolean {
    if (perBar(alert.frequency)) {
      if (alert.firedDay === day) {
        this.markRevive(alert);
        return false;
      }
      alert.firedDay = day;
      if (!isEdgeOp(alert.condition.op)) this.markRevive(alert);
    }
    alert.firedValue = fromUnits(alert.condition.source, value);
    alert.firedOn = day;
    out.push(alert);
    if (alert.frequency === 'once') this.index.doom(alert);
    return true;
  }

  protected markRevive(alert: ArmedAlert): void {
    if (!alert.reviving && !isEdgeOp(alert.condition.op)) {
      alert.reviving = true;
      this.revive.push(alert);
    }
  }

  /** A first evaluation (new alert, or a new day for a muted one): level operators fire when they hold. */
  protected evaluateOnce(alert: ArmedAlert, truth: boolean, value: number, day: string, out: ArmedAlert[]): void {
    if (!isEdgeOp(alert.condition.op) && truth) {
      const allowed = alert.frequency === 'every_time' ? !alert.lastTruth : true;
      if (allowed) this.fireIfAllowed(alert, value, day, out);
    }
    alert.lastTruth = truth;
  }

  /** On a new day, the muted once-per-bar alerts are evaluated again. */
  protected takeRevive(day: string): ArmedAlert[] | null {
    if (day === this.day) return null;
    this.day = day;
    if (this.revive.length === 0) return null;
    const revive = this.revive;
    this.revive = [];
    for (const alert of revive) alert.reviving = false;
    return revive;
  }
}

/** One symbol's source with the alerts of constant levels on it. */
class Ladder extends Slot {
  last = NaN;
  readonly geLv: number[] = [];
  readonly geAl: ArmedAlert[] = [];
  /** How many `geLv` are at or below `last` (hold). */
  geCut = 0;
  readonly leLv: number[] = [];
  readonly leAl: ArmedAlert[] = [];
  /** How many `leLv` are below `last` (do not hold). */
  leCut = 0;
  /** The moving alerts, whose level is set again at each day close. */
  readonly movers = new Set<ArmedAlert>();
  /** The movers in the order of their levels on any day (see {@link byMovingLevel}); null when to be sorted again. */
  private moverOrder: ArmedAlert[] | null = null;
  /** Moving alerts whose level is not known yet (too short a history): tried again after the next day close. */
  unleveled: ArmedAlert[] = [];
  /** New alerts with their level, merged into the sorted levels in one sort when there are enough, or on a tick. */
  private pending: ArmedAlert[] = [];
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
  private p = NaN;
  private n = NaN;
  private tickDay = '';
  private out: ArmedAlert[] = [];

  constructor(
    index: AlertIndex,
    readonly feed: SourceFeed,
  ) {
    super(index);
  }

  addMover(alert: ArmedAlert): void {
    this.movers.add(alert);
    this.moverOrder = null;
  }

  deleteMover(alert: ArmedAlert): void {
    if (this.movers.delete(alert)) this.moverOrder = null;
  }

  /** Sets an alert's levels; false when a moving level is not known yet. */
  level(alert: ArmedAlert): boolean {
    const c = alert.condition;
    if (c.bars !== null) {
      alert.lo = this.feed.movingLevel(c.op, c.value as number, c.bars);
      return !Number.isNaN(alert.lo);
    }
    alert.lo = toUnits(c.source, (c.value ?? c.lower) as number);
    alert.hi = c.upper === null ? NaN : toUnits(c.source, c.upper as number);
    return true;
  }

  /**
   * Takes a new alert whose level is set: among the levels, where the cursors' moves on its first tick do not fire
   * it (that tick only sets its previous value, or fires a level condition that holds). The levels
   * are merged in batches of at least an eighth of the ladder, so arming n alerts costs O(n log n) in all.
   */
  stage(alert: ArmedAlert): void {
    alert.place = PENDING;
    alert.since = this.seq;
    this.pending.push(alert);
    // Only a level condition does anything on its first tick (fire when it holds).
    if (!isEdgeOp(alert.condition.op)) this.waiting.push(alert);
    this.bounded = false;
    if (this.pending.length >= 32 + ((this.geLv.length + this.leLv.length) >> 3)) this.mergePending();
  }

  delete(alert: ArmedAlert): void {
    const op = alert.condition.op;
    this.bounded = false;
    if (usesGe(op)) {
      const i = this.find(this.geLv, this.geAl, alert.lo, alert);
      if (i >= 0) {
        this.geLv.splice(i, 1);
        this.geAl.splice(i, 1);
        if (i < this.geCut) this.geCut -= 1;
      }
    }
    if (usesLe(op)) {
      const i = this.find(this.leLv, this.leAl, op.endsWith('_channel') ? alert.hi : alert.lo, alert);
      if (i >= 0) {
        this.leLv.splice(i, 1);
        this.leAl.splice(i, 1);
        if (i < this.leCut) this.leCut -= 1;
      }
    }
  }

  private find(levels: readonly number[], alerts: readonly ArmedAlert[], level: number, alert: ArmedAlert): number {
    for (let i = atOrAfterAscending(levels, level); i < levels.length && levels[i] === level; i++) {
      if (alerts[i] === alert) return i;
    }
    return alerts.indexOf(alert);
  }

  /** Evaluates the source's new value `n` on `day`. */
  evaluate(n: number, day: string, out: ArmedAlert[]): void {
    if (this.pending.length > 0) this.mergePending();
    if (Number.isNaN(n)) return;
    const p = this.last;
    const geLv = this.geLv;
    const leLv = this.leLv;
    if (Number.isNaN(p)) {
      this.geCut = afterAscending(geLv, n);
      this.leCut = atOrAfterAscending(leLv, n);
      this.bounded = false;
    } else if (n !== p) {
      this.p = p;
      this.n = n;
      this.tickDay = day;
      this.out = out;
      if (n > p) {
        let i = this.geCut;
        if (i < geLv.length && geLv[i]! <= n) {
          do this.flip(this.geAl[i]!, true, true);
          while (++i < geLv.length && geLv[i]! <= n);
          this.geCut = i;
          this.bounded = false;
        }
        i = this.leCut;
        if (i < leLv.length && leLv[i]! < n) {
          do this.flip(this.leAl[i]!, false, false);
          while (++i < leLv.length && leLv[i]! < n);
          this.leCut = i;
          this.bounded = false;
        }
      } else {
        let i = this.geCut - 1;
        if (i >= 0 && geLv[i]! > n) {
          do this.flip(this.geAl[i]!, true, false);
          while (--i >= 0 && geLv[i]! > n);
          this.geCut = i + 1;
          this.bounded = false;
        }
        i = this.leCut - 1;
        if (i >= 0 && leLv[i]! >= n) {
          do this.flip(this.leAl[i]!, false, true);
          while (--i >= 0 && leLv[i]! >= n);
          this.leCut = i + 1;
          this.bounded = false;
        }
      }
    }
    this.last = n;
    if (day !== this.day) {
      const revive = this.takeRevive(day);
      if (revive !== null) {
        for (const alert of revive) {
          if (alert.place === EVALUATED && alert.since !== this.seq) this.reevaluate(alert, n, day, out);
        }
      }
    }
    if (this.waiting.length > 0) this.admit(n, day, out);
    this.seq += 1;
  }

  private reevaluate(alert: ArmedAlert, n: number, day: string, out: ArmedAlert[]): void {
    if (truthOf(alert.condition.op, n, alert.lo, alert.hi)) this.fireIfAllowed(alert, n, day, out);
  }

  /** The level conditions on their first tick fire when they hold (they are among the levels already). */
  private admit(n: number, day: string, out: ArmedAlert[]): void {
    const waiting = this.waiting;
    const seq = this.seq;
    this.waiting = [];
    for (const alert of waiting) {
      if (alert.place !== EVALUATED || alert.since !== seq) continue;
      alert.since = -1;
      this.evaluateOnce(alert, truthOf(alert.condition.op, n, alert.lo, alert.hi), n, day, out);
    }
  }

  /** Merges the pending alerts into the sorted levels at once: sorted, then merged. */
  private mergePending(): void {
    const pending = this.pending;
    this.pending = [];
    const geLevels: number[] = [];
    const geAlerts: ArmedAlert[] = [];
    const leLevels: number[] = [];
    const leAlerts: ArmedAlert[] = [];
    for (const alert of pending) {
      if (alert.place !== PENDING) continue;
      const op = alert.condition.op;
      if (usesGe(op)) {
        geLevels.push(alert.lo);
        geAlerts.push(alert);
      }
      if (usesLe(op)) {
        leLevels.push(op.endsWith('_channel') ? alert.hi : alert.lo);
        leAlerts.push(alert);
      }
      alert.place = EVALUATED;
    }
    mergeSorted(this.geLv, this.geAl, geLevels, geAlerts);
    mergeSorted(this.leLv, this.leAl, leLevels, leAlerts);
    this.recut();
    this.bounded = false;
  }

  /** Sets the cursors for the last value. */
  private recut(): void {
    this.geCut = afterAscending(this.geLv, this.last);
    this.leCut = atOrAfterAscending(this.leLv, this.last);
  }

  /** A level's predicate changed truth (`ge`: `v ≥ level`, else `v ≤ level`). */
  private flip(alert: ArmedAlert, ge: boolean, nowTrue: boolean): void {
    const op = alert.condition.op;
    let fires: boolean;
    switch (op) {
      case 'inside_channel':
      case 'entering_channel':
        fires = nowTrue && (ge ? this.n <= alert.hi : this.n >= alert.lo);
        break;
      case 'outside_channel':
      case 'exiting_channel':
        fires = !nowTrue && (ge ? this.p <= alert.hi : this.p >= alert.lo);
        break;
      default:
        fires = nowTrue;
    }
    if (fires && alert.place === EVALUATED && alert.since !== this.seq) {
      this.fireIfAllowed(alert, this.n, this.tickDay, this.out);
    }
  }

  /**
   * Sets `downCents`/`upCents` for the cursors as they are after a tick at `cents`: the first price up and
   * down where the source's value passes the next level (the sources are monotonic in the price).
   */
  bound(cents: number, prevCloseCents: number): void {
    if (this.bounded && (prevCloseCents === this.boundPrevClose || this.feed.source !== 'changepct')) return;
    const geLv = this.geLv;
    const leLv = this.leLv;
    const geCut = this.geCut;
    const leCut = this.leCut;
    const feed = this.feed;
    let up = Infinity;
    let down = -Infinity;
    if (feed.byVolume) {
      // The value is the volume itself: a volume moves no cursor while below the next `≥` level, at or below
      // the next `≤` one, at or above the last `≥` one and above the last `≤` one.
      this.volGeUp = geCut < geLv.length ? geLv[geCut]! : Infinity;
      this.volLeUp = leCut < leLv.length ? leLv[leCut]! : Infinity;
      this.volGeDown = geCut > 0 ? geLv[geCut - 1]! : -Infinity;
      this.volLeDown = leCut > 0 ? leLv[leCut - 1]! : -Infinity;
    } else {
      if (geCut < geLv.length) up = feed.firstCentsUp(cents, prevCloseCents, geLv[geCut]!, false);
      if (leCut < leLv.length) up = Math.min(up, feed.firstCentsUp(cents, prevCloseCents, leLv[leCut]!, true));
      if (geCut > 0) down = feed.lastCentsDown(cents, prevCloseCents, geLv[geCut - 1]!, false);
      if (leCut > 0) down = Math.max(down, feed.lastCentsDown(cents, prevCloseCents, leLv[leCut - 1]!, true));
    }
    this.downCents = down;
    this.upCents = up;
    this.boundPrevClose = prevCloseCents;
    this.bounded = true;
  }

  /**
   * After a day close (the feed's constants moved): each moving alert takes its new level and waits for its next
   * tick as a new alert would, its condition's truth at the last value kept for `every_time`.
   */
  roll(): void {
    this.bounded = false;
    const last = this.last;
    const relevel: ArmedAlert[] = [];
    let leveled = false;
    this.moverOrder ??= [...this.movers].sort(byMovingLevel);
    // In that order, the new levels come in a few ascending runs, which the merge sorts in O(n log runs).
    for (const alert of this.moverOrder) {
      if (alert.place === EVALUATED) {
        const seen = alert.since !== this.seq;
        if (seen && !Number.isNaN(last)) alert.lastTruth = truthOf(alert.condition.op, last, alert.lo, alert.hi);
        if (seen) this.waiting.push(alert);
        leveled = true;
      } else if (alert.place !== PENDING) {
        continue;
      }
      relevel.push(alert);
    }
    if (leveled) this.dropMovers();
    if (relevel.length > 0) this.pending = this.pending.filter((alert) => alert.condition.bars === null);
    for (const alert of this.unleveled) if (alert.place === WAITING) relevel.push(alert);
    this.unleveled = [];
    for (const alert of relevel) {
      const unleveled = alert.place === WAITING;
      if (!this.level(alert)) {
        alert.place = WAITING;
        this.unleveled.push(alert);
      } else if (unleveled) {
        this.stage(alert);
      } else {
        alert.place = PENDING;
        alert.since = this.seq;
        this.pending.push(alert);
      }
    }
  }

  /** Takes every moving alert out of the sorted levels. */
  private dropMovers(): void {
    for (const [levels, alerts] of [
      [this.geLv, this.geAl],
      [this.leLv, this.leAl],
    ] as const) {
      let k = 0;
      for (let i = 0; i < alerts.length; i++) {
        if (alerts[i]!.condition.bars !== null) continue;
        levels[k] = levels[i]!;
        alerts[k] = alerts[i]!;
        k++;
      }
      levels.length = k;
      alerts.length = k;
    }
    this.recut();
  }
}

/** The alerts of one symbol that share one condition whose levels are other series. */
class Group extends Slot {
  members: ArmedAlert[] = [];
  /** The prices (excluded) within which no comparison of the condition changes; empty until evaluated. */
  readonly range: PriceRange = { lo: Infinity, hi: -Infinity };
  private hasPrev = false;
  private prevTruth = false;
  private pv = NaN;
  private plo = NaN;
  private phi = NaN;

  constructor(
    index: AlertIndex,
    readonly probe: ConditionProbe,
    private readonly sourceFeed: SourceFeed,
  ) {
    super(index);
  }

  insert(alert: ArmedAlert): void {
    this.members.push(alert);
    alert.place = EVALUATED;
  }

  /** A group re-evaluates its once-per-bar members on each new day itself. */
  protected override markRevive(): void {}

  delete(alert: ArmedAlert): void {
    const at = this.members.indexOf(alert);
    if (at >= 0) this.members.splice(at, 1);
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
          for (const alert of [...this.members]) this.fireIfAllowed(alert, value, day, out);
        }
      } else {
        const flipped = truth && !this.prevTruth;
        if (flipped || (truth && newDay)) {
          value = this.sourceFeed.value(cents, volume, prevCloseCents);
          for (const alert of [...this.members]) {
            if (flipped || perBar(alert.frequency)) this.fireIfAllowed(alert, value, day, out);
          }
        }
      }
    }
    this.day = day;
    if (this.waiting.length > 0) {
      const waiting = this.waiting;
      this.waiting = [];
      value = this.sourceFeed.value(cents, volume, prevCloseCents);
      for (const alert of waiting) {
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
 * them costs a few comparisons.
 */
class Book {
  day = '';
  prevCloseCents = NaN;
  /** The prices (excluded) within which a tick moves nothing; an empty range (+∞, −∞) until evaluated. */
  readonly range: PriceRange = { lo: Infinity, hi: -Infinity };
  volGeUp = Infinity;
  volLeUp = Infinity;
  volGeDown = -Infinity;
  volLeDown = -Infinity;
  readonly ladders: Ladder[] = [];
  readonly ladderBySource = new Map<string, Ladder>();
  readonly groups: Group[] = [];
  readonly groupByKey = new Map<string, Group>();
  readonly alerts = new Set<ArmedAlert>();
}

/** The armed alerts of every user, per symbol and source. */
export class AlertIndex {
  private readonly books = new Map<string, Book>();
  private readonly byKey = new Map<string, ArmedAlert>();
  private readonly slots = new Map<ArmedAlert, Ladder | Group>();
  private readonly feeds: FeedBook;
  private doomed: ArmedAlert[] = [];

  /** An empty index reading each symbol's finished days from `history`. */
  constructor(history: HistoryLookup = () => undefined) {
    this.feeds = new FeedBook(history);
  }

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
        book.ladderBySource.set(condition.source, ladder);
        book.ladders.push(ladder);
      }
      alert.lo = NaN;
      alert.reviving = false;
      if (condition.bars !== null) ladder.addMover(alert);
      if (ladder.level(alert)) {
        ladder.stage(alert);
      } else {
        alert.place = WAITING;
        ladder.unleveled.push(alert);
      }
      slot = ladder;
    } else {
      const key = conditionKey(condition);
      let group = book.groupByKey.get(key);
      if (group === undefined) {
        group = new Group(
          this,
          new ConditionProbe(condition, alert.symbol, this.feeds),
          this.feeds.feed(alert.symbol, condition.source),
        );
        book.groupByKey.set(key, group);
        book.groups.push(group);
      }
      alert.place = WAITING;
      alert.reviving = false;
      group.waiting.push(alert);
      slot = group;
    }
    this.unbound(book);
    this.slots.set(alert, slot);
    book.alerts.add(alert);
    this.byKey.set(alert.key, alert);
  }

  /** Disarms an alert; answers it, or undefined when it was not armed. */
  remove(key: string): ArmedAlert | undefined {
    const alert = this.byKey.get(key);
    if (alert === undefined) return undefined;
    this.byKey.delete(key);
    const slot = this.slots.get(alert)!;
    this.slots.delete(alert);
    if (alert.place === EVALUATED) slot.delete(alert);
    if (slot instanceof Ladder) slot.deleteMover(alert);
    alert.place = NOWHERE;
    const book = this.books.get(alert.symbol);
    if (book !== undefined) {
      book.alerts.delete(alert);
      this.unbound(book);
    }
    return alert;
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
    const range = book.range;
    if (
      cents > range.lo &&
      cents < range.hi &&
      day === book.day &&
      (prevCloseCents === book.prevCloseCents ||
        (prevCloseCents !== prevCloseCents && book.prevCloseCents !== book.prevCloseCents)) &&
      volume < book.volGeUp &&
      volume <= book.volLeUp &&
      volume >= book.volGeDown &&
      volume > book.volLeDown
    ) {
      return 0;
    }
    const before = out.length;
    // Each structure whose own range holds the tick moves nothing either.
    const ladders = book.ladders;
    for (let i = 0; i < ladders.length; i++) {
      const ladder = ladders[i]!;
      if (ladder.bounded && ladder.day === day && ladder.waiting.length === 0) {
        if (ladder.feed.byVolume) {
          if (
            volume < ladder.volGeUp &&
            volume <= ladder.volLeUp &&
            volume >= ladder.volGeDown &&
            volume > ladder.volLeDown
          ) {
            continue;
          }
        } else if (
          cents > ladder.downCents &&
          cents < ladder.upCents &&
          (prevCloseCents === ladder.boundPrevClose || ladder.feed.source !== 'changepct')
        ) {
          continue;
        }
      }
      ladder.evaluate(ladder.feed.value(cents, volume, prevCloseCents), day, out);
    }
    const groups = book.groups;
    for (let i = 0; i < groups.length; i++) {
      const group = groups[i]!;
      const own = group.range;
      if (cents > own.lo && cents < own.hi && group.day === day && group.waiting.length === 0) continue;
      own.lo = Infinity;
      own.hi = -Infinity;
      group.evaluate(cents, volume, prevCloseCents, day, out);
    }
    if (this.doomed.length > 0) {
      for (const alert of this.doomed) if (this.byKey.get(alert.key) === alert) this.remove(alert.key);
      this.doomed = [];
    }
    this.bound(book, cents, volume, prevCloseCents, day);
    return out.length - before;
  }

  /** Sets where the book's next tick may move nothing, after an evaluation at `cents`. */
  private bound(book: Book, cents: number, volume: number, prevCloseCents: number, day: string): void {
    const range = book.range;
    range.lo = -Infinity;
    range.hi = Infinity;
    book.volGeUp = Infinity;
    book.volLeUp = Infinity;
    book.volGeDown = -Infinity;
    book.volLeDown = -Infinity;
    book.day = day;
    book.prevCloseCents = prevCloseCents;
    let whole = false;
    for (const ladder of book.ladders) {
      if (ladder.waiting.length > 0) {
        // A source unknown all day (too short a history) moves nothing, and admits nothing.
        if (!Number.isNaN(ladder.feed.value(cents, volume, prevCloseCents))) whole = true;
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
        if (ladder.downCents > range.lo) range.lo = ladder.downCents;
        if (ladder.upCents < range.hi) range.hi = ladder.upCents;
      }
    }
    for (const group of book.groups) {
      const own = group.range;
      if (own.lo < cents && cents < own.hi) {
        // Not evaluated on this tick: its range still holds.
        if (own.lo > range.lo) range.lo = own.lo;
        if (own.hi < range.hi) range.hi = own.hi;
        continue;
      }
      own.lo = -Infinity;
      own.hi = Infinity;
      const narrowed = group.probe.narrow(cents, own);
      if (narrowed === 'opaque' || (narrowed === 'narrowed' && group.waiting.length > 0)) {
        own.lo = Infinity;
        own.hi = -Infinity;
        whole = true;
        continue;
      }
      if (own.lo > range.lo) range.lo = own.lo;
      if (own.hi < range.hi) range.hi = own.hi;
    }
    if (whole || !(range.lo < cents && cents < range.hi)) this.unbound(book);
  }

  /** The book's next tick is evaluated in full. */
  private unbound(book: Book): void {
    book.range.lo = Infinity;
    book.range.hi = -Infinity;
  }

  /** After a day close: every source reads its finished days again, and moving levels are set afresh. */
  roll(): void {
    this.feeds.refresh();
    for (const book of this.books.values()) {
      this.unbound(book);
      for (const ladder of book.ladders) ladder.roll();
      for (const group of book.groups) {
        group.range.lo = Infinity;
        group.range.hi = -Infinity;
      }
    }
  }

  /** The armed alerts of a symbol, in the order they were armed. */
  alertsOf(symbol: string): ArmedAlert[] {
    return [...(this.books.get(symbol)?.alerts ?? [])];
  }

  /** Every armed alert. */
  all(): IterableIterator<ArmedAlert> {
    return this.byKey.values();
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
