/**
 * The symbol search over the universe: what was typed, the matching companies and the highlighted one. Typing
 * waits a moment before searching; arrow keys move the highlight; Enter picks it (or, while the answer is still
 * coming, the first match once it arrives). A pick is emitted as `picked` for the screen to act on.
 */
import { assign, emit, fromPromise, setup } from 'xstate';
import { marketApi, type UniverseHit } from '../../domain/contract/market.ts';
import { call, errorMessage } from '../services/api.ts';

export type { UniverseHit };

/** Most matches the search lists. */
export const SYMBOL_SEARCH_LIMIT = 8;

/** Milliseconds typing must pause before the search is sent. */
export const SYMBOL_SEARCH_DEBOUNCE_MS = 150;

/** What the search holds. */
export interface SymbolSearchContext {
  /** The text typed. */
  readonly text: string;
  /** The matches of the last answer. */
  readonly results: readonly UniverseHit[];
  /** Index of the highlighted match. */
  readonly active: number;
  /** Whether Enter was pressed before the answer came: the first match is picked when it does. */
  readonly submitted: boolean;
  /** Why the last search failed. */
  readonly error: string | null;
}

/** Events of the search. */
export type SymbolSearchEvent =
  | { type: 'user.type'; text: string }
  | { type: 'user.move'; by: number }
  | { type: 'user.highlight'; index: number }
  | { type: 'user.pick'; index: number }
  | { type: 'user.submit' }
  | { type: 'user.close' }
  | { type: 'user.open' };

/** What the search emits when a company is picked. */
export interface SymbolPicked {
  readonly type: 'picked';
  readonly hit: UniverseHit;
}

/** The highlight after moving `by` places through `count` matches, wrapping around at both ends. */
export function movedIndex(active: number, by: number, count: number): number {
  if (count <= 0) return 0;
  return (((active + by) % count) + count) % count;
}

/** The match Enter picks: the highlighted one, else an exact symbol match, else none. */
export function submittedHit(context: Pick<SymbolSearchContext, 'results' | 'active' | 'text'>): UniverseHit | null {
  const highlighted = context.results[context.active];
  if (highlighted) return highlighted;
  const typed = context.text.trim().toUpperCase();
  return context.results.find((hit) => hit.symbol === typed) ?? null;
}

const cleared = { text: '', results: [], active: 0, submitted: false, error: null } as const;

/** The symbol search's machine. */
export const symbolSearchMachine = setup({
  types: {
    context: {} as SymbolSearchContext,
    events: {} as SymbolSearchEvent,
    emitted: {} as SymbolPicked,
  },
  actors: {
    searchUniverse: fromPromise<UniverseHit[], { text: string }>(async ({ input, signal }) =>
      call(marketApi.getUniverse, { query: { q: input.text, limit: SYMBOL_SEARCH_LIMIT }, signal }),
    ),
  },
  delays: { debounce: SYMBOL_SEARCH_DEBOUNCE_MS },
  guards: {
    blank: ({ event }) => event.type === 'user.type' && event.text.trim() === '',
    hasMatch: ({ context }) => submittedHit(context) !== null,
  },
  actions: {
    setText: assign({ text: ({ event }) => (event.type === 'user.type' ? event.text : '') }),
    emitSubmitted: emit(({ context }) => ({ type: 'picked' as const, hit: submittedHit(context)! })),
    emitIndex: emit(({ context, event }) => ({
      type: 'picked' as const,
      hit: context.results[event.type === 'user.pick' ? event.index : context.active]!,
    })),
    clear: assign(cleared),
  },
}).createMachine({
  id: 'symbolSearch',
  initial: 'idle',
  context: { ...cleared, results: [] },
  on: {
    'user.type': [
      { guard: 'blank', target: '.idle', actions: assign(cleared) },
      { target: '.debouncing', reenter: true, actions: ['setText', assign({ submitted: false })] },
    ],
  },
  states: {
    idle: {
      on: {
        'user.open': { guard: ({ context }) => context.results.length > 0, target: 'showing' },
        'user.move': { guard: ({ context }) => context.results.length > 0, target: 'showing' },
        'user.submit': { guard: 'hasMatch', actions: ['emitSubmitted', 'clear'] },
      },
    },
    debouncing: {
      after: { debounce: 'searching' },
      on: { 'user.submit': { actions: assign({ submitted: true }) } },
    },
    searching: {
      invoke: {
        src: 'searchUniverse',
        input: ({ context }) => ({ text: context.text.trim() }),
        onDone: {
          target: 'showing',
          actions: assign({ results: ({ event }) => event.output, active: 0, error: null }),
        },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => errorMessage(event.error) }) },
      },
      on: { 'user.submit': { actions: assign({ submitted: true }) } },
    },
    showing: {
      always: [
        {
          guard: ({ context }) => context.submitted && submittedHit(context) !== null,
          target: 'idle',
          actions: ['emitSubmitted', 'clear'],
        },
        { guard: ({ context }) => context.submitted, actions: assign({ submitted: false }) },
      ],
      on: {
        'user.move': {
          actions: assign({
            active: ({ context, event }) => movedIndex(context.active, event.by, context.results.length),
          }),
        },
        'user.highlight': { actions: assign({ active: ({ event }) => event.index }) },
        'user.pick': {
          guard: ({ context, event }) => context.results[event.index] !== undefined,
          target: 'idle',
          actions: ['emitIndex', 'clear'],
        },
        'user.submit': { guard: 'hasMatch', target: 'idle', actions: ['emitSubmitted', 'clear'] },
        'user.close': 'idle',
      },
    },
    failed: {
      entry: assign({ submitted: false }),
      on: { 'user.close': 'idle' },
    },
  },
});
