/**
 * The shape every concern's business rules take: a decider turns a command and the current state into
 * events, and folds events into state. Pure: no I/O, no clock, no randomness.
 */

/** A domain event: a PascalCase past-tense `type` and its JSON payload, discriminated by `type`. */
export interface DomainEvent<T extends string = string, D = unknown> {
  /** The event type, e.g. `SymbolAddedToWatchlist`. */
  readonly type: T;
  /** The event's JSON payload. */
  readonly data: D;
}

/**
 * Every type of a union of events, as a list written once next to the union:
 * `eventTypes<WatchlistEvent>()('SymbolAddedToWatchlist', 'SymbolRemovedFromWatchlist')`. A list that misses a
 * type of the union, or names one outside it, does not compile.
 */
export function eventTypes<E extends DomainEvent>() {
  return <const L extends readonly E['type'][]>(
    ...types: L &
      ([Exclude<E['type'], L[number]>] extends [never] ? unknown : { missing: Exclude<E['type'], L[number]> })
  ): readonly E['type'][] => types;
}

/** A concern's rules as three pure parts: the state before any event, the decision, and the fold step. */
export interface Decider<C, E, S> {
  /** The state of a stream that has no events yet. */
  readonly initialState: S;
  /** Decides which events a command produces in a state: none when there is nothing to do; throws a {@link DomainError} to refuse. */
  decide(command: C, state: S): E[];
  /** Applies one event to a state; total and pure, so replaying the log always succeeds. */
  evolve(state: S, event: E): S;
  /**
   * Optional: the state after several events, exactly as applying `evolve` to each in turn gives it, in one pass:
   * for a state that keeps something of every event of its stream, whose copy per event would make folding a long
   * stream quadratic. {@link fold} uses it when given.
   */
  evolveAll?(state: S, events: readonly E[]): S;
}

/** A refusal by the business rules, with a stable string `code` for callers and a message naming the field. */
export class DomainError extends Error {
  override readonly name = 'DomainError';
  constructor(
    /** Stable machine-readable reason, e.g. `invalid_symbol`, `empty`, `limit`. */
    readonly code: string,
    /** Human-readable reason naming the offending field. */
    message: string,
    /** The path of the offending field in the command, e.g. `symbols[2]`, when there is one. */
    readonly field?: string,
  ) {
    super(message);
  }
}

/**
 * The refusal of a command a decider does not know, thrown from the `default` of its `switch` over the commands,
 * where the command's type is `never` (so a command added to the union and not decided fails to compile): names
 * the type it was given, e.g. `type "Nope" is not an alerts command`.
 */
export function unknownCommand(command: never, concern: string): DomainError {
  const type = (command as { type?: unknown } | null)?.type;
  const article = /^[aeiou]/.test(concern) ? 'an' : 'a';
  return new DomainError(
    'unknown_command',
    `type ${JSON.stringify(type)} is not ${article} ${concern} command`,
    'type',
  );
}

/** Whether a value is a {@link DomainError}. */
export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}

/** Folds events into state with a decider's `evolve`, starting from its initial state unless told otherwise. */
export function fold<C, E, S>(decider: Decider<C, E, S>, events: Iterable<E>, from: S = decider.initialState): S {
  if (decider.evolveAll) return decider.evolveAll(from, Array.isArray(events) ? (events as E[]) : [...events]);
  let state = from;
  for (const event of events) state = decider.evolve(state, event);
  return state;
}

/**
 * Who issued a command: a signed-in user, the holder of an email address acting through a link sent to it
 * (`address:<channel id>`, e.g. an unsubscription), the engine acting for them, or an operator's script.
 */
export type Actor = `user:${string}` | `address:${string}` | 'engine' | 'script';

/** What comes in with every command besides its payload: its id, who and when, and the causal chain. */
export interface CommandMeta {
  /** Idempotency key of the command; event ids are derived from it. */
  readonly commandId: string;
  /** The user whose stream the command addresses. */
  readonly userId: string;
  /** When the command was issued (ISO 8601, UTC); the domain's only clock. */
  readonly at: string;
  /** Id shared by everything one original request set in motion; the command id when absent. */
  readonly correlationId?: string;
  /** Id of the message that caused this command; the command id when absent. */
  readonly causationId?: string;
  /** Who issued the command. */
  readonly actor: Actor;
  /**
   * Fingerprint of the request that carried the idempotency key, when one did: a retry with the same key must
   * carry the same request.
   */
  readonly requestHash?: string;
}
