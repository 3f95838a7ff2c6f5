/**
 * The user's delivery channels, as the condition builder offers them for an alert's "Deliver to": loaded once
 * when the builder opens, and again on `user.retry` after a failure.
 */
import { assign, fromPromise, setup } from 'xstate';
import { channelsApi, type ChannelAnswer } from '../../domain/contract/channels.ts';
import { call, errorMessage } from '../services/api.ts';

/** What the list holds. */
export interface ChannelListContext {
  /** The channels, oldest first. */
  readonly channels: readonly ChannelAnswer[];
  /** Why the last load failed. */
  readonly error: string | null;
}

/** Events of the list. */
export type ChannelListEvent = { type: 'user.retry' };

/** The list of channels: `loading`, then `ready` or `failed`. */
export const channelListMachine = setup({
  types: {
    context: {} as ChannelListContext,
    events: {} as ChannelListEvent,
  },
  actors: {
    loadChannels: fromPromise<readonly ChannelAnswer[]>(() => call(channelsApi.getChannels)),
  },
}).createMachine({
  id: 'channelList',
  initial: 'loading',
  context: { channels: [], error: null },
  states: {
    loading: {
      invoke: {
        src: 'loadChannels',
        onDone: { target: 'ready', actions: assign({ channels: ({ event }) => event.output, error: null }) },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => errorMessage(event.error) }) },
      },
    },
    ready: {},
    failed: { on: { 'user.retry': 'loading' } },
  },
});
