/**
 * Candlestick patterns with the project's own written definitions, in the style of TA-Lib: a candle's body and
 * shadows are measured against the average body and the average range of the 10 bars before it, and the trend
 * a reversal pattern needs is the slope of a 5-bar simple moving average of the closes before the pattern.
 */
import { type DailyBar } from '../../domain/market/types.ts';
import { PATTERNS, type PatternName } from '../../domain/screener/patterns.ts';

/** Bars before a candle whose average body and range are its yardstick. */
export const AVERAGE_PERIOD = 10;

/** Period of the simple moving average of closes whose slope gives the trend before a pattern. */
export const TREND_PERIOD = 5;

/** A doji's body is at most this share of the average range. */
export const DOJI_BODY = 0.1;

/** A very short shadow is below this share of the average range. */
export const VERY_SHORT_SHADOW = 0.1;

/** A long body is above this multiple of the average body. */
export const LONG_BODY = 1;

/** A short body is below this multiple of the average body. */
export const SHORT_BODY = 1;

/** A long shadow of a hammer-like candle is at least this multiple of its own body. */
export const LONG_SHADOW = 2;

/** A soldier's upper shadow (a crow's lower shadow) is below this share of its own body. */
export const SOLDIER_SHADOW = 0.25;

/** How far into the first candle's body the third candle of a star closes, as a share of that body. */
export const STAR_PENETRATION = 0.3;

/** How far into the first candle's body a piercing line or dark cloud cover closes, as a share of that body. */
export const PIERCING_PENETRATION = 0.5;

/** One pattern found on a bar: its snake_case name and direction (`null` for a neutral doji). */
export interface PatternHit {
  /** Pattern name, e.g. `bullish_engulfing`. */
  readonly name: PatternName;
  /** `true` bullish, `false` bearish, `null` neutral. */
  readonly bullish: boolean | null;
}

/** The patterns completed on one bar of a history. */
export interface PatternDetection {
  /** Index of the bar in the history. */
  readonly index: number;
  /** Trading day of the bar. */
  readonly date: string;
  /** The patterns whose last candle is this bar, in the order of the domain's pattern list. */
  readonly hits: readonly PatternHit[];
}

/** A bar measured against the bars before it, as the pattern definitions read it. */
export interface Candle {
  /** Opening price. */
  readonly open: number;
  /** Highest price. */
  readonly high: number;
  /** Lowest price. */
  readonly low: number;
  /** Closing price. */
  readonly close: number;
  /** Top of the body, `max(open, close)`. */
  readonly top: number;
  /** Bottom of the body, `min(open, close)`. */
  readonly bottom: number;
  /** Real body, `|close − open|`. */
  readonly body: number;
  /** Upper shadow, `high − top`. */
  readonly upper: number;
  /** Lower shadow, `bottom − low`. */
  readonly lower: number;
  /** Range, `high − low`. */
  readonly range: number;
  /** Whether it closed above its open. */
  readonly white: boolean;
  /** Whether it closed below its open. */
  readonly black: boolean;
  /** Mean body of the 10 bars before it (NaN with fewer). */
  readonly avgBody: number;
  /** Mean range of the 10 bars before it (NaN with fewer). */
  readonly avgRange: number;
  /** Slope sign of the 5-bar SMA of closes over the 5 bars before it: 1 up, −1 down, 0 flat or unknown. */
  readonly trend: -1 | 0 | 1;
  /** Whether it has 10 bars before it and their average range is above zero, so it can be measured. */
  readonly ready: boolean;
}

/** A pattern's definition: its name, direction, number of candles and the test on its last candles. */
export interface PatternDefinition {
  /** The snake_case name. */
  readonly name: PatternName;
  /** Direction: `true` bullish, `false` bearish, `null` neutral. */
  readonly bullish: boolean | null;
  /** How many consecutive candles the pattern spans; the last one is the bar it is reported on. */
  readonly candles: 1 | 2 | 3;
  /** Whether the pattern is complete on `candle`, with `prev` the bar before and `prev2` the one before that. */
  test(candle: Candle, prev: Candle, prev2: Candle): boolean;
}

const isDojiBody = (c: Candle): boolean => c.range > 0 && c.body <= DOJI_BODY * c.avgRange;
const isVeryShort = (shadow: number, c: Candle): boolean => shadow < VERY_SHORT_SHADOW * c.avgRange;
const isLongBody = (c: Candle): boolean => c.body > LONG_BODY * c.avgBody;
const isShortBody = (c: Candle): boolean => c.body < SHORT_BODY * c.avgBody;
const isDragonflyShape = (c: Candle): boolean => isDojiBody(c) && isVeryShort(c.upper, c) && c.lower > c.avgBody;
const isGravestoneShape = (c: Candle): boolean => isDojiBody(c) && isVeryShort(c.lower, c) && c.upper > c.avgBody;
/** Small non-doji body at the top of the range with a long lower shadow and almost no upper shadow. */
const isHammerShape = (c: Candle): boolean =>
  !isDojiBody(c) && isShortBody(c) && c.lower >= LONG_SHADOW * c.body && c.lower > c.avgBody && isVeryShort(c.upper, c);
/** Small non-doji body at the bottom of the range with a long upper shadow and almost no lower shadow. */
const isInvertedHammerShape = (c: Candle): boolean =>
  !isDojiBody(c) && isShortBody(c) && c.upper >= LONG_SHADOW * c.body && c.upper > c.avgBody && isVeryShort(c.lower, c);

/**
 * Doji (neutral): a body of at most 10% of the average range on a bar that moved (range above zero), and
 * neither a dragonfly nor a gravestone doji (those are reported under their own names).
 */
const doji: PatternDefinition = {
  name: 'doji',
  bullish: null,
  candles: 1,
  test: (c) => isDojiBody(c) && !isDragonflyShape(c) && !isGravestoneShape(c),
};

/**
 * Dragonfly doji (bullish): a doji body whose upper shadow is very short (below 10% of the average range)
 * and whose lower shadow is longer than the average body; open and close sit at the high.
 */
const dragonflyDoji: PatternDefinition = {
  name: 'dragonfly_doji',
  bullish: true,
  candles: 1,
  test: isDragonflyShape,
};

/**
 * Gravestone doji (bearish): a doji body whose lower shadow is very short (below 10% of the average range)
 * and whose upper shadow is longer than the average body; open and close sit at the low.
 */
const gravestoneDoji: PatternDefinition = {
  name: 'gravestone_doji',
  bullish: false,
  candles: 1,
  test: isGravestoneShape,
};

/**
 * Hammer (bullish): after a downtrend, a short body (below the average body, above a doji's) with a lower
 * shadow at least twice the body and longer than the average body, and a very short upper shadow.
 */
const hammer: PatternDefinition = {
  name: 'hammer',
  bullish: true,
  candles: 1,
  test: (c) => c.trend < 0 && isHammerShape(c),
};

/**
 * Inverted hammer (bullish): after a downtrend, a short body (below the average body, above a doji's) with an
 * upper shadow at least twice the body and longer than the average body, and a very short lower shadow.
 */
const invertedHammer: PatternDefinition = {
  name: 'inverted_hammer',
  bullish: true,
  candles: 1,
  test: (c) => c.trend < 0 && isInvertedHammerShape(c),
};

/** Hanging man (bearish): the hammer's shape (see hammer) after an uptrend. */
const hangingMan: PatternDefinition = {
  name: 'hanging_man',
  bullish: false,
  candles: 1,
  test: (c) => c.trend > 0 && isHammerShape(c),
};

/** Shooting star (bearish): the inverted hammer's shape (see inverted hammer) after an uptrend. */
const shootingStar: PatternDefinition = {
  name: 'shooting_star',
  bullish: false,
  candles: 1,
  test: (c) => c.trend > 0 && isInvertedHammerShape(c),
};

/**
 * Bullish engulfing: after a downtrend, a black candle then a white one whose body covers the black body
 * (opens at or below its close and closes at or above its open, at least one of the two strictly).
 */
const bullishEngulfing: PatternDefinition = {
  name: 'bullish_engulfing',
  bullish: true,
  candles: 2,
  test: (c, p) =>
    p.trend < 0 &&
    p.black &&
    c.white &&
    ((c.close >= p.open && c.open < p.close) || (c.close > p.open && c.open <= p.close)),
};

/**
 * Bearish engulfing: after an uptrend, a white candle then a black one whose body covers the white body
 * (opens at or above its close and closes at or below its open, at least one of the two strictly).
 */
const bearishEngulfing: PatternDefinition = {
  name: 'bearish_engulfing',
  bullish: false,
  candles: 2,
  test: (c, p) =>
    p.trend > 0 &&
    p.white &&
    c.black &&
    ((c.open >= p.close && c.close < p.open) || (c.open > p.close && c.close <= p.open)),
};

/**
 * Bullish harami: after a downtrend, a long black candle (body above the average body) then a short body (below
 * the average body, either colour) lying within the black body.
 */
const bullishHarami: PatternDefinition = {
  name: 'bullish_harami',
  bullish: true,
  candles: 2,
  test: (c, p) => p.trend < 0 && p.black && isLongBody(p) && isShortBody(c) && c.top <= p.open && c.bottom >= p.close,
};

/**
 * Bearish harami: after an uptrend, a long white candle (body above the average body) then a short body (below
 * the average body, either colour) lying within the white body.
 */
const bearishHarami: PatternDefinition = {
  name: 'bearish_harami',
  bullish: false,
  candles: 2,
  test: (c, p) => p.trend > 0 && p.white && isLongBody(p) && isShortBody(c) && c.top <= p.close && c.bottom >= p.open,
};

/**
 * Piercing line (bullish): after a downtrend, a long black candle then a long white one that opens below the
 * black candle's low and closes above the middle of the black body but below its open.
 */
const piercingLine: PatternDefinition = {
  name: 'piercing_line',
  bullish: true,
  candles: 2,
  test: (c, p) =>
    p.trend < 0 &&
    p.black &&
    isLongBody(p) &&
    c.white &&
    isLongBody(c) &&
    c.open < p.low &&
    c.close > p.close + PIERCING_PENETRATION * p.body &&
    c.close < p.open,
};

/**
 * Dark cloud cover (bearish): after an uptrend, a long white candle then a long black one that opens above the
 * white candle's high and closes below the middle of the white body but above its open.
 */
const darkCloudCover: PatternDefinition = {
  name: 'dark_cloud_cover',
  bullish: false,
  candles: 2,
  test: (c, p) =>
    p.trend > 0 &&
    p.white &&
    isLongBody(p) &&
    c.black &&
    isLongBody(c) &&
    c.open > p.high &&
    c.close < p.close - PIERCING_PENETRATION * p.body &&
    c.close > p.open,
};

/**
 * Morning star (bullish): after a downtrend, a long black candle; then a short body (either colour) entirely
 * below the black body; then a long white candle closing more than 30% of the way up into the first body.
 */
const morningStar: PatternDefinition = {
  name: 'morning_star',
  bullish: true,
  candles: 3,
  test: (c, p, f) =>
    f.trend < 0 &&
    f.black &&
    isLongBody(f) &&
    isShortBody(p) &&
    p.top < f.close &&
    c.white &&
    isLongBody(c) &&
    c.close > f.close + STAR_PENETRATION * f.body,
};

/**
 * Evening star (bearish): after an uptrend, a long white candle; then a short body (either colour) entirely
 * above the white body; then a long black candle closing more than 30% of the way down into the first body.
 */
const eveningStar: PatternDefinition = {
  name: 'evening_star',
  bullish: false,
  candles: 3,
  test: (c, p, f) =>
    f.trend > 0 &&
    f.white &&
    isLongBody(f) &&
    isShortBody(p) &&
    p.bottom > f.close &&
    c.black &&
    isLongBody(c) &&
    c.close < f.close - STAR_PENETRATION * f.body,
};

const isSoldier = (c: Candle): boolean => c.white && isLongBody(c) && c.upper < SOLDIER_SHADOW * c.body;
const isCrow = (c: Candle): boolean => c.black && isLongBody(c) && c.lower < SOLDIER_SHADOW * c.body;
/** Whether a soldier follows the previous one: opens within its body (above its open) and closes higher. */
const marchesOn = (c: Candle, p: Candle): boolean => c.open > p.open && c.open <= p.close && c.close > p.close;
/** Whether a crow follows the previous one: opens within its body (below its open) and closes lower. */
const fliesOn = (c: Candle, p: Candle): boolean => c.open < p.open && c.open >= p.close && c.close < p.close;

/**
 * Three white soldiers (bullish): after a downtrend, three long white candles, each with an upper shadow below a
 * quarter of its body, each opening within the previous body and closing above the previous close.
 */
const threeWhiteSoldiers: PatternDefinition = {
  name: 'three_white_soldiers',
  bullish: true,
  candles: 3,
  test: (c, p, f) => f.trend < 0 && isSoldier(f) && isSoldier(p) && isSoldier(c) && marchesOn(p, f) && marchesOn(c, p),
};

/**
 * Three black crows (bearish): after an uptrend, three long black candles, each with a lower shadow below a
 * quarter of its body, each opening within the previous body and closing below the previous close.
 */
const threeBlackCrows: PatternDefinition = {
  name: 'three_black_crows',
  bullish: false,
  candles: 3,
  test: (c, p, f) => f.trend > 0 && isCrow(f) && isCrow(p) && isCrow(c) && fliesOn(p, f) && fliesOn(c, p),
};

/** Bullish marubozu: a long white body (above the average body) with both shadows very short, in any trend. */
const bullishMarubozu: PatternDefinition = {
  name: 'bullish_marubozu',
  bullish: true,
  candles: 1,
  test: (c) => c.white && isLongBody(c) && isVeryShort(c.upper, c) && isVeryShort(c.lower, c),
};

/** Bearish marubozu: a long black body (above the average body) with both shadows very short, in any trend. */
const bearishMarubozu: PatternDefinition = {
  name: 'bearish_marubozu',
  bullish: false,
  candles: 1,
  test: (c) => c.black && isLongBody(c) && isVeryShort(c.upper, c) && isVeryShort(c.lower, c),
};

const definitionsByName: Readonly<Record<PatternName, PatternDefinition>> = {
  doji,
  dragonfly_doji: dragonflyDoji,
  gravestone_doji: gravestoneDoji,
  hammer,
  inverted_hammer: invertedHammer,
  hanging_man: hangingMan,
  shooting_star: shootingStar,
  bullish_engulfing: bullishEngulfing,
  bearish_engulfing: bearishEngulfing,
  bullish_harami: bullishHarami,
  bearish_harami: bearishHarami,
  piercing_line: piercingLine,
  dark_cloud_cover: darkCloudCover,
  morning_star: morningStar,
  evening_star: eveningStar,
  three_white_soldiers: threeWhiteSoldiers,
  three_black_crows: threeBlackCrows,
  bullish_marubozu: bullishMarubozu,
  bearish_marubozu: bearishMarubozu,
};

/** Every pattern definition, in the order of the domain's pattern list. */
export const PATTERN_DEFINITIONS: readonly PatternDefinition[] = PATTERNS.map(({ name }) => definitionsByName[name]);

/** The longest pattern, in candles. */
const MAX_CANDLES = 3;

/** Bars a window must reach back from a bar to measure every candle of a pattern ending on it. */
const WINDOW_BACK = MAX_CANDLES - 1 + AVERAGE_PERIOD;

/**
 * Measures every bar of a series against the bars before it; each bar's averages and trend are plain sums over
 * its own fixed window, so measuring a short slice gives bit-identical candles to measuring the whole history.
 */
export function measureCandles(bars: readonly DailyBar[]): Candle[] {
  const bodies = bars.map((bar) => Math.abs(bar.close - bar.open));
  const ranges = bars.map((bar) => bar.high - bar.low);
  const closes = bars.map((bar) => bar.close);
  const sum = (values: readonly number[], from: number, to: number): number => {
    let total = 0;
    for (let k = from; k < to; k += 1) total += values[k] ?? 0;
    return total;
  };
  return bars.map((bar, j): Candle => {
    const top = Math.max(bar.open, bar.close);
    const bottom = Math.min(bar.open, bar.close);
    const measured = j >= AVERAGE_PERIOD;
    const avgBody = measured ? sum(bodies, j - AVERAGE_PERIOD, j) / AVERAGE_PERIOD : Number.NaN;
    const avgRange = measured ? sum(ranges, j - AVERAGE_PERIOD, j) / AVERAGE_PERIOD : Number.NaN;
    let trend: -1 | 0 | 1 = 0;
    if (j >= 2 * TREND_PERIOD) {
      // SMA(5) ending on the bar before minus SMA(5) five bars earlier, compared as sums.
      const recent = sum(closes, j - TREND_PERIOD, j);
      const earlier = sum(closes, j - 2 * TREND_PERIOD, j - TREND_PERIOD);
      trend = recent > earlier ? 1 : recent < earlier ? -1 : 0;
    }
    return {
      open: bar.open,
      high: bar.high,
      low: bar.low,
      close: bar.close,
      top,
      bottom,
      body: top - bottom,
      upper: bar.high - top,
      lower: bottom - bar.low,
      range: bar.high - bar.low,
      white: bar.close > bar.open,
      black: bar.close < bar.open,
      avgBody,
      avgRange,
      trend,
      ready: measured && avgRange > 0,
    };
  });
}

/** The patterns whose last candle is `candles[index]`, in the order of the domain's pattern list. */
function hitsAt(candles: readonly Candle[], index: number): PatternHit[] {
  const candle = candles[index];
  if (candle === undefined || !candle.ready) return [];
  const prev = candles[index - 1];
  const prev2 = candles[index - 2];
  const available = prev === undefined || !prev.ready ? 1 : prev2 === undefined || !prev2.ready ? 2 : 3;
  const hits: PatternHit[] = [];
  for (const definition of PATTERN_DEFINITIONS) {
    if (definition.candles > available) continue;
    if (definition.test(candle, prev ?? candle, prev2 ?? candle)) {
      hits.push({ name: definition.name, bullish: definition.bullish });
    }
  }
  return hits;
}

/** The patterns completed on `bars[index]` (its last candle on that bar), judged from the bars up to it only. */
export function detectPatterns(bars: readonly DailyBar[], index: number): PatternHit[] {
  if (!Number.isInteger(index) || index < 0 || index >= bars.length) return [];
  const from = Math.max(0, index - WINDOW_BACK);
  return hitsAt(measureCandles(bars.slice(from, index + 1)), index - from);
}

/**
 * The patterns of every bar of a history, measuring each bar once (its 10-bar averages and trend are shared by
 * every pattern and every candle position); bars without a pattern are left out.
 */
export function detectAll(bars: readonly DailyBar[]): PatternDetection[] {
  const candles = measureCandles(bars);
  const detections: PatternDetection[] = [];
  bars.forEach((bar, index) => {
    const hits = hitsAt(candles, index);
    if (hits.length > 0) detections.push({ index, date: bar.date, hits });
  });
  return detections;
}
