/**
 * Session routes of the API contract: register, login, logout, logged-in status.
 */
import { z } from 'zod';
import {
  ACCOUNT_CONCERN,
  USERNAME_PATTERN,
  accountDecider,
  initialOf,
  type AccountEvent,
} from '../../domain/accounts/accounts.ts';
import { sessionAnswer } from '../../domain/contract/session.ts';
import { fold } from '../../domain/decider.ts';
import { streamName } from '../../domain/ids.ts';
import { StreamNotFoundError, type EventStore } from '../../platform/eventstore/port.ts';
import { dummyHash, hashPassword, verifyPassword } from '../../platform/passwords.ts';
import type { SessionStore } from '../../platform/sessions/port.ts';
import type { CommandService } from '../commands.ts';
import { ApiError } from '../errors.ts';
import { defineRoute } from '../http/route.ts';
import type { RateLimiter } from './rateLimit.ts';
import { SESSION_COOKIE, SESSION_TTL_MS, clearSessionCookies, setSessionCookies } from './session.ts';

/** What the session routes need. */
export interface AuthDeps {
  readonly events: EventStore;
  readonly commands: CommandService;
  readonly sessions: SessionStore;
  readonly rateLimiter: RateLimiter;
}

const accountConcern = { concern: ACCOUNT_CONCERN, decider: accountDecider };

const credentials = z.object({
  username: z.string().regex(USERNAME_PATTERN, 'must be 3-32 characters of a-z 0-9 _ . -'),
  password: z.string().min(8, 'must be at least 8 characters').max(128, 'must be at most 128 characters'),
});

const loginBody = z.object({
  username: z.string().min(1, 'is required').max(64, 'is too long'),
  password: z.string().min(1, 'is required').max(128, 'must be at most 128 characters'),
});

const userAnswer = z.object({ username: z.string(), initial: z.string() });

async function readAccount(events: EventStore, username: string) {
  try {
    const recorded = await events.readStream(streamName(ACCOUNT_CONCERN, username));
    return fold(
      accountDecider,
      recorded.map((e) => ({ type: e.type, data: e.data }) as AccountEvent),
    );
  } catch (error) {
    if (error instanceof StreamNotFoundError) return accountDecider.initialState;
    throw error;
  }
}

async function refuseIfLimited(
  limiter: RateLimiter,
  keys: readonly string[],
  ctx: { set(h: string, v: string): void },
) {
  const waits = await Promise.all(keys.map((k) => limiter.retryAfter(k)));
  const wait = Math.max(...waits);
  if (wait > 0) {
    ctx.set('Retry-After', String(wait));
    throw new ApiError(429, 'rate_limited', `too many failed sign-ins; try again in ${wait} s`);
  }
}

/** The session routes. */
export function authRoutes(deps: AuthDeps) {
  return [
    defineRoute({
      method: 'POST',
      path: '/api/register',
      summary: 'Create an account',
      tag: 'session',
      access: 'public',
      body: credentials,
      response: userAnswer,
      status: 201,
      handle: async ({ body, meta }) => {
        const passwordHash = await hashPassword(body.password);
        await deps.commands.execute(
          accountConcern,
          { type: 'RegisterUser', data: { username: body.username, passwordHash } },
          { ...meta(), userId: body.username, actor: `user:${body.username}` },
        );
        return { username: body.username, initial: initialOf(body.username) };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/login',
      summary: 'Sign in; sets the session cookie and the initial cookie',
      tag: 'session',
      access: 'public',
      body: loginBody,
      response: userAnswer,
      handle: async ({ body, ctx, meta }) => {
        const username = body.username.toLowerCase();
        const keys = [`account:${username}`, `address:${ctx.ip}`];
        await refuseIfLimited(deps.rateLimiter, keys, ctx);
        const account = await readAccount(deps.events, username);
        const ok = await verifyPassword(body.password, account.passwordHash ?? (await dummyHash()));
        if (!ok || account.username === null) {
          await Promise.all(keys.map((k) => deps.rateLimiter.fail(k)));
          throw new ApiError(401, 'unauthorized', 'username or password is wrong');
        }
        await deps.rateLimiter.reset(keys[0]!);
        await deps.commands.execute(
          accountConcern,
          { type: 'SignIn', data: { address: ctx.ip } },
          { ...meta(), userId: username, actor: `user:${username}` },
        );
        const token = await deps.sessions.create(username, account.roles, SESSION_TTL_MS);
        setSessionCookies(ctx, token, initialOf(username));
        return { username, initial: initialOf(username) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/loggedinstatus',
      summary: 'Whether the caller has a session (never 401)',
      tag: 'session',
      access: 'public',
      response: z.boolean(),
      handle: ({ session }) => Promise.resolve(session !== null),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/session',
      summary: "The caller's session: signed in or not, the user name and the roles it holds (never 401)",
      tag: 'session',
      access: 'public',
      response: sessionAnswer,
      handle: ({ session }) =>
        Promise.resolve({
          signedIn: session !== null,
          username: session?.userId ?? null,
          roles: session ? [...session.roles] : [],
        }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/logout',
      summary: 'End the session and clear the initial cookie',
      tag: 'session',
      access: 'user',
      response: z.literal(true),
      handle: async ({ ctx, meta }) => {
        await deps.commands.execute(accountConcern, { type: 'SignOut', data: {} }, meta());
        const token = ctx.cookies.get(SESSION_COOKIE);
        if (token) await deps.sessions.delete(token);
        clearSessionCookies(ctx);
        return true;
      },
    }),
  ];
}
