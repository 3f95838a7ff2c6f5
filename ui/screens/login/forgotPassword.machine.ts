/**
 * The sign-in page's "Forgot password?" form: the user name, then the same answer whatever the server knows of it
 * (a link is e-mailed only to an account's confirmed addresses, and the page cannot tell whether one was).
 */
import { assign, assertEvent, fromPromise, setup } from 'xstate';
import { authApi } from '../../../domain/contract/auth.ts';
import { fieldRefusal } from '../../components/fieldRefusal.ts';
import { ApiError, call, errorMessage, tryAgainText } from '../../services/api.ts';

/** What the page says once the request is sent, whoever the name is. */
export const RESET_REQUESTED_TEXT =
  'If the account has a confirmed e-mail address, a link is on its way; it works for one hour.';

/** What the form holds. */
export interface ForgotContext {
  /** Why the last request was refused. */
  readonly error: string | null;
  /** Whether the form shows at once (the page was opened with `?forgot`). */
  readonly startOpen: boolean;
}

/** Events of the form. */
export type ForgotEvent = { type: 'user.open' } | { type: 'user.close' } | { type: 'user.submit'; username: string };

/** The form's own refusal, before asking the server: a name must be typed. */
export function checkUsername(username: string): string | null {
  return username.length === 0 ? 'User name: enter the name you sign in with' : null;
}

/** A refusal in the form's words. */
export function forgotFailure(error: unknown): string {
  if (error instanceof ApiError && error.status === 429) {
    return `Too many requests.${tryAgainText(error)}`;
  }
  return fieldRefusal(errorMessage(error), { username: 'User name' }).text;
}

/** The "Forgot password?" form's machine; `input.open` starts it open (the page's `?forgot` link). */
export const forgotPasswordMachine = setup({
  types: {
    context: {} as ForgotContext,
    events: {} as ForgotEvent,
    input: {} as { open: boolean },
  },
  actors: {
    requestReset: fromPromise<unknown, { username: string }>(({ input }) =>
      call(authApi.postPasswordForgot, { body: { username: input.username } }),
    ),
  },
  guards: {
    startsOpen: ({ context }) => context.startOpen,
    refused: ({ event }) => event.type === 'user.submit' && checkUsername(event.username) !== null,
  },
}).createMachine({
  id: 'forgotPassword',
  context: ({ input }) => ({ error: null, startOpen: input.open }),
  initial: 'starting',
  states: {
    starting: { always: [{ guard: 'startsOpen', target: 'editing' }, { target: 'closed' }] },
    closed: { on: { 'user.open': { target: 'editing', actions: assign({ error: null }) } } },
    editing: {
      on: {
        'user.close': 'closed',
        'user.submit': [
          {
            guard: 'refused',
            actions: assign(({ event }) => {
              assertEvent(event, 'user.submit');
              return { error: checkUsername(event.username) };
            }),
          },
          { target: 'sending', actions: assign({ error: null }) },
        ],
      },
    },
    sending: {
      invoke: {
        src: 'requestReset',
        input: ({ event }) => {
          assertEvent(event, 'user.submit');
          return { username: event.username };
        },
        onDone: 'sent',
        onError: { target: 'editing', actions: assign(({ event }) => ({ error: forgotFailure(event.error) })) },
      },
    },
    sent: { on: { 'user.close': 'closed' } },
  },
});
