/**
 * Every read model of the product and the runners that keep them current.
 */
import { comparePositions, type EventStore, type LogPosition } from '../platform/eventstore/port.ts';
import type { DocumentWrite, ReadModelStore } from '../platform/readmodels/port.ts';
import type { ConsumerLag, ConsumerRunner } from '../platform/subscriptions/runner.ts';
import { superviseConsumer } from '../platform/subscriptions/supervisor.ts';
import { alertHistoryProjection, alertsProjection } from './alerts/alerts.projection.ts';
import { accountsProjection } from './accounts/accounts.projection.ts';
import { notificationReadsProjection, notificationsProjection } from './notifications/notifications.projection.ts';
import { companyStatsProjection } from './companystats/companystats.projection.ts';
import {
  dashboardLayoutProjection,
  dashboardOptionsProjection,
  dashboardStocksProjection,
} from './dashboard/dashboard.projection.ts';
import { ledgerProjection } from './portfolio/ledger.projection.ts';
import { portfolioProjection } from './portfolio/portfolio.projection.ts';
import { positionLotsProjection } from './positions/positions.projection.ts';
import { predictionsProjection } from './predictions/predictions.projection.ts';
import { projectionConsumer, type Projection } from './projection.ts';
import { queriesProjection } from './queries/queries.projection.ts';
import { sectorsProjection } from './sectors/sectors.projection.ts';
import { snapshotImagesProjection, snapshotsProjection } from './snapshots/snapshots.projection.ts';
import { watchlistProjection } from './watchlist/watchlist.projection.ts';
import { channelsProjection, deliveriesProjection } from './delivery/delivery.projection.ts';

/** Every projection, one per query. */
export const ALL_PROJECTIONS: readonly Projection<unknown>[] = [
  accountsProjection,
  watchlistProjection,
  alertsProjection,
  alertHistoryProjection,
  notificationsProjection,
  notificationReadsProjection,
  queriesProjection,
  dashboardLayoutProjection,
  dashboardOptionsProjection,
  dashboardStocksProjection,
  companyStatsProjection,
  portfolioProjection,
  ledgerProjection,
  positionLotsProjection,
  sectorsProjection,
  snapshotsProjection,
  snapshotImagesProjection,
  predictionsProjection,
  channelsProjection,
  deliveriesProjection,
] as Projection<unknown>[];

/** The running projections. */
export interface RunningProjections {
  /** Resolves when every projection has caught up with the log as it was at the start (or at a restart). */
  readonly caughtUp: Promise<void>;
  /**
   * Resolves once every projection that reads one of `types` has committed up to `position`
   * (read-your-writes after a command), a projection started again after a failure included; rejects after
   * `timeoutMs` (default 5 s).
   */
  waitFor(position: LogPosition, types: readonly string[], timeoutMs?: number): Promise<void>;
  /** The lag of each projection. */
  lags(): Promise<ConsumerLag[]>;
  /** Commits what is pending and stops. */
  stop(): Promise<void>;
}

/** Called after a projection committed documents up to a position. */
export type ReadModelCommitListener = (name: string, position: LogPosition, writes: readonly DocumentWrite[]) => void;

/** Options of {@link startProjections}. */
export interface StartProjectionsOptions {
  /** Called after each commit of a projection, e.g. to push `readmodel:changed`. */
  readonly onCommit?: ReadModelCommitListener;
  /** Called when a projection fails, or starting it again fails; it is started again after a delay. */
  readonly onError?: (name: string, error: Error) => void;
  /** First delay (ms) before a failed projection is started again, doubling up to 30 s (default 500). */
  readonly restartDelayMs?: number;
  /** Milliseconds between checks that the store still holds each projection's checkpoint (default 5000). */
  readonly verifyMs?: number;
}

/**
 * Starts one checkpointed runner per projection, each supervised: a projection that fails (the read-model
 * store unreachable, say) is started again from its durable checkpoint after a delay, and one whose checkpoint
 * the store lost (a Redis restarted without its data) replays the whole log into a cleared read model.
 */
export async function startProjections(
  events: EventStore,
  readModels: ReadModelStore,
  projections: readonly Projection<unknown>[] = ALL_PROJECTIONS,
  options: StartProjectionsOptions = {},
): Promise<RunningProjections> {
  const runners: { runner: ConsumerRunner; handles: ReadonlySet<string> }[] = [];
  for (const projection of projections) {
    const runner = await superviseConsumer(events, readModels, projectionConsumer(projection), {
      onCommit: (position, writes) => options.onCommit?.(projection.name, position, writes),
      onError: (error) => options.onError?.(projection.name, error),
      restartDelayMs: options.restartDelayMs,
      verifyMs: options.verifyMs,
    });
    runners.push({ runner, handles: new Set(projection.handles) });
  }
  return {
    caughtUp: Promise.all(runners.map(({ runner }) => runner.caughtUp)).then(() => undefined),
    waitFor: (position, types, timeoutMs = 5000) => {
      const pending = runners
        .filter(
          ({ runner, handles }) =>
            types.some((t) => handles.has(t)) && comparePositions(runner.checkpoint(), position) < 0,
        )
        .map(({ runner }) => runner);
      if (pending.length === 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`read models did not reach ${position.commit} in ${timeoutMs} ms`)),
          timeoutMs,
        );
        Promise.all(pending.map((r) => r.waitFor(position))).then(
          () => {
            clearTimeout(timer);
            resolve();
          },
          (error: unknown) => {
            clearTimeout(timer);
            reject(error instanceof Error ? error : new Error(String(error)));
          },
        );
      });
    },
    lags: () => Promise.all(runners.map(({ runner }) => runner.lag())),
    // A restart not yet made is cancelled too.
    stop: async () => {
      await Promise.all(runners.map(({ runner }) => runner.stop()));
    },
  };
}

/**
 * Read-your-writes for a process that does not run the projections itself (ROLE=gateway): polls the
 * projections' checkpoints in the shared read-model store until they include the position.
 */
export function checkpointSync(
  readModels: ReadModelStore,
  projections: readonly Projection<unknown>[] = ALL_PROJECTIONS,
  pollMs = 5,
): Pick<RunningProjections, 'waitFor'> {
  return {
    waitFor: async (position, types, timeoutMs = 5000) => {
      const names = projections
        .filter((p) => p.handles.some((h) => types.includes(h)))
        .map((p) => projectionConsumer(p).name);
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const checkpoints = await Promise.all(names.map((n) => readModels.readCheckpoint(n)));
        if (checkpoints.every((c) => c !== null && comparePositions(c.position, position) >= 0)) return;
        if (Date.now() > deadline) throw new Error(`read models did not reach ${position.commit} in ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, pollMs));
      }
    },
  };
}
