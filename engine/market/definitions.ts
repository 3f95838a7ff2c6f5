/**
 * The written definitions of the candlestick patterns, as `GET /api/patterns/definitions` shows them: the same
 * words as the definitions in `engine/patterns/patterns.ts`, with the label, direction and candle count.
 */
import { PATTERNS, type PatternName } from '../../domain/screener/patterns.ts';
import { PATTERN_DEFINITIONS } from '../patterns/patterns.ts';

const TEXTS: Readonly<Record<PatternName, string>> = {
  doji:
    'A body of at most 10% of the average range on a bar that moved, and neither a dragonfly nor a gravestone ' +
    'doji (those are reported under their own names).',
  dragonfly_doji:
    'A doji body whose upper shadow is very short and whose lower shadow is longer than the average body: open ' +
    'and close sit at the high.',
  gravestone_doji:
    'A doji body whose lower shadow is very short and whose upper shadow is longer than the average body: open ' +
    'and close sit at the low.',
  hammer:
    'After a downtrend, a short body (below the average body, above a doji’s) with a lower shadow at least twice ' +
    'the body and longer than the average body, and a very short upper shadow.',
  inverted_hammer:
    'After a downtrend, a short body (below the average body, above a doji’s) with an upper shadow at least twice ' +
    'the body and longer than the average body, and a very short lower shadow.',
  hanging_man: 'The hammer’s shape after an uptrend.',
  shooting_star: 'The inverted hammer’s shape after an uptrend.',
  bullish_engulfing:
    'After a downtrend, a black candle then a white one whose body covers the black body (opens at or below its ' +
    'close and closes at or above its open, at least one of the two strictly).',
  bearish_engulfing:
    'After an uptrend, a white candle then a black one whose body covers the white body (opens at or above its ' +
    'close and closes at or below its open, at least one of the two strictly).',
  bullish_harami:
    'After a downtrend, a long black candle then a short body (either colour) lying within the black body.',
  bearish_harami:
    'After an uptrend, a long white candle then a short body (either colour) lying within the white body.',
  piercing_line:
    'After a downtrend, a long black candle then a long white one that opens below the black candle’s low and ' +
    'closes above the middle of the black body but below its open.',
  dark_cloud_cover:
    'After an uptrend, a long white candle then a long black one that opens above the white candle’s high and ' +
    'closes below the middle of the white body but above its open.',
  morning_star:
    'After a downtrend, a long black candle; then a short body entirely below the black body; then a long white ' +
    'candle closing more than 30% of the way up into the first body.',
  evening_star:
    'After an uptrend, a long white candle; then a short body entirely above the white body; then a long black ' +
    'candle closing more than 30% of the way down into the first body.',
  three_white_soldiers:
    'After a downtrend, three long white candles, each with an upper shadow below a quarter of its body, each ' +
    'opening within the previous body and closing above the previous close.',
  three_black_crows:
    'After an uptrend, three long black candles, each with a lower shadow below a quarter of its body, each ' +
    'opening within the previous body and closing below the previous close.',
  bullish_marubozu: 'A long white body with both shadows very short, in any trend.',
  bearish_marubozu: 'A long black body with both shadows very short, in any trend.',
};

/** One pattern as the definitions route answers it. */
export interface PatternDescription {
  /** The snake_case name (the screener's `pattern_<name>_`). */
  readonly name: PatternName;
  /** The label shown to users. */
  readonly label: string;
  /** `true` bullish, `false` bearish, `null` neutral. */
  readonly bullish: boolean | null;
  /** How many consecutive candles it spans. */
  readonly candles: 1 | 2 | 3;
  /** Its written definition. */
  readonly definition: string;
}

/** Every pattern with its written definition, in the order of the domain's pattern list. */
export const PATTERN_DESCRIPTIONS: readonly PatternDescription[] = Object.freeze(
  PATTERNS.map((p) => {
    const definition = PATTERN_DEFINITIONS.find((d) => d.name === p.name);
    return Object.freeze({
      name: p.name,
      label: p.label,
      bullish: p.bullish,
      candles: definition?.candles ?? 1,
      definition: TEXTS[p.name],
    });
  }),
);
