/**
 * When a failed delivery is tried again: exponential backoff with jitter, so receivers that come back are not
 * all hit at once. The default makes 6 attempts over about 15 minutes. A receiver that asks for a later time
 * (`Retry-After` on a 429 or 503) is tried then instead, up to {@link RETRY_AFTER_MAX_MS} away.
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

/** The longest wait a receiver's `Retry-After` is followed for: one hour; a longer one is cut to this. */
export const RETRY_AFTER_MAX_MS = 3_600_000;

/** Statuses whose `Retry-After` says when to try again (RFC 9110 §10.2.3, RFC 6585 §4). */
export const RETRY_AFTER_STATUSES: readonly number[] = Object.freeze([429, 503]);

const DELAY_SECONDS = /^\d{1,12}$/;
// An HTTP date names its day or month (`Sun, 06 Nov 1994 08:49:37 GMT`, or the obsolete RFC 850 and asctime
// forms); requiring letters keeps `Date.parse` from reading other numbers as a date.
const HTTP_DATE = /^[A-Za-z]{3}.*\d{2}:\d{2}:\d{2}/;

/**
 * Milliseconds from `nowMs` that a `Retry-After` value asks to wait: delay-seconds or an HTTP date (0 for a
 * date already past); null when the value is neither.
 */
export function retryAfterMs(value: string | null | undefined, nowMs: number): number | null {
  const text = value?.trim() ?? '';
  if (DELAY_SECONDS.test(text)) return Number(text) * 1000;
  if (!HTTP_DATE.test(text)) return null;
  // HTTP dates are in GMT; the asctime form does not say so, and `Date.parse` would read it as local time.
  const at = Date.parse(/GMT$/i.test(text) ? text : `${text} GMT`);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/**
 * Milliseconds to wait after failed attempt `attempt` (1-based), or null when it was the last; `random` in
 * [0, 1) places the delay within the jitter. A wait the receiver asked for (`retryAfter`, see
 * {@link retryAfterMs}) is followed when longer than the policy's, up to {@link RETRY_AFTER_MAX_MS}; it never
 * adds an attempt.
 */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  random: number,
  retryAfter: number | null = null,
): number | null {
  const base = policy.delaysMs[attempt - 1];
  if (base === undefined) return null;
  const delay = Math.max(0, Math.round(base * (1 + policy.jitter * (2 * random - 1))));
  return retryAfter === null ? delay : Math.max(delay, Math.min(retryAfter, RETRY_AFTER_MAX_MS));
}
