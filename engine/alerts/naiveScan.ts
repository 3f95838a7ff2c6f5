/**
 * The obvious way to evaluate alerts, and the index's reference: on every tick, look at every armed alert, read
 * its values, and apply the operator's definition (`semantics.ts`) and the frequency's rule to the alert's own
 * previous values. No organisation; the property tests check that the index fires exactly what this fires,
 * and the benchmark measures the index against it.
 *
 * Per alert: its first tick only sets its previous values (edge operators) or fires when the condition holds
 * (level operators); then `once` fires the first time and stops; `once_per_bar` fires when it holds (level) or
 * on the edge, at most once per trading day; `every_time` fires on each edge, or each time a level condition
 * holds after not holding.
 */
import { ConditionProbe, edgeOf, isEdgeOp, truthOf } from './semantics.ts';
import { FeedBook, fromUnits, type HistoryLookup } from './series.ts';
import type { ArmedAlert } from './alertIndex.ts';

interface Watch {
  readonly alert: ArmedAlert;
  readonly probe: ConditionProbe;
  alive: boolean;
  seen: boolean;
  pv: number;
  plo: number;
  phi: number;
  lastTruth: boolean;
  firedDay: string | null;
  firings: number;
}

/** Every armed alert in one list, scanned in full on each tick. */
export class NaiveAlertScan {
  private readonly watches: Watch[] = [];
  /** Where each key's latest alert sits in the list. */
  private readonly positions = new Map<string, number>();
  private readonly feeds: FeedBook;

  /** A scan of `alerts` reading each symbol's finished days from `history`. */
  constructor(alerts: Iterable<ArmedAlert>, history: HistoryLookup = () => undefined) {
    this.feeds = new FeedBook(history);
    for (const alert of alerts) this.add(alert);
  }

  /** Arms an alert (replacing one of the same key); its frequency state starts from the alert's. */
  add(alert: ArmedAlert): void {
    this.remove(alert.key);
    this.positions.set(alert.key, this.watches.length);
    this.watches.push({
      alert,
      probe: new ConditionProbe(alert.condition, alert.symbol, this.feeds),
      alive: true,
      seen: false,
      pv: NaN,
      plo: NaN,
      phi: NaN,
      lastTruth: alert.firings > 0,
      firedDay: alert.firedDay,
      firings: alert.firings,
    });
  }

  /** Disarms an alert. */
  remove(key: string): void {
    const at = this.positions.get(key);
    if (at !== undefined) this.watches[at]!.alive = false;
  }

  /**
   * Evaluates a tick of `symbol` against every alert on trading day `day`; appends those it fires to `out`
   * (the alert objects given, unchanged) and answers how many. `values`, when given, receives each fired
   * alert's source value (dollars for price-like series).
   */
  evaluate(
    symbol: string,
    cents: number,
    volume: number,
    prevCloseCents: number,
    day: string,
    out: ArmedAlert[],
    values?: number[],
  ): number {
    let fired = 0;
    for (const w of this.watches) {
      if (!w.alive || w.alert.symbol !== symbol) continue;
      const probe = w.probe;
      if (!probe.read(cents, volume, prevCloseCents)) continue;
      const { op, source } = w.alert.condition;
      const frequency = w.alert.frequency;
      const { v, lo, hi } = probe;
      const truth = truthOf(op, v, lo, hi);
      const edge = isEdgeOp(op);
      let fires: boolean;
      if (!w.seen) {
        fires = !edge && truth && (frequency !== 'every_time' || !w.lastTruth);
      } else if (edge) {
        fires = edgeOf(op, w.pv, w.plo, w.phi, v, lo, hi);
      } else {
        fires = frequency === 'every_time' || frequency === 'once' ? truth && !w.lastTruth : truth;
      }
      if (fires && (frequency === 'once_per_bar' || frequency === 'once_per_bar_close')) {
        fires = w.firedDay !== day;
      }
      w.seen = true;
      w.pv = v;
      w.plo = lo;
      w.phi = hi;
      w.lastTruth = truth;
      if (fires) {
        w.firings += 1;
        w.firedDay = day;
        if (frequency === 'once') w.alive = false;
        out.push(w.alert);
        values?.push(fromUnits(source, w.probe.sourceValue(cents, volume, prevCloseCents)));
        fired += 1;
      }
    }
    return fired;
  }

  /** After a day close: every source reads its finished days again. */
  roll(): void {
    this.feeds.refresh();
  }

  /** How many alerts are armed. */
  get size(): number {
    return this.watches.filter((w) => w.alive).length;
  }
}
