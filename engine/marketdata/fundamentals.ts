/**
 * Generated fundamentals: revenue, gross profit, net income and EPS per symbol, annual and quarterly, derived
 * from the universe's market cap with sector price-to-sales ratios and margins, so that EPS × shares ≈ net
 * income. They are labelled `derived`; figures imported from SEC company facts replace them.
 */
import type { FundamentalType, Sector, UniverseEntry } from '../../domain/market/types.ts';
import { dayNumber } from './calendar.ts';
import { streamOf } from './random.ts';
import { UNIVERSE_DATE } from './universe.ts';

export { FUNDAMENTAL_TYPES, type FundamentalType } from '../../domain/market/types.ts';

/** `A` for fiscal years, `Q` for fiscal quarters. */
export type FundamentalPeriod = 'A' | 'Q';

/** Where a figure comes from: generated from the universe's anchors, or imported from SEC company facts. */
export type FundamentalSource = 'derived' | 'SEC';

/** One reported figure as the API serves it (`GET /api/fundamentals/...`). */
export interface FundamentalRow {
  /** Last day of the period, `YYYY-MM-DD`. */
  readonly end: string;
  /** The figure: dollars, or dollars per share for EPS. */
  readonly val: number;
  /** Fiscal year of the period. */
  readonly fy: number;
  /** Fiscal period: `FY`, `Q1`, `Q2`, `Q3` or `Q4`. */
  readonly fp: string;
  /** Form the figure is reported on, e.g. `10-K` or `10-Q`. */
  readonly form: string;
  /** Where the figure comes from. */
  readonly label: FundamentalSource;
}

/** A figure with its type and period, as stored. */
export interface FundamentalFact extends FundamentalRow {
  /** What the figure is. */
  readonly type: FundamentalType;
  /** Fiscal year or quarter. */
  readonly period: FundamentalPeriod;
}

/** Options of {@link generateFundamentals}. */
export interface FundamentalsOptions {
  /** Global seed; each symbol's figures are drawn from it and the symbol. */
  readonly seed: number;
  /** The periods generated are those ended on or before this date (default the universe date). */
  readonly endDate?: string;
  /** Fiscal years generated (default 6). */
  readonly years?: number;
  /** Fiscal quarters generated (default 16). */
  readonly quarters?: number;
}

/** A sector's valuation and profitability anchors. */
interface SectorAnchor {
  /** Price-to-sales ratio (market cap / trailing revenue). */
  readonly priceToSales: number;
  /** Gross margin. */
  readonly gross: number;
  /** Net margin. */
  readonly net: number;
  /** Typical annual revenue growth. */
  readonly growth: number;
}

/** Typical anchors per sector for large US companies, rounded. */
const SECTOR_ANCHORS: Readonly<Record<Sector, SectorAnchor>> = {
  'Communication Services': { priceToSales: 3.0, gross: 0.55, net: 0.12, growth: 0.06 },
  'Consumer Discretionary': { priceToSales: 2.0, gross: 0.38, net: 0.08, growth: 0.06 },
  'Consumer Staples': { priceToSales: 1.6, gross: 0.35, net: 0.07, growth: 0.04 },
  Energy: { priceToSales: 1.5, gross: 0.3, net: 0.1, growth: 0.03 },
  Financials: { priceToSales: 3.0, gross: 0.6, net: 0.2, growth: 0.05 },
  'Health Care': { priceToSales: 3.0, gross: 0.55, net: 0.1, growth: 0.07 },
  Industrials: { priceToSales: 2.5, gross: 0.32, net: 0.1, growth: 0.05 },
  'Information Technology': { priceToSales: 6.0, gross: 0.6, net: 0.18, growth: 0.1 },
  Materials: { priceToSales: 2.0, gross: 0.28, net: 0.09, growth: 0.04 },
  'Real Estate': { priceToSales: 7.0, gross: 0.65, net: 0.22, growth: 0.05 },
  Utilities: { priceToSales: 2.6, gross: 0.45, net: 0.13, growth: 0.04 },
};

/** The last quarter end (Mar 31, Jun 30, Sep 30, Dec 31) on or before a date, as year and quarter 1–4. */
function lastQuarterEnd(date: string): { year: number; quarter: number } {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const quarterEnds = [
    [3, 31],
    [6, 30],
    [9, 30],
    [12, 31],
  ] as const;
  for (let q = 4; q >= 1; q--) {
    const [em, ed] = quarterEnds[q - 1]!;
    if (m > em || (m === em && d >= ed)) return { year: y, quarter: q };
  }
  return { year: y - 1, quarter: 4 };
}

function quarterEndDate(year: number, quarter: number): string {
  const ends = ['03-31', '06-30', '09-30', '12-31'];
  return `${year}-${ends[quarter - 1]}`;
}

/** Rounds dollars to the thousand, the precision of most filings. */
function thousands(value: number): number {
  return Math.round(value / 1000) * 1000;
}

/**
 * Generates a symbol's fundamentals (calendar fiscal years): `years` annual and `quarters` quarterly figures
 * of each type, ending with the last period closed on or before `endDate`; quarters add up to their year.
 */
export function generateFundamentals(entry: UniverseEntry, options: FundamentalsOptions): FundamentalFact[] {
  const endDate = options.endDate ?? UNIVERSE_DATE;
  dayNumber(endDate);
  const years = options.years ?? 6;
  const quarterCount = options.quarters ?? 16;
  const rng = streamOf(options.seed, `fundamentals:${entry.symbol}`);
  const anchor = SECTOR_ANCHORS[entry.sector];
  const last = lastQuarterEnd(endDate);
  // Enough whole fiscal years to hold every quarter asked for, and the annual figures.
  const lastFullYear = last.quarter === 4 ? last.year : last.year - 1;
  const firstYear = Math.min(lastFullYear - years + 1, last.year - Math.ceil(quarterCount / 4));

  const priceToSales = anchor.priceToSales * Math.exp(0.35 * rng.normal());
  const grossMargin = Math.min(0.95, Math.max(0.05, anchor.gross * Math.exp(0.15 * rng.normal())));
  const netMargin = Math.min(grossMargin * 0.8, anchor.net * (1 + 0.4 * rng.normal()));
  const seasonality = [0, 0, 0, 0].map(() => 1 + 0.04 * rng.normal());

  // Quarterly revenue backward from the trailing four quarters implied by the price-to-sales ratio.
  const quarters: { year: number; quarter: number }[] = [];
  for (let y = firstYear; y <= last.year; y++) {
    for (let q = 1; q <= 4; q++) if (y < last.year || q <= last.quarter) quarters.push({ year: y, quarter: q });
  }
  const quarterlyGrowth = Math.pow(1 + anchor.growth * (1 + 0.5 * rng.normal()), 0.25);
  const raw = quarters.map((_, i) => Math.pow(quarterlyGrowth, i) * (1 + 0.03 * rng.normal()));
  const trailing = raw.slice(-4).reduce((a, b) => a + b, 0);
  const scale = entry.marketcap / priceToSales / trailing;

  const rows = quarters.map((q, i) => {
    const revenue = raw[i]! * scale * seasonality[q.quarter - 1]!;
    const gross = revenue * Math.min(0.97, Math.max(0.02, grossMargin + 0.015 * rng.normal()));
    const income = revenue * (netMargin + 0.02 * rng.normal());
    // Shares outstanding shrink about 1% a year through buybacks, so earlier years had more.
    const shares = entry.shares * Math.pow(1.0025, quarters.length - 1 - i);
    return { ...q, revenue, gross, income, shares };
  });

  const facts: FundamentalFact[] = [];
  const push = (type: FundamentalType, period: FundamentalPeriod, end: string, val: number, fy: number, fp: string) => {
    const form = period === 'A' || fp === 'Q4' ? '10-K' : '10-Q';
    facts.push({ type, period, end, val, fy, fp, form, label: 'derived' });
  };
  for (let y = lastFullYear - years + 1; y <= lastFullYear; y++) {
    const ofYear = rows.filter((r) => r.year === y);
    const sum = (pick: (r: (typeof rows)[number]) => number) => ofYear.reduce((a, r) => a + pick(r), 0);
    const end = quarterEndDate(y, 4);
    const income = thousands(sum((r) => r.income));
    const shares = sum((r) => r.shares) / ofYear.length;
    push('revenue', 'A', end, thousands(sum((r) => r.revenue)), y, 'FY');
    push('grossprofit', 'A', end, thousands(sum((r) => r.gross)), y, 'FY');
    push('income', 'A', end, income, y, 'FY');
    push('earningspershare', 'A', end, Math.round((income / shares) * 100) / 100, y, 'FY');
  }
  for (const r of rows.slice(-quarterCount)) {
    const end = quarterEndDate(r.year, r.quarter);
    const fp = `Q${r.quarter}`;
    const income = thousands(r.income);
    push('revenue', 'Q', end, thousands(r.revenue), r.year, fp);
    push('grossprofit', 'Q', end, thousands(r.gross), r.year, fp);
    push('income', 'Q', end, income, r.year, fp);
    push('earningspershare', 'Q', end, Math.round((income / r.shares) * 100) / 100, r.year, fp);
  }
  return facts;
}
