/**
 * The Maint page: the operations status (market data, tick source and rate, projection lags) read again every
 * few seconds while the page is open, and the rebuild check (started, polled while it runs, its result kept).
 * The audit part is its own machine, invoked as the child `audit` once the session says the user is an auditor.
 */
import { assign, fromPromise, setup } from 'xstate';
import type { SessionAnswer } from '../../../domain/contract/session.ts';
import { ApiError, errorMessage, get, post } from '../../services/api.ts';
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
}

/** Events of the page. */
export type MaintEvent = { type: 'user.retry' } | { type: 'user.rebuild' };

/** The Maint page's machine. */
export const maintMachine = setup({
  types: {
    context: {} as MaintContext,
    events: {} as MaintEvent,
    children: {} as { audit: 'audit' },
  },
  actors: {
    loadStatus: fromPromise<MaintStatus>(async ({ signal }) => get<MaintStatus>('/api/maint/status', signal)),
    readRebuild: fromPromise<RebuildJob>(async ({ signal }) => get<RebuildJob>('/api/maint/rebuild', signal)),
    startRebuild: fromPromise(async () => post<{ jobId: string; state: 'running' }>('/api/maint/rebuild')),
    loadSession: fromPromise<SessionAnswer>(async ({ signal }) => get<SessionAnswer>('/api/session', signal)),
    audit: auditMachine,
  },
  delays: { statusPoll: STATUS_POLL_MS, rebuildPoll: REBUILD_POLL_MS },
  guards: {
    jobRunning: ({ event }) => 'output' in event && (event.output as RebuildJob).state === 'running',
    alreadyRunning: ({ event }) => 'error' in event && event.error instanceof ApiError && event.error.status === 409,
    isAuditor: ({ event }) => 'output' in event && (event.output as SessionAnswer).roles.includes('auditor'),
  },
}).createMachine({
  id: 'maint',
  type: 'parallel',
  context: { status: null, statusAt: null, error: null, staleError: null, job: null, rebuildError: null },
  states: {
    audit: {
      initial: 'checking',
      states: {
        checking: {
          invoke: {
            src: 'loadSession',
            onDone: [{ guard: 'isAuditor', target: 'auditor' }, { target: 'notAuditor' }],
            // Without the session's answer the audit part is not shown: the rest of the page works on.
            onError: 'notAuditor',
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
          on: { 'user.rebuild': 'starting' },
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
