import { expect } from 'chai';
import { SimulatedClock, createActor, fromPromise, waitFor, type ActorRefFrom } from 'xstate';
import { ApiError } from '../../services/api.ts';
import { auditMachine } from './audit.machine.ts';
import {
  countText,
  durationText,
  rebuildProgress,
  rebuildSummary,
  startedJob,
  type AuditAccount,
  type MaintStatus,
  type RebuildJob,
} from './maint.logic.ts';
import { REBUILD_POLL_MS, STATUS_POLL_MS, maintMachine } from './maint.machine.ts';
import type { SessionAnswer } from '../../../domain/contract/session.ts';

function status(ticks: number): MaintStatus {
  return {
    market: {
      asOf: '2024-12-31',
      symbols: 325,
      bars: 408_850,
      lastTick: null,
      simulated: true,
      from: '2020-01-02',
      to: '2024-12-31',
      source: 'simulated',
      importedSymbols: [],
    },
    ticks: {
      source: 'feed',
      live: true,
      health: null,
      feed: { source: 'feed', name: 'Feed', delay: 'as the producer sends them', ok: true, health: 'live' },
      ticksPerSec: 0,
      ticks,
      armedAlerts: 0,
    },
    projections: [{ name: 'watchlist', position: '2/2', behind: false, lagEvents: 0, lagMs: 0 }],
    events: { head: '2/2' },
  };
}

function job(state: RebuildJob['state'], processed: number, total: number, differenceCount = 0): RebuildJob {
  return {
    ...startedJob('job-1'),
    state,
    processed,
    total,
    differenceCount,
    differences: differenceCount
      ? [{ collection: 'watchlist', key: null, kind: 'changed', path: 'value.symbols[0]' }]
      : [],
    collections: [
      {
        collection: 'watchlist',
        compared: 3,
        differences: differenceCount,
        skipped: 0,
        liveCheckpoint: '1/1',
        liveBehind: false,
      },
    ],
  };
}

type Step<T> = () => T | Promise<T>;

function page(options: {
  statuses?: Step<MaintStatus>[];
  rebuilds?: Step<RebuildJob>[];
  start?: Step<{ jobId: string; state: 'running' }>;
  users?: Step<AuditAccount[]>;
  session?: Step<SessionAnswer>;
}) {
  const clock = new SimulatedClock();
  const calls = { status: 0, rebuild: 0, start: 0, session: 0, users: 0 };
  const session =
    options.session ?? (() => ({ signedIn: true, username: 'ada', roles: ['user', 'auditor', 'operator'] }));
  const statuses = options.statuses ?? [() => status(0)];
  const rebuilds = options.rebuilds ?? [() => job('idle', 0, 0)];
  const actor = createActor(
    maintMachine.provide({
      actors: {
        loadStatus: fromPromise<MaintStatus>(async () => {
          const step = statuses[Math.min(calls.status, statuses.length - 1)]!;
          calls.status += 1;
          return step();
        }),
        readRebuild: fromPromise<RebuildJob>(async () => {
          const step = rebuilds[Math.min(calls.rebuild, rebuilds.length - 1)]!;
          calls.rebuild += 1;
          return step();
        }),
        startRebuild: fromPromise(async () => {
          calls.start += 1;
          return (options.start ?? (() => ({ jobId: 'job-1', state: 'running' as const })))();
        }),
        loadSession: fromPromise<SessionAnswer>(async () => {
          calls.session += 1;
          return session();
        }),
        audit: auditMachine.provide({
          actors: {
            loadUsers: fromPromise(async () => {
              calls.users += 1;
              return (options.users ?? (() => []))();
            }),
          },
        }),
      },
    }),
    { clock },
  );
  const audit = () => actor.getSnapshot().children.audit as ActorRefFrom<typeof auditMachine>;
  actor.start();
  return { actor, clock, calls, audit };
}

describe('maint machine', () => {
  it('reads the status, then again every few seconds while open', async () => {
    const { actor, clock, calls } = page({ statuses: [() => status(1), () => status(2)] });
    expect(actor.getSnapshot().matches({ status: 'loading' })).to.equal(true);
    await waitFor(actor, (s) => s.matches({ status: 'ready' }));
    expect(actor.getSnapshot().context.status?.ticks.ticks).to.equal(1);
    clock.increment(STATUS_POLL_MS - 1);
    expect(calls.status).to.equal(1);
    clock.increment(1);
    await waitFor(actor, (s) => s.matches({ status: 'ready' }) && s.context.status?.ticks.ticks === 2);
    expect(calls.status).to.equal(2);
  });

  it('keeps the status shown when a refresh fails, and says so', async () => {
    const { actor, clock } = page({
      statuses: [
        () => status(1),
        () => {
          throw new Error('The server could not answer');
        },
        () => status(3),
      ],
    });
    await waitFor(actor, (s) => s.matches({ status: 'ready' }));
    clock.increment(STATUS_POLL_MS);
    await waitFor(actor, (s) => s.context.staleError !== null);
    expect(actor.getSnapshot().context.staleError).to.equal('The server could not answer');
    expect(actor.getSnapshot().context.status?.ticks.ticks).to.equal(1);
    clock.increment(STATUS_POLL_MS);
    await waitFor(actor, (s) => s.context.status?.ticks.ticks === 3);
    expect(actor.getSnapshot().context.staleError).to.equal(null);
  });

  it('shows a failed first read with its message and retries', async () => {
    const { actor, calls } = page({
      statuses: [
        () => {
          throw new Error('Your session has ended: sign in again');
        },
        () => status(0),
      ],
    });
    await waitFor(actor, (s) => s.matches({ status: 'failed' }));
    expect(actor.getSnapshot().context.error).to.equal('Your session has ended: sign in again');
    actor.send({ type: 'user.retry' });
    await waitFor(actor, (s) => s.matches({ status: 'ready' }));
    expect(calls.status).to.equal(2);
  });

  it('runs the rebuild check and polls it until it is done', async () => {
    const { actor, clock, calls } = page({
      rebuilds: [() => job('idle', 0, 0), () => job('running', 500, 1000), () => job('done', 1000, 1000)],
    });
    await waitFor(actor, (s) => s.matches({ rebuild: 'idle' }) && s.context.operator === true);
    expect(actor.getSnapshot().context.job, 'no check ran yet').to.equal(null);
    actor.send({ type: 'user.rebuild' });
    await waitFor(actor, (s) => s.matches({ rebuild: 'running' }));
    expect(calls.start).to.equal(1);
    expect(actor.getSnapshot().context.job).to.include({ jobId: 'job-1', state: 'running', processed: 0 });
    clock.increment(REBUILD_POLL_MS);
    await waitFor(actor, (s) => s.context.job?.processed === 500);
    expect(actor.getSnapshot().matches({ rebuild: { running: 'waiting' } })).to.equal(true);
    expect(rebuildProgress(actor.getSnapshot().context.job!)).to.equal(0.5);
    clock.increment(REBUILD_POLL_MS);
    await waitFor(actor, (s) => s.matches({ rebuild: 'idle' }));
    expect(actor.getSnapshot().context.job?.state).to.equal('done');
    expect(rebuildSummary(actor.getSnapshot().context.job!)).to.equal(
      'The read models match the log: 1000 events replayed, 3 documents compared in 1 read model.',
    );
  });

  it('follows a check already running when the page opens, or when starting one answers 409', async () => {
    const opened = page({ rebuilds: [() => job('running', 10, 100), () => job('done', 100, 100)] });
    await waitFor(opened.actor, (s) => s.matches({ rebuild: 'running' }));
    opened.clock.increment(REBUILD_POLL_MS);
    await waitFor(opened.actor, (s) => s.matches({ rebuild: 'idle' }));
    expect(opened.actor.getSnapshot().context.job?.state).to.equal('done');

    const conflict = page({
      rebuilds: [() => job('idle', 0, 0), () => job('done', 7, 7, 2)],
      start: () => {
        throw new ApiError(409, 'conflict', 'a rebuild check is already running');
      },
    });
    await waitFor(conflict.actor, (s) => s.matches({ rebuild: 'idle' }) && s.context.operator === true);
    conflict.actor.send({ type: 'user.rebuild' });
    await waitFor(conflict.actor, (s) => s.matches({ rebuild: 'idle' }) && s.context.job !== null);
    expect(conflict.actor.getSnapshot().context.job?.differenceCount).to.equal(2);
    expect(conflict.actor.getSnapshot().context.rebuildError).to.equal(null);
  });

  it('keeps the message when a check cannot be started', async () => {
    const { actor } = page({
      start: () => {
        throw new Error('The server could not answer');
      },
    });
    await waitFor(actor, (s) => s.matches({ rebuild: 'idle' }) && s.context.operator === true);
    actor.send({ type: 'user.rebuild' });
    await waitFor(actor, (s) => s.context.rebuildError !== null);
    expect(actor.getSnapshot().matches({ rebuild: 'idle' })).to.equal(true);
    expect(actor.getSnapshot().context.rebuildError).to.equal('The server could not answer');
  });

  it('starts no rebuild check for a user the session names no operator, and says so', async () => {
    const { actor, calls } = page({ session: () => ({ signedIn: true, username: 'bob', roles: ['user', 'auditor'] }) });
    expect(actor.getSnapshot().context.operator, 'unknown until the session is read').to.equal(null);
    await waitFor(actor, (s) => s.matches({ rebuild: 'idle' }) && s.context.operator !== null);
    expect(actor.getSnapshot().context.operator).to.equal(false);
    actor.send({ type: 'user.rebuild' });
    expect(actor.getSnapshot().matches({ rebuild: 'idle' })).to.equal(true);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(calls.start, 'POST /api/maint/rebuild would answer 403').to.equal(0);
    expect(actor.getSnapshot().context.rebuildError).to.equal(null);
  });

  it('offers no rebuild check when the session cannot be read', async () => {
    const { actor, calls } = page({
      session: () => {
        throw new ApiError(0, 'network', 'The server cannot be reached');
      },
    });
    await waitFor(actor, (s) => s.matches({ rebuild: 'idle' }) && s.context.operator !== null);
    expect(actor.getSnapshot().context.operator).to.equal(false);
    actor.send({ type: 'user.rebuild' });
    expect(calls.start).to.equal(0);
  });

  it('invokes the audit part for an auditor, as the session says', async () => {
    const { actor, audit, calls } = page({
      users: () => [{ username: 'ada', roles: ['user', 'auditor'], registeredAt: '', lastSignInAt: null }],
    });
    await waitFor(actor, (s) => s.matches({ audit: 'auditor' }));
    await waitFor(audit(), (s) => s.matches('ready'));
    expect(calls).to.include({ session: 1, users: 1 });
  });

  it("shows no audit part to a user the session names no auditor, without asking the auditors' routes", async () => {
    const { actor, calls } = page({
      session: () => ({ signedIn: true, username: 'bob', roles: ['user'] }),
      users: () => {
        throw new ApiError(403, 'forbidden', 'this route is for auditors');
      },
    });
    await waitFor(actor, (s) => s.matches({ audit: 'notAuditor' }));
    expect(actor.getSnapshot().children.audit).to.equal(undefined);
    await waitFor(actor, (s) => s.matches({ status: 'ready' }));
    expect(calls).to.include({ session: 1, users: 0 });
  });

  it('leaves the audit part out when the session cannot be read, and shows the rest', async () => {
    const { actor, calls } = page({
      session: () => {
        throw new ApiError(0, 'network', 'The server cannot be reached');
      },
    });
    await waitFor(actor, (s) => s.matches({ audit: 'notAuditor' }) && s.matches({ status: 'ready' }));
    expect(calls.users).to.equal(0);
  });

  it("keeps the audit part hidden if the auditors' routes refuse the user after all", async () => {
    const { actor, audit } = page({
      users: () => {
        throw new ApiError(403, 'forbidden', 'this route is for auditors');
      },
    });
    await waitFor(actor, (s) => s.matches({ audit: 'auditor' }));
    await waitFor(audit(), (s) => s.matches('forbidden'));
  });
});

describe('maint logic', () => {
  it('measures the progress of a check, unknown total as 0 and done as 1', () => {
    expect(rebuildProgress({ state: 'running', processed: 0, total: 0 })).to.equal(0);
    expect(rebuildProgress({ state: 'running', processed: 250, total: 1000 })).to.equal(0.25);
    expect(rebuildProgress({ state: 'running', processed: 1200, total: 1000 })).to.equal(1);
    expect(rebuildProgress({ state: 'done', processed: 0, total: 0 })).to.equal(1);
  });

  it('says how many documents differ, and how many are listed', () => {
    const many = { ...job('done', 50, 50, 120), differences: job('done', 0, 0, 1).differences };
    expect(rebuildSummary(many)).to.equal(
      '120 documents differ from the log (the first 1 listed): 50 events replayed, 3 documents compared in 1 read model.',
    );
    expect(rebuildSummary(job('done', 1, 1, 1))).to.equal(
      '1 document differs from the log: 1 event replayed, 3 documents compared in 1 read model.',
    );
    expect(rebuildSummary({ ...job('failed', 1, 1), error: 'disk full' })).to.equal('The check failed: disk full');
    expect(rebuildSummary(job('running', 1, 2))).to.equal('');
  });

  it('writes counts as whole numbers with thousands separators, never in millions', () => {
    expect(countText(0)).to.equal('0');
    expect(countText(999)).to.equal('999');
    expect(countText(4_321)).to.equal('4,321');
    expect(countText(4_999_999)).to.equal('4,999,999');
    expect(countText(1_234_567_890)).to.equal('1,234,567,890');
  });

  it('writes delays for people', () => {
    expect(durationText(0)).to.equal('0 ms');
    expect(durationText(999)).to.equal('999 ms');
    expect(durationText(4200)).to.equal('4.2 s');
    expect(durationText(185_000)).to.equal('3 min 5 s');
  });
});
