import type { RedisClient } from '../redis.ts';
import {
  ReadModelStateLostError,
  takeDocumentText,
  type Checkpoint,
  type DocumentWrite,
  type KeyedDocument,
  type ReadModelStore,
} from './port.ts';

/**
 * The commit script. KEYS: the checkpoints hash, then the documents hash and the keys sorted set of each write.
 * ARGV: the consumer, what is expected (`any`, `none`, or `text` for the checkpoint text in the next argument),
 * that text, the new checkpoint's text, then `put` or `del`, the key and the document text of each write.
 * Answers `{1}` once written, or `{0}` / `{0, found}` (the stored checkpoint's text) when refused.
 */
const COMMIT_SCRIPT = `
local found = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[2] == 'none' and found then return {0, found} end
if ARGV[2] == 'text' and found ~= ARGV[3] then
  if found then return {0, found} end
  return {0}
end
local k = 2
for a = 5, #ARGV, 3 do
  if ARGV[a] == 'del' then
    redis.call('HDEL', KEYS[k], ARGV[a + 1])
    redis.call('ZREM', KEYS[k + 1], ARGV[a + 1])
  else
    redis.call('HSET', KEYS[k], ARGV[a + 1], ARGV[a + 2])
    redis.call('ZADD', KEYS[k + 1], 0, ARGV[a + 1])
  end
  k = k + 2
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
return {1}
`;

/**
 * ReadModelStore on Redis: each collection is a hash of JSON documents plus a sorted set of its keys (for
 * ordered, prefixed listing); checkpoints live in one hash. A commit is one Lua script, so documents and
 * checkpoint change together, and only if the stored checkpoint is the one expected (a Redis restarted without
 * its data, or flushed, is refused rather than written on).
 */
export class RedisReadModelStore implements ReadModelStore {
  /**
   * What the next commit of each consumer expects to find: the checkpoint text this store last committed or
   * first read, null for none; absent when it has no expectation.
   */
  private readonly expected = new Map<string, string | null>();

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
    if (!this.expected.has(consumer)) this.expected.set(consumer, text ?? null);
    return text == null ? null : (JSON.parse(text) as Checkpoint);
  }

  async listCheckpoints(): Promise<Map<string, Checkpoint>> {
    const all = await this.client.hGetAll(this.checkpoints);
    return new Map(Object.entries(all).map(([name, text]) => [name, JSON.parse(text) as Checkpoint]));
  }

  async commit(consumer: string, checkpoint: Checkpoint, writes: readonly DocumentWrite[]): Promise<void> {
    // Serialise first: a document that cannot be written must not leave half a commit behind.
    const encoded = writes.map((w) => ({ ...w, text: w.doc == null ? null : takeDocumentText(w.doc) }));
    const keys = [this.checkpoints];
    const text = JSON.stringify(checkpoint);
    const expected = this.expected.get(consumer);
    const args = [consumer, expected === undefined ? 'any' : expected === null ? 'none' : 'text', expected ?? '', text];
    for (const w of encoded) {
      keys.push(this.docs(w.collection), this.keys(w.collection));
      args.push(w.text === null ? 'del' : 'put', w.key, w.text ?? '');
    }
    // A commit asked for before this one settles builds on it, so it expects this checkpoint.
    this.expected.set(consumer, text);
    let reply: unknown;
    try {
      reply = await this.client.eval(COMMIT_SCRIPT, { keys, arguments: args });
    } catch (error) {
      this.forget(consumer, text);
      throw error;
    }
    const [written, found] = reply as [number, string?];
    if (written === 1) return;
    this.forget(consumer, text);
    throw new ReadModelStateLostError(
      consumer,
      expected == null ? null : (JSON.parse(expected) as Checkpoint),
      found === undefined ? null : (JSON.parse(found) as Checkpoint),
    );
  }

  /** Drops what the consumer's next commit expects, unless a later commit or reset has set it since. */
  private forget(consumer: string, expected: string | null): void {
    if (this.expected.get(consumer) === expected) this.expected.delete(consumer);
  }

  async reset(consumer: string, collections: readonly string[]): Promise<void> {
    const multi = this.client.multi();
    for (const c of collections) multi.del([this.docs(c), this.keys(c)]);
    multi.hDel(this.checkpoints, consumer);
    this.expected.set(consumer, null);
    try {
      await multi.exec();
    } catch (error) {
      this.forget(consumer, null);
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.ownsClient && this.client.isOpen) await this.client.quit();
  }
}
