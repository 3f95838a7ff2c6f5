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
import { isForbiddenAddress, parseAllowedHosts } from './guard.ts';
import { startDeliveryProcessor, type DeliveryProcessor, type Senders } from './processor.ts';
import { deliverySecrets } from './secrets.ts';
import { emailSender, webhookSender, type Sender } from './senders.ts';
import { startReceiver, type TestReceiver } from './testing/receiver.ts';

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
  let answers: (index: number) => number | 'hang' = () => 200;

  beforeEach(async function () {
    dir = mkdtempSync(join(tmpdir(), 'sp-delivery-'));
    events = openSqliteEventStore({ file: join(dir, 'events.db') });
    readModels = openSqliteReadModelStore({ file: join(dir, 'readmodels.db') });
    answers = () => 200;
    receiver = await startReceiver((i) => answers(i));
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
        secretOf: (id) => secrets.webhookSecret(id),
        allowedHosts: parseAllowedHosts(allowed),
        timeoutMs: 500,
      }),
      email: emailSender({ smtpUrl: null, from: 'x@example.com' }),
      webpush: none,
    };
  }

  async function start(
    options: { instance?: string; allowed?: string; store?: ReadModelStore } = {},
  ): Promise<DeliveryProcessor> {
    const processor = await startDeliveryProcessor({
      events,
      readModels: options.store ?? readModels,
      senders: senders(options.allowed),
      secrets,
      // A function, as `setUpDelivery` supplies it: read at each send.
      publicOrigin: () => 'http://localhost:3000',
      retry: FAST,
      lostAfterMs: 1000,
      ...(options.instance ? { instance: options.instance } : {}),
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
});
