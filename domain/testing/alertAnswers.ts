/**
 * Test data of the web app's suites: alerts as `GET /personalize/stockalerts` answers them, of AAPL and armed
 * unless the fields of `extra` say otherwise.
 */
import { conditionText, type AlertCondition } from '../alerts/conditions.ts';
import type { AlertAnswer } from '../contract/alerts.ts';

/** A price alert at `threshold`, going up. */
export function priceAlertAnswer(id: string, threshold: number, extra: Partial<AlertAnswer> = {}): AlertAnswer {
  return {
    id,
    symbol: 'AAPL',
    threshold,
    alerttype: 'U',
    kind: 'PRICE',
    status: 'armed',
    createdt: '2026-01-30T00:00:00Z',
    condition: { op: 'greater_than', source: 'price', value: threshold, lower: null, upper: null, bars: null },
    conditiontext: `Price is at or above ${threshold.toFixed(2)}`,
    frequency: 'once',
    expires: null,
    lastfired: null,
    triggercount: 0,
    note: null,
    channels: null,
    ...extra,
  };
}

/** A condition alert: the price at or above no level unless `condition` says otherwise, in the server's words. */
export function conditionAlertAnswer(
  id: string,
  condition: Partial<AlertAnswer['condition']>,
  extra: Partial<AlertAnswer> = {},
): AlertAnswer {
  const full: AlertAnswer['condition'] = {
    op: 'greater_than',
    source: 'price',
    value: null,
    lower: null,
    upper: null,
    bars: null,
    ...condition,
  };
  return {
    ...priceAlertAnswer(id, 0),
    threshold: null,
    alerttype: null,
    kind: 'CONDITION',
    condition: full,
    // The answer's sources are the contract's strings; the server writes them from `AlertSource`s.
    conditiontext: conditionText(full as AlertCondition),
    ...extra,
  };
}
