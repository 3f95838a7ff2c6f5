/**
 * The market movers route of the API: the universe's top gainers, top losers and most active symbols.
 */
import { z } from './zod.ts';
import { wholeNumber } from './common.ts';
import { quoteAnswer } from './market.ts';
import { route } from './route.ts';

/** Symbols each list of movers holds, at most and by default. */
export const MOVERS_LIMIT = { max: 50, default: 5 } as const;

/** A mover: its quote and company name. */
export const moverAnswer = quoteAnswer.extend({ name: z.string() });

/** A mover as the API answers it. */
export type Mover = z.infer<typeof moverAnswer>;

/** The three lists: gainers (highest % change first), losers (lowest first), most active (highest volume first). */
export const moversAnswer = z.object({
  gainers: z.array(moverAnswer),
  losers: z.array(moverAnswer),
  active: z.array(moverAnswer),
});

/** The movers as the API answers them. */
export type Movers = z.infer<typeof moversAnswer>;

/** The movers route. */
export const moversApi = {
  getMarketMovers: route({
    method: 'GET',
    path: '/api/market/movers',
    summary: `The universe's top gainers and losers by % change and most active by volume, ${MOVERS_LIMIT.default} each unless limit says (1-${MOVERS_LIMIT.max})`,
    tag: 'market',
    access: 'user',
    query: z.strictObject({ limit: wholeNumber(1, MOVERS_LIMIT.max).default(MOVERS_LIMIT.default) }),
    response: moversAnswer,
  }),
};
