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
import { assertEvent, assign, fromPromise, setup } from 'xstate';
import { fieldRefusal } from '../../components/fieldRefusal.ts';
import { ApiError, call, errorMessage, tryAgainText } from '../../services/api.ts';

/** Which action the form performs. */
export type LoginMode = 'signIn' | 'register';

/** What the form sends. */
export interface Credentials {
  readonly username: string;
  readonly password: string;
}

/** What the sign-in answers. */
export type { SignedIn };

/** A field of the form a refusal may be about. */
export type LoginField = 'username' | 'password';

/** A refusal as the form words it, and the field of the form it is about. */
export interface LoginRefusal {
  readonly message: string;
  /** None for a refusal of both (a wrong user name or password) or of neither. */
  readonly field: LoginField | null;
}

/** The page's state. */
export interface LoginContext {
  readonly mode: LoginMode;
  readonly error: string | null;
  /** The field the refusal is about (marked on the form), or null. */
  readonly errorField: LoginField | null;
}

/** Events of the page. */
export type LoginEvent =
  { type: 'user.submit'; username: string; password: string } | { type: 'user.switchMode'; mode: LoginMode };

/** Checks the form before sending it; answers its refusal or null. */
export function checkCredentials(mode: LoginMode, username: string, password: string): LoginRefusal | null {
  if (!USERNAME_PATTERN.test(username)) {
    return { message: `User name: ${USERNAME_TEXT}`, field: 'username' };
  }
  if (mode === 'register' && !passwordLengthFits(password)) {
    return { message: `Password: ${PASSWORD_LENGTH_TEXT}`, field: 'password' };
  }
  if (password.length === 0) return { message: 'Password: enter your password', field: 'password' };
  return null;
}

/** The form's controls by the names the server's refusals give them. */
const LABELS: Readonly<Record<LoginField, string>> = { username: 'User name', password: 'Password' };

/**
 * What to show for a failed sign-in or registration: a name taken is the user name's refusal, and a refusal the
 * server names a field of (`body.password: …`) is that field's, in the form's words (`Password: …`).
 */
export function loginFailure(mode: LoginMode, error: unknown): LoginRefusal {
  if (error instanceof ApiError) {
    if (error.status === 401) return { message: 'Wrong user name or password', field: null };
    if (error.status === 409) return { message: 'This user name is taken: choose another', field: 'username' };
    if (error.status === 429) {
      return { message: `Too many attempts.${tryAgainText(error)}`, field: null };
    }
  }
  const { own, text } = fieldRefusal(errorMessage(error), LABELS);
  const message = mode === 'register' ? `Could not create the account: ${text}` : text;
  return { message, field: own };
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
  guards: {
    /** The form's own checks refuse what was typed. */
    formRefused: ({ context, event }) => {
      assertEvent(event, 'user.submit');
      return checkCredentials(context.mode, event.username, event.password) !== null;
    },
  },
  actions: {
    /** Tells the session who signed in. */
    signedIn: (_, _user: SignedIn) => undefined,
    /** The form's own refusal of what was typed, with the field it is about. */
    refuseForm: assign(({ context, event }) => {
      assertEvent(event, 'user.submit');
      const refusal = checkCredentials(context.mode, event.username, event.password);
      return { error: refusal?.message ?? null, errorField: refusal?.field ?? null };
    }),
  },
}).createMachine({
  id: 'login',
  initial: 'editing',
  context: { mode: 'signIn', error: null, errorField: null },
  states: {
    editing: {
      on: {
        'user.switchMode': {
          actions: assign({ mode: ({ event }) => event.mode, error: null, errorField: null }),
        },
        'user.submit': [
          { guard: 'formRefused', actions: 'refuseForm' },
          { target: 'submitting', actions: assign({ error: null, errorField: null }) },
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
          actions: assign(({ context, event }) => {
            const refusal = loginFailure(context.mode, event.error);
            return { error: refusal.message, errorField: refusal.field };
          }),
        },
      },
    },
    done: { type: 'final' },
  },
});
