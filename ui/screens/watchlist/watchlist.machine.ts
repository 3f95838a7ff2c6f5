/**
 * The watch list screen: the user's symbols with their companies and live quotes, each market cap moving with
 * its live price. Adding merges without duplicates and removing filters the symbol out; both show at once and
 * are sent to the server one after the other, the server's answer being the truth. A change made elsewhere
 * (another tab) is read again.
 */
import { marketApi } from '../../../domain/contract/market.ts';
import { watchlistApi } from '../../../domain/contract/watchlist.ts';
import { assertEvent, assign, fromCallback, fromPromise, sendTo, setup } from 'xstate';
import type { Quote } from '../../../domain/market/types.ts';
import { call, errorMessage } from '../../services/api.ts';
import { live } from '../../services/live.ts';
import { showToast } from '../../services/toast.ts';
import {
  companiesBySymbol,
  liveQuoteFeed,
  loadQuotes,
  pricedAt,
  quoteMapOf,
  withPrices,
  withQuotes,
  type CompanyMap,
  type QuoteMap,
} from './quotes.ts';

/** A change of the watch list waiting for the server. */
export type WatchlistChange = { readonly kind: 'add' | 'remove'; readonly symbol: string };

/** What the watch list screen holds. */
export interface WatchlistContext {
  /** The symbols, in the order they were added, with the changes not yet confirmed applied. */
  readonly symbols: readonly string[];
  /**
   * The companies of the universe by symbol (name, sector, shares outstanding), each market cap the shares × the
   * price of the symbol's latest quote (the one the server answered while no quote is held).
   */
  readonly companies: CompanyMap;
  /** The latest quote of each symbol. */
  readonly quotes: QuoteMap;
  /** Changes sent or to send, oldest first. */
  readonly pending: readonly WatchlistChange[];
  /** Whether the list changed on the server since it was read. */
  readonly stale: boolean;
  /** Why the list could not be loaded. */
  readonly error: string | null;
  /** Why the last change could not be saved. */
  readonly saveError: string | null;
}

/** Events of the watch list screen. */
export type WatchlistEvent =
  | { type: 'user.add'; symbol: string }
  | { type: 'user.remove'; symbol: string }
  | { type: 'user.retry' }
  | { type: 'user.dismissError' }
  | { type: 'server.quotes'; quotes: readonly Quote[] }
  | { type: 'server.changed' };

/** What the first load answers. */
export interface WatchlistLoad {
  readonly symbols: readonly string[];
  readonly companies: CompanyMap;
  readonly quotes: readonly Quote[];
}

/** One row of the watch list grid. */
export interface WatchlistRow {
  readonly symbol: string;
  readonly name: string;
  readonly sector: string;
  readonly price: number | null;
  readonly change: number | null;
  readonly changepct: number | null;
  readonly marketcap: number | null;
  readonly volume: number | null;
  /** Whether a change of this row is still being saved. */
  readonly saving: boolean;
}

/** A list with one change applied: an add merges without duplicates, a remove filters the symbol out. */
export function applyChange(symbols: readonly string[], change: WatchlistChange): readonly string[] {
  if (change.kind === 'add') return symbols.includes(change.symbol) ? symbols : [...symbols, change.symbol];
  return symbols.includes(change.symbol) ? symbols.filter((s) => s !== change.symbol) : symbols;
}

/** A list with changes applied in order. */
export function applyChanges(symbols: readonly string[], changes: readonly WatchlistChange[]): readonly string[] {
  return changes.reduce(applyChange, symbols);
}

/** The grid's rows: each symbol with its company and quote. */
export function watchlistRows(context: Pick<WatchlistContext, 'symbols' | 'companies' | 'quotes' | 'pending'>) {
  return context.symbols.map((symbol): WatchlistRow => {
    const company = context.companies[symbol];
    const quote = context.quotes[symbol];
    return {
      symbol,
      name: company?.name ?? '',
      sector: company?.sector ?? '',
      price: quote?.price ?? null,
      change: quote?.change ?? null,
      changepct: quote?.changepct ?? null,
      marketcap: company?.marketcap ?? null,
      volume: quote?.volume ?? null,
      saving: context.pending.some((p) => p.symbol === symbol),
    };
  });
}

/** The watch list screen's machine. */
export const watchlistMachine = setup({
  types: { context: {} as WatchlistContext, events: {} as WatchlistEvent },
  actors: {
    loadWatchlist: fromPromise<WatchlistLoad>(async () => {
      const [symbols, universe] = await Promise.all([call(watchlistApi.getWatchlist), call(marketApi.getUniverse)]);
      return { symbols, companies: companiesBySymbol(universe), quotes: await loadQuotes(symbols) };
    }),
    readWatchlist: fromPromise<readonly string[]>(async () => call(watchlistApi.getWatchlist)),
    saveChange: fromPromise<readonly string[], WatchlistChange>(async ({ input }) =>
      input.kind === 'add'
        ? call(watchlistApi.postCreatewatchlist, { body: [input.symbol] })
        : call(watchlistApi.postDelstkwatchlistBySymbol, { params: { symbol: input.symbol } }),
    ),
    quoteFeed: liveQuoteFeed,
    listChanges: fromCallback<WatchlistEvent>(({ sendBack }) =>
      live.onReadModelChanged((change) => {
        if (change.name === 'watchlist') sendBack({ type: 'server.changed' });
      }),
    ),
  },
  actions: {
    /** Says a symbol is on the list already. */
    tellAlreadyListed: (_, params: { symbol: string }) => showToast(`${params.symbol} is already on your watch list`),
    watchQuotes: sendTo('quotes', ({ context }) => ({ type: 'quotes.watch', symbols: context.symbols })),
    /** Holds the newer quotes of a batch and moves their companies' market caps to their prices. */
    takeQuotes: assign(({ context, event }) => {
      assertEvent(event, 'server.quotes');
      const quotes = withQuotes(context.quotes, event.quotes);
      const taken = event.quotes.filter((quote) => quotes[quote.symbol] === quote);
      return { quotes, companies: withPrices(context.companies, taken) };
    }),
  },
  guards: {
    hasPending: ({ context }) => context.pending.length > 0,
    stale: ({ context }) => context.stale,
    listed: ({ context, event }) => event.type === 'user.add' && context.symbols.includes(event.symbol),
    /** Whether a batch holds a quote newer than the one held for its symbol (older ones change nothing). */
    hasNewerQuote: ({ context, event }) => {
      assertEvent(event, 'server.quotes');
      return withQuotes(context.quotes, event.quotes) !== context.quotes;
    },
  },
}).createMachine({
  id: 'watchlist',
  initial: 'loading',
  context: {
    symbols: [],
    companies: {},
    quotes: {},
    pending: [],
    stale: false,
    error: null,
    saveError: null,
  },
  states: {
    loading: {
      invoke: {
        src: 'loadWatchlist',
        onDone: {
          target: 'ready',
          actions: assign(({ event }) => {
            const quotes = quoteMapOf(event.output.quotes);
            return {
              symbols: event.output.symbols,
              companies: pricedAt(event.output.companies, quotes),
              quotes,
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
      invoke: [
        { id: 'quotes', src: 'quoteFeed', input: ({ context }) => ({ symbols: context.symbols }) },
        { src: 'listChanges' },
      ],
      initial: 'idle',
      on: {
        'user.add': [
          {
            guard: 'listed',
            actions: { type: 'tellAlreadyListed', params: ({ event }) => ({ symbol: event.symbol }) },
          },
          {
            actions: [
              assign(({ context, event }) => {
                const change: WatchlistChange = { kind: 'add', symbol: event.symbol };
                return { pending: [...context.pending, change], symbols: applyChange(context.symbols, change) };
              }),
              'watchQuotes',
            ],
          },
        ],
        'user.remove': {
          guard: ({ context, event }) => context.symbols.includes(event.symbol),
          actions: [
            assign(({ context, event }) => {
              const change: WatchlistChange = { kind: 'remove', symbol: event.symbol };
              return { pending: [...context.pending, change], symbols: applyChange(context.symbols, change) };
            }),
            'watchQuotes',
          ],
        },
        'user.dismissError': { actions: assign({ saveError: null }) },
        'server.quotes': { guard: 'hasNewerQuote', actions: 'takeQuotes' },
        'server.changed': { actions: assign({ stale: true }) },
      },
      states: {
        idle: {
          always: [
            { guard: 'hasPending', target: 'saving' },
            { guard: 'stale', target: 'refreshing' },
          ],
        },
        saving: {
          invoke: {
            src: 'saveChange',
            input: ({ context }) => context.pending[0]!,
            onDone: {
              target: 'idle',
              actions: [
                assign(({ context, event }) => {
                  const rest = context.pending.slice(1);
                  return { pending: rest, symbols: applyChanges(event.output, rest), saveError: null };
                }),
                'watchQuotes',
              ],
            },
            onError: {
              target: 'idle',
              actions: assign(({ context, event }) => ({
                pending: context.pending.slice(1),
                saveError: `Could not ${context.pending[0]?.kind === 'add' ? 'add' : 'remove'} ${
                  context.pending[0]?.symbol ?? 'the symbol'
                }: ${errorMessage(event.error)}`,
                stale: true,
              })),
            },
          },
        },
        refreshing: {
          entry: assign({ stale: false }),
          invoke: {
            src: 'readWatchlist',
            onDone: {
              target: 'idle',
              actions: [
                assign({ symbols: ({ context, event }) => applyChanges(event.output, context.pending) }),
                'watchQuotes',
              ],
            },
            onError: 'idle',
          },
        },
      },
    },
  },
});
