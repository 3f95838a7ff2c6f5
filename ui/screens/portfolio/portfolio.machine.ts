/**
 * The portfolio screen: the user's symbols, the position lots of each, the companies and live quotes. Adding
 * a symbol ignores one already held; adding a lot to a symbol not yet held adds the symbol; removing a symbol
 * removes its lots. Changes are sent to the server one after the other and its answers are the truth. A load
 * that fails keeps its message and stops loading (spec section 8); a change made elsewhere is read again. Live
 * quotes come in batches (at most one a second), so the screen and its charts do not redraw on every tick. A
 * card's "add a lot" form is checked here; what is said of it goes when its field is edited, or when the user
 * acts again in that card.
 */
import { marketApi } from '../../../domain/contract/market.ts';
import { portfolioApi } from '../../../domain/contract/portfolio.ts';
import { assertEvent, assign, fromCallback, fromPromise, sendTo, setup } from 'xstate';
import type { LotFields } from '../../../domain/positions/lots.ts';
import type { Quote } from '../../../domain/market/types.ts';
import { fieldRefusal } from '../../components/fieldRefusal.ts';
import type { UniverseHit } from '../../components/symbolSearch.machine.ts';
import { call, errorMessage } from '../../services/api.ts';
import { live } from '../../services/live.ts';
import { quoteBatcher } from '../../services/quoteBatch.ts';
import { showToast } from '../../services/toast.ts';
import {
  companiesBySymbol,
  loadQuotes,
  quoteMapOf,
  withQuote,
  type QuoteMap,
  type QuoteSource,
  type WatchQuotes,
} from '../watchlist/quotes.ts';
import { checkLotForm, type LotForm, type LotFormErrors, type PositionLot } from './positions.ts';

/** A change of the portfolio waiting for the server. */
export type PortfolioChange =
  | { readonly kind: 'addSymbol'; readonly symbol: string }
  | { readonly kind: 'removeSymbol'; readonly symbol: string }
  | { readonly kind: 'addLot'; readonly symbol: string; readonly lot: LotFields }
  | { readonly kind: 'removeLot'; readonly symbol: string; readonly id: string };

/** What the server answers to a change: the symbol list, or the lots of the symbol. */
export type PortfolioAnswer =
  { readonly symbols: readonly string[] } | { readonly symbol: string; readonly positions: readonly PositionLot[] };

/** A removal waiting for the user to confirm it: a symbol (with its lots), or one lot of it (`lot`, its id). */
export interface RemovalQuestion {
  readonly symbol: string;
  readonly lot: string | null;
}

/** The lots of each symbol. */
export type LotsBySymbol = Readonly<Record<string, readonly PositionLot[]>>;

/** The "add a lot" form of a symbol's card, as the machine holds it. */
export interface LotFormState {
  /** What is wrong with each field, as its last check said (until the field is edited or the card used again). */
  readonly errors: LotFormErrors;
  /** How many lots the form sent (it empties its price and quantity when this grows). */
  readonly sent: number;
}

/** What the portfolio screen holds. */
export interface PortfolioContext {
  /** The portfolio's symbols, in the order they were added. */
  readonly symbols: readonly string[];
  /** The lots of each symbol. */
  readonly lots: LotsBySymbol;
  /** The companies of the universe by symbol. */
  readonly companies: Readonly<Record<string, UniverseHit>>;
  /** The latest quote of each symbol. */
  readonly quotes: QuoteMap;
  /** Changes sent or to send, oldest first. */
  readonly pending: readonly PortfolioChange[];
  /** Whether the portfolio changed on the server since it was read. */
  readonly stale: boolean;
  /** Why the portfolio could not be loaded. */
  readonly error: string | null;
  /** Why the last change could not be saved. */
  readonly saveError: string | null;
  /** The symbol of the change that could not be saved: its card tells why, where the user acted. */
  readonly saveErrorSymbol: string | null;
  /** The removal that waits for the user to confirm it (what it takes with it is told first), or null. */
  readonly confirmingRemoval: RemovalQuestion | null;
  /** The "add a lot" form of each symbol's card that was used. */
  readonly lotForms: Readonly<Record<string, LotFormState>>;
}

/** Events of the portfolio screen. */
export type PortfolioEvent =
  | { type: 'user.addSymbol'; symbol: string }
  | { type: 'user.askRemoveSymbol'; symbol: string }
  | { type: 'user.askRemoveLot'; symbol: string; id: string }
  | { type: 'user.keep' }
  | { type: 'user.removeSymbol'; symbol: string }
  /** The "add a lot" form of a card sent as typed, with today's date (no lot after it). */
  | { type: 'user.addLot'; symbol: string; form: LotForm; today: string }
  | { type: 'user.editLot'; symbol: string; field: keyof LotForm }
  | { type: 'user.removeLot'; symbol: string; id: string }
  | { type: 'user.retry' }
  | { type: 'user.dismissError' }
  | { type: 'server.quote'; quote: Quote }
  | { type: 'server.quotes'; quotes: readonly Quote[] }
  | { type: 'server.changed' };

/** How long live quotes are gathered before the screen takes them, in milliseconds. */
export const QUOTE_BATCH_MS = 1000;

/**
 * The socket feed of quotes in batches: follows `input.symbols`, then whatever `quotes.watch` names; the latest
 * quote of each symbol that moved comes back in one `server.quotes`, the first at once, then at most one per
 * `batchMs`.
 */
export function batchedQuoteFeedOf(source: QuoteSource, batchMs = QUOTE_BATCH_MS) {
  return fromCallback<WatchQuotes, { symbols: readonly string[] }>(({ input, receive, sendBack }) => {
    const batches = quoteBatcher(batchMs, (quotes) =>
      sendBack({ type: 'server.quotes', quotes } satisfies PortfolioEvent),
    );
    // Each subscription has a listener of its own, so ending the previous one never ends the next.
    const follow = (symbols: readonly string[]) =>
      symbols.length > 0 ? source.onQuotes(symbols, (quote: Quote) => batches.take(quote)) : () => undefined;
    let off = follow(input.symbols);
    receive((event) => {
      // Subscribing before unsubscribing keeps the quotes of symbols that stay.
      const next = follow(event.symbols);
      off();
      off = next;
    });
    return () => {
      off();
      batches.stop();
    };
  });
}

/** What a load answers. */
export interface PortfolioLoad {
  readonly symbols: readonly string[];
  readonly lots: LotsBySymbol;
  readonly companies?: Readonly<Record<string, UniverseHit>>;
  readonly quotes?: readonly Quote[];
}

/** The portfolio after the server answered a change. */
export function applyAnswer(
  state: Pick<PortfolioContext, 'symbols' | 'lots'>,
  change: PortfolioChange,
  answer: PortfolioAnswer,
): Pick<PortfolioContext, 'symbols' | 'lots'> {
  if ('symbols' in answer) {
    const lots = { ...state.lots };
    for (const symbol of Object.keys(lots)) if (!answer.symbols.includes(symbol)) delete lots[symbol];
    for (const symbol of answer.symbols) lots[symbol] ??= [];
    return { symbols: answer.symbols, lots };
  }
  // A lot added to a symbol not held yet adds the symbol on the server too.
  const symbols =
    change.kind === 'addLot' && !state.symbols.includes(answer.symbol)
      ? [...state.symbols, answer.symbol]
      : state.symbols;
  return { symbols, lots: { ...state.lots, [answer.symbol]: answer.positions } };
}

/** A short description of a change, for its failure message. */
export function describeChange(change: PortfolioChange): string {
  switch (change.kind) {
    case 'addSymbol':
      return `add ${change.symbol}`;
    case 'removeSymbol':
      return `remove ${change.symbol}`;
    case 'addLot':
      return `add the lot of ${change.symbol}`;
    case 'removeLot':
      return `remove the lot of ${change.symbol}`;
  }
}

/** The words of the lot form's controls for the fields of a lot the server refuses. */
const LOT_LABELS: Readonly<Record<string, string>> = { date: 'Date', close: 'Price', position: 'Quantity' };

/**
 * Why a change could not be saved, in the card's words: what was tried, then the server's reason with the field
 * named as the lot form labels it, or left out where the card has no control for it (`body.id: 4 shares of the
 * 2024-01-10 lot…` → `Could not remove the lot of AAPL: 4 shares of the 2024-01-10 lot…`).
 */
export function changeRefusal(change: PortfolioChange | undefined, error: unknown): string {
  const labels = change?.kind === 'addLot' ? LOT_LABELS : {};
  return `Could not ${change ? describeChange(change) : 'save'}: ${fieldRefusal(errorMessage(error), labels).text}`;
}

/** The lot a card's form spells, or null when the form's check refuses it. */
function lotOf(event: { form: LotForm; today: string }): LotFields | null {
  return checkLotForm(event.form, event.today).lot;
}

/** The lot form of a symbol's card, never used yet. */
export const UNUSED_LOT_FORM: LotFormState = { errors: {}, sent: 0 };

/** The lot forms with that of `symbol` changed by `change`. */
function withLotForm(
  forms: Readonly<Record<string, LotFormState>>,
  symbol: string,
  change: (form: LotFormState) => LotFormState,
): Readonly<Record<string, LotFormState>> {
  return { ...forms, [symbol]: change(forms[symbol] ?? UNUSED_LOT_FORM) };
}

/** Whether what a removal question is about is still held (a lot: among its symbol's lots). */
function stillThere(context: Pick<PortfolioContext, 'symbols' | 'lots'>, question: RemovalQuestion): boolean {
  if (!context.symbols.includes(question.symbol)) return false;
  return question.lot === null || (context.lots[question.symbol] ?? []).some((lot) => lot.id === question.lot);
}

/** The removal a user's question is about: a symbol, or one of its lots. */
function questionOf(
  event: Extract<PortfolioEvent, { type: 'user.askRemoveSymbol' | 'user.askRemoveLot' }>,
): RemovalQuestion {
  return { symbol: event.symbol, lot: event.type === 'user.askRemoveLot' ? event.id : null };
}

/** The symbols whose quotes the screen follows. */
function watched(context: Pick<PortfolioContext, 'symbols'>): readonly string[] {
  return context.symbols;
}

async function loadLots(symbols: readonly string[]): Promise<LotsBySymbol> {
  const answers = await Promise.all(
    symbols.map((symbol) => call(portfolioApi.getUserPositionsBySymbol, { params: { symbol } })),
  );
  return Object.fromEntries(answers.map((answer) => [answer.symbol, answer.positions]));
}

/** What an event in a card does first: forget what was said there of what the user did before. */
const inCard = {
  type: 'forgetCardMessages',
  params: ({ event }: { event: Extract<PortfolioEvent, { symbol: string }> }) => ({ symbol: event.symbol }),
} as const;

/** The portfolio screen's machine. */
export const portfolioMachine = setup({
  types: { context: {} as PortfolioContext, events: {} as PortfolioEvent },
  actors: {
    loadPortfolio: fromPromise<PortfolioLoad>(async () => {
      const [symbols, universe] = await Promise.all([
        call(portfolioApi.getUserstkpositions),
        call(marketApi.getUniverse),
      ]);
      const [lots, quotes] = await Promise.all([loadLots(symbols), loadQuotes(symbols)]);
      return { symbols, lots, companies: companiesBySymbol(universe), quotes };
    }),
    readPortfolio: fromPromise<PortfolioLoad>(async () => {
      const symbols = await call(portfolioApi.getUserstkpositions);
      return { symbols, lots: await loadLots(symbols) };
    }),
    saveChange: fromPromise<PortfolioAnswer, PortfolioChange>(async ({ input }) => {
      const params = { symbol: input.symbol };
      switch (input.kind) {
        case 'addSymbol':
          return { symbols: await call(portfolioApi.postUserstockportfolio, { body: [input.symbol] }) };
        case 'removeSymbol':
          return { symbols: await call(portfolioApi.postDelstockfromportfolioBySymbol, { params }) };
        case 'addLot':
          return call(portfolioApi.postUserPositionsBySymbol, { params, body: input.lot });
        case 'removeLot':
          return call(portfolioApi.postDeluserPositionsBySymbol, { params, body: { id: input.id } });
      }
    }),
    quoteFeed: batchedQuoteFeedOf(live),
    portfolioChanges: fromCallback<PortfolioEvent>(({ sendBack }) =>
      live.onReadModelChanged((change) => {
        if (change.name === 'portfolio' || change.name === 'positionlots') sendBack({ type: 'server.changed' });
      }),
    ),
  },
  actions: {
    /** Says a symbol is in the portfolio already. */
    tellAlreadyHeld: (_, params: { symbol: string }) => showToast(`${params.symbol} is already in your portfolio`),
    watchQuotes: sendTo('quotes', ({ context }) => ({ type: 'quotes.watch', symbols: watched(context) })),
    askToConfirmRemoval: assign({
      confirmingRemoval: ({ event }) => {
        assertEvent(event, ['user.askRemoveSymbol', 'user.askRemoveLot']);
        return questionOf(event);
      },
    }),
    forgetRemovalQuestion: assign({ confirmingRemoval: null }),
    /**
     * The user acts again in a card: what its lot form's last check said, and why its last change failed, are
     * about what was done before and go.
     */
    forgetCardMessages: assign(({ context }, params: { symbol: string }) => ({
      lotForms: Object.keys(context.lotForms[params.symbol]?.errors ?? {}).length
        ? withLotForm(context.lotForms, params.symbol, (form) => ({ ...form, errors: {} }))
        : context.lotForms,
      ...(context.saveErrorSymbol === params.symbol ? { saveError: null, saveErrorSymbol: null } : {}),
    })),
    /** The lot form's own refusal of what was typed, field by field. */
    refuseLotForm: assign({
      lotForms: ({ context, event }) => {
        assertEvent(event, 'user.addLot');
        const errors = checkLotForm(event.form, event.today).errors ?? {};
        return withLotForm(context.lotForms, event.symbol, (form) => ({ ...form, errors }));
      },
    }),
    /** A lot sent from a card's form: the form empties its price and quantity. */
    countLotSent: assign({
      lotForms: ({ context, event }) => {
        assertEvent(event, 'user.addLot');
        return withLotForm(context.lotForms, event.symbol, (form) => ({ errors: {}, sent: form.sent + 1 }));
      },
    }),
    /** A field of a lot form edited: what its check said of it is about what was typed before. */
    forgetLotFieldError: assign({
      lotForms: ({ context, event }) => {
        assertEvent(event, 'user.editLot');
        return withLotForm(context.lotForms, event.symbol, (form) => {
          const { [event.field]: _edited, ...errors } = form.errors;
          return { ...form, errors };
        });
      },
    }),
    dropRemovalQuestionOfGone: assign({
      confirmingRemoval: ({ context }) =>
        context.confirmingRemoval !== null && stillThere(context, context.confirmingRemoval)
          ? context.confirmingRemoval
          : null,
    }),
    enqueue: assign({
      pending: ({ context, event }) => {
        switch (event.type) {
          case 'user.addSymbol':
          case 'user.removeSymbol':
            return [
              ...context.pending,
              { kind: event.type === 'user.addSymbol' ? 'addSymbol' : 'removeSymbol', symbol: event.symbol } as const,
            ];
          case 'user.addLot': {
            const lot = lotOf(event);
            return lot === null
              ? context.pending
              : [...context.pending, { kind: 'addLot', symbol: event.symbol, lot } as const];
          }
          case 'user.removeLot':
            return [...context.pending, { kind: 'removeLot', symbol: event.symbol, id: event.id } as const];
          default:
            return context.pending;
        }
      },
    }),
  },
  guards: {
    hasPending: ({ context }) => context.pending.length > 0,
    lotFormChecks: ({ event }) => {
      assertEvent(event, 'user.addLot');
      return lotOf(event) !== null;
    },
    lotFieldRefused: ({ context, event }) => {
      assertEvent(event, 'user.editLot');
      return context.lotForms[event.symbol]?.errors[event.field] !== undefined;
    },
    stale: ({ context }) => context.stale,
    holdsAsked: ({ context, event }) => {
      assertEvent(event, ['user.askRemoveSymbol', 'user.askRemoveLot']);
      return stillThere(context, questionOf(event));
    },
    held: ({ context, event }) =>
      event.type === 'user.addSymbol' &&
      (context.symbols.includes(event.symbol) ||
        context.pending.some((p) => p.kind === 'addSymbol' && p.symbol === event.symbol)),
  },
}).createMachine({
  id: 'portfolio',
  initial: 'loading',
  context: {
    symbols: [],
    lots: {},
    companies: {},
    quotes: {},
    pending: [],
    stale: false,
    error: null,
    saveError: null,
    saveErrorSymbol: null,
    confirmingRemoval: null,
    lotForms: {},
  },
  states: {
    loading: {
      invoke: {
        src: 'loadPortfolio',
        onDone: {
          target: 'ready',
          actions: assign({
            symbols: ({ event }) => event.output.symbols,
            lots: ({ event }) => event.output.lots,
            companies: ({ event }) => event.output.companies ?? {},
            quotes: ({ event }) => quoteMapOf(event.output.quotes ?? []),
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
      invoke: [
        { id: 'quotes', src: 'quoteFeed', input: ({ context }) => ({ symbols: watched(context) }) },
        { src: 'portfolioChanges' },
      ],
      initial: 'idle',
      on: {
        'user.addSymbol': [
          { guard: 'held', actions: { type: 'tellAlreadyHeld', params: ({ event }) => ({ symbol: event.symbol }) } },
          { actions: 'enqueue' },
        ],
        // Removing a symbol takes its lots and transactions with it, a lot its purchase: the screen asks first.
        'user.askRemoveSymbol': { guard: 'holdsAsked', actions: ['askToConfirmRemoval', inCard] },
        'user.askRemoveLot': { guard: 'holdsAsked', actions: ['askToConfirmRemoval', inCard] },
        'user.keep': { actions: 'forgetRemovalQuestion' },
        'user.removeSymbol': {
          // A symbol already being removed is not sent again: the server refuses one it no longer holds.
          guard: ({ context, event }) =>
            context.symbols.includes(event.symbol) &&
            !context.pending.some((p) => p.kind === 'removeSymbol' && p.symbol === event.symbol),
          actions: ['enqueue', 'forgetRemovalQuestion', inCard],
        },
        // The form's own check first: a lot it refuses is not sent, and its fields say why.
        'user.addLot': [
          { guard: 'lotFormChecks', actions: [inCard, 'enqueue', 'countLotSent'] },
          { actions: [inCard, 'refuseLotForm'] },
        ],
        'user.editLot': { guard: 'lotFieldRefused', actions: 'forgetLotFieldError' },
        'user.removeLot': { actions: ['enqueue', 'forgetRemovalQuestion', inCard] },
        'user.dismissError': { actions: assign({ saveError: null, saveErrorSymbol: null }) },
        'server.quote': { actions: assign({ quotes: ({ context, event }) => withQuote(context.quotes, event.quote) }) },
        'server.quotes': {
          actions: assign({ quotes: ({ context, event }) => event.quotes.reduce(withQuote, context.quotes) }),
        },
        'server.changed': { actions: assign({ stale: true }) },
      },
      states: {
        idle: {
          // After each change or read: a question about a symbol or a lot no longer held (removed elsewhere) is dropped.
          entry: 'dropRemovalQuestionOfGone',
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
                assign(({ context, event }) => ({
                  ...applyAnswer(context, context.pending[0]!, event.output),
                  pending: context.pending.slice(1),
                  saveError: null,
                  saveErrorSymbol: null,
                })),
                'watchQuotes',
              ],
            },
            onError: {
              target: 'idle',
              actions: assign(({ context, event }) => ({
                pending: context.pending.slice(1),
                saveError: changeRefusal(context.pending[0], event.error),
                saveErrorSymbol: context.pending[0]?.symbol ?? null,
                stale: true,
              })),
            },
          },
        },
        refreshing: {
          entry: assign({ stale: false }),
          invoke: {
            src: 'readPortfolio',
            onDone: [
              // Changes still to send were made on what is shown; the next read brings the server's truth.
              { guard: 'hasPending', target: 'idle', actions: assign({ stale: true }) },
              {
                target: 'idle',
                actions: [
                  assign({ symbols: ({ event }) => event.output.symbols, lots: ({ event }) => event.output.lots }),
                  'watchQuotes',
                ],
              },
            ],
            onError: 'idle',
          },
        },
      },
    },
  },
});
