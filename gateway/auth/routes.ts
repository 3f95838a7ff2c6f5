/**
 * Session routes of the API contract: register, login, logout, logged-in status.
 */
import { authApi } from '../../domain/contract/auth.ts';
import { ACCOUNT_CONCERN, accountDecider, initialOf, type AccountEvent } from '../../domain/accounts/accounts.ts';
import { fold } from '../../domain/decider.ts';
import { streamName } from '../../domain/ids.ts';
import { StreamNotFoundError, type EventStore } from '../../platform/eventstore/port.ts';
import { dummyHash, hashPassword, verifyPassword } from '../../platform/passwords.ts';
import type { SessionStore } from '../../platform/sessions/port.ts';
import type { CommandService } from '../commands.ts';
import { ApiError } from '../errors.ts';
import { inRequestTerms } from '../http/fieldNames.ts';
import { defineRoute } from '../http/route.ts';
import { refuseIfWaiting, type AuthLimiter } from './limits.ts';
import { SESSION_COOKIE, SESSION_TTL_MS, clearSessionCookies, setSessionCookies } from './session.ts';

/** What the session routes need. */
export interface AuthDeps {
  readonly events: EventStore;
  readonly commands: CommandService;
  readonly sessions: SessionStore;
  readonly limiter: AuthLimiter;
}

const accountConcern = { concern: ACCOUNT_CONCERN, decider: accountDecider };

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

/** The session routes. */
export function authRoutes(deps: AuthDeps) {
  return [
    defineRoute({
      ...authApi.postRegister,
      handle: async ({ body, ctx, meta }) => {
        refuseIfWaiting(ctx, await deps.limiter.register(ctx.ip), 'too many registrations');
        const passwordHash = await hashPassword(body.password);
        await inRequestTerms({ username: 'body.username' }, () =>
          deps.commands.execute(
            accountConcern,
            { type: 'RegisterUser', data: { username: body.username, passwordHash } },
            { ...meta(), userId: body.username, actor: `user:${body.username}` },
          ),
        );
        return { username: body.username, initial: initialOf(body.username) };
      },
    }),
    defineRoute({
      ...authApi.postLogin,
      handle: async ({ body, ctx, meta }) => {
        const username = body.username.toLowerCase();
        refuseIfWaiting(ctx, await deps.limiter.signInBegin(username, ctx.ip), 'too many failed sign-ins');
        const account = await readAccount(deps.events, username);
        const ok = await verifyPassword(body.password, account.passwordHash ?? (await dummyHash()));
        const right = ok && account.username !== null;
        await deps.limiter.signInEnded(username, ctx.ip, right);
        if (!right) throw new ApiError(401, 'unauthorized', 'username or password is wrong');
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
      ...authApi.getLoggedinstatus,
      handle: ({ session }) => Promise.resolve(session !== null),
    }),
    defineRoute({
      ...authApi.getSession,
      handle: ({ session }) =>
        Promise.resolve({
          signedIn: session !== null,
          username: session?.userId ?? null,
          roles: session ? [...session.roles] : [],
        }),
    }),
    defineRoute({
      ...authApi.postLogout,
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
