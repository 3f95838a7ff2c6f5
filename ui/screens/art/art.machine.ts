/**
 * The Art page: the live market map (the universe and a snapshot of every quote, then the largest companies
 * streamed over the socket and the others read again every few seconds), "Save this map" (the map exported as
 * PNG into the gallery), and the gallery of the user's chart snapshots (listed, deleted, read again when they
 * change elsewhere).
 */
import { marketApi } from '../../../domain/contract/market.ts';
import { fillPath } from '../../../domain/contract/route.ts';
import { snapshotsApi, type SnapshotAnswer } from '../../../domain/contract/snapshots.ts';
import { assertEvent, assign, fromCallback, fromPromise, setup } from 'xstate';
import type { Quote } from '../../../domain/market/types.ts';
import { call, errorMessage } from '../../services/api.ts';
import { live } from '../../services/live.ts';
import { showToast } from '../../services/toast.ts';
import { splitForLive, withQuotes, type MapCompany, type MapQuote } from './treemap.ts';

/** How often the companies outside the live stream are read again, in ms. */
export const POLL_MS = 5000;

/** How often streamed quotes are handed to the map (at most), in ms. */
export const LIVE_BATCH_MS = 500;

/** A chart snapshot as `GET /personalize/snapshots` lists it. */
export type Snapshot = SnapshotAnswer;

/** The image of a snapshot. */
export function snapshotImagePath(id: string): string {
  return fillPath(snapshotsApi.getSnapshotsByIdImage.path, { id });
}

const KB = 1024;
const MB = KB * KB;

/** A snapshot's size for people: `512 B`, `880 KB`, `1,465 KB` as `1.4 MB`; KB and MB are powers of 1024. */
export function sizeText(bytes: number): string {
  if (bytes < KB) return `${Math.max(0, Math.round(bytes))} B`;
  const kilobytes = Math.round(bytes / KB);
  if (kilobytes < KB) return `${kilobytes.toLocaleString('en-US')} KB`;
  return `${(bytes / MB).toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })} MB`;
}

/** A quote of the map, with the time it was priced. */
export type HeldQuote = MapQuote & { ts?: string };

/** What the page holds. */
export interface ArtContext {
  /** The universe. */
  readonly companies: readonly MapCompany[];
  /** The latest quote of each symbol. */
  readonly quotes: Readonly<Record<string, HeldQuote>>;
  /** Why the map could not be loaded. */
  readonly error: string | null;
  /** The largest companies, streamed. */
  readonly live: readonly string[];
  /** The rest, polled. */
  readonly polled: readonly string[];
  /** The user's snapshots, newest first. */
  readonly gallery: readonly Snapshot[];
  /** Why the gallery could not be loaded. */
  readonly galleryError: string | null;
  /** Why the last save or delete failed. */
  readonly actionError: string | null;
  /** The snapshot being deleted. */
  readonly deleting: string | null;
}

/** Events of the page. */
export type ArtEvent =
  | { type: 'user.retry' }
  | { type: 'user.retryGallery' }
  | { type: 'user.openTile'; symbol: string }
  | { type: 'user.saveMap'; graph: HTMLElement; title: string }
  | { type: 'user.deleteSnapshot'; id: string }
  | { type: 'user.dismissError' }
  | { type: 'server.quotes'; quotes: readonly (MapQuote & { symbol: string; ts?: string })[] }
  | { type: 'server.snapshotsChanged' };

/** What an export takes. */
export interface MapExport {
  readonly graph: HTMLElement;
  readonly title: string;
}

/** Pixel size of an exported map. */
export const EXPORT_SIZE = Object.freeze({ width: 1400, height: 800 });

/** The Art page's machine. */
export const artMachine = setup({
  types: { context: {} as ArtContext, events: {} as ArtEvent },
  actors: {
    loadMap: fromPromise(async () => {
      const companies: MapCompany[] = await call(marketApi.getUniverse);
      const quotes = companies.length
        ? await call(marketApi.getQuotes, { query: { symbols: companies.map((c) => c.symbol).join(',') } })
        : [];
      return { companies, quotes };
    }),
    loadQuotes: fromPromise<Quote[], { symbols: readonly string[] }>(async ({ input, signal }) =>
      input.symbols.length ? call(marketApi.getQuotes, { query: { symbols: input.symbols.join(',') }, signal }) : [],
    ),
    liveQuotes: fromCallback<ArtEvent, { symbols: readonly string[] }>(({ sendBack, input }) => {
      const pending = new Map<string, Quote>();
      const off = live.onQuotes(input.symbols, (quote) => pending.set(quote.symbol, quote));
      const timer = setInterval(() => {
        if (pending.size === 0) return;
        const quotes = [...pending.values()];
        pending.clear();
        sendBack({ type: 'server.quotes', quotes });
      }, LIVE_BATCH_MS);
      return () => {
        clearInterval(timer);
        off();
      };
    }),
    loadGallery: fromPromise<Snapshot[]>(async () => call(snapshotsApi.getSnapshots)),
    exportMap: fromPromise<Snapshot, MapExport>(async ({ input }) => {
      const plotly = (await import('../../components/plotly.ts')).default;
      const image = await plotly.toImage(input.graph, { format: 'png', ...EXPORT_SIZE });
      return call(snapshotsApi.postSnapshots, { body: { title: input.title, image } });
    }),
    deleteSnapshot: fromPromise<{ id: string }, { id: string }>(async ({ input }) =>
      call(snapshotsApi.postDelsnapshotById, { params: { id: input.id } }),
    ),
    liveChanges: fromCallback<ArtEvent>(({ sendBack }) =>
      live.onReadModelChanged((change) => {
        if (change.name === 'snapshots') sendBack({ type: 'server.snapshotsChanged' });
      }),
    ),
  },
  actions: {
    /** Opens a symbol's price chart (provided by the screen). */
    openChart: (_, _params: { symbol: string }) => undefined,
    /** Tells the user what happened. */
    notify: (_, params: { text: string }) => showToast(params.text),
    takeQuotes: assign({
      quotes: ({ context, event }) => {
        assertEvent(event, 'server.quotes');
        return withQuotes(context.quotes, event.quotes);
      },
    }),
  },
  delays: { poll: POLL_MS },
}).createMachine({
  id: 'art',
  type: 'parallel',
  context: {
    companies: [],
    quotes: {},
    error: null,
    live: [],
    polled: [],
    gallery: [],
    galleryError: null,
    actionError: null,
    deleting: null,
  },
  invoke: { src: 'liveChanges' },
  on: {
    'user.dismissError': { actions: assign({ actionError: null }) },
  },
  states: {
    map: {
      initial: 'loading',
      states: {
        loading: {
          invoke: {
            src: 'loadMap',
            onDone: {
              target: 'ready',
              actions: assign(({ event }) => {
                const split = splitForLive(event.output.companies);
                return {
                  companies: event.output.companies,
                  quotes: withQuotes({}, event.output.quotes),
                  live: split.live,
                  polled: split.polled,
                  error: null,
                };
              }),
            },
            onError: { target: 'failed', actions: assign({ error: ({ event }) => errorMessage(event.error) }) },
          },
        },
        failed: {
          on: { 'user.retry': 'loading' },
        },
        ready: {
          type: 'parallel',
          invoke: { src: 'liveQuotes', input: ({ context }) => ({ symbols: context.live }) },
          on: {
            'server.quotes': { actions: 'takeQuotes' },
            'user.openTile': {
              guard: ({ context, event }) => context.companies.some((c) => c.symbol === event.symbol),
              actions: { type: 'openChart', params: ({ event }) => ({ symbol: event.symbol }) },
            },
          },
          states: {
            poll: {
              initial: 'waiting',
              states: {
                waiting: { after: { poll: 'fetching' } },
                fetching: {
                  invoke: {
                    src: 'loadQuotes',
                    input: ({ context }) => ({ symbols: context.polled }),
                    onDone: {
                      target: 'waiting',
                      actions: assign({ quotes: ({ context, event }) => withQuotes(context.quotes, event.output) }),
                    },
                    onError: 'waiting',
                  },
                },
              },
            },
            export: {
              initial: 'idle',
              states: {
                idle: {
                  on: { 'user.saveMap': { target: 'saving', actions: assign({ actionError: null }) } },
                },
                saving: {
                  invoke: {
                    src: 'exportMap',
                    input: ({ event }) => {
                      assertEvent(event, 'user.saveMap');
                      return { graph: event.graph, title: event.title };
                    },
                    onDone: {
                      target: 'idle',
                      actions: [
                        assign({
                          gallery: ({ context, event }) => [
                            event.output,
                            ...context.gallery.filter((s) => s.id !== event.output.id),
                          ],
                        }),
                        {
                          type: 'notify',
                          params: ({ event }) => ({ text: `“${event.output.title}” saved to the gallery` }),
                        },
                      ],
                    },
                    onError: {
                      target: 'idle',
                      actions: assign({
                        actionError: ({ event }) => `The map could not be saved: ${errorMessage(event.error)}`,
                      }),
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
    gallery: {
      initial: 'loading',
      states: {
        loading: {
          invoke: {
            src: 'loadGallery',
            onDone: { target: 'ready', actions: assign({ gallery: ({ event }) => event.output, galleryError: null }) },
            onError: { target: 'failed', actions: assign({ galleryError: ({ event }) => errorMessage(event.error) }) },
          },
        },
        failed: {
          on: { 'user.retryGallery': 'loading' },
        },
        ready: {
          on: {
            'server.snapshotsChanged': 'refreshing',
            'user.deleteSnapshot': {
              guard: ({ context, event }) => context.gallery.some((s) => s.id === event.id),
              target: 'deleting',
              actions: assign({ deleting: ({ event }) => event.id, actionError: null }),
            },
          },
        },
        refreshing: {
          invoke: {
            src: 'loadGallery',
            onDone: { target: 'ready', actions: assign({ gallery: ({ event }) => event.output }) },
            onError: 'ready',
          },
        },
        deleting: {
          invoke: {
            src: 'deleteSnapshot',
            input: ({ context }) => ({ id: context.deleting! }),
            onDone: {
              target: 'ready',
              actions: [
                {
                  type: 'notify',
                  params: ({ context }) => ({
                    text: `“${context.gallery.find((s) => s.id === context.deleting)?.title ?? 'Snapshot'}” deleted`,
                  }),
                },
                assign({
                  gallery: ({ context }) => context.gallery.filter((s) => s.id !== context.deleting),
                  deleting: null,
                }),
              ],
            },
            onError: {
              target: 'ready',
              actions: assign({
                actionError: ({ event }) => `The snapshot could not be deleted: ${errorMessage(event.error)}`,
                deleting: null,
              }),
            },
          },
        },
      },
    },
  },
});
