import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { alertKey } from '../../domain/alerts/alerts.ts';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../../domain/ids.ts';
import type { EventData, RecordedEvent } from '../../platform/eventstore/port.ts';
import type { SqliteEventStore } from '../../platform/eventstore/sqlite.ts';
import type { SqliteReadModelStore } from '../../platform/readmodels/sqlite.ts';
import { projectionConsumer, type StoredDocument } from '../projection.ts';
import { priceAlertTriggered } from '../testing/events.ts';
import { applyToDocuments } from '../testing/inMemory.ts';
import { projectionsOnSqlite, type ProjectionsOnSqlite } from '../testing/onSqlite.ts';
import {
  ALERT_HISTORY_LIMIT,
  ALERT_HISTORY_PAGE,
  alertHistoryProjection,
  readAlertHistory,
  type AlertHistoryPage,
} from './alerts.projection.ts';

const A1 = uuidV5('history-a1', STOCKPULSE_NAMESPACE);
const A2 = uuidV5('history-a2', STOCKPULSE_NAMESPACE);

/** The `n`-th firing of an alert: a second apart from 2025-03-04 15:00 UTC, priced 100 + n cents. */
function fired(alertId: string, n: number, userId = 'ada'): EventData {
  const at = new Date(Date.UTC(2025, 2, 4, 15) + n * 1000).toISOString();
  return priceAlertTriggered(userId, alertId, 100 + n / 100, at, `AAPL rose above 100 (firing ${n})`);
}

const deleted = (alertId: string, userId = 'ada'): EventData => ({
  id: randomUUID(),
  type: 'AlertDeleted',
  data: { alertId, symbol: 'AAPL' },
  metadata: { userId },
});

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, k) => from + k);

describe('alert history projection (SQLite log and read models)', function () {
  let on: ProjectionsOnSqlite;
  let events: SqliteEventStore;
  let readModels: SqliteReadModelStore;

  beforeEach(async function () {
    on = await projectionsOnSqlite([alertHistoryProjection]);
    ({ events, readModels } = on);
  });

  afterEach(async function () {
    await on.close();
  });

  const append = (userId: string, batch: readonly EventData[]) => on.append(`alerts-${userId}`, batch);

  const firingsOf = async (userId: string, alertId: string) =>
    (await readAlertHistory(readModels, alertKey(userId, alertId))).map((t) => t.message);

  it("keeps each alert's firings under its user, newest first, and drops every page with the alert", async function () {
    const second = fired(A1, 2);
    await append('ada', [fired(A1, 1), second]);
    await append('bob', [...range(0, 150).map((n) => fired(A2, n, 'bob'))]);
    expect(await firingsOf('ada', A1)).to.deep.equal([
      'AAPL rose above 100 (firing 2)',
      'AAPL rose above 100 (firing 1)',
    ]);
    const [latest] = await readAlertHistory(readModels, alertKey('ada', A1));
    expect(latest).to.deep.equal({
      // The trigger's id, which its deliveries name.
      id: second.id,
      at: '2025-03-04T15:00:02.000Z',
      price: 100.02,
      value: 100.02,
      message: 'AAPL rose above 100 (firing 2)',
      notificationtype: 1,
      note: null,
    });
    expect(await firingsOf('bob', A2)).to.have.length(150);
    expect(await firingsOf('ada', A2), "another user's alert of the same id").to.deep.equal([]);

    await append('bob', [deleted(A2, 'bob')]);
    expect(await firingsOf('bob', A2)).to.deep.equal([]);
    const left = (await readModels.list(alertHistoryProjection.name)).map((doc) => doc.key);
    expect(
      left.every((key) => key.startsWith(alertKey('ada', A1))),
      left.join(', '),
    ).to.equal(true);
    expect(left).to.have.length(2);
  });

  it(`serves the latest ${ALERT_HISTORY_LIMIT} firings of many, in pages of ${ALERT_HISTORY_PAGE} that each firing writes one of`, async function () {
    const total = 2 * ALERT_HISTORY_LIMIT + 37;
    for (let from = 0; from < total; from += 400) {
      await append(
        'ada',
        range(from, Math.min(total, from + 400)).map((n) => fired(A1, n)),
      );
    }
    const served = await firingsOf('ada', A1);
    expect(served).to.have.length(ALERT_HISTORY_LIMIT);
    expect(served[0]).to.equal(`AAPL rose above 100 (firing ${total - 1})`);
    expect(served.at(-1)).to.equal(`AAPL rose above 100 (firing ${total - ALERT_HISTORY_LIMIT})`);
    const stored = await readModels.list<StoredDocument<{ triggers?: unknown[] }>>(alertHistoryProjection.name);
    const pages = stored.filter((doc) => doc.doc.value.triggers !== undefined);
    expect(pages.length).to.be.at.most(ALERT_HISTORY_LIMIT / ALERT_HISTORY_PAGE + 1);
    expect(pages.every((page) => page.doc.value.triggers!.length <= ALERT_HISTORY_PAGE)).to.equal(true);

    // The next firing rewrites the alert's last page and its list of pages, nothing of the older firings.
    const docs = new Map(stored.map((doc) => [doc.key, doc.doc as StoredDocument<unknown>]));
    const writes: { key: string; triggers: number | null }[] = [];
    const next: RecordedEvent = {
      ...fired(A1, total),
      streamId: 'alerts-ada',
      revision: total,
      position: { commit: Number.MAX_SAFE_INTEGER, prepare: Number.MAX_SAFE_INTEGER },
      metadata: { userId: 'ada' },
      created: '2025-03-04T16:00:00.000Z',
    };
    await projectionConsumer(alertHistoryProjection).handle(next, {
      get: <T>(_collection: string, key: string) => Promise.resolve(docs.get(key) as T | undefined),
      put: (_collection, key, doc) =>
        void writes.push({ key, triggers: (doc as StoredDocument<AlertHistoryPage>).value.triggers?.length ?? null }),
      delete: (_collection, key) => void writes.push({ key, triggers: -1 }),
    });
    expect(writes.filter((w) => w.triggers !== -1)).to.have.length(2);
    expect(writes.every((w) => w.triggers === null || w.triggers <= ALERT_HISTORY_PAGE)).to.equal(true);
  });

  it('applies a replayed event once, and rebuilds the same history from the log', async function () {
    const batch = range(0, 230).map((n) => fired(A1, n));
    await append('ada', batch);
    const before = await firingsOf('ada', A1);
    const recordedEvents = await events.readAll({});
    const docs = await applyToDocuments(alertHistoryProjection, recordedEvents);
    const snapshot = structuredClone([...docs]);
    await applyToDocuments(alertHistoryProjection, recordedEvents.slice(100), docs);
    expect([...docs]).to.deep.equal(snapshot);
    const live = new Map((await readModels.list(alertHistoryProjection.name)).map((doc) => [doc.key, doc.doc]));
    expect(new Map(snapshot)).to.deep.equal(live);
    expect(before).to.have.length(230);
  });
});
