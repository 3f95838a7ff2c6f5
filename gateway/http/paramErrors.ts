/**
 * Refusals about what a path names (not found, or in a state that refuses the command): they name the path
 * parameter (`params.id`, `params.symbol`), never a field of the command the route issued (`alertId`), which
 * the client never sent.
 */
import { DomainError, isDomainError } from '../../domain/decider.ts';
import { notFound } from '../errors.ts';

/**
 * A domain refusal about the object a route's `:id` names, restated to name the parameter: `not_found`
 * (`alertId 1f…: no such alert`) as a 404 `params.id: no such alert 1f…`, any other (`alertId 1f…: the alert
 * is triggered, not armed`) with its own code as `params.id: the alert is triggered, not armed`; any other
 * error is answered as it is.
 */
export function restateIdRefusal(error: unknown, params: Readonly<Record<string, string>> | undefined): unknown {
  const id = params?.id;
  const field = isDomainError(error) ? error.field : undefined;
  if (id === undefined || field === undefined || !(field.endsWith('Id') || field === 'params.id')) return error;
  const code = (error as DomainError).code;
  const reason = /^\S+ \S+: (.+)$/.exec((error as Error).message)?.[1];
  if (code === 'not_found') return notFound(`params.id: ${reason ?? 'no such object'} ${id}`);
  return reason === undefined ? error : new DomainError(code, `params.id: ${reason}`, 'params.id');
}

/** Refuses with 404 the removal of a symbol that a list did not hold (the command decided nothing). */
export function refuseAbsentSymbol(
  outcome: { readonly events: readonly unknown[] },
  symbol: string,
  list: string,
): void {
  if (outcome.events.length === 0) throw notFound(`params.symbol: ${symbol} is not on the ${list}`);
}
