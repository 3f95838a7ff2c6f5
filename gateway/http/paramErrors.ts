/**
 * 404 answers about what a path names: they name the path parameter (`params.id`, `params.symbol`), never a
 * field of the command the route issued (`alertId`), which the client never sent.
 */
import { isDomainError } from '../../domain/decider.ts';
import { notFound } from '../errors.ts';

/**
 * A domain `not_found` about the object a route's `:id` names (`alertId 1f…: no such alert`), restated to name
 * the parameter (`params.id: no such alert 1f…`); any other error is answered as it is.
 */
export function restateNotFound(error: unknown, params: Readonly<Record<string, string>> | undefined): unknown {
  const id = params?.id;
  const field = isDomainError(error) && error.code === 'not_found' ? error.field : undefined;
  if (id === undefined || field === undefined || !(field.endsWith('Id') || field === 'params.id')) return error;
  const reason = /^\S+ \S+: (.+)$/.exec((error as Error).message)?.[1] ?? 'no such object';
  return notFound(`params.id: ${reason} ${id}`);
}

/** Refuses with 404 the removal of a symbol that a list did not hold (the command decided nothing). */
export function refuseAbsentSymbol(
  outcome: { readonly events: readonly unknown[] },
  symbol: string,
  list: string,
): void {
  if (outcome.events.length === 0) throw notFound(`params.symbol: ${symbol} is not on the ${list}`);
}
