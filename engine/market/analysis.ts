/**
 * The analysis of one symbol's daily history, as the market data service stores it: the latest bar with its
 * indicators and patterns (the snapshot), the pattern rows of the whole history with their forward returns, and
 * the close series; plus the version that says when stored analyses must be recomputed.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type DailyBar } from '../../domain/market/types.ts';
import { PATTERNS, type PatternName } from '../../domain/screener/patterns.ts';
import { computeIndicators, EMPTY_INDICATOR_ROW, type IndicatorRow } from '../indicators/indicators.ts';
import { dateOfDay, dayNumber } from '../marketdata/calendar.ts';
import type { StoredAnalysis, StoredPatternRow } from '../marketdata/store.ts';
import { detectAll, PATTERN_DEFINITIONS, type PatternHit } from '../patterns/patterns.ts';
import { HORIZONS, type Horizon } from '../patterns/performance.ts';

/** Bump to recompute every stored analysis when something the sources below do not show changes. */
export const ANALYSIS_REVISION = 1;

/** The latest bar of a symbol with what the screener, the quotes and the cards read from it. */
export interface SymbolSnapshot {
  /** Trading day of the latest bar. */
  readonly date: string;
  /** Its opening price. */
  readonly open: number;
  /** Its highest price. */
  readonly high: number;
  /** Its lowest price. */
  readonly low: number;
  /** Its closing price. */
  readonly close: number;
  /** Its volume. */
  readonly volume: number;
  /** The close of the bar before, or null for a history of one bar. */
  readonly prevClose: number | null;
  /** Indicators of the latest bar, over the whole history. */
  readonly indicators: IndicatorRow;
  /** Names of the patterns completed on the latest bar, in list order. */
  readonly patterns: readonly PatternName[];
}

/** The patterns of one symbol on one day, with the returns 1, 5 and 20 trading days later. */
export interface PatternDay {
  /** Ticker. */
  readonly symbol: string;
  /** Trading day. */
  readonly date: string;
  /** The patterns completed on that day, in list order. */
  readonly hits: readonly PatternHit[];
  /** Forward return per horizon as a fraction, null past the end of the history. */
  readonly returns: Readonly<Record<Horizon, number | null>>;
}

/** A symbol's analysis: its snapshot, pattern days and close series. */
export interface SymbolAnalysis {
  /** The latest bar and its indicators and patterns. */
  readonly snapshot: SymbolSnapshot;
  /** Every day of the history with at least one pattern, oldest first. */
  readonly patternDays: readonly PatternDay[];
  /** Trading days of the history, oldest first. */
  readonly dates: readonly string[];
  /** Closes of the history. */
  readonly closes: Float64Array;
}

const hitByName: ReadonlyMap<string, PatternHit> = new Map(
  PATTERNS.map((p) => [p.name, Object.freeze({ name: p.name, bullish: p.bullish })]),
);

/** The shared, frozen hit of a pattern name, or undefined for an unknown name. */
export function hitOf(name: string): PatternHit | undefined {
  return hitByName.get(name);
}

/** Analyses a history (oldest first, at least one bar): indicators of the last bar, patterns of every bar. */
export function analyseBars(symbol: string, bars: readonly DailyBar[]): SymbolAnalysis {
  const last = bars.at(-1);
  if (last === undefined) throw new RangeError(`${symbol}: no bars to analyse`);
  const detections = detectAll(bars);
  const lastIndex = bars.length - 1;
  const returnAfter = (index: number, h: Horizon): number | null => {
    const base = bars[index]?.close;
    const later = bars[index + h]?.close;
    return base === undefined || later === undefined || !(base > 0) ? null : later / base - 1;
  };
  const patternDays = detections.map((d): PatternDay => ({
    symbol,
    date: d.date,
    hits: d.hits.map((h) => hitByName.get(h.name) ?? h),
    returns: { 1: returnAfter(d.index, 1), 5: returnAfter(d.index, 5), 20: returnAfter(d.index, 20) },
  }));
  const lastDetection = detections.at(-1);
  const snapshot: SymbolSnapshot = {
    date: last.date,
    open: last.open,
    high: last.high,
    low: last.low,
    close: last.close,
    volume: last.volume,
    prevClose: bars[lastIndex - 1]?.close ?? null,
    indicators: computeIndicators(bars).at(-1) ?? EMPTY_INDICATOR_ROW,
    patterns: lastDetection?.index === lastIndex ? lastDetection.hits.map((h) => h.name) : [],
  };
  return {
    snapshot,
    patternDays,
    dates: bars.map((b) => b.date),
    closes: Float64Array.from(bars, (b) => b.close),
  };
}

/** The stored form of an analysis: the snapshot as JSON, the series as little-endian arrays. */
export function toStored(
  symbol: string,
  analysis: SymbolAnalysis,
  version: string,
  fingerprint: string,
): { analysis: StoredAnalysis; patternRows: StoredPatternRow[] } {
  const days = Buffer.alloc(analysis.dates.length * 4);
  analysis.dates.forEach((date, i) => days.writeInt32LE(dayNumber(date), i * 4));
  const closes = Buffer.alloc(analysis.closes.length * 8);
  analysis.closes.forEach((close, i) => closes.writeDoubleLE(close, i * 8));
  return {
    analysis: { symbol, version, fingerprint, snapshot: JSON.stringify(analysis.snapshot), days, closes },
    patternRows: analysis.patternDays.map((d) => ({
      symbol,
      date: d.date,
      patterns: d.hits.map((h) => h.name).join(','),
      r1: d.returns[1],
      r5: d.returns[5],
      r20: d.returns[20],
    })),
  };
}

/** Interns date strings, so that every series of the same calendar holds the same strings. */
const dateOfDayNumber = new Map<number, string>();

/** The trading days and closes of a stored analysis. */
export function seriesOf(stored: StoredAnalysis): { dates: string[]; closes: Float64Array } {
  const n = stored.days.length / 4;
  const dates = new Array<string>(n);
  for (let i = 0; i < n; i += 1) {
    const day = stored.days.readInt32LE(i * 4);
    let date = dateOfDayNumber.get(day);
    if (date === undefined) {
      date = dateOfDay(day);
      dateOfDayNumber.set(day, date);
    }
    dates[i] = date;
  }
  const closes = new Float64Array(stored.closes.length / 8);
  for (let i = 0; i < closes.length; i += 1) closes[i] = stored.closes.readDoubleLE(i * 8);
  return { dates, closes };
}

/** Reads the source of a module beside this one, or '' where sources are not shipped. */
function sourceOf(relative: string): string {
  const here = fileURLToPath(import.meta.url);
  const extension = here.slice(here.lastIndexOf('.'));
  try {
    return readFileSync(fileURLToPath(new URL(`${relative}${extension}`, import.meta.url)), 'utf8');
  } catch {
    return '';
  }
}

let version: string | undefined;

/**
 * The version of the analysis: the revision, the pattern list and definitions, the horizons, and the source of the
 * modules that compute indicators, patterns and this analysis, hashed; any change to them makes every stored
 * analysis stale.
 */
export function analysisVersion(): string {
  if (version === undefined) {
    const hash = createHash('sha256');
    hash.update(String(ANALYSIS_REVISION));
    hash.update(JSON.stringify(PATTERNS));
    hash.update(JSON.stringify(HORIZONS));
    for (const d of PATTERN_DEFINITIONS) hash.update(`${d.name}/${d.candles}/${String(d.bullish)}`);
    for (const file of ['../patterns/patterns', '../indicators/indicators', './analysis']) hash.update(sourceOf(file));
    version = `${ANALYSIS_REVISION}-${hash.digest('hex').slice(0, 16)}`;
  }
  return version;
}
