/**
 * An in-process cache of read-model documents for a process that runs the projections itself: every
 * document such a process serves is committed by its own runners through this wrapper, so a commit evicts
 * exactly what it changed and a read never needs the store again until then. On the embedded store each read
 * is a SQLite read transaction (file locks included), the largest cost of a GET read-model route once the
 * session lookup is cached (see `npm run bench -- gateway`).
 */
import type { Checkpoint, DocumentWrite, KeyedDocument, ReadModelStore } from '../platform/readmodels/port.ts';

/** Options of {@link cacheReadModels}. */
export interface ReadModelCacheOptions {
  /** Most documents and lists held; the oldest entry goes first when full (default 50,000). */
  readonly maxEntries?: number;
}

/**
 * Wraps a read-model store with a cache of documents and of `list` answers, kept as JSON text so every caller
 * gets its own copy, and of checkpoints (a route telling how far a projection reached reads one per request). Only for a process whose projections commit through this wrapper: documents written by
 * another process are not seen until this process's runners commit them too.
 */
export function cacheReadModels(store: ReadModelStore, options: ReadModelCacheOptions = {}): ReadModelStore {
  const maxEntries = options.maxEntries ?? 50_000;
  // JSON text of a document, or null when the store has none.
  const docs = new Map<string, string | null>();
  const lists = new Map<string, { collection: string; entries: { key: string; text: string }[] }>();
  // Checkpoints by consumer (null when it has none): a commit or reset through this wrapper is the only writer.
  const checkpoints = new Map<string, Checkpoint | null>();
  // Bumped around every write, so a read that overlapped one is answered but not remembered.
  let generation = 0;

  const remember = <V>(map: Map<string, V>, key: string, value: V): void => {
    if (map.size >= maxEntries) map.delete(map.keys().next().value!);
    map.set(key, value);
  };
  const forget = (collections: ReadonlySet<string>, keys: readonly string[]): void => {
    for (const key of keys) docs.delete(key);
    for (const [key, list] of lists) if (collections.has(list.collection)) lists.delete(key);
  };

  return {
    get: async <T>(collection: string, key: string): Promise<T | undefined> => {
      const id = `${collection}\u0000${key}`;
      const hit = docs.get(id);
      if (hit !== undefined) return hit === null ? undefined : (JSON.parse(hit) as T);
      const seen = generation;
      const doc = await store.get<T>(collection, key);
      if (seen === generation) remember(docs, id, doc === undefined ? null : JSON.stringify(doc));
      return doc;
    },
    list: async <T>(collection: string, opts: { prefix?: string; limit?: number } = {}) => {
      const id = `${collection}\u0000${opts.prefix ?? ''}\u0000${opts.limit ?? -1}`;
      const hit = lists.get(id);
      if (hit) return hit.entries.map(({ key, text }) => ({ key, doc: JSON.parse(text) as T }));
      const seen = generation;
      const found: KeyedDocument<T>[] = await store.list<T>(collection, opts);
      if (seen === generation) {
        remember(lists, id, { collection, entries: found.map(({ key, doc }) => ({ key, text: JSON.stringify(doc) })) });
      }
      return found;
    },
    readCheckpoint: async (consumer: string) => {
      const hit = checkpoints.get(consumer);
      if (hit !== undefined) return hit && copyCheckpoint(hit);
      const seen = generation;
      const found = await store.readCheckpoint(consumer);
      if (seen === generation) remember(checkpoints, consumer, found && copyCheckpoint(found));
      return found;
    },
    listCheckpoints: () => store.listCheckpoints(),
    commit: async (consumer: string, checkpoint: Checkpoint, writes: readonly DocumentWrite[]) => {
      generation += 1;
      try {
        await store.commit(consumer, checkpoint, writes);
      } finally {
        generation += 1;
        checkpoints.delete(consumer);
        forget(
          new Set(writes.map((w) => w.collection)),
          writes.map((w) => `${w.collection}\u0000${w.key}`),
        );
      }
    },
    reset: async (consumer: string, collections: readonly string[]) => {
      generation += 1;
      try {
        await store.reset(consumer, collections);
      } finally {
        generation += 1;
        docs.clear();
        lists.clear();
        checkpoints.clear();
      }
    },
    close: () => {
      checkpoints.clear();
      docs.clear();
      lists.clear();
      return store.close();
    },
  };
}

function copyCheckpoint(checkpoint: Checkpoint): Checkpoint {
  return { ...checkpoint, position: { ...checkpoint.position } };
}
