/**
 * A short-lived in-process cache in front of the session store: every authenticated request looks its session
 * up, and on the embedded store that lookup (a SHA-256 and a SQLite read) was the largest single cost of a GET
 * read-model route (see `npm run bench -- gateway`).
 */
import type { Role } from '../../domain/accounts/accounts.ts';
import type { Session, SessionStore } from '../../platform/sessions/port.ts';

/** Options of {@link cacheSessions}. */
export interface SessionCacheOptions {
  /** How long a looked-up session is answered from memory, in ms (default 1000). */
  readonly ttlMs?: number;
  /** Most sessions held; the oldest entry goes first when full (default 10,000). */
  readonly maxEntries?: number;
  /** The clock, for tests. */
  readonly now?: () => number;
}

const recallers = new WeakMap<SessionStore, (token: string) => Session | null | undefined>();

/**
 * The session of `token` if a store made by {@link cacheSessions} answers it from memory (null when it has
 * expired), without a promise; undefined when the store has to be asked (`get`).
 */
export function recallSession(store: SessionStore, token: string): Session | null | undefined {
  return recallers.get(store)?.(token);
}

/**
 * Wraps a session store so `get` answers a session found less than `ttlMs` ago from memory. A session ended
 * through this wrapper (`delete`) is forgotten at once; one ended by another process stays usable here for at
 * most `ttlMs`. So does a user's other sessions ended through it (`endOthers`). Unknown tokens are not cached, so made-up tokens cannot fill the cache.
 */
export function cacheSessions(store: SessionStore, options: SessionCacheOptions = {}): SessionStore {
  const ttlMs = options.ttlMs ?? 1000;
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { session: Session; until: number }>();
  const recall = (token: string, t: number): Session | null | undefined => {
    const hit = cache.get(token);
    if (hit && hit.until > t) return hit.session.expiresAt > t ? hit.session : null;
    return undefined;
  };
  const cached: SessionStore = {
    create: (userId: string, roles: readonly Role[], ttl: number) => store.create(userId, roles, ttl),
    get: async (token) => {
      const t = now();
      const known = recall(token, t);
      if (known !== undefined) return known;
      cache.delete(token);
      const session = await store.get(token);
      if (session) {
        if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
        cache.set(token, { session, until: t + ttlMs });
      }
      return session;
    },
    delete: async (token) => {
      cache.delete(token);
      await store.delete(token);
      // A lookup running meanwhile may have put the token back; a session that no longer exists never stays.
      cache.delete(token);
    },
    endOthers: async (userId, keep) => {
      const forget = () => {
        for (const [token, hit] of cache) if (hit.session.userId === userId && token !== keep) cache.delete(token);
      };
      forget();
      const ended = await store.endOthers(userId, keep);
      forget();
      return ended;
    },
    close: () => {
      cache.clear();
      return store.close();
    },
  };
  recallers.set(cached, (token) => recall(token, now()));
  return cached;
}
