/**
 * The page of a password reset link (`/ResetPassword?user=…&request=…&token=…`), with or without a session: the
 * new password typed twice, set when the form is sent, which signs out every session of the user.
 */
import { assign, assertEvent, fromPromise, setup } from 'xstate';
import { PASSWORD_LENGTH_TEXT, passwordLengthFits } from '../../../domain/accounts/accounts.ts';
import { authApi } from '../../../domain/contract/auth.ts';
import { fieldRefusal } from '../../components/fieldRefusal.ts';
import { ApiError, call, errorMessage, tryAgainText } from '../../services/api.ts';

/** The user, request and token the link carries. */
export interface ResetLink {
  readonly user: string;
  readonly request: string;
  readonly token: string;
}

/** The link's fields from the page's query, or null when one is missing. */
export function resetLinkOf(params: URLSearchParams): ResetLink | null {
  const [user, request, token] = [params.get('user'), params.get('request'), params.get('token')];
  return user && request && token ? { user, request, token } : null;
}

/** The fields of the form. */
export interface ResetForm {
  readonly newPassword: string;
  readonly repeated: string;
}

/** What the server answers: how many sessions of the user ended. */
export interface SessionsEnded {
  readonly endedSessions: number;
}

/** What the page holds. */
export interface ResetPasswordContext {
  readonly link: ResetLink | null;
  /** Why the last try was refused. */
  readonly error: string | null;
  /** The field of the form the refusal is about, or null (the link's refusals, or one of neither). */
  readonly errorField: ResetField | null;
  /** Whether the refusal is of the link itself (a new one must be asked for), not of the password. */
  readonly linkRefused: boolean;
  /** How many sessions the reset ended, once done. */
  readonly endedSessions: number | null;
}

/** Events of the page. */
export type ResetPasswordEvent = { type: 'user.submit'; form: ResetForm };

/** A field of the form a refusal may be about: the new password, or the same typed again. */
export type ResetField = 'new' | 'repeated';

/** A refusal in the form's words, and the field of the form it is about. */
export interface ResetRefusal {
  readonly message: string;
  readonly field: ResetField | null;
}

/** The form's labels of the fields a refusal names; the link's fields are the link. */
const LABELS: Readonly<Record<string, string>> = {
  newPassword: 'New password',
  user: 'Reset link',
  request: 'Reset link',
  token: 'Reset link',
};

/** The form's own refusal, before asking the server: the password's length, and typed twice the same. */
export function formRefusal(form: ResetForm): ResetRefusal | null {
  if (!passwordLengthFits(form.newPassword)) {
    return { message: `New password: ${PASSWORD_LENGTH_TEXT}`, field: 'new' };
  }
  if (form.newPassword !== form.repeated) {
    return { message: 'New password, again: does not match the new password', field: 'repeated' };
  }
  return null;
}

/** A refusal of the server in the form's words, the field it is about, and whether it is the link's. */
export function refusalOf(error: unknown): ResetRefusal & { readonly linkRefused: boolean } {
  if (error instanceof ApiError && error.status === 429) {
    return { message: `Too many attempts.${tryAgainText(error)}`, field: null, linkRefused: false };
  }
  const message = errorMessage(error);
  const { own, text } = fieldRefusal(message, LABELS);
  if (own === null) return { message, field: null, linkRefused: false };
  // A refused link cannot be mended on this page: the page offers to ask for a new one.
  return { message: text, field: own === 'newPassword' ? 'new' : null, linkRefused: LABELS[own] === 'Reset link' };
}

/** How many sessions the reset ended, in words: "2 sessions were signed out". */
export function endedText(ended: number): string {
  if (ended === 0) return 'No session was signed in';
  return `${ended} ${ended === 1 ? 'session was' : 'sessions were'} signed out`;
}

/** The reset page's machine. */
export const resetPasswordMachine = setup({
  types: {
    context: {} as ResetPasswordContext,
    events: {} as ResetPasswordEvent,
    input: {} as { link: ResetLink | null },
  },
  actors: {
    resetPassword: fromPromise<SessionsEnded, ResetLink & { newPassword: string }>(({ input }) =>
      call(authApi.postPasswordReset, { body: input }),
    ),
  },
  guards: {
    complete: ({ context }) => context.link !== null,
    formRefused: ({ event }) => formRefusal(event.form) !== null,
  },
}).createMachine({
  id: 'resetPassword',
  context: ({ input }) => ({
    link: input.link,
    error: null,
    errorField: null,
    linkRefused: false,
    endedSessions: null,
  }),
  initial: 'checking',
  states: {
    checking: { always: [{ guard: 'complete', target: 'ready' }, { target: 'incomplete' }] },
    incomplete: { type: 'final' },
    ready: {
      on: {
        'user.submit': [
          {
            guard: 'formRefused',
            actions: assign(({ event }) => {
              const refusal = formRefusal(event.form)!;
              return { error: refusal.message, errorField: refusal.field, linkRefused: false };
            }),
          },
          { target: 'resetting', actions: assign({ error: null, errorField: null, linkRefused: false }) },
        ],
      },
    },
    resetting: {
      invoke: {
        src: 'resetPassword',
        input: ({ context, event }) => {
          assertEvent(event, 'user.submit');
          return { ...context.link!, newPassword: event.form.newPassword };
        },
        onDone: { target: 'done', actions: assign(({ event }) => ({ endedSessions: event.output.endedSessions })) },
        onError: {
          target: 'ready',
          actions: assign(({ event }) => {
            const { message, field, linkRefused } = refusalOf(event.error);
            return { error: message, errorField: field, linkRefused };
          }),
        },
      },
    },
    done: { type: 'final' },
  },
});
