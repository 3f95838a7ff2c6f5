import { expect } from 'chai';
import type { AlertsState } from '../../domain/alerts/alerts.ts';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../../domain/ids.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import type { StoredDocument } from '../projection.ts';
import { applyToDocuments } from '../testing/inMemory.ts';
import { alertHistoryKey, alertHistoryProjection, alertsProjection } from './alerts.projection.ts';

function apply(events: readonly RecordedEvent[], docs?: Map<string, StoredDocument<AlertsState>>) {
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

describe('alerts projection', () => {
  it("holds each user's alerts with their status", async () => {
    const docs = await apply([
      created(A1),
      created(A2),
      recorded('AlertTriggered', { alertId: A1, at: '2025-03-04T15:00:00.000Z' }),
      recorded('AlertDeleted', { alertId: A2, symbol: 'AAPL' }),
      created(A2, 'bob'),
    ]);
    const ada = (docs.get('ada') as StoredDocument<AlertsState>).value;
    expect(ada.alerts.map((a) => [a.id, a.status])).to.deep.equal([[A1, 'triggered']]);
    expect((docs.get('bob') as StoredDocument<AlertsState>).value.alerts.map((a) => a.id)).to.deep.equal([A2]);
  });

  it('leaves the documents unchanged when the same events come again', async () => {
    const events = [created(A1), recorded('AlertTriggered', { alertId: A1, at: '2025-03-04T15:00:00.000Z' })];
    const once = await apply(events);
    const snapshot = structuredClone([...once]);
    await apply(events, once);
    expect([...once]).to.deep.equal(snapshot);
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
      recorded('AlertPaused', { alertId: A1, symbol: 'AAPL', at: '2025-03-04T15:00:00.000Z' }),
      recorded('AlertResumed', { alertId: A1, symbol: 'AAPL', at: '2025-03-04T16:00:00.000Z' }),
      recorded('AlertTriggered', { alertId: A1, at: '2025-03-04T17:00:00.000Z' }),
      recorded('AlertExpired', { alertId: A2, symbol: 'AAPL', at: '2025-03-05T15:00:00.000Z' }),
    ]);
    const ada = (docs.get('ada') as StoredDocument<AlertsState>).value;
    expect(ada.alerts.map((a) => [a.status, a.arming, a.lastFired, a.triggerCount])).to.deep.equal([
      ['triggered', 2, '2025-03-04T17:00:00.000Z', 1],
      ['expired', 1, null, 0],
    ]);
  });
});

describe('alert history projection', () => {
  const fired = (alertId: string, at: string, price: number, userId = 'ada') =>
    recorded(
      'AlertTriggered',
      { alertId, at, price, value: price, message: `AAPL rose above ${price}`, notificationtype: 1 },
      userId,
    );

  it("keeps each alert's firings under its user, and drops them with the alert", async () => {
    const docs = await applyToDocuments(alertHistoryProjection, [
      fired(A1, '2025-03-04T15:00:00.000Z', 191),
      fired(A1, '2025-03-05T15:00:00.000Z', 192),
      fired(A2, '2025-03-05T15:00:00.000Z', 150, 'bob'),
      recorded('AlertDeleted', { alertId: A2, symbol: 'AAPL' }, 'bob'),
    ]);
    const history = docs.get(alertHistoryKey('ada', A1))!.value;
    expect(history.triggers.map((t) => [t.at, t.price, t.value])).to.deep.equal([
      ['2025-03-04T15:00:00.000Z', 191, 191],
      ['2025-03-05T15:00:00.000Z', 192, 192],
    ]);
    expect(docs.has(alertHistoryKey('bob', A2))).to.equal(false);
  });
});
