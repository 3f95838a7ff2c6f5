import { queriesDecider, type QueriesEvent, type QueriesState } from '../../domain/queries/queries.ts';
import { deciderProjection, type Projection } from '../projection.ts';

/** `GET /personalize/stockalertquery`: each user's saved queries, folded with the decider's own `evolve`. */
export const queriesProjection: Projection<QueriesState> = deciderProjection('queries', 1, queriesDecider, [
  'QuerySaved',
  'QueryReplaced',
  'QueryDeleted',
] satisfies QueriesEvent['type'][]);
