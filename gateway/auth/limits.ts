/**
 * Limits on registration and sign-in.
 *
 * Registration: at most `registrationsPerAddress` attempts per address per hour and `registrationsPerHour`
 * from all addresses together, counted before the attempt is decided (a name taken counts), so the route cannot
 * be used to try names in bulk.
 *
 * Sign-in: wrong passwords are counted per (account, address) and per address, not per account, so nobody can
 * keep a user out by guessing from elsewhere, and users behind one address do not lock each other out. After
 * `signInFreeFailures` wrong passwords for one account from one address, each further one makes that address
 * wait twice as long before its next try for that account (2 s, 4 s, … up to 15 min); the right password from
 * an address that has not failed signs in. An address that sends `signInFailuresPerAddress` wrong passwords in
 * an hour, whatever the accounts, waits for the hour to end. A success forgets the (account, address) failures.
 * Each attempt counts as a wrong password from the moment it starts until its password proves right, so attempts
 * sent at once are held as the same attempts one after the other would be: the ones beyond the free failures
 * each need the wait of the one before to be over, and an address's attempts beyond its hour's limit are refused
 * (a refused attempt is not counted).
 *
 * Messages sent on a user's request (a channel's test, an email address's confirmation): at most
 * {@link SENDS_ON_REQUEST_PER_HOUR} per user per hour, so the server cannot be made to mail or post in bulk.
 *
 * Password resets: at most {@link RESET_REQUESTS_PER_USERNAME} requests per user name and
 * {@link RESET_REQUESTS_PER_ADDRESS} per address an hour, counted whether or not the account exists (so the limit
 * tells nothing about it), and {@link RESET_ATTEMPTS_PER_ADDRESS} attempts at using a link per address an hour,
 * wrong tokens included.
 */
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { AuthLimits } from '../../platform/config.ts';
import { ApiError } from '../errors.ts';
import { secondsOf, take, type LimiterFactory } from './rateLimit.ts';

/** Longest wait a run of wrong passwords earns, in seconds. */
export const MAX_SIGN_IN_DELAY_S = 15 * 60;

/** Messages a user may have sent on request (tests, confirmation emails) per hour. */
export const SENDS_ON_REQUEST_PER_HOUR = 30;

/** Password reset requests per user name per hour. */
export const RESET_REQUESTS_PER_USERNAME = 5;

/** Password reset requests per address per hour, whatever the user names. */
export const RESET_REQUESTS_PER_ADDRESS = 20;

/** Attempts at setting a password through a reset link per address per hour, wrong tokens included. */
export const RESET_ATTEMPTS_PER_ADDRESS = 20;

/** How long wrong passwords for one account from one address are remembered, in seconds. */
const FAILURE_MEMORY_S = 24 * 60 * 60;

/** The limits applied to the session routes. */
export interface AuthLimiter {
  /** Counts a registration from `address`; answers 0, or the seconds to wait when over a limit. */
  register(address: string): Promise<number>;
  /**
   * Starts a sign-in to `account` from `address`: answers 0, the attempt then counted as a wrong password until
   * {@link signInEnded} says it was right, or the seconds to wait (the attempt refused, not counted).
   */
  signInBegin(account: string, address: string): Promise<number>;
  /**
   * Ends a sign-in begun: a right password forgets the wrong ones for `account` from `address` and is no longer
   * counted as one of the address's; a wrong one stays counted.
   */
  signInEnded(account: string, address: string, right: boolean): Promise<void>;
  /** Counts a message sent on `userId`'s request; answers 0, or the seconds to wait when over the limit. */
  sendOnRequest(userId: string): Promise<number>;
  /**
   * Counts a password reset request for `username` (existing or not) from `address`; answers 0, or the seconds
   * to wait when over a limit (then `username` is not counted).
   */
  resetRequest(username: string, address: string): Promise<number>;
  /** Counts an attempt at using a reset link from `address`; answers 0, or the seconds to wait when over the limit. */
  resetAttempt(address: string): Promise<number>;
}

/** The wait, in seconds, after the `failures`-th wrong password for one account from one address. */
export function signInDelay(failures: number, freeFailures: number): number {
  if (failures < freeFailures) return 0;
  return Math.min(MAX_SIGN_IN_DELAY_S, 2 ** (failures - freeFailures + 1));
}

async function waitOf(limiter: RateLimiterAbstract, key: string): Promise<number> {
  const res = await limiter.get(key);
  return res && res.remainingPoints <= 0 && res.msBeforeNext > 0 ? secondsOf(res) : 0;
}

/** The registration and sign-in limits on the system's counters. */
export function createAuthLimiter(limits: AuthLimits, limiters: LimiterFactory): AuthLimiter {
  const hour = 60 * 60;
  const registrationsByAddress = limiters({
    name: 'register-address',
    points: limits.registrationsPerAddress,
    durationS: hour,
  });
  const registrations = limiters({ name: 'register-all', points: limits.registrationsPerHour, durationS: hour });
  const failuresByPair = limiters({
    name: 'signin-pair',
    points: Number.MAX_SAFE_INTEGER,
    durationS: FAILURE_MEMORY_S,
  });
  const delayByPair = limiters({ name: 'signin-delay', points: 1, durationS: MAX_SIGN_IN_DELAY_S });
  const failuresByAddress = limiters({
    name: 'signin-address',
    points: limits.signInFailuresPerAddress,
    durationS: hour,
  });
  const sends = limiters({ name: 'sends-user', points: SENDS_ON_REQUEST_PER_HOUR, durationS: hour });
  const resetsByUsername = limiters({ name: 'reset-user', points: RESET_REQUESTS_PER_USERNAME, durationS: hour });
  const resetsByAddress = limiters({ name: 'reset-address', points: RESET_REQUESTS_PER_ADDRESS, durationS: hour });
  const resetAttempts = limiters({ name: 'reset-attempts', points: RESET_ATTEMPTS_PER_ADDRESS, durationS: hour });
  const pair = (account: string, address: string): string => `${account}/${address}`;
  return {
    sendOnRequest: (userId) => take(sends, userId),
    resetRequest: async (username, address) =>
      (await take(resetsByAddress, address)) || take(resetsByUsername, username),
    resetAttempt: (address) => take(resetAttempts, address),
    register: async (address) => (await take(registrationsByAddress, address)) || take(registrations, 'all'),
    signInBegin: async (account, address) => {
      const key = pair(account, address);
      const waiting = Math.max(await waitOf(delayByPair, key), await waitOf(failuresByAddress, address));
      if (waiting > 0) return waiting;
      // Counted first (each count is atomic, in Redis too), then judged by its place among the attempts.
      const [byPair, byAddress] = await Promise.all([failuresByPair.penalty(key), failuresByAddress.penalty(address)]);
      const attempt = byPair.consumedPoints;
      let wait = 0;
      if (byAddress.consumedPoints > limits.signInFailuresPerAddress) wait = secondsOf(byAddress);
      // Beyond the free failures, one attempt at a time takes the pair's turn once its wait is over.
      else if (attempt > limits.signInFreeFailures) wait = await take(delayByPair, key);
      if (wait > 0) {
        await Promise.all([failuresByPair.reward(key, 1), failuresByAddress.reward(address, 1)]);
        return wait;
      }
      const delay = signInDelay(attempt, limits.signInFreeFailures);
      if (delay > 0) await delayByPair.block(key, delay);
      return 0;
    },
    signInEnded: async (account, address, right) => {
      if (!right) return;
      const key = pair(account, address);
      await Promise.all([failuresByPair.delete(key), delayByPair.delete(key), failuresByAddress.reward(address, 1)]);
    },
  };
}

/** Answers 429 with `Retry-After` when `wait` is above 0. */
export function refuseIfWaiting(ctx: { set(header: string, value: string): void }, wait: number, what: string): void {
  if (wait <= 0) return;
  ctx.set('Retry-After', String(wait));
  throw new ApiError(429, 'rate_limited', `${what}; try again in ${wait} s`);
}
