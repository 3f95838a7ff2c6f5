import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { PASSWORD_RESET_TTL_MS, accountDecider, type AccountCommand } from '../../domain/accounts/accounts.ts';
import { channelsDecider, type ChannelsCommand } from '../../domain/channels/channels.ts';
import type { CommandMeta } from '../../domain/decider.ts';
import { handleCommand } from '../../platform/commandHandler.ts';
import type { EventStore } from '../../platform/eventstore/port.ts';
import { openSqliteEventStore } from '../../platform/eventstore/sqlite.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { openSqliteReadModelStore } from '../../platform/readmodels/sqlite.ts';
import { parseAllowedHosts } from './guard.ts';
import {
  deliveryCollections,
  noticePayload,
  resetLinkOf,
  startDeliveryProcessor,
  type DeliveryProcessor,
  type QueuedDelivery,
} from './processor.ts';
import { deliverySecrets } from './secrets.ts';
import { emailContent, emailSender, webhookSender } from './senders.ts';
import { startReceiver, type TestReceiver } from './testing/receiver.ts';
import { startTestSmtp, type TestSmtp } from './testing/smtp.ts';

const secrets = deliverySecrets(Buffer.from('a test key of at least thirty-two characters'));
const ORIGIN = 'https://stocks.example.com';

function meta(userId: string, at = new Date().toISOString()): CommandMeta {
  return { commandId: randomUUID(), userId, at, actor: `user:${userId}` };
}

describe('password reset links', function () {
  this.timeout(20_000);

  describe('tokens', function () {
    it('derives a token per user and request, distinct from the confirmation token, checked exactly', function () {
      const request = randomUUID();
      const token = secrets.resetToken('ada', request);
      expect(token).to.match(/^[0-9a-f]{64}$/);
      expect(secrets.resetToken('ada', request.toUpperCase())).to.equal(token);
      expect(secrets.resetToken('bob', request)).to.not.equal(token);
      expect(secrets.resetToken('ada', randomUUID())).to.not.equal(token);
      // The same user and id as a channel's confirmation: another purpose, another token.
      expect(secrets.confirmToken('ada', request)).to.not.equal(token);
      expect(secrets.checkResetToken('ada', request, token)).to.equal(true);
      expect(secrets.checkResetToken('ada', request, secrets.confirmToken('ada', request))).to.equal(false);
      expect(secrets.checkResetToken('ada', request, token.slice(1))).to.equal(false);
      expect(secrets.checkResetToken('ada', request, '')).to.equal(false);
      expect(secrets.checkResetToken('bob', request, token)).to.equal(false);
      const other = deliverySecrets(Buffer.from('another deployment key, thirty-two characters'));
      expect(other.checkResetToken('ada', request, token)).to.equal(false);
    });

    it('links the reset page with the user, the request and the token', function () {
      const request = randomUUID();
      const link = new URL(resetLinkOf(`${ORIGIN}/`, secrets, 'ada', request));
      expect(`${link.origin}${link.pathname}`).to.equal(`${ORIGIN}/ResetPassword`);
      expect(Object.fromEntries(link.searchParams)).to.deep.equal({
        user: 'ada',
        request,
        token: secrets.resetToken('ada', request),
      });
    });
  });

  describe('the e-mail', function () {
    it('says what it is for, carries the link in both parts, says it expires in one hour and that nothing changes unasked', function () {
      const resetLink = `${ORIGIN}/ResetPassword?user=ada&request=r&token=t`;
      const channel = { id: 'c1', type: 'email', address: 'a@example.com' } as never;
      const payload = noticePayload('d1', 'Reset your StockPulse password', '2026-03-02T10:00:00.000Z');
      const { subject, text, html } = emailContent({ channel, payload, origin: ORIGIN, resetLink });
      expect(subject).to.equal('Reset your StockPulse password');
      expect(text).to.contain(`\n\n${resetLink}\n\n`);
      expect(html).to.contain(`<a href="${ORIGIN}/ResetPassword?user=ada&#38;request=r&#38;token=t">`);
      for (const part of [text, html]) {
        expect(part).to.contain('expires in one hour');
        expect(part).to.match(/If you did not ask for this, ignore this message: nothing changes/);
      }
    });
  });

  describe('the processor', function () {
    let dir: string;
    let events: EventStore;
    let readModels: ReadModelStore;
    let smtp: TestSmtp;
    let receiver: TestReceiver;
    let processor: DeliveryProcessor | undefined;
    /** Every final outcome, and the waits for one. */
    let finished: QueuedDelivery[];
    let waits: Set<() => void>;

    beforeEach(async function () {
      dir = mkdtempSync(join(tmpdir(), 'sp-reset-'));
      events = openSqliteEventStore({ file: join(dir, 'events.db') });
      readModels = openSqliteReadModelStore({ file: join(dir, 'readmodels.db') });
      smtp = await startTestSmtp();
      receiver = await startReceiver();
      finished = [];
      waits = new Set();
    });
    afterEach(async function () {
      await processor?.stop();
      processor = undefined;
      await smtp.close();
      await receiver.close();
      await readModels.close();
      await events.close();
      rmSync(dir, { recursive: true, force: true });
    });

    async function start(): Promise<DeliveryProcessor> {
      const email = emailSender({ smtpUrl: smtp.url, from: 'StockPulse <alerts@example.com>' });
      processor = await startDeliveryProcessor({
        events,
        readModels,
        senders: {
          webhook: webhookSender({
            secretOf: (id) => secrets.webhookSecret(id),
            allowedHosts: parseAllowedHosts('127.0.0.1'),
          }),
          email,
          webpush: () => Promise.resolve({ ok: false, status: null, error: 'unused', retryable: false }),
        },
        secrets,
        publicOrigin: () => ORIGIN,
        retry: { delaysMs: [20, 40], jitter: 0.2 },
        lostAfterMs: 1000,
        onOutcome: (delivery, _result, { final }) => {
          if (!final) return;
          finished.push(delivery);
          for (const wake of [...waits]) wake();
        },
      });
      await processor.caughtUp;
      return processor;
    }

    /** Resolves once a delivery `accept` takes has finished (its last outcome recorded in the log). */
    function finishedDelivery(accept: (delivery: QueuedDelivery) => boolean): Promise<QueuedDelivery> {
      return new Promise((resolve) => {
        const wake = (): void => {
          const found = finished.find(accept);
          if (!found) return;
          waits.delete(wake);
          resolve(found);
        };
        waits.add(wake);
        wake();
      });
    }

    const channels = (user: string, command: ChannelsCommand) =>
      handleCommand(events, channelsDecider, `channels-${user}`, command, meta(user));
    const account = (user: string, command: AccountCommand, at?: string) =>
      handleCommand(events, accountDecider, `account-${user}`, command, meta(user, at));

    /** A user with a confirmed address, an address not confirmed and a webhook; answers the two addresses. */
    async function userWithChannels(user: string): Promise<{ confirmed: string; unconfirmed: string }> {
      await account(user, { type: 'RegisterUser', data: { username: user, passwordHash: 'h' } });
      const at = new Date().toISOString();
      const confirmed = `${user}-yes@example.com`;
      const unconfirmed = `${user}-no@example.com`;
      const yes = randomUUID();
      const email = (channelId: string, address: string): ChannelsCommand => ({
        type: 'AddChannel',
        data: { channelId, spec: { type: 'email', address }, at },
      });
      await channels(user, email(yes, confirmed));
      await channels(user, email(randomUUID(), unconfirmed));
      await channels(user, {
        type: 'AddChannel',
        data: { channelId: randomUUID(), spec: { type: 'webhook', url: `${receiver.url}/hook`, name: 'desk' }, at },
      });
      await channels(user, { type: 'ConfirmEmailChannel', data: { channelId: yes, at } });
      return { confirmed, unconfirmed };
    }

    it('e-mails the link to each confirmed address only, once, and records nothing secret', async function () {
      const user = `r${randomUUID().slice(0, 8)}`;
      await start();
      const { confirmed, unconfirmed } = await userWithChannels(user);
      const requestId = randomUUID();
      await account(user, { type: 'RequestPasswordReset', data: { requestId, at: new Date().toISOString() } });
      const mail = await smtp.waitFor((m) => m.to.includes(confirmed) && /Subject: Reset your/.test(m.text));
      const token = secrets.resetToken(user, requestId);
      expect(mail.text).to.contain(`${ORIGIN}/ResetPassword?user=${user}&request=${requestId}&token=${token}`);
      expect(mail.text).to.contain('expires in one hour');
      const reset = await finishedDelivery((d) => d.userId === user && d.kind === 'reset');
      // Every confirmation is out too, so any other reset delivery would have been queued by now.
      await finishedDelivery((d) => d.userId === user && d.kind === 'confirm' && d.channelId !== reset.channelId);
      // Nothing else of the user's waits in the queue once the log's last outcome is applied.
      await processor!.runner.waitFor(await events.headPosition());
      const waiting = await readModels.list<QueuedDelivery>(deliveryCollections().queue);
      expect(waiting.filter(({ doc }) => doc.userId === user && doc.kind === 'reset')).to.deep.equal([]);
      const log = await events.readStream(`deliveries-${user}`);
      const attempts = log
        .filter((e) => e.type === 'DeliveryAttempted')
        .map((e) => e.data as { kind: string; channelType: string });
      expect(attempts.filter((a) => a.kind === 'reset').map((a) => a.channelType)).to.deep.equal(['email']);
      expect(log.some((e) => e.type === 'DeliverySucceeded')).to.equal(true);
      // The unconfirmed address got its confirmation (sent on adding it) and nothing else; the webhook nothing.
      const subjects = smtp.mails
        .filter((m) => m.to.includes(unconfirmed))
        .map((m) => /Subject: (.*)/.exec(m.text)![1]);
      expect(subjects).to.deep.equal(['Confirm your StockPulse alert address']);
      expect(receiver.requests).to.deep.equal([]);
      expect(JSON.stringify(await events.readAll())).to.not.contain(token);
    });

    it('sends nothing for a request read after its hour has passed', async function () {
      const user = `r${randomUUID().slice(0, 8)}`;
      const running = await start();
      await userWithChannels(user);
      const old = new Date(Date.now() - PASSWORD_RESET_TTL_MS - 60_000).toISOString();
      const stale = await account(
        user,
        { type: 'RequestPasswordReset', data: { requestId: randomUUID(), at: old } },
        old,
      );
      await running.runner.waitFor(stale.position!);
      const queued = async (): Promise<string[]> =>
        (await readModels.list<QueuedDelivery>(deliveryCollections().queue))
          .filter(({ doc }) => doc.userId === user && doc.kind === 'reset')
          .map(({ doc }) => doc.kind);
      expect(await queued()).to.deep.equal([]);
      expect(finished.filter((d) => d.kind === 'reset')).to.deep.equal([]);
      // A request within its hour, recorded after, is sent: the checks above could have seen one.
      const fresh = await account(user, {
        type: 'RequestPasswordReset',
        data: { requestId: randomUUID(), at: new Date().toISOString() },
      });
      await running.runner.waitFor(fresh.position!);
      const sent = await finishedDelivery((d) => d.userId === user && d.kind === 'reset');
      expect(sent.payload.at).to.not.equal(old);
    });
  });
});
