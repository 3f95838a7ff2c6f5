import type { Context } from 'koa';
import type { Session, SessionStore } from '../../platform/sessions/port.ts';
import { recallSession } from './sessionCache.ts';

/** Name of the HttpOnly session cookie. */
export const SESSION_COOKIE = 'sid';
/** Name of the cookie the page reads for the avatar (holds nothing secret). */
export const INITIAL_COOKIE = 'initial';
/** How long a session lasts. */
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** The session cookie in a `Cookie` header, matched as the `cookies` package's `get` matches it. */
const SESSION_COOKIE_PATTERN = new RegExp(`(?:^|;) *${SESSION_COOKIE}=([^;]*)`);

/**
 * The session cookie's value in a `Cookie` header (a request's, or a socket's handshake's), read as
 * `ctx.cookies.get(SESSION_COOKIE)` reads it (unsigned, surrounding quotes removed, not decoded: a token is
 * URL-safe) without making the request's `Cookies` object.
 */
export function sessionTokenOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const value = SESSION_COOKIE_PATTERN.exec(header)?.[1];
  return value?.[0] === '"' ? value.slice(1, -1) : value;
}

/**
 * Loads the caller's session from the cookie into `ctx.state.session` (null when none or expired); answers
 * undefined, with nothing to wait for, when the request has no session cookie or its session is held in memory.
 */
export function readSession(ctx: Context, sessions: SessionStore): Promise<void> | undefined {
  const token = sessionTokenOf(ctx.req.headers.cookie);
  ctx.state.session = null;
  if (!token) return undefined;
  // A session the in-process cache holds needs no promise (see `sessionCache.ts`).
  const known = recallSession(sessions, token);
  if (known === undefined) return setSession(ctx, sessions, token);
  ctx.state.session = known;
  return undefined;
}

async function setSession(ctx: Context, sessions: SessionStore, token: string): Promise<void> {
  ctx.state.session = await sessions.get(token);
}

/** The session loaded for this request. */
export function sessionOf(ctx: Context): Session | null {
  return (ctx.state.session as Session | null | undefined) ?? null;
}

/** Sets the session and initial cookies after a sign-in. */
export function setSessionCookies(ctx: Context, token: string, initial: string): void {
  const common = { sameSite: 'lax' as const, secure: ctx.secure, path: '/', maxAge: SESSION_TTL_MS, overwrite: true };
  ctx.cookies.set(SESSION_COOKIE, token, { ...common, httpOnly: true });
  ctx.cookies.set(INITIAL_COOKIE, initial, { ...common, httpOnly: false });
}

/** Clears both cookies after a sign-out. */
export function clearSessionCookies(ctx: Context): void {
  const common = { sameSite: 'lax' as const, secure: ctx.secure, path: '/', overwrite: true, maxAge: 0 };
  ctx.cookies.set(SESSION_COOKIE, '', { ...common, httpOnly: true });
  ctx.cookies.set(INITIAL_COOKIE, '', { ...common, httpOnly: false });
}
