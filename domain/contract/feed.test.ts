import { expect } from 'chai';
import fc from 'fast-check';
import { FEED_MAX_TICKS, TICK_PRICE_MAX, feedBody, isPlainFeedBody } from './feed.ts';

/** Values a field of a tick may hold in a JSON body: near every bound of the schema, and of the wrong type. */
const anyValue = fc.oneof(
  fc.constantFrom(0, -0, 0.001, 0.004, 0.005, 0.0099, 0.01, 0.015, 1, 1.5, -1, TICK_PRICE_MAX, TICK_PRICE_MAX + 0.01),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1, 2 ** 60, 1e21, 1.7e12),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 2e6 }),
  fc.nat(),
  fc.constantFrom('AAPL', 'aapl', ' AAPL', 'BRK.B', 'A-1', '', '.A', 'ABCDEFGHIJK', 'NOT A SYMBOL', '12'),
  fc.string({ maxLength: 12 }),
  fc.constantFrom(null, true, [], {}),
);

/** A tick with each field left out, well formed or any value. */
const anyTick = fc.record(
  {
    symbol: fc.oneof(fc.stringMatching(/^[A-Z0-9][A-Z0-9.-]{0,9}$/), anyValue),
    price: fc.oneof(fc.double({ min: 0.01, max: TICK_PRICE_MAX, noNaN: true }), anyValue),
    size: fc.oneof(fc.nat(), anyValue),
    ts: fc.oneof(fc.nat(), anyValue),
    extra: anyValue,
  },
  { requiredKeys: [] },
);

const fields = (t: unknown): unknown => {
  const { symbol, price, size, ts } = t as Record<string, unknown>;
  return { symbol, price, size, ts };
};

describe('feed contract: isPlainFeedBody', function () {
  it('passes only bodies the schema accepts, with the same symbols, prices, sizes and times', function () {
    fc.assert(
      fc.property(fc.array(anyTick, { minLength: 0, maxLength: 4 }), (body) => {
        const plain = isPlainFeedBody(body);
        const parsed = feedBody.safeParse(body);
        if (plain) {
          expect(parsed.success, JSON.stringify(body)).to.equal(true);
          expect(parsed.data!.map(fields)).to.deep.equal(body.map(fields));
        }
        // What the feeds send (upper-case symbols, prices of a cent or more, whole sizes and times, no other key)
        // is passed; a tick with another key goes to the schema, which refuses it.
        const wellFormed = body.every(
          (t) =>
            typeof t.symbol === 'string' &&
            /^[A-Z0-9][A-Z0-9.-]{0,9}$/.test(t.symbol) &&
            typeof t.price === 'number' &&
            t.price >= 0.01 &&
            t.price <= TICK_PRICE_MAX &&
            [t.size, t.ts].every((n) => n === undefined || (Number.isSafeInteger(n) && (n as number) >= 0)) &&
            !('extra' in t),
        );
        expect(plain).to.equal(wellFormed && body.length > 0);
      }),
      { numRuns: 3000 },
    );
  });

  it('holds to the schema on the number of ticks and on what a tick is', function () {
    const tick = { symbol: 'AAPL', price: 190.5 };
    expect(isPlainFeedBody([tick])).to.equal(true);
    expect(isPlainFeedBody(Array.from({ length: FEED_MAX_TICKS }, () => tick))).to.equal(true);
    expect(isPlainFeedBody(Array.from({ length: FEED_MAX_TICKS + 1 }, () => tick))).to.equal(false);
    for (const body of [[], tick, [[tick]], [null], ['AAPL'], null, 'x']) {
      expect(isPlainFeedBody(body), JSON.stringify(body)).to.equal(false);
    }
  });
});
