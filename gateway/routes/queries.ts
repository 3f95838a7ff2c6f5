/**
 * Saved-query routes: save (or replace by name), list and delete a user's screener queries.
 */
import { z } from 'zod';
import { PLAIN_TEXT_MESSAGE, isPlainText } from '../../domain/text.ts';
import { isDomainError } from '../../domain/decider.ts';
import { STOCKPULSE_NAMESPACE, isUuid, uuidV5 } from '../../domain/ids.ts';
import {
  QUERIES_CONCERN,
  QUERYNAME_MAX_LENGTH,
  QUERY_TYPE_MAX_LENGTH,
  findQueryByName,
  normaliseQuery,
  queriesDecider,
  type NormalisedQuery,
  type QueriesState,
  type SavedQuery,
} from '../../domain/queries/queries.ts';
import { MAX_CLAUSES, type LabelledClause } from '../../domain/screener/query.ts';
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

const queryAnswer = z.object({
  id: z.string(),
  queryname: z.string(),
  query: z.array(z.object({ label: z.string(), query: z.record(z.string(), z.unknown()) })),
  type: z.string(),
});

/** A saved query as the API answers it: the clauses as a list, not a string. */
export interface QueryAnswer {
  /** The query id. */
  readonly id: string;
  /** Its name. */
  readonly queryname: string;
  /** Its labelled clauses. */
  readonly query: readonly LabelledClause[];
  /** Its type. */
  readonly type: string;
}

/** The clauses; each is checked by the screener query language, whose refusal names the clause. */
const clauses = z
  .array(z.unknown())
  .min(1, 'must hold at least one clause')
  .max(MAX_CLAUSES, `must hold at most ${MAX_CLAUSES} clauses`);

/** `{queryname, query, type?}`, or the bare clause list (the name is then made from the labels). */
const saveBody = z.union(
  [
    clauses,
    z.object({
      queryname: z
        .string()
        .refine(isPlainText, PLAIN_TEXT_MESSAGE)
        .trim()
        .min(1, 'must not be empty')
        .max(QUERYNAME_MAX_LENGTH, `must be at most ${QUERYNAME_MAX_LENGTH} characters`)
        .nullish(),
      query: clauses,
      type: z
        .string()
        .refine(isPlainText, PLAIN_TEXT_MESSAGE)
        .trim()
        .min(1, 'must not be empty')
        .max(QUERY_TYPE_MAX_LENGTH, `must be at most ${QUERY_TYPE_MAX_LENGTH} characters`)
        .nullish(),
    }),
  ],
  'must be {queryname, query, type?} or a list of clauses',
);

const idParams = z.object({
  id: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
});

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
      method: 'POST',
      path: '/personalize/stockalertquery',
      summary: 'Save a screener query; saving under a name already used (any case) replaces that query',
      tag: 'saved queries',
      access: 'user',
      body: saveBody,
      response: queryAnswer,
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
      method: 'GET',
      path: '/personalize/stockalertquery',
      summary: "The user's saved queries, oldest first",
      tag: 'saved queries',
      access: 'user',
      response: z.array(queryAnswer),
      handle: async ({ userId, ctx }) => {
        const doc = await readDocument<QueriesState>(deps.readModels, queriesProjection, userId);
        markPosition(ctx, doc?.position);
        return (doc?.value.queries ?? []).map(queryView);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/personalize/delstkalertqry/:id',
      summary: "Delete one of the user's saved queries",
      tag: 'saved queries',
      access: 'user',
      params: idParams,
      response: z.object({ id: z.string(), deleted: z.literal(true) }),
      handle: async ({ params, meta }) => {
        const queryId = params.id.toLowerCase();
        if (!isUuid(queryId)) throw notFound(`params.id: no saved query ${JSON.stringify(params.id)}`);
        await deps.commands.execute(concern, { type: 'DeleteQuery', data: { queryId } }, meta());
        return { id: queryId, deleted: true as const };
      },
    }),
  ];
}
