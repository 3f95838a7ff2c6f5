/**
 * Every request a screen's machine invokes says what its failure does. xstate stops a machine whose child fails
 * unhandled (and the app's session machine took the app with it), so a request without `onError` is a screen
 * that stops on the first refusal or dropped connection. (A request a machine spawns is not seen here: the bell's
 * mark-read, the one there is, tells its failure as an event of its own.)
 */
import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fromPromise, type AnyStateMachine } from 'xstate';

const UI = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The transition every promise actor's logic shares: how a request is told from a callback or a machine. */
const PROMISE_TRANSITION = fromPromise(() => Promise.resolve(undefined)).transition.toString();

function machineFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) machineFiles(join(dir, entry.name), out);
    else if (entry.name.endsWith('.machine.ts')) out.push(join(dir, entry.name));
  }
  return out;
}

interface NodeLike {
  readonly id: string;
  readonly invoke: readonly { readonly id: string; readonly src: unknown }[];
  readonly transitions: ReadonlyMap<string, unknown>;
  readonly states: Readonly<Record<string, NodeLike>>;
}

/** The requests a machine invokes without a transition for their failure, as `<state id>: <actor>`. */
function unhandledRequests(machine: AnyStateMachine): string[] {
  const found: string[] = [];
  const visit = (node: NodeLike): void => {
    for (const invoked of node.invoke) {
      const name = typeof invoked.src === 'string' ? invoked.src : invoked.id;
      const logic = (typeof invoked.src === 'string' ? machine.implementations.actors[invoked.src] : invoked.src) as
        { transition?: { toString(): string } } | undefined;
      const request = logic?.transition?.toString() === PROMISE_TRANSITION;
      if (request && !node.transitions.has(`xstate.error.actor.${invoked.id}`)) found.push(`${node.id}: ${name}`);
    }
    for (const child of Object.values(node.states)) visit(child);
  };
  visit(machine.root);
  return found;
}

describe("the screens' machines", function () {
  it('handle the failure of every request they invoke', async function () {
    this.timeout(30_000);
    let machines = 0;
    const unhandled: string[] = [];
    for (const file of machineFiles(UI)) {
      const module = (await import(file)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(module)) {
        const machine = value as Partial<AnyStateMachine> | null;
        if (machine === null || typeof machine !== 'object' || !machine.root || !machine.implementations) continue;
        machines += 1;
        unhandled.push(...unhandledRequests(machine as AnyStateMachine).map((where) => `${name} ${where}`));
      }
    }
    expect(machines, 'machines read').to.be.above(20);
    expect(unhandled).to.deep.equal([]);
  });
});
