import type { Role } from '../../domain/accounts/accounts.ts';

/** A signed-in session as the gateway sees it. */
export interface Session {
  /** The user (the username). */
  readonly userId: string;
  /** The roles held when the session was created. */
  readonly roles: readonly Role[];
  /** When it was created (ms since the epoch). */
  readonly createdAt: number;
  /** When it stops being valid (ms since the epoch). */
  readonly expiresAt: number;
}

/**
 * The SessionStore port: opaque session tokens mapped to users. Only a hash of each token is stored, so a
 * copy of the store does not let anyone sign in. Adapters: SQLite (embedded), Redis (distributed).
 */
export interface SessionStore {
  /** Creates a session and answers its token (the cookie value). */
  create(userId: string, roles: readonly Role[], ttlMs: number): Promise<string>;
  /** The live session of a token, or null when unknown or expired. */
  get(token: string): Promise<Session | null>;
  /** Ends the session of a token (no-op when unknown). */
  delete(token: string): Promise<void>;
  /**
   * Ends every live session of a user but the one of `keep` (every one when null), and answers the stored
   * hashes of the tokens it ended (`tokenHash`), so their open sockets can be ended too.
   */
  endOthers(userId: string, keep: string | null): Promise<readonly string[]>;
  /** Releases the store. */
  close(): Promise<void>;
}
