/**
 * The Sectors page: the user's sectors and the universe's 11 GICS sectors, changes sent one after another in
 * the order the user made them (each one command on the server), a universe search to add symbols, and a
 * re-read when the sectors change elsewhere.
 */
import type { Sector } from '../../../domain/market/types.ts';
import { marketApi } from '../../../domain/contract/market.ts';
import { sectorsApi } from '../../../domain/contract/sectors.ts';
import { assign, fromCallback, fromPromise, setup } from 'xstate';
import { fieldRefusal } from '../../components/fieldRefusal.ts';
import { call, errorMessage } from '../../services/api.ts';
import { live } from '../../services/live.ts';
import { showToast } from '../../services/toast.ts';
import {
  EMPTY_DRAFT,
  applyAnswer,
  confirmation,
  draftAfterAccepted,
  nameError,
  parseSymbols,
  SECTOR_LABELS,
  symbolsError,
  type ChangeAnswer,
  type GicsSector,
  type NewSectorDraft,
  type SectorChange,
  type UniverseEntry,
  type UserSector,
} from './sectors.logic.ts';

/** Results one universe search shows. */
export const SEARCH_LIMIT = 8;

/** Pause after the last key before searching the universe, in ms. */
export const SEARCH_DEBOUNCE_MS = 250;

/** The universe search of one sector card. */
export interface SectorSearch {
  /** The card searching, or null. */
  readonly sectorId: string | null;
  readonly text: string;
  readonly results: readonly UniverseEntry[];
  readonly error: string | null;
}

/** The page's state. */
export interface SectorsContext {
  readonly sectors: readonly UserSector[];
  readonly gics: readonly GicsSector[];
  /** Why the page could not be loaded. */
  readonly error: string | null;
  /** Why the last change was refused (checked here or by the server, naming the field). */
  readonly actionError: string | null;
  /** Changes not yet answered, the one being sent first. */
  readonly queue: readonly SectorChange[];
  readonly search: SectorSearch;
  /** The "new sector" form, emptied once the server created its sector (a refusal keeps it). */
  readonly draft: NewSectorDraft;
}

/** Events of the page. */
export type SectorsEvent =
  | { type: 'user.retry' }
  | { type: 'user.editDraft'; name?: string; symbols?: string }
  | { type: 'user.create'; name: string; symbols: string }
  | { type: 'user.copy'; gics: Sector }
  | { type: 'user.rename'; id: string; name: string }
  | { type: 'user.addSymbols'; id: string; symbols: string }
  | { type: 'user.removeSymbol'; id: string; symbol: string }
  | { type: 'user.delete'; id: string }
  | { type: 'user.dismissError' }
  | { type: 'user.search'; sectorId: string; text: string }
  | { type: 'user.closeSearch' }
  | { type: 'server.sectorsChanged' };

type ChangeEvent = Extract<
  SectorsEvent,
  { type: 'user.create' | 'user.copy' | 'user.rename' | 'user.addSymbols' | 'user.removeSymbol' | 'user.delete' }
>;

const CHANGE_EVENTS = new Set<string>([
  'user.create',
  'user.copy',
  'user.rename',
  'user.addSymbols',
  'user.removeSymbol',
  'user.delete',
]);

/** Each change the user makes is queued, whether the sectors are shown, being read again or being saved. */
const ENQUEUE_CHANGES = {
  'user.create': { actions: 'enqueue' },
  'user.copy': { actions: 'enqueue' },
  'user.rename': { actions: 'enqueue' },
  'user.addSymbols': { actions: 'enqueue' },
  'user.removeSymbol': { actions: 'enqueue' },
  'user.delete': { actions: 'enqueue' },
} as const;

/** The change a user event asks for, or why it cannot be made (checked before anything is sent). */
export function changeFromEvent(
  event: ChangeEvent,
  sectors: readonly UserSector[],
): { readonly change: SectorChange } | { readonly error: string } {
  switch (event.type) {
    case 'user.create': {
      const problem = nameError(event.name, sectors);
      if (problem) return { error: problem };
      const parsed = parseSymbols(event.symbols);
      const bad = symbolsError(parsed);
      if (bad) return { error: bad };
      return { change: { kind: 'create', name: event.name.trim(), symbols: parsed.symbols } };
    }
    case 'user.copy':
      return { change: { kind: 'copy', gics: event.gics } };
    case 'user.rename': {
      const problem = nameError(event.name, sectors, event.id);
      return problem ? { error: problem } : { change: { kind: 'rename', id: event.id, name: event.name.trim() } };
    }
    case 'user.addSymbols': {
      const parsed = parseSymbols(event.symbols);
      if (parsed.symbols.length === 0 && parsed.invalid.length === 0)
        return { error: `${SECTOR_LABELS.symbols}: enter a symbol` };
      const present = sectors.find((s) => s.id === event.id)?.symbols ?? [];
      const bad = symbolsError(parsed, present);
      return bad ? { error: bad } : { change: { kind: 'addSymbols', id: event.id, symbols: parsed.symbols } };
    }
    case 'user.removeSymbol':
      return { change: { kind: 'removeSymbol', id: event.id, symbol: event.symbol } };
    case 'user.delete':
      return { change: { kind: 'delete', id: event.id } };
  }
}

/** The request of a change. */
export async function sendChange(change: SectorChange): Promise<ChangeAnswer> {
  switch (change.kind) {
    case 'create':
      return call(sectorsApi.postSectors, { body: { name: change.name, symbols: change.symbols } });
    case 'copy':
      return call(sectorsApi.postSectorsCopy, { body: { gics: change.gics } });
    case 'rename':
      return call(sectorsApi.postSectorsByIdRename, { params: { id: change.id }, body: { name: change.name } });
    case 'addSymbols':
      return call(sectorsApi.postSectorsByIdSymbols, { params: { id: change.id }, body: { symbols: change.symbols } });
    case 'removeSymbol':
      return call(sectorsApi.postSectorsByIdDelsymbolBySymbol, { params: { id: change.id, symbol: change.symbol } });
    case 'delete':
      return call(sectorsApi.postDelsectorById, { params: { id: change.id } });
  }
}

const NO_SEARCH: SectorSearch = { sectorId: null, text: '', results: [], error: null };

/** The Sectors page's machine. */
export const sectorsMachine = setup({
  types: { context: {} as SectorsContext, events: {} as SectorsEvent },
  actors: {
    loadAll: fromPromise<{ sectors: UserSector[]; gics: GicsSector[] }>(async () => {
      const [sectors, gics] = await Promise.all([call(sectorsApi.getSectors), call(marketApi.getSectors)]);
      return { sectors, gics };
    }),
    loadSectors: fromPromise<UserSector[]>(async () => call(sectorsApi.getSectors)),
    applyChange: fromPromise<ChangeAnswer, SectorChange>(async ({ input }) => sendChange(input)),
    searchUniverse: fromPromise<readonly UniverseEntry[], { text: string }>(async ({ input }) =>
      call(marketApi.getUniverse, { query: { q: input.text, limit: SEARCH_LIMIT } }),
    ),
    liveChanges: fromCallback<SectorsEvent>(({ sendBack }) =>
      live.onReadModelChanged((change) => {
        if (change.name === 'sectors') sendBack({ type: 'server.sectorsChanged' });
      }),
    ),
  },
  actions: {
    /** Tells the user a change was made. */
    notify: (_, params: { text: string }) => showToast(params.text),
    enqueue: assign(({ context, event }) => {
      if (!CHANGE_EVENTS.has(event.type)) return {};
      const outcome = changeFromEvent(event as ChangeEvent, context.sectors);
      if ('error' in outcome) return { actionError: outcome.error };
      return { queue: [...context.queue, outcome.change], actionError: null };
    }),
  },
  guards: {
    hasQueue: ({ context }) => context.queue.length > 0,
    blankSearch: ({ event }) => event.type === 'user.search' && event.text.trim().length === 0,
  },
}).createMachine({
  id: 'sectors',
  type: 'parallel',
  context: { sectors: [], gics: [], error: null, actionError: null, queue: [], search: NO_SEARCH, draft: EMPTY_DRAFT },
  invoke: { src: 'liveChanges' },
  on: {
    'user.editDraft': {
      actions: assign({
        draft: ({ context, event }) => ({
          name: event.name ?? context.draft.name,
          symbols: event.symbols ?? context.draft.symbols,
        }),
      }),
    },
  },
  states: {
    data: {
      initial: 'loading',
      states: {
        loading: {
          invoke: {
            src: 'loadAll',
            onDone: {
              target: 'ready',
              actions: assign({
                sectors: ({ event }) => event.output.sectors,
                gics: ({ event }) => event.output.gics,
                error: null,
              }),
            },
            onError: { target: 'failed', actions: assign({ error: ({ event }) => errorMessage(event.error) }) },
          },
        },
        failed: {
          on: { 'user.retry': 'loading' },
        },
        ready: {
          always: { guard: 'hasQueue', target: 'saving' },
          on: {
            'server.sectorsChanged': 'refreshing',
            ...ENQUEUE_CHANGES,
            'user.dismissError': { actions: assign({ actionError: null }) },
          },
        },
        refreshing: {
          invoke: {
            src: 'loadSectors',
            onDone: { target: 'ready', actions: assign({ sectors: ({ event }) => event.output }) },
            onError: 'ready',
          },
          on: {
            ...ENQUEUE_CHANGES,
          },
        },
        saving: {
          invoke: {
            src: 'applyChange',
            input: ({ context }) => context.queue[0]!,
            onDone: {
              target: 'ready',
              actions: [
                {
                  type: 'notify',
                  params: ({ context, event }) => ({
                    text: confirmation(context.queue[0]!, context.sectors, event.output),
                  }),
                },
                assign({
                  sectors: ({ context, event }) => applyAnswer(context.sectors, event.output),
                  draft: ({ context }) => draftAfterAccepted(context.draft, context.queue[0]!),
                  queue: ({ context }) => context.queue.slice(1),
                }),
              ],
            },
            onError: {
              target: 'ready',
              actions: assign({
                actionError: ({ event }) => fieldRefusal(errorMessage(event.error), SECTOR_LABELS).text,
                queue: ({ context }) => context.queue.slice(1),
              }),
            },
          },
          on: {
            ...ENQUEUE_CHANGES,
            'user.dismissError': { actions: assign({ actionError: null }) },
          },
        },
      },
    },
    search: {
      initial: 'idle',
      on: {
        'user.search': [
          { guard: 'blankSearch', target: '.idle', actions: assign({ search: NO_SEARCH }) },
          {
            target: '.debouncing',
            actions: assign({
              search: ({ context, event }) => ({
                sectorId: event.sectorId,
                text: event.text,
                results: context.search.sectorId === event.sectorId ? context.search.results : [],
                error: null,
              }),
            }),
          },
        ],
        'user.closeSearch': { target: '.idle', actions: assign({ search: NO_SEARCH }) },
      },
      states: {
        idle: {},
        debouncing: {
          after: { [SEARCH_DEBOUNCE_MS]: 'searching' },
        },
        searching: {
          invoke: {
            src: 'searchUniverse',
            input: ({ context }) => ({ text: context.search.text.trim() }),
            onDone: {
              target: 'ready',
              actions: assign({ search: ({ context, event }) => ({ ...context.search, results: event.output }) }),
            },
            onError: {
              target: 'failed',
              actions: assign({
                search: ({ context, event }) => ({ ...context.search, results: [], error: errorMessage(event.error) }),
              }),
            },
          },
        },
        ready: {},
        failed: {},
      },
    },
  },
});
