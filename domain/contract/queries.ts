/**
 * The saved-query routes of the API: save (replacing one of the same name), list and delete screener queries.
 */
import { z } from './zod.ts';
import { QUERYNAME_MAX_LENGTH, QUERY_TYPE_MAX_LENGTH } from '../queries/queries.ts';
import { labelledClause } from './screener.ts';
import { deletedAnswer, idParams } from './common.ts';
import { route } from './route.ts';
import { PLAIN_TEXT_MESSAGE, isPlainText } from '../text.ts';
import { MAX_CLAUSES } from '../screener/query.ts';

/** A saved query as the API answers it: the clauses as a list, not a string. */
export const queryAnswer = z.object({
  id: z.string(),
  queryname: z.string(),
  query: z.array(labelledClause).readonly(),
  type: z.string(),
});

/** A saved query as the API answers it. */
export type QueryAnswer = z.infer<typeof queryAnswer>;

/** The clauses; each is checked by the screener query language, whose refusal names the clause. */
const clauses = z
  .array(z.unknown())
  .min(1, 'must hold at least one clause')
  .max(MAX_CLAUSES, `must hold at most ${MAX_CLAUSES} clauses`);

/** `{queryname, query, type?}`, or the bare clause list (the name is then made from the labels). */
const saveBody = z.union(
  [
    clauses,
    z.strictObject({
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

/** The queries routes. */
export const queriesApi = {
  postStockalertquery: route({
    method: 'POST',
    path: '/personalize/stockalertquery',
    summary: 'Save a screener query; saving under a name already used (any case) replaces that query',
    tag: 'saved queries',
    access: 'user',
    body: saveBody,
    response: queryAnswer,
  }),
  getStockalertquery: route({
    method: 'GET',
    path: '/personalize/stockalertquery',
    summary: "The user's saved queries, oldest first",
    tag: 'saved queries',
    access: 'user',
    response: z.array(queryAnswer),
  }),
  postDelstkalertqryById: route({
    method: 'POST',
    path: '/personalize/delstkalertqry/:id',
    summary: "Delete one of the user's saved queries",
    tag: 'saved queries',
    access: 'user',
    params: idParams,
    response: deletedAnswer,
  }),
};
