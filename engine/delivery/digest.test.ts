import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { alertsDecider, type AlertTriggeredData, type AlertsCommand } from '../../domain/alerts/alerts.ts';
import { channelsDecider, type ChannelsCommand } from '../../domain/channels/channels.ts';
import type { CommandMeta } from '../../domain/decider.ts';
import { deliveryIdOf } from '../../domain/deliveries/deliveries.ts';
import { handleCommand } from '../../platform/commandHandler.ts';
import type { EventStore } from '../../platform/eventstore/port.ts';
import { openSqliteEventStore } from '../../platform/eventstore/sqlite.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { openSqliteReadModelStore } from '../../platform/readmodels/sqlite.ts';
import {
  deliveryCollections,
  startDeliveryProcessor,
  type DeliveryProcessor,
  type EmailSent,
  type EmailedAlerts,
} from './processor.ts';
import { deliverySecrets } from './secrets.ts';
import { emailSender, marketTime, type Sender } from './senders.ts';
import { manualClock, type ManualClock } from './testing/clock.ts';
import { startTestSmtp, type ReceivedMail, type TestSmtp } from './testing/smtp.ts';

const secrets = deliverySecrets(Buffer.from('a test key of at least thirty-two characters'));
const ORIGIN = 'https://stocks.example.com';
const COOLDOWN_MS = 5 * 60_000;
/** When the first firing is seen: 10:02:10 in New York. */
const FIRST_FIRING = Date.parse('2026-11-30T15:02:10.000Z');

function meta(userId: string, actor: CommandMeta['actor'] = `user:${userId}`): CommandMeta {
  return { commandId: randomUUID(), userId, at: new Date().toISOString(), actor };
}

/** A mail's header, unfolded. */
function headerOf(mail: ReceivedMail, name: string): string | undefined {
  const unfolded = mail.text.replace(/\r?\n(?=[ \t])/g, '');
  return new RegExp(`^${name}: *(.*?)\r?$`, 'mi').exec(unfolded)?.[1];
}

/** A mail's subject. */
function subjectOf(mail: ReceivedMail): string {
  return headerOf(mail, 'Subject') ?? '';
}

describe('alert email digest', function () {
  this.timeout(20_000);
  let dir: string;
  let events: EventStore;
  let readModels: ReadModelStore;
  let smtp: TestSmtp;
  let clock: ManualClock;
  const processors: DeliveryProcessor[] = [];
  const closers: (() => void)[] = [];
  /** The deliveries whose last outcome is recorded, and the waits for them. */
  let finished: Set<string>;
  let waits: Set<() => void>;

  beforeEach(async function () {
    dir = mkdtempSync(join(tmpdir(), 'sp-digest-'));
    events = openSqliteEventStore({ file: join(dir, 'events.db') });
    readModels = openSqliteReadModelStore({ file: join(dir, 'readmodels.db') });
    smtp = await startTestSmtp();
    clock = manualClock(FIRST_FIRING + 1000);
    finished = new Set();
    waits = new Set();
  });
  afterEach(async function () {
    for (const processor of processors.splice(0)) await processor.stop();
    for (const close of closers.splice(0)) close();
    await smtp.close();
    await readModels.close();
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(): Promise<DeliveryProcessor> {
    const email = emailSender({ smtpUrl: smtp.url, from: 'StockPulse <alerts@example.com>' });
    closers.push(() => email.close());
    const unused: Sender = () => Promise.resolve({ ok: false, status: null, error: 'unused', retryable: false });
    const processor = await startDeliveryProcessor({
      events,
      readModels,
      senders: { webhook: unused, email, webpush: unused },
      secrets,
      publicOrigin: () => ORIGIN,
      now: clock.now,
      setTimer: clock.setTimer,
      emailCooldownMs: COOLDOWN_MS,
      lostAfterMs: 60_000,
      onOutcome: (delivery, _result, { final }) => {
        if (!final) return;
        finished.add(delivery.deliveryId);
        for (const wake of [...waits]) wake();
      },
    });
    processors.push(processor);
    await processor.caughtUp;
    return processor;
  }

  /** Resolves once each delivery has its last outcome recorded. */
  function finishedAll(deliveryIds: readonly string[]): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        if (!deliveryIds.every((id) => finished.has(id))) return;
        waits.delete(wake);
        resolve();
      };
      waits.add(wake);
      wake();
    });
  }

  /** A confirmed email address of the user; answers its channel and address. */
  async function addEmail(user: string): Promise<{ channelId: string; address: string }> {
    const channelId = randomUUID();
    const address = `${user}@example.com`;
    const at = new Date().toISOString();
    const channels = (command: ChannelsCommand) =>
      handleCommand(events, channelsDecider, `channels-${user}`, command, meta(user));
    await channels({ type: 'AddChannel', data: { channelId, spec: { type: 'email', address }, at } });
    await channels({ type: 'ConfirmEmailChannel', data: { channelId, at } });
    return { channelId, address };
  }

  /** An alert that fires every time AAPL crosses above 190. */
  async function everyTimeAlert(user: string): Promise<string> {
    const alertId = randomUUID();
    const create: AlertsCommand = {
      type: 'CreateAlert',
      data: {
        alertId,
        symbol: 'AAPL',
        condition: { source: 'price', op: 'crossing_up', value: 190 },
        frequency: 'every_time',
        at: new Date(FIRST_FIRING - 60_000).toISOString(),
      },
    };
    await handleCommand(events, alertsDecider, `alerts-${user}`, create, meta(user));
    return alertId;
  }

  /** Fires an alert as the engine does, `seconds` after the first firing; answers the trigger. */
  async function fire(
    user: string,
    alertId: string,
    firing: number,
    seconds: number,
    price: number,
  ): Promise<{ id: string; data: AlertTriggeredData }> {
    const trigger: AlertsCommand = {
      type: 'TriggerAlert',
      data: { alertId, price, changepct: 1.2, firing, at: new Date(FIRST_FIRING + seconds * 1000).toISOString() },
    };
    const outcome = await handleCommand(events, alertsDecider, `alerts-${user}`, trigger, meta(user, 'engine'));
    expect(outcome.events.map((e) => e.type)).to.deep.equal(['AlertTriggered']);
    const recorded = (await events.readStream(`alerts-${user}`)).at(-1)!;
    return { id: recorded.id, data: recorded.data as AlertTriggeredData };
  }

  /** The alert emails the address received (its confirmation aside). */
  const alertMails = (address: string): ReceivedMail[] =>
    smtp.mails.filter((m) => m.to.includes(address) && !subjectOf(m).startsWith('Confirm '));
  const carrying = (deliveryId: string) => (mail: ReceivedMail) =>
    headerOf(mail, 'X-StockPulse-Delivery') === deliveryId;
  const isDigest = (address: string) => (mail: ReceivedMail) =>
    mail.to.includes(address) && subjectOf(mail).startsWith('AAPL: alert fired');

  /** What a digest says of one firing: its message and market time. */
  const lineOf = (firing: AlertTriggeredData): string => `- ${firing.message}, ${marketTime(firing.at)}`;

  /** Each delivery's events in the log, by type. */
  async function logOf(user: string, deliveryId: string): Promise<string[]> {
    const log = await events.readStream(`deliveries-${user}`);
    return log.filter((e) => (e.data as { deliveryId: string }).deliveryId === deliveryId).map((e) => e.type);
  }

  it('e-mails the first firing at once and the ones within the cooldown as one digest after it', async function () {
    const user = `d${randomUUID().slice(0, 8)}`;
    const processor = await start();
    const { channelId, address } = await addEmail(user);
    const x = await everyTimeAlert(user);
    const y = await everyTimeAlert(user);
    const fired = [
      await fire(user, x, 1, 0, 191.5),
      await fire(user, x, 2, 20, 192.25),
      await fire(user, x, 3, 40, 193),
    ];
    const ids = fired.map((f) => deliveryIdOf(f.id, channelId));
    const first = await smtp.waitFor(carrying(ids[0]!));
    expect(subjectOf(first)).to.equal(`StockPulse: ${fired[0]!.data.message}`);
    await finishedAll([ids[0]!]);
    await processor.runner.waitFor(await events.headPosition());
    // The other two wait for the cooldown, queued.
    expect(processor.pending()).to.equal(2);

    // Another alert's firing is not held by this one's cooldown.
    const other = await fire(user, y, 1, 50, 194);
    const otherId = deliveryIdOf(other.id, channelId);
    expect(subjectOf(await smtp.waitFor(carrying(otherId)))).to.equal(`StockPulse: ${other.data.message}`);
    await finishedAll([otherId]);

    clock.advance(COOLDOWN_MS);
    const digest = await smtp.waitFor(isDigest(address));
    expect(subjectOf(digest)).to.equal('AAPL: alert fired 2 times since 10:02 ET');
    expect(headerOf(digest, 'X-StockPulse-Deliveries')).to.equal(`${ids[1]}, ${ids[2]}`);
    const second = digest.text.indexOf(lineOf(fired[1]!.data));
    const third = digest.text.indexOf(lineOf(fired[2]!.data));
    expect(second, digest.text).to.be.above(-1);
    expect(third).to.be.above(second);
    expect(digest.text).to.contain(`${ORIGIN}/api/channels/unsubscribe?`);
    expect(headerOf(digest, 'List-Unsubscribe')).to.match(
      /^<https:\/\/stocks\.example\.com\/api\/channels\/unsubscribe\?/,
    );

    await finishedAll(ids);
    await processor.runner.waitFor(await events.headPosition());
    expect(processor.pending()).to.equal(0);
    expect(alertMails(address)).to.have.length(3);
    // Each firing's delivery recorded its one attempt and its success, the digest's two included.
    for (const id of [...ids, otherId]) {
      expect(await logOf(user, id), id).to.deep.equal(['DeliveryAttempted', 'DeliverySucceeded']);
    }
  });

  it('holds the firings after a restart as the log says, and sends them as one digest', async function () {
    const user = `d${randomUUID().slice(0, 8)}`;
    const before = await start();
    const { channelId, address } = await addEmail(user);
    const x = await everyTimeAlert(user);
    const fired = [
      await fire(user, x, 1, 0, 191.5),
      await fire(user, x, 2, 20, 192.25),
      await fire(user, x, 3, 40, 193),
    ];
    const ids = fired.map((f) => deliveryIdOf(f.id, channelId));
    await smtp.waitFor(carrying(ids[0]!));
    await finishedAll([ids[0]!]);
    await before.runner.waitFor(await events.headPosition());
    expect(before.pending()).to.equal(2);
    await before.stop();
    processors.splice(processors.indexOf(before), 1);

    // Restarted within the cooldown: the held firings stay held until it ends.
    clock.advance(COOLDOWN_MS / 2);
    const after = await start();
    expect(after.pending()).to.equal(2);
    clock.advance(COOLDOWN_MS / 2);
    const digest = await smtp.waitFor(isDigest(address));
    expect(subjectOf(digest)).to.equal('AAPL: alert fired 2 times since 10:02 ET');
    expect(digest.text).to.contain(lineOf(fired[1]!.data));
    expect(digest.text).to.contain(lineOf(fired[2]!.data));
    await finishedAll(ids.slice(1));
    await after.runner.waitFor(await events.headPosition());
    expect(after.pending()).to.equal(0);
    expect(alertMails(address)).to.have.length(2);
    expect(alertMails(address).filter(isDigest(address))).to.have.length(1);
    for (const id of ids) {
      expect(await logOf(user, id), id).to.deep.equal(['DeliveryAttempted', 'DeliverySucceeded']);
    }
  });

  it("forgets an alert's cooldown when the alert is deleted, and every one of an address when it is removed", async function () {
    const user = `d${randomUUID().slice(0, 8)}`;
    const processor = await start();
    const { channelId } = await addEmail(user);
    const x = await everyTimeAlert(user);
    const y = await everyTimeAlert(user);
    const ids = [await fire(user, x, 1, 0, 191.5), await fire(user, y, 1, 10, 192)].map((f) =>
      deliveryIdOf(f.id, channelId),
    );
    await finishedAll(ids);
    const settled = async (): Promise<void> => processor.runner.waitFor(await events.headPosition());
    await settled();
    const { emailed, emailedBy } = deliveryCollections();
    const record = (alertId: string) => readModels.get<EmailSent>(emailed, `${channelId}/${alertId}`);
    const alertsOf = async () => (await readModels.get<EmailedAlerts>(emailedBy, channelId))?.alertIds;
    expect(await record(x))
      .to.have.property('at')
      .that.is.a('number');
    expect(await record(y))
      .to.have.property('at')
      .that.is.a('number');
    expect(await alertsOf()).to.have.members([x, y]);

    await handleCommand(
      events,
      alertsDecider,
      `alerts-${user}`,
      { type: 'DeleteAlert', data: { alertId: x } },
      meta(user),
    );
    await settled();
    expect(await record(x)).to.equal(undefined);
    expect(await record(y)).to.have.property('at');
    expect(await alertsOf()).to.deep.equal([y]);

    const remove: ChannelsCommand = { type: 'RemoveChannel', data: { channelId } };
    await handleCommand(events, channelsDecider, `channels-${user}`, remove, meta(user));
    await settled();
    expect(await record(y)).to.equal(undefined);
    expect(await alertsOf()).to.equal(undefined);
    expect(await readModels.list(emailed, { prefix: `${channelId}/` })).to.deep.equal([]);
  });
});
