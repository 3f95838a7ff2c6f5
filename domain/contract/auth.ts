/**
 * The session routes of the API: register, login, logout, logged-in status, the session and its roles.
 */
import { z } from './zod.ts';
import { USERNAME_PATTERN } from '../accounts/accounts.ts';
import { route } from './route.ts';
import { sessionAnswer } from './session.ts';

const credentials = z.object({
  username: z.string().regex(USERNAME_PATTERN, 'must be 3-32 characters of a-z 0-9 _ . -'),
  password: z.string().min(8, 'must be at least 8 characters').max(128, 'must be at most 128 characters'),
});

const loginBody = z.object({
  username: z.string().min(1, 'is required').max(64, 'is too long'),
  password: z.string().min(1, 'is required').max(128, 'must be at most 128 characters'),
});

const passwordChange = z.object({
  currentPassword: z.string().min(1, 'is required').max(128, 'must be at most 128 characters'),
  newPassword: credentials.shape.password,
});

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
