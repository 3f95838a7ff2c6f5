import { expect } from 'chai';
import { createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import type { DeliveryAnswer } from '../../../domain/contract/channels.ts';
import {
  bellMachine,
  deliveryWarnings,
  withNotification,
  type BellEvent,
  type BellNotification,
} from './bell.machine.ts';

function note(id: string, message = 'AAPL crossed 190 +', read = false): BellNotification {
  return {
    id,
    symbol: 'AAPL',
    notificationtype: 1,
    notifcationmessage: message,
    createdt: '2026-01-01T00:00:00Z',
    read,
    note: null,
  };
}

/** A delivery of trigger `triggerId` as the server answers it. */
function delivery(id: string, triggerId: string | null, change: Partial<DeliveryAnswer> = {}): DeliveryAnswer {
  return {
    id,
    kind: 'alert',
    alertId: 'a1',
    triggerId,
    channelId: 'c1',
    channelType: 'webhook',
    status: 'succeeded',
    attempts: 1,
    lastStatus: 200,
    lastError: null,
    retryAt: null,
    createdt: '2026-01-01T00:00:00Z',
    updatedt: '2026-01-01T00:00:01Z',
    ...change,
  };
}

interface FakeBell {
  notifications?: BellNotification[];
  unread?: number;
  fail?: boolean;
  /** The deliveries the server answers (read at each read). */
  deliveries?: DeliveryAnswer[];
  /** Whether reading the deliveries fails. */
  failDeliveries?: boolean;
  /** Holds each deliveries read until released. */
  holdDeliveries?: boolean;
  /**
   * Marks read with the app's own request, which finds no server here: what the bell meets when the network
   * dropped (or the session ended) as it marks notifications read.
   */
  unreachableMarkRead?: boolean;
}

function bell(options: FakeBell = {}) {
  const calls: string[] = [];
  const released: (() => void)[] = [];
  let deliveryReads = 0;
  let push: ((event: BellEvent) => void) | null = null;
  const actor = createActor(
    bellMachine.provide({
      actors: {
        loadNotifications: fromPromise(async () => {
          calls.push('load');
          if (options.fail) throw new Error('The server could not answer');
          return Promise.resolve({ notifications: options.notifications ?? [], unread: options.unread ?? 0 });
        }),
        loadDeliveries: fromPromise<readonly DeliveryAnswer[]>(async () => {
          deliveryReads += 1;
          if (options.holdDeliveries) await new Promise<void>((resolve) => released.push(resolve));
          if (options.failDeliveries) throw new Error('The server could not answer');
          return [...(options.deliveries ?? [])];
        }),
        ...(options.unreachableMarkRead
          ? {}
          : {
              markRead: fromCallback<BellEvent, { ids: readonly string[] }>(({ input }) => {
                calls.push(`markRead ${input.ids.join(',')}`);
              }),
            }),
        markAllRead: fromPromise(async () => {
          calls.push('markAllRead');
          return Promise.resolve({ unread: 0 });
        }),
        liveNotifications: fromCallback<BellEvent>(({ sendBack }) => {
          push = sendBack;
        }),
      },
    }),
  ).start();
  return {
    actor,
    calls,
    push: (event: BellEvent) => push?.(event),
    deliveryReads: () => deliveryReads,
    release: () => released.splice(0).forEach((resolve) => resolve()),
  };
}

describe('bell machine', () => {
  it('loads the notifications and the unread count', async () => {
    const { actor } = bell({ notifications: [note('1'), note('2', 'x', true)], unread: 1 });
    await waitFor(actor, (s) => s.matches({ data: 'ready' }));
    expect(actor.getSnapshot().context.unread).to.equal(1);
    expect(actor.getSnapshot().context.notifications).to.have.length(2);
  });

  it('counts a pushed notification once, even when pushed twice', async () => {
    const { actor, push } = bell();
    await waitFor(actor, (s) => s.matches({ data: 'ready' }));
    push({ type: 'server.notification', notification: note('n1') });
    push({ type: 'server.notification', notification: note('n1') });
    expect(actor.getSnapshot().context.unread).to.equal(1);
    expect(actor.getSnapshot().context.notifications.map((n) => n.id)).to.deep.equal(['n1']);
  });

  it('marks what it lists read when opened, and a notification arriving while open is read too', async () => {
    const { actor, calls, push } = bell({ notifications: [note('1'), note('0', 'x', true)], unread: 1 });
    await waitFor(actor, (s) => s.matches({ data: 'ready' }));
    actor.send({ type: 'user.open' });
    expect(actor.getSnapshot().context.unread).to.equal(0);
    expect(actor.getSnapshot().context.notifications.every((n) => n.read)).to.equal(true);
    push({ type: 'server.notification', notification: note('2') });
    expect(actor.getSnapshot().context.unread).to.equal(0);
    await waitFor(actor, () => calls.length === 3);
    // The listed unread one, then the one pushed while open; never every notification unseen.
    expect(calls).to.deep.equal(['load', 'markRead 1', 'markRead 2']);
    actor.send({ type: 'user.close' });
    expect(actor.getSnapshot().matches({ panel: 'closed' })).to.equal(true);
  });

  it("reads the notifications again when marking them read fails, so the bell shows the server's flags", async () => {
    const { actor, calls } = bell({ notifications: [note('1')], unread: 1, unreachableMarkRead: true });
    await waitFor(actor, (s) => s.matches({ data: 'ready' }));
    actor.send({ type: 'user.open' });
    expect(actor.getSnapshot().context.unread).to.equal(0);
    await waitFor(actor, () => calls.length === 2);
    expect(calls).to.deep.equal(['load', 'load']);
    await waitFor(actor, (s) => s.matches({ data: 'ready' }));
    expect(actor.getSnapshot().status, 'the bell goes on').to.equal('active');
    expect(actor.getSnapshot().context.notifications.map((n) => n.read)).to.deep.equal([false]);
    actor.send({ type: 'user.close' });
    expect(actor.getSnapshot().matches({ panel: 'closed' })).to.equal(true);
  });

  it('leaves the unread ones older than those listed unread, until the user marks them all read', async () => {
    // 230 unread, the newest 200 listed.
    const listed = Array.from({ length: 200 }, (_, i) => note(String(i)));
    const { actor, calls } = bell({ notifications: listed, unread: 230 });
    await waitFor(actor, (s) => s.matches({ data: 'ready' }));
    actor.send({ type: 'user.open' });
    expect(actor.getSnapshot().context.unread).to.equal(30);
    await waitFor(actor, () => calls.length === 2);
    expect(calls[1]!.split(' ')[1]!.split(',')).to.have.length(200);
    actor.send({ type: 'user.markAll' });
    await waitFor(actor, (s) => s.context.unread === 0);
    expect(calls).to.include('markAllRead');
    expect(actor.getSnapshot().matches({ panel: { open: 'marking' } })).to.equal(true);
  });

  it('keeps the failure message and retries on demand', async () => {
    const { actor, calls } = bell({ fail: true });
    await waitFor(actor, (s) => s.matches({ data: 'failed' }));
    expect(actor.getSnapshot().context.error).to.equal('The server could not answer');
    actor.send({ type: 'user.retry' });
    expect(calls.filter((c) => c === 'load')).to.have.length(2);
  });

  it('joins each notification with its deliveries that failed or wait for a retry, by the trigger id', async () => {
    const { actor } = bell({
      notifications: [note('t1'), note('t2'), note('t3')],
      deliveries: [
        delivery('d1', 't1', { channelType: 'email', status: 'failed', attempts: 6, lastError: 'answered 503' }),
        delivery('d2', 't1', { status: 'failed', lastError: 'answered 410 Gone' }),
        delivery('d3', 't1'),
        // Waiting for a retry after a failed attempt: warned of. On its first attempt: not.
        delivery('d4', 't2', { status: 'pending', attempts: 2, retryAt: '2026-01-01T00:05:00Z' }),
        delivery('d5', 't2', { channelType: 'email', status: 'pending', attempts: 1 }),
        delivery('d6', 't3'),
        // Of a trigger not listed, and a test message: no notification to warn under.
        delivery('d7', 'gone', { status: 'failed' }),
        delivery('d8', null, { kind: 'test', status: 'failed' }),
      ],
    });
    await waitFor(actor, (s) => s.matches({ data: 'ready', deliveries: 'ready' }));
    const { notifications, deliveries } = actor.getSnapshot().context;
    expect(deliveries).to.have.length(8);
    const warnings = deliveryWarnings(notifications, deliveries);
    // Each notification's in channel-type order: the webhook first.
    expect(Object.fromEntries([...warnings].map(([id, list]) => [id, list.map((d) => d.id)]))).to.deep.equal({
      t1: ['d2', 'd1'],
      t2: ['d4'],
    });
  });

  it('reads the deliveries again on a deliveries change, and not the notifications', async () => {
    const server: FakeBell = { notifications: [note('t1')], deliveries: [] };
    const { actor, calls, push, deliveryReads } = bell(server);
    await waitFor(actor, (s) => s.matches({ data: 'ready', deliveries: 'ready' }));
    expect(deliveryReads()).to.equal(1);
    server.deliveries = [delivery('d1', 't1', { status: 'failed', lastError: 'answered 503' })];
    push({ type: 'server.delivered' });
    await waitFor(actor, (s) => s.context.deliveries.length === 1);
    expect(deliveryReads()).to.equal(2);
    expect(calls.filter((c) => c === 'load')).to.have.length(1);
    expect(
      deliveryWarnings(actor.getSnapshot().context.notifications, actor.getSnapshot().context.deliveries).size,
    ).to.equal(1);
    // A change of the notifications' reads reads the notifications, not the deliveries.
    push({ type: 'server.changed' });
    await waitFor(actor, () => calls.filter((c) => c === 'load').length === 2);
    await waitFor(actor, (s) => s.matches({ data: 'ready' }));
    expect(deliveryReads()).to.equal(2);
  });

  it('reads the deliveries once more after changes that came while they were being read', async () => {
    const server: FakeBell = { notifications: [note('t1')], deliveries: [], holdDeliveries: true };
    const { actor, push, deliveryReads, release } = bell(server);
    await waitFor(actor, (s) => s.matches({ data: 'ready' }));
    push({ type: 'server.delivered' });
    push({ type: 'server.delivered' });
    server.holdDeliveries = false;
    server.deliveries = [delivery('d1', 't1', { status: 'failed' })];
    release();
    await waitFor(actor, (s) => s.matches({ deliveries: 'ready' }) && s.context.deliveries.length === 1);
    expect(deliveryReads()).to.equal(2);
  });

  it('shows the notifications without warnings when the deliveries cannot be read, and reads them on a change', async () => {
    const server: FakeBell = {
      notifications: [note('t1'), note('t2')],
      unread: 2,
      deliveries: [delivery('d1', 't1', { status: 'failed' })],
      failDeliveries: true,
    };
    const { actor, push } = bell(server);
    await waitFor(actor, (s) => s.matches({ data: 'ready', deliveries: 'unavailable' }));
    const { context } = actor.getSnapshot();
    expect(context.notifications.map((n) => n.id)).to.deep.equal(['t1', 't2']);
    expect(context.unread).to.equal(2);
    expect(context.error).to.equal(null);
    expect(deliveryWarnings(context.notifications, context.deliveries).size).to.equal(0);
    actor.send({ type: 'user.open' });
    expect(actor.getSnapshot().matches({ panel: 'open' })).to.equal(true);
    server.failDeliveries = false;
    push({ type: 'server.delivered' });
    await waitFor(actor, (s) => s.matches({ deliveries: 'ready' }));
    expect(actor.getSnapshot().context.deliveries.map((d) => d.id)).to.deep.equal(['d1']);
  });

  it('puts the newest first and keeps at most the load limit', () => {
    let list: readonly BellNotification[] = [];
    for (let i = 0; i < 205; i += 1) list = withNotification(list, note(String(i)));
    expect(list).to.have.length(200);
    expect(list[0]?.id).to.equal('204');
  });
});
