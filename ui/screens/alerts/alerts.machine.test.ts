import { expect } from 'chai';
import { createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import type { AlertAnswer, AlertTriggerAnswer } from '../../../domain/contract/alerts.ts';
import type { DeliveryAnswer } from '../../../domain/contract/channels.ts';
import { conditionAlertAnswer } from '../../../domain/testing/alertAnswers.ts';
import { parseCondition, type AlertCondition } from '../../../domain/alerts/conditions.ts';
import { ApiError } from '../../services/api.ts';
import type { AlertBody } from '../../components/conditionDraft.ts';
import {
  alertsMachine,
  EXPIRED_PROBLEM,
  expiryPassed,
  rearmBody,
  refusalProblem,
  selectedWith,
  triggerDeliveries,
  visibleAlerts,
  type AlertsEvent,
  type HistoryAnswer,
  type DeleteRequest,
  type DeleteResult,
  type ToggleRequest,
  type ToggleResult,
} from './alerts.machine.ts';

const CHANNEL: AlertCondition = {
  op: 'entering_channel',
  source: 'price',
  value: null,
  lower: 180,
  upper: 190,
  bars: null,
};
const RSI: AlertCondition = { op: 'less_than', source: 'rsi:14', value: 30, lower: null, upper: null, bars: null };

function alert(id: string, symbol: string, condition: AlertCondition, extra: Partial<AlertAnswer> = {}): AlertAnswer {
  return conditionAlertAnswer(id, condition, { symbol, createdt: '2026-11-20T15:00:00.000Z', ...extra });
}

/** A fake server holding alerts and their triggers, answering as the routes do. */
interface FakeServer {
  alerts: AlertAnswer[];
  triggers?: Record<string, AlertTriggerAnswer[]>;
  /** Each alert's deliveries, newest first. */
  deliveries?: Record<string, DeliveryAnswer[]>;
  failLoad?: string;
  refuseSave?: string;
  refuseDelete?: string;
  /** An alert the pause and resume routes refuse. */
  refuseToggle?: string;
  /** A delete of several waits for this after its first alert. */
  holdDelete?: Promise<void>;
}

function manager(server: FakeServer) {
  const calls: string[] = [];
  const bodies: AlertBody[] = [];
  const toasts: string[] = [];
  let push: ((event: AlertsEvent) => void) | null = null;
  const actor = createActor(
    alertsMachine.provide({
      actors: {
        loadAlerts: fromPromise<AlertAnswer[]>(async () => {
          calls.push('load');
          if (server.failLoad) throw new ApiError(503, 'unavailable', server.failLoad);
          return Promise.resolve([...server.alerts]);
        }),
        saveAlert: fromPromise<AlertAnswer, AlertBody>(async ({ input }) => {
          calls.push(`save ${input.update === true ? `update ${input.id ?? ''}` : 'new'}`);
          bodies.push(input);
          if (server.refuseSave) throw new ApiError(400, 'bad_request', server.refuseSave);
          const condition = parseCondition(input.condition) as AlertCondition;
          const saved = alert(input.id ?? `a${server.alerts.length + 1}`, input.symbol, condition, {
            frequency: input.frequency ?? 'once',
            expires: input.expires ?? null,
          });
          server.alerts = server.alerts.some((a) => a.id === saved.id)
            ? server.alerts.map((a) => (a.id === saved.id ? saved : a))
            : [...server.alerts, saved];
          return Promise.resolve(saved);
        }),
        toggleAlerts: fromPromise<ToggleResult, ToggleRequest>(async ({ input }) => {
          calls.push(`${input.action} ${input.ids.join(',')}`);
          const status = input.action === 'pause' ? 'paused' : 'armed';
          const changed = input.ids.filter((id) => id !== server.refuseToggle);
          server.alerts = server.alerts.map((a) => (changed.includes(a.id) ? { ...a, status } : a));
          return Promise.resolve({
            action: input.action,
            changed: changed.map((id) => server.alerts.find((a) => a.id === id)!),
            failed: input.ids.filter((id) => id === server.refuseToggle).map((id) => ({ id, message: 'Not found' })),
          });
        }),
        deleteAlerts: fromPromise<DeleteResult, DeleteRequest>(async ({ input }) => {
          const { ids } = input;
          calls.push(`delete ${ids.join(',')}`);
          if (server.holdDelete) await server.holdDelete;
          const deleted = ids.filter((id) => id !== server.refuseDelete);
          server.alerts = server.alerts.filter((a) => !deleted.includes(a.id));
          const failed = ids.filter((id) => id === server.refuseDelete).map((id) => ({ id, message: 'Not found' }));
          return { deleted, failed };
        }),
        loadHistory: fromPromise<HistoryAnswer, { id: string }>(async ({ input }) => {
          calls.push(`history ${input.id}`);
          return Promise.resolve({
            triggers: server.triggers?.[input.id] ?? [],
            deliveries: server.deliveries?.[input.id] ?? [],
          });
        }),
        listChanges: fromCallback<AlertsEvent>(({ sendBack }) => {
          push = sendBack;
        }),
      },
      actions: { notify: (_, params: { text: string }) => toasts.push(params.text) },
    }),
  ).start();
  return { actor, calls, bodies, toasts, push: (event: AlertsEvent) => push?.(event) };
}

const idle = { ready: { list: 'idle' } } as const;
const confirming = { ready: { list: 'confirmingDelete' } } as const;

const channelBody: AlertBody = {
  symbol: 'AAPL',
  condition: { op: 'entering_channel', source: 'price', lower: 180, upper: 190 },
  frequency: 'once_per_bar',
  expires: null,
};

describe('alert manager machine', () => {
  it('loads every alert, and keeps a load failure with a retry', async () => {
    const server: FakeServer = { alerts: [alert('a1', 'AAPL', CHANNEL)], failLoad: 'The server could not answer' };
    const { actor, calls } = manager(server);
    await waitFor(actor, (s) => s.matches('failed'));
    expect(actor.getSnapshot().context.error).to.equal('The server could not answer');
    delete server.failLoad;
    actor.send({ type: 'user.retry' });
    await waitFor(actor, (s) => s.matches(idle));
    expect(actor.getSnapshot().context.alerts.map((a) => a.id)).to.deep.equal(['a1']);
    expect(calls).to.deep.equal(['load', 'load']);
  });

  it('filters by text in the symbol, the condition in words or the note, and by status', async () => {
    const { actor } = manager({
      alerts: [
        alert('a1', 'AAPL', CHANNEL),
        alert('a2', 'MSFT', RSI, { status: 'paused' }),
        alert('a3', 'NVDA', CHANNEL, { status: 'triggered', note: 'Sell before earnings' }),
      ],
    });
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.filter', filter: { text: 'channel' } });
    expect(visibleAlerts(actor.getSnapshot().context).map((a) => a.id)).to.deep.equal(['a1', 'a3']);
    actor.send({ type: 'user.filter', filter: { status: 'triggered' } });
    expect(visibleAlerts(actor.getSnapshot().context).map((a) => a.id)).to.deep.equal(['a3']);
    actor.send({ type: 'user.filter', filter: { text: 'msft', status: 'all' } });
    expect(visibleAlerts(actor.getSnapshot().context).map((a) => a.id)).to.deep.equal(['a2']);
    actor.send({ type: 'user.filter', filter: { text: 'EARNINGS' } });
    expect(visibleAlerts(actor.getSnapshot().context).map((a) => a.id)).to.deep.equal(['a3']);
  });

  it('creates an alert the contract accepts and closes the builder', async () => {
    const { actor, calls, toasts } = manager({ alerts: [] });
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.create' });
    expect(actor.getSnapshot().context.editor).to.deep.equal({ mode: 'create' });
    actor.send({ type: 'user.save', body: channelBody });
    expect(actor.getSnapshot().matches({ ready: { list: 'saving' } })).to.equal(true);
    await waitFor(actor, (s) => s.matches(idle));
    const { alerts, editor } = actor.getSnapshot().context;
    expect(alerts.map((a) => [a.symbol, a.conditiontext, a.frequency])).to.deep.equal([
      ['AAPL', 'Price enters the channel 180.00 – 190.00', 'once_per_bar'],
    ]);
    expect(editor).to.deep.equal({ mode: 'closed' });
    expect(calls).to.deep.equal(['load', 'save new']);
    expect(toasts).to.deep.equal(['Alert saved: AAPL Price enters the channel 180.00 – 190.00 (armed)']);
  });

  it('refuses a condition the contract refuses without sending it, naming the field', async () => {
    const { actor, calls } = manager({ alerts: [] });
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.create' });
    actor.send({
      type: 'user.save',
      body: { ...channelBody, condition: { op: 'entering_channel', source: 'price', lower: 190, upper: 180 } },
    });
    expect(actor.getSnapshot().matches(idle)).to.equal(true);
    expect(actor.getSnapshot().context.formProblem).to.deep.equal({
      field: 'condition.upper',
      message: 'must be above lower (190)',
    });
    expect(calls).to.deep.equal(['load']);
  });

  it('keeps a refusal of the server naming its field and leaves the builder open', async () => {
    const { actor } = manager({
      alerts: [alert('a1', 'AAPL', CHANNEL)],
      refuseSave: 'body.condition.lower.ref: must name a series other than the source',
    });
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.edit', id: 'a1' });
    actor.send({ type: 'user.save', body: { ...channelBody, id: 'a1', update: true } });
    await waitFor(actor, (s) => s.matches(idle) && s.context.formProblem !== null);
    expect(actor.getSnapshot().context.formProblem).to.deep.equal({
      field: 'condition.lower.ref',
      message: 'must name a series other than the source',
    });
    expect(actor.getSnapshot().context.editor).to.deep.equal({ mode: 'edit', id: 'a1' });
  });

  it('changes an alert in place with update and its id', async () => {
    const { actor, calls } = manager({ alerts: [alert('a1', 'AAPL', CHANNEL), alert('a2', 'MSFT', RSI)] });
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.edit', id: 'nope' });
    expect(actor.getSnapshot().context.editor).to.deep.equal({ mode: 'closed' });
    actor.send({ type: 'user.edit', id: 'a1' });
    actor.send({
      type: 'user.save',
      body: { ...channelBody, condition: { op: 'exiting_channel', lower: 170, upper: 200 }, id: 'a1', update: true },
    });
    await waitFor(actor, (s) => s.matches(idle) && s.context.editor.mode === 'closed');
    expect(actor.getSnapshot().context.alerts.map((a) => a.conditiontext)).to.deep.equal([
      'Price exits the channel 170.00 – 200.00',
      'RSI(14) is at or below 30',
    ]);
    expect(calls).to.include('save update a1');
  });

  it('pauses an armed alert and resumes a paused one, and ignores the others', async () => {
    const { actor, calls } = manager({
      alerts: [alert('a1', 'AAPL', CHANNEL), alert('a2', 'MSFT', RSI, { status: 'expired' })],
    });
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.resume', ids: ['a1'] });
    actor.send({ type: 'user.pause', ids: ['a2'] });
    actor.send({ type: 'user.pause', ids: [] });
    expect(actor.getSnapshot().matches(idle)).to.equal(true);
    actor.send({ type: 'user.pause', ids: ['a1'] });
    await waitFor(actor, (s) => s.matches(idle) && s.context.alerts[0]?.status === 'paused');
    actor.send({ type: 'user.resume', ids: ['a1'] });
    await waitFor(actor, (s) => s.matches(idle) && s.context.alerts[0]?.status === 'armed');
    expect(calls).to.deep.equal(['load', 'pause a1', 'resume a1']);
  });

  it('pauses and resumes the selected alerts at once, only when each can be, and says which could not be', async () => {
    const server: FakeServer = {
      alerts: [
        alert('a1', 'AAPL', CHANNEL),
        alert('a2', 'MSFT', RSI, { status: 'triggered' }),
        alert('a3', 'NVDA', CHANNEL),
        alert('a4', 'TSLA', RSI, { status: 'paused' }),
      ],
    };
    const { actor, calls, toasts } = manager(server);
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.select', ids: ['a4', 'a3', 'a2', 'a1'] });
    expect(selectedWith(actor.getSnapshot().context, 'armed')).to.deep.equal(['a3', 'a1']);
    expect(selectedWith(actor.getSnapshot().context, 'paused')).to.deep.equal(['a4']);
    // A triggered alert among them: nothing is sent.
    actor.send({ type: 'user.pause', ids: ['a3', 'a2'] });
    expect(actor.getSnapshot().matches(idle)).to.equal(true);
    actor.send({ type: 'user.pause', ids: ['a3', 'a1'] });
    await waitFor(actor, (s) => s.matches(idle) && selectedWith(s.context, 'paused').length === 3);
    expect(toasts).to.deep.equal(['2 alerts paused']);
    expect(selectedWith(actor.getSnapshot().context, 'armed')).to.deep.equal([]);

    server.refuseToggle = 'a4';
    actor.send({ type: 'user.resume', ids: ['a4', 'a3', 'a1'] });
    await waitFor(actor, (s) => s.matches(idle) && calls.filter((c) => c === 'load').length === 2);
    const { alerts, actionError } = actor.getSnapshot().context;
    expect(alerts.map((a) => `${a.id} ${a.status}`)).to.deep.equal([
      'a1 armed',
      'a2 triggered',
      'a3 armed',
      'a4 paused',
    ]);
    expect(actionError).to.equal('1 alert could not be resumed: Not found');
    expect(toasts).to.deep.equal(['2 alerts paused', '2 alerts resumed']);
    expect(calls).to.deep.equal(['load', 'pause a3,a1', 'resume a4,a3,a1', 'load']);
  });

  it('deletes the selected alerts at once and says which could not be', async () => {
    const server: FakeServer = {
      alerts: [alert('a1', 'AAPL', CHANNEL), alert('a2', 'MSFT', RSI), alert('a3', 'NVDA', CHANNEL)],
      refuseDelete: 'a3',
    };
    const { actor, calls, toasts } = manager(server);
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.select', ids: ['a1', 'a2', 'a3'] });
    actor.send({ type: 'user.delete', ids: ['a1', 'zz'] });
    expect(actor.getSnapshot().matches(idle)).to.equal(true);
    actor.send({ type: 'user.delete', ids: ['a1', 'a2', 'a3'] });
    expect(actor.getSnapshot().matches(confirming)).to.equal(true);
    actor.send({ type: 'user.confirmDelete' });
    await waitFor(actor, (s) => s.matches(idle) && calls.filter((c) => c === 'load').length === 2);
    const { alerts, selected, actionError, toDelete } = actor.getSnapshot().context;
    expect(toDelete).to.deep.equal([]);
    expect(alerts.map((a) => a.id)).to.deep.equal(['a3']);
    expect(selected).to.deep.equal(['a3']);
    expect(actionError).to.equal('1 alert could not be deleted: Not found');
    expect(toasts).to.deep.equal(['2 alerts deleted']);
    expect(calls.slice(0, 2)).to.deep.equal(['load', 'delete a1,a2,a3']);
  });

  it('stays deleting, the list as it was, until the server answers the delete of several', async () => {
    let release = (): void => undefined;
    const server: FakeServer = {
      alerts: [alert('a1', 'AAPL', CHANNEL), alert('a2', 'MSFT', RSI), alert('a3', 'NVDA', CHANNEL)],
      holdDelete: new Promise((resolve) => (release = resolve)),
    };
    const { actor } = manager(server);
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.delete', ids: ['a1', 'a2', 'a3'] });
    actor.send({ type: 'user.confirmDelete' });
    const during = actor.getSnapshot();
    expect(during.matches({ ready: { list: 'deleting' } })).to.equal(true);
    expect(during.context.alerts).to.have.length(3);
    release();
    const after = await waitFor(actor, (s) => s.matches(idle));
    expect(after.context.alerts).to.deep.equal([]);
  });

  it('deletes nothing until the user confirms, and nothing at all when the user cancels', async () => {
    const server: FakeServer = { alerts: [alert('a1', 'AAPL', CHANNEL), alert('a2', 'MSFT', RSI)] };
    const { actor, calls, toasts } = manager(server);
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.delete', ids: ['a2', 'a1'] });
    expect(actor.getSnapshot().matches(confirming)).to.equal(true);
    expect(actor.getSnapshot().context.toDelete).to.deep.equal(['a2', 'a1']);
    // Nothing else is sent while the question is open.
    actor.send({ type: 'user.pause', ids: ['a1'] });
    actor.send({ type: 'user.delete', ids: ['a1'] });
    expect(actor.getSnapshot().context.toDelete).to.deep.equal(['a2', 'a1']);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(calls).to.deep.equal(['load']);

    actor.send({ type: 'user.cancelDelete' });
    expect(actor.getSnapshot().matches(idle)).to.equal(true);
    expect(actor.getSnapshot().context.toDelete).to.deep.equal([]);
    expect(actor.getSnapshot().context.alerts.map((a) => a.id)).to.deep.equal(['a1', 'a2']);
    // A confirmation with nothing asked does nothing.
    actor.send({ type: 'user.confirmDelete' });
    expect(actor.getSnapshot().matches(idle)).to.equal(true);

    actor.send({ type: 'user.delete', ids: ['a2'] });
    actor.send({ type: 'user.confirmDelete' });
    expect(actor.getSnapshot().matches({ ready: { list: 'deleting' } })).to.equal(true);
    await waitFor(actor, (s) => s.matches(idle));
    expect(actor.getSnapshot().context.alerts.map((a) => a.id)).to.deep.equal(['a1']);
    expect(calls).to.deep.equal(['load', 'delete a2']);
    expect(toasts).to.deep.equal(['Alert deleted']);
  });

  it('re-arms a fired once alert with its own definition, and only such an alert', async () => {
    const RSI_ONCE = alert('a2', 'MSFT', RSI, {
      status: 'triggered',
      frequency: 'once',
      expires: '2099-01-02T03:04:05.678Z',
      triggercount: 1,
    });
    const server: FakeServer = {
      alerts: [alert('a1', 'AAPL', CHANNEL), RSI_ONCE, alert('a3', 'NVDA', CHANNEL, { status: 'paused' })],
    };
    const { actor, calls, bodies, toasts } = manager(server);
    await waitFor(actor, (s) => s.matches(idle));
    for (const id of ['a1', 'a3', 'zz']) actor.send({ type: 'user.rearm', id });
    expect(actor.getSnapshot().matches(idle)).to.equal(true);
    actor.send({ type: 'user.rearm', id: 'a2' });
    expect(actor.getSnapshot().matches({ ready: { list: 'rearming' } })).to.equal(true);
    await waitFor(actor, (s) => s.matches(idle));
    expect(calls).to.deep.equal(['load', 'save update a2']);
    expect(bodies).to.deep.equal([
      {
        symbol: 'MSFT',
        condition: { op: 'less_than', source: 'rsi:14', value: 30 },
        frequency: 'once',
        expires: '2099-01-02T03:04:05.678Z',
        note: null,
        channels: null,
        id: 'a2',
        update: true,
      },
    ]);
    expect(actor.getSnapshot().context.alerts.map((a) => `${a.id} ${a.status}`)).to.deep.equal([
      'a1 armed',
      'a2 armed',
      'a3 paused',
    ]);
    expect(actor.getSnapshot().context.editor).to.deep.equal({ mode: 'closed' });
    expect(toasts).to.deep.equal(['Alert re-armed: MSFT RSI(14) is at or below 30 (armed)']);
  });

  it('says why a re-arm was refused, and reads the list again', async () => {
    const server: FakeServer = {
      alerts: [alert('a1', 'AAPL', CHANNEL, { status: 'triggered' })],
      refuseSave: 'body.expires: 2026-11-01T00:00:00.000Z is not after now',
    };
    const { actor, calls } = manager(server);
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.rearm', id: 'a1' });
    await waitFor(actor, (s) => s.matches(idle) && calls.length === 3);
    expect(actor.getSnapshot().context.actionError).to.equal(
      'The alert could not be re-armed: body.expires: 2026-11-01T00:00:00.000Z is not after now',
    );
    expect(actor.getSnapshot().context.formProblem).to.equal(null);
    expect(calls).to.deep.equal(['load', 'save update a1', 'load']);
  });

  it('opens an expired alert in the builder to re-arm it, naming its expiry, without sending anything', async () => {
    const { actor, calls } = manager({
      alerts: [alert('a1', 'AAPL', CHANNEL, { status: 'expired', expires: '2026-11-21T15:00:00.000Z' })],
    });
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.rearm', id: 'a1' });
    expect(actor.getSnapshot().matches(idle)).to.equal(true);
    expect(actor.getSnapshot().context.editor).to.deep.equal({ mode: 'edit', id: 'a1' });
    expect(actor.getSnapshot().context.formProblem).to.deep.equal(EXPIRED_PROBLEM);
    expect(calls).to.deep.equal(['load']);
  });

  it('opens an alert fired before an expiry that has passed since in the builder too, sending nothing', async () => {
    const { actor, calls } = manager({
      alerts: [alert('a1', 'AAPL', CHANNEL, { status: 'triggered', expires: '2026-11-21T15:00:00.000Z' })],
    });
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.rearm', id: 'a1' });
    expect(actor.getSnapshot().matches(idle)).to.equal(true);
    expect(actor.getSnapshot().context.editor).to.deep.equal({ mode: 'edit', id: 'a1' });
    expect(actor.getSnapshot().context.formProblem).to.deep.equal(EXPIRED_PROBLEM);
    expect(actor.getSnapshot().context.actionError).to.equal(null);
    expect(calls).to.deep.equal(['load']);
    expect(expiryPassed({ expires: '2026-11-21T15:00:00.000Z' }, Date.parse('2026-11-21T15:00:00.000Z'))).to.equal(
      true,
    );
    expect(expiryPassed({ expires: '2026-11-21T15:00:00.000Z' }, Date.parse('2026-11-21T14:59:59.999Z'))).to.equal(
      false,
    );
    expect(expiryPassed({ expires: null })).to.equal(false);
  });

  it('builds the body of a re-arm as the builder sends an unchanged alert', () => {
    const channel = alert('a1', 'AAPL', { ...CHANNEL, lower: { ref: 'sma:50' } }, { frequency: 'once_per_bar' });
    expect(rearmBody(channel)).to.deep.equal({
      symbol: 'AAPL',
      condition: { op: 'entering_channel', source: 'price', lower: { ref: 'sma:50' }, upper: 190 },
      frequency: 'once_per_bar',
      expires: null,
      note: null,
      channels: null,
      id: 'a1',
      update: true,
    });
    // A note goes with the re-arm, so the alert keeps it.
    expect(rearmBody({ ...channel, note: 'Add 50 shares' }).note).to.equal('Add 50 shares');
  });

  it("shows an alert's trigger history and reads it again when an alert fires", async () => {
    const trigger = (at: string, price: number): AlertTriggerAnswer => ({
      id: `t${price}`,
      at,
      price,
      value: price,
      message: `AAPL entered 180.00 – 190.00 at ${price} +`,
      notificationtype: 1,
      note: null,
    });
    const server: FakeServer = {
      alerts: [alert('a1', 'AAPL', CHANNEL, { frequency: 'every_time' })],
      triggers: { a1: [trigger('2026-11-24T15:00:00.000Z', 185)] },
    };
    const { actor, calls, push } = manager(server);
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.showHistory', id: 'a1' });
    await waitFor(actor, (s) => s.matches({ ready: { history: 'shown' } }));
    expect(actor.getSnapshot().context.history?.triggers.map((t) => t.price)).to.deep.equal([185]);
    server.triggers = { a1: [trigger('2026-11-25T15:00:00.000Z', 186), ...server.triggers!.a1!] };
    server.alerts = server.alerts.map((a) => ({ ...a, triggercount: 2 }));
    push({ type: 'server.changed' });
    await waitFor(actor, (s) => s.matches({ ready: { history: 'shown' } }) && s.context.history?.triggers.length === 2);
    await waitFor(actor, (s) => s.matches(idle) && s.context.alerts[0]?.triggercount === 2);
    expect([...calls].sort()).to.deep.equal(['history a1', 'history a1', 'load', 'load']);
    actor.send({ type: 'user.closeHistory' });
    expect(actor.getSnapshot().context.history).to.equal(null);
  });

  it('shows where each trigger was delivered, and reads the history again when a delivery moves on', async () => {
    const trigger = (id: string | null, price: number): AlertTriggerAnswer => ({
      id,
      at: `2026-11-24T15:00:0${price - 180}.000Z`,
      price,
      value: price,
      message: `AAPL crossed 185.00: ${price}`,
      notificationtype: 1,
      note: null,
    });
    const delivery = (
      id: string,
      triggerId: string,
      channelType: DeliveryAnswer['channelType'],
      status: DeliveryAnswer['status'],
    ): DeliveryAnswer => ({
      id,
      kind: 'alert',
      alertId: 'a1',
      triggerId,
      channelId: `c-${channelType}`,
      channelType,
      status,
      attempts: 1,
      lastStatus: null,
      lastError: null,
      retryAt: null,
      createdt: '2026-11-24T15:00:00.000Z',
      updatedt: '2026-11-24T15:00:00.000Z',
    });
    const server: FakeServer = {
      alerts: [alert('a1', 'AAPL', CHANNEL, { frequency: 'every_time' })],
      // The newest first; one kept before triggers had ids.
      triggers: { a1: [trigger('t2', 186), trigger('t1', 185), trigger(null, 184)] },
      deliveries: {
        a1: [delivery('d3', 't2', 'email', 'pending'), delivery('d2', 't2', 'webhook', 'pending')],
      },
    };
    const { actor, calls, push } = manager(server);
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.showHistory', id: 'a1' });
    await waitFor(actor, (s) => s.matches({ ready: { history: 'shown' } }));
    const shown = () => {
      const history = actor.getSnapshot().context.history!;
      return history.triggers.map((t) => triggerDeliveries(history, t).map((d) => `${d.channelType} ${d.status}`));
    };
    // By channel type, webhook first; the bell only (or not read) for the others.
    expect(shown()).to.deep.equal([['webhook pending', 'email pending'], [], []]);
    server.deliveries = {
      a1: [delivery('d3', 't2', 'email', 'succeeded'), delivery('d2', 't2', 'webhook', 'failed')],
    };
    push({ type: 'server.delivered' });
    await waitFor(actor, (s) => s.matches({ ready: { history: 'shown' } }) && shown()[0]![0] === 'webhook failed');
    expect(shown()[0]).to.deep.equal(['webhook failed', 'email succeeded']);
    // A delivery moving on reads the history, not the list.
    expect(calls).to.deep.equal(['load', 'history a1', 'history a1']);
  });

  it('closes the history of a deleted alert without reading it again', async () => {
    const server: FakeServer = { alerts: [alert('a1', 'AAPL', CHANNEL), alert('a2', 'MSFT', RSI)] };
    const { actor, calls, push } = manager(server);
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.showHistory', id: 'a1' });
    await waitFor(actor, (s) => s.matches({ ready: { history: 'shown' } }));
    actor.send({ type: 'user.delete', ids: ['a1'] });
    actor.send({ type: 'user.confirmDelete' });
    push({ type: 'server.changed' });
    await waitFor(actor, (s) => s.matches({ ready: { list: 'idle', history: 'closed' } }) && calls.length === 4);
    expect(actor.getSnapshot().context.historyId).to.equal(null);
    expect(calls).to.deep.equal(['load', 'history a1', 'delete a1', 'load']);
  });

  it('closes the builder of an alert deleted elsewhere, saying so, and keeps one of another alert open', async () => {
    const server: FakeServer = { alerts: [alert('a1', 'AAPL', CHANNEL), alert('a2', 'MSFT', RSI)] };
    const { actor, push } = manager(server);
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.edit', id: 'a1' });
    server.alerts = [alert('a2', 'MSFT', RSI)];
    push({ type: 'server.changed' });
    await waitFor(actor, (s) => s.matches(idle) && s.context.alerts.length === 1);
    expect(actor.getSnapshot().context.editor).to.deep.equal({ mode: 'closed' });
    expect(actor.getSnapshot().context.actionError).to.equal(
      'The alert you were changing on AAPL was deleted elsewhere',
    );
    actor.send({ type: 'user.dismissError' });
    actor.send({ type: 'user.edit', id: 'a2' });
    server.alerts = [alert('a2', 'MSFT', RSI), alert('a3', 'AAPL', CHANNEL)];
    push({ type: 'server.changed' });
    await waitFor(actor, (s) => s.matches(idle) && s.context.alerts.length === 2);
    expect(actor.getSnapshot().context.editor).to.deep.equal({ mode: 'edit', id: 'a2' });
    expect(actor.getSnapshot().context.actionError).to.equal(null);
  });

  it('reads the list after an action when it changed meanwhile', async () => {
    const server: FakeServer = { alerts: [alert('a1', 'AAPL', CHANNEL)] };
    const { actor, calls, push } = manager(server);
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.pause', ids: ['a1'] });
    server.alerts = [...server.alerts, alert('a2', 'MSFT', RSI)];
    push({ type: 'server.changed' });
    await waitFor(actor, (s) => s.matches(idle) && s.context.alerts.length === 2);
    expect(calls).to.deep.equal(['load', 'pause a1', 'load']);
  });

  it('reads the field a server refusal names', () => {
    expect(refusalProblem(new ApiError(400, 'bad_request', 'body.frequency: must be one of once'))).to.deep.equal({
      field: 'frequency',
      message: 'must be one of once',
    });
    expect(refusalProblem(new Error('Not found'))).to.deep.equal({ field: 'body', message: 'Not found' });
  });
});
