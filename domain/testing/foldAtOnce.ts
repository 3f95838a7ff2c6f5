/**
 * The check of a decider's `evolveAll`: a stream of decided events folded at once, from any point of it, gives
 * the state folding them one by one gives.
 */
import { expect } from 'chai';
import { DomainError, fold, type Decider, type DomainEvent } from '../decider.ts';

/**
 * Decides `commands` in turn (a refused one records nothing), then checks that folding the events after the
 * first `cut` (modulo their count + 1) at once onto the state the first ones left gives what folding them one by
 * one gives (JSON included, so the order of keys too), that the whole stream folds at once to the state the
 * decisions ended on, and that neither the state folded onto nor the events change. Answers the events.
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
  const byOne = (from: S, list: readonly E[]): S => list.reduce((folded, event) => decider.evolve(folded, event), from);
  const start = byOne(decider.initialState, recorded.slice(0, split));
  const copy = JSON.stringify(start);
  const log = JSON.stringify(recorded);
  const rest = recorded.slice(split);
  const oneByOne = byOne(start, rest);
  const atOnce = fold(decider, rest, start);
  expect(atOnce).to.deep.equal(oneByOne);
  expect(JSON.stringify(atOnce)).to.equal(JSON.stringify(oneByOne));
  expect(JSON.stringify(fold(decider, recorded))).to.equal(JSON.stringify(state));
  expect(JSON.stringify(start)).to.equal(copy);
  expect(JSON.stringify(recorded)).to.equal(log);
  // A state folded at once takes further events as any other.
  const more = recorded.slice(0, split);
  expect(JSON.stringify(byOne(atOnce, more))).to.equal(JSON.stringify(byOne(oneByOne, more)));
  return recorded;
}
