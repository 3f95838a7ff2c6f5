/**
 * Screener routes: the preset searches (the six of the product, then the signals), and a run of a query of the
 * screener language over the latest row of every stock.
 */
import { screenerApi } from '../../domain/contract/screener.ts';
import { isDomainError } from '../../domain/decider.ts';
import {
  SCREENER_PRESETS,
  SCREENER_ROW_COUNT,
  validateQuery,
  type LabelledClause,
} from '../../domain/screener/query.ts';
import type { MarketData } from '../../engine/market/marketData.ts';
import { runScreener } from '../../engine/screener/screener.ts';
import { ApiError } from '../errors.ts';
import { defineRoute } from '../http/route.ts';

/** What the screener routes need. */
export interface ScreenerDeps {
  /** The market data service. */
  readonly market: MarketData;
}

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
      ...screenerApi.getScreenerPresets,
      handle: async () => Promise.resolve(SCREENER_PRESETS),
    }),
    defineRoute({
      ...screenerApi.postScreenerRun,
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
