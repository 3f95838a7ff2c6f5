import { expect } from 'chai';
import { createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import type {
  AttemptAnswer,
  ChannelAnswer,
  ChannelRequest,
  DeliveryAnswer,
  RotatedSecret,
} from '../../../domain/contract/channels.ts';
import { ApiError } from '../../services/api.ts';
import {
  channelRefusal,
  deliveriesOf,
  settingsMachine,
  type AddedChannel,
  type SettingsEvent,
  type SettingsLoad,
} from './settings.machine.ts';

const HOOK: ChannelAnswer = {
  id: '00000000-0000-4000-8000-000000000001',
  type: 'webhook',
  name: 'desk',
  url: 'https://hooks.example.com/a',
  confirmed: true,
  createdt: '2026-01-05T15:00:00.000Z',
};

function delivery(n: number, channelId: string, status: DeliveryAnswer['status'] = 'succeeded'): DeliveryAnswer {
  return {
    id: `d${n}`,
    kind: 'alert',
    alertId: null,
    triggerId: null,
    channelId,
    channelType: 'webhook',
    status,
    attempts: 1,
    lastStatus: 200,
    lastError: null,
    retryAt: null,
    createdt: '2026-01-05T15:00:00.000Z',
    updatedt: '2026-01-05T15:00:00.000Z',
  };
}

const MAIL: ChannelAnswer = {
  id: '00000000-0000-4000-8000-000000000002',
  type: 'email',
  name: 'me@example.com',
  address: 'me@example.com',
  confirmed: false,
  createdt: '2026-01-05T15:00:00.000Z',
};

function settings(server: {
  channels: ChannelAnswer[];
  deliveries: DeliveryAnswer[];
  permission?: NotificationPermission;
  failAdd?: string;
  failResend?: string;
  /** What the clipboard does with a copy: takes it, or refuses. */
  clipboard?: 'takes' | 'refuses';
}) {
  const calls: string[] = [];
  const copied: string[] = [];
  const saved: unknown[] = [];
  const actor = createActor(
    settingsMachine.provide({
      actors: {
        loadSettings: fromPromise<SettingsLoad>(() => {
          calls.push('load');
          return Promise.resolve({ channels: [...server.channels], deliveries: [...server.deliveries] });
        }),
        addChannel: fromPromise<AddedChannel, ChannelRequest>(({ input }) => {
          calls.push(`add ${input.type}`);
          if (server.failAdd) return Promise.reject(new Error(server.failAdd));
          const added: ChannelAnswer = { ...HOOK, id: `new-${server.channels.length}` };
          server.channels.push(added);
          return Promise.resolve({ ...added, secret: 'whsec_abc' });
        }),
        addThisBrowser: fromPromise<AddedChannel>(() =>
          Promise.reject(new Error('This browser cannot receive push messages')),
        ),
        removeChannel: fromPromise<unknown, string>(({ input }) => {
          calls.push(`remove ${input}`);
          server.channels = server.channels.filter((c) => c.id !== input);
          return Promise.resolve({ id: input, deleted: true });
        }),
        testChannel: fromPromise<AttemptAnswer, string>(({ input }) => {
          calls.push(`test ${input}`);
          return Promise.resolve({ deliveryId: 'd-test', ok: false, status: 503, error: 'answered 503' });
        }),
        enableChannel: fromPromise<ChannelAnswer, string>(({ input }) => {
          calls.push(`enable ${input}`);
          server.channels = server.channels.map((c) => (c.id === input ? { ...c, disabled: undefined } : c));
          return Promise.resolve(server.channels.find((c) => c.id === input)!);
        }),
        rotateSecret: fromPromise<RotatedSecret, string>(({ input }) => {
          calls.push(`rotate ${input}`);
          return Promise.resolve({ ...server.channels.find((c) => c.id === input)!, secret: 'whsec_new' });
        }),
        resendConfirmation: fromPromise<unknown, string>(({ input }) => {
          calls.push(`resend ${input}`);
          if (server.failResend) return Promise.reject(new Error(server.failResend));
          return Promise.resolve({ id: input, resent: true });
        }),
        copyText: fromCallback<SettingsEvent, string>(({ input, sendBack }) => {
          copied.push(input);
          sendBack(
            server.clipboard === 'refuses'
              ? { type: 'server.copyFailed', message: 'This browser did not let the page copy' }
              : { type: 'server.copied' },
          );
        }),
        askPermission: fromPromise<NotificationPermission | 'unsupported'>(() =>
          Promise.resolve(server.permission ?? 'granted'),
        ),
        deliveryChanges: fromCallback(() => () => undefined),
      },
      actions: { savePrefs: ({ context }) => saved.push(context.prefs) },
    }),
  );
  actor.start();
  return { actor, calls, saved, copied };
}

describe('settings machine', function () {
  it('loads the channels and their deliveries', async function () {
    const { actor } = settings({ channels: [HOOK], deliveries: [delivery(1, HOOK.id), delivery(2, 'other')] });
    const state = await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
    expect(state.context.channels).to.deep.equal([HOOK]);
    expect(deliveriesOf(state.context.deliveries, HOOK.id).map((d) => d.id)).to.deep.equal(['d1']);
  });

  it('shows a new webhook secret once, until dismissed, and reads the list again', async function () {
    const { actor, calls } = settings({ channels: [], deliveries: [] });
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
    actor.send({ type: 'user.addChannel', channel: { type: 'webhook', url: 'https://h.example.com/x' } });
    const state = await waitFor(actor, (s) => s.matches({ ready: 'idle' }) && s.context.channels.length === 1);
    expect(state.context.secret).to.deep.equal({
      channelId: 'new-0',
      secret: 'whsec_abc',
      reason: 'added',
      copied: false,
    });
    expect(calls).to.deep.equal(['load', 'add webhook', 'load']);
    actor.send({ type: 'user.dismissSecret' });
    expect(actor.getSnapshot().context.secret).to.equal(null);
  });

  it('rotates a webhook secret, shows the new one once, and copies it', async function () {
    const { actor, calls, copied } = settings({ channels: [HOOK], deliveries: [] });
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
    // Nothing to copy before a secret is shown.
    actor.send({ type: 'user.copySecret' });
    expect(copied).to.deep.equal([]);
    actor.send({ type: 'user.rotateSecret', id: HOOK.id });
    expect(actor.getSnapshot().matches({ ready: 'rotating' })).to.equal(true);
    const shown = await waitFor(actor, (s) => s.matches({ ready: 'idle' }) && s.context.secret !== null);
    expect(shown.context.secret).to.deep.equal({
      channelId: HOOK.id,
      secret: 'whsec_new',
      reason: 'rotated',
      copied: false,
    });
    expect(calls).to.deep.equal(['load', `rotate ${HOOK.id}`, 'load']);
    actor.send({ type: 'user.copySecret' });
    expect(copied).to.deep.equal(['whsec_new']);
    expect(actor.getSnapshot().context.secret).to.include({ copied: true });
    actor.send({ type: 'user.dismissSecret' });
    expect(actor.getSnapshot().context.secret).to.equal(null);
  });

  it('says when the browser would not copy the secret', async function () {
    const { actor } = settings({ channels: [], deliveries: [], clipboard: 'refuses' });
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
    actor.send({ type: 'user.addChannel', channel: { type: 'webhook', url: 'https://h.example.com/x' } });
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }) && s.context.secret !== null);
    actor.send({ type: 'user.copySecret' });
    const state = actor.getSnapshot();
    expect(state.context.saveError).to.equal('This browser did not let the page copy');
    expect(state.context.secret).to.include({ reason: 'added', copied: false });
  });

  it('enables a disabled webhook again and reads the list again', async function () {
    const gone: ChannelAnswer = { ...HOOK, disabled: { status: 410, at: '2026-01-06T15:00:00.000Z' } };
    const { actor, calls } = settings({ channels: [gone], deliveries: [] });
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
    actor.send({ type: 'user.enable', id: HOOK.id });
    expect(actor.getSnapshot().context.busyId).to.equal(HOOK.id);
    const enabled = await waitFor(actor, (s) => s.matches({ ready: 'idle' }) && !s.context.channels[0]!.disabled);
    expect(enabled.context.channels[0]!.disabled).to.equal(undefined);
    expect(calls).to.deep.equal(['load', `enable ${HOOK.id}`, 'load']);
  });

  it('sends an address its confirmation again, says so, and says why when refused', async function () {
    const sent = settings({ channels: [MAIL], deliveries: [] });
    await waitFor(sent.actor, (s) => s.matches({ ready: 'idle' }));
    sent.actor.send({ type: 'user.resendConfirmation', id: MAIL.id });
    const resent = await waitFor(sent.actor, (s) => s.matches({ ready: 'idle' }) && s.context.resent.length === 1);
    expect(resent.context.resent).to.deep.equal([MAIL.id]);
    expect(sent.calls).to.deep.equal(['load', `resend ${MAIL.id}`, 'load']);
    sent.actor.send({ type: 'user.resendConfirmation', id: MAIL.id });
    await waitFor(sent.actor, (s) => s.matches({ ready: 'idle' }) && sent.calls.length === 5);
    expect(sent.actor.getSnapshot().context.resent).to.deep.equal([MAIL.id]);

    const limit = 'at most 30 test and confirmation messages an hour; try again in 3599 s';
    const refused = settings({ channels: [MAIL], deliveries: [], failResend: limit });
    await waitFor(refused.actor, (s) => s.matches({ ready: 'idle' }));
    refused.actor.send({ type: 'user.resendConfirmation', id: MAIL.id });
    const state = await waitFor(refused.actor, (s) => s.context.saveError !== null);
    expect(state.context.saveError).to.equal(limit);
    expect(state.context.resent).to.deep.equal([]);
  });

  it('says why a channel could not be added', async function () {
    const { actor } = settings({ channels: [], deliveries: [], failAdd: 'body.url: https://x is not a URL' });
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
    actor.send({ type: 'user.addChannel', channel: { type: 'webhook', url: 'https://x' } });
    const state = await waitFor(actor, (s) => s.context.saveError !== null);
    expect(state.context.saveError).to.equal('Webhook URL: https://x is not a URL');
  });

  it("words the server's refusal of a channel with the form's labels", function () {
    const refused = (message: string) => channelRefusal(new ApiError(400, 'bad_request', message));
    expect(refused('body.url: 10.0.0.1 is not a public address')).to.equal(
      'Webhook URL: 10.0.0.1 is not a public address',
    );
    expect(refused('body.address: "x@" is not an email address')).to.equal(
      'Email address: "x@" is not an email address',
    );
    expect(refused('body.name: is too long')).to.equal('Webhook name: is too long');
    expect(refused('a user may have at most 10 channels')).to.equal('a user may have at most 10 channels');
  });

  it("keeps a test's outcome by channel, and removes a channel", async function () {
    const { actor, calls } = settings({ channels: [HOOK], deliveries: [] });
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
    actor.send({ type: 'user.test', id: HOOK.id });
    const tested = await waitFor(actor, (s) => s.matches({ ready: 'idle' }) && HOOK.id in s.context.tests);
    expect(tested.context.tests[HOOK.id]).to.include({ ok: false, status: 503 });
    actor.send({ type: 'user.remove', id: HOOK.id });
    const removed = await waitFor(actor, (s) => s.matches({ ready: 'idle' }) && s.context.channels.length === 0);
    expect(removed.context.channels).to.deep.equal([]);
    expect(calls).to.include(`remove ${HOOK.id}`);
  });

  it('reads the lists again when the server says they changed during a read, rather than keeping the older', async function () {
    const server = { deliveries: [] as DeliveryAnswer[] };
    const loads: (() => void)[] = [];
    let changed: (() => void) | undefined;
    const actor = createActor(
      settingsMachine.provide({
        actors: {
          // Each read answers when the test says, with what the server held when it was sent.
          loadSettings: fromPromise<SettingsLoad>(() => {
            const held = { channels: [HOOK], deliveries: [...server.deliveries] };
            return new Promise((resolve) => loads.push(() => resolve(held)));
          }),
          deliveryChanges: fromCallback(({ sendBack }) => {
            changed = () => sendBack({ type: 'server.changed' });
            return () => undefined;
          }),
        },
      }),
    ).start();
    loads.shift()!();
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
    changed!();
    expect(actor.getSnapshot().matches({ ready: 'refreshing' })).to.equal(true);
    // The test message's delivery is recorded after this read was sent, and said while it is under way.
    server.deliveries.push(delivery(1, HOOK.id));
    changed!();
    loads.shift()!();
    await waitFor(actor, () => loads.length === 1);
    loads.shift()!();
    const read = await waitFor(actor, (s) => s.matches({ ready: 'idle' }) && s.context.deliveries.length === 1);
    expect(read.context.deliveries.map((d) => d.id)).to.deep.equal(['d1']);
    expect(loads).to.deep.equal([]);
  });

  it('turns notifications on only once the browser allows them, and saves the choice', async function () {
    const granted = settings({ channels: [], deliveries: [], permission: 'granted' });
    await waitFor(granted.actor, (s) => s.matches({ ready: 'idle' }));
    granted.actor.send({ type: 'user.setNotify', on: true });
    const on = await waitFor(granted.actor, (s) => s.context.prefs.notify);
    expect(on.context.permission).to.equal('granted');
    expect(granted.saved).to.deep.equal([{ notify: true, sound: false }]);
    granted.actor.send({ type: 'user.setSound', on: true });
    expect(granted.saved.at(-1)).to.deep.equal({ notify: true, sound: true });

    const denied = settings({ channels: [], deliveries: [], permission: 'denied' });
    await waitFor(denied.actor, (s) => s.matches({ ready: 'idle' }));
    denied.actor.send({ type: 'user.setNotify', on: true });
    const off = await waitFor(denied.actor, (s) => s.context.saveError !== null);
    expect(off.context.prefs.notify).to.equal(false);
    expect(denied.saved).to.deep.equal([]);
  });
});
