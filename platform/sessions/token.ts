import { createHash, randomBytes } from 'node:crypto';

/** A new session token: 32 random bytes, base64url. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The stored form of a token: its SHA-256, base64url. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}
