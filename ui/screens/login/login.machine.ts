/**
 * The sign-in page: sign in or create an account on one form, errors shown in place, no page reload. A new
 * account is signed in at once.
 */
import {
  PASSWORD_LENGTH_TEXT,
  passwordLengthFits,
  USERNAME_PATTERN,
  USERNAME_TEXT,
} from '../../../domain/accounts/accounts.ts';
import { authApi, type SignedIn } from '../../../domain/contract/auth.ts';
import { assign, fromPromise, setup } from 'xstate';
import { ApiError, call, errorMessage } from '../../services/api.ts';

/** Which action the form performs. */
export type LoginMode = 'signIn' | 'register';

/** What the form sends. */
export interface Credentials {
  readonly username: string;
  readonly password: string;
}

/** What the sign-in answers. */
export type { SignedIn };

/** The page's state. */
export interface LoginContext {
  readonly mode: LoginMode;
  readonly error: string | null;
}

/** Events of the page. */
export type LoginEvent =
  { type: 'user.submit'; username: string; password: string } | { type: 'user.switchMode'; mode: LoginMode };

/** Checks the form before sending it; answers the message or null. */
export function checkCredentials(mode: LoginMode, username: string, password: string): string | null {
  if (!USERNAME_PATTERN.test(username)) {
    return `User name: ${USERNAME_TEXT}`;
  }
  if (mode === 'register' && !passwordLengthFits(password)) {
    return `Password: ${PASSWORD_LENGTH_TEXT}`;
  }
  if (password.length === 0) return 'Password: enter your password';
  return null;
}

/**
 * The field a refusal is about, marked as refused on the form: the one its message names first (the form's own
 * checks, a user name taken), or none for a refusal of both (a wrong user name or password) or of neither.
 */
export function refusedField(error: string | null): 'username' | 'password' | null {
  if (error === null) return null;
  if (error.startsWith('User name:') || error.startsWith('This user name is taken')) return 'username';
  if (error.startsWith('Password:')) return 'password';
  return null;
}

/** The message to show for a failed sign-in or registration. */
export function loginFailure(mode: LoginMode, error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 401) return 'Wrong user name or password';
    if (error.status === 409) return 'This user name is taken: choose another';
    if (error.status === 429) {
      const wait = error.retryAfter ? ` Try again in ${Math.ceil(error.retryAfter / 60)} min.` : '';
      return `Too many attempts.${wait}`;
    }
  }
  return mode === 'register' ? `Could not create the account: ${errorMessage(error)}` : errorMessage(error);
}

/** The sign-in page's machine. */
export const loginMachine = setup({
  types: { context: {} as LoginContext, events: {} as LoginEvent },
  actors: {
    signIn: fromPromise<SignedIn, Credentials & { mode: LoginMode }>(async ({ input }) => {
      const credentials = { username: input.username, password: input.password };
      if (input.mode === 'register') await call(authApi.postRegister, { body: credentials });
      return call(authApi.postLogin, { body: credentials });
    }),
  },
  actions: {
    /** Tells the session who signed in. */
    signedIn: (_, _user: SignedIn) => undefined,
  },
}).createMachine({
  id: 'login',
  initial: 'editing',
  context: { mode: 'signIn', error: null },
  states: {
    editing: {
      on: {
        'user.switchMode': { actions: assign({ mode: ({ event }) => event.mode, error: null }) },
        'user.submit': [
          {
            guard: ({ context, event }) => checkCredentials(context.mode, event.username, event.password) !== null,
            actions: assign({
              error: ({ context, event }) => checkCredentials(context.mode, event.username, event.password),
            }),
          },
          { target: 'submitting', actions: assign({ error: null }) },
        ],
      },
    },
    submitting: {
      invoke: {
        src: 'signIn',
        input: ({ context, event }) => {
          const submit = event as Extract<LoginEvent, { type: 'user.submit' }>;
          return { mode: context.mode, username: submit.username, password: submit.password };
        },
        onDone: {
          target: 'done',
          actions: { type: 'signedIn', params: ({ event }) => event.output },
        },
        onError: {
          target: 'editing',
          actions: assign({ error: ({ context, event }) => loginFailure(context.mode, event.error) }),
        },
      },
    },
    done: { type: 'final' },
  },
});
