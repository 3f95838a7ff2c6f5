/**
 * The arithmetic of the portfolio's transactions panel: the performance chart's ranges (each range's returns
 * restarted at 0 on its first day), the allocation by sector, the realized gain of each transaction, and the
 * checks of the transaction form.
 */
import type { AnswerOf } from '../../../domain/contract/route.ts';
import { formatPrice, formatQuantity, withoutGrouping } from '../../../domain/format.ts';
import type { portfolioApi } from '../../../domain/contract/portfolio.ts';
import type { PortfolioPnl } from '../../../domain/portfolio/pnl.ts';
import { MAX_TRANSACTION_AMOUNT, type TransactionFields } from '../../../domain/portfolio/transactions.ts';
import { MAX_LOT_CLOSE, MAX_LOT_POSITION } from '../../../domain/positions/lots.ts';

/** The ledger as the server answers it. */
export type Ledger = AnswerOf<typeof portfolioApi.getPortfolioLedger>;

/** The ledger as the server answers a transaction recorded: with what a sale beyond the lots held opened. */
export type Recorded = AnswerOf<typeof portfolioApi.postPortfolioTransactions>;

/** The performance as the server answers it. */
export type Performance = AnswerOf<typeof portfolioApi.getPortfolioPerformance>;

/** The line that says a sale opened a short (`Sold 15 of 10 held: a short of 5 is open`), or null. */
export function shortNotice(answer: Pick<Recorded, 'opensShort'>): string | null {
  const opened = answer.opensShort;
  if (!opened) return null;
  const [sold, held, short] = [opened.sold, opened.held, opened.short].map((n) => formatQuantity(n));
  return `Sold ${sold} of ${held} held: a short of ${short} is open`;
}

/** The ranges of the performance chart. */
export const RANGES = ['1M', '3M', 'YTD', '1Y', 'All'] as const;

/** A range of the performance chart. */
export type Range = (typeof RANGES)[number];

/** The first date of a range ending on `last` (`YYYY-MM-DD`), or null for all. */
export function rangeStart(range: Range, last: string): string | null {
  const [y, m, d] = last.split('-').map(Number) as [number, number, number];
  const back = (months: number) => {
    const date = new Date(Date.UTC(y, m - 1 - months, d));
    return date.toISOString().slice(0, 10);
  };
  switch (range) {
    case '1M':
      return back(1);
    case '3M':
      return back(3);
    case '1Y':
      return back(12);
    case 'YTD':
      return `${y}-01-01`;
    case 'All':
      return null;
  }
}

/** The part of the series in a range, its returns restarted at 0 on the range's first day. */
export function inRange(series: Performance, range: Range): Performance {
  const last = series.dates.at(-1);
  const from = last === undefined ? null : rangeStart(range, last);
  const start =
    from === null
      ? 0
      : Math.max(
          0,
          series.dates.findIndex((d) => d >= from),
        );
  const rebase = (values: readonly (number | null)[]) => {
    const base = values.slice(start).find((v): v is number => v !== null);
    return values
      .slice(start)
      .map((v) =>
        v === null || base === undefined ? null : Number((((100 + v) / (100 + base) - 1) * 100).toFixed(4)),
      );
  };
  return {
    benchmark: series.benchmark,
    dates: series.dates.slice(start),
    value: series.value.slice(start),
    twr: rebase(series.twr) as number[],
    benchmarkReturn: rebase(series.benchmarkReturn),
  };
}

/** One slice of an allocation chart. */
export interface Slice {
  readonly label: string;
  readonly value: number;
}

/** The allocation by sector of the open lots' absolute market value (unknown sectors as `Other`), largest first. */
export function sectorAllocation(pnl: PortfolioPnl, sectorOf: (symbol: string) => string | undefined): Slice[] {
  const sums = new Map<string, number>();
  for (const lot of pnl.lots) {
    if (lot.value === null) continue;
    const sector = sectorOf(lot.symbol) ?? 'Other';
    sums.set(sector, (sums.get(sector) ?? 0) + Math.abs(lot.value));
  }
  return [...sums]
    .filter(([, value]) => value > 0)
    .map(([label, value]) => ({ label, value: Math.round(value * 100) / 100 }))
    .sort((a, b) => b.value - a.value);
}

/** The realized gain of each trade that closed lots, in dollars, by transaction id. */
export function realizedByTransaction(ledger: Pick<Ledger, 'closings'>): Record<string, number> {
  const cents: Record<string, number> = {};
  for (const c of ledger.closings) cents[c.transactionId] = (cents[c.transactionId] ?? 0) + c.gainCents;
  return Object.fromEntries(Object.entries(cents).map(([id, value]) => [id, value / 100]));
}

/** The transaction form as typed. */
export interface TransactionForm {
  readonly kind: TransactionFields['kind'];
  readonly symbol: string;
  readonly date: string;
  readonly quantity: string;
  readonly price: string;
  readonly fee: string;
  readonly amount: string;
  /** For a sell: the quantity typed for each lot chosen, by lot id; first in, first out when null. */
  readonly lots: Readonly<Record<string, string>> | null;
}

/** The form's wrong fields, each with its message. */
export type TransactionFormErrors = Partial<
  Record<'symbol' | 'date' | 'quantity' | 'price' | 'fee' | 'amount' | 'lots', string>
>;

const NUMBER = /^\d+(\.\d+)?$/;

/** The number typed (digits, optional decimals, so never negative; commas only grouping thousands); else null. */
function nonNegative(text: string): number | null {
  const trimmed = withoutGrouping(text);
  return NUMBER.test(trimmed) ? Number(trimmed) : null;
}

function positive(text: string): number | null {
  const value = nonNegative(text);
  return value !== null && value > 0 ? value : null;
}

/** Checks the form; answers the transaction to send or the wrong fields (the server checks everything again). */
export function checkTransactionForm(
  form: TransactionForm,
  today: string,
): { transaction: TransactionFields; errors?: undefined } | { transaction?: undefined; errors: TransactionFormErrors } {
  const errors: TransactionFormErrors = {};
  const symbol = form.symbol.trim().toUpperCase();
  if (!/^[A-Z0-9][A-Z0-9.-]{0,9}$/.test(symbol)) errors.symbol = 'Enter a symbol, e.g. AAPL';
  if (!/^\d{4}-\d{2}-\d{2}$/.test(form.date) || form.date > today) errors.date = 'Enter a date up to today';
  if (form.kind === 'dividend' || form.kind === 'fee') {
    const amount = positive(form.amount);
    if (amount === null) errors.amount = 'Enter an amount above 0';
    else if (amount > MAX_TRANSACTION_AMOUNT)
      errors.amount = `Enter an amount of at most ${formatPrice(MAX_TRANSACTION_AMOUNT)}`;
    if (Object.keys(errors).length > 0 || amount === null) return { errors };
    return { transaction: { kind: form.kind, symbol, date: form.date, amount } };
  }
  const quantity = positive(form.quantity);
  const price = positive(form.price);
  // A commission may be 0 however it is written ("0", "0.00"); empty means none.
  const fee = form.fee.trim() === '' ? 0 : nonNegative(form.fee);
  if (quantity === null) errors.quantity = 'Enter a quantity above 0';
  else if (quantity > MAX_LOT_POSITION)
    errors.quantity = `Enter a quantity of at most ${formatQuantity(MAX_LOT_POSITION)}`;
  if (price === null) errors.price = 'Enter a price above 0';
  else if (price > MAX_LOT_CLOSE) errors.price = `Enter a price of at most ${formatPrice(MAX_LOT_CLOSE)}`;
  if (fee === null) errors.fee = 'Enter a commission of 0 or more';
  else if (fee > MAX_TRANSACTION_AMOUNT)
    errors.fee = `Enter a commission of at most ${formatPrice(MAX_TRANSACTION_AMOUNT)}`;
  let lots: { id: string; quantity: number }[] | undefined;
  if (form.kind === 'sell' && form.lots !== null) {
    lots = [];
    for (const [id, text] of Object.entries(form.lots)) {
      if (text.trim() === '') continue;
      const q = positive(text);
      if (q === null) errors.lots = 'Enter a quantity above 0 for each lot chosen';
      else lots.push({ id, quantity: q });
    }
    const total = Number(lots.reduce((sum, l) => sum + l.quantity, 0).toFixed(6));
    if (lots.length === 0) errors.lots = 'Choose at least one lot';
    else if (quantity !== null && total !== quantity) errors.lots = `The lots add up to ${total}, not ${quantity}`;
  }
  if (Object.keys(errors).length > 0 || quantity === null || price === null || fee === null) return { errors };
  const trade = { symbol, date: form.date, quantity, price, fee };
  return {
    transaction:
      form.kind === 'sell' ? { kind: 'sell', ...trade, ...(lots ? { lots } : {}) } : { kind: 'buy', ...trade },
  };
}

/** A transaction as the ledger answers it. */
export type LedgerTransaction = Ledger['transactions'][number];

/** The quantity of a trade, or the amount of a dividend or fee. */
export function sizeOf(t: LedgerTransaction): number {
  return t.kind === 'dividend' || t.kind === 'fee' ? t.amount : t.quantity;
}

/** The price of a trade; null for a dividend or fee. */
export function priceOf(t: LedgerTransaction): number | null {
  return t.kind === 'dividend' || t.kind === 'fee' ? null : t.price;
}

/** The commission of a trade; null for a dividend or fee. */
export function feeOf(t: LedgerTransaction): number | null {
  return t.kind === 'dividend' || t.kind === 'fee' ? null : t.fee;
}
