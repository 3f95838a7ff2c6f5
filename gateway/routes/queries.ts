/**
 * Saved-query routes: save (or replace by name), list and delete a user's screener queries.
 */
import { queriesApi } from '../../domain/contract/queries.ts';
import { type QueryAnswer } from '../../domain/contract/queries.ts';
import { isDomainError } from '../../domain/decider.ts';
import { STOCKPULSE_NAMESPACE, isUuid, uuidV5 } from '../../domain/ids.ts';
import {
  QUERIES_CONCERN,
  findQueryByName,
  normaliseQuery,
  queriesDecider,
  type NormalisedQuery,
  type QueriesState,
  type SavedQuery,
} from '../../domain/queries/queries.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { readDocument } from '../../projections/projection.ts';
import { queriesProjection } from '../../projections/queries/queries.projection.ts';
import type { CommandService } from '../commands.ts';
import { ApiError, notFound } from '../errors.ts';
import { defineRoute, markPosition } from '../http/route.ts';

/** What the saved-query routes need. */
export interface QueriesDeps {
  /** Runs the commands on the user's stream. */
  readonly commands: CommandService;
  /** The read models the GET routes answer from. */
  readonly readModels: ReadModelStore;
}

const concern = { concern: QUERIES_CONCERN, decider: queriesDecider };

export type { QueryAnswer };

/** A saved query in the API's shape. */
export function queryView(saved: SavedQuery): QueryAnswer {
  return {
    id: saved.id,
    queryname: saved.queryname,
    query: saved.query,
    type: saved.type,
  };
}

/**
 * Checks a save with the domain's rules, naming the field as the request spells it: `body.query[1] …` for
 * the object form, `body[1] …` for a bare list.
 */
function normalised(input: Parameters<typeof normaliseQuery>[0], bareList: boolean): NormalisedQuery {
  try {
    return normaliseQuery(input);
  } catch (error) {
    if (!isDomainError(error)) throw error;
    const message = bareList ? error.message.replace(/^query/, 'body') : `body.${error.message}`;
    throw new ApiError(400, error.code, message);
  }
}

/** The saved-query routes. */
export function queriesRoutes(deps: QueriesDeps) {
  return [
    defineRoute({
      ...queriesApi.postStockalertquery,
      handle: async ({ body, meta }) => {
        const bareList = Array.isArray(body);
        const input = bareList
          ? { queryname: null, query: body, type: null }
          : { queryname: body.queryname ?? null, query: body.query, type: body.type ?? null };
        const next = normalised(input, bareList);
        const m = meta();
        const outcome = await deps.commands.execute(
          concern,
          { type: 'SaveQuery', data: { queryId: uuidV5(`${m.commandId}/query`, STOCKPULSE_NAMESPACE), ...next } },
          m,
        );
        const event = outcome.events[0];
        const saved =
          event !== undefined && event.type !== 'QueryDeleted'
            ? outcome.state.queries.find((q) => q.id === event.data.queryId)
            : findQueryByName(outcome.state, next.queryname);
        if (!saved) throw notFound(`body.queryname: no saved query ${JSON.stringify(next.queryname)}`);
        return queryView(saved);
      },
    }),
    defineRoute({
      ...queriesApi.getStockalertquery,
      handle: async ({ userId, ctx }) => {
        const doc = await readDocument<QueriesState>(deps.readModels, queriesProjection, userId);
        markPosition(ctx, doc?.position);
        return (doc?.value.queries ?? []).map(queryView);
      },
    }),
    defineRoute({
      ...queriesApi.postDelstkalertqryById,
      handle: async ({ params, meta }) => {
        const queryId = params.id.toLowerCase();
        if (!isUuid(queryId)) throw notFound(`params.id: no saved query ${JSON.stringify(params.id)}`);
        await deps.commands.execute(concern, { type: 'DeleteQuery', data: { queryId } }, meta());
        return { id: queryId, deleted: true as const };
      },
    }),
  ];
}
