import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../../domain/ids.ts';
import type { DeliveriesEvent } from '../../domain/deliveries/deliveries.ts';
import type { EventData, RecordedEvent } from '../../platform/eventstore/port.ts';
import type { SqliteEventStore } from '../../platform/eventstore/sqlite.ts';
import type { SqliteReadModelStore } from '../../platform/readmodels/sqlite.ts';
import { projectionConsumer, type StoredDocument } from '../projection.ts';
import { applyToDocuments } from '../testing/inMemory.ts';
import { projectionsOnSqlite, type ProjectionsOnSqlite } from '../testing/onSqlite.ts';
import { DELIVERIES_KEPT, deliveriesProjection, readDeliveries, readDelivery } from './delivery.projection.ts';

const CHANNEL = uuidV5('deliveries-channel', STOCKPULSE_NAMESPACE);
const ALERT = uuidV5('deliveries-alert', STOCKPULSE_NAMESPACE);
const idOf = (n: number) => uuidV5(`delivery-${n}`, STOCKPULSE_NAMESPACE);
/** The trigger the `n`-th delivery carries. */
const triggerOf = (n: number) => uuidV5(`trigger-${n}`, STOCKPULSE_NAMESPACE);
const at = (n: number) => new Date(Date.UTC(2025, 2, 4, 15) + n * 1000).toISOString();

function event(userId: string, e: DeliveriesEvent): EventData {
  return { id: randomUUID(), type: e.type, data: e.data, metadata: { userId } };
}

const attempted = (userId: string, n: number, attempt = 1) =>
  event(userId, {
    type: 'DeliveryAttempted',
    data: {
      deliveryId: idOf(n),
      attempt,
      kind: 'alert',
      alertId: ALERT,
      triggerId: triggerOf(n),
      channelId: CHANNEL,
      channelType: 'webhook',
      at: at(n),
    },
  });

const succeeded = (userId: string, n: number, attempt = 1) =>
  event(userId, { type: 'DeliverySucceeded', data: { deliveryId: idOf(n), attempt, status: 204, at: at(n + 1) } });

const failed = (userId: string, n: number, final: boolean) =>
  event(userId, {
    type: 'DeliveryFailed',
    data: {
      deliveryId: idOf(n),
      attempt: 1,
      status: 503,
      error: 'HTTP 503',
      final,
      retryAt: final ? null : at(n + 30),
      at: at(n + 1),
    },
  });

describe('deliveries projection (SQLite log and read models)', function () {
  let on: ProjectionsOnSqlite;
  let events: SqliteEventStore;
  let readModels: SqliteReadModelStore;

  beforeEach(async function () {
    on = await projectionsOnSqlite([deliveriesProjection]);
    ({ events, readModels } = on);
  });

  afterEach(async function () {
    await on.close();
  });

  const append = (userId: string, batch: readonly EventData[]) => on.append(`deliveries-${userId}`, batch);

  it('lists each user their own deliveries newest first, each where its last attempt left it', async function () {
    await append('ada', [attempted('ada', 1), succeeded('ada', 1), attempted('ada', 2), failed('ada', 2, false)]);
    await append('ada', [attempted('ada', 2, 2), attempted('ada', 3), failed('ada', 3, true)]);
    await append('ada.b', [attempted('ada.b', 9)]);
    const { deliveries, position } = await readDeliveries(readModels, 'ada');
    expect(deliveries.map((d) => [d.id, d.status, d.attempts, d.lastStatus, d.lastError])).to.deep.equal([
      [idOf(3), 'failed', 1, 503, 'HTTP 503'],
      [idOf(2), 'pending', 2, 503, 'HTTP 503'],
      [idOf(1), 'succeeded', 1, 204, null],
    ]);
    expect(deliveries[2]).to.include({
      createdt: at(1),
      updatedt: at(2),
      channelType: 'webhook',
      alertId: ALERT,
      triggerId: triggerOf(1),
    });
    expect(position?.commit).to.equal((await events.headPosition()).commit - 1);
    expect((await readDeliveries(readModels, 'ada.b')).deliveries.map((d) => d.id)).to.deep.equal([idOf(9)]);
    expect(await readDelivery(readModels, 'ada', idOf(2))).to.include({ attempts: 2, status: 'pending' });
    expect(await readDelivery(readModels, 'ada.b', idOf(2)), "another user's delivery").to.equal(undefined);
  });

  it('lists a delivery that ended before its first attempt as failed, with no attempt and why', async function () {
    const abandoned = event('ada', {
      type: 'DeliveryAbandoned',
      data: {
        deliveryId: idOf(7),
        kind: 'alert',
        alertId: ALERT,
        triggerId: triggerOf(7),
        channelId: CHANNEL,
        channelType: 'webhook',
        error: 'the channel was removed',
        at: at(7),
      },
    });
    await append('ada', [attempted('ada', 6), abandoned]);
    const { deliveries } = await readDeliveries(readModels, 'ada');
    expect(deliveries.map((d) => d.id)).to.deep.equal([idOf(7), idOf(6)]);
    expect(deliveries[0]).to.include({
      status: 'failed',
      attempts: 0,
      lastError: 'the channel was removed',
      triggerId: triggerOf(7),
      createdt: at(7),
    });
  });

  it(`keeps the latest ${DELIVERIES_KEPT}, each later event rewriting its delivery's slot only`, async function () {
    const total = DELIVERIES_KEPT + 120;
    for (let from = 0; from < total; from += 200) {
      const batch: EventData[] = [];
      for (let n = from; n < Math.min(total, from + 200); n++) batch.push(attempted('ada', n));
      await append('ada', batch);
    }
    // The oldest kept and the newest succeed; one no longer kept tells nothing.
    await append('ada', [succeeded('ada', total - DELIVERIES_KEPT), succeeded('ada', total - 1), succeeded('ada', 0)]);
    const { deliveries } = await readDeliveries(readModels, 'ada');
    expect(deliveries).to.have.length(DELIVERIES_KEPT);
    expect(deliveries[0]).to.include({ id: idOf(total - 1), status: 'succeeded' });
    expect(deliveries.at(-1)).to.include({ id: idOf(total - DELIVERIES_KEPT), status: 'succeeded' });
    expect(deliveries.filter((d) => d.status === 'succeeded')).to.have.length(2);
    expect(await readDelivery(readModels, 'ada', idOf(0))).to.equal(undefined);
    const stored = await readModels.list<StoredDocument<unknown>>(deliveriesProjection.name);
    expect(stored, 'a slot and a pointer per kept delivery, and the count').to.have.length(2 * DELIVERIES_KEPT + 1);

    const docs = new Map(stored.map((doc) => [doc.key, doc.doc]));
    const writes: string[] = [];
    const next: RecordedEvent = {
      ...failed('ada', total - 2, true),
      streamId: 'deliveries-ada',
      revision: 0,
      position: { commit: Number.MAX_SAFE_INTEGER, prepare: Number.MAX_SAFE_INTEGER },
      metadata: { userId: 'ada' },
      created: at(total),
    };
    await projectionConsumer(deliveriesProjection).handle(next, {
      get: <T>(_collection: string, key: string) => Promise.resolve(docs.get(key) as T | undefined),
      put: (_collection, key) => void writes.push(key),
      delete: (_collection, key) => void writes.push(`${key} (deleted)`),
    });
    expect(writes).to.have.length(1);
    expect(writes[0]).to.match(/^ada\/#\d+$/);
  });

  it('applies a replayed event once, and rebuilds the same documents from the log', async function () {
    const batch: EventData[] = [];
    for (let n = 0; n < 40; n++)
      batch.push(attempted('ada', n), n % 3 === 0 ? failed('ada', n, n % 2 === 0) : succeeded('ada', n));
    await append('ada', batch);
    const recordedEvents = await events.readAll({});
    const docs = await applyToDocuments(deliveriesProjection, recordedEvents);
    const snapshot = structuredClone([...docs]);
    await applyToDocuments(deliveriesProjection, recordedEvents.slice(15), docs);
    expect([...docs]).to.deep.equal(snapshot);
    const live = new Map((await readModels.list(deliveriesProjection.name)).map((doc) => [doc.key, doc.doc]));
    expect(new Map(snapshot)).to.deep.equal(live);
    expect((await readDeliveries(readModels, 'ada')).deliveries).to.have.length(40);
  });
});
