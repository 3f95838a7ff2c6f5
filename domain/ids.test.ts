import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { STOCKPULSE_NAMESPACE, eventIdFor, isUuid, sha1, streamName, uuidV5 } from './ids.ts';

const DNS_NAMESPACE = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';

describe('ids', () => {
  describe('sha1', () => {
    it('matches node:crypto on the empty input, block boundaries and random inputs', () => {
      const lengths = [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000];
      for (const length of lengths) {
        const input = randomBytes(length);
        const expected = createHash('sha1').update(input).digest('hex');
        expect(Buffer.from(sha1(input)).toString('hex'), `length ${length}`).to.equal(expected);
      }
    });

    it('gives the published digest of "abc"', () => {
      expect(Buffer.from(sha1(new TextEncoder().encode('abc'))).toString('hex')).to.equal(
        'a9993e364706816aba3e25717850c26c9cd0d89d',
      );
    });
  });

  describe('uuidV5', () => {
    it('gives the published version-5 UUID of www.example.com in the DNS namespace', () => {
      expect(uuidV5('www.example.com', DNS_NAMESPACE)).to.equal('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    });

    it('encodes names as UTF-8', () => {
      const name = 'Zürich ✓';
      const digest = createHash('sha1')
        .update(Buffer.from(STOCKPULSE_NAMESPACE.replaceAll('-', ''), 'hex'))
        .update(name, 'utf8')
        .digest('hex');
      expect(uuidV5(name, STOCKPULSE_NAMESPACE).replaceAll('-', '').slice(0, 12)).to.equal(digest.slice(0, 12));
    });

    it('matches node:crypto on names of any length in any order (long names, then short ones, non-ASCII)', () => {
      const names = ['a'.repeat(300), 'b', '€'.repeat(100), 'x', '😀 emoji', '', 'é'.repeat(40), 'abc/0'];
      for (const name of [...names, ...names.reverse()]) {
        const bytes = createHash('sha1')
          .update(Buffer.from(STOCKPULSE_NAMESPACE.replaceAll('-', ''), 'hex'))
          .update(name, 'utf8')
          .digest();
        bytes[6] = (bytes[6]! & 0x0f) | 0x50;
        bytes[8] = (bytes[8]! & 0x3f) | 0x80;
        const hex = bytes.subarray(0, 16).toString('hex');
        const expected = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
        expect(uuidV5(name, STOCKPULSE_NAMESPACE), JSON.stringify(name.slice(0, 20))).to.equal(expected);
      }
    });

    it('refuses a namespace that is not a UUID', () => {
      expect(() => uuidV5('x', 'not-a-uuid')).to.throw(RangeError, /namespace/);
    });
  });

  describe('eventIdFor', () => {
    it('derives the same id from the same command id and index', () => {
      expect(eventIdFor('cmd-1', 0)).to.equal(eventIdFor('cmd-1', 0));
      expect(eventIdFor('cmd-1', 3)).to.equal(eventIdFor('cmd-1', 3));
    });

    it('derives different ids for other indexes and other command ids', () => {
      const ids = new Set([
        eventIdFor('cmd-1', 0),
        eventIdFor('cmd-1', 1),
        eventIdFor('cmd-2', 0),
        eventIdFor('cmd-1/1', 0),
        eventIdFor('cmd-1/', 10),
        eventIdFor('cmd-1', 10),
      ]);
      expect(ids.size).to.equal(6);
    });

    it('answers an RFC 4122 version-5 UUID in lower case', () => {
      for (const id of [eventIdFor('a', 0), eventIdFor('Ω', 7), eventIdFor('x'.repeat(500), 123456)]) {
        expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(isUuid(id)).to.equal(true);
      }
    });

    it('is the version-5 UUID of "<commandId>/<index>" in the StockPulse namespace', () => {
      expect(eventIdFor('cmd-1', 2)).to.equal(uuidV5('cmd-1/2', STOCKPULSE_NAMESPACE));
    });

    it('keeps deriving the same ids across releases, so a command retried after an upgrade stays idempotent', () => {
      expect(eventIdFor('cmd-1', 0)).to.equal('8bbfbc42-2347-57a1-956a-0c43c39af7a0');
    });

    it('refuses an empty command id and an index that is not a whole number >= 0', () => {
      expect(() => eventIdFor('', 0)).to.throw(RangeError, /commandId/);
      expect(() => eventIdFor('c', -1)).to.throw(RangeError, /index/);
      expect(() => eventIdFor('c', 1.5)).to.throw(RangeError, /index/);
      expect(() => eventIdFor('c', Number.NaN)).to.throw(RangeError, /index/);
    });
  });

  describe('isUuid', () => {
    it('accepts canonical UUIDs in either case and refuses anything else', () => {
      expect(isUuid(DNS_NAMESPACE)).to.equal(true);
      expect(isUuid(DNS_NAMESPACE.toUpperCase())).to.equal(true);
      expect(isUuid(DNS_NAMESPACE.replaceAll('-', ''))).to.equal(false);
      expect(isUuid(`${DNS_NAMESPACE}0`)).to.equal(false);
      expect(isUuid('')).to.equal(false);
    });
  });

  describe('streamName', () => {
    it('joins concern and user id with a dash', () => {
      expect(streamName('watchlist', 'u1')).to.equal('watchlist-u1');
      expect(streamName('companyStats', 'u1')).to.equal('companyStats-u1');
    });

    it('keeps dashes in the user id, since the category is what precedes the first dash', () => {
      expect(streamName('alerts', '2b1c-77')).to.equal('alerts-2b1c-77');
    });

    for (const concern of ['watch-list', '-watchlist', 'watchlist-', '', '1watchlist', 'watch list', '$ce']) {
      it(`refuses the concern ${JSON.stringify(concern)}`, () => {
        expect(() => streamName(concern, 'u1')).to.throw(RangeError, /concern/);
      });
    }

    it('refuses an empty user id', () => {
      expect(() => streamName('watchlist', '')).to.throw(RangeError, /userId/);
    });
  });
});
