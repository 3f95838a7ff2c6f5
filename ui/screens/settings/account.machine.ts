/**
 * The settings screen's account card: change the password (the current one, the new one twice), which also
 * signs out every other device, and sign out the other devices alone. Each says how many sessions it ended.
 * A refusal names the field it is about; editing that field, or trying again, takes it away.
 */
import { assign, assertEvent, fromPromise, setup } from 'xstate';
import { PASSWORD_LENGTH_TEXT, passwordLengthFits } from '../../../domain/accounts/accounts.ts';
import { authApi } from '../../../domain/contract/auth.ts';
import { fieldRefusal } from '../../components/fieldRefusal.ts';
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
  /** The field of the form the refusal is about (editing it takes the refusal away), or null. */
  readonly errorField: PasswordField | null;
  /** How many times the password was changed here (the form is emptied each time). */
  readonly changes: number;
}

/** A field of the password form. */
export type PasswordField = keyof PasswordForm;

/** Events of the account card. */
export type AccountEvent =
  | { type: 'user.changePassword'; form: PasswordForm }
  | { type: 'user.edit'; field: PasswordField }
  | { type: 'user.endOtherSessions' }
  | { type: 'user.dismiss' };

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
const LABELS: Readonly<Record<PasswordField, string>> = {
  currentPassword: 'Current password',
  newPassword: 'New password',
  repeated: 'New password, again',
};

/** A refusal and the field of the form it is about. */
export interface PasswordRefusal {
  readonly field: PasswordField | null;
  readonly message: string;
}

/** A refusal of the server as the form words it: `body.newPassword: must be …` → `New password: must be …`. */
export function refusalOf(message: string): PasswordRefusal {
  const { own, text } = fieldRefusal(message, LABELS);
  return { field: own, message: text };
}

/**
 * The form's own refusal, before asking the server: the current password typed, the new one of the API's length
 * (8 to 128 characters), and typed twice the same.
 */
export function formRefusal(form: PasswordForm): PasswordRefusal | null {
  if (form.currentPassword === '') {
    return { field: 'currentPassword', message: 'Current password: enter the password you sign in with' };
  }
  if (!passwordLengthFits(form.newPassword)) {
    return {
      field: 'newPassword',
      message: `New password: ${PASSWORD_LENGTH_TEXT}`,
    };
  }
  if (form.newPassword !== form.repeated) {
    return { field: 'repeated', message: 'New password, again: does not match the new password' };
  }
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
  actions: {
    /** A new attempt: what the last one did or why it was refused is no longer what the card says. */
    forgetOutcome: assign({ done: null, error: null, errorField: null }),
    /** The form's own refusal of what was typed, replacing what the last attempt said. */
    refuseForm: assign(({ event }) => {
      assertEvent(event, 'user.changePassword');
      const refusal = formRefusal(event.form);
      return { done: null, error: refusal?.message ?? null, errorField: refusal?.field ?? null };
    }),
    /** The server's refusal, in the form's words, with the field it is about. */
    takeRefusal: assign((_, params: { error: unknown }) => {
      const refusal = refusalOf(errorMessage(params.error));
      return { error: refusal.message, errorField: refusal.field };
    }),
    /** A field edited: a refusal about it no longer says anything about what is typed there. */
    forgetRefusalOfField: assign({ error: null, errorField: null }),
  },
  guards: {
    formRefused: ({ event }) => {
      assertEvent(event, 'user.changePassword');
      return formRefusal(event.form) !== null;
    },
    refusalIsOfField: ({ context, event }) => {
      assertEvent(event, 'user.edit');
      return context.errorField === event.field;
    },
  },
}).createMachine({
  id: 'account',
  initial: 'idle',
  context: { done: null, error: null, errorField: null, changes: 0 },
  on: {
    'user.edit': { guard: 'refusalIsOfField', actions: 'forgetRefusalOfField' },
  },
  states: {
    idle: {
      on: {
        'user.changePassword': [
          { guard: 'formRefused', actions: 'refuseForm' },
          { target: 'changing', actions: 'forgetOutcome' },
        ],
        'user.endOtherSessions': { target: 'ending', actions: 'forgetOutcome' },
        'user.dismiss': { actions: 'forgetOutcome' },
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
        onError: { target: 'idle', actions: { type: 'takeRefusal', params: ({ event }) => ({ error: event.error }) } },
      },
    },
    ending: {
      invoke: {
        src: 'endOtherSessions',
        onDone: {
          target: 'idle',
          actions: assign(({ event }) => ({ done: `${endedText(event.output.endedSessions)}.` })),
        },
        onError: { target: 'idle', actions: { type: 'takeRefusal', params: ({ event }) => ({ error: event.error }) } },
      },
    },
  },
});
