/**
 * The page of an email channel's confirmation link: it confirms only when the person presses the button (a
 * mail scanner opening the link confirms nothing), with or without a session.
 */
import { assign, fromPromise, setup } from 'xstate';
import { channelsApi } from '../../../domain/contract/channels.ts';
import { ApiError, call, errorMessage } from '../../services/api.ts';

/** The user, channel and token the link carries. */
export interface ConfirmLink {
  readonly user: string;
  readonly channel: string;
  readonly token: string;
}

/** The link's fields from the page's query, or null when one is missing. */
export function confirmLinkOf(params: URLSearchParams): ConfirmLink | null {
  const [user, channel, token] = [params.get('user'), params.get('channel'), params.get('token')];
  return user && channel && token ? { user, channel, token } : null;
}

/**
 * Why confirming failed, in the page's words: a link the server does not know, or whose fields it refuses (a
 * link cut or mistyped: `body.channel: must be a channel id`), is one to ask again for.
 */
export function refusalText(error: unknown): string {
  if (error instanceof ApiError && (error.status === 404 || error.status === 400)) {
    return 'This confirmation link is not valid (mistyped, or its channel was removed): add the address again in Settings for a new one';
  }
  return errorMessage(error);
}

/** What the page holds. */
export interface ConfirmEmailContext {
  readonly link: ConfirmLink | null;
  readonly error: string | null;
}

/** Events of the page. */
export type ConfirmEmailEvent = { type: 'user.confirm' };

/** The confirmation page's machine. */
export const confirmEmailMachine = setup({
  types: {
    context: {} as ConfirmEmailContext,
    events: {} as ConfirmEmailEvent,
    input: {} as { link: ConfirmLink | null },
  },
  actors: {
    confirm: fromPromise<unknown, ConfirmLink>(({ input }) => call(channelsApi.postConfirmChannel, { body: input })),
  },
  guards: {
    complete: ({ context }) => context.link !== null,
  },
}).createMachine({
  id: 'confirmEmail',
  context: ({ input }) => ({ link: input.link, error: null }),
  initial: 'checking',
  states: {
    checking: { always: [{ guard: 'complete', target: 'ready' }, { target: 'incomplete' }] },
    incomplete: { type: 'final' },
    ready: { on: { 'user.confirm': { target: 'confirming', actions: assign({ error: null }) } } },
    confirming: {
      invoke: {
        src: 'confirm',
        input: ({ context }) => context.link!,
        onDone: { target: 'confirmed' },
        onError: { target: 'ready', actions: assign(({ event }) => ({ error: refusalText(event.error) })) },
      },
    },
    confirmed: { type: 'final' },
  },
});
