import fc from 'fast-check';
import { expect } from 'chai';
import type { RecordedEvent } from '../eventstore/port.ts';
import { GENESIS_HASH, canonicalJson, chainEvents, verifyStream } from './hashChain.ts';

function recorded(stream: string, events: ReturnType<typeof chainEvents>): RecordedEvent[] {
  return events.map((e, revision) => ({
    id: e.id,
    type: e.type,
    streamId: stream,
    revision,
    position: { commit: revision, prepare: revision },
    data: JSON.parse(JSON.stringify(e.data)) as unknown,
    metadata: e.metadata ?? {},
    created: '2026-01-01T00:00:00.000Z',
  }));
}

const base = [
  { id: 'a', type: 'SymbolAddedToWatchlist', data: { symbol: 'AAPL' }, metadata: { userId: 'ada' } },
  { id: 'b', type: 'SymbolAddedToWatchlist', data: { symbol: 'NVDA' }, metadata: { userId: 'ada' } },
  { id: 'c', type: 'SymbolRemovedFromWatchlist', data: { symbol: 'AAPL' }, metadata: { userId: 'ada' } },
];

describe('hash chain', function () {
  it('sorts keys at every level in canonical JSON', function () {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).to.equal(
      '{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('writes any JSON value so that it reads back equal, whatever order its keys were added in', function () {
    const reversed = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(reversed)
        : v !== null && typeof v === 'object'
          ? Object.fromEntries(
              Object.keys(v)
                .reverse()
                .map((k) => [k, reversed((v as Record<string, unknown>)[k])]),
            )
          : v;
    fc.assert(
      fc.property(fc.jsonValue(), fc.dictionary(fc.string(), fc.constant(undefined)), (value, missing) => {
        const withUndefined = value !== null && typeof value === 'object' && !Array.isArray(value);
        const input: unknown = withUndefined ? { ...missing, ...value } : value;
        const text = canonicalJson(input);
        expect(JSON.parse(text)).to.deep.equal(JSON.parse(JSON.stringify(value)));
        expect(canonicalJson(reversed(input))).to.equal(text);
      }),
    );
  });

  it('writes what sorting every key list with sort() and quoting each key writes, whatever the keys', function () {
    // The text is hashed into every stored event's chain: it must never change for a value.
    const reference = (v: unknown): string => {
      if (Array.isArray(v)) return `[${v.map((x) => reference(x)).join(',')}]`;
      if (v === null || typeof v !== 'object') return JSON.stringify(v ?? null);
      const record = v as Record<string, unknown>;
      const keys = Object.keys(record)
        .sort()
        .filter((k) => record[k] !== undefined);
      return `{${keys.map((k) => `${JSON.stringify(k)}:${reference(record[k])}`).join(',')}}`;
    };
    const keys = fc.oneof(fc.string(), fc.constantFrom('10', '9', '0', '-1', 'a"b', 'é', '\u2028', 'Z', '__proto__x'));
    const objects = fc.dictionary(keys, fc.jsonValue(), { maxKeys: 40 });
    fc.assert(
      fc.property(fc.oneof(objects, fc.array(objects), fc.jsonValue()), (value) => {
        expect(canonicalJson(value)).to.equal(reference(value));
      }),
    );
    const wide = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${(i * 7) % 30}`, i]));
    expect(canonicalJson(wide)).to.equal(reference(wide));
    expect(canonicalJson({ 10: 1, 9: 2, b: 3, a: 4 })).to.equal('{"10":1,"9":2,"a":4,"b":3}');
  });

  it('links each event to the previous one, the first to the genesis hash', function () {
    const chained = chainEvents('watchlist-ada', undefined, base);
    expect(chained[0]!.metadata!.prevHash).to.equal(GENESIS_HASH);
    expect(chained[1]!.metadata!.prevHash).to.equal(chained[0]!.metadata!.hash);
    expect(verifyStream(recorded('watchlist-ada', chained))).to.equal(null);
  });

  it('continues a chain across appends', function () {
    const first = chainEvents('watchlist-ada', undefined, base.slice(0, 2));
    const firstRecorded = recorded('watchlist-ada', first);
    const second = chainEvents('watchlist-ada', firstRecorded[1], base.slice(2));
    expect(verifyStream(recorded('watchlist-ada', [...first, ...second]))).to.equal(null);
  });

  it('names the first altered event', function () {
    const events = recorded('watchlist-ada', chainEvents('watchlist-ada', undefined, base));
    const tampered = events.map((e, i) => (i === 1 ? { ...e, data: { symbol: 'TSLA' } } : e));
    expect(verifyStream(tampered)).to.include({ revision: 1, eventId: 'b' });
  });

  it('names a removed event', function () {
    const events = recorded('watchlist-ada', chainEvents('watchlist-ada', undefined, base));
    expect(verifyStream([events[0]!, events[2]!])?.revision).to.equal(2);
  });

  it('refuses an event moved to another stream', function () {
    const events = recorded('watchlist-ada', chainEvents('watchlist-ada', undefined, base));
    expect(verifyStream(events.map((e) => ({ ...e, streamId: 'watchlist-bob' })))?.revision).to.equal(0);
  });
});
