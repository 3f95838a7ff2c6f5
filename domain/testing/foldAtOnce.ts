/**
 * The check of a decider's `evolveAll`: events folded at once, from any state, give the state folding them one by
 * one gives.
 */
import { expect } from 'chai';
import { DomainError, fold, type Decider, type DomainEvent } from '../decider.ts';

/**
 * Folds `before` one by one, then checks that folding `rest` onto that state at once ({@link fold}) gives what
 * folding them one by one gives (JSON included, so the order of keys too), that neither that state nor the events
 * change, and that the state folded at once takes further events (`before` again) as the other does. Answers the
 * state `rest` was folded onto and the one folded at once.
 */
export function checkFoldOfEvents<C, E extends DomainEvent, S>(
  decider: Decider<C, E, S>,
  before: readonly E[],
  rest: readonly E[],
): { start: S; atOnce: S } {
  const byOne = (from: S, list: readonly E[]): S => list.reduce((folded, event) => decider.evolve(folded, event), from);
  const start = byOne(decider.initialState, before);
  const copy = JSON.stringify(start);
  const log = JSON.stringify([before, rest]);
  const oneByOne = byOne(start, rest);
  const atOnce = fold(decider, rest, start);
  expect(atOnce).to.deep.equal(oneByOne);
  expect(JSON.stringify(atOnce)).to.equal(JSON.stringify(oneByOne));
  expect(JSON.stringify(start)).to.equal(copy);
  expect(JSON.stringify([before, rest])).to.equal(log);
  // A state folded at once takes further events as any other.
  expect(JSON.stringify(byOne(atOnce, before))).to.equal(JSON.stringify(byOne(oneByOne, before)));
  return { start, atOnce };
}

/**
 * Decides `commands` in turn (a refused one records nothing), then checks with {@link checkFoldOfEvents} the
 * events after the first `cut` (modulo their count + 1) folded at once onto the state the first ones left, and
 * that the whole stream folds at once to the state the decisions ended on. Answers the events.
 */
export function checkFoldAtOnce<C, E extends DomainEvent, S>(
  decider: Decider<C, E, S>,
  commands: readonly C[],
  cut: number,
): E[] {
  const recorded: E[] = [];
  let state = decider.initialState;
  for (const command of commands) {
    let decided: E[] = [];
    try {
      decided = decider.decide(command, state);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
    }
    for (const event of decided) state = decider.evolve(state, event);
    recorded.push(...decided);
  }
  const split = recorded.length === 0 ? 0 : cut % (recorded.length + 1);
  checkFoldOfEvents(decider, recorded.slice(0, split), recorded.slice(split));
  expect(JSON.stringify(fold(decider, recorded))).to.equal(JSON.stringify(state));
  return recorded;
}
