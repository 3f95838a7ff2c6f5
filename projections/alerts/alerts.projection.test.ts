import { expect } from 'chai';
import { alertKey, alertsDecider, type AlertsEvent } from '../../domain/alerts/alerts.ts';
import { fold } from '../../domain/decider.ts';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../../domain/ids.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import { openSqliteReadModelStore } from '../../platform/readmodels/sqlite.ts';
import { projectionConsumer } from '../projection.ts';
import type { StoredDocument } from '../projection.ts';
import { applyToDocuments } from '../testing/inMemory.ts';
import { alertsPrefix, alertsProjection, type AlertDocument } from './alerts.projection.ts';

function apply(events: readonly RecordedEvent[], docs?: Map<string, StoredDocument<AlertDocument>>) {
  return applyToDocuments(alertsProjection, events, docs);
}

let commit = 0;
function recorded(type: string, data: unknown, userId = 'ada'): RecordedEvent {
  commit++;
  return {
    id: uuidV5(`event-${commit}`, STOCKPULSE_NAMESPACE),
    type,
    streamId: `alerts-${userId}`,
    revision: commit,
    position: { commit, prepare: commit },
    data,
    metadata: { userId, at: '2025-03-03T15:00:00.000Z' },
    created: '2025-03-03T15:00:00.000Z',
  };
}

const A1 = uuidV5('a1', STOCKPULSE_NAMESPACE);
const A2 = uuidV5('a2', STOCKPULSE_NAMESPACE);
const definition = {
  symbol: 'AAPL',
  kind: 'PRICE',
  alerttype: 'U',
  threshold: 190,
  thresholdCents: 19000,
  period: null,
};
const created = (alertId: string, userId = 'ada') =>
  recorded('AlertCreated', { alertId, ...definition, createdt: '2025-03-03T15:00:00.000Z' }, userId);

/** The user's alerts as the decider folds them from the same events. */
function decided(events: readonly RecordedEvent[], userId = 'ada') {
  const mine = events.filter((e) => e.metadata.userId === userId);
  return fold(
    alertsDecider,
    mine.map((e) => ({ type: e.type, data: e.data }) as AlertsEvent),
  ).alerts;
}

/** A user's documents in the order the routes list them: the order the alerts were created. */
function listed(docs: Map<string, StoredDocument<AlertDocument>>, userId = 'ada') {
  return [...docs]
    .filter(([key]) => key.startsWith(alertsPrefix(userId)))
    .map(([, doc]) => doc.value)
    .sort((a, b) => a.created.commit - b.created.commit)
    .map((doc) => doc.alert);
}

const paused = (alertId: string, at: string) => recorded('AlertPaused', { alertId, symbol: 'AAPL', at });
const resumed = (alertId: string, at: string) => recorded('AlertResumed', { alertId, symbol: 'AAPL', at });
const expired = (alertId: string, at: string) => recorded('AlertExpired', { alertId, symbol: 'AAPL', at });
const triggered = (alertId: string, at: string, userId = 'ada') => recorded('AlertTriggered', { alertId, at }, userId);

describe('alerts projection', () => {
  it('keeps one document per alert under <userId>/<alertId>, dropped with the alert', async () => {
    const first = created(A1);
    const docs = await apply([
      first,
      created(A2),
      triggered(A1, '2025-03-04T15:00:00.000Z'),
      recorded('AlertDeleted', { alertId: A2, symbol: 'AAPL' }),
      created(A2, 'bob'),
    ]);
    expect([...docs.keys()].sort()).to.deep.equal([alertKey('ada', A1), alertKey('bob', A2)].sort());
    const ada = docs.get(alertKey('ada', A1))!;
    expect(ada.value.alert).to.include({ id: A1, status: 'triggered', triggerCount: 1 });
    expect(ada.value.created).to.deep.equal(first.position);
    expect(docs.get(alertKey('bob', A2))!.value.alert).to.include({ id: A2, status: 'armed' });
  });

  it('folds each alert as the decider does, and lists them in the order they were created', async () => {
    const A3 = uuidV5('a3', STOCKPULSE_NAMESPACE);
    const events = [
      created(A2),
      created(A1),
      triggered(A2, '2025-03-04T15:00:00.000Z'),
      created(A3),
      paused(A1, '2025-03-04T16:00:00.000Z'),
      recorded('AlertDeleted', { alertId: A2, symbol: 'AAPL' }),
      resumed(A1, '2025-03-04T17:00:00.000Z'),
      created(A2),
      recorded('AlertUpdated', {
        alertId: A3,
        ...definition,
        threshold: 200,
        thresholdCents: 20000,
        updatedt: '2025-03-05T15:00:00.000Z',
      }),
      triggered(A1, '2025-03-05T16:00:00.000Z'),
      expired(A3, '2025-03-06T15:00:00.000Z'),
      created(A1, 'bob'),
    ];
    const docs = await apply(events);
    expect(listed(docs)).to.deep.equal(decided(events));
    expect(listed(docs).map((a) => a.id)).to.deep.equal([A1, A3, A2]);
    expect(listed(docs, 'bob')).to.deep.equal(decided(events, 'bob'));
  });

  it('leaves the documents unchanged when the same events come again', async () => {
    const events = [
      created(A1),
      created(A2),
      triggered(A1, '2025-03-04T15:00:00.000Z'),
      recorded('AlertDeleted', { alertId: A2, symbol: 'AAPL' }),
      triggered(A1, '2025-03-05T15:00:00.000Z'),
    ];
    const once = await apply(events);
    const snapshot = structuredClone([...once]);
    await apply(events, once);
    expect([...once]).to.deep.equal(snapshot);
    await apply(events.slice(2), once);
    expect([...once]).to.deep.equal(snapshot);
  });

  it("rewrites only the fired alert's document of a user with many alerts", async () => {
    const ids = Array.from({ length: 500 }, (_, i) => uuidV5(`many-${i}`, STOCKPULSE_NAMESPACE));
    const docs = await apply(ids.map((id) => created(id)));
    const consumer = projectionConsumer(alertsProjection);
    const writes: string[] = [];
    const tx = {
      get: <T>(_collection: string, key: string) => Promise.resolve(docs.get(key) as T | undefined),
      put: (collection: string, key: string) => void writes.push(`${collection} ${key}`),
      delete: (collection: string, key: string) => void writes.push(`${collection} ${key} (deleted)`),
    };
    await consumer.handle(triggered(ids[250]!, '2025-03-04T15:00:00.000Z'), tx);
    expect(writes).to.deep.equal([`alerts ${alertKey('ada', ids[250]!)}`]);
  });

  it("keeps a user's listing to their own alerts when another user's id starts with theirs", async () => {
    const docs = await apply([created(A1, 'ada'), created(A2, 'adam'), created(A1, 'ada.b'), created(A2, 'ad')]);
    const store = openSqliteReadModelStore({ file: ':memory:' });
    try {
      await store.commit(
        projectionConsumer(alertsProjection).name,
        { position: { commit: commit, prepare: commit }, version: alertsProjection.version },
        [...docs].map(([key, doc]) => ({ collection: alertsProjection.name, key, doc })),
      );
      const keysOf = async (userId: string) =>
        (await store.list(alertsProjection.name, { prefix: alertsPrefix(userId) })).map((d) => d.key);
      expect(await keysOf('ada')).to.deep.equal([alertKey('ada', A1)]);
      expect(await keysOf('ad')).to.deep.equal([alertKey('ad', A2)]);
      expect(await keysOf('adam')).to.deep.equal([alertKey('adam', A2)]);
    } finally {
      await store.close();
    }
  });

  it('reads every event type of the concern', () => {
    expect(alertsProjection.handles).to.have.members([
      'AlertCreated',
      'AlertUpdated',
      'AlertDeleted',
      'AlertTriggered',
      'AlertPaused',
      'AlertResumed',
      'AlertExpired',
    ]);
  });

  it('shows paused, resumed and expired alerts with their last firing and trigger count', async () => {
    const docs = await apply([
      created(A1),
      created(A2),
      paused(A1, '2025-03-04T15:00:00.000Z'),
      resumed(A1, '2025-03-04T16:00:00.000Z'),
      triggered(A1, '2025-03-04T17:00:00.000Z'),
      expired(A2, '2025-03-05T15:00:00.000Z'),
    ]);
    expect(listed(docs).map((a) => [a.status, a.arming, a.lastFired, a.triggerCount])).to.deep.equal([
      ['triggered', 2, '2025-03-04T17:00:00.000Z', 1],
      ['expired', 1, null, 0],
    ]);
  });
});
