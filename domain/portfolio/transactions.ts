/**
 * Portfolio transactions: buys, sells, dividends and fees, each with its own id, and the arithmetic of the
 * lots they open and close. A buy first covers open short lots (oldest first), the rest opens a long lot; a
 * sell closes long lots (oldest first, or the lots named), the rest opens a short lot. Money is counted in
 * whole cents, quantities with at most 6 decimals.
 */
import { DomainError } from '../decider.ts';
import {
  EARLIEST_LOT_DATE,
  LOT_POSITION_DECIMALS,
  MAX_LOT_CLOSE,
  MAX_LOT_POSITION,
  MAX_LOT_VALUE,
  calendarDay,
  hasPositionDecimals,
  isWholeCents,
  latestLotDay,
  oldestFirst,
  type Lot,
} from '../positions/lots.ts';
import { parseSymbol } from '../symbol.ts';

/** The kinds of transaction. */
export const TRANSACTION_KINDS = ['buy', 'sell', 'dividend', 'fee'] as const;

/** A kind of transaction. */
export type TransactionKind = (typeof TRANSACTION_KINDS)[number];

/** Largest dividend or fee amount, or commission, in dollars. */
export const MAX_TRANSACTION_AMOUNT = 1_000_000_000;

/** Most transactions one portfolio may record. */
export const TRANSACTIONS_LIMIT = 10_000;

/** Most transactions one command may record. */
export const TRANSACTIONS_PER_COMMAND_LIMIT = 2_000;

/** Most open lots a symbol may have once trades opened them (the lot routes stop adding at their own limit). */
export const OPEN_LOTS_PER_SYMBOL_LIMIT = 1_000;

/** Most lots one sell may name. */
export const SELL_LOTS_LIMIT = 100;

/** A lot a sell names, with the quantity it takes from it. */
export interface LotPick {
  /** The lot's id. */
  readonly id: string;
  /** How much of it is sold (above 0, at most what is left of it). */
  readonly quantity: number;
}

/** What a buy and a sell have: the symbol, trade date, quantity, price and commission. */
interface TradeOf<K extends 'buy' | 'sell'> {
  readonly kind: K;
  readonly id: string;
  readonly symbol: string;
  /** Trade date, `YYYY-MM-DD`. */
  readonly date: string;
  /** Shares traded, above 0. */
  readonly quantity: number;
  /** Price per share, in dollars with whole cents. */
  readonly price: number;
  /** Commission, in dollars with whole cents (0 when none). */
  readonly fee: number;
}

/** A purchase: covers open short lots first, the rest opens a long lot of the same id. */
export type BuyTransaction = TradeOf<'buy'>;

/** A sale: closes long lots (the ones named, else oldest first), the rest opens a short lot of the same id. */
export interface SellTransaction extends TradeOf<'sell'> {
  /** The lots sold, when chosen; first in, first out when absent. */
  readonly lots?: readonly LotPick[];
}

/** Cash received for a holding (`dividend`), or a fee charged on it (`fee`). */
export type CashTransaction = CashOf<'dividend'> | CashOf<'fee'>;

/** A cash transaction of one kind. */
export interface CashOf<K extends 'dividend' | 'fee'> {
  readonly kind: K;
  readonly id: string;
  readonly symbol: string;
  readonly date: string;
  /** The amount, in dollars with whole cents, above 0. */
  readonly amount: number;
}

/** Any transaction. */
export type Transaction = BuyTransaction | SellTransaction | CashTransaction;

/** A transaction as a request gives it, before it has an id. */
export type TransactionFields = DistributiveOmit<Transaction, 'id'>;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Part of a lot closed by a trade, with its realized gain. */
export interface Closing {
  /** The trade that closed it. */
  readonly transactionId: string;
  readonly symbol: string;
  /** The lot closed. */
  readonly lotId: string;
  /** The lot's trade date and price. */
  readonly openDate: string;
  readonly openPrice: number;
  /** The closing trade's date and price. */
  readonly closeDate: string;
  readonly closePrice: number;
  /** Quantity closed: positive for a long lot sold, negative for a short lot covered. */
  readonly quantity: number;
  /** Realized gain in cents: (close − open) × quantity, which is a gain for a short when the price fell. */
  readonly gainCents: number;
}

/** Rounds a quantity to {@link LOT_POSITION_DECIMALS} decimals, so repeated subtraction leaves no float dust. */
export function roundQuantity(value: number): number {
  return Number(value.toFixed(LOT_POSITION_DECIMALS));
}

/** Whole cents of a dollar amount. */
export function cents(dollars: number): number {
  return Math.round(dollars * 100);
}

/** The realized gain in cents of closing `quantity` (negative for a short) opened at `open`, closed at `close`. */
export function gainCents(open: number, close: number, quantity: number): number {
  return Math.round((cents(close) - cents(open)) * quantity);
}

function refuse(field: string, message: string): DomainError {
  return new DomainError('invalid_transaction', `${field} ${message}`, field);
}

function parseDate(value: unknown, field: string, at: string): string {
  const day = typeof value === 'string' ? calendarDay(value) : null;
  if (day === null) throw refuse(field, 'must be a calendar date YYYY-MM-DD');
  if (day < calendarDay(EARLIEST_LOT_DATE)!) throw refuse(field, `is before ${EARLIEST_LOT_DATE}`);
  if (day > latestLotDay(at)) throw refuse(field, `${value as string} is in the future`);
  return value as string;
}

function parseMoney(value: unknown, field: string, max: number, zero: boolean): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (!zero && value === 0) || value > max) {
    throw refuse(field, `must be an amount ${zero ? 'of at least 0' : 'above 0'} and at most ${max}`);
  }
  if (!isWholeCents(value)) throw refuse(field, `${value} is not in whole cents`);
  return value;
}

function parseQuantity(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_LOT_POSITION) {
    throw refuse(field, `must be a quantity above 0 and at most ${MAX_LOT_POSITION}`);
  }
  if (!hasPositionDecimals(value)) throw refuse(field, `has more than ${LOT_POSITION_DECIMALS} decimals`);
  return value;
}

function parseId(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 100) throw refuse(field, 'must be an id');
  return value;
}

/**
 * Checks a transaction's fields: a known kind, a symbol, a calendar date up to the newest accepted at `at`;
 * for a trade a quantity above 0, a price above 0 and a commission of at least 0 in whole cents (and, for a
 * sell, at most {@link SELL_LOTS_LIMIT} distinct lots whose quantities add up to the quantity); for a dividend
 * or fee an amount above 0. Throws an `invalid_transaction` {@link DomainError} naming the field.
 */
export function parseTransaction(value: unknown, field: string, at: string): Transaction {
  if (typeof value !== 'object' || value === null) throw refuse(field, 'must be a transaction');
  const t = value as Record<string, unknown>;
  if (typeof t.kind !== 'string' || !(TRANSACTION_KINDS as readonly string[]).includes(t.kind)) {
    throw refuse(`${field}.kind`, `must be one of ${TRANSACTION_KINDS.join(', ')}`);
  }
  const kind = t.kind as TransactionKind;
  const id = parseId(t.id, `${field}.id`);
  const symbol = parseSymbol(t.symbol, `${field}.symbol`);
  const date = parseDate(t.date, `${field}.date`, at);
  if (kind === 'dividend' || kind === 'fee') {
    return {
      kind,
      id,
      symbol,
      date,
      amount: parseMoney(t.amount, `${field}.amount`, MAX_TRANSACTION_AMOUNT, false),
    };
  }
  const quantity = parseQuantity(t.quantity, `${field}.quantity`);
  const price = parseMoney(t.price, `${field}.price`, MAX_LOT_CLOSE, false);
  if (quantity * price > MAX_LOT_VALUE) {
    throw refuse(
      `${field}.quantity`,
      `${quantity} at ${price} is worth more than ${MAX_LOT_VALUE} (the most one trade may be)`,
    );
  }
  const fee = parseMoney(t.fee ?? 0, `${field}.fee`, MAX_TRANSACTION_AMOUNT, true);
  if (kind === 'buy') return { kind, id, symbol, date, quantity, price, fee };
  if (t.lots === undefined) return { kind, id, symbol, date, quantity, price, fee };
  if (!Array.isArray(t.lots) || t.lots.length === 0 || t.lots.length > SELL_LOTS_LIMIT) {
    throw refuse(`${field}.lots`, `must name 1 to ${SELL_LOTS_LIMIT} lots`);
  }
  const seen = new Set<string>();
  const lots = (t.lots as unknown[]).map((pick, i): LotPick => {
    const where = `${field}.lots[${i}]`;
    if (typeof pick !== 'object' || pick === null) throw refuse(where, 'must be {id, quantity}');
    const p = pick as Record<string, unknown>;
    const lotId = parseId(p.id, `${where}.id`);
    if (seen.has(lotId)) throw refuse(`${where}.id`, `names lot ${lotId} twice`);
    seen.add(lotId);
    return { id: lotId, quantity: parseQuantity(p.quantity, `${where}.quantity`) };
  });
  const total = roundQuantity(lots.reduce((sum, pick) => sum + pick.quantity, 0));
  if (total !== quantity) throw refuse(`${field}.lots`, `add up to ${total}, not the quantity ${quantity}`);
  return { kind, id, symbol, date, quantity, price, fee, lots };
}

/** The part of each lot a trade closes, oldest first or as picked; what is left over opens a lot. */
export interface Matching {
  /** The parts closed. */
  readonly closings: readonly Closing[];
  /** The quantity left to open a new lot with (signed: positive long, negative short; 0 when none). */
  readonly opened: number;
}

/**
 * Matches a trade against the open lots of its symbol: a buy covers short lots, a sell closes long lots,
 * first in first out (by trade date, then the order added) among lots dated on or before the trade, or the
 * lots the sell names. Throws a `not_found` or `insufficient` {@link DomainError} naming the field.
 */
export function matchTrade(trade: BuyTransaction | SellTransaction, lots: readonly Lot[], field: string): Matching {
  const sign = trade.kind === 'buy' ? -1 : 1;
  const closing = (lot: Lot, quantity: number): Closing => ({
    transactionId: trade.id,
    symbol: trade.symbol,
    lotId: lot.id,
    openDate: lot.date,
    openPrice: lot.close,
    closeDate: trade.date,
    closePrice: trade.price,
    quantity: sign * quantity,
    gainCents: gainCents(lot.close, trade.price, sign * quantity),
  });
  if (trade.kind === 'sell' && trade.lots) {
    const closings = trade.lots.map((pick, i) => {
      const lot = lots.find((l) => l.id === pick.id);
      const where = `${field}.lots[${i}]`;
      if (!lot || lot.position <= 0) {
        throw new DomainError(
          'not_found',
          `${where}.id ${pick.id} is not an open long lot of ${trade.symbol}`,
          `${where}.id`,
        );
      }
      if (lot.date > trade.date) {
        throw new DomainError(
          'invalid_transaction',
          `${where}.id lot ${lot.id} was bought after ${trade.date}`,
          `${where}.id`,
        );
      }
      if (pick.quantity > lot.position) {
        throw new DomainError(
          'insufficient',
          `${where}.quantity ${pick.quantity} is more than the ${lot.position} left of lot ${lot.id}`,
          `${where}.quantity`,
        );
      }
      return closing(lot, pick.quantity);
    });
    return { closings, opened: 0 };
  }
  const candidates = oldestFirst(lots.filter((lot) => sign * lot.position > 0 && lot.date <= trade.date));
  const closings: Closing[] = [];
  let left = trade.quantity;
  for (const lot of candidates) {
    if (left <= 0) break;
    const take = Math.min(left, Math.abs(lot.position));
    closings.push(closing(lot, take));
    left = roundQuantity(left - take);
  }
  return { closings, opened: left === 0 ? 0 : -sign * left };
}

/** The lots after some of them were closed: each closed part taken off its lot, emptied lots dropped. */
export function afterClosings(lots: readonly Lot[], closings: readonly Pick<Closing, 'lotId' | 'quantity'>[]): Lot[] {
  const taken = new Map<string, number>();
  for (const c of closings) taken.set(c.lotId, (taken.get(c.lotId) ?? 0) + c.quantity);
  const out: Lot[] = [];
  for (const lot of lots) {
    const part = taken.get(lot.id);
    if (part === undefined) {
      out.push(lot);
      continue;
    }
    const position = roundQuantity(lot.position - part);
    if (position !== 0 && Math.sign(position) === Math.sign(lot.position)) out.push({ ...lot, position });
  }
  return out;
}

/** The open lots and closed parts a list of trades leaves, each matched as {@link matchTrade} does. */
export interface Replay {
  readonly lots: readonly Lot[];
  readonly closings: readonly Closing[];
}

/**
 * Matches the trades of one symbol one after another, from no lots: each closes what {@link matchTrade} picks
 * among the lots the ones before it left and opens a lot with the rest. `fieldOf` names a trade in refusals.
 */
export function replayTrades(
  trades: readonly (BuyTransaction | SellTransaction)[],
  fieldOf: (trade: BuyTransaction | SellTransaction) => string,
): Replay {
  let lots: Lot[] = [];
  const closings: Closing[] = [];
  for (const trade of trades) {
    const matching = matchTrade(trade, lots, fieldOf(trade));
    lots = afterClosings(lots, matching.closings);
    if (matching.opened !== 0)
      lots.push({ id: trade.id, date: trade.date, close: trade.price, position: matching.opened });
    closings.push(...matching.closings);
  }
  return { lots, closings };
}
