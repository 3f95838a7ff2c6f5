/**
 * A lease in Redis: a key set only if absent (`SET NX PX`) to its holder's token, renewed and removed only by that
 * holder. The tick bus's member names and the projections' lease hold theirs through these.
 */
import type { RedisClient } from './redis.ts';

/** Renews a lease if its holder still holds it. KEYS: the lease; ARGV: the token, the life in ms. */
const RENEW_LEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

/** Removes a lease if its holder still holds it. KEYS: the lease; ARGV: the token. */
const RELEASE_LEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** Takes the lease `key` for `token` if no one holds it; true when taken. */
export async function takeLease(redis: RedisClient, key: string, token: string, ttlMs: number): Promise<boolean> {
  return (await redis.set(key, token, { NX: true, PX: ttlMs })) === 'OK';
}

/** Gives the lease `key` a new life if `token` still holds it; true when renewed. */
export async function renewLease(redis: RedisClient, key: string, token: string, ttlMs: number): Promise<boolean> {
  return Number(await redis.eval(RENEW_LEASE_SCRIPT, { keys: [key], arguments: [token, String(ttlMs)] })) === 1;
}

/** Removes the lease `key` if `token` still holds it. */
export async function releaseLease(redis: RedisClient, key: string, token: string): Promise<void> {
  await redis.eval(RELEASE_LEASE_SCRIPT, { keys: [key], arguments: [token] });
}
