/**
 * The audit part of the Maint page, for auditors: whether the user may audit at all (a 403 on the user list
 * hides the part), the user list (searched by the start of the name, as the server lists at most
 * {@link USER_LIST_MAX} accounts at once), the user picked, that user's whole event history (read page by page),
 * the state at the moment the time slider points to, and the hash-chain verification.
 */
import { auditApi, USER_LIST_MAX } from '../../../domain/contract/audit.ts';
import { assertEvent, assign, fromPromise, setup } from 'xstate';
import { answerAt, ApiError, call, errorMessage, urlOf } from '../../services/api.ts';
import {
  NO_FILTER,
  throughSecond,
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

/** Pause after the last key in the user search before the list is read, in ms. */
export const SEARCH_DEBOUNCE_MS = 200;

/** A user's history as read. */
export interface History {
  readonly events: readonly AuditEvent[];
  /** Whether there were more events than {@link HISTORY_MAX_PAGES} pages. */
  readonly truncated: boolean;
}

/** What the audit part holds. */
export interface AuditContext {
  /** The accounts whose name starts with {@link AuditContext.listed}, at most {@link USER_LIST_MAX} of them. */
  readonly users: readonly AuditAccount[];
  /** Why the user list could not be read at first. */
  readonly error: string | null;
  /** The text of the user search field. */
  readonly search: string;
  /** The prefix the user list was read for; null when it lists nobody (a text no name can start with, a failure). */
  readonly listed: string | null;
  /** Whether the list stopped at {@link USER_LIST_MAX}, so more names may start with that prefix. */
  readonly cut: boolean;
  /** Why the last search could not be read. */
  readonly searchError: string | null;
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
  | { type: 'user.search'; text: string }
  | { type: 'user.retrySearch' }
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

/**
 * The prefix a search text asks for: trimmed and lower-cased, as user names are; null when no user name can start
 * with it (a character outside a-z 0-9 _ . -, or more than 32 characters).
 */
export function searchPrefix(text: string): string | null {
  const prefix = text.trim().toLowerCase();
  return auditApi.getAuditUsers.query.safeParse({ prefix }).success ? prefix : null;
}

/** The URL of the user list: the accounts whose name starts with the prefix, every account when it is empty. */
export function userListUrl(prefix: string): string {
  return urlOf(auditApi.getAuditUsers, { query: { prefix: prefix === '' ? undefined : prefix } });
}

/** An empty user list, for a search that lists nobody. */
const noUsers = { users: [], listed: null, cut: false } as const;

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
    loadUsers: fromPromise<AuditAccount[], { prefix: string }>(async ({ input, signal }) =>
      answerAt(auditApi.getAuditUsers, userListUrl(input.prefix), { signal }),
    ),
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
  actions: {
    /** Keeps the search field's text. */
    setSearch: assign({
      search: ({ event }) => {
        assertEvent(event, 'user.search');
        return event.text;
      },
    }),
    /** Changes the event list's filter, a To time taken through the end of the second it shows. */
    setFilter: assign({
      filter: ({ context, event }) => {
        assertEvent(event, 'user.filter');
        const { to } = event.patch;
        return { ...context.filter, ...event.patch, ...(to === undefined ? {} : { to: throughSecond(to) }) };
      },
    }),
    /** Shows a user list read for the search text, noting whether it stopped at {@link USER_LIST_MAX}. */
    showUsers: assign(({ context }, users: readonly AuditAccount[]) => ({
      users,
      listed: searchPrefix(context.search),
      cut: users.length >= USER_LIST_MAX,
      error: null,
      searchError: null,
    })),
  },
  delays: { slider: SLIDER_DEBOUNCE_MS, search: SEARCH_DEBOUNCE_MS },
  guards: {
    forbidden: ({ event }) =>
      'error' in event && event.error instanceof ApiError && (event.error.status === 403 || event.error.status === 401),
    hasEvents: ({ context }) => context.events.length > 0,
    /** No user name can start with the search text. */
    unsearchable: ({ context }) => searchPrefix(context.search) === null,
    /** The list shown is already the one for the search text. */
    alreadyListed: ({ context }) => searchPrefix(context.search) === context.listed,
  },
}).createMachine({
  id: 'audit',
  initial: 'probing',
  context: {
    users: [],
    error: null,
    search: '',
    listed: null,
    cut: false,
    searchError: null,
    selected: null,
    ...cleared,
  },
  states: {
    probing: {
      invoke: {
        src: 'loadUsers',
        input: { prefix: '' },
        onDone: { target: 'ready', actions: { type: 'showUsers', params: ({ event }) => event.output } },
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
      type: 'parallel',
      states: {
        list: {
          initial: 'idle',
          // No `reenter` on the regions' own events: re-entering a region of a parallel state would exit its
          // sibling regions too (the user audited, the verification). Targeting a child still restarts it.
          on: {
            'user.search': { target: '.waiting', actions: 'setSearch' },
          },
          states: {
            idle: {},
            waiting: {
              after: {
                search: [
                  { guard: 'unsearchable', target: 'invalid' },
                  { guard: 'alreadyListed', target: 'idle' },
                  { target: 'searching' },
                ],
              },
            },
            searching: {
              invoke: {
                src: 'loadUsers',
                input: ({ context }) => ({ prefix: searchPrefix(context.search) ?? '' }),
                onDone: { target: 'idle', actions: { type: 'showUsers', params: ({ event }) => event.output } },
                onError: [
                  { guard: 'forbidden', target: '#audit.forbidden' },
                  {
                    target: 'failed',
                    actions: assign({ ...noUsers, searchError: ({ event }) => errorMessage(event.error) }),
                  },
                ],
              },
            },
            invalid: {
              entry: assign({ ...noUsers, searchError: null }),
            },
            failed: {
              on: { 'user.retrySearch': 'searching' },
            },
          },
        },
        user: {
          initial: 'noUser',
          on: {
            'user.pickUser': {
              target: '.loadingHistory',
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
                'user.filter': { actions: 'setFilter' },
                'user.clearFilter': { actions: assign({ filter: NO_FILTER }) },
              },
              states: {
                moment: {
                  initial: 'loading',
                  on: {
                    'user.moveSlider': {
                      guard: ({ context, event }) => event.index >= 0 && event.index < context.events.length,
                      target: '.waiting',
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
    },
  },
});
