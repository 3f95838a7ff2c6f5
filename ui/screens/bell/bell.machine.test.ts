import { expect } from 'chai';
import { createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import { bellMachine, withNotification, type BellEvent, type BellNotification } from './bell.machine.ts';

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

function bell(options: { notifications?: BellNotification[]; unread?: number; fail?: boolean } = {}) {
  const calls: string[] = [];
  let push: ((event: BellEvent) => void) | null = null;
  const actor = createActor(
    bellMachine.provide({
      actors: {
        loadNotifications: fromPromise(async () => {
          calls.push('load');
          if (options.fail) throw new Error('The server could not answer');
          return Promise.resolve({ notifications: options.notifications ?? [], unread: options.unread ?? 0 });
        }),
        markRead: fromPromise<{ unread: number } | null, { ids: readonly string[] }>(async ({ input }) => {
          calls.push(`markRead ${input.ids.join(',')}`);
          return Promise.resolve({ unread: 0 });
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
  return { actor, calls, push: (event: BellEvent) => push?.(event) };
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

  it('puts the newest first and keeps at most the load limit', () => {
    let list: readonly BellNotification[] = [];
    for (let i = 0; i < 205; i += 1) list = withNotification(list, note(String(i)));
    expect(list).to.have.length(200);
    expect(list[0]?.id).to.equal('204');
  });
});
