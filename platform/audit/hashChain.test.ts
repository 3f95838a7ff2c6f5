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
