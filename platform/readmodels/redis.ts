import type { RedisClient } from '../redis.ts';
import {
  takeDocumentText,
  type Checkpoint,
  type DocumentWrite,
  type KeyedDocument,
  type ReadModelStore,
} from './port.ts';

/**
 * ReadModelStore on Redis: each collection is a hash of JSON documents plus a sorted set of its keys (for
 * ordered, prefixed listing); checkpoints live in one hash. A commit is one MULTI/EXEC, so documents and
 * checkpoint change together.
 */
export class RedisReadModelStore implements ReadModelStore {
  constructor(
    private readonly client: RedisClient,
    private readonly namespace = 'sp:rm',
    /** Whether `close()` quits the client; false when the client is shared. */
    private readonly ownsClient = true,
  ) {}

  private docs(collection: string): string {
    return `${this.namespace}:doc:${collection}`;
  }

  private keys(collection: string): string {
    return `${this.namespace}:keys:${collection}`;
  }

  private get checkpoints(): string {
    return `${this.namespace}:checkpoints`;
  }

  async get<T>(collection: string, key: string): Promise<T | undefined> {
    const text = await this.client.hGet(this.docs(collection), key);
    return text == null ? undefined : (JSON.parse(text) as T);
  }

  async list<T>(collection: string, options: { prefix?: string; limit?: number } = {}): Promise<KeyedDocument<T>[]> {
    const prefix = options.prefix ?? '';
    const keys = await this.client.zRange(
      this.keys(collection),
      prefix ? `[${prefix}` : '-',
      prefix ? `[${prefix}\xff` : '+',
      {
        BY: 'LEX',
        ...(options.limit !== undefined ? { LIMIT: { offset: 0, count: options.limit } } : {}),
      },
    );
    if (keys.length === 0) return [];
    const docs = await this.client.hmGet(this.docs(collection), keys);
    return keys.flatMap((key, i) => (docs[i] == null ? [] : [{ key, doc: JSON.parse(docs[i]) as T }]));
  }

  async readCheckpoint(consumer: string): Promise<Checkpoint | null> {
    const text = await this.client.hGet(this.checkpoints, consumer);
    return text == null ? null : (JSON.parse(text) as Checkpoint);
  }

  async listCheckpoints(): Promise<Map<string, Checkpoint>> {
    const all = await this.client.hGetAll(this.checkpoints);
    return new Map(Object.entries(all).map(([name, text]) => [name, JSON.parse(text) as Checkpoint]));
  }

  async commit(consumer: string, checkpoint: Checkpoint, writes: readonly DocumentWrite[]): Promise<void> {
    // Serialise first: a document that cannot be written must not leave half a commit behind.
    const encoded = writes.map((w) => ({ ...w, text: w.doc == null ? null : takeDocumentText(w.doc) }));
    const multi = this.client.multi();
    for (const w of encoded) {
      if (w.text === null) {
        multi.hDel(this.docs(w.collection), w.key);
        multi.zRem(this.keys(w.collection), w.key);
      } else {
        multi.hSet(this.docs(w.collection), w.key, w.text);
        multi.zAdd(this.keys(w.collection), { score: 0, value: w.key });
      }
    }
    multi.hSet(this.checkpoints, consumer, JSON.stringify(checkpoint));
    await multi.exec();
  }

  async reset(consumer: string, collections: readonly string[]): Promise<void> {
    const multi = this.client.multi();
    for (const c of collections) multi.del([this.docs(c), this.keys(c)]);
    multi.hDel(this.checkpoints, consumer);
    await multi.exec();
  }

  async close(): Promise<void> {
    if (this.ownsClient && this.client.isOpen) await this.client.quit();
  }
}
