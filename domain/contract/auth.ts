/**
 * The session routes of the API: register, login, logout, logged-in status, the session and its roles, and
 * resetting a forgotten password through a link e-mailed to the account's confirmed addresses.
 */
import { z } from './zod.ts';
import { PASSWORD_LENGTH, USERNAME_PATTERN, USERNAME_TEXT } from '../accounts/accounts.ts';
import { isUuid } from '../ids.ts';
import { route } from './route.ts';
import { sessionAnswer } from './session.ts';

const TOO_LONG = `must be at most ${PASSWORD_LENGTH.max} characters`;

const credentials = z.strictObject({
  username: z.string().regex(USERNAME_PATTERN, `must be ${USERNAME_TEXT}`),
  password: z
    .string()
    .min(PASSWORD_LENGTH.min, `must be at least ${PASSWORD_LENGTH.min} characters`)
    .max(PASSWORD_LENGTH.max, TOO_LONG),
});

const loginBody = z.strictObject({
  username: z.string().min(1, 'is required').max(64, 'is too long'),
  password: z.string().min(1, 'is required').max(PASSWORD_LENGTH.max, TOO_LONG),
});

const passwordChange = z.strictObject({
  currentPassword: z.string().min(1, 'is required').max(PASSWORD_LENGTH.max, TOO_LONG),
  newPassword: credentials.shape.password,
});

/** Who forgot the password: the name typed on the sign-in page (any name is answered the same way). */
const passwordForgot = z.strictObject({ username: loginBody.shape.username });

/** The fields of a reset link (`/ResetPassword?user=…&request=…&token=…`) and the new password. */
const passwordReset = z.strictObject({
  user: z.string().min(1, 'is required').max(64, 'is too long'),
  request: z
    .string()
    .trim()
    .refine((v) => isUuid(v), 'must be the request id of a reset link')
    .transform((v) => v.toLowerCase()),
  token: z.string().min(1, 'is required').max(128, 'is too long'),
  newPassword: credentials.shape.password,
});

/** The answer to a forgotten password: the same whether or not a link was sent. */
const resetRequested = z.object({ requested: z.literal(true) });

/** What `POST /api/account/password/forgot` answers. */
export type ResetRequested = z.infer<typeof resetRequested>;

/** The body of `POST /api/account/password/reset`. */
export type PasswordResetBody = z.input<typeof passwordReset>;

/** How many of the user's other sessions a request ended. */
const sessionsEnded = z.object({ endedSessions: z.number().int().nonnegative() });

/** A signed-in user: the name and the initial the header shows. */
const userAnswer = z.object({ username: z.string(), initial: z.string() });

/** A signed-in user as `POST /api/login` answers it. */
export type SignedIn = z.infer<typeof userAnswer>;

/** The auth routes. */
export const authApi = {
  postRegister: route({
    method: 'POST',
    path: '/api/register',
    summary: 'Create an account',
    tag: 'session',
    access: 'public',
    body: credentials,
    response: userAnswer,
    status: 201,
  }),
  postLogin: route({
    method: 'POST',
    path: '/api/login',
    summary: 'Sign in; sets the session cookie and the initial cookie',
    tag: 'session',
    access: 'public',
    body: loginBody,
    response: userAnswer,
  }),
  getLoggedinstatus: route({
    method: 'GET',
    path: '/api/loggedinstatus',
    summary: 'Whether the caller has a session (never 401)',
    tag: 'session',
    access: 'public',
    response: z.boolean(),
  }),
  getSession: route({
    method: 'GET',
    path: '/api/session',
    summary: "The caller's session: signed in or not, the user name and the roles it holds (never 401)",
    tag: 'session',
    access: 'public',
    response: sessionAnswer,
  }),
  postPassword: route({
    method: 'POST',
    path: '/api/account/password',
    summary:
      "Change the password (the current one checked, wrong ones counted as failed sign-ins); ends the user's " +
      'other sessions and their sockets, this one stays',
    tag: 'session',
    access: 'user',
    body: passwordChange,
    response: sessionsEnded,
  }),
  postPasswordForgot: route({
    method: 'POST',
    path: '/api/account/password/forgot',
    summary:
      'Ask for a password reset link: when the account has a confirmed e-mail address, a link working for one ' +
      'hour is e-mailed to each; answers the same 202 whether or not the account exists or has one (at most 5 ' +
      'requests per user name and 20 per address an hour, then 429 with Retry-After)',
    tag: 'session',
    access: 'public',
    body: passwordForgot,
    response: resetRequested,
    status: 202,
  }),
  postPasswordReset: route({
    method: 'POST',
    path: '/api/account/password/reset',
    summary:
      "Set a new password with a reset link's user, request and token: the request must be the account's latest, " +
      'unused, at most one hour old, and the password changed by no other means since; ends every session of the ' +
      'user and their sockets (at most 20 attempts per address an hour, then 429 with Retry-After)',
    tag: 'session',
    access: 'public',
    body: passwordReset,
    response: sessionsEnded,
  }),
  postEndOtherSessions: route({
    method: 'POST',
    path: '/api/account/sessions/end-others',
    summary: 'End every session of the user but this one (other devices and browsers), and their sockets',
    tag: 'session',
    access: 'user',
    response: sessionsEnded,
  }),
  postLogout: route({
    method: 'POST',
    path: '/api/logout',
    summary: 'End the session and clear the initial cookie',
    tag: 'session',
    access: 'user',
    response: z.literal(true),
  }),
};
