/**
 * Screener routes: the six preset searches of the product, and a run of a query of the screener language over
 * the latest row of every stock.
 */
import { z } from 'zod';
import { isDomainError } from '../../domain/decider.ts';
import { MAX_CLAUSES, SCREENER_PRESETS, validateQuery, type LabelledClause } from '../../domain/screener/query.ts';
import type { MarketData } from '../../engine/market/marketData.ts';
import { runScreener, SCREENER_ROW_COUNT, SORT_FIELDS } from '../../engine/screener/screener.ts';
import { ApiError } from '../errors.ts';
import { defineRoute } from '../http/route.ts';

/** What the screener routes need. */
export interface ScreenerDeps {
  /** The market data service. */
  readonly market: MarketData;
}

/** Most rows one run answers. */
export const SCREENER_LIMIT_MAX = 1000;

const labelledClause = z.object({ label: z.string(), query: z.record(z.string(), z.unknown()) });

const runBody = z.object(
  {
    query: z
      .array(z.unknown(), { error: 'must be a list of clauses' })
      .max(MAX_CLAUSES, `must hold at most ${MAX_CLAUSES} clauses`),
    limit: z
      .int(`must be a whole number from 0 to ${SCREENER_LIMIT_MAX}`)
      .min(0, `must be a whole number from 0 to ${SCREENER_LIMIT_MAX}`)
      .max(SCREENER_LIMIT_MAX, `must be a whole number from 0 to ${SCREENER_LIMIT_MAX}`)
      .optional(),
    sort: z
      .object({
        field: z.enum(SORT_FIELDS, { error: `must be one of ${SORT_FIELDS.join(', ')}` }),
        dir: z.enum(['asc', 'desc'], { error: 'must be asc or desc' }),
      })
      .optional(),
  },
  { error: 'must be {query, limit?, sort?}' },
);

/** Checks the clauses with the screener language, naming the bad clause as the request has it (`body.query[1]`). */
function checkedQuery(input: unknown): LabelledClause[] {
  try {
    return validateQuery(input, { allowEmpty: true });
  } catch (error) {
    if (!isDomainError(error)) throw error;
    throw new ApiError(400, error.code, `body.${error.message}`);
  }
}

/** The screener routes. */
export function screenerRoutes(deps: ScreenerDeps) {
  const { market } = deps;
  return [
    defineRoute({
      method: 'GET',
      path: '/api/screener/presets',
      summary: 'The six preset searches of the product, as queries of the screener language',
      tag: 'screener',
      access: 'user',
      response: z.array(z.object({ name: z.string(), query: z.array(labelledClause) })),
      handle: async () => Promise.resolve(SCREENER_PRESETS),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/screener/run',
      summary: `Run a query (clauses ANDed; an empty list matches every stock) over the latest row of every stock: the first limit rows (default ${SCREENER_ROW_COUNT}) in the sort order (market cap, largest first, by default), and how many matched`,
      tag: 'screener',
      access: 'user',
      body: runBody,
      response: z.object({
        rows: z.array(
          z.object({
            symbol: z.string(),
            name: z.string(),
            sector: z.string(),
            close: z.number(),
            changepct: z.number(),
            marketcap: z.number(),
            capclass: z.string(),
            SMA_50: z.number().nullable(),
            SMA_200: z.number().nullable(),
            rsi_14: z.number().nullable(),
            patterns: z.array(z.string()),
          }),
        ),
        total: z.number(),
      }),
      handle: async ({ body }) => {
        const query = checkedQuery(body.query);
        return Promise.resolve(
          runScreener(market.screenerInputs(), query, {
            limit: body.limit ?? SCREENER_ROW_COUNT,
            ...(body.sort ? { sort: body.sort } : {}),
          }),
        );
      },
    }),
  ];
}
