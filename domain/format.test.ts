import { expect } from 'chai';
import {
  formatFixed,
  formatNumber,
  formatPrice,
  formatQuantity,
  formatSigned,
  formatSignedPercent,
  withoutGrouping,
} from './format.ts';

describe('number display', () => {
  it('writes a fixed number of decimals, a value that rounds to zero without a sign', () => {
    expect(formatFixed(0.123)).to.equal('0.12');
    expect(formatFixed(-0.456)).to.equal('-0.46');
    expect(formatFixed(-0.001)).to.equal('0.00');
    expect(formatFixed(-0)).to.equal('0.00');
    expect(formatFixed(-0.04, 1)).to.equal('0.0');
    expect(formatFixed(-0.06, 1)).to.equal('-0.1');
    expect(formatFixed(1234.5)).to.equal('1234.50');
  });

  it('shows a value under 1000 as is, rounded to 2 decimals without trailing zeros', () => {
    expect(formatNumber(0)).to.equal('0');
    expect(formatNumber(3)).to.equal('3');
    expect(formatNumber(12.5)).to.equal('12.5');
    expect(formatNumber(0.1 + 0.2)).to.equal('0.3');
    expect(formatNumber(123.456)).to.equal('123.46');
    expect(formatNumber(1.005)).to.equal('1.01');
    expect(formatNumber(999.99)).to.equal('999.99');
    expect(formatNumber(999.994)).to.equal('999.99');
  });

  it('switches to millions with 2 decimals at 1000, including a value that rounds up to 1000', () => {
    expect(formatNumber(999.995)).to.equal('0.00M');
    expect(formatNumber(1000)).to.equal('0.00M');
    expect(formatNumber(4999)).to.equal('0.00M');
    expect(formatNumber(5000)).to.equal('0.01M');
    expect(formatNumber(45_300)).to.equal('0.05M');
    expect(formatNumber(1_000_000)).to.equal('1.00M');
    expect(formatNumber(2_500_000)).to.equal('2.50M');
    expect(formatNumber(2_505_000)).to.equal('2.51M');
    expect(formatNumber(999_994_999)).to.equal('999.99M');
  });

  it('switches to billions with 2 decimals once millions would read 1000', () => {
    expect(formatNumber(999_995_000)).to.equal('1.00B');
    expect(formatNumber(1_000_000_000)).to.equal('1.00B');
    expect(formatNumber(123_456_789_012)).to.equal('123.46B');
    expect(formatNumber(3_400_000_000_000)).to.equal('3400.00B');
  });

  it('keeps the sign of negative numbers at every scale', () => {
    expect(formatNumber(-12.5)).to.equal('-12.5');
    expect(formatNumber(-999.99)).to.equal('-999.99');
    expect(formatNumber(-1000)).to.equal('-0.00M');
    expect(formatNumber(-2_500_000)).to.equal('-2.50M');
    expect(formatNumber(-1_000_000_000)).to.equal('-1.00B');
  });

  it('shows 0 for a value that rounds to zero, and n/a for a non-finite value', () => {
    expect(formatNumber(-0.001)).to.equal('0');
    expect(formatNumber(-0)).to.equal('0');
    expect(formatNumber(Number.NaN)).to.equal('n/a');
    expect(formatNumber(Number.POSITIVE_INFINITY)).to.equal('n/a');
  });

  it('writes a price with 2 decimals and thousands separators, never in millions', () => {
    expect(formatPrice(12.5)).to.equal('12.50');
    expect(formatPrice(7483.75)).to.equal('7,483.75');
    expect(formatPrice(-1234.5)).to.equal('-1,234.50');
    expect(formatPrice(2_500_000)).to.equal('2,500,000.00');
    expect(formatPrice(null)).to.equal('n/a');
    expect(formatPrice(Number.NaN, '–')).to.equal('–');
  });

  it('writes a change with its sign and 2 decimals, none when it rounds to zero', () => {
    expect(formatSigned(1.234)).to.equal('+1.23');
    expect(formatSigned(-0.4)).to.equal('-0.40');
    expect(formatSigned(1234.5)).to.equal('+1,234.50');
    expect(formatSigned(0)).to.equal('0.00');
    expect(formatSigned(-0.001)).to.equal('0.00');
    expect(formatSigned(-0.5, 'n/a', 1)).to.equal('-0.5');
    expect(formatSigned(undefined)).to.equal('n/a');
    expect(formatSigned(Number.POSITIVE_INFINITY, '–')).to.equal('–');
  });

  it('writes a change in percent the same way, followed by %', () => {
    expect(formatSignedPercent(-0.2)).to.equal('-0.20%');
    expect(formatSignedPercent(12.345)).to.equal('+12.35%');
    expect(formatSignedPercent(-0.004)).to.equal('0.00%');
    expect(formatSignedPercent(3.25, 'n/a', 1)).to.equal('+3.3%');
    expect(formatSignedPercent(null, '–')).to.equal('–');
  });

  it('writes a number of shares with separators and up to 6 decimals, as the lots were entered', () => {
    expect(formatQuantity(10)).to.equal('10');
    expect(formatQuantity(1250)).to.equal('1,250');
    expect(formatQuantity(0.125)).to.equal('0.125');
    expect(formatQuantity(1.1234567)).to.equal('1.123457');
    expect(formatQuantity(-5)).to.equal('-5');
    expect(formatQuantity(undefined, '')).to.equal('');
    expect(formatQuantity(Number.NaN)).to.equal('n/a');
  });

  it('reads a typed number back with the commas that group thousands taken out, and only those', () => {
    expect(withoutGrouping(' 1,250.50 ')).to.equal('1250.50');
    expect(withoutGrouping('-12,345,678')).to.equal('-12345678');
    expect(withoutGrouping('2,500k')).to.equal('2500k');
    expect(withoutGrouping('182.5')).to.equal('182.5');
    // A decimal comma, or commas in the wrong places, stay: the text is then not a number and is refused.
    expect(withoutGrouping('0,5')).to.equal('0,5');
    expect(withoutGrouping('1,25')).to.equal('1,25');
    expect(withoutGrouping('12,34,567')).to.equal('12,34,567');
    expect(withoutGrouping('1,2345')).to.equal('1,2345');
    expect(withoutGrouping(',500')).to.equal(',500');
    expect(Number(withoutGrouping('0,5'))).to.be.NaN;
    expect(Number(withoutGrouping(formatQuantity(1250.125)))).to.equal(1250.125);
    expect(Number(withoutGrouping(formatPrice(7483.75)))).to.equal(7483.75);
  });
});
