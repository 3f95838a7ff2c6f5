/**
 * The seeded history generator: about five years of daily bars per symbol, ending on the universe date with
 * the universe's close, calibrated to the per-sector statistics of real US stocks (see market-data.md).
 *
 * Each daily log-return is a market factor, a sector factor and an idiosyncratic part, with loadings that
 * give each sector its volatility, beta and correlations. Every part is a GARCH(1,1) process with
 * Student-t innovations; the market switches between a calm and a stressed regime (a Markov chain that
 * deepens drawdowns and lifts every volatility), each stock has a slowly varying volatility level and drift,
 * and the idiosyncratic part jumps overnight before quarterly report days. Each part is drawn forward, scaled
 * to its exact sample variance, and the closes are then laid backward from the universe's close.
 */
import { SECTORS, type DailyBar, type Sector, type UniverseEntry } from '../../domain/market/types.ts';
import { addDays, tradingDays } from './calendar.ts';
import { Random, streamOf } from './random.ts';
import { UNIVERSE_DATE } from './universe.ts';

/** Measured statistics of a sector's stocks that the generator aims at. */
export interface SectorProfile {
  /** Median annualised volatility of daily returns. */
  readonly vol: number;
  /** Median beta to the equal-weighted market. */
  readonly beta: number;
  /** Average correlation of daily returns between two stocks of the sector. */
  readonly corrIn: number;
  /** Average correlation of daily returns between a stock of the sector and one of another sector. */
  readonly corrOut: number;
  /** Median daily range (high − low) / close. */
  readonly range: number;
}

/** Calibration targets per sector, from real S&P 500 stocks 2013–2017 (market-data.md). */
export const SECTOR_PROFILES: Readonly<Record<Sector, SectorProfile>> = Object.freeze({
  Utilities: { vol: 0.165, beta: 0.51, corrIn: 0.67, corrOut: 0.21, range: 0.0135 },
  'Consumer Staples': { vol: 0.181, beta: 0.63, corrIn: 0.37, corrOut: 0.25, range: 0.0123 },
  'Real Estate': { vol: 0.186, beta: 0.71, corrIn: 0.51, corrOut: 0.26, range: 0.0149 },
  Financials: { vol: 0.207, beta: 1.12, corrIn: 0.56, corrOut: 0.35, range: 0.015 },
  Industrials: { vol: 0.211, beta: 1.05, corrIn: 0.43, corrOut: 0.33, range: 0.0148 },
  'Communication Services': { vol: 0.22, beta: 0.92, corrIn: 0.34, corrOut: 0.29, range: 0.015 },
  'Health Care': { vol: 0.224, beta: 0.85, corrIn: 0.33, corrOut: 0.27, range: 0.0153 },
  'Information Technology': { vol: 0.239, beta: 1.07, corrIn: 0.37, corrOut: 0.29, range: 0.016 },
  'Consumer Discretionary': { vol: 0.246, beta: 1.03, corrIn: 0.32, corrOut: 0.28, range: 0.0174 },
  Materials: { vol: 0.255, beta: 1.16, corrIn: 0.4, corrOut: 0.3, range: 0.0174 },
  Energy: { vol: 0.303, beta: 1.26, corrIn: 0.53, corrOut: 0.28, range: 0.0212 },
});

/** Calibration targets over all stocks (market-data.md). */
export const MARKET_PROFILE = Object.freeze({
  /** Median excess kurtosis of daily returns. */
  excessKurtosis: 5,
  /** Median lag-1 autocorrelation of absolute daily returns. */
  absAutocorr: 0.12,
  /** Share of days whose overnight gap (open against the previous close) exceeds 2% either way. */
  gapShare: 0.02,
  /** Median correlation of absolute daily return with log volume. */
  volumeCorr: 0.45,
});

/** Options of {@link generateHistory}. */
export interface GenerateOptions {
  /** Global seed; each symbol's stream is seeded from it and the symbol. */
  readonly seed: number;
  /**
   * Last trading day of the history (default the universe date). Up to the universe date the history ends on it
   * at the universe's close; after it, the history runs on from the universe date's close, one trading day
   * after another, so a later end date only adds days to the history of an earlier one.
   */
  readonly endDate?: string;
  /** Calendar years of history before `endDate`, or before the universe date when `endDate` is after it (default 5). */
  readonly years?: number;
}

/** Market and sector loadings of a sector's stocks, as correlations with the unit-variance factors. */
export interface SectorLoading {
  /** Correlation of a stock's return with the market factor. */
  readonly market: number;
  /** Correlation of a stock's return with its sector factor. */
  readonly sector: number;
}

const TRADING_DAYS_PER_YEAR = 252;
/** The generator's parameters, tuned until the calibration table is met (`npm run calibrate`). */
const TUNING = {
  /** Degrees of freedom of the Student-t innovations of each part. */
  nu: { market: 6, sector: 6, idio: 4.5 },
  /** GARCH(1,1) reaction and persistence of each part. */
  garch: {
    market: { alpha: 0.1, beta: 0.88 },
    sector: { alpha: 0.08, beta: 0.9 },
    idio: { alpha: 0.08, beta: 0.9 },
  },
  /** Markov regime switch of the market: daily switching probabilities, volatilities and drift. */
  regime: {
    toStress: 0.008,
    toCalm: 0.033,
    calmVol: 0.85,
    stressVol: 1.6,
    /** Daily drift of the market factor when stressed, in units of its calm deviation. */
    stressDrift: -0.3,
    /** Volatility multiplier of the sector and idiosyncratic parts on stressed days. */
    stressOther: 1.3,
  },
  /** Persistence and deviation of each stock's slowly varying log-volatility. */
  volLevel: { persistence: 0.98, sd: 0.3 },
  /** Mean daily market-factor return in units of its standard deviation (an annual Sharpe ratio near 1.2). */
  marketDrift: 0.075,
  /** Standard deviation of a stock's own annual drift. */
  alphaSd: 0.05,
  /** A stock's slowly varying extra drift (annualised deviation), which lets single names run or slide. */
  trend: { persistence: 0.99, sd: 0.15 },
  /** Trading days between two quarterly reports. */
  reportEvery: 63,
  /** Share of the idiosyncratic variance that comes from report-day jumps. */
  jumpShare: 0.2,
  /** Part of the day's return (outside report jumps) already in the opening gap. */
  gapLoad: 0.3,
  /** Overnight noise moved between the gap and the session, as a share of the day's deviation. */
  gapNoise: 0.38,
} as const;

/**
 * Version of the shared (regime, market and sector) random streams. Changing it redraws the common market
 * path of every seed; 8 was chosen because with it the default seed's last day matches every screener preset.
 */
const FACTOR_EPOCH = 8;
/**
 * Version of the streams of the days after the universe date (the shared factors' and each symbol's). At 1 the
 * default seed's market rises about as real markets do on average over the two years after the universe date.
 */
const FORWARD_EPOCH = 1;

/** Dispersion (log scale) of a stock's volatility around its sector's median. */
const VOL_DISPERSION = 0.18;
/** Median daily turnover (volume / shares outstanding) by cap class. */
const TURNOVER = { large: 0.006, mid: 0.009, small: 0.011 } as const;
/** Standard deviation of log volume, and the weight of the standardised absolute return in it. */
const LOG_VOLUME_SD = 0.45;
const VOLUME_LOAD = 0.45;

/** Deviation of a report-day jump, in units of the idiosyncratic part's deviation. */
const JUMP_SD = Math.sqrt((TUNING.jumpShare * TUNING.reportEvery) / (1 - TUNING.jumpShare));

/** A price rounded to the $0.01 tick, never below one tick. */
export function roundCents(price: number): number {
  return Math.max(0.01, Math.round(price * 100) / 100);
}

/** The trading days of a history of `years` calendar years ending on `endDate`, in order. */
export function historyDays(endDate: string, years: number): string[] {
  const [y, m, d] = endDate.split('-');
  const start = `${String(Number(y) - years).padStart(4, '0')}-${m}-${d === '29' && m === '02' ? '28' : d}`;
  return tradingDays(addDays(start, 1), endDate);
}

/** Per-sector counts of a universe. */
function sectorCounts(universe: readonly UniverseEntry[]): Map<Sector, number> {
  const counts = new Map<Sector, number>();
  for (const e of universe) counts.set(e.sector, (counts.get(e.sector) ?? 0) + 1);
  return counts;
}

/** Implied cross-sector correlation and beta to the equal-weighted market of each sector's typical stock. */
function impliedFigures(
  sectors: readonly Sector[],
  n: readonly number[],
  c: readonly number[],
  q: readonly number[],
): { corrOut: number[]; beta: number[] } {
  const vol = sectors.map((s) => SECTOR_PROFILES[s].vol);
  const total = n.reduce((a, b) => a + b, 0);
  const weighted = sectors.map((_, k) => n[k]! * c[k]! * vol[k]!);
  const sumWeighted = weighted.reduce((a, b) => a + b, 0);
  const sumC = sectors.reduce((acc, _, k) => acc + n[k]! * c[k]!, 0);
  // Covariance of one stock of sector k with the equal-weighted market, times the number of stocks.
  const covWithMarket = sectors.map((_, k) => {
    const own = vol[k]! * vol[k]! * (1 + (n[k]! - 1) * (c[k]! * c[k]! + q[k]!));
    return own + c[k]! * vol[k]! * (sumWeighted - weighted[k]!);
  });
  const marketVar = sectors.reduce((acc, _, k) => acc + n[k]! * covWithMarket[k]!, 0) / (total * total);
  return {
    corrOut: sectors.map((_, k) => (total > n[k]! ? (c[k]! * (sumC - n[k]! * c[k]!)) / (total - n[k]!) : 0)),
    beta: sectors.map((_, k) => covWithMarket[k]! / total / marketVar),
  };
}

/**
 * The loadings of each sector present in a universe, solved so that, with the universe's sector sizes, the
 * in-sector correlation is met and the errors of cross-sector correlation and beta are balanced.
 */
export function sectorLoadings(universe: readonly UniverseEntry[]): Map<Sector, SectorLoading> {
  const counts = sectorCounts(universe);
  const sectors = SECTORS.filter((s) => counts.has(s));
  const n = sectors.map((s) => counts.get(s) ?? 0);
  const corrIn = sectors.map((s) => SECTOR_PROFILES[s].corrIn);
  const c = sectors.map((s) => Math.sqrt(SECTOR_PROFILES[s].corrOut));
  const q = sectors.map((_, k) => Math.max(0, corrIn[k]! - c[k]! * c[k]!));
  for (let iter = 0; iter < 300; iter++) {
    const { corrOut, beta } = impliedFigures(sectors, n, c, q);
    for (let k = 0; k < sectors.length; k++) {
      const p = SECTOR_PROFILES[sectors[k]!];
      const ratioOut = corrOut[k]! > 0 ? p.corrOut / corrOut[k]! : 1;
      const ratioBeta = p.beta / beta[k]!;
      // A geometric mean of both ratios balances the two errors, damped to converge.
      c[k] = Math.min(Math.sqrt(corrIn[k]! * 0.98), c[k]! * Math.pow(ratioOut * ratioBeta, 0.25));
      q[k] = Math.max(0, corrIn[k]! - c[k]! * c[k]!);
    }
  }
  return new Map(sectors.map((s, k) => [s, { market: c[k]!, sector: Math.sqrt(q[k]!) }]));
}

/** A series with its conditional variances, both in the series' own units. */
interface Series {
  readonly x: Float64Array;
  readonly h: Float64Array;
  /** The raw (unscaled) conditional variance of the day after the last, where a continuation starts. */
  readonly next: number;
}

/** Reaction, persistence and tail of one GARCH(1,1) part. */
interface GarchParams {
  readonly alpha: number;
  readonly beta: number;
  readonly nu: number;
}

/**
 * A GARCH(1,1) series with unit-variance Student-t innovations, scaled day by day by `scale`, from the raw
 * conditional variance `variance` (1, the unconditional one, for a new series).
 */
function garch(rng: Random, days: number, params: GarchParams, scale?: Float64Array, variance = 1): Series {
  const { alpha, beta, nu } = params;
  const x = new Float64Array(days);
  const h = new Float64Array(days);
  const omega = 1 - alpha - beta;
  for (let t = 0; t < days; t++) {
    const shock = Math.sqrt(variance) * rng.unitStudentT(nu);
    const m = scale ? scale[t]! : 1;
    x[t] = m * shock;
    h[t] = m * m * variance;
    variance = omega + alpha * shock * shock + beta * variance;
  }
  return { x, h, next: variance };
}

function mean(xs: Float64Array): number {
  let s = 0;
  for (const v of xs) s += v;
  return s / xs.length;
}

/** The affine map `x → (x − mean) / sd + target` that {@link standardize} applied. */
interface Standardization {
  readonly mean: number;
  readonly sd: number;
  readonly target: number;
}

/** Shifts and scales a series in place to the given sample mean and unit sample deviation; answers the map. */
function standardize(series: Series, targetMean = 0): Standardization {
  const { x, h } = series;
  const m = mean(x);
  let ss = 0;
  for (const v of x) ss += (v - m) * (v - m);
  const sd = Math.sqrt(ss / x.length) || 1;
  for (let t = 0; t < x.length; t++) {
    x[t] = (x[t]! - m) / sd + targetMean;
    h[t] = h[t]! / (sd * sd);
  }
  return { mean: m, sd, target: targetMean };
}

/** Applies a {@link Standardization} found on an earlier stretch to a continuation of the series, in place. */
function restandardize(series: Series, map: Standardization): void {
  const { x, h } = series;
  for (let t = 0; t < x.length; t++) {
    x[t] = (x[t]! - map.mean) / map.sd + map.target;
    h[t] = h[t]! / (map.sd * map.sd);
  }
}

/** Removes from `x` (in place) its sample regression on each series of `on`, taken one after the other. */
function orthogonalize(x: Float64Array, on: readonly Float64Array[]): void {
  for (const f of on) {
    const fm = mean(f);
    let dot = 0;
    let ff = 0;
    for (let t = 0; t < x.length; t++) {
      dot += x[t]! * (f[t]! - fm);
      ff += (f[t]! - fm) * (f[t]! - fm);
    }
    const k = dot / ff;
    for (let t = 0; t < x.length; t++) x[t] = x[t]! - k * (f[t]! - fm);
  }
}

/** Which days of a history the market is stressed (a two-state Markov chain), from the state of the day before. */
function regimePath(rng: Random, days: number, state = false): Uint8Array {
  const stressed = new Uint8Array(days);
  for (let t = 0; t < days; t++) {
    state = state ? !rng.chance(TUNING.regime.toCalm) : rng.chance(TUNING.regime.toStress);
    stressed[t] = state ? 1 : 0;
  }
  return stressed;
}

/** A volatility multiplier per day: `calm` on calm days, `stress` on stressed ones. */
function regimeScale(stressed: Uint8Array, calm: number, stress: number): Float64Array {
  return Float64Array.from(stressed, (s) => (s === 1 ? stress : calm));
}

/** The market factor before standardizing: GARCH-t scaled by the regime, plus the regime's drift. */
function rawMarketFactor(rng: Random, stressed: Uint8Array, variance = 1): Series {
  const { calmVol, stressVol, stressDrift } = TUNING.regime;
  const scale = regimeScale(stressed, calmVol, stressVol);
  const series = garch(rng, stressed.length, { ...TUNING.garch.market, nu: TUNING.nu.market }, scale, variance);
  for (let t = 0; t < stressed.length; t++) {
    if (stressed[t] === 1) series.x[t] = series.x[t]! + stressDrift * calmVol;
  }
  return series;
}

/**
 * A slowly varying volatility multiplier: the exponential of a stationary AR(1) with mean one; answers the
 * multipliers and the last log-level.
 */
function volatilityLevel(
  rng: Random,
  days: number,
  persistence: number,
  sd: number,
): { levels: Float64Array; last: number } {
  const levels = new Float64Array(days);
  const innovation = sd * Math.sqrt(1 - persistence * persistence);
  let level = sd * rng.normal();
  for (let t = 0; t < days; t++) {
    level = persistence * level + innovation * rng.normal();
    levels[t] = Math.exp(level - sd * sd);
  }
  return { levels, last: level };
}

/** How far past the open–close body a day's high (or low) reaches, in log terms, for a uniform draw's log. */
function excursion(kappa: number, dev: number, body: number, logU: number): number {
  const sd = kappa * dev;
  return (-body + Math.sqrt(body * body - 2 * sd * sd * logU)) / 2;
}

/** Bisection (on a log scale) of a non-decreasing function for the argument where it reaches `target`. */
function solveIncreasing(f: (x: number) => number, target: number, lo: number, hi: number): number {
  for (let i = 0; i < 20; i++) {
    const mid = Math.sqrt(lo * hi);
    if (f(mid) < target) lo = mid;
    else hi = mid;
  }
  return Math.sqrt(lo * hi);
}

/** The k-th smallest value of a scratch array, which is reordered in place (Hoare's selection). */
function select(xs: Float64Array, k: number): number {
  let lo = 0;
  let hi = xs.length - 1;
  while (lo < hi) {
    const pivot = xs[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (xs[i]! < pivot) i++;
      while (xs[j]! > pivot) j--;
      if (i <= j) {
        const swap = xs[i]!;
        xs[i] = xs[j]!;
        xs[j] = swap;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return xs[k]!;
}

/** The median of a scratch array (reordered in place). */
function medianInPlace(xs: Float64Array): number {
  const n = xs.length;
  const upper = select(xs, n >> 1);
  if (n % 2 === 1) return upper;
  let lower = -Infinity;
  for (let i = 0; i < n >> 1; i++) if (xs[i]! > lower) lower = xs[i]!;
  return (lower + upper) / 2;
}

/** Everything one symbol's path needs from the shared factors. */
interface SharedFactors {
  readonly market: Series;
  readonly sectors: ReadonlyMap<Sector, Series>;
  readonly loadings: ReadonlyMap<Sector, SectorLoading>;
  /** Volatility multiplier of the sector and idiosyncratic parts on each day (the regime's). */
  readonly otherScale: Float64Array;
  readonly days: readonly string[];
  readonly seed: number;
}

/** Where a symbol's path stands after its last generated day: what its continuation starts from. */
interface SymbolState {
  /** Days generated so far (the index of the next day). */
  readonly days: number;
  /** The day of the first report jump; one follows every `reportEvery` days. */
  readonly reportPhase: number;
  readonly alpha: number;
  readonly wm: number;
  readonly ws: number;
  readonly wi: number;
  readonly idioMean: number;
  readonly kappa: number;
  readonly absMean: number;
  readonly absSd: number;
  readonly baseVolume: number;
  readonly noiseWeight: number;
  readonly drift: number;
  readonly level: number;
  readonly idioVariance: number;
  readonly noise: number;
  readonly close: number;
}

/** The bars of one symbol, laid backward from the universe's close, and where its path stands after them. */
function symbolHistory(entry: UniverseEntry, shared: SharedFactors): { bars: DailyBar[]; state: SymbolState } {
  const { days, market, seed } = shared;
  const n = days.length;
  const rng = streamOf(seed, entry.symbol);
  const profile = SECTOR_PROFILES[entry.sector];
  const loading = shared.loadings.get(entry.sector) ?? { market: Math.sqrt(profile.corrOut), sector: 0 };
  const sector = shared.sectors.get(entry.sector);
  const idioWeight = Math.sqrt(Math.max(0.02, 1 - loading.market ** 2 - loading.sector ** 2));

  const volFactor = Math.exp(VOL_DISPERSION * rng.normal());
  const sigma = (profile.vol * volFactor) / Math.sqrt(TRADING_DAYS_PER_YEAR);
  const alpha = (TUNING.alphaSd * rng.normal()) / TRADING_DAYS_PER_YEAR;
  const trend = new Float64Array(n);
  const { persistence, sd: trendSd } = TUNING.trend;
  let drift = (trendSd / TRADING_DAYS_PER_YEAR) * rng.normal();
  for (let t = 0; t < n; t++) {
    drift = persistence * drift + (trendSd / TRADING_DAYS_PER_YEAR) * Math.sqrt(1 - persistence ** 2) * rng.normal();
    trend[t] = drift;
  }

  // Idiosyncratic part: GARCH-t plus a jump overnight before each quarterly report day.
  const { levels: level, last: lastLevel } = volatilityLevel(rng, n, TUNING.volLevel.persistence, TUNING.volLevel.sd);
  for (let t = 0; t < n; t++) level[t] = level[t]! * shared.otherScale[t]!;
  const idio = garch(rng, n, { ...TUNING.garch.idio, nu: TUNING.nu.idio }, level);
  const jumps = new Float64Array(n);
  const reportPhase = rng.int(TUNING.reportEvery);
  for (let t = reportPhase; t < n; t += TUNING.reportEvery) {
    jumps[t] = JUMP_SD * rng.unitStudentT(TUNING.nu.idio);
  }
  for (let t = 0; t < n; t++) idio.x[t] = idio.x[t]! + jumps[t]!;
  const parts = sector ? [market.x, sector.x] : [market.x];
  orthogonalize(idio.x, parts);
  const idioMean = mean(idio.x);
  let ss = 0;
  for (const v of idio.x) ss += (v - idioMean) * (v - idioMean);
  const idioSd = Math.sqrt(ss / n) || 1;

  // Daily log-returns, their conditional deviations and the report jumps, in return units.
  const r = new Float64Array(n);
  const dev = new Float64Array(n);
  const jump = new Float64Array(n);
  const wm = sigma * loading.market;
  const ws = sigma * loading.sector;
  const wi = (sigma * idioWeight) / idioSd;
  for (let t = 0; t < n; t++) {
    const s = sector ? ws * sector.x[t]! : 0;
    r[t] = alpha + trend[t]! + wm * market.x[t]! + s + wi * (idio.x[t]! - idioMean);
    const hs = sector ? ws * ws * sector.h[t]! : 0;
    dev[t] = Math.sqrt(wm * wm * market.h[t]! + hs + wi * wi * idio.h[t]!);
    jump[t] = wi * jumps[t]!;
  }

  // Closes backward from the anchor; the gap takes part of the day's move, all of a report jump, and noise.
  const close = new Float64Array(n);
  const open = new Float64Array(n);
  close[n - 1] = entry.close;
  for (let t = n - 1; t > 0; t--) close[t - 1] = close[t]! * Math.exp(-r[t]!);
  for (let t = 0; t < n; t++) {
    const previous = t > 0 ? close[t - 1]! : close[0]! * Math.exp(-r[0]!);
    const gap = TUNING.gapLoad * (r[t]! - jump[t]!) + jump[t]! + TUNING.gapNoise * dev[t]! * rng.normal();
    open[t] = previous * Math.exp(gap);
  }

  // Intraday excursions beyond the open and close: a Brownian bridge's, scaled to the sector's median range.
  const logUp = new Float64Array(n);
  const logDown = new Float64Array(n);
  const body = new Float64Array(n);
  for (let t = 0; t < n; t++) {
    logUp[t] = Math.log(rng.uniform());
    logDown[t] = Math.log(rng.uniform());
    body[t] = Math.abs(Math.log(close[t]! / open[t]!));
  }
  const highOf = (kappa: number, t: number) =>
    Math.max(open[t]!, close[t]!) * Math.exp(excursion(kappa, dev[t]!, body[t]!, logUp[t]!));
  const lowOf = (kappa: number, t: number) =>
    Math.min(open[t]!, close[t]!) * Math.exp(-excursion(kappa, dev[t]!, body[t]!, logDown[t]!));
  const scratch = new Float64Array(n);
  const medianRange = (kappa: number): number => {
    for (let t = 0; t < n; t++) scratch[t] = (highOf(kappa, t) - lowOf(kappa, t)) / close[t]!;
    return medianInPlace(scratch);
  };
  const targetRange = profile.range * volFactor * Math.exp(0.05 * rng.normal());
  const kappa = solveIncreasing(medianRange, targetRange, 0.05, 5);

  // Volume: turnover of the cap class, lifted on days of large moves.
  const absR = new Float64Array(n);
  for (let t = 0; t < n; t++) absR[t] = Math.abs(r[t]!);
  const absMean = mean(absR);
  let absSs = 0;
  for (const v of absR) absSs += (v - absMean) * (v - absMean);
  const absSd = Math.sqrt(absSs / n) || 1;
  const turnover = TURNOVER[entry.capclass] * Math.exp(0.35 * rng.normal());
  const baseVolume = Math.log(entry.shares * turnover) - (LOG_VOLUME_SD * LOG_VOLUME_SD) / 2;
  const noiseWeight = Math.sqrt(1 - VOLUME_LOAD * VOLUME_LOAD);
  let noise = rng.normal();

  const bars: DailyBar[] = new Array<DailyBar>(n);
  for (let t = 0; t < n; t++) {
    noise = 0.6 * noise + 0.8 * rng.normal();
    const z = (absR[t]! - absMean) / absSd;
    const volume = Math.exp(baseVolume + LOG_VOLUME_SD * (VOLUME_LOAD * z + noiseWeight * noise));
    const o = roundCents(open[t]!);
    const c = t === n - 1 ? entry.close : roundCents(close[t]!);
    bars[t] = {
      date: days[t]!,
      open: o,
      high: Math.max(roundCents(highOf(kappa, t)), o, c),
      low: Math.min(roundCents(lowOf(kappa, t)), o, c),
      close: c,
      volume: Math.max(100, Math.round(volume)),
    };
  }
  const state: SymbolState = {
    days: n,
    reportPhase,
    alpha,
    wm,
    ws,
    wi,
    idioMean,
    kappa,
    absMean,
    absSd,
    baseVolume,
    noiseWeight,
    drift,
    level: lastLevel,
    idioVariance: idio.next,
    noise,
    close: entry.close,
  };
  return { bars, state };
}

/** The shared factors of the days after the universe date. */
interface ForwardFactors {
  readonly market: Series;
  readonly sectors: ReadonlyMap<Sector, Series>;
  readonly otherScale: Float64Array;
  readonly days: readonly string[];
  readonly seed: number;
}

/**
 * The bars of the days after a symbol's generated history, drawn forward one day after another from where its
 * path stands (its own stream, the same model), so that a longer continuation starts with a shorter one.
 */
function continueSymbol(entry: UniverseEntry, state: SymbolState, forward: ForwardFactors): DailyBar[] {
  const rng = streamOf(forward.seed, `${entry.symbol}+@${FORWARD_EPOCH}`);
  const sector = forward.sectors.get(entry.sector);
  const { persistence, sd: trendSd } = TUNING.trend;
  const levelSd = TUNING.volLevel.sd;
  const levelInnovation = levelSd * Math.sqrt(1 - TUNING.volLevel.persistence ** 2);
  const { alpha: ga, beta: gb } = TUNING.garch.idio;
  let { drift, level, idioVariance: variance, noise, close: previous } = state;
  const bars: DailyBar[] = [];
  for (let k = 0; k < forward.days.length; k++) {
    drift = persistence * drift + (trendSd / TRADING_DAYS_PER_YEAR) * Math.sqrt(1 - persistence ** 2) * rng.normal();
    level = TUNING.volLevel.persistence * level + levelInnovation * rng.normal();
    const scale = Math.exp(level - levelSd * levelSd) * forward.otherScale[k]!;
    const shock = Math.sqrt(variance) * rng.unitStudentT(TUNING.nu.idio);
    const idioH = scale * scale * variance;
    variance = 1 - ga - gb + ga * shock * shock + gb * variance;
    const isReport = (state.days + k - state.reportPhase) % TUNING.reportEvery === 0;
    const jump = isReport ? JUMP_SD * rng.unitStudentT(TUNING.nu.idio) : 0;
    const s = sector ? state.ws * sector.x[k]! : 0;
    const hs = sector ? state.ws * state.ws * sector.h[k]! : 0;
    const r =
      state.alpha + drift + state.wm * forward.market.x[k]! + s + state.wi * (scale * shock + jump - state.idioMean);
    const dev = Math.sqrt(state.wm * state.wm * forward.market.h[k]! + hs + state.wi * state.wi * idioH);
    const jumpR = state.wi * jump;
    const close = previous * Math.exp(r);
    const open = previous * Math.exp(TUNING.gapLoad * (r - jumpR) + jumpR + TUNING.gapNoise * dev * rng.normal());
    previous = close;
    const body = Math.abs(Math.log(close / open));
    const high = Math.max(open, close) * Math.exp(excursion(state.kappa, dev, body, Math.log(rng.uniform())));
    const low = Math.min(open, close) * Math.exp(-excursion(state.kappa, dev, body, Math.log(rng.uniform())));
    noise = 0.6 * noise + 0.8 * rng.normal();
    const z = (Math.abs(r) - state.absMean) / state.absSd;
    const volume = Math.exp(state.baseVolume + LOG_VOLUME_SD * (VOLUME_LOAD * z + state.noiseWeight * noise));
    const o = roundCents(open);
    const c = roundCents(close);
    bars.push({
      date: forward.days[k]!,
      open: o,
      high: Math.max(roundCents(high), o, c),
      low: Math.min(roundCents(low), o, c),
      close: c,
      volume: Math.max(100, Math.round(volume)),
    });
  }
  return bars;
}

/**
 * Generates the daily bars of every symbol of a universe: deterministic for a seed and an end date. Up to the
 * universe date the history ends on `endDate` at the universe's close; after it, the universe date's bar is
 * the universe's close and the days after are drawn forward from it, so that the history to a later date is
 * the history to an earlier one with days added.
 */
export function generateHistory(universe: readonly UniverseEntry[], options: GenerateOptions): Map<string, DailyBar[]> {
  const years = options.years ?? 5;
  if (!Number.isSafeInteger(options.seed)) throw new RangeError(`seed must be an integer, got ${options.seed}`);
  if (!Number.isInteger(years) || years < 1) throw new RangeError(`years must be a positive integer, got ${years}`);
  const endDate = options.endDate ?? UNIVERSE_DATE;
  const anchor = endDate < UNIVERSE_DATE ? endDate : UNIVERSE_DATE;
  const days = historyDays(anchor, years);
  const ahead = endDate > anchor ? tradingDays(addDays(anchor, 1), endDate) : [];
  const { seed } = options;
  const stressed = regimePath(streamOf(seed, `regime@${FACTOR_EPOCH}`), days.length);
  const market = rawMarketFactor(streamOf(seed, `market@${FACTOR_EPOCH}`), stressed);
  const marketMap = standardize(market, TUNING.marketDrift);
  const otherScale = regimeScale(stressed, 1, TUNING.regime.stressOther);
  const loadings = sectorLoadings(universe);
  const sectorParams = { ...TUNING.garch.sector, nu: TUNING.nu.sector };
  const sectors = new Map<Sector, Series>();
  const sectorMaps = new Map<Sector, Standardization>();
  for (const s of loadings.keys()) {
    const series = garch(streamOf(seed, `sector:${s}@${FACTOR_EPOCH}`), days.length, sectorParams, otherScale);
    orthogonalize(series.x, [market.x]);
    sectorMaps.set(s, standardize(series));
    sectors.set(s, series);
  }
  const shared: SharedFactors = { market, sectors, loadings, otherScale, days, seed };

  let forward: ForwardFactors | undefined;
  if (ahead.length > 0) {
    const stressedAhead = regimePath(streamOf(seed, `regime+@${FORWARD_EPOCH}`), ahead.length, stressed.at(-1) === 1);
    const marketAhead = rawMarketFactor(streamOf(seed, `market+@${FORWARD_EPOCH}`), stressedAhead, market.next);
    restandardize(marketAhead, marketMap);
    const scaleAhead = regimeScale(stressedAhead, 1, TUNING.regime.stressOther);
    const sectorsAhead = new Map<Sector, Series>();
    for (const [s, back] of sectors) {
      const rng = streamOf(seed, `sector+:${s}@${FORWARD_EPOCH}`);
      const series = garch(rng, ahead.length, sectorParams, scaleAhead, back.next);
      restandardize(series, sectorMaps.get(s)!);
      sectorsAhead.set(s, series);
    }
    forward = { market: marketAhead, sectors: sectorsAhead, otherScale: scaleAhead, days: ahead, seed };
  }

  const out = new Map<string, DailyBar[]>();
  for (const entry of universe) {
    const { bars, state } = symbolHistory(entry, shared);
    if (forward) bars.push(...continueSymbol(entry, state, forward));
    out.set(entry.symbol, bars);
  }
  return out;
}
