import { expect } from 'chai';
import fc from 'fast-check';
import type { AlertSource } from '../../domain/alerts/conditions.ts';
import { SourceFeed, UNITS_KEPT } from './series.ts';

const SOURCES: readonly AlertSource[] = ['price', 'sma:20', 'ema:5', 'rsi:14', 'changepct'];
/** How far a scan looks for the answer, in cents. */
const REACH = 3_000;

describe('source feed bounds', function () {
  it('firstCentsUp and lastCentsDown answer the first price each way where the value passes a level', function () {
    this.timeout(60_000);
    let checked = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...SOURCES),
        fc.array(fc.integer({ min: 9_000, max: 11_000 }), { minLength: 25, maxLength: 25 }),
        fc.integer({ min: 9_000, max: 11_000 }),
        fc.integer({ min: -1_500, max: 1_500 }),
        fc.boolean(),
        (source, closes, cents, offset, strict) => {
          const feed = new SourceFeed(source, 'AAA', () => ({ closes, volumes: closes.map(() => 1000) }));
          const prevClose = closes.at(-1)!;
          const value = (c: number): number => feed.value(c, 0, prevClose);
          // A level near the value of a price `offset` cents away, not always a value the source takes.
          const level = value(cents + offset) + (offset % 3) * 1e-7;
          const holds = (c: number): boolean => (strict ? value(c) > level : value(c) >= level);
          if (!holds(cents)) {
            let want = Infinity;
            for (let c = cents + 1; c <= cents + REACH; c++) {
              if (holds(c)) {
                want = c;
                break;
              }
            }
            const got = feed.firstCentsUp(cents, prevClose, level, strict);
            if (want !== Infinity) expect(got, `${source} up from ${cents} to ${level}`).to.equal(want);
            else expect(got).to.be.above(cents + REACH);
          } else {
            let want = -Infinity;
            for (let c = cents - 1; c >= cents - REACH; c--) {
              if (!holds(c)) {
                want = c;
                break;
              }
            }
            const got = feed.lastCentsDown(cents, prevClose, level, strict);
            if (want !== -Infinity) expect(got, `${source} down from ${cents} to ${level}`).to.equal(want);
            else expect(got).to.be.below(cents - REACH);
          }
          checked += 1;
        },
      ),
      { numRuns: 3_000, seed: 3 },
    );
    expect(checked).to.equal(3_000);
  });
});

describe('source feed amounts', function () {
  it('converts a moving amount to the feed unit, keeping at most UNITS_KEPT conversions', function () {
    const feed = new SourceFeed('price', 'AAA', () => ({ closes: [10_000, 10_100], volumes: [1, 1] }));
    expect(feed.movingAmount(1.005)).to.equal(101);
    for (let i = 0; i < 3 * UNITS_KEPT; i++) {
      expect(feed.movingAmount(i / 100)).to.equal(i);
      expect(feed.unitsKept).to.be.at.most(UNITS_KEPT);
    }
    expect(feed.unitsKept).to.be.above(0);
    // Forgotten conversions are made again, the same.
    expect(feed.movingAmount(1.005)).to.equal(101);
    expect(feed.movingLevel('moving_up', 2.5, 1)).to.equal(10_100 + 250);
  });
});
