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
  /** Last trading day of the history, whose close is the universe's close (default the universe date). */
  readonly endDate?: string;
  /** Calendar years of history before `endDate` (default 5). */
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

/** Dispersion (log scale) of a stock's volatility around its sector's median. */
const VOL_DISPERSION = 0.18;
/** Median daily turnover (volume / shares outstanding) by cap class. */
const TURNOVER = { large: 0.006, mid: 0.009, small: 0.011 } as const;
/** Standard deviation of log volume, and the weight of the standardised absolute return in it. */
const LOG_VOLUME_SD = 0.45;
const VOLUME_LOAD = 0.45;

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
}

/** Reaction, persistence and tail of one GARCH(1,1) part. */
interface GarchParams {
  readonly alpha: number;
  readonly beta: number;
  readonly nu: number;
}

/** A GARCH(1,1) series with unit-variance Student-t innovations, scaled day by day by `scale`. */
function garch(rng: Random, days: number, params: GarchParams, scale?: Float64Array): Series {
  const { alpha, beta, nu } = params;
  const x = new Float64Array(days);
  const h = new Float64Array(days);
  const omega = 1 - alpha - beta;
  let variance = 1;
  for (let t = 0; t < days; t++) {
    const shock = Math.sqrt(variance) * rng.unitStudentT(nu);
    const m = scale ? scale[t]! : 1;
    x[t] = m * shock;
    h[t] = m * m * variance;
    variance = omega + alpha * shock * shock + beta * variance;
  }
  return { x, h };
}

function mean(xs: Float64Array): number {
  let s = 0;
  for (const v of xs) s += v;
  return s / xs.length;
}

/** Shifts and scales a series in place to the given sample mean and unit sample deviation. */
function standardize(series: Series, targetMean = 0): void {
  const { x, h } = series;
  const m = mean(x);
  let ss = 0;
  for (const v of x) ss += (v - m) * (v - m);
  const sd = Math.sqrt(ss / x.length) || 1;
  for (let t = 0; t < x.length; t++) {
    x[t] = (x[t]! - m) / sd + targetMean;
    h[t] = h[t]! / (sd * sd);
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

/** Which days of a history the market is stressed (a two-state Markov chain). */
function regimePath(seed: number, days: number): Uint8Array {
  const rng = streamOf(seed, `regime@${FACTOR_EPOCH}`);
  const stressed = new Uint8Array(days);
  let state = false;
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

/** The market factor: GARCH-t scaled by the regime, plus the regime's drift, at mean `marketDrift`. */
function marketFactor(seed: number, stressed: Uint8Array): Series {
  const { calmVol, stressVol, stressDrift } = TUNING.regime;
  const scale = regimeScale(stressed, calmVol, stressVol);
  const series = garch(
    streamOf(seed, `market@${FACTOR_EPOCH}`),
    stressed.length,
    { ...TUNING.garch.market, nu: TUNING.nu.market },
    scale,
  );
  for (let t = 0; t < stressed.length; t++) {
    if (stressed[t] === 1) series.x[t] = series.x[t]! + stressDrift * calmVol;
  }
  standardize(series, TUNING.marketDrift);
  return series;
}

/** A slowly varying volatility multiplier: the exponential of a stationary AR(1) with mean one. */
function volatilityLevel(rng: Random, days: number, persistence: number, sd: number): Float64Array {
  const out = new Float64Array(days);
  const innovation = sd * Math.sqrt(1 - persistence * persistence);
  let level = sd * rng.normal();
  for (let t = 0; t < days; t++) {
    level = persistence * level + innovation * rng.normal();
    out[t] = Math.exp(level - sd * sd);
  }
  return out;
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

/** The bars of one symbol. */
function symbolHistory(entry: UniverseEntry, shared: SharedFactors): DailyBar[] {
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
  const level = volatilityLevel(rng, n, TUNING.volLevel.persistence, TUNING.volLevel.sd);
  for (let t = 0; t < n; t++) level[t] = level[t]! * shared.otherScale[t]!;
  const idio = garch(rng, n, { ...TUNING.garch.idio, nu: TUNING.nu.idio }, level);
  const jumps = new Float64Array(n);
  const jumpSd = Math.sqrt((TUNING.jumpShare * TUNING.reportEvery) / (1 - TUNING.jumpShare));
  for (let t = rng.int(TUNING.reportEvery); t < n; t += TUNING.reportEvery) {
    jumps[t] = jumpSd * rng.unitStudentT(TUNING.nu.idio);
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
  const excursion = (kappa: number, t: number, logU: number): number => {
    const sd = kappa * dev[t]!;
    return (-body[t]! + Math.sqrt(body[t]! * body[t]! - 2 * sd * sd * logU)) / 2;
  };
  const highOf = (kappa: number, t: number) => Math.max(open[t]!, close[t]!) * Math.exp(excursion(kappa, t, logUp[t]!));
  const lowOf = (kappa: number, t: number) =>
    Math.min(open[t]!, close[t]!) * Math.exp(-excursion(kappa, t, logDown[t]!));
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
  return bars;
}

/**
 * Generates the daily bars of every symbol of a universe: deterministic for a seed, with the last bar on
 * `endDate` closing at the universe's close.
 */
export function generateHistory(universe: readonly UniverseEntry[], options: GenerateOptions): Map<string, DailyBar[]> {
  const years = options.years ?? 5;
  if (!Number.isSafeInteger(options.seed)) throw new RangeError(`seed must be an integer, got ${options.seed}`);
  if (!Number.isInteger(years) || years < 1) throw new RangeError(`years must be a positive integer, got ${years}`);
  const days = historyDays(options.endDate ?? UNIVERSE_DATE, years);
  const stressed = regimePath(options.seed, days.length);
  const market = marketFactor(options.seed, stressed);
  const otherScale = regimeScale(stressed, 1, TUNING.regime.stressOther);
  const loadings = sectorLoadings(universe);
  const sectors = new Map<Sector, Series>();
  for (const s of loadings.keys()) {
    const params = { ...TUNING.garch.sector, nu: TUNING.nu.sector };
    const series = garch(streamOf(options.seed, `sector:${s}@${FACTOR_EPOCH}`), days.length, params, otherScale);
    orthogonalize(series.x, [market.x]);
    standardize(series);
    sectors.set(s, series);
  }
  const shared: SharedFactors = { market, sectors, loadings, otherScale, days, seed: options.seed };
  const out = new Map<string, DailyBar[]>();
  for (const entry of universe) out.set(entry.symbol, symbolHistory(entry, shared));
  return out;
}
