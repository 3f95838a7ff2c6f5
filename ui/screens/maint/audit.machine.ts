/**
 * The audit part of the Maint page, for auditors: whether the user may audit at all (a 403 on the user list
 * hides the part), the user picked, that user's whole event history (read page by page), the state at the
 * moment the time slider points to, and the hash-chain verification.
 */
import { auditApi } from '../../../domain/contract/audit.ts';
import { assign, fromPromise, setup } from 'xstate';
import { answerAt, ApiError, call, errorMessage, urlOf } from '../../services/api.ts';
import {
  NO_FILTER,
  type AuditAccount,
  type AuditEvent,
  type AuditPage,
  type AuditState,
  type EventFilter,
  type Verification,
} from './maint.logic.ts';

/** Events per page of a history read. */
export const HISTORY_PAGE_SIZE = 500;

/** Most pages of a history read; a longer history is cut there (and the page says so). */
export const HISTORY_MAX_PAGES = 20;

/** Pause after the slider stops before the state is read, in ms. */
export const SLIDER_DEBOUNCE_MS = 250;

/** A user's history as read. */
export interface History {
  readonly events: readonly AuditEvent[];
  /** Whether there were more events than {@link HISTORY_MAX_PAGES} pages. */
  readonly truncated: boolean;
}

/** What the audit part holds. */
export interface AuditContext {
  readonly users: readonly AuditAccount[];
  /** Why the user list could not be read. */
  readonly error: string | null;
  /** The user audited. */
  readonly selected: string | null;
  /** That user's events, in log order. */
  readonly events: readonly AuditEvent[];
  readonly truncated: boolean;
  readonly historyError: string | null;
  /** The event list's filter. */
  readonly filter: EventFilter;
  /** The slider: the index of the last event folded into the state shown. */
  readonly index: number;
  /** The state at the slider's event. */
  readonly state: AuditState | null;
  readonly stateError: string | null;
  readonly verification: Verification | null;
  readonly verifyError: string | null;
}

/** Events of the audit part. */
export type AuditPanelEvent =
  | { type: 'user.retry' }
  | { type: 'user.pickUser'; username: string }
  | { type: 'user.retryHistory' }
  | { type: 'user.filter'; patch: Partial<EventFilter> }
  | { type: 'user.clearFilter' }
  | { type: 'user.moveSlider'; index: number }
  | { type: 'user.retryState' }
  | { type: 'user.verify' };

/** Reads a user's whole history, page by page, up to {@link HISTORY_MAX_PAGES} pages. */
export async function readHistory(username: string, readPage: (path: string) => Promise<AuditPage>): Promise<History> {
  const events: AuditEvent[] = [];
  let after: string | null = null;
  for (let page = 0; page < HISTORY_MAX_PAGES; page += 1) {
    const answer = await readPage(
      urlOf(auditApi.getAuditUsersByUsernameEvents, {
        params: { username },
        query: { limit: HISTORY_PAGE_SIZE, after: after ?? undefined },
      }),
    );
    events.push(...answer.events);
    if (answer.next === null) return { events, truncated: false };
    after = answer.next;
  }
  return { events, truncated: true };
}

const cleared = {
  events: [],
  truncated: false,
  historyError: null,
  filter: NO_FILTER,
  index: 0,
  state: null,
  stateError: null,
  verification: null,
  verifyError: null,
} as const;

/** The audit part's machine. */
export const auditMachine = setup({
  types: { context: {} as AuditContext, events: {} as AuditPanelEvent },
  actors: {
    loadUsers: fromPromise<AuditAccount[]>(async () => call(auditApi.getAuditUsers)),
    loadHistory: fromPromise<History, { username: string }>(async ({ input, signal }) =>
      readHistory(input.username, (path) => answerAt(auditApi.getAuditUsersByUsernameEvents, path, { signal })),
    ),
    loadState: fromPromise<AuditState, { username: string; position: string }>(async ({ input, signal }) =>
      call(auditApi.getAuditUsersByUsernameState, {
        params: { username: input.username },
        query: { position: input.position },
        signal,
      }),
    ),
    verifyChain: fromPromise<Verification, { username: string }>(async ({ input }) =>
      call(auditApi.getAuditUsersByUsernameVerify, { params: { username: input.username } }),
    ),
  },
  delays: { slider: SLIDER_DEBOUNCE_MS },
  guards: {
    forbidden: ({ event }) =>
      'error' in event && event.error instanceof ApiError && (event.error.status === 403 || event.error.status === 401),
    hasEvents: ({ context }) => context.events.length > 0,
  },
}).createMachine({
  id: 'audit',
  initial: 'probing',
  context: { users: [], error: null, selected: null, ...cleared },
  states: {
    probing: {
      invoke: {
        src: 'loadUsers',
        onDone: { target: 'ready', actions: assign({ users: ({ event }) => event.output, error: null }) },
        onError: [
          { guard: 'forbidden', target: 'forbidden' },
          { target: 'failed', actions: assign({ error: ({ event }) => errorMessage(event.error) }) },
        ],
      },
    },
    forbidden: {},
    failed: {
      on: { 'user.retry': 'probing' },
    },
    ready: {
      initial: 'noUser',
      on: {
        'user.pickUser': {
          target: '.loadingHistory',
          reenter: true,
          actions: assign({ selected: ({ event }) => event.username, ...cleared }),
        },
      },
      states: {
        noUser: {},
        loadingHistory: {
          invoke: {
            src: 'loadHistory',
            input: ({ context }) => ({ username: context.selected! }),
            onDone: {
              target: 'history',
              actions: assign({
                events: ({ event }) => event.output.events,
                truncated: ({ event }) => event.output.truncated,
                index: ({ event }) => Math.max(0, event.output.events.length - 1),
              }),
            },
            onError: {
              target: 'historyFailed',
              actions: assign({ historyError: ({ event }) => errorMessage(event.error) }),
            },
          },
        },
        historyFailed: {
          on: { 'user.retryHistory': 'loadingHistory' },
        },
        history: {
          type: 'parallel',
          on: {
            'user.filter': {
              actions: assign({ filter: ({ context, event }) => ({ ...context.filter, ...event.patch }) }),
            },
            'user.clearFilter': { actions: assign({ filter: NO_FILTER }) },
          },
          states: {
            moment: {
              initial: 'loading',
              on: {
                'user.moveSlider': {
                  guard: ({ context, event }) => event.index >= 0 && event.index < context.events.length,
                  target: '.waiting',
                  reenter: true,
                  actions: assign({ index: ({ event }) => event.index }),
                },
              },
              states: {
                waiting: {
                  after: { slider: 'loading' },
                },
                loading: {
                  always: { guard: ({ context }) => context.events.length === 0, target: 'empty' },
                  invoke: {
                    src: 'loadState',
                    input: ({ context }) => ({
                      username: context.selected!,
                      position: context.events[context.index]?.position ?? '0/0',
                    }),
                    onDone: {
                      target: 'shown',
                      actions: assign({ state: ({ event }) => event.output, stateError: null }),
                    },
                    onError: {
                      target: 'failed',
                      actions: assign({ stateError: ({ event }) => errorMessage(event.error) }),
                    },
                  },
                },
                empty: {},
                shown: {},
                failed: {
                  on: { 'user.retryState': 'loading' },
                },
              },
            },
            chain: {
              initial: 'unchecked',
              states: {
                unchecked: { on: { 'user.verify': 'verifying' } },
                verifying: {
                  invoke: {
                    src: 'verifyChain',
                    input: ({ context }) => ({ username: context.selected! }),
                    onDone: {
                      target: 'verified',
                      actions: assign({ verification: ({ event }) => event.output, verifyError: null }),
                    },
                    onError: {
                      target: 'failed',
                      actions: assign({ verifyError: ({ event }) => errorMessage(event.error) }),
                    },
                  },
                },
                verified: { on: { 'user.verify': 'verifying' } },
                failed: { on: { 'user.verify': 'verifying' } },
              },
            },
          },
        },
      },
    },
  },
});
