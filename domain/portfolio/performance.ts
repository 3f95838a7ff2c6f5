/**
 * Performance over time: the portfolio's value on each trading day since its first transaction and its
 * time-weighted return, against a benchmark. Each day is split at its trades (in the order recorded) into
 * sub-periods whose returns compound: a sub-period runs from a value (the previous close, or the holdings
 * right after a trade) to the holdings' value at the next trade or the close, with each symbol marked at its
 * latest known price (the traded symbol at its trade price, the others at their last close; a symbol's move
 * we cannot place within the day falls in the day's last sub-period). Its return is (end value − start value
 * + income) / |start value|, so a trade's money is counted at its own price on both sides and never moves the
 * return: a sale earns the previous close → sale price, a buy the buy price → close. A sub-period starting
 * from nothing (a first buy, or after selling out) has no return; the next one starts at the trade price.
 * Income (the day's dividends and fee transactions, and each trade's commission at its trade) counts in the
 * first sub-period ending after it that starts from a value; income of a day with nothing held is left out.
 * Shorts count negative, over the absolute value.
 */
import { oldestFirst } from '../positions/lots.ts';
import { roundQuantity, type Transaction } from './transactions.ts';

/** The wire form of a performance series; every array is aligned with `dates`. */
export interface PerformanceSeries {
  /** Trading days, oldest first, from the first on or after the first transaction. */
  readonly dates: readonly string[];
  /** Market value of the holdings at each day's close (shorts count negative), in dollars. */
  readonly value: readonly number[];
  /** Time-weighted return since the first day, in percent. */
  readonly twr: readonly number[];
  /** The benchmark's return since the first day, in percent; null on days it has no price. */
  readonly benchmark: readonly (number | null)[];
}

/** What a performance series is computed from. */
export interface PerformanceInput {
  /** Every transaction of the portfolio. */
  readonly transactions: readonly Transaction[];
  /** The market's trading days, oldest first. */
  readonly calendar: readonly string[];
  /** A symbol's close on each day of `dates` (null where it has none). */
  readonly closes: (symbol: string, dates: readonly string[]) => readonly (number | null)[];
  /** The benchmark's level on each day of `dates` (any scale; null where it has none). */
  readonly benchmark: (dates: readonly string[]) => readonly (number | null)[];
}

const round = (value: number, decimals: number): number => Number(value.toFixed(decimals));

/** The trading days from the first on or after `from`. */
function daysFrom(calendar: readonly string[], from: string): readonly string[] {
  const start = calendar.findIndex((d) => d >= from);
  return start < 0 ? [] : calendar.slice(start);
}

/** The series of a portfolio; empty when it has no trade, or none on or before the market's last day. */
export function performanceSeries(input: PerformanceInput): PerformanceSeries {
  const ordered = oldestFirst(input.transactions);
  const first = ordered[0];
  const dates = first ? daysFrom(input.calendar, first.date) : [];
  if (dates.length === 0) return { dates: [], value: [], twr: [], benchmark: [] };
  const symbols = [...new Set(ordered.map((t) => t.symbol))];
  const closes = new Map(symbols.map((s) => [s, input.closes(s, dates)]));
  const held = new Map<string, number>();
  const lastPrice = new Map<string, number>();
  const value: number[] = [];
  const twr: number[] = [];
  let next = 0;
  let growth = 1;
  /** The value of the holdings at the latest known prices. */
  const worth = (): number => {
    let sum = 0;
    for (const [symbol, quantity] of held) sum += quantity * (lastPrice.get(symbol) ?? 0);
    return sum;
  };
  dates.forEach((date, day) => {
    // A transaction on a day without trading counts on the next trading day.
    const todays: Transaction[] = [];
    while (next < ordered.length && ordered[next]!.date <= date) todays.push(ordered[next++]!);
    let income = 0;
    for (const t of todays) {
      if (t.kind === 'dividend') income += t.amount;
      else if (t.kind === 'fee') income -= t.amount;
    }
    let start = worth();
    // Ends a sub-period at `end`; its income waits for a sub-period that starts from a value.
    const close = (end: number): void => {
      if (start === 0) return;
      growth *= 1 + (end - start + income) / Math.abs(start);
      income = 0;
    };
    for (const t of todays) {
      if (t.kind === 'dividend' || t.kind === 'fee') continue;
      lastPrice.set(t.symbol, t.price);
      income -= t.fee;
      close(worth());
      const signed = t.kind === 'buy' ? t.quantity : -t.quantity;
      held.set(t.symbol, roundQuantity((held.get(t.symbol) ?? 0) + signed));
      start = worth();
    }
    for (const symbol of held.keys()) {
      const price = closes.get(symbol)?.[day];
      if (typeof price === 'number') lastPrice.set(symbol, price);
    }
    const today = worth();
    close(today);
    value.push(round(today, 2));
    twr.push(round((growth - 1) * 100, 4));
  });
  const levels = input.benchmark(dates);
  const start = levels.find((v): v is number => typeof v === 'number' && v > 0);
  const benchmark = levels.map((v) =>
    start === undefined || typeof v !== 'number' ? null : round((v / start - 1) * 100, 4),
  );
  return { dates, value, twr, benchmark };
}

/**
 * The level of an equal-weight index, rebalanced daily, from the cumulative % changes of its members: each
 * day's return is the mean of the members' returns that day (members without both closes left out).
 */
export function equalWeightLevels(members: readonly (readonly (number | null)[])[], days: number): number[] {
  const levels: number[] = [];
  let level = 100;
  for (let day = 0; day < days; day++) {
    let sum = 0;
    let count = 0;
    if (day > 0) {
      for (const series of members) {
        const before = series[day - 1];
        const now = series[day];
        if (typeof before === 'number' && typeof now === 'number' && before > -100) {
          sum += (100 + now) / (100 + before) - 1;
          count++;
        }
      }
    }
    if (count > 0) level *= 1 + sum / count;
    levels.push(level);
  }
  return levels;
}
