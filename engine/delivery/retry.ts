/**
 * When a failed delivery is tried again: exponential backoff with jitter, so receivers that come back are not
 * all hit at once. The default makes 6 attempts over about 15 minutes.
 */

/** A retry policy: the delay before each further attempt, and the jitter applied to it. */
export interface RetryPolicy {
  /** Milliseconds before attempt 2, 3, …; its length + 1 is the number of attempts. */
  readonly delaysMs: readonly number[];
  /** The fraction of a delay the jitter may add or take away (0 to 1). */
  readonly jitter: number;
}

/** 30 s, 1 min, 2 min, 4 min, 8 min: 6 attempts over about 15 minutes. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  delaysMs: Object.freeze([30_000, 60_000, 120_000, 240_000, 480_000]),
  jitter: 0.2,
});

/** The most attempts a delivery gets under a policy. */
export function maxAttempts(policy: RetryPolicy): number {
  return policy.delaysMs.length + 1;
}

/**
 * Milliseconds to wait after failed attempt `attempt` (1-based), or null when it was the last; `random` in
 * [0, 1) places the delay within the jitter.
 */
export function retryDelay(policy: RetryPolicy, attempt: number, random: number): number | null {
  const base = policy.delaysMs[attempt - 1];
  if (base === undefined) return null;
  return Math.max(0, Math.round(base * (1 + policy.jitter * (2 * random - 1))));
}
