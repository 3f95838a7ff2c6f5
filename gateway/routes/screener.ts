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
import { runScreener, type ScreenerResult, type ScreenerRow } from '../../engine/screener/screener.ts';
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

/** A row of a run's answer: the engine's row with the shares outstanding of its company. */
type AnswerRow = ScreenerRow & { readonly shares: number };

/** The answer row of each run row, made once per row (the engine makes a new row when its stock's quote moves). */
const answerRows = new WeakMap<ScreenerRow, AnswerRow>();

/** A run's answer, each row with the shares outstanding of its company (every row is a company of the universe). */
function withShares(market: MarketData, result: ScreenerResult): { rows: AnswerRow[]; total: number } {
  const rows = result.rows.map((row) => {
    let answer = answerRows.get(row);
    if (answer === undefined) {
      // Rows are the universe's companies; a row without one is priced by its own cap and close.
      const shares = market.company(row.symbol)?.shares ?? (row.close > 0 ? row.marketcap / row.close : 0);
      answer = { ...row, shares };
      answerRows.set(row, answer);
    }
    return answer;
  });
  return { rows, total: result.total };
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
          withShares(
            market,
            runScreener(market.screenerInputs(), query, {
              limit: body.limit ?? SCREENER_ROW_COUNT,
              ...(body.sort ? { sort: body.sort } : {}),
            }),
          ),
        );
      },
    }),
  ];
}
