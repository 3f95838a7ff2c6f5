/**
 * One process running the projections on the read models in Redis, as `writerLock.ts` is for the SQLite file.
 *
 * Two processes running them on one Redis (two `ROLE=all`, or a second `ROLE=projections`) would refuse each
 * other's commits without end (each expects the checkpoint it last wrote), each start waiting longer. So the
 * process running them holds a lease: a key set only if absent, with a time to live it renews well before it runs
 * out, and removes when it stops. A second process meeting a lease it sees renewed is refused at its start; one
 * meeting a lease that runs out (its holder was killed) takes it once it has, a few seconds at most. A holder held
 * up past the lease's life (a stopped debugger, a swapped machine) may so lose it to a second one waiting: its next
 * renewal finds the lease another's, and it is told to stop (`onLost`), so that one process writes.
 *
 * Hand-written over node-redis (`platform/redisLease.ts`, as the tick bus's member names are): the lock libraries
 * on npm (Redlock and its kin) drive ioredis, not the node-redis client every port here shares.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { releaseLease, renewLease, takeLease } from '../redisLease.ts';
import type { RedisClient } from '../redis.ts';
import { repeat } from '../repeat.ts';
import type { ReadModelWriter } from './writerLock.ts';

/** Milliseconds a lease lives unless renewed. */
export const LEASE_TTL_MS = 6000;

/** Milliseconds between renewals: a third of the life, so two renewals may fail before it runs out. */
export const LEASE_RENEW_MS = 2000;

/** A part in words, with its instance's name: `the projections`, `the delivery named mail1`. */
function whatRuns(part: ReadModelWriter, instance: string | undefined): string {
  return instance === undefined ? `the ${part}` : `the ${part} named ${instance}`;
}

/** A second process asked to run a part on the read models in Redis, whose lease a live process holds. */
export class ReadModelsInUseError extends Error {
  /** The system's code for a resource in use, so the start script prints the message alone. */
  readonly code = 'EBUSY';
  constructor(
    readonly part: ReadModelWriter,
    readonly holder: string,
    /** The part's instance, for a part several processes run under names of their own (the delivery). */
    readonly instance?: string,
  ) {
    const runs = whatRuns(part, instance);
    const remedy =
      instance === undefined
        ? `run them in one process per Redis (ROLE=all or ROLE=${part}), and the others with ROLE=gateway or engine`
        : `give each ${part} process an ENGINE_NAME of its own (the host name when unset)`;
    super(
      `the read models in Redis are in use: another StockPulse process (${holder}) runs ${runs} on them; ${remedy}`,
    );
    this.name = 'ReadModelsInUseError';
  }
}

/**
 * A lease another process took while this one held it: this one was held up past the lease's life (a stopped
 * debugger, a swapped machine), and a second one waiting took it over. Both would now write the same read models.
 */
export class WriterLeaseLostError extends Error {
  constructor(
    readonly part: ReadModelWriter,
    readonly holder: string,
    readonly instance?: string,
  ) {
    const runs = whatRuns(part, instance);
    super(
      `the lease of ${runs} on the read models in Redis was taken by another StockPulse process (${holder}) ` +
        'while this one was held up past its life: this one stops, so that one process writes them',
    );
    this.name = 'WriterLeaseLostError';
  }
}

/** Options of {@link holdWriterLease}. */
export interface WriterLeaseOptions {
  /** The key's prefix (default `stockpulse:writer`). */
  readonly prefix?: string;
  /**
   * The name of this process's instance of a part several processes run, each on read models of its own (the
   * delivery, named by `ENGINE_NAME`): one lease per name.
   */
  readonly instance?: string;
  readonly ttlMs?: number;
  readonly renewMs?: number;
  /** Called when a renewal fails (Redis out of reach: the next one tries again). */
  readonly onError?: (error: Error) => void;
  /**
   * Called once when a renewal finds the lease another process's ({@link WriterLeaseLostError}): the renewals
   * stop, and the process must stop writing. Without it, `onError` is called with the error.
   */
  readonly onLost?: (error: WriterLeaseLostError) => void;
}

/** The key of a part's lease (of one of its instances). */
export function writerLeaseKey(part: ReadModelWriter, prefix = 'stockpulse:writer', instance?: string): string {
  return instance === undefined ? `${prefix}:${part}` : `${prefix}:${part}:${instance}`;
}

/**
 * Takes the lease of `part` and renews it until the answered release is called. A lease held by another process
 * is watched for up to its life: renewed (its holder is alive), the start is refused with
 * {@link ReadModelsInUseError}; run out (its holder was killed), it is taken.
 */
export async function holdWriterLease(
  redis: RedisClient,
  part: ReadModelWriter,
  options: WriterLeaseOptions = {},
): Promise<() => Promise<void>> {
  const ttlMs = options.ttlMs ?? LEASE_TTL_MS;
  const renewMs = options.renewMs ?? LEASE_RENEW_MS;
  const key = writerLeaseKey(part, options.prefix, options.instance);
  const self = `${hostname()} pid ${process.pid} ${randomUUID().slice(0, 8)}`;
  const take = (): Promise<boolean> => takeLease(redis, key, self, ttlMs);

  if (!(await take())) {
    const holder = await redis.get(key);
    let life = await redis.pTTL(key);
    const deadline = Date.now() + ttlMs + renewMs;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(50, Math.min(250, renewMs / 4))));
      if (await take()) break;
      const now = await redis.get(key);
      const left = await redis.pTTL(key);
      // Run out since the take just tried: the next take has it.
      if (now === null) continue;
      // Another holder, or the same one's life made longer: a live process holds it.
      if (now !== holder || left > life || Date.now() > deadline)
        throw new ReadModelsInUseError(part, now, options.instance);
      life = left;
    }
  }

  let stopped = false;
  const stopRenewing = repeat(
    renewMs,
    async () => {
      if (await renewLease(redis, key, self, ttlMs)) return;
      // Not renewed: Redis lost it (taken again), or the release under way removed it (left alone).
      if (stopped || (await take())) return;
      const holder = String(await redis.get(key));
      if (stopped) return;
      // Another's: no renewal nor release touches it again.
      stopped = true;
      stopRenewing();
      const lost = new WriterLeaseLostError(part, holder, options.instance);
      if (options.onLost) options.onLost(lost);
      else options.onError?.(lost);
    },
    options.onError,
  );

  return async () => {
    if (stopped) return;
    stopped = true;
    stopRenewing();
    // Out of reach, the lease runs out by itself within its life.
    await releaseLease(redis, key, self).catch(() => undefined);
  };
}
