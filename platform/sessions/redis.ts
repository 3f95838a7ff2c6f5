import type { Role } from '../../domain/accounts/accounts.ts';
import type { RedisClient } from '../redis.ts';
import type { Session, SessionStore } from './port.ts';
import { newToken, tokenHash } from './token.ts';

/**
 * SessionStore on Redis: one key per session under its token hash, expiring with the session (PX), and per user
 * a set of its sessions' hashes (`<namespace>:user:<userId>`), expiring with the newest.
 */
export class RedisSessionStore implements SessionStore {
  constructor(
    private readonly client: RedisClient,
    private readonly namespace = 'sp:session',
    /** Whether `close()` quits the client; false when the client is shared. */
    private readonly ownsClient = true,
  ) {}

  private key(token: string): string {
    return this.hashKey(tokenHash(token));
  }

  private hashKey(hash: string): string {
    return `${this.namespace}:${hash}`;
  }

  private userKey(userId: string): string {
    return `${this.namespace}:user:${userId}`;
  }

  async create(userId: string, roles: readonly Role[], ttlMs: number): Promise<string> {
    const token = newToken();
    const createdAt = Date.now();
    const session: Session = { userId, roles, createdAt, expiresAt: createdAt + ttlMs };
    await this.client
      .multi()
      .set(this.key(token), JSON.stringify(session), { expiration: { type: 'PX', value: ttlMs } })
      .sAdd(this.userKey(userId), tokenHash(token))
      .pExpire(this.userKey(userId), ttlMs)
      .exec();
    return token;
  }

  async get(token: string): Promise<Session | null> {
    const text = await this.client.get(this.key(token));
    if (text == null) return null;
    const session = JSON.parse(text) as Session;
    return session.expiresAt > Date.now() ? session : null;
  }

  async delete(token: string): Promise<void> {
    await this.client.del(this.key(token));
  }

  async endOthers(userId: string, keep: string | null): Promise<readonly string[]> {
    const kept = keep === null ? null : tokenHash(keep);
    const hashes = (await this.client.sMembers(this.userKey(userId))).filter((hash) => hash !== kept);
    if (hashes.length === 0) return [];
    const removed = await Promise.all(hashes.map((hash) => this.client.del(this.hashKey(hash))));
    await this.client.sRem(this.userKey(userId), hashes);
    // A hash whose session had expired already ended nothing.
    return hashes.filter((_, i) => removed[i] === 1);
  }

  async close(): Promise<void> {
    if (this.ownsClient && this.client.isOpen) await this.client.quit();
  }
}
