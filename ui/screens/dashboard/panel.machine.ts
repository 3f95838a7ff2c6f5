/**
 * The machine of a dashboard panel that shows one loaded document (performance, alerts and notifications,
 * movers, latest patterns): a skeleton while loading, the document, or the failure with a retry; it loads
 * again when its input changes (the stock list, the slider) and when the server says the data changed: once
 * such news has settled for {@link PANEL_SETTLE_MS} (an alert firing says so three times, a burst of firings
 * many more), and never by cancelling a read under way (news during one reads once more after it), so a
 * steady stream of firings neither floods the server nor keeps the panel from ever showing an answer.
 * Each panel provides its own `load` and `watch` actors (see {@link panelWith}).
 */
import { assign, fromCallback, fromPromise, setup } from 'xstate';
import { errorMessage } from '../../services/api.ts';

/** Milliseconds the server's news of a change must settle before the panel reads again. */
export const PANEL_SETTLE_MS = 250;

/** A panel's state: its input, the document loaded for it, and why the last load failed. */
export interface PanelContext {
  readonly input: unknown;
  readonly data: unknown;
  readonly error: string | null;
  /** Whether the server said the data changed during the read under way: it is read once more after it. */
  readonly stale: boolean;
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
    stale: ({ context }) => context.stale,
  },
  delays: { settle: PANEL_SETTLE_MS },
}).createMachine({
  id: 'panel',
  initial: 'loading',
  context: ({ input }) => ({ input, data: null, error: null, stale: false }),
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
      // News from now on may be after what this read finds.
      entry: assign({ stale: false }),
      invoke: {
        src: 'load',
        input: ({ context }: { context: PanelContext }) => context.input,
        onDone: [
          { guard: 'stale', target: 'settling', actions: assign({ data: ({ event }) => event.output, error: null }) },
          { target: 'ready', actions: assign({ data: ({ event }) => event.output, error: null }) },
        ],
        onError: { target: 'failed', actions: assign({ error: ({ event }) => errorMessage(event.error) }) },
      },
      on: { 'server.changed': { actions: assign({ stale: true }) } },
    },
    ready: {
      on: { 'server.changed': 'settling' },
    },
    /** The document shown while the server's news settles; further news within the delay is the same read. */
    settling: {
      after: { settle: 'refreshing' },
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
