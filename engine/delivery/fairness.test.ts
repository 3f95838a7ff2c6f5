import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { alertsDecider, type AlertsCommand } from '../../domain/alerts/alerts.ts';
import { channelsDecider, type ChannelsCommand } from '../../domain/channels/channels.ts';
import type { CommandMeta } from '../../domain/decider.ts';
import { deliveryIdOf } from '../../domain/deliveries/deliveries.ts';
import { handleCommand } from '../../platform/commandHandler.ts';
import type { EventStore } from '../../platform/eventstore/port.ts';
import { openSqliteEventStore } from '../../platform/eventstore/sqlite.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { openSqliteReadModelStore } from '../../platform/readmodels/sqlite.ts';
import { parseAllowedHosts } from './guard.ts';
import { startDeliveryProcessor, type DeliveryProcessor, type QueuedDelivery } from './processor.ts';
import { deliverySecrets } from './secrets.ts';
import { webhookSender } from './senders.ts';
import { startReceiver, type TestReceiver } from './testing/receiver.ts';

const secrets = deliverySecrets(Buffer.from('a test key of at least thirty-two characters'));

function meta(userId: string, actor: CommandMeta['actor'] = `user:${userId}`): CommandMeta {
  return { commandId: randomUUID(), userId, at: new Date().toISOString(), actor };
}

describe('delivery fairness', function () {
  this.timeout(30_000);
  let dir: string;
  let events: EventStore;
  let readModels: ReadModelStore;
  const receivers: TestReceiver[] = [];
  let processor: DeliveryProcessor | undefined;
  /** Every delivery that succeeded, and the waits for them. */
  let succeeded: QueuedDelivery[];
  let waits: Set<() => void>;
  /** Lets a held receiver answer (also when a test ends early, so the processor can stop). */
  let release: () => void;

  beforeEach(function () {
    dir = mkdtempSync(join(tmpdir(), 'sp-fairness-'));
    events = openSqliteEventStore({ file: join(dir, 'events.db') });
    readModels = openSqliteReadModelStore({ file: join(dir, 'readmodels.db') });
    succeeded = [];
    waits = new Set();
    release = () => undefined;
  });
  afterEach(async function () {
    release();
    await processor?.stop();
    processor = undefined;
    for (const receiver of receivers.splice(0)) await receiver.close();
    await readModels.close();
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Resolves once `count` deliveries that `accept` takes have succeeded. */
  function succeededWith(accept: (delivery: QueuedDelivery) => boolean, count: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        if (succeeded.filter(accept).length < count) return;
        waits.delete(wake);
        resolve();
      };
      waits.add(wake);
      wake();
    });
  }

  async function addWebhook(userId: string, url: string): Promise<string> {
    const channelId = randomUUID();
    const command: ChannelsCommand = {
      type: 'AddChannel',
      data: { channelId, spec: { type: 'webhook', url, name: 'desk' }, at: new Date().toISOString() },
    };
    await handleCommand(events, channelsDecider, `channels-${userId}`, command, meta(userId));
    return channelId;
  }

  /** Creates an alert and fires it as the engine does; answers the trigger's event id. */
  async function fire(userId: string): Promise<string> {
    const alertId = randomUUID();
    const at = new Date().toISOString();
    const create: AlertsCommand = {
      type: 'CreateAlert',
      data: { alertId, symbol: 'AAPL', kind: 'PRICE', alerttype: 'U', threshold: 190, period: null, at },
    };
    await handleCommand(events, alertsDecider, `alerts-${userId}`, create, meta(userId));
    const trigger: AlertsCommand = { type: 'TriggerAlert', data: { alertId, price: 191.5, changepct: 1.2, at } };
    await handleCommand(events, alertsDecider, `alerts-${userId}`, trigger, meta(userId, 'engine'));
    return (await events.readStream(`alerts-${userId}`)).at(-1)!.id;
  }

  it("sends a user's delivery while another's slow webhook holds its channel's attempts, then each held one once", async function () {
    const held = new Promise<void>((resolve) => (release = resolve));
    // A's receiver answers nothing until the test releases it; B's answers at once.
    const slow = await startReceiver(() => ({ status: 200, until: held }));
    const fast = await startReceiver(() => 200);
    receivers.push(slow, fast);
    processor = await startDeliveryProcessor({
      events,
      readModels,
      senders: {
        // A timeout longer than the hold: each of A's attempts is one request, answered when released.
        webhook: webhookSender({
          secretOf: (id, generation) => secrets.webhookSecret(id, generation),
          allowedHosts: parseAllowedHosts('127.0.0.1'),
          timeoutMs: 60_000,
        }),
        email: () => Promise.resolve({ ok: false, status: null, error: 'unused', retryable: false }),
        webpush: () => Promise.resolve({ ok: false, status: null, error: 'unused', retryable: false }),
      },
      secrets,
      publicOrigin: () => 'http://localhost:3000',
      lostAfterMs: 120_000,
      // Fewer slots than A has deliveries: without a cap per channel, A's would take them all.
      concurrency: 8,
      perChannel: 4,
      onOutcome: (delivery, result) => {
        if (!result.ok) return;
        succeeded.push(delivery);
        for (const wake of [...waits]) wake();
      },
    });
    await processor.caughtUp;
    const a = `a${randomUUID().slice(0, 8)}`;
    const b = `b${randomUUID().slice(0, 8)}`;
    const aChannel = await addWebhook(a, `${slow.url}/a`);
    const bChannel = await addWebhook(b, `${fast.url}/b`);
    const aTriggers: string[] = [];
    for (let i = 0; i < 50; i++) aTriggers.push(await fire(a));
    await processor.runner.waitFor(await events.headPosition());
    await slow.waitFor(4);
    expect(processor.inFlight()).to.equal(4);
    expect(processor.waiting()).to.equal(46);

    const bTrigger = await fire(b);
    const [request] = await fast.waitFor(1);
    expect(request!.headers['idempotency-key']).to.equal(deliveryIdOf(bTrigger, bChannel));
    await succeededWith((d) => d.userId === b, 1);
    // A's attempts are still held open, no more of them sent.
    expect(slow.requests).to.have.length(4);
    expect(succeeded.filter((d) => d.userId === a)).to.deep.equal([]);

    release();
    await succeededWith((d) => d.userId === a, 50);
    const keys = slow.requests.map((r) => r.headers['idempotency-key']);
    expect(keys).to.have.length(50);
    expect(new Set(keys).size).to.equal(50);
    const log = await events.readStream(`deliveries-${a}`);
    const attempts = log.filter((e) => e.type === 'DeliveryAttempted').map((e) => e.data as { attempt: number });
    expect(attempts).to.have.length(50);
    expect(attempts.every((attempt) => attempt.attempt === 1)).to.equal(true);
    expect(log.filter((e) => e.type === 'DeliverySucceeded')).to.have.length(50);
    expect(new Set(keys)).to.deep.equal(new Set(aTriggers.map((trigger) => deliveryIdOf(trigger, aChannel))));
    await processor.runner.waitFor(await events.headPosition());
    expect([processor.pending(), processor.inFlight(), processor.waiting()]).to.deep.equal([0, 0, 0]);
  });
});
