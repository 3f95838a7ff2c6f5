import { formatPosition, type LogPosition } from '../eventstore/port.ts';

/**
 * The ReadModelStore port: documents built by projections and consumers, with each consumer's checkpoint
 * written in the same atomic commit as its documents. Adapters: SQLite (embedded), Redis (distributed).
 */

/** One document change of a commit: `doc` null deletes the document. */
export interface DocumentWrite {
  /** The collection (one per query), e.g. `watchlist`. */
  readonly collection: string;
  /** The document key within the collection, e.g. a user id. */
  readonly key: string;
  /** The new document, or null to delete it. */
  readonly doc: unknown;
}

/** Where a consumer has got to in the log, and which version of its code wrote it. */
export interface Checkpoint {
  /** Every event up to and including this position has been applied. */
  readonly position: LogPosition;
  /** The consumer's version when it was written; a different version means a rebuild. */
  readonly version: number;
}

/** A stored document with its key. */
export interface KeyedDocument<T> {
  /** The document key. */
  readonly key: string;
  /** The document. */
  readonly doc: T;
}

/** Documents and checkpoints, committed together. */
export interface ReadModelStore {
  /** One document, or undefined when absent. */
  get<T>(collection: string, key: string): Promise<T | undefined>;
  /** The documents of a collection in key order, optionally only keys starting with `prefix`. */
  list<T>(collection: string, options?: { prefix?: string; limit?: number }): Promise<KeyedDocument<T>[]>;
  /**
   * The consumer's checkpoint, or null when it has none. The first read of a consumer this store has not
   * committed, reset or read yet (or since a commit of it failed) is what its next commit expects to find.
   */
  readCheckpoint(consumer: string): Promise<Checkpoint | null>;
  /** The checkpoints of every consumer, by name (what the next commits expect is left as it is). */
  listCheckpoints(): Promise<Map<string, Checkpoint>>;
  /**
   * Applies the writes and sets the consumer's checkpoint atomically: after a crash either both or
   * neither are visible. Refuses with {@link ReadModelStateLostError}, writing nothing, when the stored
   * checkpoint is not the one this store last committed, reset (none) or first read for the consumer: its
   * documents were lost or changed behind its back, and writing on top of them would hide it. A consumer this
   * store has neither read nor written is committed whatever is stored. A commit that fails (refused or not)
   * leaves nothing expected, so the consumer starts again from a read of its checkpoint.
   */
  commit(consumer: string, checkpoint: Checkpoint, writes: readonly DocumentWrite[]): Promise<void>;
  /**
   * Deletes the consumer's checkpoint and every document of the given collections (for a rebuild); the next
   * commit expects no checkpoint.
   */
  reset(consumer: string, collections: readonly string[]): Promise<void>;
  /** Releases the store. */
  close(): Promise<void>;
}

/**
 * A commit refused because the consumer's stored checkpoint is not the one the store expected (it vanished
 * when Redis restarted without its data, say): the consumer must start again from what is stored.
 */
export class ReadModelStateLostError extends Error {
  override readonly name = 'ReadModelStateLostError';

  constructor(
    /** The consumer whose commit was refused. */
    readonly consumer: string,
    /** The checkpoint the store expected, null for none. */
    readonly expected: Checkpoint | null,
    /** The checkpoint it found, null for none. */
    readonly found: Checkpoint | null,
  ) {
    super(
      `the read models of consumer "${consumer}" were lost or changed behind this store: expected ` +
        `${describeCheckpoint(expected)}, found ${describeCheckpoint(found)}`,
    );
  }
}

/** A checkpoint in words, for messages: `checkpoint 12/12 (version 1)`, or `no checkpoint`. */
export function describeCheckpoint(checkpoint: Checkpoint | null): string {
  return checkpoint
    ? `checkpoint ${formatPosition(checkpoint.position)} (version ${checkpoint.version})`
    : 'no checkpoint';
}

/** The JSON text of documents about to be committed, written by whoever serialised them first. */
const committedTexts = new WeakMap<object, string>();

/**
 * The JSON text of a document being committed, kept until the store takes it with {@link takeDocumentText}: a
 * wrapper that keeps the text too (the read-model cache) and the store then hold the same text, serialised once.
 */
export function documentText(doc: unknown): string {
  const text = JSON.stringify(doc);
  if (typeof doc === 'object' && doc !== null) committedTexts.set(doc, text);
  return text;
}

/** The text {@link documentText} gave for a document (forgotten now), or the document serialised. */
export function takeDocumentText(doc: unknown): string {
  if (typeof doc !== 'object' || doc === null) return JSON.stringify(doc);
  const text = committedTexts.get(doc);
  if (text === undefined) return JSON.stringify(doc);
  committedTexts.delete(doc);
  return text;
}
