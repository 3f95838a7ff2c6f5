/**
 * An alert in few words, as the dashboard's panel and the price chart's list show it: a price or SMA alert
 * shortly (`rises to 190.00`), any other condition in the server's words, and the way it waits for the source
 * to go (▲, ▼, or ◆ for a crossing either way or a channel).
 */
import { opDirection } from '../../domain/alerts/conditions.ts';
import type { AlertAnswer } from '../../domain/contract/alerts.ts';

/** What an alert waits for, in words: a price or SMA alert shortly, any other condition as the server writes it. */
export function alertText(
  alert: Pick<AlertAnswer, 'kind' | 'alerttype' | 'threshold' | 'period' | 'conditiontext'>,
): string {
  if (alert.kind === 'SMA') {
    return `${alert.alerttype === 'U' ? 'crosses above' : 'crosses below'} SMA ${alert.period ?? ''}`.trim();
  }
  if (alert.kind === 'PRICE' && alert.threshold !== null) {
    return `${alert.alerttype === 'U' ? 'rises to' : 'falls to'} ${alert.threshold.toFixed(2)}`;
  }
  return alert.conditiontext;
}

/** The way an alert waits for the source to go: `up`, `down`, or null (crossing either way, a channel). */
export function alertWay(alert: Pick<AlertAnswer, 'kind' | 'alerttype' | 'condition'>): 'up' | 'down' | null {
  if (alert.kind !== 'CONDITION' && alert.alerttype !== null) return alert.alerttype === 'U' ? 'up' : 'down';
  return opDirection(alert.condition.op);
}

/** ▲, ▼, or ◆ for a crossing either way or a channel (as the price chart's list of alerts marks them). */
export const wayMark = (way: 'up' | 'down' | null): string => (way === 'up' ? '▲' : way === 'down' ? '▼' : '◆');
