import { expect } from 'chai';
import type { Checkpoint, DocumentWrite, ReadModelStore } from '../platform/readmodels/port.ts';
import { openSqliteReadModelStore } from '../platform/readmodels/sqlite.ts';
import { answerCacheOf, cacheReadModels, type AnswerCache, type KeptAnswer } from './readModelCache.ts';

const checkpoint = (n: number): Checkpoint => ({ position: { commit: n, prepare: n }, version: 1 });

/** Counts the reads that reach the store. */
function counting(store: ReadModelStore): ReadModelStore & { reads: number } {
  const wrapped = Object.create(store) as ReadModelStore & { reads: number };
  wrapped.reads = 0;
  wrapped.get = (collection, key) => {
    wrapped.reads += 1;
    return store.get(collection, key);
  };
  wrapped.list = (collection, options) => {
    wrapped.reads += 1;
    return store.list(collection, options);
  };
  wrapped.readCheckpoint = (consumer) => {
    wrapped.reads += 1;
    return store.readCheckpoint(consumer);
  };
  return wrapped;
}

describe('read-model cache', function () {
  let base: ReadModelStore;
  let store: ReadModelStore & { reads: number };
  let cached: ReadModelStore;
  beforeEach(async function () {
    base = openSqliteReadModelStore({ file: ':memory:' });
    await base.commit('p', checkpoint(1), [
      { collection: 'watchlist', key: 'ada', doc: { symbols: ['NVDA'] } },
      { collection: 'alerts', key: 'ada/1', doc: { id: 1 } },
    ]);
    store = counting(base);
    cached = cacheReadModels(store);
  });
  afterEach(async function () {
    await cached.close();
  });

  it('reads a document from the store once, then from memory, as a fresh copy each time', async function () {
    const first = await cached.get<{ symbols: string[] }>('watchlist', 'ada');
    first!.symbols.push('MUTATED');
    expect(await cached.get('watchlist', 'ada')).to.deep.equal({ symbols: ['NVDA'] });
    expect(store.reads).to.equal(1);
  });

  it('keeps the documents a commit writes as written, without reading them back, and leaves the others', async function () {
    await cached.get('watchlist', 'ada');
    await cached.get('alerts', 'ada/1');
    const written = { symbols: ['AAPL'] };
    await cached.commit('p', checkpoint(2), [{ collection: 'watchlist', key: 'ada', doc: written }]);
    written.symbols.push('MUTATED');
    expect(await cached.get('watchlist', 'ada')).to.deep.equal({ symbols: ['AAPL'] });
    expect(await base.get('watchlist', 'ada')).to.deep.equal({ symbols: ['AAPL'] });
    await cached.get('alerts', 'ada/1');
    expect(store.reads).to.equal(2);
  });

  it('holds a written document only once someone has read it', async function () {
    await cached.commit('p', checkpoint(2), [{ collection: 'enginealerts', key: 'ada/1', doc: { n: 1 } }]);
    expect(await cached.get('enginealerts', 'ada/1')).to.deep.equal({ n: 1 });
    expect(store.reads, 'never read before: not held').to.equal(1);
    await cached.commit('p', checkpoint(3), [{ collection: 'enginealerts', key: 'ada/1', doc: { n: 2 } }]);
    expect(await cached.get('enginealerts', 'ada/1')).to.deep.equal({ n: 2 });
    expect(store.reads, 'read since: held as written').to.equal(1);
  });

  it('serves and stores one and the same text of a committed document, even one changed while it is committed', async function () {
    const written = { symbols: ['AAPL'] };
    const committing = cached.commit('p', checkpoint(2), [{ collection: 'watchlist', key: 'ada', doc: written }]);
    written.symbols.push('CHANGED');
    await committing;
    expect(await cached.get('watchlist', 'ada')).to.deep.equal({ symbols: ['AAPL'] });
    expect(await base.get('watchlist', 'ada')).to.deep.equal({ symbols: ['AAPL'] });
  });

  it('forgets the documents of a commit the store refuses, and reads them from the store again', async function () {
    await cached.get('watchlist', 'ada');
    const refusing = Object.create(store) as ReadModelStore;
    refusing.commit = () => Promise.reject(new Error('disk full'));
    const failing = cacheReadModels(refusing);
    await failing.get('watchlist', 'ada');
    const before = store.reads;
    await failing
      .commit('p', checkpoint(2), [{ collection: 'watchlist', key: 'ada', doc: { symbols: ['AAPL'] } }])
      .then(
        () => expect.fail('the commit was refused'),
        (error: Error) => expect(error.message).to.equal('disk full'),
      );
    expect(await failing.get('watchlist', 'ada')).to.deep.equal({ symbols: ['NVDA'] });
    expect(store.reads).to.equal(before + 1);
  });

  it('remembers that a document is absent until a commit creates it', async function () {
    expect(await cached.get('watchlist', 'bob')).to.equal(undefined);
    expect(await cached.get('watchlist', 'bob')).to.equal(undefined);
    expect(store.reads).to.equal(1);
    await cached.commit('p', checkpoint(2), [{ collection: 'watchlist', key: 'bob', doc: { symbols: ['XOM'] } }]);
    expect(await cached.get('watchlist', 'bob')).to.deep.equal({ symbols: ['XOM'] });
  });

  it('forgets a deleted document', async function () {
    await cached.get('watchlist', 'ada');
    await cached.commit('p', checkpoint(2), [{ collection: 'watchlist', key: 'ada', doc: null }]);
    expect(await cached.get('watchlist', 'ada')).to.equal(undefined);
  });

  it('keeps list answers until a commit writes a key under their prefix', async function () {
    expect((await cached.list('alerts', { prefix: 'ada/' })).map((d) => d.key)).to.deep.equal(['ada/1']);
    await cached.list('alerts', { prefix: 'ada/' });
    await cached.commit('p', checkpoint(2), [{ collection: 'watchlist', key: 'ada', doc: { symbols: [] } }]);
    await cached.list('alerts', { prefix: 'ada/' });
    expect(store.reads).to.equal(1);
    await cached.commit('p', checkpoint(3), [{ collection: 'alerts', key: 'ada/2', doc: { id: 2 } }]);
    expect((await cached.list('alerts', { prefix: 'ada/' })).map((d) => d.key)).to.deep.equal(['ada/1', 'ada/2']);
    expect(store.reads).to.equal(2);
  });

  it("keeps a user's list through writes of another user's keys, and forgets the lists a key falls in", async function () {
    const keys = async (prefix?: string) =>
      (await cached.list('alerts', prefix === undefined ? {} : { prefix })).map((d) => d.key);
    // Ada's list, the whole collection's, one by a prefix without a segment ('ad', as the audit's user search),
    // and Bob's.
    expect(await keys('ada/')).to.deep.equal(['ada/1']);
    expect(await keys()).to.deep.equal(['ada/1']);
    expect(await keys('ad')).to.deep.equal(['ada/1']);
    expect(await keys('bob/')).to.deep.equal([]);
    expect(store.reads).to.equal(4);
    // Bob's write: his list and the whole collection's change; Ada's and 'ad' cannot.
    await cached.commit('p', checkpoint(2), [{ collection: 'alerts', key: 'bob/1', doc: { id: 1 } }]);
    expect(await keys('ada/')).to.deep.equal(['ada/1']);
    expect(await keys('ad')).to.deep.equal(['ada/1']);
    expect(store.reads).to.equal(4);
    expect(await keys('bob/')).to.deep.equal(['bob/1']);
    expect(await keys()).to.deep.equal(['ada/1', 'bob/1']);
    expect(store.reads).to.equal(6);
    // Adam's: 'ad' holds it, Ada's list does not.
    await cached.commit('p', checkpoint(3), [{ collection: 'alerts', key: 'adam/1', doc: { id: 1 } }]);
    expect(await keys('ada/')).to.deep.equal(['ada/1']);
    expect(store.reads).to.equal(6);
    expect(await keys('ad')).to.deep.equal(['ada/1', 'adam/1']);
    // A deletion of Ada's key forgets her list; a key deeper under her prefix too.
    await cached.commit('p', checkpoint(4), [{ collection: 'alerts', key: 'ada/1', doc: null }]);
    expect(await keys('ada/')).to.deep.equal([]);
    await cached.commit('p', checkpoint(5), [{ collection: 'alerts', key: 'ada/x/1', doc: { id: 1 } }]);
    expect(await keys('ada/')).to.deep.equal(['ada/x/1']);
    expect(store.reads).to.equal(9);
  });

  it('does not remember a read that overlapped a commit', async function () {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = Object.create(base) as ReadModelStore;
    slow.get = async <T>(collection: string, key: string): Promise<T | undefined> => {
      const doc = await base.get<T>(collection, key);
      await gate;
      return doc;
    };
    const overlapping = cacheReadModels(slow);
    const read = overlapping.get('watchlist', 'ada');
    await overlapping.commit('p', checkpoint(2), [{ collection: 'watchlist', key: 'ada', doc: { symbols: ['AAPL'] } }]);
    release();
    expect(await read).to.deep.equal({ symbols: ['NVDA'] });
    slow.get = <T>(collection: string, key: string) => base.get<T>(collection, key);
    expect(await overlapping.get('watchlist', 'ada')).to.deep.equal({ symbols: ['AAPL'] });
  });

  it('forgets everything on a reset', async function () {
    await cached.get('watchlist', 'ada');
    await cached.reset('p', ['watchlist']);
    expect(await cached.get('watchlist', 'ada')).to.equal(undefined);
  });

  it('passes checkpoints through', async function () {
    const writes: DocumentWrite[] = [];
    await cached.commit('q', checkpoint(7), writes);
    expect(await cached.readCheckpoint('q')).to.deep.equal(checkpoint(7));
    expect((await cached.listCheckpoints()).get('q')).to.deep.equal(checkpoint(7));
  });

  it('reads a checkpoint from the store once, until a commit or reset of its consumer', async function () {
    expect(await cached.readCheckpoint('p')).to.deep.equal(checkpoint(1));
    expect(await cached.readCheckpoint('p')).to.deep.equal(checkpoint(1));
    expect(await cached.readCheckpoint('none')).to.equal(null);
    expect(await cached.readCheckpoint('none')).to.equal(null);
    expect(store.reads).to.equal(2);
    await cached.commit('q', checkpoint(9), []);
    expect(await cached.readCheckpoint('p')).to.deep.equal(checkpoint(1));
    expect(store.reads).to.equal(2);
    await cached.commit('p', checkpoint(2), []);
    expect(await cached.readCheckpoint('p')).to.deep.equal(checkpoint(2));
    await cached.reset('p', ['watchlist']);
    expect(await cached.readCheckpoint('p')).to.equal(null);
    expect(store.reads).to.equal(4);
  });

  describe('kept answers', function () {
    let answers: AnswerCache;
    let derivations: number;
    const derive = (key: string, sources: Parameters<AnswerCache['derive']>[1]): Promise<KeptAnswer> =>
      answers.derive(key, sources, async () => {
        derivations += 1;
        const doc = await cached.get<{ symbols: string[] }>('watchlist', 'ada');
        return { text: JSON.stringify(doc?.symbols ?? []), position: String(derivations) };
      });
    beforeEach(function () {
      answers = answerCacheOf(cached)!;
      derivations = 0;
    });

    it('exist only for a caching store', function () {
      expect(answerCacheOf(cached)).to.not.equal(undefined);
      expect(answerCacheOf(base)).to.equal(undefined);
    });

    it('recalls a derived answer as it was kept, without deriving again', async function () {
      expect(answers.recall('a')).to.equal(undefined);
      const kept = await derive('a', { documents: [['watchlist', 'ada']] });
      expect(kept).to.deep.equal({ text: '["NVDA"]', position: '1' });
      expect(answers.recall('a')).to.equal(kept);
      expect(derivations).to.equal(1);
    });

    it('forgets an answer when a commit writes a document it read, not another one', async function () {
      await derive('a', { documents: [['watchlist', 'ada']] });
      await cached.commit('p', checkpoint(2), [{ collection: 'watchlist', key: 'bob', doc: { symbols: [] } }]);
      expect(answers.recall('a')?.text).to.equal('["NVDA"]');
      await cached.commit('p', checkpoint(3), [{ collection: 'watchlist', key: 'ada', doc: { symbols: ['XOM'] } }]);
      expect(answers.recall('a')).to.equal(undefined);
      expect((await derive('a', { documents: [['watchlist', 'ada']] })).text).to.equal('["XOM"]');
    });

    it('forgets an answer on any write to a collection it listed', async function () {
      await derive('a', { collections: ['alerts'] });
      await cached.commit('p', checkpoint(2), [{ collection: 'watchlist', key: 'bob', doc: { symbols: [] } }]);
      expect(answers.recall('a')).to.not.equal(undefined);
      await cached.commit('p', checkpoint(3), [{ collection: 'alerts', key: 'bob/1', doc: { id: 1 } }]);
      expect(answers.recall('a')).to.equal(undefined);
    });

    it("forgets an answer on a write under a key prefix it listed, not under another user's", async function () {
      await derive('a', { prefixes: [['alerts', 'ada/']] });
      await cached.commit('p', checkpoint(2), [
        { collection: 'alerts', key: 'adam/1', doc: { id: 1 } },
        { collection: 'alerts', key: 'ad/1', doc: { id: 1 } },
        { collection: 'alertsx', key: 'ada/1', doc: { id: 1 } },
        { collection: 'watchlist', key: 'ada', doc: { symbols: [] } },
      ]);
      expect(answers.recall('a')).to.not.equal(undefined);
      await cached.commit('p', checkpoint(3), [{ collection: 'alerts', key: 'ada/2', doc: null }]);
      expect(answers.recall('a')).to.equal(undefined);
      await derive('b', { prefixes: [['alerts', 'ada/']] });
      await cached.commit('p', checkpoint(4), [{ collection: 'alerts', key: 'ada/1/x', doc: { id: 1 } }]);
      expect(answers.recall('b')).to.equal(undefined);
    });

    it('takes a prefix that does not end in / for the whole collection', async function () {
      await derive('a', { prefixes: [['alerts', 'ada']] });
      await cached.commit('p', checkpoint(2), [{ collection: 'alerts', key: 'bob/1', doc: { id: 1 } }]);
      expect(answers.recall('a')).to.equal(undefined);
    });

    it('forgets an answer on any commit of a consumer whose checkpoint it read, writes or not', async function () {
      await derive('a', { checkpoints: ['p'] });
      await cached.commit('q', checkpoint(2), []);
      expect(answers.recall('a')).to.not.equal(undefined);
      await cached.commit('p', checkpoint(3), []);
      expect(answers.recall('a')).to.equal(undefined);
    });

    it('does not keep an answer whose derivation overlapped a commit, and forgets all on a reset', async function () {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const slow = answers.derive('a', {}, async () => {
        await gate;
        return { text: '[]', position: undefined };
      });
      await cached.commit('q', checkpoint(2), []);
      release();
      expect((await slow).text).to.equal('[]');
      expect(answers.recall('a')).to.equal(undefined);
      await derive('b', {});
      await cached.reset('p', ['watchlist']);
      expect(answers.recall('b')).to.equal(undefined);
    });
  });
});
