/**
 * Sign-in rate limiting: failed attempts counted per account and per address in fixed windows; past the
 * limit, attempts are refused with the seconds to wait.
 */

/** Counts failures under a key and says how long a key must wait. */
export interface RateLimiter {
  /** Seconds until `key` may try again, or 0 when it may try now. */
  retryAfter(key: string): Promise<number>;
  /** Records a failed attempt under `key`. */
  fail(key: string): Promise<void>;
  /** Forgets the failures of `key` (after a success). */
  reset(key: string): Promise<void>;
}

/** Limits of the sign-in rate limiter. */
export interface RateLimits {
  /** Failed attempts allowed in one window. */
  readonly max: number;
  /** Window length in ms. */
  readonly windowMs: number;
}

/** In-process rate limiter (one process; the distributed mode keeps the counters in Redis). */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly limits: (key: string) => RateLimits,
    private readonly now: () => number = Date.now,
  ) {}

  private window(key: string): { count: number; resetAt: number } | undefined {
    const w = this.windows.get(key);
    if (w && w.resetAt <= this.now()) {
      this.windows.delete(key);
      return undefined;
    }
    return w;
  }

  retryAfter(key: string): Promise<number> {
    const w = this.window(key);
    if (!w || w.count < this.limits(key).max) return Promise.resolve(0);
    return Promise.resolve(Math.max(1, Math.ceil((w.resetAt - this.now()) / 1000)));
  }

  fail(key: string): Promise<void> {
    const w = this.window(key);
    if (w) w.count += 1;
    else this.windows.set(key, { count: 1, resetAt: this.now() + this.limits(key).windowMs });
    if (this.windows.size > 100_000) this.sweep();
    return Promise.resolve();
  }

  reset(key: string): Promise<void> {
    this.windows.delete(key);
    return Promise.resolve();
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, w] of this.windows) if (w.resetAt <= now) this.windows.delete(key);
  }
}

/** Default sign-in limits: 5 failures per account and 20 per address in 15 minutes. */
export function signInLimits(key: string): RateLimits {
  return key.startsWith('account:') ? { max: 5, windowMs: 15 * 60_000 } : { max: 20, windowMs: 15 * 60_000 };
}
