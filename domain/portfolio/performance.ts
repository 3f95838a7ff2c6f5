/**
 * Performance over time: the portfolio's value on each trading day since its first transaction and its
 * time-weighted return, against a benchmark. Each day's return is (value − value the day before − net money
 * put in + dividends − fees) over |value the day before + net money put in| (trades counted at the start of
 * their day, at their price); days compound, so money put in or taken out does not move the return.
 */
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
  const ordered = [...input.transactions].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
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
  let previous = 0;
  let growth = 1;
  dates.forEach((date, day) => {
    let flow = 0;
    let income = 0;
    // A transaction on a day without trading counts on the next trading day.
    while (next < ordered.length && ordered[next]!.date <= date) {
      const t = ordered[next++]!;
      if (t.kind === 'dividend') income += t.amount;
      else if (t.kind === 'fee') income -= t.amount;
      else {
        const signed = t.kind === 'buy' ? t.quantity : -t.quantity;
        held.set(t.symbol, roundQuantity((held.get(t.symbol) ?? 0) + signed));
        lastPrice.set(t.symbol, t.price);
        flow += signed * t.price;
        income -= t.fee;
      }
    }
    let today = 0;
    for (const [symbol, quantity] of held) {
      const close = closes.get(symbol)?.[day];
      if (typeof close === 'number') lastPrice.set(symbol, close);
      today += quantity * (lastPrice.get(symbol) ?? 0);
    }
    const base = Math.abs(previous + flow);
    const change = base === 0 ? 0 : (today - previous - flow + income) / base;
    growth *= 1 + change;
    value.push(round(today, 2));
    twr.push(round((growth - 1) * 100, 4));
    previous = today;
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
