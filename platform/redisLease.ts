/**
 * The scripts of a lease in Redis: a key set only if absent (`SET NX PX`) to a holder's token, renewed and removed
 * only by that holder. The tick bus's member names and the projections' lease use them.
 */

/** Renews a lease if its holder still holds it. KEYS: the lease; ARGV: the token, the life in ms. */
export const RENEW_LEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

/** Removes a lease if its holder still holds it. KEYS: the lease; ARGV: the token. */
export const RELEASE_LEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;
