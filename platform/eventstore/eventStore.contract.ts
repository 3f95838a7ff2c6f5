import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import {
  START,
  StreamNotFoundError,
  WrongExpectedRevisionError,
  comparePositions,
  type EventData,
  type EventStore,
  type LogPosition,
  type RecordedEvent,
  type SubscriptionFilter,
} from './port.ts';

/** What a contract run needs from an adapter: a store, and how to dispose of it. */
export interface ContractSubject {
  /** The store under test; the log may already hold other events. */
  readonly store: EventStore;
  /** Releases the store and whatever it started. */
  close(): Promise<void>;
}

function event(type: string, data: Record<string, unknown> = {}, metadata: Record<string, string> = {}): EventData {
  return { id: randomUUID(), type, data, metadata };
}

function uniqueStream(concern = 'contract'): string {
  return `${concern}-${randomUUID().replaceAll('-', '')}`;
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

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

/** Collects the events a subscription delivers. */
function collect(
  store: EventStore,
  fromPosition: LogPosition,
  filter?: SubscriptionFilter,
): { events: RecordedEvent[]; caughtUpAfter: number[]; subscription: ReturnType<EventStore['subscribeToAll']> } {
  const events: RecordedEvent[] = [];
  const caughtUpAfter: number[] = [];
  const subscription = store.subscribeToAll(
    {
      onEvent: (e) => {
        events.push(e);
      },
      onCaughtUp: () => {
        caughtUpAfter.push(events.length);
      },
    },
    filter ? { fromPosition, filter } : { fromPosition },
  );
  return { events, caughtUpAfter, subscription };
}

/**
 * The behaviour every EventStore adapter must have. Streams are unique per test, and the log may hold
 * other events, so a real server can run it too.
 */
export function eventStoreContract(name: string, open: () => Promise<ContractSubject>): void {
  describe(`EventStore contract (${name})`, function () {
    let subject: ContractSubject;
    let store: EventStore;

    before(async function () {
      subject = await open();
      store = subject.store;
    });

    after(async function () {
      await subject?.close();
    });

    describe('appendToStream', function () {
      it('creates a stream with no_stream and answers the last revision and its position', async function () {
        const stream = uniqueStream();
        const result = await store.appendToStream(stream, [event('A'), event('B')], { expectedRevision: 'no_stream' });
        expect(result.nextExpectedRevision).to.equal(1);
        const read = await store.readStream(stream);
        expect(read.map((e) => e.revision)).to.deep.equal([0, 1]);
        expect(read[1]!.position).to.deep.equal(result.position);
      });

      it('refuses no_stream when the stream exists, naming the actual revision', async function () {
        const stream = uniqueStream();
        await store.appendToStream(stream, [event('A'), event('B')]);
        const error = await rejection(store.appendToStream(stream, [event('C')], { expectedRevision: 'no_stream' }));
        expect(error).to.be.instanceOf(WrongExpectedRevisionError);
        expect((error as WrongExpectedRevisionError).stream).to.equal(stream);
        expect((error as WrongExpectedRevisionError).actual).to.equal(1);
      });

      it('refuses stream_exists on a missing stream and accepts it on an existing one', async function () {
        const stream = uniqueStream();
        const error = await rejection(
          store.appendToStream(stream, [event('A')], { expectedRevision: 'stream_exists' }),
        );
        expect(error).to.be.instanceOf(WrongExpectedRevisionError);
        expect((error as WrongExpectedRevisionError).actual).to.equal('no_stream');
        await store.appendToStream(stream, [event('A')]);
        const ok = await store.appendToStream(stream, [event('B')], { expectedRevision: 'stream_exists' });
        expect(ok.nextExpectedRevision).to.equal(1);
      });

      it('appends at the expected revision and refuses a stale one', async function () {
        const stream = uniqueStream();
        const first = await store.appendToStream(stream, [event('A')], { expectedRevision: 'no_stream' });
        const second = await store.appendToStream(stream, [event('B'), event('C')], {
          expectedRevision: first.nextExpectedRevision,
        });
        expect(second.nextExpectedRevision).to.equal(2);
        expect(comparePositions(second.position, first.position)).to.be.greaterThan(0);
        const error = await rejection(store.appendToStream(stream, [event('D')], { expectedRevision: 0 }));
        expect(error).to.be.instanceOf(WrongExpectedRevisionError);
        expect((error as WrongExpectedRevisionError).expected).to.equal(0);
        expect((error as WrongExpectedRevisionError).actual).to.equal(2);
        expect(await store.readStream(stream)).to.have.length(3);
      });

      it('refuses a revision on a missing stream', async function () {
        const error = await rejection(store.appendToStream(uniqueStream(), [event('A')], { expectedRevision: 3 }));
        expect(error).to.be.instanceOf(WrongExpectedRevisionError);
        expect((error as WrongExpectedRevisionError).actual).to.equal('no_stream');
      });

      it('appends with any whatever the stream holds', async function () {
        const stream = uniqueStream();
        await store.appendToStream(stream, [event('A')], { expectedRevision: 'any' });
        const result = await store.appendToStream(stream, [event('B')]);
        expect(result.nextExpectedRevision).to.equal(1);
      });

      it('lets exactly one of two writers at the same revision win', async function () {
        const stream = uniqueStream();
        const base = await store.appendToStream(stream, [event('A')]);
        const outcomes = await Promise.allSettled([
          store.appendToStream(stream, [event('B')], { expectedRevision: base.nextExpectedRevision }),
          store.appendToStream(stream, [event('C')], { expectedRevision: base.nextExpectedRevision }),
        ]);
        const won = outcomes.filter((o) => o.status === 'fulfilled');
        const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
        expect(won).to.have.length(1);
        expect(lost).to.have.length(1);
        expect(lost[0]!.reason).to.be.instanceOf(WrongExpectedRevisionError);
        expect(await store.readStream(stream)).to.have.length(2);
      });

      it('treats a retried append with the same event ids as done, answering the original result', async function () {
        const stream = uniqueStream();
        const events = [event('A', { n: 1 }), event('B', { n: 2 })];
        const original = await store.appendToStream(stream, events, { expectedRevision: 'no_stream' });
        const retried = await store.appendToStream(stream, events, { expectedRevision: 'no_stream' });
        expect(retried).to.deep.equal(original);
        const retriedAny = await store.appendToStream(stream, events);
        expect(retriedAny.nextExpectedRevision).to.equal(original.nextExpectedRevision);
        expect(await store.readStream(stream)).to.have.length(2);
      });

      it('keeps a retry idempotent after later appends to the stream', async function () {
        const stream = uniqueStream();
        const events = [event('A')];
        const original = await store.appendToStream(stream, events, { expectedRevision: 'no_stream' });
        await store.appendToStream(stream, [event('B')], { expectedRevision: 0 });
        const retried = await store.appendToStream(stream, events, { expectedRevision: 'no_stream' });
        expect(retried.nextExpectedRevision).to.equal(original.nextExpectedRevision);
        expect(await store.readStream(stream)).to.have.length(2);
      });
    });

    describe('readStream', function () {
      let stream: string;
      let appended: EventData[];

      before(async function () {
        stream = uniqueStream();
        appended = [0, 1, 2, 3, 4].map((n) => event(n % 2 ? 'Odd' : 'Even', { n, text: `é ${n}` }, { userId: 'u1' }));
        await store.appendToStream(stream, appended, { expectedRevision: 'no_stream' });
      });

      it('reads forwards with ids, types, data, metadata, revisions and increasing positions', async function () {
        const read = await store.readStream(stream);
        expect(read.map((e) => e.id)).to.deep.equal(appended.map((e) => e.id));
        expect(read.map((e) => e.type)).to.deep.equal(['Even', 'Odd', 'Even', 'Odd', 'Even']);
        expect(read[3]!.data).to.deep.equal({ n: 3, text: 'é 3' });
        expect(read[3]!.metadata).to.include({ userId: 'u1' });
        expect(read.every((e) => e.streamId === stream)).to.equal(true);
        expect(read.map((e) => e.revision)).to.deep.equal([0, 1, 2, 3, 4]);
        for (let i = 1; i < read.length; i++) {
          expect(comparePositions(read[i]!.position, read[i - 1]!.position)).to.be.greaterThan(0);
        }
        expect(Number.isNaN(Date.parse(read[0]!.created))).to.equal(false);
      });

      it('reads backwards from the end', async function () {
        const read = await store.readStream(stream, { direction: 'backwards' });
        expect(read.map((e) => e.revision)).to.deep.equal([4, 3, 2, 1, 0]);
      });

      it('reads forwards from a revision with a count', async function () {
        const read = await store.readStream(stream, { fromRevision: 1, maxCount: 2 });
        expect(read.map((e) => e.revision)).to.deep.equal([1, 2]);
      });

      it('reads backwards from a revision with a count', async function () {
        const read = await store.readStream(stream, { direction: 'backwards', fromRevision: 3, maxCount: 2 });
        expect(read.map((e) => e.revision)).to.deep.equal([3, 2]);
      });

      it('reads the last event with a backwards count of one', async function () {
        const read = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
        expect(read.map((e) => e.id)).to.deep.equal([appended[4]!.id]);
      });

      it('answers nothing past the end of an existing stream', async function () {
        expect(await store.readStream(stream, { fromRevision: 10 })).to.deep.equal([]);
      });

      it('refuses a missing stream with StreamNotFoundError', async function () {
        const missing = uniqueStream();
        const error = await rejection(store.readStream(missing));
        expect(error).to.be.instanceOf(StreamNotFoundError);
        expect((error as StreamNotFoundError).stream).to.equal(missing);
      });
    });

    describe('readAll and headPosition', function () {
      it('reads after a position, exclusive, in order, with a count', async function () {
        const before = await store.headPosition();
        const stream = uniqueStream();
        const events = [event('A'), event('B'), event('C')];
        await store.appendToStream(stream, events);
        const mine = (await store.readAll({ fromPosition: before })).filter((e) => e.streamId === stream);
        expect(mine.map((e) => e.id)).to.deep.equal(events.map((e) => e.id));
        const afterFirst = await store.readAll({ fromPosition: mine[0]!.position, maxCount: 1 });
        expect(afterFirst).to.have.length(1);
        expect(comparePositions(afterFirst[0]!.position, mine[0]!.position)).to.be.greaterThan(0);
        expect(afterFirst[0]!.id).to.not.equal(mine[0]!.id);
      });

      it('never returns system events', async function () {
        const all = await store.readAll({ fromPosition: START, maxCount: 500 });
        expect(all.some((e) => e.type.startsWith('$'))).to.equal(false);
      });

      it('moves the head to the position of the last append', async function () {
        const before = await store.headPosition();
        const result = await store.appendToStream(uniqueStream(), [event('A')]);
        const after = await store.headPosition();
        expect(comparePositions(after, before)).to.be.greaterThan(0);
        expect(comparePositions(after, result.position)).to.be.at.least(0);
      });
    });

    describe('subscribeToAll', function () {
      it('delivers history then live events, filtered by stream prefix, and signals caught up', async function () {
        const concern = `sub${randomUUID().slice(0, 8)}`;
        const from = await store.headPosition();
        const mine = uniqueStream(concern);
        await store.appendToStream(mine, [event('A'), event('B')]);
        await store.appendToStream(uniqueStream('other'), [event('A')]);
        const { events, caughtUpAfter, subscription } = collect(store, from, { streamPrefixes: [`${concern}-`] });
        await subscription.caughtUp;
        expect(caughtUpAfter).to.deep.equal([2]);
        expect(events.map((e) => e.type)).to.deep.equal(['A', 'B']);
        await store.appendToStream(mine, [event('C')]);
        await until(() => events.length === 3);
        expect(events.map((e) => e.revision)).to.deep.equal([0, 1, 2]);
        await subscription.stop();
      });

      it('filters by event type', async function () {
        const from = await store.headPosition();
        const stream = uniqueStream();
        const kept = `Kept${randomUUID().slice(0, 8)}`;
        await store.appendToStream(stream, [event(kept), event('Dropped'), event(kept)]);
        const { events, subscription } = collect(store, from, { eventTypes: [kept] });
        await subscription.caughtUp;
        await until(() => events.length === 2);
        expect(events.every((e) => e.type === kept && e.streamId === stream)).to.equal(true);
        await subscription.stop();
      });

      it('starts strictly after the given position', async function () {
        const stream = uniqueStream();
        await store.appendToStream(stream, [event('A'), event('B'), event('C')]);
        const read = await store.readStream(stream);
        const concern = stream.split('-')[0]!;
        const { events, subscription } = collect(store, read[0]!.position, { streamPrefixes: [`${concern}-`] });
        await subscription.caughtUp;
        const mine = events.filter((e) => e.streamId === stream);
        expect(mine.map((e) => e.type)).to.deep.equal(['B', 'C']);
        await subscription.stop();
      });

      it('never delivers system events', async function () {
        const { events, subscription } = collect(store, START);
        await subscription.caughtUp;
        expect(events.length).to.be.greaterThan(0);
        expect(events.some((e) => e.type.startsWith('$'))).to.equal(false);
        await subscription.stop();
      });

      it('awaits each handler before delivering the next event', async function () {
        const from = await store.headPosition();
        const concern = `seq${randomUUID().slice(0, 8)}`;
        const stream = uniqueStream(concern);
        await store.appendToStream(stream, [event('A'), event('B'), event('C')]);
        let running = 0;
        let overlapped = false;
        const seen: string[] = [];
        const subscription = store.subscribeToAll(
          {
            onEvent: async (e) => {
              running += 1;
              if (running > 1) overlapped = true;
              await new Promise((r) => setTimeout(r, 5));
              seen.push(e.type);
              running -= 1;
            },
          },
          { fromPosition: from, filter: { streamPrefixes: [`${concern}-`] } },
        );
        await subscription.caughtUp;
        expect(seen).to.deep.equal(['A', 'B', 'C']);
        expect(overlapped).to.equal(false);
        await subscription.stop();
      });

      it('delivers an event appended while a handler was at work, with no later append to wake it', async function () {
        const concern = `busy${randomUUID().slice(0, 8)}`;
        const stream = uniqueStream(concern);
        const from = await store.headPosition();
        let entered!: () => void;
        const inFirst = new Promise<void>((resolve) => (entered = resolve));
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        const seen: string[] = [];
        const subscription = store.subscribeToAll(
          {
            onEvent: async (e) => {
              seen.push(e.type);
              if (e.type !== 'A') return;
              entered();
              await released;
            },
          },
          { fromPosition: from, filter: { streamPrefixes: [`${concern}-`] } },
        );
        await subscription.caughtUp;
        await store.appendToStream(stream, [event('A')]);
        await inFirst;
        // Appended, and its wake given, while the handler of A is still at work.
        await store.appendToStream(stream, [event('B')]);
        release();
        await until(() => seen.length === 2);
        expect(seen).to.deep.equal(['A', 'B']);
        await subscription.stop();
      });

      it('delivers nothing after stop', async function () {
        const concern = `stop${randomUUID().slice(0, 8)}`;
        const stream = uniqueStream(concern);
        const from = await store.headPosition();
        const { events, subscription } = collect(store, from, { streamPrefixes: [`${concern}-`] });
        await subscription.caughtUp;
        await store.appendToStream(stream, [event('A')]);
        await until(() => events.length === 1);
        await subscription.stop();
        await store.appendToStream(stream, [event('B')]);
        await new Promise((r) => setTimeout(r, 100));
        expect(events).to.have.length(1);
      });

      it('delivers a live event within 50 ms of its append', async function () {
        const concern = `live${randomUUID().slice(0, 8)}`;
        const from = await store.headPosition();
        let seenAt = 0;
        const subscription = store.subscribeToAll(
          {
            onEvent: () => {
              seenAt = Date.now();
            },
          },
          { fromPosition: from, filter: { streamPrefixes: [`${concern}-`] } },
        );
        await subscription.caughtUp;
        const sentAt = Date.now();
        await store.appendToStream(uniqueStream(concern), [event('A')]);
        await until(() => seenAt > 0);
        expect(seenAt - sentAt).to.be.below(50);
        await subscription.stop();
      });
    });
  });
}
