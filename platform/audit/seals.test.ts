import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { CommandMeta } from '../../domain/decider.ts';
import { streamName } from '../../domain/ids.ts';
import { WATCHLIST_CONCERN, watchlistDecider, type WatchlistCommand } from '../../domain/watchlist/watchlist.ts';
import { handleCommand } from '../commandHandler.ts';
import { loadConfig } from '../config.ts';
import { openEventStore } from '../eventstore/index.ts';
import {
  formatPosition,
  type EventData,
  type EventMetadata,
  type EventStore,
  type RecordedEvent,
} from '../eventstore/port.ts';
import { openSqliteEventStore } from '../eventstore/sqlite.ts';
import { copyLog, withoutChainHeads } from '../eventstore/testing/chainHeadsFree.ts';
import { CHAIN_KEY_FILE, chainKeyOf, loadChainKey, useChainKey } from './chainKey.ts';
import { KEYED_CHAIN, chainEvents, verifyStream } from './hashChain.ts';
import { SEALS_STREAM, checkSealed, loadSeals, startSealer, type ChainSealedData } from './seals.ts';

const add = (...symbols: string[]): WatchlistCommand => ({ type: 'AddSymbolsToWatchlist', data: { symbols } });

function meta(userId: string): CommandMeta {
  return { commandId: randomUUID(), userId, at: '2026-01-05T15:00:00.000Z', actor: `user:${userId}` };
}

describe('chain key and seals', function () {
  let dir: string;
  const stores: EventStore[] = [];
  beforeEach(function () {
    dir = mkdtempSync(join(tmpdir(), 'sp-seals-'));
  });
  afterEach(async function () {
    for (const store of stores.splice(0)) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function open(env: Record<string, string> = {}): Promise<EventStore> {
    const store = await openEventStore(loadConfig({ DATA_DIR: dir, ...env }));
    stores.push(store);
    return store;
  }

  it('generates the key into DATA_DIR once, readable by its owner only, and reads it back', async function () {
    const first = loadChainKey(loadConfig({ DATA_DIR: dir }));
    const again = loadChainKey(loadConfig({ DATA_DIR: dir }));
    expect(first.equals(again)).to.equal(true);
    expect(readFileSync(join(dir, CHAIN_KEY_FILE), 'utf8')).to.match(/^[0-9a-f]{64}$/);
    expect(statSync(join(dir, CHAIN_KEY_FILE)).mode & 0o777).to.equal(0o600);
    const configured = loadChainKey(loadConfig({ DATA_DIR: dir, CHAIN_KEY: 'c'.repeat(40) }));
    expect(configured.toString('utf8')).to.equal('c'.repeat(40));
    expect(chainKeyOf(await open())?.equals(first)).to.equal(true);
  });

  it('keeps verifying the plain chain of events written before the log had a key, and keys the events after', async function () {
    const stream = streamName(WATCHLIST_CONCERN, 'ada');
    // Written as an older version did: no key, plain SHA-256.
    const legacy = openSqliteEventStore({ file: join(dir, 'events.db') });
    await handleCommand(legacy, watchlistDecider, stream, add('AAPL', 'NVDA'), meta('ada'));
    await legacy.close();

    const store = await open();
    const sealer = startSealer(store, { intervalMs: 3_600_000 });
    await sealer.sealNow();
    await handleCommand(store, watchlistDecider, stream, add('MSFT'), meta('ada'));
    await sealer.sealNow();
    await sealer.stop();

    const events = await store.readStream(stream);
    expect(events.map((e) => e.metadata.chain ?? 'plain')).to.deep.equal(['plain', 'plain', KEYED_CHAIN]);
    const seals = await loadSeals(store);
    expect(seals.broken).to.equal(null);
    expect(seals.heads.get(stream)).to.include({ revision: 2 });
    expect(verifyStream(events, { key: chainKeyOf(store), keyedSince: seals.keyedSince })).to.equal(null);
    expect(checkSealed(stream, events, seals)).to.equal(null);
  });

  it('seals only when something changed, chaining the seals with the key', async function () {
    const store = await open();
    const sealer = startSealer(store, { intervalMs: 3_600_000 });
    await sealer.sealNow();
    await sealer.sealNow();
    await handleCommand(store, watchlistDecider, streamName(WATCHLIST_CONCERN, 'bob'), add('IBM'), meta('bob'));
    await sealer.sealNow();
    await sealer.stop();
    const seals = await store.readStream(SEALS_STREAM);
    expect(seals.map((s) => Object.keys((s.data as { heads: object }).heads))).to.deep.equal([[], ['watchlist-bob']]);
    expect(verifyStream(seals, { key: chainKeyOf(store) })).to.equal(null);
    const forger = openSqliteEventStore({ file: join(dir, 'other.db') });
    useChainKey(forger, Buffer.from('f'.repeat(40)));
    stores.push(forger);
    expect(verifyStream(seals, { key: chainKeyOf(forger) })?.reason).to.equal(
      'hash does not match the event: it was altered',
    );
  });

  it('reads a long log a page at a time, the event loop turning in between, and seals every stream once', async function () {
    // A store that does not tell its chain heads: the sealer reads every event.
    const store = withoutChainHeads(await open());
    useChainKey(store, chainKeyOf(stores.at(-1)!)!);
    const sealer = startSealer(store, { intervalMs: 3_600_000 });
    await sealer.sealNow();
    const users = Array.from({ length: 40 }, (_, i) => `user${i}`);
    for (let round = 0; round < 30; round++) {
      await Promise.all(
        users.map((user) =>
          handleCommand(store, watchlistDecider, streamName(WATCHLIST_CONCERN, user), add(`S${round}`), meta(user)),
        ),
      );
    }
    let turns = 0;
    let turning = true;
    const turn = (): void => {
      turns += 1;
      if (turning) setImmediate(turn);
    };
    setImmediate(turn);
    await sealer.sealNow();
    turning = false;
    await sealer.stop();
    const seals = await store.readStream(SEALS_STREAM);
    expect(seals).to.have.length(2);
    const heads = (seals[1]!.data as { heads: Record<string, { revision: number }> }).heads;
    expect(Object.keys(heads).sort()).to.deep.equal(users.map((u) => `watchlist-${u}`).sort());
    expect(Object.values(heads).map((h) => h.revision)).to.deep.equal(users.map(() => 29));
    // 1,200 events, 100 a page: the loop turned before each of the thirteen pages.
    expect(turns).to.be.at.least(13);
  });

  it('seals a SQLite log from its chain heads: the heads and position of a seal reading every event', async function () {
    this.timeout(60_000);
    const key = Buffer.from('k'.repeat(40));
    const source = join(dir, 'source.db');
    const writer = openSqliteEventStore({ file: source });
    const last = new Map<string, { revision: number; metadata: EventMetadata }>();
    const append = async (stream: string, count: number, chained = true): Promise<void> => {
      const plain: EventData[] = Array.from({ length: count }, () => ({
        id: randomUUID(),
        type: 'Noted',
        data: { n: Math.random() },
        metadata: { actor: 'test' },
      }));
      const previous = last.get(stream);
      const events = chained ? chainEvents(stream, previous, plain, key) : plain;
      await writer.appendToStream(stream, events, { expectedRevision: previous ? previous.revision : 'no_stream' });
      last.set(stream, { revision: (previous?.revision ?? -1) + count, metadata: events.at(-1)!.metadata! });
    };
    // More than one page of the scan (5,000 events), streams interleaved.
    for (let round = 0; round < 30; round++) {
      for (let user = 0; user < 20; user++) await append(`notes-user${user}`, 10);
    }
    await append('nodash', 3);
    // A user stream whose last events carry no hash: its head is the last event that does.
    await append('notes-user3', 2, false);
    await writer.close();
    const seal = async (file: string, heads: boolean): Promise<ChainSealedData> => {
      copyLog(source, file);
      const sqlite = openSqliteEventStore({ file });
      stores.push(sqlite);
      const store = heads ? sqlite : withoutChainHeads(sqlite);
      expect(typeof store.chainHeads).to.equal(heads ? 'function' : 'undefined');
      useChainKey(store, key);
      const sealer = startSealer(store, { intervalMs: 3_600_000 });
      await sealer.sealNow();
      await sealer.stop();
      return (await store.readStream(SEALS_STREAM))[0]!.data as ChainSealedData;
    };
    const fromHeads = await seal(join(dir, 'heads.db'), true);
    const fromEvents = await seal(join(dir, 'events.db'), false);
    const sorted = (data: ChainSealedData): unknown => [data.through, Object.entries(data.heads).sort()];
    expect(sorted(fromHeads)).to.deep.equal(sorted(fromEvents));
    expect(Object.keys(fromHeads.heads)).to.have.length(20);
    expect(fromHeads.heads['notes-user3']).to.deep.equal({
      revision: 299,
      hash: (await readRevision(source, 'notes-user3', 299)).metadata.hash,
    });
    expect(fromHeads.through).to.equal(formatPosition({ commit: 6005, prepare: 6005 }));
  });

  async function readRevision(file: string, stream: string, revision: number): Promise<RecordedEvent> {
    const store = openSqliteEventStore({ file });
    stores.push(store);
    return (await store.readStream(stream, { fromRevision: revision, maxCount: 1 }))[0]!;
  }
});
