/**
 * Saved screener queries: a user keeps named queries of the screener query language to run again. Saving under
 * a name the user already has (case and surrounding spaces aside) replaces that query and keeps its id.
 */
import { DomainError, type Decider, type DomainEvent, eventTypes, unknownCommand } from '../decider.ts';
import { isUuid } from '../ids.ts';
import { validateQuery, type LabelledClause } from '../screener/query.ts';

/** The concern name of saved-query streams (`queries-<userId>`). */
export const QUERIES_CONCERN = 'queries';

/** Most saved queries one user may hold. */
export const QUERIES_LIMIT = 100;

/** Longest query name, in characters. */
export const QUERYNAME_MAX_LENGTH = 80;

/** Longest query type, in characters. */
export const QUERY_TYPE_MAX_LENGTH = 40;

/** The type of a saved query when the client names none. */
export const DEFAULT_QUERY_TYPE = 'custom';

/** One saved query as the user sees it. */
export interface SavedQuery {
  /** The query id, derived from the id of the command that first saved it. */
  readonly id: string;
  /** The name, 1–80 characters, unique per user regardless of case. */
  readonly queryname: string;
  /** The clauses, validated and normalised by the screener query language. */
  readonly query: readonly LabelledClause[];
  /** A free label of the client's choosing (1–40 characters), `custom` by default. */
  readonly type: string;
}

/** Saves a query: a new one, or a replacement of the one with the same name. */
export type SaveQuery = DomainEvent<
  'SaveQuery',
  {
    /** The id a new query gets (derived from the command id); a replaced query keeps its own. */
    readonly queryId: string;
    /** The name; null to make it from the clauses' labels. */
    readonly queryname: string | null;
    /** The clauses as sent: labelled clauses `{label, query}` or bare clauses `{type, param, op, val}`. */
    readonly query: unknown;
    /** The type; null for {@link DEFAULT_QUERY_TYPE}. */
    readonly type: string | null;
  }
>;

/** Deletes a saved query. */
export type DeleteQuery = DomainEvent<'DeleteQuery', { readonly queryId: string }>;

/** Every command of the saved-queries concern. */
export type QueriesCommand = SaveQuery | DeleteQuery;

/** The payload of a saved or replaced query. */
export interface QueryData {
  /** The query's id. */
  readonly queryId: string;
  /** Its name. */
  readonly queryname: string;
  /** Its normalised clauses. */
  readonly query: readonly LabelledClause[];
  /** Its type. */
  readonly type: string;
}

/** A new query was saved. */
export type QuerySaved = DomainEvent<'QuerySaved', QueryData>;

/** A saved query was replaced by one saved under the same name; it keeps its id and place. */
export type QueryReplaced = DomainEvent<'QueryReplaced', QueryData>;

/** A saved query was deleted. */
export type QueryDeleted = DomainEvent<'QueryDeleted', { readonly queryId: string }>;

/** Every event of the saved-queries concern. */
export type QueriesEvent = QuerySaved | QueryReplaced | QueryDeleted;

/** Every event type of the saved queries concern. */
export const QUERIES_EVENT_TYPES = eventTypes<QueriesEvent>()('QuerySaved', 'QueryReplaced', 'QueryDeleted');

/** A user's saved queries, oldest first. */
export interface QueriesState {
  /** The queries, in the order they were first saved. */
  readonly queries: readonly SavedQuery[];
}

/** A query as it will be stored: name, normalised clauses and type. */
export interface NormalisedQuery {
  /** The name, given or made from the labels. */
  readonly queryname: string;
  /** The validated, normalised clauses. */
  readonly query: LabelledClause[];
  /** The type. */
  readonly type: string;
}

/** A name made from clause labels: joined with ` and `, cut to {@link QUERYNAME_MAX_LENGTH} with `…`. */
export function queryNameFromLabels(labels: readonly string[]): string {
  const name = labels.join(' and ');
  return name.length <= QUERYNAME_MAX_LENGTH ? name : `${name.slice(0, QUERYNAME_MAX_LENGTH - 1).trimEnd()}…`;
}

/** The key under which names count as equal: trimmed and lower-cased. */
export function queryNameKey(name: string): string {
  return name.trim().toLowerCase();
}

/**
 * Checks a save: the name (1–80 characters once trimmed, or made from the labels), the clauses through the
 * screener query language's `validateQuery` (whose refusal names the clause), and the type (1–40 characters).
 */
export function normaliseQuery(input: Pick<SaveQuery['data'], 'queryname' | 'query' | 'type'>): NormalisedQuery {
  let queryname: string | null = null;
  if (input.queryname !== null) {
    const text = typeof input.queryname === 'string' ? input.queryname.trim() : '';
    if (text.length === 0 || text.length > QUERYNAME_MAX_LENGTH) {
      throw new DomainError(
        'invalid_queryname',
        `queryname must be a text of 1 to ${QUERYNAME_MAX_LENGTH} characters, got ${JSON.stringify(input.queryname)}`,
        'queryname',
      );
    }
    queryname = text;
  }
  let type = DEFAULT_QUERY_TYPE;
  if (input.type !== null) {
    const text = typeof input.type === 'string' ? input.type.trim() : '';
    if (text.length === 0 || text.length > QUERY_TYPE_MAX_LENGTH) {
      throw new DomainError(
        'invalid_type',
        `type must be a text of 1 to ${QUERY_TYPE_MAX_LENGTH} characters, got ${JSON.stringify(input.type)}`,
        'type',
      );
    }
    type = text;
  }
  const query = validateQuery(input.query);
  return { queryname: queryname ?? queryNameFromLabels(query.map((clause) => clause.label)), query, type };
}

/** The saved query of a name (case and surrounding spaces aside), if any. */
export function findQueryByName(state: QueriesState, name: string): SavedQuery | undefined {
  const key = queryNameKey(name);
  return state.queries.find((saved) => queryNameKey(saved.queryname) === key);
}

function parseQueryId(queryId: unknown): string {
  if (typeof queryId !== 'string' || !isUuid(queryId)) {
    throw new DomainError('invalid_id', `queryId ${JSON.stringify(queryId)} is not a query id`, 'queryId');
  }
  return queryId.toLowerCase();
}

function sameContent(saved: SavedQuery, next: NormalisedQuery): boolean {
  return (
    saved.queryname === next.queryname &&
    saved.type === next.type &&
    JSON.stringify(saved.query) === JSON.stringify(next.query)
  );
}

function decide(command: QueriesCommand, state: QueriesState): QueriesEvent[] {
  switch (command.type) {
    case 'SaveQuery': {
      const queryId = parseQueryId(command.data.queryId);
      const next = normaliseQuery(command.data);
      const existing = findQueryByName(state, next.queryname);
      if (existing) {
        if (sameContent(existing, next)) return [];
        return [{ type: 'QueryReplaced', data: { queryId: existing.id, ...next } }];
      }
      if (state.queries.some((saved) => saved.id === queryId)) {
        throw new DomainError('taken', `queryId ${queryId}: a query with this id exists`, 'queryId');
      }
      if (state.queries.length >= QUERIES_LIMIT) {
        throw new DomainError(
          'limit',
          `queries: already ${state.queries.length} saved; at most ${QUERIES_LIMIT}`,
          'queries',
        );
      }
      return [{ type: 'QuerySaved', data: { queryId, ...next } }];
    }
    case 'DeleteQuery': {
      const queryId = parseQueryId(command.data.queryId);
      if (!state.queries.some((saved) => saved.id === queryId)) {
        throw new DomainError('not_found', `queryId ${queryId}: no such saved query`, 'queryId');
      }
      return [{ type: 'QueryDeleted', data: { queryId } }];
    }
    default:
      throw unknownCommand(command, 'saved-queries');
  }
}

function savedQueryOf(data: QueryData): SavedQuery {
  return { id: data.queryId, queryname: data.queryname, query: data.query, type: data.type };
}

function evolve(state: QueriesState, event: QueriesEvent): QueriesState {
  switch (event.type) {
    case 'QuerySaved':
      return state.queries.some((saved) => saved.id === event.data.queryId)
        ? state
        : { queries: [...state.queries, savedQueryOf(event.data)] };
    case 'QueryReplaced': {
      const index = state.queries.findIndex((saved) => saved.id === event.data.queryId);
      if (index < 0) return state;
      const queries = [...state.queries];
      queries[index] = savedQueryOf(event.data);
      return { queries };
    }
    case 'QueryDeleted':
      return state.queries.some((saved) => saved.id === event.data.queryId)
        ? { queries: state.queries.filter((saved) => saved.id !== event.data.queryId) }
        : state;
    default: {
      // An event type this version does not know leaves the state as it is, so replaying the log never fails.
      const _exhaustive: never = event;
      return state;
    }
  }
}

/**
 * The saved queries' rules: valid clauses, names of 1–80 characters unique regardless of case (saving under
 * a taken name replaces), and at most {@link QUERIES_LIMIT} per user.
 */
export const queriesDecider: Decider<QueriesCommand, QueriesEvent, QueriesState> = {
  initialState: Object.freeze({ queries: Object.freeze([]) }),
  decide,
  evolve,
};
