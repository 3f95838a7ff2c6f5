/**
 * `Idempotency-Key`: a client retrying a request sends the same key, and the command is not issued twice. The key
 * is checked on every state-changing request, and a key already used for another request (another method, path
 * or body) is refused with a 422 naming the key rather than answered with the first request's result.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { canonicalJson } from '../../platform/audit/hashChain.ts';
import { ApiError } from '../errors.ts';

/** The header's name. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** Idempotency keys: 1–200 visible ASCII characters. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;

/** The request's idempotency key, or undefined when it has none; a malformed key is refused with a 400. */
export function idempotencyKeyOf(ctx: Context): string | undefined {
  const key = ctx.get(IDEMPOTENCY_HEADER);
  if (!key) return undefined;
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw new ApiError(400, 'bad_request', `${IDEMPOTENCY_HEADER}: 1-200 visible ASCII characters`);
  }
  return key;
}

/**
 * A body's fields left out of its fingerprint: the fingerprint is kept in the log with the command, where a fast
 * hash of a password, or of a link's token, could be checked against guesses offline. Every route taking one
 * checks it on each request (a sign-in, a password change or reset, a confirmation verifies it before its command,
 * retried or not; a retried password change checks both passwords against the change it retries), so leaving it
 * out lets nothing through.
 */
const SECRET_FIELDS: readonly string[] = ['password', 'currentPassword', 'newPassword', 'token'];

/** `body` without its {@link SECRET_FIELDS}. */
function withoutSecrets(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  if (!SECRET_FIELDS.some((field) => Object.hasOwn(body, field))) return body;
  return Object.fromEntries(Object.entries(body).filter(([field]) => !SECRET_FIELDS.includes(field)));
}

/**
 * What makes two requests the same request: method, path and body (object keys in any order), a password left
 * out ({@link SECRET_FIELDS}).
 */
export function requestFingerprint(ctx: Context): string {
  const body: unknown = withoutSecrets(ctx.request.body);
  return createHash('sha256')
    .update(`${ctx.method} ${ctx.path}\n${canonicalJson(body ?? null)}`)
    .digest('base64url');
}

/** The refusal of a key already used for another request. */
export function keyReused(ctx: Context): ApiError {
  return new ApiError(
    422,
    'idempotency_key_reused',
    `${IDEMPOTENCY_HEADER}: ${ctx.get(IDEMPOTENCY_HEADER)} was already used with a different request`,
  );
}
