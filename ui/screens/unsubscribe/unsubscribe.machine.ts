/**
 * The page of an alert email's unsubscribe link: it unsubscribes only when the person presses the button (a
 * mail scanner opening the link unsubscribes nothing), with or without a session. A mail client's own
 * unsubscribe button posts to the server directly (RFC 8058) and never opens this page.
 */
import { assign, fromPromise, setup } from 'xstate';
import { channelsApi, type UnsubscribeLink } from '../../../domain/contract/channels.ts';
import { ApiError, errorMessage, request, urlOf } from '../../services/api.ts';

/** The user, channel and token the link carries, or null when one is missing. */
export function unsubscribeLinkOf(params: URLSearchParams): UnsubscribeLink | null {
  const [user, channel, token] = [params.get('user'), params.get('channel'), params.get('token')];
  return user && channel && token ? { user, channel, token } : null;
}

/** Why unsubscribing failed, in the page's words: a link the server refuses is a link mistyped or cut. */
export function refusalText(error: unknown): string {
  if (error instanceof ApiError && error.status === 400) {
    return 'This unsubscribe link is not valid (mistyped or cut): open the whole link of the alert email';
  }
  return errorMessage(error);
}

/**
 * The one-click unsubscribe as the page sends it: the link's fields in the query, `List-Unsubscribe=One-Click`
 * in the body (as JSON). The server answers a short text, which the page does not need.
 */
export async function postUnsubscribe(link: UnsubscribeLink): Promise<void> {
  await request(channelsApi.postUnsubscribe.method, urlOf(channelsApi.postUnsubscribe, { query: link }), {
    body: { 'List-Unsubscribe': 'One-Click' },
    idempotencyKey: crypto.randomUUID(),
  });
}

/** What the page holds. */
export interface UnsubscribeContext {
  readonly link: UnsubscribeLink | null;
  readonly error: string | null;
}

/** Events of the page. */
export type UnsubscribeEvent = { type: 'user.unsubscribe' };

/** The unsubscribe page's machine. */
export const unsubscribeMachine = setup({
  types: {
    context: {} as UnsubscribeContext,
    events: {} as UnsubscribeEvent,
    input: {} as { link: UnsubscribeLink | null },
  },
  actors: {
    unsubscribe: fromPromise<void, UnsubscribeLink>(({ input }) => postUnsubscribe(input)),
  },
  guards: {
    complete: ({ context }) => context.link !== null,
  },
}).createMachine({
  id: 'unsubscribe',
  context: ({ input }) => ({ link: input.link, error: null }),
  initial: 'checking',
  states: {
    checking: { always: [{ guard: 'complete', target: 'ready' }, { target: 'incomplete' }] },
    incomplete: { type: 'final' },
    ready: { on: { 'user.unsubscribe': { target: 'unsubscribing', actions: assign({ error: null }) } } },
    unsubscribing: {
      invoke: {
        src: 'unsubscribe',
        input: ({ context }) => context.link!,
        onDone: { target: 'unsubscribed' },
        onError: { target: 'ready', actions: assign(({ event }) => ({ error: refusalText(event.error) })) },
      },
    },
    unsubscribed: { type: 'final' },
  },
});
