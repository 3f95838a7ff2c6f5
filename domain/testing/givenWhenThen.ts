/**
 * Decider specs in the form the domain is described in: given past events, when a command, then events,
 * an error, or nothing.
 */
import { expect } from 'chai';
import { DomainError, fold, type Decider } from '../decider.ts';

/** The outcome checks of a decider spec once the command is known. */
export interface Then<E> {
  /** Asserts that the command decides exactly these events, in this order (deep equality). */
  then(expected: readonly E[]): void;
  /** Asserts that the command is refused with a {@link DomainError} of this code. */
  thenError(code: string): void;
  /** Asserts that the command decides no events. */
  thenNothing(): void;
}

/** A decider spec with its history in place, waiting for the command. */
export interface When<C, E> {
  /** Names the command under test. */
  when(command: C): Then<E>;
}

type Outcome<E> = { kind: 'events'; events: E[] } | { kind: 'error'; error: DomainError };

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

function describeOutcome<E>(outcome: Outcome<E>): string {
  return outcome.kind === 'error'
    ? `DomainError ${JSON.stringify(outcome.error.code)}: ${outcome.error.message}`
    : outcome.events.length === 0
      ? 'no events'
      : `events ${JSON.stringify(outcome.events)}`;
}

/**
 * Starts a decider spec from past events; the state is folded with `evolve` and frozen, so a decider that
 * mutates its state fails the spec.
 */
export function given<C, E, S>(decider: Decider<C, E, S>, pastEvents: readonly E[] = []): When<C, E> {
  return {
    when(command: C): Then<E> {
      const run = (): Outcome<E> => {
        const state = deepFreeze(fold(decider, structuredClone(pastEvents)));
        let events: E[];
        try {
          events = decider.decide(deepFreeze(structuredClone(command)), state);
        } catch (error) {
          if (error instanceof DomainError) return { kind: 'error', error };
          throw error;
        }
        // The decided events must fold too: evolve is total over everything decide can produce.
        fold(decider, events, state);
        return { kind: 'events', events };
      };
      return {
        then(expected: readonly E[]): void {
          const outcome = run();
          if (outcome.kind === 'error') {
            expect.fail(`expected events ${JSON.stringify(expected)} but got ${describeOutcome(outcome)}`);
          }
          // chai abbreviates nested objects in its message, so both lists are spelled out in full.
          expect(
            outcome.events,
            `decided events ${JSON.stringify(outcome.events)}, expected ${JSON.stringify(expected)}`,
          ).to.deep.equal(expected);
        },
        thenError(code: string): void {
          const outcome = run();
          if (outcome.kind !== 'error') {
            expect.fail(`expected DomainError ${JSON.stringify(code)} but got ${describeOutcome(outcome)}`);
          }
          expect(outcome.error.code, `code of DomainError "${outcome.error.message}"`).to.equal(code);
        },
        thenNothing(): void {
          const outcome = run();
          if (outcome.kind === 'error' || outcome.events.length > 0) {
            expect.fail(`expected no events but got ${describeOutcome(outcome)}`);
          }
        },
      };
    },
  };
}
