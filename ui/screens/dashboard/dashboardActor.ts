/** The dashboard's actor, shared by the screen's parts through React context, and a list comparison for selectors. */
import { createActorContext } from '@xstate/react';
import { dashboardMachine } from './dashboard.machine.ts';

/** Provider and hooks of the dashboard's actor. */
export const Dashboard = createActorContext(dashboardMachine);

/** Whether two lists hold the same items in the same order, so a selector answering a new array re-renders only on change. */
export function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return a === b || (a.length === b.length && a.every((item, i) => Object.is(item, b[i])));
}
