import type { Role } from '../../domain/accounts/accounts.ts';
import type { RedisClient } from '../redis.ts';
import type { Session, SessionStore } from './port.ts';
import { newToken, tokenHash } from './token.ts';

/** SessionStore on Redis: one key per session under its token hash, expiring with the session (PX). */
export class RedisSessionStore implements SessionStore {
  constructor(
    private readonly client: RedisClient,
    private readonly namespace = 'sp:session',
    /** Whether `close()` quits the client; false when the client is shared. */
    private readonly ownsClient = true,
  ) {}

  private key(token: string): string {
    return `${this.namespace}:${tokenHash(token)}`;
  }

  async create(userId: string, roles: readonly Role[], ttlMs: number): Promise<string> {
    const token = newToken();
    const createdAt = Date.now();
    const session: Session = { userId, roles, createdAt, expiresAt: createdAt + ttlMs };
    await this.client.set(this.key(token), JSON.stringify(session), { expiration: { type: 'PX', value: ttlMs } });
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

  async close(): Promise<void> {
    if (this.ownsClient && this.client.isOpen) await this.client.quit();
  }
}
