/**
 * The obvious way to evaluate alerts: look at every armed alert on every tick. Same rules and arithmetic as
 * {@link AlertIndex}, no organisation; it is the index's reference in tests and its baseline in the benchmark.
 */
import type { ArmedAlert, SmaBaseLookup } from './alertIndex.ts';

/** Every armed alert in one list, scanned in full on each tick. */
export class NaiveAlertScan {
  private readonly alerts: ArmedAlert[] = [];
  private readonly armed: boolean[] = [];
  /** Where each key's latest alert sits in the list. */
  private readonly positions = new Map<string, number>();

  /** A scan reading moving-average levels from `smaBase`. */
  constructor(
    alerts: Iterable<ArmedAlert>,
    private readonly smaBase: SmaBaseLookup,
  ) {
    for (const alert of alerts) this.add(alert);
  }

  /** Arms an alert (replacing one of the same key). */
  add(alert: ArmedAlert): void {
    this.remove(alert.key);
    this.positions.set(alert.key, this.alerts.length);
    this.alerts.push(alert);
    this.armed.push(true);
  }

  /** Disarms an alert. */
  remove(key: string): void {
    const at = this.positions.get(key);
    if (at !== undefined) this.armed[at] = false;
  }

  /** Evaluates a tick against every alert; appends those it fires to `out` and answers how many. */
  evaluate(symbol: string, prevCents: number, cents: number, out: ArmedAlert[]): number {
    let fired = 0;
    const alerts = this.alerts;
    for (let i = 0; i < alerts.length; i++) {
      const alert = alerts[i]!;
      if (!this.armed[i] || alert.symbol !== symbol) continue;
      let fires: boolean;
      if (alert.kind === 'PRICE') {
        fires = alert.alerttype === 'U' ? cents >= alert.thresholdCents! : cents <= alert.thresholdCents!;
      } else {
        const base = this.smaBase(symbol, alert.period!) ?? NaN;
        const m = alert.period! - 1;
        fires =
          alert.alerttype === 'U'
            ? m * prevCents < base && m * cents >= base
            : m * prevCents > base && m * cents <= base;
      }
      if (fires) {
        this.armed[i] = false;
        out.push(alert);
        fired += 1;
      }
    }
    return fired;
  }

  /** How many alerts are armed. */
  get size(): number {
    return this.armed.filter(Boolean).length;
  }
}
