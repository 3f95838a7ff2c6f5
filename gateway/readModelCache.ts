/**
 * An in-process cache of read-model documents for a process that runs the projections itself: every
 * document such a process serves is committed by its own runners through this wrapper, so a commit evicts
 * exactly what it changed and a read never needs the store again until then. On the embedded store each read
 * is a SQLite read transaction (file locks included), the largest cost of a GET read-model route once the
 * session lookup is cached (see `npm run bench -- gateway`).
 */
import {
  documentText,
  type Checkpoint,
  type DocumentWrite,
  type KeyedDocument,
  type ReadModelStore,
} from '../platform/readmodels/port.ts';

/** Options of {@link cacheReadModels}. */
export interface ReadModelCacheOptions {
  /** Most documents and lists held; the oldest entry goes first when full (default 50,000). */
  readonly maxEntries?: number;
}

/** What an answer was derived from: a commit that writes or advances any of these forgets it. */
export interface AnswerSources {
  /** Documents read, as `[collection, key]`. */
  readonly documents?: readonly (readonly [string, string])[];
  /** Collections listed (any write to one forgets the answer). */
  readonly collections?: readonly string[];
  /**
   * Key prefixes listed, as `[collection, prefix]`: a write to a key of the collection that starts with the
   * prefix forgets the answer. A prefix ending in `/` (`<userId>/`) is matched exactly, by the key's parts up to
   * each `/`; any other prefix is taken as the whole collection.
   */
  readonly prefixes?: readonly (readonly [string, string])[];
  /** Consumers whose checkpoint was read (any commit or reset of one forgets the answer). */
  readonly checkpoints?: readonly string[];
}

/** An answer kept as the JSON text it is sent as, with the read-model position it reflects. */
export interface KeptAnswer {
  /** The answer's JSON text. */
  readonly text: string;
  /** The formatted log position the answer reflects, if any. */
  readonly position: string | undefined;
}

/**
 * Answers of GET routes derived from the cached read models, kept as sent: a repeated request is answered
 * without reading, parsing or serialising anything. Only {@link cacheReadModels} stores have one.
 */
export interface AnswerCache {
  /** The answer kept under `key`, if no commit touched its sources since it was derived. */
  recall(key: string): KeptAnswer | undefined;
  /** Derives the answer, and keeps it unless a commit overlapped the derivation. */
  derive(key: string, sources: AnswerSources, compute: () => Promise<KeptAnswer>): Promise<KeptAnswer>;
}

const answerCaches = new WeakMap<ReadModelStore, AnswerCache>();

/** The answer cache of a store made by {@link cacheReadModels}, or undefined for any other store. */
export function answerCacheOf(store: ReadModelStore): AnswerCache | undefined {
  return answerCaches.get(store);
}

const documentSource = (collection: string, key: string): string => `d\u0000${collection}\u0000${key}`;
const collectionSource = (collection: string): string => `c\u0000${collection}`;
const prefixSource = (collection: string, prefix: string): string => `p\u0000${collection}\u0000${prefix}`;
const checkpointSource = (consumer: string): string => `k\u0000${consumer}`;
/** Where the cache holds a document. */
const docId = (collection: string, key: string): string => `${collection}\u0000${key}`;

/** A `list` answer kept, as the JSON text of each document. */
interface KeptList {
  readonly collection: string;
  /** The prefix its keys start with ('' for the whole collection). */
  readonly prefix: string;
  readonly entries: readonly { readonly key: string; readonly text: string }[];
}

/**
 * Where a kept list is filed, by its collection and its prefix's first segment through its first `/` (`ada/` of
 * `ada/#`; '' for a prefix without one): a key a write changes can only start with a prefix filed under its own
 * first segment or under ''. So a commit forgets the lists that hold, or would hold, a key it wrote, not every
 * list of its collection (another user's alerts, say).
 */
function bucketOf(collection: string, text: string): string {
  const slash = text.indexOf('/');
  return `${collection}\u0000${slash < 0 ? '' : text.slice(0, slash + 1)}`;
}

function sourceIds(sources: AnswerSources): string[] {
  return [
    ...(sources.documents ?? []).map(([collection, key]) => documentSource(collection, key)),
    ...(sources.collections ?? []).map(collectionSource),
    ...(sources.prefixes ?? []).map(([collection, prefix]) =>
      prefix.endsWith('/') ? prefixSource(collection, prefix) : collectionSource(collection),
    ),
    ...(sources.checkpoints ?? []).map(checkpointSource),
  ];
}

/**
 * Wraps a read-model store with a cache of documents and of `list` answers (each until a commit writes a key it
 * holds or would hold), kept as JSON text so every caller gets its own copy, of checkpoints (a route telling how
 * far a projection reached reads one per request) and of route answers as sent ({@link answerCacheOf}). Only for
 * a process whose projections commit through this wrapper: documents written by another process are not seen
 * until this process's runners commit them too.
 */
export function cacheReadModels(store: ReadModelStore, options: ReadModelCacheOptions = {}): ReadModelStore {
  const maxEntries = options.maxEntries ?? 50_000;
  // JSON text of a document, or null when the store has none.
  const docs = new Map<string, string | null>();
  const lists = new Map<string, KeptList>();
  // The kept lists' ids by collection and the first segment of their prefix (see `bucketOf`).
  const listBuckets = new Map<string, Set<string>>();
  // Checkpoints by consumer (null when it has none): a commit or reset through this wrapper is the only writer.
  const checkpoints = new Map<string, Checkpoint | null>();
  // Answers kept as sent, and which answers each source (see `sourceIds`) was read by.
  const answers = new Map<string, { answer: KeptAnswer; sources: string[] }>();
  const readers = new Map<string, Set<string>>();
  // Bumped around every write, so a read that overlapped one is answered but not remembered.
  let generation = 0;

  const remember = <V>(map: Map<string, V>, key: string, value: V): void => {
    if (map.size >= maxEntries) map.delete(map.keys().next().value!);
    map.set(key, value);
  };
  const dropList = (id: string): void => {
    const list = lists.get(id);
    if (!list) return;
    lists.delete(id);
    const bucket = bucketOf(list.collection, list.prefix);
    const ids = listBuckets.get(bucket);
    ids?.delete(id);
    if (ids?.size === 0) listBuckets.delete(bucket);
  };
  const rememberList = (id: string, list: KeptList): void => {
    dropList(id);
    if (lists.size >= maxEntries) dropList(lists.keys().next().value!);
    lists.set(id, list);
    const bucket = bucketOf(list.collection, list.prefix);
    let ids = listBuckets.get(bucket);
    if (!ids) listBuckets.set(bucket, (ids = new Set()));
    ids.add(id);
  };
  // The kept lists a write of `key` may change: those whose prefix it starts with.
  const forgetListsHolding = (collection: string, key: string): void => {
    const own = bucketOf(collection, key);
    const broad = bucketOf(collection, '');
    for (const bucket of own === broad ? [own] : [own, broad]) {
      for (const id of listBuckets.get(bucket) ?? []) if (key.startsWith(lists.get(id)!.prefix)) dropList(id);
    }
  };
  const dropAnswer = (key: string): void => {
    const kept = answers.get(key);
    if (!kept) return;
    answers.delete(key);
    for (const source of kept.sources) readers.get(source)?.delete(key);
  };
  const forgetReaders = (source: string): void => {
    const keys = readers.get(source);
    if (!keys) return;
    readers.delete(source);
    for (const key of keys) dropAnswer(key);
  };
  const forget = (consumer: string, writes: readonly DocumentWrite[]): void => {
    const collections = new Set(writes.map((w) => w.collection));
    for (const w of writes) {
      docs.delete(docId(w.collection, w.key));
      forgetListsHolding(w.collection, w.key);
      forgetReaders(documentSource(w.collection, w.key));
      for (let slash = w.key.indexOf('/'); slash >= 0; slash = w.key.indexOf('/', slash + 1)) {
        forgetReaders(prefixSource(w.collection, w.key.slice(0, slash + 1)));
      }
    }
    for (const collection of collections) forgetReaders(collectionSource(collection));
    forgetReaders(checkpointSource(consumer));
  };
  const forgetAll = (): void => {
    docs.clear();
    lists.clear();
    listBuckets.clear();
    checkpoints.clear();
    answers.clear();
    readers.clear();
  };

  const answerCache: AnswerCache = {
    recall: (key) => answers.get(key)?.answer,
    derive: async (key, sources, compute) => {
      const seen = generation;
      const answer = await compute();
      if (seen === generation) {
        dropAnswer(key);
        if (answers.size >= maxEntries) dropAnswer(answers.keys().next().value!);
        const ids = sourceIds(sources);
        answers.set(key, { answer, sources: ids });
        for (const id of ids) {
          let keys = readers.get(id);
          if (!keys) readers.set(id, (keys = new Set()));
          keys.add(key);
        }
      }
      return answer;
    },
  };

  const cached: ReadModelStore = {
    get: async <T>(collection: string, key: string): Promise<T | undefined> => {
      const id = docId(collection, key);
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
        const entries = found.map(({ key, doc }) => ({ key, text: JSON.stringify(doc) }));
        rememberList(id, { collection, prefix: opts.prefix ?? '', entries });
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
      // What the store holds once the commit succeeds (serialised now, and the store takes the same text): kept
      // for the documents someone reads (those held now), so the projection's next read of a document it just
      // wrote needs no read of the store. A document only ever written (the alert engine's index, say) is not
      // held: it would only push read ones out.
      const written = writes.map((w) => (w.doc === null || w.doc === undefined ? null : documentText(w.doc)));
      const ids = writes.map((w) => docId(w.collection, w.key));
      const held = ids.map((id) => docs.has(id));
      let committed = false;
      try {
        await store.commit(consumer, checkpoint, writes);
        committed = true;
      } finally {
        generation += 1;
        checkpoints.delete(consumer);
        forget(consumer, writes);
        if (committed) {
          ids.forEach((id, i) => {
            if (held[i]) remember(docs, id, written[i]!);
          });
        }
      }
    },
    reset: async (consumer: string, collections: readonly string[]) => {
      generation += 1;
      try {
        await store.reset(consumer, collections);
      } finally {
        generation += 1;
        forgetAll();
      }
    },
    close: () => {
      forgetAll();
      return store.close();
    },
  };
  answerCaches.set(cached, answerCache);
  return cached;
}

function copyCheckpoint(checkpoint: Checkpoint): Checkpoint {
  return { ...checkpoint, position: { ...checkpoint.position } };
}
