/**
 * The portfolio: the symbols a user holds and, per symbol, the position lots that make up the holding. One
 * stream holds both, so a lot always belongs to a symbol of the portfolio: adding a lot for a new symbol adds
 * the symbol first, and removing a symbol removes its lots.
 */
import { DomainError, type Decider, type DomainEvent, eventTypes, unknownCommand } from '../decider.ts';
import { formatQuantity } from '../format.ts';
import {
  LOTS_PER_SYMBOL_LIMIT,
  lotMatches,
  oldestFirst,
  parseLotFields,
  type Lot,
  type LotFields,
} from '../positions/lots.ts';
import { newSymbols, parseSymbol } from '../symbol.ts';
import {
  OPEN_LOTS_PER_SYMBOL_LIMIT,
  TRANSACTIONS_LIMIT,
  TRANSACTIONS_PER_COMMAND_LIMIT,
  afterClosings,
  matchTrade,
  parseTransaction,
  replayTrades,
  roundQuantity,
  type BuyTransaction,
  type CashTransaction,
  type Closing,
  type SellTransaction,
  type Transaction,
} from './transactions.ts';

/** The concern name of portfolio streams (`portfolio-<userId>`). */
export const PORTFOLIO_CONCERN = 'portfolio';

/** Most symbols a portfolio may hold. */
export const PORTFOLIO_LIMIT = 200;

/** Adds symbols to the portfolio; ones already there, and repeats within the command, are ignored. */
export interface AddSymbolsToPortfolio {
  /** Command type. */
  readonly type: 'AddSymbolsToPortfolio';
  /** The payload. */
  readonly data: {
    /** Symbols to add, in order; case does not matter. */
    readonly symbols: readonly string[];
  };
}

/** Removes a symbol and all its lots; refused (`not_found`, naming `symbol`) when it is not in the portfolio. */
export interface RemoveSymbolFromPortfolio {
  /** Command type. */
  readonly type: 'RemoveSymbolFromPortfolio';
  /** The payload. */
  readonly data: {
    /** The symbol to remove; case does not matter. */
    readonly symbol: string;
  };
}

/** Adds lots to a symbol, adding the symbol to the portfolio when it is not there yet. */
export interface AddPositionLots {
  /** Command type. */
  readonly type: 'AddPositionLots';
  /** The payload. */
  readonly data: {
    /** The symbol the lots are of. */
    readonly symbol: string;
    /** The lots, with ids derived from the command's id. */
    readonly lots: readonly Lot[];
    /** The command's time (ISO 8601, UTC): lots dated after it are refused. */
    readonly at: string;
  };
}

/** Removes one lot of a symbol, named by its id or by its fields (the oldest such lot). */
export interface RemovePositionLot {
  /** Command type. */
  readonly type: 'RemovePositionLot';
  /** The payload. */
  readonly data: {
    /** The symbol the lot is of. */
    readonly symbol: string;
    /** The lot: its id, or its date, price and quantity. */
    readonly lot: { readonly id: string } | LotFields;
  };
}

/**
 * Records transactions in order, all or none; a transaction whose id is recorded already is skipped, so a
 * file imported again (its rows keyed by content) adds nothing.
 */
export interface RecordTransactions {
  /** Command type. */
  readonly type: 'RecordTransactions';
  /** The payload. */
  readonly data: {
    /** The transactions, oldest first, each with its id. */
    readonly transactions: readonly Transaction[];
    /** The command's time (ISO 8601, UTC): transactions dated after it are refused. */
    readonly at: string;
  };
}

/** Every command of the portfolio. */
export type PortfolioCommand =
  AddSymbolsToPortfolio | RemoveSymbolFromPortfolio | AddPositionLots | RemovePositionLot | RecordTransactions;

/** A symbol was put at the end of the portfolio. */
export type SymbolAddedToPortfolio = DomainEvent<'SymbolAddedToPortfolio', { readonly symbol: string }>;

/** A symbol was taken out of the portfolio (its lots were removed just before). */
export type SymbolRemovedFromPortfolio = DomainEvent<'SymbolRemovedFromPortfolio', { readonly symbol: string }>;

/** A lot was added to a symbol of the portfolio. */
export type PositionLotAdded = DomainEvent<'PositionLotAdded', { readonly symbol: string; readonly lot: Lot }>;

/** A lot was removed from a symbol of the portfolio. */
export type PositionLotRemoved = DomainEvent<'PositionLotRemoved', { readonly symbol: string; readonly id: string }>;

/** What a trade did to the lots of its symbol: the parts it closed and the lot it opened with the rest. */
interface TradeData<T> {
  readonly symbol: string;
  readonly transaction: T;
  /** The parts of open lots it closed, with their realized gains. */
  readonly closings: readonly Closing[];
  /** The quantity of the lot it opened (id of the transaction; positive long, negative short; 0 for none). */
  readonly opened: number;
}

/** Shares were bought: short lots covered first, the rest a new long lot. */
export type SharesBought = DomainEvent<'SharesBought', TradeData<BuyTransaction>>;

/** Shares were sold: long lots closed first, the rest a new short lot. */
export type SharesSold = DomainEvent<'SharesSold', TradeData<SellTransaction>>;

/** A dividend was received on a holding. */
export type DividendReceived = DomainEvent<
  'DividendReceived',
  { readonly symbol: string; readonly transaction: CashTransaction }
>;

/** A fee was charged on a holding. */
export type FeeCharged = DomainEvent<'FeeCharged', { readonly symbol: string; readonly transaction: CashTransaction }>;

/**
 * A trade dated before trades of its symbol recorded earlier changed what they close: the symbol's trades were
 * matched again oldest first (those of one date in the order recorded), and these are its open lots and closed
 * parts now, in place of the ones before.
 */
export type TradesRematched = DomainEvent<
  'TradesRematched',
  { readonly symbol: string; readonly lots: readonly Lot[]; readonly closings: readonly Closing[] }
>;

/** Every event of the portfolio. */
export type PortfolioEvent =
  | SymbolAddedToPortfolio
  | SymbolRemovedFromPortfolio
  | PositionLotAdded
  | PositionLotRemoved
  | SharesBought
  | SharesSold
  | DividendReceived
  | FeeCharged
  | TradesRematched;

/** Every event type of the portfolio concern. */
export const PORTFOLIO_EVENT_TYPES = eventTypes<PortfolioEvent>()(
  'SymbolAddedToPortfolio',
  'SymbolRemovedFromPortfolio',
  'PositionLotAdded',
  'PositionLotRemoved',
  'SharesBought',
  'SharesSold',
  'DividendReceived',
  'FeeCharged',
  'TradesRematched',
);

/**
 * A user's portfolio: its symbols in the order added, the open lots of each symbol in the order added, every
 * transaction in the order recorded (a lot added directly counts as a buy, or a sell for a short lot), and
 * every part of a lot a trade closed.
 */
export interface PortfolioState {
  /** The symbols, oldest first, without duplicates. */
  readonly symbols: readonly string[];
  /** The open lots of each symbol that has any. */
  readonly lots: Readonly<Record<string, readonly Lot[]>>;
  /** The transactions, in the order recorded. */
  readonly transactions: readonly Transaction[];
  /** The closed parts of lots, in the order closed. */
  readonly closings: readonly Closing[];
}

/** The lots of a symbol in a portfolio state (none when it has none). */
export function lotsOf(state: PortfolioState, symbol: string): readonly Lot[] {
  return Object.hasOwn(state.lots, symbol) ? state.lots[symbol]! : [];
}

function parseLotId(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 100) {
    throw new DomainError('invalid_lot', `${field} must be a lot id`, field);
  }
  return value;
}

function tooMany(symbols: number): DomainError {
  return new DomainError(
    'limit',
    `symbols would make the portfolio ${symbols} long; at most ${PORTFOLIO_LIMIT}`,
    'symbols',
  );
}

/** The refusal of a command about a symbol the portfolio does not hold. */
function notHeld(symbol: string): DomainError {
  return new DomainError('not_found', `symbol: ${symbol} is not in the portfolio`, 'symbol');
}

/**
 * The refusal to remove by hand a lot part of which a trade closed: its trades would still count the shares
 * removed, so it is closed by recording the trade of the rest (or the symbol removed with its transactions).
 */
function partlyClosed(symbol: string, lot: Lot, sold: readonly Closing[], field: string): DomainError {
  const long = lot.position > 0;
  const closed = roundQuantity(sold.reduce((sum, c) => sum + Math.abs(c.quantity), 0));
  const last = sold.reduce((date, c) => (c.closeDate > date ? c.closeDate : date), sold[0]!.closeDate);
  const left = formatQuantity(Math.abs(lot.position));
  return new DomainError(
    'conflict',
    `${field}: ${formatQuantity(closed)} ${closed === 1 ? 'share' : 'shares'} of the ${lot.date} lot of ${symbol} ` +
      `${closed === 1 ? 'was' : 'were'} ${long ? 'sold' : 'bought back'}, the last on ${last}; ` +
      `record ${long ? 'a sale' : 'a purchase'} ` +
      `of the ${left} left to close it, or remove ${symbol} with its transactions`,
    field,
  );
}

/**
 * A lot opened by a trade that also closed earlier lots (a sale beyond the shares held, a purchase beyond the
 * short): removing it would take out that trade, whose closings would stay.
 */
function closedOthers(symbol: string, lot: Lot, closings: readonly Closing[], field: string): DomainError {
  const long = lot.position > 0;
  const closed = roundQuantity(closings.reduce((sum, c) => sum + Math.abs(c.quantity), 0));
  const left = formatQuantity(Math.abs(lot.position));
  return new DomainError(
    'conflict',
    `${field}: the ${lot.date} lot of ${symbol} (${long ? 'long' : 'short'} ${left}) was opened by ` +
      `${long ? 'a purchase' : 'a sale'} that also ${long ? 'bought back' : 'sold'} ${formatQuantity(closed)} ` +
      `${closed === 1 ? 'share' : 'shares'} of earlier lots; record ${long ? 'a sale' : 'a purchase'} ` +
      `of the ${left} to close it, or remove ${symbol} with its transactions`,
    field,
  );
}

function decide(command: PortfolioCommand, state: PortfolioState): PortfolioEvent[] {
  switch (command.type) {
    case 'AddSymbolsToPortfolio': {
      const added = newSymbols(state.symbols, command.data.symbols);
      if (state.symbols.length + added.length > PORTFOLIO_LIMIT) throw tooMany(state.symbols.length + added.length);
      return added.map((symbol) => ({ type: 'SymbolAddedToPortfolio', data: { symbol } }));
    }
    case 'RemoveSymbolFromPortfolio': {
      const symbol = parseSymbol(command.data.symbol, 'symbol');
      if (!state.symbols.includes(symbol)) throw notHeld(symbol);
      return [
        ...lotsOf(state, symbol).map((lot): PortfolioEvent => ({
          type: 'PositionLotRemoved',
          data: { symbol, id: lot.id },
        })),
        { type: 'SymbolRemovedFromPortfolio', data: { symbol } },
      ];
    }
    case 'AddPositionLots': {
      const symbol = parseSymbol(command.data.symbol, 'symbol');
      const { lots, at } = command.data;
      if (lots.length === 0) throw new DomainError('empty', 'lots must hold at least one lot', 'lots');
      const held = lotsOf(state, symbol);
      if (held.length + lots.length > LOTS_PER_SYMBOL_LIMIT) {
        throw new DomainError(
          'limit',
          `lots would give ${symbol} ${held.length + lots.length} lots; at most ${LOTS_PER_SYMBOL_LIMIT}`,
          'lots',
        );
      }
      const ids = new Set(held.map((lot) => lot.id));
      const added = lots.map((lot, i): Lot => {
        const id = parseLotId(lot.id, `lots[${i}].id`);
        if (ids.has(id))
          throw new DomainError('conflict', `lots[${i}].id ${id} is already a lot of ${symbol}`, `lots[${i}].id`);
        ids.add(id);
        return { id, ...parseLotFields(lot, `lots[${i}]`, at) };
      });
      const events: PortfolioEvent[] = [];
      if (!state.symbols.includes(symbol)) {
        if (state.symbols.length + 1 > PORTFOLIO_LIMIT) throw tooMany(state.symbols.length + 1);
        events.push({ type: 'SymbolAddedToPortfolio', data: { symbol } });
      }
      for (const lot of added) events.push({ type: 'PositionLotAdded', data: { symbol, lot } });
      return events;
    }
    case 'RemovePositionLot': {
      const symbol = parseSymbol(command.data.symbol, 'symbol');
      if (!state.symbols.includes(symbol)) throw notHeld(symbol);
      const held = lotsOf(state, symbol);
      const named = command.data.lot;
      let found: Lot | undefined;
      const byId = typeof named === 'object' && named !== null && 'id' in named;
      if (byId) {
        const id = parseLotId(named.id, 'lot.id');
        found = held.find((lot) => lot.id === id);
        if (!found) throw new DomainError('not_found', `lot.id ${id} is not a lot of ${symbol}`, 'lot.id');
      } else {
        // The date bound does not matter when matching: any date a lot was accepted with is fine here.
        const fields = parseLotFields(named, 'lot', '9999-12-31T00:00:00Z');
        found = held.find((lot) => lotMatches(lot, fields));
        if (!found) {
          throw new DomainError(
            'not_found',
            `lot ${fields.date} ${fields.close} × ${fields.position} is not a lot of ${symbol}`,
            'lot',
          );
        }
      }
      const field = byId ? 'lot.id' : 'lot';
      const { id } = found;
      const sold = state.closings.filter((c) => c.symbol === symbol && c.lotId === id);
      if (sold.length > 0) throw partlyClosed(symbol, found, sold, field);
      // The trade that opened it leaves the transactions with it: refused when that trade also closed other lots,
      // which would stay closed by a trade no longer listed.
      const closedBy = state.closings.filter((c) => c.symbol === symbol && c.transactionId === id);
      if (closedBy.length > 0) throw closedOthers(symbol, found, closedBy, field);
      return [{ type: 'PositionLotRemoved', data: { symbol, id } }];
    }
    case 'RecordTransactions':
      return recordTransactions(command.data, state);
    default:
      throw unknownCommand(command, 'portfolio');
  }
}

/**
 * The events of one checked transaction not recorded yet, decided on the state the ones before it left;
 * refusals name `field`. {@link RecordTransactions} decides each of its transactions this way.
 */
export function decideTransaction(t: Transaction, state: PortfolioState, field: string): PortfolioEvent[] {
  const { symbol } = t;
  const events: PortfolioEvent[] = [];
  if (!state.symbols.includes(symbol)) {
    if (t.kind === 'dividend' || t.kind === 'fee') {
      throw new DomainError('not_held', `${field}.symbol ${symbol} is not in the portfolio`, `${field}.symbol`);
    }
    if (state.symbols.length + 1 > PORTFOLIO_LIMIT) throw tooMany(state.symbols.length + 1);
    events.push({ type: 'SymbolAddedToPortfolio', data: { symbol } });
  }
  if (t.kind === 'dividend' || t.kind === 'fee') {
    const type = t.kind === 'dividend' ? 'DividendReceived' : 'FeeCharged';
    return [...events, { type, data: { symbol, transaction: t } }];
  }
  const held = lotsOf(state, symbol);
  const { closings, opened } = matchTrade(t, held, field);
  if (opened !== 0 && afterClosings(held, closings).length + 1 > OPEN_LOTS_PER_SYMBOL_LIMIT) {
    throw new DomainError(
      'limit',
      `${field} would give ${symbol} more than ${OPEN_LOTS_PER_SYMBOL_LIMIT} open lots`,
      `${field}.quantity`,
    );
  }
  if (t.kind === 'buy')
    return [...events, { type: 'SharesBought', data: { symbol, transaction: t, closings, opened } }];
  return [...events, { type: 'SharesSold', data: { symbol, transaction: t, closings, opened } }];
}

function recordTransactions(data: RecordTransactions['data'], state: PortfolioState): PortfolioEvent[] {
  const given: readonly unknown[] = Array.isArray(data.transactions) ? data.transactions : [];
  if (given.length === 0) throw new DomainError('empty', 'transactions must hold at least one', 'transactions');
  if (given.length > TRANSACTIONS_PER_COMMAND_LIMIT) {
    throw new DomainError(
      'limit',
      `transactions holds ${given.length}; at most ${TRANSACTIONS_PER_COMMAND_LIMIT} at once`,
      'transactions',
    );
  }
  const known = new Set(idsOf(state.transactions));
  const prior = new Set(known);
  const events: PortfolioEvent[] = [];
  // The state each transaction is decided on, folded in place (an import of thousands copies no list per event).
  const current = new PortfolioDraft(state);
  const latest = latestTradeDates(state.transactions);
  // The first trade of each symbol dated before one recorded before it: its field names the refusals.
  const backDated = new Map<string, { field: string; date: string }>();
  given.forEach((raw, i) => {
    const field = `transactions[${i}]`;
    const t = parseTransaction(raw, field, data.at);
    if (known.has(t.id)) return;
    known.add(t.id);
    if (known.size > TRANSACTIONS_LIMIT) {
      throw new DomainError('limit', `${field} would record more than ${TRANSACTIONS_LIMIT} transactions`, field);
    }
    if (t.kind === 'buy' || t.kind === 'sell') {
      const before = latest.get(t.symbol);
      if (before !== undefined && t.date < before && !backDated.has(t.symbol)) {
        backDated.set(t.symbol, { field, date: t.date });
      }
      if (before === undefined || t.date > before) latest.set(t.symbol, t.date);
    }
    for (const event of decideTransaction(t, current.view(), field)) {
      events.push(event);
      current.apply(event);
    }
  });
  for (const [symbol, at] of backDated) {
    const event = rematch(current.view(), symbol, at, prior);
    if (event) {
      events.push(event);
      current.apply(event);
    }
  }
  return events;
}

/** The latest date of each symbol's buys and sells. */
function latestTradeDates(transactions: readonly Transaction[]): Map<string, string> {
  const latest = new Map<string, string>();
  for (const t of transactions) {
    if (t.kind !== 'buy' && t.kind !== 'sell') continue;
    const before = latest.get(t.symbol);
    if (before === undefined || t.date > before) latest.set(t.symbol, t.date);
  }
  return latest;
}

const byIdentity = (lots: readonly Lot[]): string =>
  JSON.stringify([...lots].map((l) => [l.id, l.date, l.close, l.position]).sort());
const closingsIdentity = (closings: readonly Closing[]): string =>
  JSON.stringify(closings.map((c) => [c.transactionId, c.lotId, c.quantity, c.gainCents]).sort());

/**
 * In words, the later trade whose lots, named by it, a back-dated trade matched first in first out would take:
 * `the sale of 20 shares on 2024-03-10 sells by name the lot bought on 2024-02-10, which this trade would take
 * first`.
 */
function namedLotsTaken(
  later: BuyTransaction | SellTransaction,
  trades: readonly (BuyTransaction | SellTransaction)[],
): string {
  const quantity = `${formatQuantity(later.quantity)} ${later.quantity === 1 ? 'share' : 'shares'}`;
  const named = later.kind === 'sell' ? (later.lots ?? []) : [];
  const dates = [...new Set(named.map((pick) => trades.find((t) => t.id === pick.id)?.date ?? 'an earlier day'))];
  const lots = dates.length === 1 ? `the lot bought on ${dates[0]}` : `the lots bought on ${dates.join(', ')}`;
  return named.length === 0
    ? `the ${later.kind === 'sell' ? 'sale' : 'purchase'} of ${quantity} on ${later.date} would no longer match`
    : `the sale of ${quantity} on ${later.date} sells by name ${lots}, which this trade would take first`;
}

/**
 * After a trade dated before trades of its symbol recorded earlier (`at`): the symbol's trades matched again
 * oldest first, or null when that closes the same parts. The symbol's lots must be what its trades tell: those
 * recorded before this command (`prior`) matched in the order recorded (as before any trade was back-dated) or
 * oldest first (as since), then this command's in its order. Refused, naming the back-dated trade's date, when
 * they are not (a lot added by hand while opposite lots were open, or removed after part of it was sold), or when
 * a later sale's named lots no longer hold what it sold.
 */
function rematch(
  state: PortfolioState,
  symbol: string,
  at: { field: string; date: string },
  prior: ReadonlySet<string>,
): PortfolioEvent | null {
  const trades = state.transactions.filter(
    (t): t is BuyTransaction | SellTransaction => t.symbol === symbol && (t.kind === 'buy' || t.kind === 'sell'),
  );
  const held = lotsOf(state, symbol);
  const closed = state.closings.filter((c) => c.symbol === symbol);
  const fieldOf = (t: Transaction) => `the ${t.kind} ${t.id} of ${t.date}`;
  const tells = (order: readonly (BuyTransaction | SellTransaction)[]): boolean => {
    try {
      const replay = replayTrades(order, fieldOf);
      return (
        byIdentity(replay.lots) === byIdentity(held) && closingsIdentity(replay.closings) === closingsIdentity(closed)
      );
    } catch {
      return false;
    }
  };
  const before = trades.filter((t) => prior.has(t.id));
  const now = trades.filter((t) => !prior.has(t.id));
  if (!tells([...before, ...now]) && !tells([...oldestFirst(before), ...now])) {
    throw new DomainError(
      'invalid_transaction',
      `${at.field}.date ${at.date} is before trades of ${symbol} recorded already, and ${symbol}'s lots were ` +
        'changed by hand since: record its trades in date order, or remove the symbol and record them again',
      `${at.field}.date`,
    );
  }
  let dated;
  let matching: BuyTransaction | SellTransaction | undefined;
  try {
    dated = replayTrades(oldestFirst(trades), (trade) => fieldOf((matching = trade)));
  } catch (error) {
    if (!(error instanceof DomainError) || matching === undefined) throw error;
    throw new DomainError(
      'conflict',
      `${at.field}.date ${at.date} comes before a trade of ${symbol} it would change: ` +
        `${namedLotsTaken(matching, trades)}; date this trade on or after ${matching.date}, or name the lots it ` +
        `${matching.kind === 'sell' ? 'sells' : 'buys back'}`,
      `${at.field}.date`,
    );
  }
  if (dated.lots.length > OPEN_LOTS_PER_SYMBOL_LIMIT) {
    throw new DomainError(
      'limit',
      `${at.field} would give ${symbol} more than ${OPEN_LOTS_PER_SYMBOL_LIMIT} open lots`,
      `${at.field}.quantity`,
    );
  }
  if (closingsIdentity(dated.closings) === closingsIdentity(closed) && byIdentity(dated.lots) === byIdentity(held)) {
    return null;
  }
  return { type: 'TradesRematched', data: { symbol, lots: dated.lots, closings: dated.closings } };
}

/**
 * The ids of a list of transactions, kept beside the list so a fold of n events checks each id in constant
 * time rather than scanning the list. A list made by {@link appended} takes over its parent's set, which is
 * then dropped from the parent (rebuilt from its contents if the parent is appended to again), so a set
 * always holds exactly the ids of its list.
 */
const recordedIds = new WeakMap<readonly Transaction[], Set<string>>();

function idsOf(transactions: readonly Transaction[]): Set<string> {
  let ids = recordedIds.get(transactions);
  if (!ids) recordedIds.set(transactions, (ids = new Set(transactions.map((t) => t.id))));
  return ids;
}

function isRecorded(transactions: readonly Transaction[], id: string): boolean {
  return idsOf(transactions).has(id);
}

function appended(transactions: readonly Transaction[], t: Transaction): readonly Transaction[] {
  const ids = idsOf(transactions);
  recordedIds.delete(transactions);
  const next = [...transactions, t];
  recordedIds.set(next, ids.add(t.id));
  return next;
}

function withLots(state: PortfolioState, symbol: string, lots: readonly Lot[]): PortfolioState['lots'] {
  const next = Object.fromEntries(Object.entries(state.lots).filter(([key]) => key !== symbol));
  if (lots.length > 0) next[symbol] = lots;
  return next;
}

function evolve(state: PortfolioState, event: PortfolioEvent): PortfolioState {
  switch (event.type) {
    case 'SymbolAddedToPortfolio':
      return state.symbols.includes(event.data.symbol)
        ? state
        : { ...state, symbols: [...state.symbols, event.data.symbol] };
    case 'SymbolRemovedFromPortfolio': {
      const { symbol } = event.data;
      if (!state.symbols.includes(symbol) && !Object.hasOwn(state.lots, symbol)) return state;
      return {
        symbols: state.symbols.filter((s) => s !== symbol),
        lots: withLots(state, symbol, []),
        transactions: state.transactions.filter((t) => t.symbol !== symbol),
        closings: state.closings.filter((c) => c.symbol !== symbol),
      };
    }
    case 'PositionLotAdded': {
      const { symbol, lot } = event.data;
      const held = lotsOf(state, symbol);
      if (held.some((l) => l.id === lot.id)) return state;
      const symbols = state.symbols.includes(symbol) ? state.symbols : [...state.symbols, symbol];
      const copy = { id: lot.id, date: lot.date, close: lot.close, position: lot.position };
      const trade = { id: lot.id, symbol, date: lot.date, quantity: Math.abs(lot.position), price: lot.close, fee: 0 };
      return {
        symbols,
        lots: withLots(state, symbol, [...held, copy]),
        transactions: [...state.transactions, { kind: lot.position > 0 ? 'buy' : 'sell', ...trade }],
        closings: state.closings,
      };
    }
    case 'PositionLotRemoved': {
      const { symbol, id } = event.data;
      const held = lotsOf(state, symbol);
      const removed = held.find((lot) => lot.id === id);
      if (!removed) return state;
      // A lot removed before any of it was closed was a mistake: its opening transaction goes with it.
      const untouched = !state.closings.some((c) => c.lotId === id);
      return {
        ...state,
        lots: withLots(
          state,
          symbol,
          held.filter((lot) => lot.id !== id),
        ),
        transactions: untouched ? state.transactions.filter((t) => t.id !== id) : state.transactions,
      };
    }
    case 'SharesBought':
    case 'SharesSold': {
      const { symbol, transaction: t, closings, opened } = event.data;
      if (isRecorded(state.transactions, t.id)) return state;
      const symbols = state.symbols.includes(symbol) ? state.symbols : [...state.symbols, symbol];
      const lots = afterClosings(lotsOf(state, symbol), closings);
      if (opened !== 0) lots.push({ id: t.id, date: t.date, close: t.price, position: opened });
      return {
        symbols,
        lots: withLots(state, symbol, lots),
        transactions: appended(state.transactions, t),
        closings: [...state.closings, ...closings],
      };
    }
    case 'TradesRematched': {
      const { symbol, lots, closings } = event.data;
      return {
        ...state,
        lots: withLots(state, symbol, lots),
        closings: [...state.closings.filter((c) => c.symbol !== symbol), ...closings],
      };
    }
    case 'DividendReceived':
    case 'FeeCharged': {
      const { transaction: t } = event.data;
      if (isRecorded(state.transactions, t.id)) return state;
      return { ...state, transactions: appended(state.transactions, t) };
    }
    default: {
      // An event type this version does not know leaves the state as it is, so replaying the log never fails.
      const _exhaustive: never = event;
      return state;
    }
  }
}

/**
 * A portfolio state folded in place: each event does to lists the draft owns what {@link evolve} does to a copy
 * of them, so a stream of n transactions folds in time linear in n rather than copying every list per event.
 * Its {@link view} is the state so far (read it before the next event: its lists are the draft's own).
 */
export class PortfolioDraft {
  private readonly symbols: string[];
  /** The lots per symbol: a symbol whose lots change moves to the end, as {@link withLots} moves it. */
  private readonly lots: Record<string, readonly Lot[]>;
  /** The lot lists this draft made (the others are the state's or an event's, never changed in place). */
  private readonly owned = new WeakSet<readonly Lot[]>();
  private transactions: Transaction[];
  /** The ids of `transactions`, or null to be read from them again when next needed. */
  private ids: Set<string> | null;
  private closings: Closing[];
  private changed = false;

  constructor(private readonly from: PortfolioState) {
    this.symbols = [...from.symbols];
    this.lots = Object.fromEntries(Object.entries(from.lots));
    this.transactions = [...from.transactions];
    this.ids = new Set(idsOf(from.transactions));
    this.closings = [...from.closings];
  }

  /** The state so far: the state it started from when no event changed it. */
  view(): PortfolioState {
    if (!this.changed) return this.from;
    return { symbols: this.symbols, lots: this.lots, transactions: this.transactions, closings: this.closings };
  }

  /** The state so far as a value of its own (the draft is not to be used afterwards). */
  finish(): PortfolioState {
    const state = this.view();
    if (state !== this.from && this.ids !== null) recordedIds.set(this.transactions, this.ids);
    return state;
  }

  private recorded(id: string): boolean {
    this.ids ??= new Set(this.transactions.map((t) => t.id));
    return this.ids.has(id);
  }

  private held(symbol: string): readonly Lot[] {
    return Object.hasOwn(this.lots, symbol) ? this.lots[symbol]! : [];
  }

  private setLots(symbol: string, lots: readonly Lot[]): void {
    delete this.lots[symbol];
    if (lots.length > 0) this.lots[symbol] = lots;
  }

  private addSymbol(symbol: string): void {
    if (!this.symbols.includes(symbol)) this.symbols.push(symbol);
  }

  private record(t: Transaction): void {
    this.transactions.push(t);
    this.ids?.add(t.id);
  }

  /** Applies one event, as {@link evolve} does. */
  apply(event: PortfolioEvent): void {
    switch (event.type) {
      case 'SymbolAddedToPortfolio':
        if (this.symbols.includes(event.data.symbol)) return;
        this.symbols.push(event.data.symbol);
        break;
      case 'SymbolRemovedFromPortfolio': {
        const { symbol } = event.data;
        if (!this.symbols.includes(symbol) && !Object.hasOwn(this.lots, symbol)) return;
        const at = this.symbols.indexOf(symbol);
        if (at >= 0) this.symbols.splice(at, 1);
        this.setLots(symbol, []);
        this.transactions = this.transactions.filter((t) => t.symbol !== symbol);
        this.ids = null;
        this.closings = this.closings.filter((c) => c.symbol !== symbol);
        break;
      }
      case 'PositionLotAdded': {
        const { symbol, lot } = event.data;
        const held = this.held(symbol);
        if (held.some((l) => l.id === lot.id)) return;
        this.addSymbol(symbol);
        const copy = { id: lot.id, date: lot.date, close: lot.close, position: lot.position };
        const trade = {
          id: lot.id,
          symbol,
          date: lot.date,
          quantity: Math.abs(lot.position),
          price: lot.close,
          fee: 0,
        };
        this.setLots(symbol, this.appendLot(held, copy));
        this.record({ kind: lot.position > 0 ? 'buy' : 'sell', ...trade });
        break;
      }
      case 'PositionLotRemoved': {
        const { symbol, id } = event.data;
        const held = this.held(symbol);
        if (!held.some((lot) => lot.id === id)) return;
        const untouched = !this.closings.some((c) => c.lotId === id);
        this.setLots(symbol, this.own(held.filter((lot) => lot.id !== id)));
        if (untouched) {
          this.transactions = this.transactions.filter((t) => t.id !== id);
          this.ids?.delete(id);
        }
        break;
      }
      case 'SharesBought':
      case 'SharesSold': {
        const { symbol, transaction: t, closings, opened } = event.data;
        if (this.recorded(t.id)) return;
        this.addSymbol(symbol);
        const held = this.held(symbol);
        const open = { id: t.id, date: t.date, close: t.price, position: opened };
        let lots: readonly Lot[];
        if (closings.length > 0) {
          const left = afterClosings(held, closings);
          if (opened !== 0) left.push(open);
          lots = this.own(left);
        } else {
          lots = opened !== 0 ? this.appendLot(held, open) : held;
        }
        this.setLots(symbol, lots);
        this.record(t);
        for (const c of closings) this.closings.push(c);
        break;
      }
      case 'TradesRematched': {
        const { symbol, lots, closings } = event.data;
        this.setLots(symbol, lots);
        this.closings = [...this.closings.filter((c) => c.symbol !== symbol), ...closings];
        break;
      }
      case 'DividendReceived':
      case 'FeeCharged': {
        const { transaction: t } = event.data;
        if (this.recorded(t.id)) return;
        this.record(t);
        break;
      }
      default: {
        // An event type this version does not know leaves the state as it is, as `evolve` does.
        const _exhaustive: never = event;
        return;
      }
    }
    this.changed = true;
  }

  /** `lots` with `lot` appended: in place when the draft made the list, else in a copy it then owns. */
  private appendLot(lots: readonly Lot[], lot: Lot): readonly Lot[] {
    if (this.owned.has(lots)) {
      (lots as Lot[]).push(lot);
      return lots;
    }
    return this.own([...lots, lot]);
  }

  private own(lots: Lot[]): readonly Lot[] {
    this.owned.add(lots);
    return lots;
  }
}

/**
 * The portfolio after several events, exactly as {@link evolve} one event at a time gives it, in one pass (see
 * {@link PortfolioDraft}): 10,000 trades fold without 10,000 copies of the transaction list.
 */
function evolveAll(state: PortfolioState, events: readonly PortfolioEvent[]): PortfolioState {
  if (events.length < 2) return events.length === 0 ? state : evolve(state, events[0]!);
  const draft = new PortfolioDraft(state);
  for (const event of events) draft.apply(event);
  return draft.finish();
}

/**
 * The portfolio's rules: symbols merged without duplicates (at most {@link PORTFOLIO_LIMIT}), lots checked one
 * by one (at most {@link LOTS_PER_SYMBOL_LIMIT} per symbol), and lots that never outlive their symbol.
 */
export const portfolioDecider: Decider<PortfolioCommand, PortfolioEvent, PortfolioState> = {
  initialState: Object.freeze({
    symbols: Object.freeze([]),
    lots: Object.freeze({}),
    transactions: Object.freeze([]),
    closings: Object.freeze([]),
  }),
  decide,
  evolve,
  evolveAll,
};
