import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { ReadModelStateLostError, type Checkpoint, type ReadModelStore } from './port.ts';

/** A store under test. */
export interface ContractSubject {
  /** The store the tests use. */
  readonly store: ReadModelStore;
  /** Another store over the same data (a second connection or file handle), closed by the test. */
  openAnother(): Promise<ReadModelStore>;
  /** Closes the store and removes its data. */
  close(): Promise<void>;
}

/**
 * The behaviour every ReadModelStore adapter must have. Collections and consumers are unique per test,
 * so adapters may share one store across tests.
 */
export function readModelStoreContract(name: string, open: () => Promise<ContractSubject>): void {
  describe(`ReadModelStore contract (${name})`, function () {
    let subject: ContractSubject;
    let store: ReadModelStore;
    const unique = (what: string): string => `${what}${randomUUID().slice(0, 8)}`;
    const at = (n: number, version = 1): Checkpoint => ({ position: { commit: n, prepare: n }, version });

    /** The error `commit` refused with, or a failure when it did not refuse. */
    async function refusal(commit: Promise<void>): Promise<ReadModelStateLostError> {
      try {
        await commit;
      } catch (error) {
        expect(error).to.be.instanceOf(ReadModelStateLostError);
        return error as ReadModelStateLostError;
      }
      expect.fail('the commit was not refused');
    }

    /** Runs `work` with another store over the same data, then closes it. */
    async function withAnother(work: (other: ReadModelStore) => Promise<void>): Promise<void> {
      const other = await subject.openAnother();
      try {
        await work(other);
      } finally {
        await other.close();
      }
    }

    before(async function () {
      subject = await open();
      store = subject.store;
    });

    after(async function () {
      await subject?.close();
    });

    it('commits documents with the checkpoint and reads them back', async function () {
      const collection = unique('docs');
      const consumer = unique('consumer');
      await store.commit(consumer, { position: { commit: 7, prepare: 5 }, version: 2 }, [
        { collection, key: 'u1', doc: { symbols: ['AAPL'], position: '7/5' } },
        { collection, key: 'u2', doc: { symbols: [] } },
      ]);
      expect(await store.get(collection, 'u1')).to.deep.equal({ symbols: ['AAPL'], position: '7/5' });
      expect(await store.readCheckpoint(consumer)).to.deep.equal({ position: { commit: 7, prepare: 5 }, version: 2 });
      expect((await store.listCheckpoints()).get(consumer)?.version).to.equal(2);
    });

    it('answers undefined for a missing document and null for a missing checkpoint', async function () {
      expect(await store.get(unique('docs'), 'nobody')).to.equal(undefined);
      expect(await store.readCheckpoint(unique('consumer'))).to.equal(null);
    });

    it('deletes a document written as null', async function () {
      const collection = unique('docs');
      const consumer = unique('consumer');
      await store.commit(consumer, { position: { commit: 1, prepare: 1 }, version: 1 }, [
        { collection, key: 'k', doc: { a: 1 } },
      ]);
      await store.commit(consumer, { position: { commit: 2, prepare: 2 }, version: 1 }, [
        { collection, key: 'k', doc: null },
      ]);
      expect(await store.get(collection, 'k')).to.equal(undefined);
      expect((await store.readCheckpoint(consumer))?.position).to.deep.equal({ commit: 2, prepare: 2 });
    });

    it('lists a collection in key order, by prefix and with a limit', async function () {
      const collection = unique('docs');
      await store.commit(unique('consumer'), { position: { commit: 1, prepare: 1 }, version: 1 }, [
        { collection, key: 'b:2', doc: 2 },
        { collection, key: 'a:1', doc: 1 },
        { collection, key: 'b:1', doc: 3 },
      ]);
      expect((await store.list(collection)).map((d) => d.key)).to.deep.equal(['a:1', 'b:1', 'b:2']);
      expect(await store.list(collection, { prefix: 'b:' })).to.deep.equal([
        { key: 'b:1', doc: 3 },
        { key: 'b:2', doc: 2 },
      ]);
      expect(await store.list(collection, { limit: 1 })).to.have.length(1);
    });

    it('resets a consumer: its checkpoint and its collections go, others stay', async function () {
      const mine = unique('docs');
      const theirs = unique('docs');
      const consumer = unique('consumer');
      const other = unique('consumer');
      await store.commit(consumer, { position: { commit: 3, prepare: 3 }, version: 1 }, [
        { collection: mine, key: 'k', doc: 1 },
      ]);
      await store.commit(other, { position: { commit: 3, prepare: 3 }, version: 1 }, [
        { collection: theirs, key: 'k', doc: 1 },
      ]);
      await store.reset(consumer, [mine]);
      expect(await store.get(mine, 'k')).to.equal(undefined);
      expect(await store.readCheckpoint(consumer)).to.equal(null);
      expect(await store.get(theirs, 'k')).to.equal(1);
      expect(await store.readCheckpoint(other)).to.not.equal(null);
    });

    it('refuses a commit once the checkpoint it committed vanished behind it, writing nothing', async function () {
      const collection = unique('docs');
      const consumer = unique('consumer');
      await store.commit(consumer, at(1), [{ collection, key: 'old', doc: 1 }]);
      await withAnother((other) => other.reset(consumer, []));
      const error = await refusal(store.commit(consumer, at(2), [{ collection, key: 'new', doc: 2 }]));
      expect(error.consumer).to.equal(consumer);
      expect(error.expected).to.deep.equal(at(1));
      expect(error.found).to.equal(null);
      expect(error.message).to.contain(`"${consumer}"`).and.contain('expected checkpoint 1/1 (version 1)');
      expect(error.message).to.contain('found no checkpoint');
      expect(await store.get(collection, 'new')).to.equal(undefined);
      expect(await store.get(collection, 'old')).to.equal(1);
      expect(await store.readCheckpoint(consumer)).to.equal(null);
    });

    it('refuses a commit when another store moved the checkpoint it committed', async function () {
      const consumer = unique('consumer');
      await store.commit(consumer, at(3), []);
      await withAnother((other) => other.commit(consumer, at(5, 2), []));
      const error = await refusal(store.commit(consumer, at(4), []));
      expect(error.found).to.deep.equal(at(5, 2));
      expect(error.message).to.contain('found checkpoint 5/5 (version 2)');
      expect(await store.readCheckpoint(consumer)).to.deep.equal(at(5, 2));
    });

    it('lets a fresh store commit over what another lost, and its own after reading again', async function () {
      const collection = unique('docs');
      const consumer = unique('consumer');
      await store.commit(consumer, at(1), [{ collection, key: 'k', doc: 1 }]);
      await withAnother((other) => other.reset(consumer, [collection]));
      await withAnother(async (fresh) => {
        await fresh.commit(consumer, at(2), [{ collection, key: 'k', doc: 2 }]);
        await fresh.commit(consumer, at(3), [{ collection, key: 'k', doc: 3 }]);
      });
      expect(await store.get(collection, 'k')).to.equal(3);
      await refusal(store.commit(consumer, at(4), []));
      // Refused, it expects nothing until it reads the checkpoint again, and builds on what it read.
      expect(await store.readCheckpoint(consumer)).to.deep.equal(at(3));
      await store.commit(consumer, at(4), [{ collection, key: 'k', doc: 4 }]);
      expect(await store.get(collection, 'k')).to.equal(4);
    });

    it('expects what it first read, and a later read does not hide a loss', async function () {
      const consumer = unique('consumer');
      await withAnother((other) => other.commit(consumer, at(1), []));
      expect(await store.readCheckpoint(consumer)).to.deep.equal(at(1));
      await withAnother((other) => other.reset(consumer, []));
      expect(await store.readCheckpoint(consumer)).to.equal(null);
      const error = await refusal(store.commit(consumer, at(2), []));
      expect(error.expected).to.deep.equal(at(1));
      expect(await store.readCheckpoint(consumer)).to.equal(null);
      await store.commit(consumer, at(2), []);
      expect(await store.readCheckpoint(consumer)).to.deep.equal(at(2));
    });

    it('expects no checkpoint after its own reset', async function () {
      const consumer = unique('consumer');
      await store.commit(consumer, at(1), []);
      await store.reset(consumer, []);
      await store.commit(consumer, at(1), []);
      await store.reset(consumer, []);
      await withAnother((other) => other.commit(consumer, at(7), []));
      expect((await refusal(store.commit(consumer, at(2), []))).found).to.deep.equal(at(7));
    });

    it('chains commits asked for together: each expects the one before', async function () {
      const collection = unique('docs');
      const consumer = unique('consumer');
      await store.commit(consumer, at(1), []);
      await Promise.all([
        store.commit(consumer, at(2), [{ collection, key: 'a', doc: 2 }]),
        store.commit(consumer, at(3), [{ collection, key: 'b', doc: 3 }]),
      ]);
      expect(await store.readCheckpoint(consumer)).to.deep.equal(at(3));
      expect([await store.get(collection, 'a'), await store.get(collection, 'b')]).to.deep.equal([2, 3]);
    });

    it('commits for a consumer it never read or wrote whatever is stored', async function () {
      const consumer = unique('consumer');
      await withAnother((other) => other.commit(consumer, at(9), []));
      await store.commit(consumer, at(1), []);
      expect(await store.readCheckpoint(consumer)).to.deep.equal(at(1));
    });
  });
}
