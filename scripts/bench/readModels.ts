/**
 * `npm run bench -- readmodels`: whether the read models that keep the latest entries of an alert or a user
 * (an alert's history, a user's deliveries, the bell's notifications) cost the same per event however much they
 * hold, and so does the delivery log's record of an attempt and its outcome (`cachedDeliveryLog`, whose state of a
 * user holds every delivery they ever had: 10,000 against a new user's). Each event is appended to a SQLite log alone and committed by the projections' own runners into SQLite
 * read models, as a trigger or a delivery record is; the cost of an event where the model is full is measured
 * against the same where it is nearly empty, alternately, in the same run and on the same stores. For the bell,
 * the read its routes make (a user's notifications, listed and ordered) for a user with 20,000 triggers against
 * one with 1,000. Prints a table, then one JSON line.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeliveriesCommand } from '../../domain/deliveries/deliveries.ts';
import { cachedDeliveryLog, type DeliveryLog } from '../../engine/delivery/deliveryLog.ts';
import { openSqliteEventStore } from '../../platform/eventstore/sqlite.ts';
import { ALERT_HISTORY_LIMIT, alertHistoryProjection } from '../../projections/alerts/alerts.projection.ts';
import { DELIVERIES_KEPT, deliveriesProjection } from '../../projections/delivery/delivery.projection.ts';
import {
  NOTIFICATIONS_KEPT,
  notificationPrefix,
  notificationsProjection,
} from '../../projections/notifications/notifications.projection.ts';
import { comparePositions, type EventData, type LogPosition } from '../../platform/eventstore/port.ts';
import { priceAlertTriggered } from '../../projections/testing/events.ts';
import { projectionsOnSqlite, type ProjectionsOnSqlite } from '../../projections/testing/onSqlite.ts';
import { progress } from './child.ts';
import { printTable } from './engine.ts';

/** Figures of one run: per case, ms per event (or per read) nearly empty and full, and their ratio. */
export interface ReadModelsBenchResult {
  readonly bench: 'readmodels';
  readonly history: Comparison;
  readonly deliveries: Comparison;
  readonly bell: Comparison;
  readonly deliveryLog: Comparison;
}

interface Comparison {
  readonly smallMs: number;
  readonly fullMs: number;
  readonly ratio: number;
}

/** A full model may cost at most this many times a nearly empty one. */
const BUDGET_RATIO = 2;
/** Events (or reads) measured per side, in alternated rounds. */
const MEASURED = 300;
const ROUNDS = 6;
const BELL_SMALL = NOTIFICATIONS_KEPT;
const BELL_LARGE = 20_000;
/** Deliveries of the user whose delivery log state is large. */
const LOG_LARGE = 10_000;

let n = 0;
const at = (): string => new Date(Date.UTC(2026, 0, 5, 15) + ++n * 1000).toISOString();

function triggered(userId: string, alertId: string): EventData {
  return priceAlertTriggered(userId, alertId, 100 + (n % 1000) / 100, at());
}

/** A delivery's first attempt and its success. */
function delivered(userId: string): EventData[] {
  const deliveryId = randomUUID();
  const base = { deliveryId, attempt: 1 };
  return [
    {
      id: randomUUID(),
      type: 'DeliveryAttempted',
      data: {
        ...base,
        kind: 'alert',
        alertId: randomUUID(),
        triggerId: randomUUID(),
        channelId: randomUUID(),
        channelType: 'webhook',
        at: at(),
      },
      metadata: { userId },
    },
    { id: randomUUID(), type: 'DeliverySucceeded', data: { ...base, status: 204, at: at() }, metadata: { userId } },
  ];
}

/** Appends `events` in batches of 500 (filling a model before the clock). */
async function fill(on: ProjectionsOnSqlite, stream: string, events: readonly EventData[]): Promise<void> {
  for (let from = 0; from < events.length; from += 500) await on.append(stream, events.slice(from, from + 500));
}

/** Milliseconds per event of `make`'s events appended one at a time to `stream`, each awaited through the runners. */
async function perEvent(on: ProjectionsOnSqlite, stream: string, make: () => EventData[], count: number) {
  let events = 0;
  const started = performance.now();
  while (events < count) {
    for (const event of make()) {
      await on.append(stream, [event]);
      events += 1;
    }
  }
  return { ms: performance.now() - started, events };
}

/** Both sides measured alternately in rounds; ms per event of each. */
async function alternate(
  small: () => Promise<{ ms: number; events: number }>,
  full: () => Promise<{ ms: number; events: number }>,
): Promise<Comparison> {
  const sums = { small: { ms: 0, events: 0 }, full: { ms: 0, events: 0 } };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [side, run] of round % 2 === 0
      ? ([
          ['small', small],
          ['full', full],
        ] as const)
      : ([
          ['full', full],
          ['small', small],
        ] as const)) {
      const { ms, events } = await run();
      sums[side].ms += ms;
      sums[side].events += events;
    }
  }
  const smallMs = sums.small.ms / sums.small.events;
  const fullMs = sums.full.ms / sums.full.events;
  return { smallMs: round3(smallMs), fullMs: round3(fullMs), ratio: Math.round((fullMs / smallMs) * 100) / 100 };
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

async function benchHistory(): Promise<Comparison> {
  const on = await projectionsOnSqlite([alertHistoryProjection]);
  try {
    progress(`alert history: one alert filled with ${ALERT_HISTORY_LIMIT + 100} firings`);
    await fill(
      on,
      'alerts-ada',
      Array.from({ length: ALERT_HISTORY_LIMIT + 100 }, () => triggered('ada', 'full')),
    );
    // The nearly empty side takes a new alert each round, so it never holds more than a round's firings.
    let fresh = 0;
    return await alternate(
      () => {
        const alertId = `small-${fresh++}`;
        return perEvent(on, 'alerts-bob', () => [triggered('bob', alertId)], MEASURED / ROUNDS);
      },
      () => perEvent(on, 'alerts-ada', () => [triggered('ada', 'full')], MEASURED / ROUNDS),
    );
  } finally {
    await on.close();
  }
}

async function benchDeliveries(): Promise<Comparison> {
  const on = await projectionsOnSqlite([deliveriesProjection]);
  try {
    progress(`deliveries: one user filled with ${DELIVERIES_KEPT + 100} deliveries`);
    await fill(on, 'deliveries-ada', Array.from({ length: DELIVERIES_KEPT + 100 }, () => delivered('ada')).flat());
    // The nearly empty side takes a new user each round.
    let fresh = 0;
    return await alternate(
      () => {
        const userId = `small${fresh++}`;
        return perEvent(on, `deliveries-${userId}`, () => delivered(userId), MEASURED / ROUNDS);
      },
      () => perEvent(on, 'deliveries-ada', () => delivered('ada'), MEASURED / ROUNDS),
    );
  } finally {
    await on.close();
  }
}

async function benchBell(): Promise<Comparison> {
  const on = await projectionsOnSqlite([notificationsProjection]);
  try {
    progress(
      `bell: one user with ${BELL_SMALL.toLocaleString('en-US')} triggers, one with ${BELL_LARGE.toLocaleString('en-US')}`,
    );
    await fill(
      on,
      'alerts-few',
      Array.from({ length: BELL_SMALL }, () => triggered('few', 'a')),
    );
    await fill(
      on,
      'alerts-many',
      Array.from({ length: BELL_LARGE }, () => triggered('many', 'a')),
    );
    // What the bell's routes read: the user's notifications, newest first.
    const read = (userId: string) => async () => {
      const started = performance.now();
      for (let k = 0; k < MEASURED / ROUNDS / 10; k++) {
        const docs = await on.readModels.list<{ position: LogPosition }>(notificationsProjection.name, {
          prefix: notificationPrefix(userId),
        });
        docs.map((d) => d.doc).sort((a, b) => comparePositions(b.position, a.position));
      }
      return { ms: performance.now() - started, events: MEASURED / ROUNDS / 10 };
    };
    return await alternate(read('few'), read('many'));
  } finally {
    await on.close();
  }
}

/** One delivery recorded through the log as the processor records it: its first attempt, then its success. */
async function recordDelivery(log: DeliveryLog, userId: string): Promise<number> {
  const deliveryId = randomUUID();
  const data = { deliveryId, attempt: 1, at: at() };
  const attempt: DeliveriesCommand = {
    type: 'RecordDeliveryAttempt',
    data: { ...data, kind: 'alert', alertId: null, triggerId: null, channelId: 'c', channelType: 'webhook' },
  };
  const outcome: DeliveriesCommand = {
    type: 'RecordDeliveryOutcome',
    data: { ...data, ok: true, status: 200, error: null, final: false, retryAt: null },
  };
  const meta = (step: string) => ({
    commandId: `${deliveryId}/${step}`,
    userId,
    at: data.at,
    actor: 'engine' as const,
  });
  const recorded = [
    ...(await log.record(userId, attempt, meta('a'))),
    ...(await log.record(userId, outcome, meta('o'))),
  ];
  if (recorded.length !== 2) throw new Error(`delivery ${deliveryId} of ${userId}: ${recorded.length} events decided`);
  return 2;
}

async function benchDeliveryLog(): Promise<Comparison> {
  const dir = mkdtempSync(join(tmpdir(), 'sp-bench-deliverylog-'));
  const events = openSqliteEventStore({ file: join(dir, 'events.db') });
  try {
    const log = cachedDeliveryLog(events);
    progress(`delivery log: one user with ${LOG_LARGE.toLocaleString('en-US')} deliveries recorded`);
    for (let d = 0; d < LOG_LARGE; d++) await recordDelivery(log, 'ada');
    const run = (userId: () => string) => async () => {
      const user = userId();
      let recorded = 0;
      const started = performance.now();
      while (recorded < MEASURED / ROUNDS) recorded += await recordDelivery(log, user);
      return { ms: performance.now() - started, events: recorded };
    };
    let fresh = 0;
    return await alternate(
      run(() => `small${fresh++}`),
      run(() => 'ada'),
    );
  } finally {
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchReadModels(): Promise<ReadModelsBenchResult> {
  return {
    bench: 'readmodels',
    history: await benchHistory(),
    deliveries: await benchDeliveries(),
    bell: await benchBell(),
    deliveryLog: await benchDeliveryLog(),
  };
}

/** Prints the table, the verdict and, last, the JSON line; answers whether the budgets are met. */
export function report(r: ReadModelsBenchResult): boolean {
  const cases = [
    [`firing of an alert with ${ALERT_HISTORY_LIMIT} kept / nearly none`, r.history],
    [`delivery event of a user with ${DELIVERIES_KEPT} kept / nearly none`, r.deliveries],
    [`bell read, ${BELL_LARGE.toLocaleString('en-US')} triggers / ${BELL_SMALL.toLocaleString('en-US')}`, r.bell],
    [`delivery log record, a user with ${LOG_LARGE.toLocaleString('en-US')} deliveries / a new user`, r.deliveryLog],
  ] as const;
  const met = cases.every(([, c]) => c.ratio <= BUDGET_RATIO);
  printTable(
    'read models that keep the latest entries: one event (or read) full against nearly empty, ms',
    cases.map(([name, c]) => [name, `${c.fullMs} / ${c.smallMs} = ${c.ratio}`, `ratio <= ${BUDGET_RATIO}`]),
    met,
    r,
  );
  return met;
}
