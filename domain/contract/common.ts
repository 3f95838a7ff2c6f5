/**
 * Schemas many routes share: symbols and lists of them, whole numbers and dates in a path or query string, the
 * period of fundamental figures, ids.
 */
import { z } from './zod.ts';
import { SYMBOL_PATTERN } from '../symbol.ts';

const SYMBOL_RULE = 'must be 1-10 characters of A-Z 0-9 . -';

/**
 * The symbol rule of the API: 1–10 of `A-Z 0-9 . -` (lower case accepted and upper-cased). The letters are
 * checked before they are upper-cased, so no other letter passes as one of them (`ı` would become `I`, `ß` `SS`).
 */
export const symbolSchema = z
  .string()
  .trim()
  .min(1, { error: 'is required', abort: true })
  .regex(/^[A-Za-z0-9.-]*$/, SYMBOL_RULE)
  .toUpperCase()
  .regex(SYMBOL_PATTERN, SYMBOL_RULE);

/** `{symbol}` path parameter. */
export const symbolParams = z.object({ symbol: symbolSchema });

/** A list of symbols, at most `max`. */
export function symbolList(max: number) {
  return z.array(symbolSchema).min(1, 'must name at least one symbol').max(max, `must name at most ${max} symbols`);
}

/** A whole number as a path or query string writes it: plain decimal digits, no sign but `-`, no leading zero. */
const WHOLE_NUMBER_TEXT = /^-?(0|[1-9]\d{0,15})$/;

/**
 * A whole number from `min` to `max` in a path or query string (or a JSON number): `16`, not `0x10`, `1e1`,
 * ` 16` or `016`, which a plain conversion would read as numbers.
 */
export function wholeNumber(min: number, max: number) {
  const message = `must be a whole number from ${min} to ${max}`;
  return z.preprocess(
    (value) => (typeof value === 'string' && WHOLE_NUMBER_TEXT.test(value) ? Number(value) : value),
    z.number({ error: message }).int(message).min(min, message).max(max, message),
  );
}

/** Whether a `YYYY-MM-DD` text names a day of the Gregorian calendar. */
export function isCalendarDate(date: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const utc = new Date(Date.UTC(year, month - 1, day));
  return utc.getUTCFullYear() === year && utc.getUTCMonth() === month - 1 && utc.getUTCDate() === day;
}

/** A `YYYY-MM-DD` calendar date in a path or query string. */
export const dateSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine(isCalendarDate, 'must be a calendar date');

/**
 * The period of fundamental figures, `A` (years) or `Q` (quarters), in either case; it is upper-cased, so `q`
 * reads as `Q`.
 */
export const periodSchema = z
  .string({ error: 'must be A or Q' })
  .toUpperCase()
  .pipe(z.enum(['A', 'Q'], { error: 'must be A or Q' }));

/** A comma-separated list of symbols in a query string (`A,B,C`), from `min` to `max` of them, no symbol twice. */
export function commaSymbols(min: number, max: number) {
  return z
    .string({ error: 'must be a comma-separated list of symbols' })
    .transform((text) => (text.trim() === '' ? [] : text.split(',').map((s) => s.trim())))
    .pipe(
      symbolList(max)
        .min(min, min === 1 ? 'must name at least one symbol' : `must name at least ${min} symbols`)
        .superRefine((list, ctx) => {
          const seen = new Set<string>();
          list.forEach((symbol, i) => {
            if (seen.has(symbol)) ctx.addIssue({ code: 'custom', message: `names ${symbol} twice`, path: [i] });
            seen.add(symbol);
          });
        }),
    );
}

/** A log position as the API writes it, `commit/prepare` (e.g. `1042/1042`). */
export const LOG_POSITION_PATTERN = /^(-1|\d{1,16})\/(-1|\d{1,16})$/;

/** `{id}` path parameter: the id of something the user owns (1–100 characters). */
export const idParams = z.object({
  id: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
});

/** The answer of a delete: the id and `deleted: true`. */
export const deletedAnswer = z.object({ id: z.string(), deleted: z.literal(true) });
