/**
 * The machine of a dashboard panel that shows one loaded document (performance, alerts and notifications,
 * movers, latest patterns): a skeleton while loading, the document, or the failure with a retry; it loads
 * again when its input changes (the stock list, the slider) and when the server says the data changed.
 * Each panel provides its own `load` and `watch` actors (see {@link panelWith}).
 */
import { assign, fromCallback, fromPromise, setup } from 'xstate';
import { errorMessage } from '../../services/api.ts';

/** A panel's state: its input, the document loaded for it, and why the last load failed. */
export interface PanelContext {
  readonly input: unknown;
  readonly data: unknown;
  readonly error: string | null;
}

/** Events of a panel. */
export type PanelEvent = { type: 'user.retry' } | { type: 'parent.input'; input: unknown } | { type: 'server.changed' };

/** Whether two panel inputs are the same (plain JSON data). */
export function sameInput(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The panel machine; `load` and `watch` are provided by each panel. */
export const panelMachine = setup({
  types: { context: {} as PanelContext, events: {} as PanelEvent, input: undefined as unknown },
  actors: {
    load: fromPromise<unknown, unknown>(async () => Promise.reject(new Error('this panel loads nothing'))),
    watch: fromCallback<PanelEvent>(() => undefined),
  },
  guards: {
    inputChanged: ({ context, event }) => event.type === 'parent.input' && !sameInput(context.input, event.input),
  },
}).createMachine({
  id: 'panel',
  initial: 'loading',
  context: ({ input }) => ({ input, data: null, error: null }),
  invoke: { src: 'watch' },
  on: {
    'parent.input': {
      guard: 'inputChanged',
      target: '.refreshing',
      actions: assign({ input: ({ event }) => event.input }),
    },
  },
  states: {
    loading: {
      invoke: {
        src: 'load',
        input: ({ context }: { context: PanelContext }) => context.input,
        onDone: { target: 'ready', actions: assign({ data: ({ event }) => event.output, error: null }) },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => errorMessage(event.error) }) },
      },
    },
    refreshing: {
      invoke: {
        src: 'load',
        input: ({ context }: { context: PanelContext }) => context.input,
        onDone: { target: 'ready', actions: assign({ data: ({ event }) => event.output, error: null }) },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => errorMessage(event.error) }) },
      },
      on: { 'server.changed': { target: 'refreshing', reenter: true } },
    },
    ready: {
      on: { 'server.changed': 'refreshing' },
    },
    failed: {
      on: { 'user.retry': 'loading', 'server.changed': 'refreshing' },
    },
  },
});

/**
 * A panel machine with its request: `load` reads the document for an input; `watch` (optional) calls `notify`
 * whenever the document may have changed and answers its stop function.
 */
export function panelWith<I, O>(
  load: (input: I, signal: AbortSignal) => Promise<O>,
  watch: (notify: () => void) => () => void = () => () => undefined,
) {
  return panelMachine.provide({
    actors: {
      load: fromPromise<unknown, unknown>(async ({ input, signal }) => load(input as I, signal)),
      watch: fromCallback<PanelEvent>(({ sendBack }) => watch(() => sendBack({ type: 'server.changed' }))),
    },
  });
}
