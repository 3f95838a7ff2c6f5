import { expect } from 'chai';
import { DEFAULT_RETRY_POLICY, RETRY_AFTER_MAX_MS, retryAfterMs, retryDelay } from './retry.ts';

const NOW = Date.parse('1994-11-06T08:49:00Z');

describe('retry timing', function () {
  describe('retryAfterMs', function () {
    it('reads delay-seconds', function () {
      expect(retryAfterMs('120', NOW)).to.equal(120_000);
      expect(retryAfterMs(' 0 ', NOW)).to.equal(0);
    });

    it('reads an HTTP date in each of its three forms, as GMT whatever the local zone', function () {
      for (const date of [
        'Sun, 06 Nov 1994 08:49:37 GMT',
        'Sunday, 06-Nov-94 08:49:37 GMT',
        'Sun Nov  6 08:49:37 1994',
      ]) {
        expect(retryAfterMs(date, NOW), date).to.equal(37_000);
      }
    });

    it('answers 0 for a date already past, and null for what is neither', function () {
      expect(retryAfterMs('Sat, 05 Nov 1994 08:49:37 GMT', NOW)).to.equal(0);
      for (const value of [null, undefined, '', 'soon', '-5', '1.5', '1994-11-06', '12 13']) {
        expect(retryAfterMs(value, NOW), String(value)).to.equal(null);
      }
      // A bare number is seconds, never a date (`Date.parse('2')` would read a year).
      expect(retryAfterMs('2', NOW)).to.equal(2000);
    });
  });

  describe('retryDelay', function () {
    it('follows a longer wait the receiver asked for, up to the cap, and never a shorter one', function () {
      // random 0.5: the first delay without jitter, 30 s.
      expect(retryDelay(DEFAULT_RETRY_POLICY, 1, 0.5)).to.equal(30_000);
      expect(retryDelay(DEFAULT_RETRY_POLICY, 1, 0.5, 5_000)).to.equal(30_000);
      expect(retryDelay(DEFAULT_RETRY_POLICY, 1, 0.5, 600_000)).to.equal(600_000);
      expect(retryDelay(DEFAULT_RETRY_POLICY, 1, 0.5, 86_400_000)).to.equal(RETRY_AFTER_MAX_MS);
    });

    it('adds no attempt after the last', function () {
      expect(retryDelay(DEFAULT_RETRY_POLICY, 6, 0.5, 60_000)).to.equal(null);
    });
  });
});
