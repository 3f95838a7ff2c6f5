/**
 * The symbol search over the universe: what was typed, the matching companies and the highlighted one. Typing
 * waits a moment before searching; arrow keys move the highlight; Enter picks it (or, while the answer is still
 * coming, the first match once it arrives). A pick is emitted as `picked` for the screen to act on; the field
 * is then emptied, or, for a field whose value is the symbol (`keep`), shows the symbol picked.
 */
import { assertEvent, assign, emit, fromPromise, setup } from 'xstate';
import { marketApi, type UniverseHit } from '../../domain/contract/market.ts';
import { isSymbol } from '../../domain/symbol.ts';
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
  /** Whether a pick leaves its symbol in the field (a form's symbol) rather than emptying it. */
  readonly keep: boolean;
}

/** How a search starts: `keep` for a field whose value is the symbol. */
export interface SymbolSearchInput {
  readonly keep: boolean;
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

/** The match an event picks: the one clicked, else the one Enter picks. */
function pickedHit(context: SymbolSearchContext, event: SymbolSearchEvent): UniverseHit | null {
  return event.type === 'user.pick' ? (context.results[event.index] ?? null) : submittedHit(context);
}

/** The match Enter picks: the highlighted one, else an exact symbol match, else none. */
export function submittedHit(context: Pick<SymbolSearchContext, 'results' | 'active' | 'text'>): UniverseHit | null {
  const highlighted = context.results[context.active];
  if (highlighted) return highlighted;
  const typed = context.text.trim().toUpperCase();
  return context.results.find((hit) => hit.symbol === typed) ?? null;
}

/** Longest part of a text a message repeats; the rest is cut with an ellipsis. */
const SAID_MAX = 16;

/**
 * What a screen says of a symbol the market data does not have, in the same words on every screen; a text longer
 * than any symbol is cut short so the message stays on the page.
 */
export function unknownCompanyText(symbol: string): string {
  const said = symbol.length > SAID_MAX ? `${symbol.slice(0, SAID_MAX)}…` : symbol;
  return `There is no company ${said} in the market data: pick one above.`;
}

/**
 * The company of a symbol in the universe, or null when the market data has none. A text that is no symbol
 * (`isSymbol`) is known to have none without asking.
 */
export async function findCompany(symbol: string, signal?: AbortSignal): Promise<UniverseHit | null> {
  if (!isSymbol(symbol)) return null;
  const hits = await call(marketApi.getUniverse, { query: { q: symbol, limit: 5 }, ...(signal ? { signal } : {}) });
  return hits.find((hit) => hit.symbol === symbol) ?? null;
}

const cleared = { text: '', results: [], active: 0, submitted: false, error: null } as const;

/** The symbol search's machine. */
export const symbolSearchMachine = setup({
  types: {
    context: {} as SymbolSearchContext,
    events: {} as SymbolSearchEvent,
    emitted: {} as SymbolPicked,
    input: {} as SymbolSearchInput,
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
    notSubmitted: ({ context }) => !context.submitted,
  },
  actions: {
    setText: assign({
      text: ({ event }) => {
        assertEvent(event, 'user.type');
        return event.text;
      },
    }),
    emitPicked: emit(({ context, event }) => ({ type: 'picked' as const, hit: pickedHit(context, event)! })),
    /** After a pick: the field emptied, or showing the symbol picked (`keep`). */
    clearPicked: assign(({ context, event }) => ({
      ...cleared,
      text: context.keep ? (pickedHit(context, event)?.symbol ?? '') : '',
    })),
  },
}).createMachine({
  id: 'symbolSearch',
  initial: 'idle',
  context: ({ input }) => ({ ...cleared, results: [], keep: input.keep }),
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
        'user.submit': { guard: 'hasMatch', actions: ['emitPicked', 'clearPicked'] },
      },
    },
    debouncing: {
      after: { debounce: 'searching' },
      on: {
        'user.submit': { actions: assign({ submitted: true }) },
        // Left before the answer (and not waiting for it to pick): no list opens under another field.
        'user.close': { guard: 'notSubmitted', target: 'idle' },
      },
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
      on: {
        'user.submit': { actions: assign({ submitted: true }) },
        'user.close': { guard: 'notSubmitted', target: 'idle' },
      },
    },
    showing: {
      always: [
        {
          guard: ({ context }) => context.submitted && submittedHit(context) !== null,
          target: 'idle',
          actions: ['emitPicked', 'clearPicked'],
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
          actions: ['emitPicked', 'clearPicked'],
        },
        'user.submit': { guard: 'hasMatch', target: 'idle', actions: ['emitPicked', 'clearPicked'] },
        'user.close': 'idle',
      },
    },
    failed: {
      entry: assign({ submitted: false }),
      on: { 'user.close': 'idle' },
    },
  },
});
