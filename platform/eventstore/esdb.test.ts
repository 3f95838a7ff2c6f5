import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { EventStoreDBClient, START as ESDB_START } from '@eventstore/db-client';
import { createEsdbEventStore, isEventStoreUnreachable, type EsdbEventStore } from './esdb.ts';
import { startFakeEsdb, type FakeEsdb } from './esdbFakeServer.ts';
import { eventStoreContract } from './eventStore.contract.ts';
import { START, comparePositions, isAfter, type EventData, type LogPosition, type RecordedEvent } from './port.ts';

function event(type: string, data: Record<string, unknown> = {}): EventData {
  return { id: randomUUID(), type, data };
}

function until(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (predicate()) resolve();
      else if (Date.now() - started > timeoutMs) reject(new Error(`condition not met in ${timeoutMs} ms`));
      else setTimeout(check, 2);
    };
    check();
  });
}

eventStoreContract('esdb', async () => {
  const fake = await startFakeEsdb();
  const store = createEsdbEventStore(fake.url);
  return {
    store,
    close: async () => {
      await store.close();
      await fake.stop();
    },
  };
});

const realServer = process.env.EVENTSTORE_URL;
if (realServer) {
  eventStoreContract('esdb, real server', () => {
    const store = createEsdbEventStore(realServer);
    return Promise.resolve({ store, close: () => store.close() });
  });
} else {
  describe('EventStore contract (esdb, real server)', function () {
    before(function () {
      console.log('    skipped: EVENTSTORE_URL is unset, so the contract does not run against a real EventStoreDB');
      this.skip();
    });

    it('runs the contract against the server at EVENTSTORE_URL', function () {});
  });
}

describe('EsdbEventStore out of reach', function () {
  it('fails a call to a server that stopped as one out of reach, which may succeed later', async function () {
    this.timeout(30_000);
    const fake = await startFakeEsdb();
    const store = createEsdbEventStore(fake.url);
    try {
      await store.appendToStream(`reach-${randomUUID()}`, [event('Reached')]);
      await fake.stop();
      const failure = await store.headPosition().then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure, 'the call failed').to.be.instanceOf(Error);
      expect(isEventStoreUnreachable(failure)).to.equal(true);
      expect(isEventStoreUnreachable(new Error('refused'))).to.equal(false);
    } finally {
      await store.close();
    }
  });
});

describe('EsdbEventStore on the fake server', function () {
  let fake: FakeEsdb;
  let store: EsdbEventStore;
  let raw: EventStoreDBClient;

  before(async function () {
    fake = await startFakeEsdb();
    store = createEsdbEventStore(fake.url);
    raw = EventStoreDBClient.connectionString(fake.url);
  });

  after(async function () {
    await store.close();
    await raw.dispose();
    await fake.stop();
  });

  describe('positions', function () {
    let stream: string;
    let read: RecordedEvent[];
    let appendedAt: LogPosition;

    before(async function () {
      stream = `pos-${randomUUID()}`;
      const result = await store.appendToStream(stream, [event('A'), event('B'), event('C')]);
      appendedAt = result.position;
      read = await store.readStream(stream);
    });

    it('keeps the commit of the transaction and the prepare of each event', function () {
      const [a, b, c] = read;
      expect(b!.position.commit).to.equal(a!.position.commit);
      expect(c!.position.commit).to.equal(a!.position.commit);
      expect(b!.position.prepare).to.be.greaterThan(b!.position.commit);
      expect(c!.position.prepare).to.be.greaterThan(b!.position.prepare);
      expect(appendedAt).to.deep.equal(c!.position);
    });

    it('maps positions as the server stores them', async function () {
      const onServer: Array<{ commit: bigint; prepare: bigint }> = [];
      for await (const resolved of raw.readStream(stream)) onServer.push(resolved.event!.position!);
      expect(read.map((e) => e.position)).to.deep.equal(
        onServer.map((p) => ({ commit: Number(p.commit), prepare: Number(p.prepare) })),
      );
    });

    it('reads $all strictly after a position that shares its commit with the next events', async function () {
      const after = await store.readAll({ fromPosition: read[0]!.position, maxCount: 2 });
      expect(after.map((e) => e.id)).to.deep.equal([read[1]!.id, read[2]!.id]);
    });

    it('subscribes from a position between two events without losing the next one', async function () {
      const between = { commit: read[0]!.position.commit, prepare: read[0]!.position.prepare + 1 };
      expect(isAfter(read[1]!.position, between)).to.equal(true);
      const seen: string[] = [];
      const subscription = store.subscribeToAll(
        { onEvent: (e) => void seen.push(e.id) },
        { fromPosition: between, filter: { streamPrefixes: [stream] } },
      );
      await subscription.caughtUp;
      await subscription.stop();
      expect(seen).to.deep.equal([read[1]!.id, read[2]!.id]);
    });

    it('answers the original position to a retry the server acknowledges without one', async function () {
      const retried = `retry-${randomUUID()}`;
      const events = [event('A'), event('B')];
      const original = await store.appendToStream(retried, events, { expectedRevision: 'no_stream' });
      const rawRetry = await raw.appendToStream(
        retried,
        events.map((e) => ({
          id: e.id,
          type: e.type,
          contentType: 'application/json' as const,
          data: {},
          metadata: {},
        })),
        { expectedRevision: 'no_stream' },
      );
      expect(rawRetry.position).to.equal(undefined);
      expect(await store.appendToStream(retried, events, { expectedRevision: 'no_stream' })).to.deep.equal(original);
    });
  });

  describe('system events', function () {
    it('are in the server log but not in readAll', async function () {
      const stream = `sys-${randomUUID()}`;
      await store.appendToStream(stream, [event('A')]);
      const types: string[] = [];
      for await (const resolved of raw.readAll({ fromPosition: ESDB_START })) types.push(resolved.event!.type);
      expect(types).to.include('$settings');
      expect(types).to.include('$>');
      const all = await store.readAll();
      expect(all.length).to.be.greaterThan(0);
      expect(all.some((e) => e.type.startsWith('$'))).to.equal(false);
    });

    it('count no slot of readAll maxCount', async function () {
      const from = await store.headPosition();
      const first = `count-${randomUUID()}`;
      const second = `count-${randomUUID()}`;
      // Each new stream also puts a system link event in $all, between these events.
      await store.appendToStream(first, [event('A')]);
      await store.appendToStream(second, [event('B')]);
      const read = await store.readAll({ fromPosition: from, maxCount: 2 });
      expect(read.map((e) => e.streamId)).to.deep.equal([first, second]);
    });

    it('are not delivered even when a stream prefix lets them through the server filter', async function () {
      const from = await store.headPosition();
      const seen: RecordedEvent[] = [];
      const checkpoints: LogPosition[] = [];
      const subscription = store.subscribeToAll(
        { onEvent: (e) => void seen.push(e), onCheckpoint: (p) => void checkpoints.push(p) },
        { fromPosition: from, filter: { streamPrefixes: ['$'] } },
      );
      await subscription.caughtUp;
      await store.appendToStream(`sys-${randomUUID()}`, [event('A')]);
      await store.appendToStream(`$user-${randomUUID()}`, [event('Visible')]);
      await until(() => seen.length === 1);
      await subscription.stop();
      expect(seen.map((e) => e.type)).to.deep.equal(['Visible']);
    });

    it('are refused on append', async function () {
      const error = await store.appendToStream(`sys-${randomUUID()}`, [event('$metadata')]).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(Error);
      expect((error as Error).message).to.contain('reserved');
    });
  });

  describe('checkpoints', function () {
    it('reports progress through events the filter drops, after the events it delivered', async function () {
      const kept = `Kept${randomUUID().slice(0, 8)}`;
      const stream = `cp-${randomUUID()}`;
      const from = await store.headPosition();
      await store.appendToStream(stream, [event(kept)]);
      await store.appendToStream(
        stream,
        Array.from({ length: 80 }, () => event('Dropped')),
      );
      const head = await store.headPosition();
      const log: Array<{ kind: 'event' | 'checkpoint'; position: LogPosition }> = [];
      const subscription = store.subscribeToAll(
        {
          onEvent: async (e) => {
            await new Promise((r) => setTimeout(r, 20));
            log.push({ kind: 'event', position: e.position });
          },
          onCheckpoint: (position) => void log.push({ kind: 'checkpoint', position }),
        },
        { fromPosition: from, filter: { eventTypes: [kept] } },
      );
      await subscription.caughtUp;
      await subscription.stop();
      const checkpoints = log.filter((l) => l.kind === 'checkpoint');
      expect(log[0]!.kind).to.equal('event');
      expect(checkpoints.length).to.be.at.least(2);
      for (let i = 1; i < log.length; i++) {
        expect(comparePositions(log[i]!.position, log[i - 1]!.position)).to.be.greaterThan(0);
      }
      expect(comparePositions(checkpoints.at(-1)!.position, head)).to.be.at.most(0);
    });

    it('runs caught up only after the handlers of the history', async function () {
      const concern = `cu${randomUUID().slice(0, 8)}`;
      const from = await store.headPosition();
      await store.appendToStream(`${concern}-1`, [event('A'), event('B'), event('C')]);
      const order: string[] = [];
      const subscription = store.subscribeToAll(
        {
          onEvent: async (e) => {
            await new Promise((r) => setTimeout(r, 15));
            order.push(e.type);
          },
          onCaughtUp: () => void order.push('caughtUp'),
        },
        { fromPosition: from, filter: { streamPrefixes: [`${concern}-`] } },
      );
      await subscription.caughtUp;
      await subscription.stop();
      expect(order).to.deep.equal(['A', 'B', 'C', 'caughtUp']);
    });
  });

  describe('failures', function () {
    it('stops and reports a handler that throws', async function () {
      const concern = `fail${randomUUID().slice(0, 8)}`;
      const from = await store.headPosition();
      await store.appendToStream(`${concern}-1`, [event('A'), event('B')]);
      const seen: string[] = [];
      let reported: Error | undefined;
      store.subscribeToAll(
        {
          onEvent: (e) => {
            seen.push(e.type);
            throw new Error('handler failed');
          },
          onError: (error) => {
            reported = error;
          },
        },
        { fromPosition: from, filter: { streamPrefixes: [`${concern}-`] } },
      );
      await until(() => reported !== undefined);
      await new Promise((r) => setTimeout(r, 50));
      expect(reported!.message).to.equal('handler failed');
      expect(seen).to.deep.equal(['A']);
    });

    it('starts from the beginning of the log with START', async function () {
      const all = await store.readAll({ fromPosition: START, maxCount: 1 });
      const seen: RecordedEvent[] = [];
      const subscription = store.subscribeToAll({ onEvent: (e) => void seen.push(e) });
      await subscription.caughtUp;
      await subscription.stop();
      expect(seen[0]!.id).to.equal(all[0]!.id);
    });
  });
});
