/**
 * Per-user limits on work that holds the CPU for a while (prediction fits): a user may run a few at once, and a
 * request beyond that is refused with 429 at once rather than queued, so one user cannot slow everyone down.
 */
import { ApiError } from '../errors.ts';

/** Runs each user's jobs with at most `max` of them at once. */
export class PerUserConcurrency {
  private readonly running = new Map<string, number>();

  constructor(
    /** Most jobs one user may run at once. */
    readonly max: number,
    /** What the refusal calls the work, e.g. `prediction fits`. */
    private readonly what: string,
  ) {}

  /** Runs `job` for `userId`, or refuses with 429 and `Retry-After` when the user already runs `max`. */
  async run<T>(ctx: { set(header: string, value: string): void }, userId: string, job: () => Promise<T>): Promise<T> {
    const count = this.running.get(userId) ?? 0;
    if (count >= this.max) {
      ctx.set('Retry-After', '1');
      throw new ApiError(429, 'rate_limited', `too many ${this.what} at once: at most ${this.max} per user`);
    }
    this.running.set(userId, count + 1);
    try {
      return await job();
    } finally {
      const left = (this.running.get(userId) ?? 1) - 1;
      if (left === 0) this.running.delete(userId);
      else this.running.set(userId, left);
    }
  }
}
