/**
 * The settings screen's account card: change the password (the current one, the new one twice), which also
 * signs out every other device, and sign out the other devices alone. Each says how many sessions it ended.
 */
import { assign, assertEvent, fromPromise, setup } from 'xstate';
import { authApi } from '../../../domain/contract/auth.ts';
import { call, errorMessage } from '../../services/api.ts';

/** The fields of the password form. */
export interface PasswordForm {
  readonly currentPassword: string;
  readonly newPassword: string;
  readonly repeated: string;
}

/** What the account card holds. */
export interface AccountContext {
  /** What the last change did, in words. */
  readonly done: string | null;
  /** Why the last change was refused. */
  readonly error: string | null;
  /** How many times the password was changed here (the form is emptied each time). */
  readonly changes: number;
}

/** Events of the account card. */
export type AccountEvent =
  { type: 'user.changePassword'; form: PasswordForm } | { type: 'user.endOtherSessions' } | { type: 'user.dismiss' };

/** What the server answers: how many other sessions ended. */
export interface SessionsEnded {
  readonly endedSessions: number;
}

/** "2 other sessions were signed out", "No other session was signed in". */
export function endedText(ended: number): string {
  if (ended === 0) return 'No other session was signed in';
  return `${ended} other ${ended === 1 ? 'session was' : 'sessions were'} signed out`;
}

/** The form's labels of the fields a refusal names. */
const LABELS: Readonly<Record<string, string>> = {
  'body.currentPassword': 'Current password',
  'body.newPassword': 'New password',
};

/** A refusal as the form words it: `body.newPassword: must be …` → `New password: must be …`. */
export function inFormTerms(message: string): string {
  const field = /^(body\.\w+)(?=[:\s])/.exec(message)?.[1];
  return field && LABELS[field] ? `${LABELS[field]}${message.slice(field.length)}` : message;
}

/** The form's own refusal, before asking the server: the new password typed twice the same. */
function formRefusal(form: PasswordForm): string | null {
  if (form.newPassword !== form.repeated) return 'New password, again: does not match the new password';
  return null;
}

/** The account card's machine. */
export const accountMachine = setup({
  types: { context: {} as AccountContext, events: {} as AccountEvent },
  actors: {
    changePassword: fromPromise<SessionsEnded, { currentPassword: string; newPassword: string }>(({ input }) =>
      call(authApi.postPassword, { body: input }),
    ),
    endOtherSessions: fromPromise<SessionsEnded>(() => call(authApi.postEndOtherSessions)),
  },
  guards: {
    formRefused: ({ event }) => event.type === 'user.changePassword' && formRefusal(event.form) !== null,
  },
}).createMachine({
  id: 'account',
  initial: 'idle',
  context: { done: null, error: null, changes: 0 },
  states: {
    idle: {
      on: {
        'user.changePassword': [
          {
            guard: 'formRefused',
            actions: assign(({ event }) => {
              assertEvent(event, 'user.changePassword');
              return { done: null, error: formRefusal(event.form) };
            }),
          },
          { target: 'changing', actions: assign({ done: null, error: null }) },
        ],
        'user.endOtherSessions': { target: 'ending', actions: assign({ done: null, error: null }) },
        'user.dismiss': { actions: assign({ done: null, error: null }) },
      },
    },
    changing: {
      invoke: {
        src: 'changePassword',
        input: ({ event }) => {
          assertEvent(event, 'user.changePassword');
          return { currentPassword: event.form.currentPassword, newPassword: event.form.newPassword };
        },
        onDone: {
          target: 'idle',
          actions: assign(({ context, event }) => ({
            done: `Password changed. ${endedText(event.output.endedSessions)}.`,
            changes: context.changes + 1,
          })),
        },
        onError: {
          target: 'idle',
          actions: assign(({ event }) => ({ error: inFormTerms(errorMessage(event.error)) })),
        },
      },
    },
    ending: {
      invoke: {
        src: 'endOtherSessions',
        onDone: {
          target: 'idle',
          actions: assign(({ event }) => ({ done: `${endedText(event.output.endedSessions)}.` })),
        },
        onError: {
          target: 'idle',
          actions: assign(({ event }) => ({ error: inFormTerms(errorMessage(event.error)) })),
        },
      },
    },
  },
});
