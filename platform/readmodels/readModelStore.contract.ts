import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { ReadModelStore } from './port.ts';

/**
 * The behaviour every ReadModelStore adapter must have. Collections and consumers are unique per test,
 * so adapters may share one store across tests.
 */
export function readModelStoreContract(
  name: string,
  open: () => Promise<{ store: ReadModelStore; close(): Promise<void> }>,
): void {
  describe(`ReadModelStore contract (${name})`, function () {
    let subject: { store: ReadModelStore; close(): Promise<void> };
    let store: ReadModelStore;
    const unique = (what: string): string => `${what}${randomUUID().slice(0, 8)}`;

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
  });
}
