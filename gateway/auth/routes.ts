/**
 * Session routes of the API contract: register, login, logout, logged-in status, changing the password,
 * ending the other sessions, and resetting a forgotten password through a link e-mailed to a confirmed address.
 */
import { authApi } from '../../domain/contract/auth.ts';
import type { Context } from 'koa';
import { ACCOUNT_CONCERN, accountDecider, initialOf, type AccountEvent } from '../../domain/accounts/accounts.ts';
import { CHANNELS_CONCERN, channelsDecider, type ChannelsEvent } from '../../domain/channels/channels.ts';
import { fold, type CommandMeta } from '../../domain/decider.ts';
import { STOCKPULSE_NAMESPACE, streamName, uuidV5 } from '../../domain/ids.ts';
import type { DeliverySetup } from '../../engine/delivery/setup.ts';
import { StreamNotFoundError, type EventStore, type RecordedEvent } from '../../platform/eventstore/port.ts';
import { dummyHash, hashPassword, verifyPassword } from '../../platform/passwords.ts';
import type { SessionStore } from '../../platform/sessions/port.ts';
import type { CommandService } from '../commands.ts';
import { ApiError } from '../errors.ts';
import { inRequestTerms } from '../http/fieldNames.ts';
import { keyReused } from '../http/idempotency.ts';
import { defineRoute } from '../http/route.ts';
import { refuseIfWaiting, type AuthLimiter } from './limits.ts';
import { SESSION_COOKIE, SESSION_TTL_MS, clearSessionCookies, setSessionCookies } from './session.ts';

/** What the session routes need. */
export interface AuthDeps {
  readonly events: EventStore;
  readonly commands: CommandService;
  readonly sessions: SessionStore;
  readonly limiter: AuthLimiter;
  /** The secrets that check a password reset link's token; that route answers 503 without. */
  readonly delivery?: DeliverySetup | undefined;
}

const accountConcern = { concern: ACCOUNT_CONCERN, decider: accountDecider };

async function readAccountEvents(events: EventStore, username: string): Promise<readonly RecordedEvent[]> {
  try {
    return await events.readStream(streamName(ACCOUNT_CONCERN, username));
  } catch (error) {
    if (error instanceof StreamNotFoundError) return [];
    throw error;
  }
}

const accountOf = (recorded: readonly RecordedEvent[]) =>
  fold(
    accountDecider,
    recorded.map((e) => ({ type: e.type, data: e.data }) as AccountEvent),
  );

async function readAccount(events: EventStore, username: string) {
  return accountOf(await readAccountEvents(events, username));
}

/** A password change recorded under a command id: the password hashes before and after it. */
interface RecordedChange {
  readonly before: string | null;
  readonly after: string;
}

/** The password change recorded under `commandId` (a retried request's), if any. */
function changeRecordedAs(recorded: readonly RecordedEvent[], commandId: string): RecordedChange | undefined {
  for (let i = 0; i < recorded.length; i++) {
    const event = recorded[i]!;
    if (event.type !== 'PasswordChanged' || (event.metadata as { commandId?: unknown }).commandId !== commandId) {
      continue;
    }
    const before = accountOf(recorded.slice(0, i)).passwordHash;
    return { before, after: (event.data as { passwordHash: string }).passwordHash };
  }
  return undefined;
}

/** How many sessions the request under `commandId` ended, as recorded, if it got that far. */
function endedRecordedAs(recorded: readonly RecordedEvent[], commandId: string): number | undefined {
  const event = recorded.find(
    (e) => e.type === 'OtherSessionsEnded' && (e.metadata as { commandId?: unknown }).commandId === commandId,
  );
  return event === undefined ? undefined : (event.data as { ended: number }).ended;
}

/** Whether the user has an e-mail address confirmed, to send a reset link to (false for an unknown user). */
async function hasConfirmedEmail(events: EventStore, username: string): Promise<boolean> {
  try {
    const recorded = await events.readStream(streamName(CHANNELS_CONCERN, username));
    const state = fold(
      channelsDecider,
      recorded.map((e) => ({ type: e.type, data: e.data }) as ChannelsEvent),
    );
    return state.channels.some((channel) => channel.type === 'email' && channel.confirmed);
  } catch (error) {
    if (error instanceof StreamNotFoundError) return false;
    throw error;
  }
}

/** The metadata of a command a public route issues for `username`, on its stream. */
function userMeta(meta: () => CommandMeta, username: string): () => CommandMeta {
  return () => ({ ...meta(), userId: username, actor: `user:${username}` });
}

/** The session routes. */
export function authRoutes(deps: AuthDeps) {
  /**
   * Ends the user's sessions (and their sockets) but the one of `keep` (every one when null), records how many,
   * and answers that.
   */
  const endSessions = async (username: string, keep: string | null, meta: () => CommandMeta): Promise<number> => {
    const ended = await deps.sessions.endOthers(username, keep);
    // Its own command id: the password change before it in the same request holds the request's.
    const m = meta();
    await deps.commands.execute(
      accountConcern,
      { type: 'EndOtherSessions', data: { ended: ended.length } },
      { ...m, commandId: `${m.commandId}/end-others` },
    );
    return ended.length;
  };
  /** Ends the user's sessions but the caller's, records how many, and answers that. */
  const endOthers = (username: string, ctx: Context, meta: () => CommandMeta): Promise<number> =>
    endSessions(username, ctx.cookies.get(SESSION_COOKIE) ?? null, meta);
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
      ...authApi.postPassword,
      handle: async ({ body, ctx, session, meta }) => {
        const username = session!.userId;
        // Counted as a sign-in, so this route guesses passwords no faster than signing in does.
        refuseIfWaiting(ctx, await deps.limiter.signInBegin(username, ctx.ip), 'too many wrong passwords');
        const recorded = await readAccountEvents(deps.events, username);
        const { commandId } = meta();
        const earlier = changeRecordedAs(recorded, commandId);
        if (earlier !== undefined) {
          // A retry of a change already made (its answer was lost): the same passwords get the same answer, the
          // current one checked against the password it replaced; any other request under the key is refused.
          const same =
            (await verifyPassword(body.currentPassword, earlier.before ?? (await dummyHash()))) &&
            (await verifyPassword(body.newPassword, earlier.after));
          await deps.limiter.signInEnded(username, ctx.ip, same);
          if (!same) throw keyReused(ctx);
          const ended = endedRecordedAs(recorded, `${commandId}/end-others`);
          return { endedSessions: ended ?? (await endOthers(username, ctx, meta)) };
        }
        const account = accountOf(recorded);
        const right = await verifyPassword(body.currentPassword, account.passwordHash ?? (await dummyHash()));
        await deps.limiter.signInEnded(username, ctx.ip, right);
        if (!right) throw new ApiError(400, 'bad_request', 'body.currentPassword: is not the password of this account');
        if (body.newPassword === body.currentPassword) {
          throw new ApiError(400, 'bad_request', 'body.newPassword: is the current password');
        }
        const passwordHash = await hashPassword(body.newPassword);
        await deps.commands.execute(accountConcern, { type: 'ChangePassword', data: { passwordHash } }, meta());
        return { endedSessions: await endOthers(username, ctx, meta) };
      },
    }),
    defineRoute({
      ...authApi.postPasswordForgot,
      handle: async ({ body, ctx, meta }) => {
        const username = body.username.toLowerCase();
        refuseIfWaiting(ctx, await deps.limiter.resetRequest(username, ctx.ip), 'too many password reset requests');
        // Both are read whatever the name, and the answer is the same, so it tells nothing about the account.
        const [account, reachable] = await Promise.all([
          readAccount(deps.events, username),
          hasConfirmedEmail(deps.events, username),
        ]);
        if (account.username !== null && reachable) {
          const m = userMeta(meta, username)();
          // A retried request (same Idempotency-Key) derives the same request id and appends nothing again.
          const requestId = uuidV5(`${m.commandId}/password-reset`, STOCKPULSE_NAMESPACE);
          await deps.commands.execute(
            accountConcern,
            { type: 'RequestPasswordReset', data: { requestId, at: m.at } },
            m,
          );
        }
        return { requested: true as const };
      },
    }),
    defineRoute({
      ...authApi.postPasswordReset,
      handle: async ({ body, ctx, session, meta }) => {
        // Every attempt counts, a wrong token's too, so links cannot be guessed at speed.
        refuseIfWaiting(ctx, await deps.limiter.resetAttempt(ctx.ip), 'too many password reset attempts');
        if (!deps.delivery) throw new ApiError(503, 'unavailable', 'delivery is not set up on this server');
        if (!deps.delivery.secrets.checkResetToken(body.user, body.request, body.token)) {
          throw new ApiError(400, 'bad_request', 'body.token: is not the token of this reset link');
        }
        const username = body.user;
        const passwordHash = await hashPassword(body.newPassword);
        const m = userMeta(meta, username);
        await inRequestTerms({ request: 'body.request', username: 'body.user' }, () =>
          deps.commands.execute(
            accountConcern,
            { type: 'ResetPassword', data: { requestId: body.request, passwordHash, at: m().at } },
            m(),
          ),
        );
        // Whoever signed in with the old password is signed out, this browser too.
        const endedSessions = await endSessions(username, null, m);
        if (session?.userId === username) clearSessionCookies(ctx);
        return { endedSessions };
      },
    }),
    defineRoute({
      ...authApi.postEndOtherSessions,
      handle: async ({ ctx, session, meta }) => ({ endedSessions: await endOthers(session!.userId, ctx, meta) }),
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
