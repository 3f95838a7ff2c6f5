/**
 * The feed ingestion route of the API: an external feed handler pushes ticks with the bearer feed token; they
 * go on the tick bus to the engine.
 */
import { z } from './zod.ts';
import { ALERT_THRESHOLD_MAX, toCents } from '../alerts/alerts.ts';
import { SYMBOL_PATTERN } from '../symbol.ts';
import { symbolSchema } from './common.ts';
import { route } from './route.ts';

/** Highest price a tick may carry, in dollars (the alerts' highest threshold). */
export const TICK_PRICE_MAX = ALERT_THRESHOLD_MAX;

/** Most ticks in one request. */
export const FEED_MAX_TICKS = 5000;

const PRICE_RULE = `must be a number of dollars from 0.01 to ${TICK_PRICE_MAX}`;
const SIZE_RULE = 'must be a whole number of shares, 0 or more';
const TS_RULE = 'must be a whole number of milliseconds since the epoch';

/** One tick as a feed sends it; `size` defaults to 0 and `ts` (epoch ms) to the time of arrival. */
export const feedTick = z.strictObject({
  symbol: symbolSchema,
  price: z
    .number(PRICE_RULE)
    .positive(PRICE_RULE)
    .max(TICK_PRICE_MAX, PRICE_RULE)
    .refine((p) => toCents(p) >= 1, PRICE_RULE),
  size: z.int(SIZE_RULE).min(0, SIZE_RULE).max(Number.MAX_SAFE_INTEGER, SIZE_RULE).optional(),
  ts: z
    .int(TS_RULE)
    .min(0, TS_RULE)
    .max(Number.MAX_SAFE_INTEGER, TS_RULE)
    .optional()
    .describe(
      "The trade's time in epoch ms (default: the time of arrival). A tick older than the symbol's latest of the session (reported late) adds its size and widens the day's range, but moves no price and fires no alert",
    ),
});

/** The body of the feed route. */
export const feedBody = z
  .array(feedTick)
  .min(1, 'must hold at least one tick')
  .max(FEED_MAX_TICKS, `must hold at most ${FEED_MAX_TICKS} ticks`);

/** A tick of {@link feedBody}'s answer. */
export type FeedTick = z.output<typeof feedTick>;

const isCount = (x: unknown): boolean => x === undefined || (Number.isSafeInteger(x) && (x as number) >= 0);

/**
 * Whether `raw` is a body {@link feedBody} accepts as it is: its answer would hold the same symbols, prices,
 * sizes and times (symbols already upper case and trimmed, no key but those four).
 * A check of the parsed JSON in place, for the route's every request: the schema's parse made about 1.2 KB of
 * garbage per tick, a quarter of what the gateway allocated under the latency benchmark's 5,000 ticks a second
 * (sampled over its 6.4 s of measurement: 150 MB with the parse, 111 MB with this check, the route's share from
 * 46 MB to 11 MB), so a quarter of its young-generation collections, each of which holds up the event loop. It
 * answers false for some bodies the schema accepts (lower-case symbols, prices under a cent that round to one):
 * the route then takes the schema's answer, or its refusal naming the field.
 */
export function isPlainFeedBody(raw: unknown): raw is FeedTick[] {
  if (!Array.isArray(raw) || raw.length < 1 || raw.length > FEED_MAX_TICKS) return false;
  for (let i = 0; i < raw.length; i++) {
    const t: unknown = raw[i];
    if (typeof t !== 'object' || t === null || Array.isArray(t)) return false;
    // Any other key falls to the schema, which names it; counted in place, without a list of the keys.
    for (const key in t) if (key !== 'symbol' && key !== 'price' && key !== 'size' && key !== 'ts') return false;
    const { symbol, price, size, ts } = t as Record<string, unknown>;
    if (typeof symbol !== 'string' || !SYMBOL_PATTERN.test(symbol)) return false;
    if (typeof price !== 'number' || !(price >= 0.01 && price <= TICK_PRICE_MAX)) return false;
    if (!isCount(size) || !isCount(ts)) return false;
  }
  return true;
}

/** The feed route. */
export const feedApi = {
  postFeedTicks: route({
    method: 'POST',
    path: '/api/feed/ticks',
    summary: `Push 1-${FEED_MAX_TICKS} ticks (Authorization: Bearer <FEED_TOKEN>) to the engine; answered once the bus has them for good (in one process: evaluated, the alerts they fired recorded); absent (404) when the server has no feed token`,
    tag: 'feed',
    access: 'feed',
    body: feedBody,
    response: z.object({ accepted: z.number().int() }),
    status: 202,
  }),
};
