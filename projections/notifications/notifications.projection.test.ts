import { expect } from 'chai';
import type { AlertTriggeredData } from '../../domain/alerts/alerts.ts';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../../domain/ids.ts';
import type { EventMetadata, RecordedEvent } from '../../platform/eventstore/port.ts';
import type { StoredDocument } from '../projection.ts';
import { applyToDocuments } from '../testing/inMemory.ts';
import {
  NOTIFICATIONS_KEPT,
  notificationPrefix,
  notificationReadsProjection,
  notificationsProjection,
} from './notifications.projection.ts';

const apply = applyToDocuments;

let commit = 0;
function recorded(
  type: string,
  data: unknown,
  userId: string | null = 'ada',
  at = '2025-03-03T15:00:00.000Z',
): RecordedEvent {
  commit++;
  const metadata: EventMetadata = userId === null ? {} : { userId, at, actor: 'engine' };
  return {
    id: uuidV5(`event-${commit}`, STOCKPULSE_NAMESPACE),
    type,
    streamId: `alerts-${userId}`,
    revision: commit,
    position: { commit, prepare: commit },
    data,
    metadata,
    created: '2025-03-03T15:00:01.000Z',
  };
}

const fired = (over: Partial<AlertTriggeredData> = {}): AlertTriggeredData => ({
  alertId: uuidV5('a1', STOCKPULSE_NAMESPACE),
  symbol: 'AAPL',
  kind: 'PRICE',
  alerttype: 'U',
  threshold: 190,
  period: null,
  price: 191,
  changepct: 1.25,
  sma: null,
  notificationtype: 1,
  message: 'AAPL rose above 190.00 (+1.25% on the day)',
  at: '2025-03-03T15:30:00.000Z',
  ...over,
});

describe('notifications projection', () => {
  it("makes one document per fired alert in the user's next slot, its id the event's, in the bell shape", async () => {
    const event = recorded('AlertTriggered', fired());
    const docs = await apply(notificationsProjection, [event]);
    expect([...docs.keys()].sort()).to.deep.equal(['ada', 'ada/#0']);
    expect(docs.get('ada')).to.deep.equal({ position: event.position, value: { created: 1 } });
    expect(docs.get('ada/#0')).to.deep.equal({
      position: event.position,
      value: {
        id: event.id,
        symbol: 'AAPL',
        notificationtype: 1,
        notifcationmessage: 'AAPL rose above 190.00 (+1.25% on the day)',
        createdt: '2025-03-03T15:30:00.000Z',
        note: null,
      },
    } satisfies StoredDocument<unknown>);
  });

  it('keeps each user under a prefix of its own', async () => {
    const docs = await apply(notificationsProjection, [
      recorded('AlertTriggered', fired()),
      recorded('AlertTriggered', fired({ symbol: 'XOM' }), 'bob'),
      recorded('AlertTriggered', fired({ symbol: 'MSFT' })),
    ]);
    const of = (user: string) => [...docs.keys()].filter((k) => k.startsWith(notificationPrefix(user)));
    expect(of('ada')).to.have.length(2);
    expect(of('bob')).to.have.length(1);
    expect(notificationPrefix('ad')).to.equal('ad/#');
  });

  it(`keeps the latest ${NOTIFICATIONS_KEPT} of a user, the newest replacing the oldest`, async () => {
    const events = Array.from({ length: NOTIFICATIONS_KEPT + 5 }, (_, i) =>
      recorded('AlertTriggered', fired({ message: `firing ${i}` })),
    );
    const docs = await apply(notificationsProjection, events);
    const kept = [...docs]
      .filter(([key]) => key.startsWith(notificationPrefix('ada')))
      .map(([, doc]) => doc as StoredDocument<{ id: string; notifcationmessage: string }>)
      .sort((a, b) => a.position.commit - b.position.commit);
    expect(kept).to.have.length(NOTIFICATIONS_KEPT);
    expect(kept.map((doc) => doc.value.id)).to.deep.equal(events.slice(5).map((event) => event.id));
    expect(kept.at(-1)!.value.notifcationmessage).to.equal(`firing ${NOTIFICATIONS_KEPT + 4}`);
    expect((docs.get('ada/#4') as StoredDocument<{ id: string }>).value.id).to.equal(events.at(-1)!.id);
  });

  it('leaves the documents unchanged when the same events come again', async () => {
    const events = [recorded('AlertTriggered', fired()), recorded('AlertTriggered', fired({ symbol: 'MSFT' }))];
    const once = await apply(notificationsProjection, events);
    const snapshot = structuredClone([...once]);
    await apply(notificationsProjection, events, once);
    expect([...once]).to.deep.equal(snapshot);
  });

  it('ignores an event without a user', async () => {
    const docs = await apply(notificationsProjection, [recorded('AlertTriggered', fired(), null)]);
    expect(docs.size).to.equal(0);
  });

  it('falls back to the event time when the trigger carries none', async () => {
    const event = recorded('AlertTriggered', { ...fired(), at: undefined }, 'ada', '2025-03-03T16:00:00.000Z');
    const docs = await apply(notificationsProjection, [event]);
    expect((docs.get('ada/#0') as StoredDocument<{ createdt: string }>).value.createdt).to.equal(
      '2025-03-03T16:00:00.000Z',
    );
  });
});

describe('notification read-state projection', () => {
  const n1 = uuidV5('n1', STOCKPULSE_NAMESPACE);

  it('folds the marks of each user with the decider', async () => {
    const docs = await apply(notificationReadsProjection, [
      recorded('NotificationsMarkedRead', { ids: [n1] }),
      recorded('AllNotificationsMarkedRead', { upTo: { commit: 7, prepare: 7 } }),
      recorded('NotificationsMarkedRead', { ids: [n1] }, 'bob'),
    ]);
    // Recorded without its position (as before positions were), the id stays once all are read.
    expect((docs.get('ada') as StoredDocument<unknown>).value).to.deep.equal({
      readIds: [n1],
      readPositions: [null],
      upTo: { commit: 7, prepare: 7 },
    });
    expect((docs.get('bob') as StoredDocument<unknown>).value).to.deep.equal({
      readIds: [n1],
      readPositions: [null],
      upTo: null,
    });
  });

  it('forgets a read id once all are read past its notification', async () => {
    const n2 = uuidV5('n2', STOCKPULSE_NAMESPACE);
    const docs = await apply(notificationReadsProjection, [
      recorded('NotificationsMarkedRead', {
        ids: [n1, n2],
        positions: [
          { commit: 5, prepare: 5 },
          { commit: 9, prepare: 9 },
        ],
      }),
      recorded('AllNotificationsMarkedRead', { upTo: { commit: 7, prepare: 7 } }),
    ]);
    expect((docs.get('ada') as StoredDocument<unknown>).value).to.deep.equal({
      readIds: [n2],
      readPositions: [{ commit: 9, prepare: 9 }],
      upTo: { commit: 7, prepare: 7 },
    });
  });

  it('leaves the document unchanged when the same events come again', async () => {
    const events = [
      recorded('NotificationsMarkedRead', { ids: [n1] }),
      recorded('AllNotificationsMarkedRead', { upTo: { commit: 3, prepare: 3 } }),
    ];
    const once = await apply(notificationReadsProjection, events);
    const snapshot = structuredClone([...once]);
    await apply(notificationReadsProjection, events, once);
    expect([...once]).to.deep.equal(snapshot);
  });
});
