/**
 * Which users' deliveries this process sends. Alone, all of them; with Redis, the delivery processes share the
 * users between them: each registers itself under a key that expires unless its heartbeat renews it, reads who
 * else is alive at every beat, and takes the users whose rendezvous hash it wins among the live processes. A
 * process that stops removes its key at once; one that dies loses it after `ttlMs`, and the others take its
 * users over (its attempts left without an outcome are followed by the next, with the same `Idempotency-Key`).
 *
 * The split saves work, it does not make delivery safe: while two processes see different members for a
 * moment, both may try the same delivery, and the log still decides which of them sends it.
 */
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../../platform/redis.ts';
import { repeat } from '../../platform/repeat.ts';

/** The users a delivery process takes. */
export interface DeliveryPartition {
  /** Whether this process sends the deliveries of `userId`. */
  owns(userId: string): boolean;
  /** Calls `listener` whenever the processes alive change (and with them which users this one takes). */
  onChange(listener: () => void): () => void;
  /** The processes alive as last seen (this one included), sorted. */
  members(): readonly string[];
  /** Leaves: the others take this process's users at their next beat. */
  stop(): Promise<void>;
}

/** One process alone: it takes every user. */
export const WHOLE_PARTITION: DeliveryPartition = Object.freeze({
  owns: () => true,
  onChange: () => () => undefined,
  members: () => [],
  stop: () => Promise.resolve(),
});

/** FNV-1a over a string's UTF-16 units, then mixed, as an unsigned 32-bit number. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * The member that takes `userId` among `members`: the one with the highest hash of member and user, so that a
 * member joining or leaving moves only the users it wins or held.
 */
export function ownerOf(userId: string, members: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const member of members) {
    const score = hash32(`${member}\u0000${userId}`);
    if (score > bestScore || (score === bestScore && best !== undefined && member < best)) {
      best = member;
      bestScore = score;
    }
  }
  return best;
}

/** Options of {@link redisPartition}. */
export interface RedisPartitionOptions {
  /** A readable prefix of this process's member id (its engine name); a random suffix keeps ids unique. */
  readonly name: string;
  /** Milliseconds between beats (default 1000). */
  readonly heartbeatMs?: number;
  /** Milliseconds after the last beat when a process counts as gone (default 5000). */
  readonly ttlMs?: number;
  /** The keys' prefix (default `stockpulse:delivery`). */
  readonly prefix?: string;
  readonly onError?: (error: Error) => void;
}

/** Joins the delivery processes registered in Redis; resolves once this one is registered and has seen the others. */
export async function redisPartition(redis: RedisClient, options: RedisPartitionOptions): Promise<DeliveryPartition> {
  const heartbeatMs = options.heartbeatMs ?? 1000;
  const ttlMs = options.ttlMs ?? 5000;
  const prefix = options.prefix ?? 'stockpulse:delivery';
  const membersKey = `${prefix}:members`;
  const memberKey = (member: string): string => `${prefix}:member:${member}`;
  const self = `${options.name.replace(/[^A-Za-z0-9_.-]/g, '_')}-${randomUUID().slice(0, 8)}`;
  const listeners = new Set<() => void>();
  let members: readonly string[] = [self];
  const owners = new Map<string, boolean>();

  const beat = async (): Promise<void> => {
    await redis.multi().set(memberKey(self), '1', { PX: ttlMs }).sAdd(membersKey, self).exec();
    const named = (await redis.sMembers(membersKey)).sort();
    const alive = named.length === 0 ? [] : await redis.mGet(named.map(memberKey));
    const gone = named.filter((_, i) => alive[i] === null);
    if (gone.length > 0) await redis.sRem(membersKey, gone);
    const live = named.filter((_, i) => alive[i] !== null);
    if (!live.includes(self)) live.push(self);
    live.sort();
    if (live.join('\n') !== members.join('\n')) {
      members = live;
      owners.clear();
      for (const listener of listeners) listener();
    }
  };

  await beat();
  const stopBeating = repeat(heartbeatMs, beat, options.onError);

  return {
    owns: (userId) => {
      let owned = owners.get(userId);
      if (owned === undefined) {
        owned = ownerOf(userId, members) === self;
        if (owners.size >= 100_000) owners.clear();
        owners.set(userId, owned);
      }
      return owned;
    },
    onChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    members: () => members,
    stop: async () => {
      stopBeating();
      await redis.multi().del(memberKey(self)).sRem(membersKey, self).exec();
    },
  };
}
