import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { alertsDecider, type AlertsCommand } from '../../domain/alerts/alerts.ts';
import { channelsDecider, type ChannelsCommand } from '../../domain/channels/channels.ts';
import type { WebhookPayload } from '../../domain/contract/channels.ts';
import type { CommandMeta } from '../../domain/decider.ts';
import { deliveryIdOf } from '../../domain/deliveries/deliveries.ts';
import { handleCommand } from '../../platform/commandHandler.ts';
import type { EventStore, RecordedEvent } from '../../platform/eventstore/port.ts';
import { openSqliteEventStore } from '../../platform/eventstore/sqlite.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { openSqliteReadModelStore } from '../../platform/readmodels/sqlite.ts';
import { forbiddenLiteralHost, isForbiddenAddress, parseAllowedHosts } from './guard.ts';
import { deliveryMetrics } from './metrics.ts';
import { startDeliveryProcessor, type DeliveryProcessor, type QueuedDelivery, type Senders } from './processor.ts';
import { deliverySecrets } from './secrets.ts';
import { emailSender, webhookSender, type Sender } from './senders.ts';
import { RETRY_AFTER_MAX_MS } from './retry.ts';
import { manualClock } from './testing/clock.ts';
import { startReceiver, type ReceivedRequest, type ReceiverAnswer, type TestReceiver } from './testing/receiver.ts';

const secrets = deliverySecrets(Buffer.from('a test key of at least thirty-two characters'));
const FAST = { delaysMs: [20, 40, 80, 160, 320], jitter: 0.2 };

function meta(userId: string, commandId = randomUUID(), actor: CommandMeta['actor'] = `user:${userId}`): CommandMeta {
  return { commandId, userId, at: new Date().toISOString(), actor };
}

describe('delivery processor', function () {
  this.timeout(20_000);
  let dir: string;
  let events: EventStore;
  let readModels: ReadModelStore;
  let receiver: TestReceiver;
  const processors: DeliveryProcessor[] = [];
  let answers: (index: number, request: ReceivedRequest) => ReceiverAnswer = () => 200;

  beforeEach(async function () {
    dir = mkdtempSync(join(tmpdir(), 'sp-delivery-'));
    events = openSqliteEventStore({ file: join(dir, 'events.db') });
    readModels = openSqliteReadModelStore({ file: join(dir, 'readmodels.db') });
    answers = () => 200;
    receiver = await startReceiver((i, request) => answers(i, request));
  });
  afterEach(async function () {
    for (const p of processors.splice(0)) await p.stop();
    await receiver.close();
    await readModels.close();
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function senders(allowed = '127.0.0.1'): Senders {
    const none: Sender = () => Promise.resolve({ ok: false, status: null, error: 'unused', retryable: false });
    return {
      webhook: webhookSender({
        secretOf: (id, generation) => secrets.webhookSecret(id, generation),
        allowedHosts: parseAllowedHosts(allowed),
        timeoutMs: 500,
      }),
      email: emailSender({ smtpUrl: null, from: 'x@example.com' }),
      webpush: none,
    };
  }

  async function start(
    options: {
      instance?: string;
      allowed?: string;
      store?: ReadModelStore;
      retry?: typeof FAST;
      now?: () => number;
      setTimer?: (wake: () => void, delayMs: number) => () => void;
      perChannel?: number;
      onUnsent?: (delivery: QueuedDelivery, why: string) => void;
    } = {},
  ): Promise<DeliveryProcessor> {
    const processor = await startDeliveryProcessor({
      events,
      readModels: options.store ?? readModels,
      senders: senders(options.allowed),
      secrets,
      // A function, as `setUpDelivery` supplies it: read at each send.
      publicOrigin: () => 'http://localhost:3000',
      retry: options.retry ?? FAST,
      ...(options.now ? { now: options.now } : {}),
      ...(options.setTimer ? { setTimer: options.setTimer } : {}),
      lostAfterMs: 1000,
      ...(options.instance ? { instance: options.instance } : {}),
      ...(options.perChannel ? { perChannel: options.perChannel } : {}),
      ...(options.onUnsent ? { onUnsent: options.onUnsent } : {}),
    });
    processors.push(processor);
    await processor.caughtUp;
    return processor;
  }

  async function addWebhook(userId: string, url = `${receiver.url}/hook`): Promise<string> {
    const channelId = randomUUID();
    const command: ChannelsCommand = {
      type: 'AddChannel',
      data: { channelId, spec: { type: 'webhook', url, name: 'test' }, at: new Date().toISOString() },
    };
    await handleCommand(events, channelsDecider, `channels-${userId}`, command, meta(userId));
    return channelId;
  }

  /** Creates an alert and fires it as the engine does; answers the trigger's event id. */
  async function fire(userId: string): Promise<{ alertId: string; triggerId: string }> {
    const alertId = randomUUID();
    const create: AlertsCommand = {
      type: 'CreateAlert',
      data: {
        alertId,
        symbol: 'AAPL',
        kind: 'PRICE',
        alerttype: 'U',
        threshold: 190,
        period: null,
        at: new Date().toISOString(),
      },
    };
    await handleCommand(events, alertsDecider, `alerts-${userId}`, create, meta(userId));
    const trigger: AlertsCommand = {
      type: 'TriggerAlert',
      data: { alertId, price: 191.5, changepct: 1.2, at: new Date().toISOString() },
    };
    const outcome = await handleCommand(
      events,
      alertsDecider,
      `alerts-${userId}`,
      trigger,
      meta(userId, randomUUID(), 'engine'),
    );
    const recorded = await events.readStream(`alerts-${userId}`);
    return { alertId, triggerId: recorded.at(-1)!.id, ...(outcome.events.length === 1 ? {} : { missing: true }) };
  }

  /** Records a channels command as its issuer would (the user, or the processor for `DisableWebhook`). */
  async function channels(userId: string, command: ChannelsCommand): Promise<void> {
    const actor: CommandMeta['actor'] = command.type === 'DisableWebhook' ? 'engine' : `user:${userId}`;
    await handleCommand(events, channelsDecider, `channels-${userId}`, command, meta(userId, randomUUID(), actor));
  }

  /** Resolves with the first event of `type` appended to `stream`, from the log's start (a catch-up subscription). */
  async function appended(stream: string, type: string): Promise<RecordedEvent> {
    let found: (event: RecordedEvent) => void = () => undefined;
    const event = new Promise<RecordedEvent>((resolve) => (found = resolve));
    const subscription = events.subscribeToAll(
      { onEvent: (e) => void (e.streamId === stream && found(e)) },
      { filter: { streamPrefixes: [stream], eventTypes: [type] } },
    );
    try {
      return await event;
    } finally {
      await subscription.stop();
    }
  }

  async function deliveryEvents(userId: string, until: (types: string[]) => boolean): Promise<RecordedEvent[]> {
    for (let i = 0; i < 200; i++) {
      const recorded = await events.readStream(`deliveries-${userId}`).catch(() => [] as RecordedEvent[]);
      if (until(recorded.map((e) => e.type))) return recorded;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`deliveries-${userId} never reached the expected events`);
  }

  it('posts a trigger as signed JSON keyed by the delivery id, and records one success', async function () {
    const user = `u${randomUUID().slice(0, 8)}`;
    await start();
    const channelId = await addWebhook(user);
    const { alertId, triggerId } = await fire(user);
    const [request] = await receiver.waitFor(1);
    const deliveryId = deliveryIdOf(triggerId, channelId);
    expect(request!.method).to.equal('POST');
    expect(request!.headers['content-type']).to.equal('application/json');
    expect(request!.headers['idempotency-key']).to.equal(deliveryId);
    const body = JSON.parse(request!.body) as WebhookPayload;
    expect(body).to.include({ id: deliveryId, alertId, symbol: 'AAPL', price: 191.5, notificationtype: 1 });
    expect(body.message).to.match(/^AAPL rose above 190\.00/);
    expect(Object.keys(body)).to.have.members([
      'id',
      'alertId',
      'symbol',
      'message',
      'notificationtype',
      'price',
      'at',
      'position',
      'note',
    ]);
    const signature = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(request!.headers['stockpulse-signature']));
    expect(signature, String(request!.headers['stockpulse-signature'])).to.not.equal(null);
    const expected = createHmac('sha256', secrets.webhookSecret(channelId))
      .update(`${signature![1]}.${request!.body}`)
      .digest('hex');
    expect(signature![2]).to.equal(expected);
    expect(Math.abs(Number(signature![1]) - Date.now() / 1000)).to.be.below(60);
    const recorded = await deliveryEvents(user, (types) => types.includes('DeliverySucceeded'));
    expect(recorded.map((e) => e.type)).to.deep.equal(['DeliveryAttempted', 'DeliverySucceeded']);
  });

  it('retries a 503, a 429 and a timeout with the same Idempotency-Key, then succeeds once', async function () {
    const user = `u${randomUUID().slice(0, 8)}`;
    answers = (i) => [503, 429, 'hang' as const][i] ?? 200;
    await start();
    await addWebhook(user);
    await fire(user);
    const requests = await receiver.waitFor(4);
    expect(new Set(requests.map((r) => r.headers['idempotency-key'])).size).to.equal(1);
    const recorded = await deliveryEvents(user, (types) => types.includes('DeliverySucceeded'));
    expect(recorded.map((e) => e.type)).to.deep.equal([
      'DeliveryAttempted',
      'DeliveryFailed',
      'DeliveryAttempted',
      'DeliveryFailed',
      'DeliveryAttempted',
      'DeliveryFailed',
      'DeliveryAttempted',
      'DeliverySucceeded',
    ]);
    const failures = recorded
      .filter((e) => e.type === 'DeliveryFailed')
      .map((e) => e.data as { status: number | null; final: boolean; retryAt: string });
    expect(failures.map((f) => f.status)).to.deep.equal([503, 429, null]);
    expect(failures.every((f) => !f.final && typeof f.retryAt === 'string')).to.equal(true);
  });

  it('times the next attempt by a 429 or 503 Retry-After, at least the backoff and at most an hour', async function () {
    // Each path answers its first request as the case says, and 200 after.
    const date = new Date(Date.now() + 3000).toUTCString();
    const cases: Record<string, { status: number; retryAfter: string }> = {
      '/seconds': { status: 503, retryAfter: '1' },
      '/date': { status: 429, retryAfter: date },
      '/day': { status: 429, retryAfter: '86400' },
      '/now': { status: 503, retryAfter: '0' },
      '/error': { status: 500, retryAfter: '60' },
      '/junk': { status: 429, retryAfter: 'soon' },
    };
    answers = (_i, request) => {
      const first = receiver.requests.filter((r) => r.url === request.url).length === 1;
      const asked = cases[request.url];
      return first && asked ? { status: asked.status, headers: { 'retry-after': asked.retryAfter } } : 200;
    };
    await start();
    /** The wait the first failure of a delivery to `path` recorded: its `retryAt` after its `at`, in ms. */
    const recordedWait = async (path: string): Promise<{ waitMs: number; retryAt: string }> => {
      const user = `u${randomUUID().slice(0, 8)}`;
      await addWebhook(user, `${receiver.url}${path}`);
      await fire(user);
      const recorded = await deliveryEvents(user, (types) => types.includes('DeliveryFailed'));
      const failed = recorded.find((e) => e.type === 'DeliveryFailed')!.data as { at: string; retryAt: string };
      expect(failed, path).to.include({ status: cases[path]!.status, final: false });
      return { waitMs: Date.parse(failed.retryAt) - Date.parse(failed.at), retryAt: failed.retryAt };
    };

    expect((await recordedWait('/seconds')).waitMs).to.equal(1000);
    // Sent again no sooner than asked, and then delivered.
    const [first, second] = (await receiver.waitFor(2)).filter((r) => r.url === '/seconds');
    expect(second!.arrivedAt - first!.arrivedAt).to.be.at.least(990);
    expect((await recordedWait('/date')).retryAt).to.equal(new Date(Date.parse(date)).toISOString());
    expect((await recordedWait('/day')).waitMs).to.equal(RETRY_AFTER_MAX_MS);
    // A shorter wait than the backoff's, a Retry-After on another status, or one that is no time: the backoff
    // (20 ms ± 20 %).
    for (const path of ['/now', '/error', '/junk']) {
      expect((await recordedWait(path)).waitMs, path).to.be.within(16, 24);
    }
  });

  it('gives up at once on a 400 and after the last attempt on a 500', async function () {
    const user400 = `u${randomUUID().slice(0, 8)}`;
    answers = () => 400;
    await start();
    await addWebhook(user400);
    await fire(user400);
    const recorded = await deliveryEvents(user400, (types) => types.includes('DeliveryFailed'));
    expect(recorded.map((e) => e.type)).to.deep.equal(['DeliveryAttempted', 'DeliveryFailed']);
    expect(recorded[1]!.data).to.include({ status: 400, final: true, retryAt: null });

    answers = () => 500;
    const user500 = `u${randomUUID().slice(0, 8)}`;
    await addWebhook(user500);
    await fire(user500);
    const all = await deliveryEvents(user500, (types) => types.filter((t) => t === 'DeliveryFailed').length === 6);
    const attempts = all
      .filter((e) => e.type === 'DeliveryAttempted')
      .map((e) => (e.data as { attempt: number }).attempt);
    expect(attempts).to.deep.equal([1, 2, 3, 4, 5, 6]);
    expect(all.at(-1)!.data).to.include({ final: true, status: 500 });
  });

  it('refuses a loopback receiver that is not in the allowed hosts, without retrying', async function () {
    const user = `u${randomUUID().slice(0, 8)}`;
    await start({ allowed: '' });
    await addWebhook(user);
    await fire(user);
    const recorded = await deliveryEvents(user, (types) => types.includes('DeliveryFailed'));
    expect(recorded[1]!.data).to.include({ final: true, status: null });
    expect((recorded[1]!.data as { error: string }).error).to.match(/127\.0\.0\.1.*not a public address/);
    expect(receiver.requests).to.have.length(0);
  });

  it('signs with the secret of the generation a rotation recorded', async function () {
    const user = `u${randomUUID().slice(0, 8)}`;
    await start();
    const channelId = await addWebhook(user);
    await channels(user, { type: 'RotateWebhookSecret', data: { channelId, at: new Date().toISOString() } });
    await fire(user);
    const [request] = await receiver.waitFor(1);
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(request!.headers['stockpulse-signature'])) ?? [];
    const signed = (secret: string) => createHmac('sha256', secret).update(`${t}.${request!.body}`).digest('hex');
    expect(v1).to.equal(signed(secrets.webhookSecret(channelId, 1)));
    expect(v1).to.not.equal(signed(secrets.webhookSecret(channelId, 0)));
  });

  it('disables a webhook answering 410 Gone, ends its pending delivery unsent, and queues none until enabled', async function () {
    const user = `u${randomUUID().slice(0, 8)}`;
    // The processor's clock, moved on by the test to make a retry due.
    let skew = 0;
    const processor = await start({ retry: { delaysMs: [60_000], jitter: 0 }, now: () => Date.now() + skew });
    const pending = await addWebhook(user, `${receiver.url}/busy`);
    const gone = await addWebhook(user, `${receiver.url}/gone`);
    answers = (_i, request) => (request.url === '/gone' ? 410 : 503);
    const first = await fire(user);
    const recorded = await deliveryEvents(user, (types) => types.filter((t) => t === 'DeliveryFailed').length === 2);
    const outcome = (channelId: string) =>
      recorded.find(
        (e) =>
          e.type === 'DeliveryFailed' &&
          (e.data as { deliveryId: string }).deliveryId === deliveryIdOf(first.triggerId, channelId),
      )!.data;
    expect(outcome(gone)).to.include({ status: 410, final: true });
    expect(outcome(pending)).to.include({ status: 503, final: false });
    // The webhook is disabled after its delivery's outcome is recorded: waited for, not read at once.
    const disabled = await appended(`channels-${user}`, 'WebhookDisabled');
    expect((await events.readStream(`channels-${user}`)).at(-1)!.id).to.equal(disabled.id);
    expect(disabled.data).to.include({ channelId: gone, status: 410 });
    expect(disabled.metadata).to.include({ actor: 'engine' });

    // The other webhook is disabled too while its delivery waits for its retry; once due, it ends unsent.
    await channels(user, {
      type: 'DisableWebhook',
      data: { channelId: pending, status: 410, at: new Date().toISOString() },
    });
    skew = 61_000;
    await fire(user);
    const ended = await deliveryEvents(user, (types) => types.filter((t) => t === 'DeliveryFailed').length === 3);
    expect(ended.at(-1)!.data).to.include({
      deliveryId: deliveryIdOf(first.triggerId, pending),
      final: true,
      status: null,
      error: 'the webhook is disabled: its receiver answered 410 Gone',
    });
    // The trigger read while both were disabled queued nothing.
    await processor.runner.waitFor(await events.headPosition());
    expect(processor.pending()).to.equal(0);
    expect(receiver.requests.map((r) => r.url)).to.deep.equal(['/busy', '/gone']);

    // Enabled again, a webhook receives the next trigger.
    answers = () => 200;
    await channels(user, { type: 'EnableWebhook', data: { channelId: gone, at: new Date().toISOString() } });
    const third = await fire(user);
    await deliveryEvents(user, (types) => types.includes('DeliverySucceeded'));
    expect(receiver.requests.at(-1)!.headers['idempotency-key']).to.equal(deliveryIdOf(third.triggerId, gone));
  });

  /** Resolves with the next event of the log after now that `accept` takes. */
  async function nextEvent(accept: (event: RecordedEvent) => boolean): Promise<RecordedEvent> {
    const from = await events.headPosition();
    return new Promise((resolve, reject) => {
      const subscription = events.subscribeToAll(
        {
          onEvent: (event) => {
            if (!accept(event)) return;
            void subscription.stop();
            resolve(event);
          },
          onError: reject,
        },
        { fromPosition: from },
      );
    });
  }

  it('ends a delivery whose channel was removed while it waited for its retry unsent, adding no attempt', async function () {
    const user = `u${randomUUID().slice(0, 8)}`;
    const clock = manualClock(Date.now());
    const processor = await start({
      retry: { delaysMs: [60_000], jitter: 0 },
      now: clock.now,
      setTimer: clock.setTimer,
    });
    answers = () => 503;
    const channelId = await addWebhook(user);
    const failed = nextEvent((e) => e.type === 'DeliveryFailed' && e.metadata.userId === user);
    const { triggerId } = await fire(user);
    const deliveryId = deliveryIdOf(triggerId, channelId);
    expect((await failed).data).to.include({ deliveryId, attempt: 1, final: false });

    await channels(user, { type: 'RemoveChannel', data: { channelId } });
    await processor.runner.waitFor(await events.headPosition());
    const ended = nextEvent((e) => e.type === 'DeliveryFailed' && (e.data as { final: boolean }).final);
    clock.advance(60_000);
    expect((await ended).data).to.include({
      deliveryId,
      attempt: 1,
      final: true,
      status: null,
      error: 'the channel was removed',
      unsent: true,
    });
    const recorded = await events.readStream(`deliveries-${user}`);
    expect(recorded.map((e) => [e.type, (e.data as { attempt: number }).attempt])).to.deep.equal([
      ['DeliveryAttempted', 1],
      ['DeliveryFailed', 1],
      ['DeliveryFailed', 1],
    ]);
    expect(receiver.requests).to.have.length(1);
    await processor.runner.waitFor(await events.headPosition());
    expect(processor.pending()).to.equal(0);
  });

  it('ends a delivery never attempted whose channel was removed abandoned, recording no attempt', async function () {
    const user = `u${randomUUID().slice(0, 8)}`;
    // The figures an operator reads: the abandoned delivery counts as ended unsent.
    const metrics = deliveryMetrics();
    const processor = await start({ perChannel: 1, onUnsent: metrics.unsent });
    // The first delivery holds the channel's one attempt until released; the second waits for the channel.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    answers = (i) => (i === 0 ? { status: 200, until: held } : 200);
    const channelId = await addWebhook(user);
    const first = await fire(user);
    await receiver.waitFor(1);
    const second = await fire(user);
    await processor.runner.waitFor(await events.headPosition());
    expect(processor.waiting()).to.equal(1);
    await channels(user, { type: 'RemoveChannel', data: { channelId } });
    await processor.runner.waitFor(await events.headPosition());
    const abandoned = nextEvent((e) => e.type === 'DeliveryAbandoned' && e.metadata.userId === user);
    release();
    expect((await abandoned).data).to.include({
      deliveryId: deliveryIdOf(second.triggerId, channelId),
      triggerId: second.triggerId,
      alertId: second.alertId,
      channelType: 'webhook',
      error: 'the channel was removed',
    });
    await deliveryEvents(user, (types) => types.includes('DeliverySucceeded'));
    const recorded = await events.readStream(`deliveries-${user}`);
    const secondId = deliveryIdOf(second.triggerId, channelId);
    // The second was never sent: the log says it ended, and no attempt of it.
    expect(
      recorded.filter((e) => (e.data as { deliveryId: string }).deliveryId === secondId).map((e) => e.type),
    ).to.deep.equal(['DeliveryAbandoned']);
    expect(recorded.filter((e) => e.type === 'DeliveryAttempted').map((e) => e.data)).to.have.length(1);
    expect((recorded[0]!.data as { deliveryId: string }).deliveryId).to.equal(deliveryIdOf(first.triggerId, channelId));
    expect(receiver.requests).to.have.length(1);
    await processor.runner.waitFor(await events.headPosition());
    expect(processor.pending() + processor.waiting()).to.equal(0);
    const figures = await metrics.registry.getSingleMetricAsString('stockpulse_deliveries_total');
    expect(figures).to.include('stockpulse_deliveries_total{channel="webhook",outcome="unsent"} 1');
  });

  it('queues a confirmation of its own each time one is sent again', async function () {
    const user = `u${randomUUID().slice(0, 8)}`;
    const channelId = randomUUID();
    await start();
    await channels(user, {
      type: 'AddChannel',
      data: { channelId, spec: { type: 'email', address: `${user}@example.com` }, at: new Date().toISOString() },
    });
    await channels(user, { type: 'ResendEmailConfirmation', data: { channelId, at: new Date().toISOString() } });
    // No SMTP server here: each confirmation ends failed, once.
    const recorded = await deliveryEvents(user, (types) => types.filter((t) => t === 'DeliveryFailed').length === 2);
    const attempted = recorded
      .filter((e) => e.type === 'DeliveryAttempted')
      .map((e) => e.data as { deliveryId: string; kind: string });
    expect(attempted.map((a) => a.kind)).to.deep.equal(['confirm', 'confirm']);
    const stream = await events.readStream(`channels-${user}`);
    expect(attempted.map((a) => a.deliveryId)).to.have.members(stream.map((e) => deliveryIdOf(e.id, channelId)));
  });

  it('sends each delivery once when two processors share the log', async function () {
    const user = `u${randomUUID().slice(0, 8)}`;
    const second = openSqliteReadModelStore({ file: join(dir, 'second.db') });
    try {
      await start({ instance: 'one' });
      await start({ instance: 'two', store: second });
      await addWebhook(user);
      await addWebhook(user, `${receiver.url}/other`);
      for (let i = 0; i < 10; i++) await fire(user);
      await receiver.waitFor(20);
      await deliveryEvents(user, (types) => types.filter((t) => t === 'DeliverySucceeded').length === 20);
      // Both processors have read every outcome and hold nothing more to send.
      const head = await events.headPosition();
      await Promise.all(processors.map((p) => p.runner.waitFor(head)));
      expect(processors.map((p) => p.pending() + p.inFlight())).to.deep.equal([0, 0]);
      const keys = receiver.requests.map((r) => r.headers['idempotency-key']);
      expect(new Set(keys).size).to.equal(20);
      expect(keys).to.have.length(20);
    } finally {
      for (const p of processors.splice(0)) await p.stop();
      await second.close();
    }
  });
});

describe('address check', function () {
  for (const address of [
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fe80::1',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    // The same, as the URL parser writes them (`new URL('http://[::ffff:127.0.0.1]/').hostname`).
    '::ffff:7f00:1',
    '0:0:0:0:0:ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '::ffff:a00:1',
    '::7f00:1',
    '::127.0.0.1',
    '64:ff9b::7f00:1',
    '2002:7f00:1::1',
    '2001:0:7f00:1::1',
    'ff02::1',
    'not an address',
  ]) {
    it(`refuses ${address}`, function () {
      expect(isForbiddenAddress(address)).to.equal(true);
    });
  }
  for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:808:808', '::ffff:8.8.8.8']) {
    it(`accepts the public address ${address}`, function () {
      expect(isForbiddenAddress(address)).to.equal(false);
    });
  }

  describe('when a URL is added', function () {
    const allowed = parseAllowedHosts('127.0.0.1, Hooks.Internal:8443');
    for (const url of [
      'http://10.0.0.1/hook',
      'http://0x7f000002/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://[fe80::1]/hook',
      'http://localhost:8080/hook',
      'http://LOCALHOST./hook',
      'http://api.localhost/hook',
      'http://hooks.internal.localhost/hook',
    ]) {
      it(`refuses ${url}, as sending it would`, function () {
        expect(forbiddenLiteralHost(new URL(url), allowed)).to.be.a('string');
      });
    }
    for (const url of [
      'http://127.0.0.1:9999/hook',
      'https://8.8.8.8/hook',
      'https://[2606:4700:4700::1111]/hook',
      'https://hooks.example.com/hook',
      'https://hooks.internal:8443/hook',
      'https://localhost.example.com/hook',
    ]) {
      it(`leaves ${url} (allowed, public, or a host name checked when sent)`, function () {
        expect(forbiddenLiteralHost(new URL(url), allowed)).to.equal(null);
      });
    }
    it('follows the allowed hosts, as sending does', function () {
      expect(forbiddenLiteralHost(new URL('http://localhost:1/'), parseAllowedHosts('localhost'))).to.equal(null);
      expect(forbiddenLiteralHost(new URL('http://127.0.0.1/'), parseAllowedHosts(''))).to.equal(
        '127.0.0.1 is not a public address',
      );
    });
  });
});
