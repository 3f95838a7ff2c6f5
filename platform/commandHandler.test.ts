import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { DomainError, type CommandMeta, type Decider } from '../domain/decider.ts';
import { eventIdFor, streamName } from '../domain/ids.ts';
import {
  WATCHLIST_CONCERN,
  watchlistDecider,
  type WatchlistCommand,
  type WatchlistEvent,
  type WatchlistState,
} from '../domain/watchlist/watchlist.ts';
import { verifyStream } from './audit/hashChain.ts';
import { MEMO_IDS_LIMIT, handleCommand } from './commandHandler.ts';
import { StreamNotFoundError, WrongExpectedRevisionError, type EventStore } from './eventstore/port.ts';
import { openSqliteEventStore } from './eventstore/sqlite.ts';

const add = (...symbols: string[]): WatchlistCommand => ({ type: 'AddSymbolsToWatchlist', data: { symbols } });
const remove = (symbol: string): WatchlistCommand => ({ type: 'RemoveSymbolFromWatchlist', data: { symbol } });

function metaFor(userId: string, commandId = randomUUID()): CommandMeta {
  return { commandId, userId, at: '2025-03-14T15:09:26.535Z', actor: `user:${userId}` };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

/** A store that behaves as `store` except for the methods given. */
function decorate(store: EventStore, overrides: Partial<EventStore>): EventStore {
  return {
    appendToStream: (stream, events, options) => store.appendToStream(stream, events, options),
    readStream: (stream, options) => store.readStream(stream, options),
    readAll: (options) => store.readAll(options),
    subscribeToAll: (handlers, options) => store.subscribeToAll(handlers, options),
    headPosition: () => store.headPosition(),
    close: () => store.close(),
    ...overrides,
  };
}

/** `store` (with `overrides`) recording the revision each stream read starts from (undefined: the whole stream). */
function watchingReads(
  store: EventStore,
  overrides: Partial<EventStore> = {},
): { watched: EventStore; reads: (number | string | undefined)[] } {
  const reads: (number | string | undefined)[] = [];
  const watched = decorate(store, {
    readStream: (name, options) => {
      reads.push(options?.fromRevision);
      return store.readStream(name, options);
    },
    ...overrides,
  });
  return { watched, reads };
}

/** The watch-list decider with a count of its `decide` calls. */
function countingDecider(): {
  decider: Decider<WatchlistCommand, WatchlistEvent, WatchlistState>;
  decisions: () => number;
} {
  let calls = 0;
  return {
    decider: {
      ...watchlistDecider,
      decide: (command, state) => {
        calls++;
        return watchlistDecider.decide(command, state);
      },
    },
    decisions: () => calls,
  };
}

describe('handleCommand (SQLite event store)', () => {
  let dir: string;
  let store: EventStore;
  let userId: string;
  let stream: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sp-cmd-'));
    store = openSqliteEventStore({ file: join(dir, 'events.db') });
    userId = `u${randomUUID().replaceAll('-', '')}`;
    stream = streamName(WATCHLIST_CONCERN, userId);
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `use` with a second connection to the log (a process without this one's memos), then checks the chain. */
  async function withSecondConnection(use: (other: EventStore) => Promise<void>): Promise<void> {
    const other = openSqliteEventStore({ file: join(dir, 'events.db') });
    try {
      await use(other);
      expect(verifyStream(await other.readStream(stream))).to.equal(null);
    } finally {
      await other.close();
    }
  }

  it('lets two users send the same command id without a clash', async () => {
    const other = streamName(WATCHLIST_CONCERN, `${userId}x`);
    const first = await handleCommand(
      store,
      watchlistDecider,
      stream,
      add('NVDA'),
      metaFor(userId, '00000000-0000-4000-8000-000000000001'),
    );
    const second = await handleCommand(
      store,
      watchlistDecider,
      other,
      add('AAPL'),
      metaFor(`${userId}x`, '00000000-0000-4000-8000-000000000001'),
    );
    expect(first.state.symbols).to.deep.equal(['NVDA']);
    expect(second.state.symbols).to.deep.equal(['AAPL']);
    expect(second.replayed).to.equal(false);
  });

  it('creates the stream with the first command, with derived ids and the command metadata', async () => {
    const meta = metaFor(userId);
    const outcome = await handleCommand(store, watchlistDecider, stream, add('nvda', 'AAPL'), meta);

    const recorded = await store.readStream(stream);
    expect(recorded.map((e) => [e.id, e.type, e.data])).to.deep.equal([
      [eventIdFor(`${stream}/${meta.commandId}`, 0), 'SymbolAddedToWatchlist', { symbol: 'NVDA' }],
      [eventIdFor(`${stream}/${meta.commandId}`, 1), 'SymbolAddedToWatchlist', { symbol: 'AAPL' }],
    ]);
    for (const event of recorded) {
      const { hash, prevHash, ...rest } = event.metadata;
      expect(rest).to.deep.equal({
        userId,
        commandId: meta.commandId,
        correlationId: meta.commandId,
        causationId: meta.commandId,
        actor: `user:${userId}`,
        at: meta.at,
      });
      expect(hash).to.match(/^[0-9a-f]{64}$/);
      expect(prevHash).to.match(/^[0-9a-f]{64}$/);
    }
    expect(recorded[1]!.metadata.prevHash).to.equal(recorded[0]!.metadata.hash);
    expect(verifyStream(recorded)).to.equal(null);
    expect(outcome).to.deep.equal({
      state: { symbols: ['NVDA', 'AAPL'] },
      events: [
        { type: 'SymbolAddedToWatchlist', data: { symbol: 'NVDA' } },
        { type: 'SymbolAddedToWatchlist', data: { symbol: 'AAPL' } },
      ],
      revision: 1,
      position: recorded[1]!.position,
      replayed: false,
    });
  });

  it('carries a given correlation and causation id into the metadata', async () => {
    const meta = { ...metaFor(userId), correlationId: 'corr-1', causationId: 'cause-1' };
    await handleCommand(store, watchlistDecider, stream, add('IBM'), meta);
    const [event] = await store.readStream(stream);
    expect(event!.metadata).to.include({ correlationId: 'corr-1', causationId: 'cause-1' });
  });

  it('appends a later command at the revision it read and folds the whole stream', async () => {
    await handleCommand(store, watchlistDecider, stream, add('AAPL', 'MSFT'), metaFor(userId));
    const outcome = await handleCommand(store, watchlistDecider, stream, add('MSFT', 'IBM'), metaFor(userId));
    expect(outcome.state).to.deep.equal({ symbols: ['AAPL', 'MSFT', 'IBM'] });
    expect(outcome.events).to.deep.equal([{ type: 'SymbolAddedToWatchlist', data: { symbol: 'IBM' } }]);
    expect(outcome.revision).to.equal(2);
    expect((await store.readStream(stream)).length).to.equal(3);
  });

  it('appends nothing when the decider decides nothing, answering the state and revision it read', async () => {
    const first = await handleCommand(store, watchlistDecider, stream, add('AAPL'), metaFor(userId));
    const outcome = await handleCommand(store, watchlistDecider, stream, remove('MSFT'), metaFor(userId));
    expect(outcome).to.deep.equal({
      state: { symbols: ['AAPL'] },
      events: [],
      revision: 0,
      position: first.position,
      replayed: false,
    });
    expect((await store.readStream(stream)).length).to.equal(1);
  });

  it('answers no_stream and creates nothing when a first command decides nothing', async () => {
    const outcome = await handleCommand(store, watchlistDecider, stream, remove('AAPL'), metaFor(userId));
    expect(outcome).to.deep.equal({
      state: { symbols: [] },
      events: [],
      revision: 'no_stream',
      position: undefined,
      replayed: false,
    });
    expect(await rejection(store.readStream(stream))).to.be.instanceOf(StreamNotFoundError);
  });

  it('appends nothing for a retried command and answers as the first time, without deciding again', async () => {
    const { decider, decisions } = countingDecider();
    const meta = metaFor(userId);
    const first = await handleCommand(store, decider, stream, add('AAPL', 'MSFT'), meta);
    const retried = await handleCommand(store, decider, stream, add('AAPL', 'MSFT'), meta);

    expect(decisions()).to.equal(1);
    expect(retried).to.deep.equal({ ...first, replayed: true });
    expect((await store.readStream(stream)).length).to.equal(2);
  });

  it('answers a retried command as the first time even after later commands changed the stream', async () => {
    const meta = metaFor(userId);
    const first = await handleCommand(store, watchlistDecider, stream, add('AAPL'), meta);
    await handleCommand(store, watchlistDecider, stream, remove('AAPL'), metaFor(userId));
    await handleCommand(store, watchlistDecider, stream, add('IBM'), metaFor(userId));

    // Deciding again would add AAPL a second time, since it is no longer on the list.
    const retried = await handleCommand(store, watchlistDecider, stream, add('AAPL'), meta);
    expect(retried).to.deep.equal({ ...first, replayed: true });
    expect((await store.readStream(stream)).map((e) => e.type)).to.deep.equal([
      'SymbolAddedToWatchlist',
      'SymbolRemovedFromWatchlist',
      'SymbolAddedToWatchlist',
    ]);
  });

  it("folds only the events after those it folded before, another writer's included", async () => {
    const { watched, reads } = watchingReads(store);
    const other = openSqliteEventStore({ file: join(dir, 'events.db') });
    try {
      await handleCommand(watched, watchlistDecider, stream, add('AAPL', 'MSFT'), metaFor(userId));
      await handleCommand(watched, watchlistDecider, stream, add('TSLA'), metaFor(userId));
      await handleCommand(other, watchlistDecider, stream, add('IBM'), metaFor(userId));
      const outcome = await handleCommand(watched, watchlistDecider, stream, remove('MSFT'), metaFor(userId));

      expect(outcome.state.symbols).to.deep.equal(['AAPL', 'TSLA', 'IBM']);
      expect(outcome.revision).to.equal(4);
      // The whole stream while nothing was folded yet (empty), then from the last event this process appended
      // or folded on, read again to check it is still the stream's: revision 1 (MSFT, appended by the first
      // command), then revision 2 (TSLA, appended by the second), IBM after it being the other writer's.
      expect(reads).to.deep.equal([undefined, 1, 2]);
      expect((await store.readStream(stream)).map((e) => (e.data as { symbol: string }).symbol)).to.deep.equal([
        'AAPL',
        'MSFT',
        'TSLA',
        'IBM',
        'MSFT',
      ]);
      expect(verifyStream(await store.readStream(stream))).to.equal(null);
    } finally {
      await other.close();
    }
  });

  it('reads back only the last event it appended itself, and folds none of its events again', async () => {
    const returned: number[] = [];
    const watched = decorate(store, {
      readStream: async (name, options) => {
        const events = await store.readStream(name, options);
        returned.push(events.length);
        return events;
      },
    });
    let folds = 0;
    const decider: Decider<WatchlistCommand, WatchlistEvent, WatchlistState> = {
      ...watchlistDecider,
      evolve: (state, event) => {
        folds++;
        return watchlistDecider.evolve(state, event);
      },
    };
    await handleCommand(watched, decider, stream, add('AAPL', 'MSFT'), metaFor(userId));
    const first = folds;
    const second = await handleCommand(watched, decider, stream, add('TSLA'), metaFor(userId));
    const third = await handleCommand(watched, decider, stream, remove('AAPL'), metaFor(userId));

    // The first command found no stream; each later one read one event back (the previous command's last).
    expect(returned).to.deep.equal([1, 1]);
    // Each folded only the event it appended.
    expect(first).to.equal(2);
    expect(folds - first).to.equal(2);
    expect(second.state.symbols).to.deep.equal(['AAPL', 'MSFT', 'TSLA']);
    expect(third.state.symbols).to.deep.equal(['MSFT', 'TSLA']);
    expect(third.revision).to.equal(3);
    // The chain runs on from the events remembered, and a process without the memo folds the same state.
    expect(verifyStream(await store.readStream(stream))).to.equal(null);
    await withSecondConnection(async (other) => {
      const fresh = await handleCommand(other, watchlistDecider, stream, add('AAPL'), metaFor(userId));
      expect(fresh.state.symbols).to.deep.equal(['MSFT', 'TSLA', 'AAPL']);
    });
  });

  it("asks the store the stream's revision instead of reading it, and reads only what another writer appended", async () => {
    const { watched, reads } = watchingReads(store, { streamRevision: (name) => store.streamRevision!(name) });
    const other = openSqliteEventStore({ file: join(dir, 'events.db') });
    try {
      await handleCommand(watched, watchlistDecider, stream, add('AAPL', 'MSFT'), metaFor(userId));
      await handleCommand(watched, watchlistDecider, stream, add('TSLA'), metaFor(userId));
      await handleCommand(watched, watchlistDecider, stream, remove('AAPL'), metaFor(userId));
      // Nothing appended but by this handler: after the first (no stream yet), no read at all.
      expect(reads).to.deep.equal([undefined]);
      await handleCommand(other, watchlistDecider, stream, add('IBM'), metaFor(userId));
      const outcome = await handleCommand(watched, watchlistDecider, stream, remove('MSFT'), metaFor(userId));
      // The other writer's append moved the revision: read from the last event kept (revision 3, AAPL removed).
      expect(reads).to.deep.equal([undefined, 3]);
      expect(outcome.state.symbols).to.deep.equal(['TSLA', 'IBM']);
      expect(outcome.revision).to.equal(5);
      expect(verifyStream(await store.readStream(stream))).to.equal(null);
      // A retried command is still answered as the first time, from the kept ids.
      const meta = metaFor(userId);
      const first = await handleCommand(watched, watchlistDecider, stream, add('NVDA'), meta);
      expect(await handleCommand(watched, watchlistDecider, stream, add('NVDA'), meta)).to.deep.equal({
        ...first,
        replayed: true,
      });
    } finally {
      await other.close();
    }
  });

  it('past MEMO_IDS_LIMIT events asks the store whether a command was recorded, and still replays an old one', async () => {
    let asked = 0;
    const watched = decorate(store, {
      hasEvent: (name, id) => {
        asked++;
        return store.hasEvent!(name, id);
      },
    });
    const oldMeta = metaFor(userId);
    const old = await handleCommand(watched, watchlistDecider, stream, add('AAPL'), oldMeta);
    // Up to the limit the memo keeps every id: the store is not asked.
    for (let i = 1; i < MEMO_IDS_LIMIT; i++) {
      const command = i % 2 === 1 ? add('MSFT') : remove('MSFT');
      await handleCommand(watched, watchlistDecider, stream, command, metaFor(userId));
    }
    expect(asked).to.equal(0);
    await handleCommand(watched, watchlistDecider, stream, add('TSLA'), metaFor(userId));
    expect(asked).to.equal(0);
    // One event past the limit: the ids are dropped, and each command asks the store once.
    const next = await handleCommand(watched, watchlistDecider, stream, add('IBM'), metaFor(userId));
    expect(asked).to.equal(1);
    expect(next.revision).to.equal(MEMO_IDS_LIMIT + 1);
    expect(next.state.symbols).to.deep.equal(['AAPL', 'MSFT', 'TSLA', 'IBM']);

    const retried = await handleCommand(watched, watchlistDecider, stream, add('AAPL'), oldMeta);
    expect(asked).to.equal(2);
    expect(retried).to.deep.equal({ ...old, replayed: true });
    expect((await store.readStream(stream)).length).to.equal(MEMO_IDS_LIMIT + 2);
    // A process that reads the whole stream anew keeps no ids either.
    await withSecondConnection(async (other) => {
      const again = await handleCommand(other, watchlistDecider, stream, add('AAPL'), oldMeta);
      expect(again).to.deep.equal({ ...old, replayed: true });
      const later = await handleCommand(other, watchlistDecider, stream, remove('IBM'), metaFor(userId));
      expect(later.state.symbols).to.deep.equal(['AAPL', 'MSFT', 'TSLA']);
    });
  });

  it('tells by the store which stream holds an event', async () => {
    const outcome = await handleCommand(store, watchlistDecider, stream, add('AAPL'), metaFor(userId));
    const [event] = await store.readStream(stream);
    expect(outcome.revision).to.equal(0);
    expect(await store.hasEvent!(stream, event!.id)).to.equal(true);
    expect(await store.hasEvent!(`${stream}x`, event!.id)).to.equal(false);
    expect(await store.hasEvent!(stream, randomUUID())).to.equal(false);
  });

  it('retries a conflict by re-reading and re-deciding, so both of two racing commands take effect', async () => {
    // A second connection to the same file, and a barrier that lets neither handler past its first read
    // before both have read: both decide on the empty stream, and one of them must lose the append.
    const other = openSqliteEventStore({ file: join(dir, 'events.db') });
    try {
      let firstReadsPending = 2;
      let releaseReads!: () => void;
      const bothRead = new Promise<void>((resolve) => (releaseReads = resolve));
      let conflicts = 0;
      const racing = (underlying: EventStore): EventStore => {
        let firstRead = true;
        return decorate(underlying, {
          readStream: async (name, options) => {
            const result = await underlying.readStream(name, options).then(
              (events) => ({ events }),
              (error: unknown) => ({ error }),
            );
            if (firstRead) {
              firstRead = false;
              if (--firstReadsPending === 0) releaseReads();
              await bothRead;
            }
            if ('error' in result) throw result.error;
            return result.events;
          },
          appendToStream: async (name, events, options) => {
            try {
              return await underlying.appendToStream(name, events, options);
            } catch (error) {
              if (error instanceof WrongExpectedRevisionError) conflicts++;
              throw error;
            }
          },
        });
      };

      const [a, b] = await Promise.all([
        handleCommand(racing(store), watchlistDecider, stream, add('AAPL'), metaFor(userId)),
        handleCommand(racing(other), watchlistDecider, stream, add('MSFT', 'AAPL'), metaFor(userId)),
      ]);

      expect(conflicts).to.equal(1);
      const final = await store.readStream(stream);
      expect(final.map((e) => e.data)).to.have.deep.members([{ symbol: 'AAPL' }, { symbol: 'MSFT' }]);
      expect(final.length).to.equal(2);
      const later = a.revision > b.revision ? a : b;
      expect([...later.state.symbols].sort()).to.deep.equal(['AAPL', 'MSFT']);
      expect([a.revision, b.revision].sort()).to.deep.equal([0, 1]);
    } finally {
      await other.close();
    }
  });

  it('rethrows the conflict once maxRetries re-reads have all been overtaken', async () => {
    let reads = 0;
    const overtaken = decorate(store, {
      readStream: async (name, options) => {
        const result = await store.readStream(name, options).then(
          (events) => ({ events }),
          (error: unknown) => ({ error }),
        );
        reads++;
        // Another writer appends right after every read, so every decision is stale.
        await store.appendToStream(name, [
          { id: randomUUID(), type: 'SymbolAddedToWatchlist', data: { symbol: `X${reads}` } },
        ]);
        if ('error' in result) throw result.error;
        return result.events;
      },
    });
    const error = await rejection(
      handleCommand(overtaken, watchlistDecider, stream, add('AAPL'), metaFor(userId), { maxRetries: 2 }),
    );
    expect(error).to.be.instanceOf(WrongExpectedRevisionError);
    expect(reads).to.equal(3);
    expect((await store.readStream(stream)).map((e) => e.data)).to.deep.equal([
      { symbol: 'X1' },
      { symbol: 'X2' },
      { symbol: 'X3' },
    ]);
  });

  it('propagates a DomainError and creates no stream', async () => {
    const error = await rejection(
      handleCommand(store, watchlistDecider, stream, add('AAPL', 'NO WAY'), metaFor(userId)),
    );
    expect(error).to.be.instanceOf(DomainError);
    expect((error as DomainError).code).to.equal('invalid_symbol');
    expect(await rejection(store.readStream(stream))).to.be.instanceOf(StreamNotFoundError);
  });

  it('propagates a DomainError and appends nothing to an existing stream', async () => {
    await handleCommand(store, watchlistDecider, stream, add('AAPL'), metaFor(userId));
    const error = await rejection(handleCommand(store, watchlistDecider, stream, add(), metaFor(userId)));
    expect((error as DomainError).code).to.equal('empty');
    expect((await store.readStream(stream)).length).to.equal(1);
  });

  it('keeps streams of different users apart', async () => {
    const otherUser = `u${randomUUID().replaceAll('-', '')}`;
    const otherStream = streamName(WATCHLIST_CONCERN, otherUser);
    await handleCommand(store, watchlistDecider, stream, add('AAPL'), metaFor(userId));
    const outcome = await handleCommand(store, watchlistDecider, otherStream, add('MSFT'), metaFor(otherUser));
    expect(outcome.state).to.deep.equal({ symbols: ['MSFT'] });
    expect(outcome.revision).to.equal(0);
  });

  it('refuses a maxRetries that is not a whole number >= 0', async () => {
    const error = await rejection(
      handleCommand(store, watchlistDecider, stream, add('AAPL'), metaFor(userId), { maxRetries: -1 }),
    );
    expect(error).to.be.instanceOf(RangeError);
    expect(await rejection(store.readStream(stream))).to.be.instanceOf(StreamNotFoundError);
  });
});
