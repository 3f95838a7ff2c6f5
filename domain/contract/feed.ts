/**
 * The feed ingestion route of the API: an external feed handler pushes ticks with the bearer feed token; they
 * go on the tick bus to the engine.
 */
import { z } from './zod.ts';
import { ALERT_THRESHOLD_MAX, toCents } from '../alerts/alerts.ts';
import { symbolSchema } from './common.ts';
import { route } from './route.ts';

/** Highest price a tick may carry, in dollars (the alerts' highest threshold). */
export const TICK_PRICE_MAX = ALERT_THRESHOLD_MAX;

/** Most ticks in one request. */
export const FEED_MAX_TICKS = 5000;

/** One tick as a feed sends it; `size` defaults to 0 and `ts` (epoch ms) to the time of arrival. */
export const feedTick = z.object({
  symbol: symbolSchema,
  price: z
    .number()
    .positive()
    .max(TICK_PRICE_MAX)
    .refine((p) => toCents(p) >= 1, 'must be at least 0.01'),
  size: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  ts: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
});

/** The body of the feed route. */
export const feedBody = z
  .array(feedTick)
  .min(1, 'must hold at least one tick')
  .max(FEED_MAX_TICKS, `must hold at most ${FEED_MAX_TICKS} ticks`);

/** The feed route. */
export const feedApi = {
  postFeedTicks: route({
    method: 'POST',
    path: '/api/feed/ticks',
    summary: `Push 1-${FEED_MAX_TICKS} ticks (Authorization: Bearer <FEED_TOKEN>) to the engine; absent (404) when the server has no feed token`,
    tag: 'feed',
    access: 'feed',
    body: feedBody,
    response: z.object({ accepted: z.number().int() }),
    status: 202,
  }),
};
