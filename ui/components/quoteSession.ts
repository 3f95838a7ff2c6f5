/**
 * Which session a live quote is of, told by its previous close: one a day on New York hours, and on the demo
 * clock one per session of a few minutes (the quotes carry no session date, and their New York date runs behind
 * the sessions').
 */
import type { Quote } from '../../domain/market/types.ts';

/** Previous closes (in dollars) this close are one: the quotes' rounding (4 decimals), not another session's. */
const SAME_CLOSE_TOLERANCE = 0.001;

/** The previous close of a quote's session (where its day opened): its price less its change. */
export function previousCloseOf(quote: Quote): number {
  return Math.round((quote.price - quote.change) * 10_000) / 10_000;
}

/** Whether two previous closes are of one session; an unknown one (undefined) is taken to be. */
export function sameSession(previousClose: number | undefined, other: number): boolean {
  return previousClose === undefined || Math.abs(previousClose - other) <= SAME_CLOSE_TOLERANCE;
}
