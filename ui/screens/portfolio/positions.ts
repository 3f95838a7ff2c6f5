/**
 * The arithmetic of the portfolio screen: cost basis, market value at the live price, P&L and P&L % of a lot,
 * of a symbol and of the whole portfolio; the allocation by market value; and the checks of the "add a lot"
 * form. A short lot (negative quantity) has a negative cost basis and market value, so its P&L is positive
 * when the price falls.
 */
import { withoutGrouping } from '../../../domain/format.ts';
import { amountCents } from '../../../domain/portfolio/pnl.ts';
import {
  EARLIEST_LOT_DATE,
  LOT_POSITION_DECIMALS,
  MAX_LOT_CLOSE,
  MAX_LOT_POSITION,
  calendarDay,
  hasPositionDecimals,
  isWholeCents,
  type Lot,
  type LotFields,
} from '../../../domain/positions/lots.ts';

/** A lot as `GET /personalize/userPositions/{symbol}` answers it. */
export type PositionLot = Lot;

/** The figures of a lot, a symbol or the portfolio; market figures are null without a price. */
export interface PositionFigures {
  /** Price paid × quantity, in dollars. */
  readonly costBasis: number;
  /** Live price × quantity, in dollars. */
  readonly marketValue: number | null;
  /** Market value − cost basis. */
  readonly pnl: number | null;
  /**
   * P&L as a percentage of the absolute cost basis of the priced lots: what long lots cost plus what short lots
   * were sold for, each lot counted on its own (a short never offsets a long in it).
   */
  readonly pnlPct: number | null;
}

/** Rounds to whole cents (display precision), away from float noise such as 0.30000000000000004. */
function cents(value: number): number {
  return Math.round(value * 100) / 100;
}

function percentOf(pnl: number | null, base: number): number | null {
  return pnl === null || base === 0 ? null : cents((pnl / base) * 100);
}

/**
 * The figures of one lot at a price (null when there is no price yet). Cost and value are rounded to the cent
 * by the server's rule (`amountCents`, price in cents × quantity), so the screen shows what the server says.
 */
export function lotFigures(lot: LotFields, price: number | null): PositionFigures {
  const cost = amountCents(lot.close, lot.position);
  const costBasis = cost / 100;
  if (price === null) return { costBasis, marketValue: null, pnl: null, pnlPct: null };
  const value = amountCents(price, lot.position);
  const pnl = (value - cost) / 100;
  return { costBasis, marketValue: value / 100, pnl, pnlPct: percentOf(pnl, Math.abs(costBasis)) };
}

/**
 * Adds figures up. The cost basis counts every part; market value and P&L count the parts that have a price,
 * and the P&L % is over the absolute cost of those parts; they are null when no part has a price. The parts are
 * lots: a part that already nets a long against a short of one symbol would count only their difference.
 */
export function sumFigures(parts: readonly PositionFigures[]): PositionFigures {
  let costBasis = 0;
  let marketValue = 0;
  let pnl = 0;
  let pricedCost = 0;
  let priced = 0;
  for (const part of parts) {
    costBasis += part.costBasis;
    if (part.marketValue === null || part.pnl === null) continue;
    priced += 1;
    marketValue += part.marketValue;
    pnl += part.pnl;
    pricedCost += Math.abs(part.costBasis);
  }
  if (priced === 0) return { costBasis: cents(costBasis), marketValue: null, pnl: null, pnlPct: null };
  return {
    costBasis: cents(costBasis),
    marketValue: cents(marketValue),
    pnl: cents(pnl),
    pnlPct: percentOf(cents(pnl), pricedCost),
  };
}

/** The figures of a symbol's lots at its price. */
export function symbolFigures(lots: readonly LotFields[], price: number | null): PositionFigures {
  return sumFigures(lots.map((lot) => lotFigures(lot, price)));
}

/**
 * The figures of the whole portfolio at the prices given, summed lot by lot: its P&L % is the P&L of the priced
 * lots over the cost of their long lots plus the proceeds of their short lots, as each symbol's own is.
 */
export function portfolioFigures(
  symbols: readonly string[],
  lots: Readonly<Record<string, readonly LotFields[]>>,
  prices: Readonly<Record<string, number | undefined>>,
): PositionFigures {
  return sumFigures(
    symbols.flatMap((symbol) => (lots[symbol] ?? []).map((lot) => lotFigures(lot, prices[symbol] ?? null))),
  );
}

/** One slice of the allocation chart. */
export interface AllocationSlice {
  readonly symbol: string;
  /** Absolute market value, in dollars. */
  readonly value: number;
}

/** The allocation by absolute market value of the symbols that have lots and a price, largest first. */
export function allocation(
  symbols: readonly string[],
  lots: Readonly<Record<string, readonly LotFields[]>>,
  prices: Readonly<Record<string, number | undefined>>,
): AllocationSlice[] {
  const slices: AllocationSlice[] = [];
  for (const symbol of symbols) {
    const price = prices[symbol];
    const held = lots[symbol] ?? [];
    if (price === undefined || held.length === 0) continue;
    const value = Math.abs(symbolFigures(held, price).marketValue ?? 0);
    if (value > 0) slices.push({ symbol, value });
  }
  return slices.sort((a, b) => b.value - a.value || (a.symbol < b.symbol ? -1 : 1));
}

/** The "add a lot" form's fields, as typed. */
export interface LotForm {
  readonly date: string;
  readonly price: string;
  readonly quantity: string;
}

/** What is wrong with each field of the form. */
export type LotFormErrors = Partial<Record<keyof LotForm, string>>;

/** The outcome of checking the form: the lot to send, or the message of each wrong field. */
export type LotCheck =
  { readonly lot: LotFields; readonly errors: null } | { readonly lot: null; readonly errors: LotFormErrors };

const NUMBER = /^-?(\d+(\.\d*)?|\.\d+)$/;

function checkDate(text: string, today: string): string | null {
  const date = text.trim();
  if (date === '') return 'Date: choose the trade date';
  const day = calendarDay(date);
  if (day === null) return 'Date: must be a calendar date YYYY-MM-DD';
  if (date < EARLIEST_LOT_DATE) return `Date: must be on or after ${EARLIEST_LOT_DATE}`;
  if (date > today) return 'Date: must not be in the future';
  return null;
}

function checkPrice(text: string): string | null {
  const value = withoutGrouping(text);
  if (value === '') return 'Price: enter the price paid per share';
  if (!NUMBER.test(value)) return 'Price: must be a number, e.g. 182.50';
  const price = Number(value);
  if (price <= 0) return 'Price: must be more than 0';
  if (price > MAX_LOT_CLOSE) return `Price: must be at most ${MAX_LOT_CLOSE.toLocaleString('en-US')}`;
  if (!isWholeCents(price)) return 'Price: at most 2 decimals (whole cents)';
  return null;
}

function checkQuantity(text: string): string | null {
  const value = withoutGrouping(text);
  if (value === '') return 'Quantity: enter the number of shares';
  if (!NUMBER.test(value)) return 'Quantity: must be a number, e.g. 10';
  const quantity = Number(value);
  if (quantity === 0) return 'Quantity: must not be 0 (negative for a short position)';
  if (Math.abs(quantity) > MAX_LOT_POSITION) {
    return `Quantity: must be at most ${MAX_LOT_POSITION.toLocaleString('en-US')} shares`;
  }
  if (!hasPositionDecimals(quantity)) return `Quantity: at most ${LOT_POSITION_DECIMALS} decimals`;
  return null;
}

/** Checks the form against the lot rules of the server; `today` is the local date `YYYY-MM-DD`. */
export function checkLotForm(form: LotForm, today: string): LotCheck {
  const errors: LotFormErrors = {};
  const date = checkDate(form.date, today);
  const price = checkPrice(form.price);
  const quantity = checkQuantity(form.quantity);
  if (date) errors.date = date;
  if (price) errors.price = price;
  if (quantity) errors.quantity = quantity;
  if (date || price || quantity) return { lot: null, errors };
  return {
    lot: {
      date: form.date.trim(),
      close: Number(withoutGrouping(form.price)),
      position: Number(withoutGrouping(form.quantity)),
    },
    errors: null,
  };
}
