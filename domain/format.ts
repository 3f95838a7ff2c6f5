/**
 * Number display of the product: under 1000 shown as is, then millions with `M`, then billions with `B`,
 * each with 2 decimals. Pure, shared by the UI and by any text the server writes for people.
 */

/** Text shown for a value that is not a finite number. */
export const NOT_A_NUMBER_TEXT = 'n/a';

/** One million. */
const MILLION = 1_000_000;
/** One billion. */
const BILLION = 1_000_000_000;

/**
 * Rounds a non-negative number to 2 decimals, half up on its shortest decimal form, so 1.005 becomes 1.01
 * (binary `Math.round(x * 100)` would give 1).
 */
function round2(value: number): number {
  const shifted = Math.round(Number(`${value}e2`));
  const rounded = Number(`${shifted}e-2`);
  return Number.isFinite(rounded) ? rounded : Math.round(value * 100) / 100;
}

/**
 * Formats a number for display: `|n|` rounded to 2 decimals and under 1000 as is with trailing zeros dropped
 * (`12.5`, `999.99`); else millions with 2 decimals and `M` (45,300 → `0.05M`, 2,500,000 → `2.50M`) while
 * that mantissa rounds under 1000; else billions with 2 decimals and `B` (`1.00B`). The class is chosen on the
 * rounded value, so the mantissa never reads `1000`; negatives keep their sign, a value that rounds to zero
 * shows `0`, and a non-finite value shows `n/a`.
 */
export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return NOT_A_NUMBER_TEXT;
  const abs = Math.abs(n);
  const plain = round2(abs);
  const sign = n < 0 ? '-' : '';
  if (plain < 1000) return plain === 0 ? '0' : `${sign}${plain}`;
  const millions = round2(abs / MILLION);
  if (millions < 1000) return `${sign}${millions.toFixed(2)}M`;
  return `${sign}${round2(abs / BILLION).toFixed(2)}B`;
}

const PRICE_FORMAT = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/**
 * Formats a price or an amount of dollars: 2 decimals and thousands separators (`12.50`, `7,483.75`), never in
 * millions as {@link formatNumber} would (a share price of 7,483.75 is not `0.01M`); `missing` for a value that is
 * not a finite number.
 */
export function formatPrice(value: number | null | undefined, missing: string = NOT_A_NUMBER_TEXT): string {
  return isFiniteNumber(value) ? PRICE_FORMAT.format(value) : missing;
}

const QUANTITY_FORMAT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 6 });

/**
 * Formats a number of shares: thousands separators and up to 6 decimals, trailing zeros dropped (`10`, `1,250`,
 * `0.125`, `-5`); `missing` for a value that is not a finite number. One formatter made once, so a table of
 * thousands of lots redrawn on each quote does not build one per cell.
 */
export function formatQuantity(value: number | null | undefined, missing: string = NOT_A_NUMBER_TEXT): string {
  return isFiniteNumber(value) ? QUANTITY_FORMAT.format(value) : missing;
}

/** A typed number whose commas group thousands, as the formats above write them: `1,250`, `-12,345.5`, `2,500k`. */
const GROUPED = /^[-+]?\d{1,3}(?:,\d{3})+(?:\.\d*)?\s*[a-z]?$/i;

/**
 * The text of a typed number with its thousands commas taken out (`1,250.50` → `1250.50`), trimmed; the way back
 * from {@link formatPrice} and {@link formatQuantity} for every field a number is typed in. A comma anywhere
 * else (a decimal comma, `0,5`, or `1,25`) is left where it is, so the number reads as not one and is refused
 * rather than taken as 5 or 125.
 */
export function withoutGrouping(text: string): string {
  const trimmed = text.trim();
  return trimmed.includes(',') && GROUPED.test(trimmed) ? trimmed.replace(/,/g, '') : trimmed;
}

/**
 * A number with `digits` decimals (2 unless told) and no thousands separators, as `toFixed` writes it, except that
 * a value that rounds to zero has no sign: `0.00`, never `-0.00` (a correlation of -0.001, a day's change of
 * -0.004%).
 */
export function formatFixed(value: number, digits = 2): string {
  const text = value.toFixed(digits);
  return text.startsWith('-') && Number(text) === 0 ? text.slice(1) : text;
}

/** Whether a value to display is a finite number (not null, undefined, NaN or an infinity). */
function isFiniteNumber(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** The signed formats by number of decimals: a value that rounds to zero has no sign (`0.00`, never `-0.00`). */
const SIGNED_FORMATS = [0, 1, 2].map(
  (digits) =>
    new Intl.NumberFormat('en-US', {
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
      signDisplay: 'exceptZero',
    }),
);

/** Decimals a signed change may be written with. */
export type SignedDigits = 0 | 1 | 2;

/**
 * Formats a change with its sign, thousands separators and `digits` decimals (2 unless told): `+1.25`, `-0.40`,
 * `+1,234.50`; a change that rounds to zero has no sign (`0.00`); `missing` for a value that is not a finite
 * number. One form for every screen, so the same change never reads `-0.4` on one and `-0.40` on another.
 */
export function formatSigned(
  value: number | null | undefined,
  missing: string = NOT_A_NUMBER_TEXT,
  digits: SignedDigits = 2,
): string {
  return isFiniteNumber(value) ? SIGNED_FORMATS[digits]!.format(value) : missing;
}

/** {@link formatSigned} followed by `%`: a change in percent (`+1.25%`, `-0.40%`, `0.00%`); `missing` as is. */
export function formatSignedPercent(
  value: number | null | undefined,
  missing: string = NOT_A_NUMBER_TEXT,
  digits: SignedDigits = 2,
): string {
  return isFiniteNumber(value) ? `${SIGNED_FORMATS[digits]!.format(value)}%` : missing;
}
