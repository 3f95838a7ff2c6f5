/**
 * Events as the engine appends them, for the projections' tests and benchmarks that feed a log.
 */
import { randomUUID } from 'node:crypto';
import type { EventData } from '../../platform/eventstore/port.ts';

/**
 * The `AlertTriggered` of a user's price alert on AAPL (rose above 100.00) at `price` dollars and ISO time `at`,
 * with the engine's message unless `message` is given.
 */
export function priceAlertTriggered(
  userId: string,
  alertId: string,
  price: number,
  at: string,
  message = `AAPL rose above 100.00 (now ${price.toFixed(2)}, +1.25% on the day)`,
): EventData {
  return {
    id: randomUUID(),
    type: 'AlertTriggered',
    data: {
      alertId,
      symbol: 'AAPL',
      kind: 'PRICE',
      alerttype: 'U',
      threshold: 100,
      period: null,
      price,
      changepct: 1.25,
      sma: null,
      value: price,
      notificationtype: 1,
      message,
      at,
    },
    metadata: { userId, actor: 'engine' },
  };
}
