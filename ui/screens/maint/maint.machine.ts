/**
 * The Maint page: the operations status (market data, tick source and rate, projection lags) read again every
 * few seconds while the page is open, and the rebuild check (started, polled while it runs, its result kept).
 * The audit part is its own machine, invoked as the child `audit` once the session says the user is an auditor.
 */
import { maintApi } from '../../../domain/contract/maint.ts';
import { assign, fromPromise, setup } from 'xstate';
import { authApi } from '../../../domain/contract/auth.ts';
import type { SessionAnswer } from '../../../domain/contract/session.ts';
import { ApiError, call, errorMessage } from '../../services/api.ts';
import { auditMachine } from './audit.machine.ts';
import { startedJob, type MaintStatus, type RebuildJob } from './maint.logic.ts';

/** How often the status is read again while the page is open, in ms. */
export const STATUS_POLL_MS = 3000;

/** How often a running rebuild check is polled, in ms. */
export const REBUILD_POLL_MS = 400;

/** What the page holds. */
export interface MaintContext {
  readonly status: MaintStatus | null;
  /** When the status shown was read (ms since the epoch). */
  readonly statusAt: number | null;
  /** Why the first read failed. */
  readonly error: string | null;
  /** Why the last refresh failed (the previous status stays shown). */
  readonly staleError: string | null;
  /** The rebuild check running or last run. */
  readonly job: RebuildJob | null;
  /** Why the check could not be started or followed. */
  readonly rebuildError: string | null;
  /**
   * Whether the session names the user an operator, the only role that may start a rebuild check; null until the
   * session is read (false when it cannot be read).
   */
  readonly operator: boolean | null;
}

/** Events of the page. */
export type MaintEvent = { type: 'user.retry' } | { type: 'user.rebuild' };

/** The roles of the session's answer, for the `noteRoles` action. */
const rolesOfSession = ({ event }: { event: { output: SessionAnswer } }) => ({ roles: event.output.roles });

/** The Maint page's machine. */
export const maintMachine = setup({
  types: {
    context: {} as MaintContext,
    events: {} as MaintEvent,
    children: {} as { audit: 'audit' },
  },
  actors: {
    loadStatus: fromPromise<MaintStatus>(async ({ signal }) => call(maintApi.getMaintStatus, { signal })),
    readRebuild: fromPromise<RebuildJob>(async ({ signal }) => call(maintApi.getMaintRebuild, { signal })),
    startRebuild: fromPromise(async () => call(maintApi.postMaintRebuild)),
    loadSession: fromPromise<SessionAnswer>(async ({ signal }) => call(authApi.getSession, { signal })),
    audit: auditMachine,
  },
  actions: {
    /** Keeps whether the session's roles make the user an operator. */
    noteRoles: assign((_, params: { roles: readonly string[] }) => ({ operator: params.roles.includes('operator') })),
  },
  delays: { statusPoll: STATUS_POLL_MS, rebuildPoll: REBUILD_POLL_MS },
  guards: {
    jobRunning: ({ event }) => 'output' in event && (event.output as RebuildJob).state === 'running',
    alreadyRunning: ({ event }) => 'error' in event && event.error instanceof ApiError && event.error.status === 409,
    isAuditor: ({ event }) => 'output' in event && (event.output as SessionAnswer).roles.includes('auditor'),
    isOperator: ({ context }) => context.operator === true,
  },
}).createMachine({
  id: 'maint',
  type: 'parallel',
  context: {
    status: null,
    statusAt: null,
    error: null,
    staleError: null,
    job: null,
    rebuildError: null,
    operator: null,
  },
  states: {
    audit: {
      initial: 'checking',
      states: {
        checking: {
          invoke: {
            src: 'loadSession',
            onDone: [
              { guard: 'isAuditor', target: 'auditor', actions: { type: 'noteRoles', params: rolesOfSession } },
              { target: 'notAuditor', actions: { type: 'noteRoles', params: rolesOfSession } },
            ],
            // Without the session's answer neither the audit part nor the rebuild button is shown: the rest works on.
            onError: { target: 'notAuditor', actions: assign({ operator: false }) },
          },
        },
        auditor: {
          invoke: { id: 'audit', src: 'audit' },
        },
        notAuditor: {},
      },
    },
    status: {
      initial: 'loading',
      states: {
        loading: {
          invoke: {
            src: 'loadStatus',
            onDone: {
              target: 'ready',
              actions: assign({ status: ({ event }) => event.output, statusAt: () => Date.now(), error: null }),
            },
            onError: { target: 'failed', actions: assign({ error: ({ event }) => errorMessage(event.error) }) },
          },
        },
        failed: {
          on: { 'user.retry': 'loading' },
        },
        ready: {
          after: { statusPoll: 'refreshing' },
        },
        refreshing: {
          invoke: {
            src: 'loadStatus',
            onDone: {
              target: 'ready',
              actions: assign({ status: ({ event }) => event.output, statusAt: () => Date.now(), staleError: null }),
            },
            onError: { target: 'ready', actions: assign({ staleError: ({ event }) => errorMessage(event.error) }) },
          },
        },
      },
    },
    rebuild: {
      initial: 'checking',
      states: {
        checking: {
          invoke: {
            src: 'readRebuild',
            onDone: [
              { guard: 'jobRunning', target: 'running', actions: assign({ job: ({ event }) => event.output }) },
              {
                target: 'idle',
                actions: assign({ job: ({ event }) => (event.output.state === 'idle' ? null : event.output) }),
              },
            ],
            onError: { target: 'idle', actions: assign({ rebuildError: ({ event }) => errorMessage(event.error) }) },
          },
        },
        idle: {
          // The route refuses anyone but an operator: nothing is sent for the others.
          on: { 'user.rebuild': { guard: 'isOperator', target: 'starting' } },
        },
        starting: {
          entry: assign({ rebuildError: null }),
          invoke: {
            src: 'startRebuild',
            onDone: { target: 'running', actions: assign({ job: ({ event }) => startedJob(event.output.jobId) }) },
            onError: [
              // Someone else's check is running: follow it.
              { guard: 'alreadyRunning', target: 'running.polling' },
              { target: 'idle', actions: assign({ rebuildError: ({ event }) => errorMessage(event.error) }) },
            ],
          },
        },
        running: {
          initial: 'waiting',
          states: {
            waiting: {
              after: { rebuildPoll: 'polling' },
            },
            polling: {
              invoke: {
                src: 'readRebuild',
                onDone: [
                  { guard: 'jobRunning', target: 'waiting', actions: assign({ job: ({ event }) => event.output }) },
                  { target: '#maint.rebuild.idle', actions: assign({ job: ({ event }) => event.output }) },
                ],
                onError: {
                  target: '#maint.rebuild.idle',
                  actions: assign({ rebuildError: ({ event }) => errorMessage(event.error) }),
                },
              },
            },
          },
        },
      },
    },
  },
});
