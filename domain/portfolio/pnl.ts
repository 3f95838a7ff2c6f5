/**
 * Profit and loss of a portfolio, per open lot, per symbol and in total. Realized P&L is what closed parts of
 * lots gained (first in, first out unless the sell named its lots); unrealized P&L is what the open lots gain
 * at the given prices; dividends add and fees (trade commissions and fee transactions) subtract. Summed in
 * whole cents, answered in dollars.
 */
import type { Lot } from '../positions/lots.ts';
import { cents, type Closing, type Transaction } from './transactions.ts';

/** The figures of one open lot. */
export interface LotPnl {
  readonly symbol: string;
  readonly id: string;
  readonly date: string;
  /** Price paid (or received, for a short). */
  readonly price: number;
  /** Quantity still open: positive long, negative short. */
  readonly quantity: number;
  /** Price × quantity. */
  readonly cost: number;
  /** Value at the current price; null without a price. */
  readonly value: number | null;
  /** Value − cost; null without a price. */
  readonly unrealized: number | null;
}

/** The figures of one symbol, or of the whole portfolio (symbol `''`). */
export interface SymbolPnl {
  readonly symbol: string;
  /** Quantity still open, long minus short. */
  readonly quantity: number;
  readonly cost: number;
  /** Value of the open lots with a price (null when none has one). */
  readonly value: number | null;
  readonly unrealized: number | null;
  /** Gains of the closed parts of lots. */
  readonly realized: number;
  readonly dividends: number;
  readonly fees: number;
  /** Realized + unrealized + dividends − fees. */
  readonly total: number;
}

/** The P&L of a portfolio at some prices. */
export interface PortfolioPnl {
  readonly lots: readonly LotPnl[];
  readonly symbols: readonly SymbolPnl[];
  readonly total: SymbolPnl;
}

/** What the P&L is computed from: the open lots, the transactions and the closed parts of lots. */
export interface PnlInput {
  readonly symbols: readonly string[];
  readonly lots: Readonly<Record<string, readonly Lot[]>>;
  readonly transactions: readonly Transaction[];
  readonly closings: readonly Closing[];
}

interface Sums {
  quantity: number;
  cost: number;
  value: number;
  /** Cost of the lots that have a price. */
  pricedCost: number;
  priced: boolean;
  realized: number;
  dividends: number;
  fees: number;
}

const zero = (): Sums => ({
  quantity: 0,
  cost: 0,
  value: 0,
  pricedCost: 0,
  priced: false,
  realized: 0,
  dividends: 0,
  fees: 0,
});

function dollars(sums: Sums, symbol: string): SymbolPnl {
  const unrealized = sums.priced ? sums.value - sums.pricedCost : null;
  return {
    symbol,
    quantity: Number(sums.quantity.toFixed(6)),
    cost: sums.cost / 100,
    value: sums.priced ? sums.value / 100 : null,
    unrealized: unrealized === null ? null : unrealized / 100,
    realized: sums.realized / 100,
    dividends: sums.dividends / 100,
    fees: sums.fees / 100,
    total: (sums.realized + (unrealized ?? 0) + sums.dividends - sums.fees) / 100,
  };
}

/**
 * The amount in whole cents of `quantity` shares at `price`: the price in whole cents times the quantity, rounded
 * half up (toward +∞) to the cent. The one rule for a lot's cost and value, shared with the portfolio screen.
 */
export function amountCents(price: number, quantity: number): number {
  return Math.round(cents(price) * quantity);
}

/** The P&L of the portfolio at the prices given (symbols without a price have no value or unrealized P&L). */
export function portfolioPnl(input: PnlInput, prices: Readonly<Record<string, number>>): PortfolioPnl {
  const bySymbol = new Map<string, Sums>(input.symbols.map((s) => [s, zero()]));
  const sums = (symbol: string): Sums => {
    let found = bySymbol.get(symbol);
    if (!found) bySymbol.set(symbol, (found = zero()));
    return found;
  };
  const lots: LotPnl[] = [];
  for (const symbol of input.symbols) {
    const price = Object.hasOwn(prices, symbol) ? prices[symbol] : undefined;
    for (const lot of Object.hasOwn(input.lots, symbol) ? input.lots[symbol]! : []) {
      const cost = amountCents(lot.close, lot.position);
      const value = price === undefined ? null : amountCents(price, lot.position);
      const s = sums(symbol);
      s.quantity += lot.position;
      s.cost += cost;
      if (value !== null) {
        s.value += value;
        s.pricedCost += cost;
        s.priced = true;
      }
      lots.push({
        symbol,
        id: lot.id,
        date: lot.date,
        price: lot.close,
        quantity: lot.position,
        cost: cost / 100,
        value: value === null ? null : value / 100,
        unrealized: value === null ? null : (value - cost) / 100,
      });
    }
  }
  for (const c of input.closings) sums(c.symbol).realized += c.gainCents;
  for (const t of input.transactions) {
    if (t.kind === 'dividend') sums(t.symbol).dividends += cents(t.amount);
    else if (t.kind === 'fee') sums(t.symbol).fees += cents(t.amount);
    else sums(t.symbol).fees += cents(t.fee);
  }
  const total = zero();
  for (const s of bySymbol.values()) {
    total.cost += s.cost;
    total.value += s.value;
    total.pricedCost += s.pricedCost;
    total.priced ||= s.priced;
    total.realized += s.realized;
    total.dividends += s.dividends;
    total.fees += s.fees;
  }
  const symbols = [...bySymbol].map(([symbol, s]) => dollars(s, symbol));
  return { lots, symbols, total: { ...dollars(total, ''), quantity: 0 } };
}
