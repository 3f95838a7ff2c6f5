import { expect } from 'chai';
import type { AlertsState } from '../../domain/alerts/alerts.ts';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../../domain/ids.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import type { StoredDocument } from '../projection.ts';
import { applyToDocuments } from '../testing/inMemory.ts';
import { alertsProjection } from './alerts.projection.ts';

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
    ]);
  });
});
