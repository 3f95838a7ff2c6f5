/**
 * The candlestick patterns the engine detects, by name: a pure list shared by the screener query language,
 * the engine's detectors and the UI, so that the domain never imports the engine.
 */

/** One known candlestick pattern: its snake_case name, a display label and its direction. */
export interface PatternInfo {
  /** The snake_case name used in detections and in the screener type `pattern_<name>_`. */
  readonly name: string;
  /** The label shown to users. */
  readonly label: string;
  /** `true` for a bullish pattern, `false` for a bearish one, `null` for a neutral one (doji). */
  readonly bullish: boolean | null;
}

/** Every known candlestick pattern, in display order. */
export const PATTERNS = [
  { name: 'doji', label: 'Doji', bullish: null },
  { name: 'dragonfly_doji', label: 'Dragonfly doji', bullish: true },
  { name: 'gravestone_doji', label: 'Gravestone doji', bullish: false },
  { name: 'hammer', label: 'Hammer', bullish: true },
  { name: 'inverted_hammer', label: 'Inverted hammer', bullish: true },
  { name: 'hanging_man', label: 'Hanging man', bullish: false },
  { name: 'shooting_star', label: 'Shooting star', bullish: false },
  { name: 'bullish_engulfing', label: 'Bullish engulfing', bullish: true },
  { name: 'bearish_engulfing', label: 'Bearish engulfing', bullish: false },
  { name: 'bullish_harami', label: 'Bullish harami', bullish: true },
  { name: 'bearish_harami', label: 'Bearish harami', bullish: false },
  { name: 'piercing_line', label: 'Piercing line', bullish: true },
  { name: 'dark_cloud_cover', label: 'Dark cloud cover', bullish: false },
  { name: 'morning_star', label: 'Morning star', bullish: true },
  { name: 'evening_star', label: 'Evening star', bullish: false },
  { name: 'three_white_soldiers', label: 'Three white soldiers', bullish: true },
  { name: 'three_black_crows', label: 'Three black crows', bullish: false },
  { name: 'bullish_marubozu', label: 'Bullish marubozu', bullish: true },
  { name: 'bearish_marubozu', label: 'Bearish marubozu', bullish: false },
] as const satisfies readonly PatternInfo[];

/** The name of a known candlestick pattern. */
export type PatternName = (typeof PATTERNS)[number]['name'];

/** Every known pattern name, in display order. */
export const PATTERN_NAMES: readonly PatternName[] = PATTERNS.map((pattern) => pattern.name);

/** The names of the bullish patterns, those that count for the screener's "any bullish pattern". */
export const BULLISH_PATTERN_NAMES: readonly PatternName[] = PATTERNS.filter((pattern) => pattern.bullish === true).map(
  (pattern) => pattern.name,
);

const byName: ReadonlyMap<string, PatternInfo> = new Map(PATTERNS.map((pattern) => [pattern.name, pattern]));

/** Whether a text is the name of a known pattern. */
export function isPatternName(text: string): text is PatternName {
  return byName.has(text);
}

/** The known pattern of a name, or `undefined`. */
export function patternInfo(name: string): PatternInfo | undefined {
  return byName.get(name);
}
