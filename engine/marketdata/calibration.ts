/**
 * Measures a daily-bar history the way the calibration targets were measured on real stocks, and compares
 * each figure with its target (market-data.md), so that generator drift away from realism shows.
 */
import { RSI, SMA } from 'trading-signals';
import { SECTORS, type DailyBar, type Sector, type UniverseEntry } from '../../domain/market/types.ts';
import { MARKET_PROFILE, SECTOR_PROFILES, type SectorProfile } from './generator.ts';

/** Relative error beyond which a measured figure is flagged. */
export const TOLERANCE = 0.2;

/** One compared figure. */
export interface CalibrationRow {
  /** Sector name, or `all stocks`. */
  readonly group: string;
  /** What is measured, e.g. `ann. vol (median)`. */
  readonly figure: string;
  /** How the figure is printed. */
  readonly unit: 'percent' | 'number';
  /** The value measured on the history. */
  readonly measured: number;
  /** The value aimed at. */
  readonly target: number;
  /** `measured / target - 1`. */
  readonly error: number;
  /** Whether the relative error is beyond {@link TOLERANCE}. */
  readonly flagged: boolean;
}

/** How often one screener preset of the spec matches. */
export interface PresetRow {
  /** The preset, e.g. `close < SMA50`. */
  readonly preset: string;
  /** Share of stocks matching on real data. */
  readonly target: number;
  /** Share of stocks matching on the last day. */
  readonly lastDay: number;
  /** Number of stocks matching on the last day. */
  readonly lastDayCount: number;
  /** Share of stocks matching, averaged over every day on which SMA(200) is defined. */
  readonly average: number;
}

/** The measured figures of a history. */
export interface CalibrationReport {
  /** Number of symbols measured. */
  readonly symbols: number;
  /** Number of trading days of the longest history. */
  readonly days: number;
  /** Sector and overall figures with their targets. */
  readonly rows: readonly CalibrationRow[];
  /** Screener preset frequencies. */
  readonly presets: readonly PresetRow[];
}

/** The spec's screener presets with their frequency on real data (465 stocks, market-data.md). */
export const PRESET_TARGETS: readonly { readonly preset: string; readonly target: number }[] = Object.freeze([
  { preset: 'close < SMA50', target: 0.39 },
  { preset: 'SMA200 > SMA50', target: 0.31 },
  { preset: 'SMA200 > close', target: 0.31 },
  { preset: 'RSI14 < 30', target: 0.03 },
  { preset: 'RSI14 > 80', target: 0.008 },
]);

const SECTOR_FIGURES: readonly { key: keyof SectorProfile; figure: string; unit: 'percent' | 'number' }[] = [
  { key: 'vol', figure: 'ann. vol (median)', unit: 'percent' },
  { key: 'beta', figure: 'beta (median)', unit: 'number' },
  { key: 'corrIn', figure: 'avg corr in sector', unit: 'number' },
  { key: 'corrOut', figure: 'avg corr to others', unit: 'number' },
  { key: 'range', figure: 'median (H-L)/C', unit: 'percent' },
];

function row(group: string, figure: string, unit: 'percent' | 'number', measured: number, target: number) {
  const error = measured / target - 1;
  return { group, figure, unit, measured, target, error, flagged: !(Math.abs(error) <= TOLERANCE) };
}

function median(values: readonly number[]): number {
  const xs = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (xs.length === 0) return Number.NaN;
  const mid = Math.floor(xs.length / 2);
  return xs.length % 2 === 1 ? xs[mid]! : (xs[mid - 1]! + xs[mid]!) / 2;
}

function average(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

function meanOf(xs: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i]!;
  return s / xs.length;
}

function correlation(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const ma = meanOf(a);
  const mb = meanOf(b);
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < a.length; i++) {
    const da = a[i]! - ma;
    const db = b[i]! - mb;
    sab += da * db;
    saa += da * da;
    sbb += db * db;
  }
  return sab / Math.sqrt(saa * sbb);
}

function excessKurtosis(xs: Float64Array): number {
  const m = meanOf(xs);
  let m2 = 0;
  let m4 = 0;
  for (const x of xs) {
    const d = (x - m) * (x - m);
    m2 += d;
    m4 += d * d;
  }
  m2 /= xs.length;
  m4 /= xs.length;
  return m4 / (m2 * m2) - 3;
}

/** One stock's series aligned on the common calendar (NaN where it has no bar). */
interface StockSeries {
  readonly entry: UniverseEntry;
  readonly bars: readonly DailyBar[];
  /** Log-return of each of its bars against the previous bar (the first is NaN). */
  readonly returns: Float64Array;
}

/** Daily log-returns of a run of bars; the first entry is NaN. */
function logReturns(bars: readonly DailyBar[]): Float64Array {
  const r = new Float64Array(bars.length);
  r[0] = Number.NaN;
  for (let t = 1; t < bars.length; t++) r[t] = Math.log(bars[t]!.close / bars[t - 1]!.close);
  return r;
}

/** Screener preset flags of one stock on each day, from SMA(50), SMA(200) and RSI(14) of trading-signals. */
function presetFlags(bars: readonly DailyBar[]): (boolean[] | null)[] {
  const sma50 = new SMA(50);
  const sma200 = new SMA(200);
  const rsi = new RSI(14);
  return bars.map((bar) => {
    const s50 = sma50.add(bar.close);
    const s200 = sma200.add(bar.close);
    const r14 = rsi.add(bar.close);
    if (s50 === null || s200 === null || r14 === null) return null;
    return [bar.close < s50, s200 > s50, s200 > bar.close, r14 < 30, r14 > 80];
  });
}

/** Measures a history (bars by symbol) against the calibration targets. */
export function measureCalibration(
  universe: readonly UniverseEntry[],
  history: ReadonlyMap<string, readonly DailyBar[]>,
): CalibrationReport {
  const stocks: StockSeries[] = [];
  for (const entry of universe) {
    const bars = history.get(entry.symbol);
    if (bars !== undefined && bars.length > 20) stocks.push({ entry, bars, returns: logReturns(bars) });
  }
  const dates = [...new Set(stocks.flatMap((s) => s.bars.map((b) => b.date)))].sort();
  const dayIndex = new Map(dates.map((d, i) => [d, i]));

  // Returns on the common calendar, and the equal-weighted market of the stocks trading each day.
  const aligned = stocks.map((s) => {
    const a = new Float64Array(dates.length).fill(Number.NaN);
    s.bars.forEach((b, t) => (a[dayIndex.get(b.date)!] = s.returns[t]!));
    return a;
  });
  const marketReturn = new Float64Array(dates.length);
  for (let d = 0; d < dates.length; d++) {
    let sum = 0;
    let count = 0;
    for (const a of aligned) {
      if (!Number.isNaN(a[d]!)) {
        sum += Math.expm1(a[d]!);
        count++;
      }
    }
    marketReturn[d] = count > 0 ? sum / count : Number.NaN;
  }
  const common = dates.map((_, d) => d).filter((d) => aligned.every((a) => !Number.isNaN(a[d]!)));

  // Standardised returns on the days every stock traded, for the correlation matrix.
  const standardized = aligned.map((a) => {
    const xs = common.map((d) => a[d]!);
    const m = average(xs);
    const sd = Math.sqrt(average(xs.map((x) => (x - m) * (x - m))));
    return Float64Array.from(xs, (x) => (x - m) / sd);
  });
  const corr = (i: number, j: number): number => {
    const a = standardized[i]!;
    const b = standardized[j]!;
    let s = 0;
    for (let t = 0; t < a.length; t++) s += a[t]! * b[t]!;
    return s / a.length;
  };

  const perStock = stocks.map((s, i) => {
    const days = s.bars.map((_, t) => t).filter((t) => t > 0);
    const r = Float64Array.from(days, (t) => s.returns[t]!);
    const m = days.map((t) => marketReturn[dayIndex.get(s.bars[t]!.date)!]!);
    const simple = Array.from(r, (x) => Math.expm1(x));
    const mm = average(m);
    const sm = average(simple);
    let cov = 0;
    let varM = 0;
    for (let k = 0; k < m.length; k++) {
      cov += (simple[k]! - sm) * (m[k]! - mm);
      varM += (m[k]! - mm) * (m[k]! - mm);
    }
    const absR = r.map(Math.abs);
    const rm = meanOf(r);
    const vol = Math.sqrt(r.reduce((acc, x) => acc + (x - rm) * (x - rm), 0) / r.length) * Math.sqrt(252);
    let gaps = 0;
    for (const t of days) if (Math.abs(s.bars[t]!.open / s.bars[t - 1]!.close - 1) > 0.02) gaps++;
    return {
      index: i,
      vol,
      beta: cov / varM,
      range: median(s.bars.map((b) => (b.high - b.low) / b.close)),
      kurtosis: excessKurtosis(r),
      absAutocorr: correlation(absR.subarray(1), absR.subarray(0, absR.length - 1)),
      volumeCorr: correlation(
        absR,
        days.map((t) => Math.log(Math.max(1, s.bars[t]!.volume))),
      ),
      gaps,
      gapDays: days.length,
    };
  });

  const rows: CalibrationRow[] = [];
  const bySector = new Map<Sector, number[]>();
  stocks.forEach((s, i) => bySector.set(s.entry.sector, [...(bySector.get(s.entry.sector) ?? []), i]));
  for (const sector of SECTORS) {
    const members = bySector.get(sector);
    if (members === undefined) continue;
    const inside = new Set(members);
    const pairsIn: number[] = [];
    const pairsOut: number[] = [];
    for (const i of members) {
      for (let j = 0; j < stocks.length; j++) {
        if (j === i) continue;
        if (inside.has(j)) {
          if (j > i) pairsIn.push(corr(i, j));
        } else pairsOut.push(corr(i, j));
      }
    }
    const stats = members.map((i) => perStock[i]!);
    const measured: Record<keyof SectorProfile, number> = {
      vol: median(stats.map((x) => x.vol)),
      beta: median(stats.map((x) => x.beta)),
      corrIn: average(pairsIn),
      corrOut: average(pairsOut),
      range: median(stats.map((x) => x.range)),
    };
    for (const f of SECTOR_FIGURES) {
      if (f.key === 'corrIn' && pairsIn.length === 0) continue;
      if (f.key === 'corrOut' && pairsOut.length === 0) continue;
      rows.push(row(sector, f.figure, f.unit, measured[f.key], SECTOR_PROFILES[sector][f.key]));
    }
  }
  const all = 'all stocks';
  rows.push(
    row(
      all,
      'excess kurtosis (median)',
      'number',
      median(perStock.map((x) => x.kurtosis)),
      MARKET_PROFILE.excessKurtosis,
    ),
    row(
      all,
      'lag-1 autocorr of |r| (median)',
      'number',
      median(perStock.map((x) => x.absAutocorr)),
      MARKET_PROFILE.absAutocorr,
    ),
    row(
      all,
      'days with |gap| > 2%',
      'percent',
      perStock.reduce((a, x) => a + x.gaps, 0) / perStock.reduce((a, x) => a + x.gapDays, 0),
      MARKET_PROFILE.gapShare,
    ),
    row(
      all,
      'corr(|r|, log volume) (median)',
      'number',
      median(perStock.map((x) => x.volumeCorr)),
      MARKET_PROFILE.volumeCorr,
    ),
  );

  // Presets: on the last day, and averaged over the days on which every indicator is defined.
  const flags = stocks.map((s) => presetFlags(s.bars));
  const lastDate = dates[dates.length - 1];
  const matchesByDay = new Map<string, { stocks: number; counts: number[] }>();
  stocks.forEach((s, i) => {
    s.bars.forEach((bar, t) => {
      const f = flags[i]![t];
      if (f === null || f === undefined) return;
      const day = matchesByDay.get(bar.date) ?? { stocks: 0, counts: PRESET_TARGETS.map(() => 0) };
      day.stocks++;
      f.forEach((hit, k) => (day.counts[k] = day.counts[k]! + (hit ? 1 : 0)));
      matchesByDay.set(bar.date, day);
    });
  });
  const last = lastDate === undefined ? undefined : matchesByDay.get(lastDate);
  const everyDay = [...matchesByDay.values()];
  const presets: PresetRow[] = PRESET_TARGETS.map((p, k) => ({
    preset: p.preset,
    target: p.target,
    lastDay: last ? last.counts[k]! / last.stocks : 0,
    lastDayCount: last ? last.counts[k]! : 0,
    average: average(everyDay.map((d) => d.counts[k]! / d.stocks)),
  }));

  return { symbols: stocks.length, days: dates.length, rows, presets };
}

function formatValue(value: number, unit: 'percent' | 'number'): string {
  return unit === 'percent' ? `${(value * 100).toFixed(2)}%` : value.toFixed(3);
}

function signedPercent(value: number): string {
  return `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)}%`;
}

/** The report as a plain-text table: measured against target with the relative error, flags marked `!`. */
export function formatCalibration(report: CalibrationReport): string {
  const lines: string[] = [];
  const header = ['group', 'figure', 'measured', 'target', 'error', ''];
  const body = report.rows.map((r) => [
    r.group,
    r.figure,
    formatValue(r.measured, r.unit),
    formatValue(r.target, r.unit),
    signedPercent(r.error),
    r.flagged ? '!' : '',
  ]);
  const widths = header.map((h, k) => Math.max(h.length, ...body.map((b) => b[k]!.length)));
  const render = (cells: readonly string[]) =>
    cells
      .map((c, k) => (k < 2 ? c.padEnd(widths[k]!) : c.padStart(widths[k]!)))
      .join('  ')
      .trimEnd();
  lines.push(`${report.symbols} symbols, ${report.days} trading days`, '', render(header));
  for (const b of body) lines.push(render(b));
  const flagged = report.rows.filter((r) => r.flagged).length;
  lines.push('', `${flagged} of ${report.rows.length} figures beyond ${TOLERANCE * 100}% of target`, '');

  const pHeader = ['preset', 'last day', 'stocks', 'average', 'target', 'error'];
  const pBody = report.presets.map((p) => [
    p.preset,
    formatValue(p.lastDay, 'percent'),
    String(p.lastDayCount),
    formatValue(p.average, 'percent'),
    formatValue(p.target, 'percent'),
    signedPercent(p.average / p.target - 1),
  ]);
  const pWidths = pHeader.map((h, k) => Math.max(h.length, ...pBody.map((b) => b[k]!.length)));
  const pRender = (cells: readonly string[]) =>
    cells.map((c, k) => (k === 0 ? c.padEnd(pWidths[k]!) : c.padStart(pWidths[k]!))).join('  ');
  lines.push(
    'screener presets: stocks matching on the last day (each preset needs at least one), and the share matching',
    'averaged over every day with SMA(200), against real data (for reference, not flagged)',
    '',
    pRender(pHeader),
  );
  for (const b of pBody) lines.push(pRender(b));
  return lines.join('\n');
}
