import { createDecipheriv, createECDH, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { SENDS_ON_REQUEST_PER_HOUR } from '../auth/limits.ts';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { channelsDecider } from '../../domain/channels/channels.ts';
import type { AttemptAnswer, ChannelAnswer, DeliveryAnswer, WebhookPayload } from '../../domain/contract/channels.ts';
import { startReceiver, type TestReceiver } from '../../engine/delivery/testing/receiver.ts';
import { handleCommand } from '../../platform/commandHandler.ts';
import { startTestGateway, type TestGateway } from '../testing/harness.ts';
import type { AlertAnswer } from './alerts.ts';
import type { AlertTriggerAnswer } from '../../domain/contract/alerts.ts';

type User = Awaited<ReturnType<TestGateway['user']>>;

/** Waits until `read` answers something `done` accepts (each read is a real request), within 5 s. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const until = Date.now() + 5000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until) throw new Error(`still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** One email as the SMTP server took it. */
interface Mail {
  readonly to: string[];
  readonly raw: string;
}

/** The headers of a raw message, by lower-case name, each unfolded to one line. */
function headersOf(raw: string): Record<string, string> {
  const block = raw.split(/\r?\n\r?\n/, 1)[0]!.replace(/\r?\n[ \t]+/g, ' ');
  const headers: Record<string, string> = {};
  for (const line of block.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** Whether `v1` of a `StockPulse-Signature` header is the HMAC of its body under `secret`. */
function signedWith(header: unknown, body: string, secret: string): boolean {
  const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(header)) ?? [];
  return v1 !== undefined && createHmac('sha256', secret).update(`${t}.${body}`).digest('hex') === v1;
}

/** Decodes quoted-printable soft breaks and escapes, enough to read links and words in a raw message. */
function unquote(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** A browser's push subscription: a P-256 key pair and an auth secret, as `PushManager.subscribe` makes them. */
function browserKeys() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return { ecdh, auth, p256dh: ecdh.getPublicKey().toString('base64url'), authText: auth.toString('base64url') };
}

function hmac(key: Buffer, data: Buffer): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

/** Decrypts an aes128gcm Web Push message (RFC 8188 and RFC 8291) with the browser's keys. */
function decryptPush(body: Buffer, keys: ReturnType<typeof browserKeys>): string {
  const salt = body.subarray(0, 16);
  const idLength = body[20]!;
  const serverPublic = body.subarray(21, 21 + idLength);
  const ciphertext = body.subarray(21 + idLength);
  const shared = keys.ecdh.computeSecret(serverPublic);
  const keyInfo = Buffer.concat([
    Buffer.from('WebPush: info\0'),
    keys.ecdh.getPublicKey(),
    serverPublic,
    Buffer.from([1]),
  ]);
  const ikm = hmac(hmac(keys.auth, shared), keyInfo);
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, Buffer.from('Content-Encoding: aes128gcm\0\x01', 'binary')).subarray(0, 16);
  const nonce = hmac(prk, Buffer.from('Content-Encoding: nonce\0\x01', 'binary')).subarray(0, 12);
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  let end = padded.length - 1;
  while (end > 0 && padded[end] === 0) end--;
  expect(padded[end], 'the last record delimiter').to.equal(2);
  return padded.subarray(0, end).toString('utf8');
}

describe('delivery routes and channels', function () {
  this.timeout(30_000);
  let gw: TestGateway;
  let receiver: TestReceiver;
  let pushAnswer = 201;
  /** What the receiver answers on its `/gone-…` paths. */
  let goneAnswer = 410;
  const mails: Mail[] = [];
  let smtp: SMTPServer;

  before(async function () {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          mails.push({
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const smtpPort = (smtp.server.address() as AddressInfo).port;
    receiver = await startReceiver((_i, request) =>
      request.url.startsWith('/push') ? pushAnswer : request.url.startsWith('/gone-') ? goneAnswer : 200,
    );
    gw = await startTestGateway({
      env: {
        WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
        SMTP_FROM: 'StockPulse <alerts@example.com>',
        PUBLIC_ORIGIN: 'http://stocks.example.com',
      },
    });
    await gw.openDay(['AAPL']);
  });
  after(async function () {
    await gw?.close();
    await receiver?.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  async function addChannel(user: User, body: unknown): Promise<ChannelAnswer & { secret?: string }> {
    const res = await user.post('/personalize/channels', body);
    expect(res.status, res.text).to.equal(200);
    return res.body as ChannelAnswer & { secret?: string };
  }

  /** Records a webhook channel on the user's stream as the log may hold one, without the route's checks. */
  async function recordWebhook(user: User, url: string): Promise<string> {
    const channelId = randomUUID();
    const at = new Date().toISOString();
    await handleCommand(
      gw.running.system.events,
      channelsDecider,
      `channels-${user.username}`,
      { type: 'AddChannel', data: { channelId, spec: { type: 'webhook', url, name: '' }, at } },
      { commandId: randomUUID(), userId: user.username, at, actor: `user:${user.username}` },
    );
    return channelId;
  }

  /** Sends a test message through a channel, once the channel's read model has it. */
  async function testMessage(user: User, channelId: string): Promise<AttemptAnswer> {
    const res = await eventually(
      () => user.post(`/personalize/channels/${channelId}/test`),
      (r) => r.status !== 404,
    );
    expect(res.status, res.text).to.equal(200);
    return res.body as AttemptAnswer;
  }

  async function createAlert(user: User, extra: Record<string, unknown> = {}): Promise<AlertAnswer> {
    const res = await user.post('/personalize/stockalerts', { symbol: 'AAPL', close: 150, alerttype: 'U', ...extra });
    expect(res.status, res.text).to.equal(200);
    return res.body as AlertAnswer;
  }

  async function fire(alert: AlertAnswer): Promise<void> {
    await gw.pushTicks([{ symbol: alert.symbol, price: alert.threshold! + 1 }]);
    // The next alert of another test starts below the threshold again.
    await gw.pushTicks([{ symbol: alert.symbol, price: alert.threshold! - 1 }]);
  }

  function deliveries(user: User, query: string): Promise<DeliveryAnswer[]> {
    return user.getOk<DeliveryAnswer[]>(`/personalize/deliveries${query}`);
  }

  /** The mails sent to an address, once there are `count` of them. */
  function mailsTo(address: string, count: number): Promise<Mail[]> {
    return eventually(
      () => Promise.resolve(mails.filter((m) => m.to.includes(address))),
      (list) => list.length >= count,
    );
  }

  /** The fields of the confirmation link in a mail. */
  function confirmFields(mail: Mail): Record<string, string> {
    const link = /http:\/\/stocks\.example\.com\/ConfirmEmail\?([^\s"<>]+)/.exec(unquote(mail.raw));
    expect(link, mail.raw).to.not.equal(null);
    return Object.fromEntries(new URLSearchParams(link![1]!.replaceAll('&amp;', '&')));
  }

  /** Adds an email address and confirms it through the link of its confirmation. */
  async function confirmedEmail(user: User, address: string): Promise<ChannelAnswer> {
    const channel = await addChannel(user, { type: 'email', address });
    const [confirmation] = await mailsTo(address, 1);
    const confirmed = await gw.client().post('/api/channels/confirm', confirmFields(confirmation!));
    expect(confirmed.status, confirmed.text).to.equal(200);
    return channel;
  }

  /** Expects a refusal of `status` whose message is `message`. */
  function refused(res: { status: number; text: string; body: unknown }, status: number, message: string | RegExp) {
    expect(res.status, res.text).to.equal(status);
    const text = (res.body as { message: string }).message;
    if (typeof message === 'string') expect(text).to.equal(message);
    else expect(text).to.match(message);
  }

  describe('channels', function () {
    it('answers a webhook secret once and lists the channel without it', async function () {
      const user = await gw.user();
      const added = await addChannel(user, { type: 'webhook', url: `${receiver.url}/hook-a`, name: 'My desk' });
      expect(added).to.include({ type: 'webhook', name: 'My desk', url: `${receiver.url}/hook-a`, confirmed: true });
      expect(added.secret).to.match(/^whsec_[0-9a-f]{64}$/);
      const listed = await user.getOk<ChannelAnswer[]>('/personalize/channels');
      expect(listed).to.have.length(1);
      expect(listed[0]).to.not.have.property('secret');
      expect(JSON.stringify(listed)).to.not.contain(added.secret!);
      const recorded = await gw.running.system.events.readStream(`channels-${user.username}`);
      expect(JSON.stringify(recorded.map((e) => e.data))).to.not.contain(added.secret!);
    });

    it('refuses a URL on an address the senders would refuse, unless its host is allowed', async function () {
      const user = await gw.user();
      const port = new URL(receiver.url).port;
      const keys = browserKeys();
      const cases: [unknown, string, RegExp][] = [
        [{ type: 'webhook', url: 'http://10.0.0.1:8080/hook' }, 'body.url', /10\.0\.0\.1 is not a public address$/],
        [{ type: 'webhook', url: 'http://169.254.169.254/latest' }, 'body.url', /169\.254\.169\.254 is not a/],
        [{ type: 'webhook', url: 'https://[fd00:ec2::254]/' }, 'body.url', /fd00:ec2::254 is not a public/],
        // The allowed host 127.0.0.1, written another way, is another host: the senders refuse it too.
        [{ type: 'webhook', url: `http://[::ffff:127.0.0.1]:${port}/m` }, 'body.url', /::ffff:7f00:1 is not a/],
        [{ type: 'webhook', url: 'http://0x0a000001/hook' }, 'body.url', /url "http:\/\/0x0a000001\/hook" is never/],
        [{ type: 'webhook', url: `http://localhost:${port}/hook` }, 'body.url', /localhost is a loopback name/],
        [{ type: 'webhook', url: 'http://api.localhost./hook' }, 'body.url', /api\.localhost\. is a loopback name/],
        [
          {
            type: 'webpush',
            subscription: { endpoint: 'http://192.168.1.1/push', keys: { p256dh: keys.p256dh, auth: keys.authText } },
          },
          'body.subscription.endpoint',
          /192\.168\.1\.1 is not a public address$/,
        ],
        [
          {
            type: 'webpush',
            subscription: {
              endpoint: 'http://push.example.com/send/abc',
              keys: { p256dh: keys.p256dh, auth: keys.authText },
            },
          },
          'body.subscription.endpoint',
          /is never reached: a push service is reached over https$/,
        ],
      ];
      for (const [body, field, reason] of cases) {
        const res = await user.post('/personalize/channels', body);
        const message = (res.body as { message: string }).message;
        expect(res.status, `${JSON.stringify(body)}: ${res.text}`).to.equal(400);
        expect(message, JSON.stringify(body)).to.match(new RegExp(`^${field.replace(/\./g, '\\.')}: `));
        expect(message, JSON.stringify(body)).to.match(reason);
      }
      expect(await user.getOk<ChannelAnswer[]>('/personalize/channels')).to.deep.equal([]);
      // The receiver's 127.0.0.1 is allowed (`WEBHOOK_ALLOWED_HOSTS`) when added as when sent; a host name is
      // left to the check at sending.
      await addChannel(user, { type: 'webhook', url: `${receiver.url}/allowed` });
      await addChannel(user, { type: 'webhook', url: 'https://hooks.example.com/named' });
    });

    it('refuses a webhook URL the user already has, however written, with 409 naming the url', async function () {
      const user = await gw.user();
      const first = await addChannel(user, { type: 'webhook', url: `${receiver.url}/dup`, name: 'Desk' });
      const port = new URL(receiver.url).port;
      for (const url of [`${receiver.url}/dup`, `HTTP://127.0.0.1:${port}/x/../dup`]) {
        const res = await user.post('/personalize/channels', { type: 'webhook', url, name: 'Desk again' });
        expect(res.status, res.text).to.equal(409);
        expect(res.body).to.include({
          error: 'conflict',
          message: `body.url: url "${receiver.url}/dup" is already the webhook of channel "Desk"`,
        });
      }
      // Another user may post to the same URL.
      const other = await addChannel(await gw.user(), { type: 'webhook', url: `${receiver.url}/dup` });
      expect(other.id).to.not.equal(first.id);
      expect((await user.getOk<ChannelAnswer[]>('/personalize/channels')).map((c) => c.id)).to.deep.equal([first.id]);
    });

    it('refuses bad channels naming the field', async function () {
      const user = await gw.user();
      const cases: [unknown, string][] = [
        [{ type: 'fax', number: '1' }, 'body.type'],
        [{ type: 'webhook', url: 'ftp://example.com/x' }, 'body.url'],
        [{ type: 'webhook', url: 'not a url' }, 'body.url'],
        [{ type: 'webhook' }, 'body.url'],
        [{ type: 'email', address: 'nobody' }, 'body.address'],
        [
          {
            type: 'webpush',
            subscription: { endpoint: 'https://push.example.com/x', keys: { p256dh: 'short', auth: 'x' } },
          },
          'body.subscription.keys',
        ],
        [[1, 2], 'body'],
      ];
      for (const [body, field] of cases) {
        const res = await user.post('/personalize/channels', body);
        expect(res.status, `${JSON.stringify(body)}: ${res.text}`).to.equal(400);
        expect((res.body as { message: string }).message, JSON.stringify(body)).to.match(
          new RegExp(`^${field.replace(/\./g, '\\.')}`),
        );
      }
      expect(await user.getOk<ChannelAnswer[]>('/personalize/channels')).to.deep.equal([]);
    });

    it("removes a channel, and answers 404 for one that is not the caller's", async function () {
      const owner = await gw.user();
      const other = await gw.user();
      const added = await addChannel(owner, { type: 'webhook', url: `${receiver.url}/hook-b` });
      const foreign = await other.post(`/personalize/delchannel/${added.id}`);
      expect(foreign.status).to.equal(404);
      expect((foreign.body as { message: string }).message).to.equal(`params.id: no channel ${added.id}`);
      expect((await other.post(`/personalize/channels/${added.id}/test`)).status).to.equal(404);
      expect((await owner.post('/personalize/delchannel/nope')).status).to.equal(404);
      const res = await owner.post(`/personalize/delchannel/${added.id}`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.equal({ id: added.id, deleted: true });
      expect(await owner.getOk<ChannelAnswer[]>('/personalize/channels')).to.deep.equal([]);
    });

    it('needs a session', async function () {
      expect((await gw.client().get('/personalize/channels')).status).to.equal(401);
      expect((await gw.client().get('/personalize/deliveries')).status).to.equal(401);
    });
  });

  describe('webhooks', function () {
    it(`sends at most ${SENDS_ON_REQUEST_PER_HOUR} messages an hour on a user's request, then answers 429`, async function () {
      const user = await gw.user();
      const hook = await addChannel(user, { type: 'webhook', url: `${receiver.url}/tests-${user.username}` });
      for (let i = 0; i < SENDS_ON_REQUEST_PER_HOUR; i++) {
        const sent = await user.post(`/personalize/channels/${hook.id}/test`);
        expect(sent.status, sent.text).to.equal(200);
      }
      const over = await user.post(`/personalize/channels/${hook.id}/test`);
      expect(over.status).to.equal(429);
      expect(Number(over.headers.get('retry-after'))).to.be.greaterThan(0);
      expect((over.body as { message: string }).message).to.match(/at most \d+ test and confirmation messages an hour/);
      // A confirmation email is such a message too; another user has an hour of their own.
      expect((await user.post('/personalize/channels', { type: 'email', address: 'x@example.com' })).status).to.equal(
        429,
      );
      const other = await gw.user();
      const theirs = await addChannel(other, { type: 'webhook', url: `${receiver.url}/tests-${other.username}` });
      expect((await other.post(`/personalize/channels/${theirs.id}/test`)).status).to.equal(200);
    });

    it('delivers a trigger to the channels the alert names, and to all without a choice', async function () {
      const user = await gw.user();
      const first = await addChannel(user, { type: 'webhook', url: `${receiver.url}/named-${user.username}` });
      const second = await addChannel(user, { type: 'webhook', url: `${receiver.url}/all-${user.username}` });
      const named = await createAlert(user, { channels: [first.id], note: 'Trim the position' });
      const before = receiver.requests.length;
      await fire(named);
      await receiver.waitFor(before + 1);
      const delivered = await eventually(
        () => deliveries(user, `?alertId=${named.id}`),
        (list) => list.length === 1 && list[0]!.status === 'succeeded',
      );
      expect(delivered[0]).to.include({
        channelId: first.id,
        alertId: named.id,
        kind: 'alert',
        attempts: 1,
        lastStatus: 200,
      });
      const toNamed = receiver.requests.filter((r) => r.url.endsWith(user.username));
      expect(toNamed.map((r) => r.url)).to.deep.equal([`/named-${user.username}`]);
      const payload = JSON.parse(toNamed[0]!.body) as WebhookPayload;
      expect(payload).to.include({
        alertId: named.id,
        symbol: 'AAPL',
        id: delivered[0]!.id,
        note: 'Trim the position',
      });

      const unnamed = await createAlert(user, { close: 160 });
      await fire(unnamed);
      const both = await eventually(
        () => deliveries(user, `?alertId=${unnamed.id}`),
        (list) => list.length === 2 && list.every((d) => d.status === 'succeeded'),
      );
      expect(both.map((d) => d.channelId)).to.have.members([first.id, second.id]);
      expect(await deliveries(user, '?limit=1')).to.have.length(1);
      // Each delivery names its trigger, as the alert's history identifies it: the history shows where it went.
      const [trigger] = await user.getOk<AlertTriggerAnswer[]>(`/personalize/stockalerts/${unnamed.id}/history`);
      expect(trigger!.id).to.be.a('string');
      expect(both.map((d) => d.triggerId)).to.deep.equal([trigger!.id, trigger!.id]);
      expect(delivered[0]!.triggerId).to.be.a('string').and.not.equal(trigger!.id);
    });

    it('answers the channels an alert names; null on an update delivers it to every channel again', async function () {
      const user = await gw.user();
      const first = await addChannel(user, { type: 'webhook', url: `${receiver.url}/pick-${user.username}` });
      const second = await addChannel(user, { type: 'webhook', url: `${receiver.url}/rest-${user.username}` });
      const named = await createAlert(user, { channels: [first.id], close: 170 });
      expect(named.channels).to.deep.equal([first.id]);
      expect((await createAlert(user, { close: 171 })).channels).to.equal(null);
      const update = { symbol: 'AAPL', id: named.id, update: true };
      // Leaving `channels` out keeps the choice; a note alone changes the note alone.
      const kept = await user.post('/personalize/stockalerts', { ...update, note: 'Half' });
      expect(kept.status, kept.text).to.equal(200);
      expect((kept.body as AlertAnswer).channels).to.deep.equal([first.id]);
      const listed = async () =>
        (await user.getOk<AlertAnswer[]>('/personalize/stockalerts')).find((a) => a.id === named.id)!.channels;
      expect(await eventually(listed, (channels) => channels !== null)).to.deep.equal([first.id]);
      const reset = await user.post('/personalize/stockalerts', { ...update, channels: null });
      expect(reset.status, reset.text).to.equal(200);
      expect((reset.body as AlertAnswer).channels).to.equal(null);
      expect(await eventually(listed, (channels) => channels === null)).to.equal(null);
      await fire(named);
      const both = await eventually(
        () => deliveries(user, `?alertId=${named.id}`),
        (list) => list.length === 2 && list.every((d) => d.status === 'succeeded'),
      );
      expect(both.map((d) => d.channelId)).to.have.members([first.id, second.id]);
      // A named channel removed is no longer listed: the alert is delivered to the ones left.
      const again = await user.post('/personalize/stockalerts', { ...update, channels: [first.id, second.id] });
      expect((again.body as AlertAnswer).channels).to.deep.equal([first.id, second.id]);
      expect((await user.post(`/personalize/delchannel/${first.id}`)).status).to.equal(200);
      expect(await eventually(listed, (channels) => channels?.length === 1)).to.deep.equal([second.id]);
    });

    it('refuses an alert naming a channel that is not the caller’s, creating nothing', async function () {
      const user = await gw.user();
      const res = await user.post('/personalize/stockalerts', {
        symbol: 'AAPL',
        close: 150,
        alerttype: 'U',
        channels: ['0b7b1d4e-9c39-4c58-8f0e-3c8d3b3f1a11'],
      });
      expect(res.status, res.text).to.equal(400);
      expect((res.body as { message: string }).message).to.match(/^body\.channels\[0\]: /);
      const bad = await user.post('/personalize/stockalerts', {
        symbol: 'AAPL',
        close: 150,
        alerttype: 'U',
        channels: ['x'],
      });
      expect(bad.status).to.equal(400);
      expect((bad.body as { message: string }).message).to.match(/^body\.channels\[0\]: /);
      // No channel at all would deliver it nowhere.
      const none = await user.post('/personalize/stockalerts', {
        symbol: 'AAPL',
        close: 150,
        alerttype: 'U',
        channels: [],
      });
      expect(none.status).to.equal(400);
      expect((none.body as { message: string }).message).to.equal(
        'body.channels: must name at least one channel; leave it out for every channel',
      );
      expect(await user.getOk<AlertAnswer[]>('/personalize/stockalerts')).to.deep.equal([]);
    });

    it('sends a test message and answers its outcome; a receiver that is not allowed is refused', async function () {
      const user = await gw.user();
      const channel = await addChannel(user, { type: 'webhook', url: `${receiver.url}/test-${user.username}` });
      const res = await user.post(`/personalize/channels/${channel.id}/test`);
      expect(res.status, res.text).to.equal(200);
      const answer = res.body as AttemptAnswer;
      expect(answer).to.include({ ok: true, status: 200, error: null });
      const got = receiver.requests.find((r) => r.url === `/test-${user.username}`);
      expect(got?.headers['idempotency-key']).to.equal(answer.deliveryId);
      const list = await eventually(
        () => deliveries(user, ''),
        (l) => l.length === 1 && l[0]!.status === 'succeeded',
      );
      expect(list[0]).to.include({ kind: 'test', alertId: null, channelId: channel.id });

      // A channel on the log that no route checked (one added before the check at adding existed) is still
      // refused when sent: the senders check every address.
      const inside = await recordWebhook(user, 'http://10.0.0.1:8080/hook');
      const refused = await testMessage(user, inside);
      expect(refused).to.include({ ok: false, status: null });
      expect(refused.error).to.match(/10\.0\.0\.1 .*not a public address/);

      // The allowed receiver's own address, written as IPv4-mapped IPv6, is still the inside.
      const port = new URL(receiver.url).port;
      for (const [i, host] of ['[::ffff:127.0.0.1]', '[0:0:0:0:0:ffff:7f00:1]'].entries()) {
        const answer = await testMessage(user, await recordWebhook(user, `http://${host}:${port}/mapped-${i}`));
        expect(answer, host).to.include({ ok: false, status: null });
        expect(answer.error, host).to.match(/::ffff:7f00:1 .*not a public address/);
      }
      expect(receiver.requests.filter((r) => r.url.startsWith('/mapped'))).to.deep.equal([]);
    });

    it('disables a webhook whose receiver answers 410 Gone, sends it nothing more, and enables it on request', async function () {
      const user = await gw.user();
      const gone = await addChannel(user, {
        type: 'webhook',
        url: `${receiver.url}/gone-${user.username}`,
        name: 'Old',
      });
      const kept = await addChannel(user, { type: 'webhook', url: `${receiver.url}/kept-${user.username}` });
      const first = await createAlert(user, { close: 180 });
      await fire(first);
      const ended = await eventually(
        () => deliveries(user, `?alertId=${first.id}`),
        (list) => list.length === 2 && list.every((d) => d.status !== 'pending'),
      );
      // A 410 is no error to retry: the delivery ends at once, and the webhook is disabled.
      expect(ended.find((d) => d.channelId === gone.id)).to.include({ status: 'failed', lastStatus: 410, attempts: 1 });
      const listed = await eventually(
        () => user.getOk<ChannelAnswer[]>('/personalize/channels'),
        (list) => list.some((c) => c.disabled !== undefined),
      );
      expect(listed.find((c) => c.id === gone.id)!.disabled).to.include({ status: 410 });
      expect(listed.find((c) => c.id === kept.id)).to.not.have.property('disabled');
      const recorded = await gw.running.system.events.readStream(`channels-${user.username}`);
      const disabled = recorded.find((e) => e.type === 'WebhookDisabled');
      expect(disabled?.data).to.include({ channelId: gone.id, status: 410 });
      expect(disabled?.metadata.actor).to.equal('engine');

      // While disabled, an alert goes to the other webhook only.
      const second = await createAlert(user, { close: 181 });
      await fire(second);
      await eventually(
        () => deliveries(user, `?alertId=${second.id}`),
        (list) => list.some((d) => d.channelId === kept.id && d.status === 'succeeded'),
      );

      // Enabling names the channel it cannot enable.
      const other = await gw.user();
      const email = await addChannel(user, { type: 'email', address: `${user.username}@example.com` });
      const missing = randomUUID();
      refused(await user.post(`/personalize/channels/${missing}/enable`), 404, `params.id: no such channel ${missing}`);
      refused(await user.post('/personalize/channels/nope/enable'), 404, 'params.id: no such channel nope');
      refused(
        await other.post(`/personalize/channels/${gone.id}/enable`),
        404,
        `params.id: no such channel ${gone.id}`,
      );
      refused(
        await user.post(`/personalize/channels/${email.id}/enable`),
        400,
        'params.id: only a webhook is disabled, and this channel is an email address',
      );
      expect((await gw.client().post(`/personalize/channels/${gone.id}/enable`)).status).to.equal(401);

      goneAnswer = 200;
      try {
        const enabled = await user.post(`/personalize/channels/${gone.id}/enable`);
        expect(enabled.status, enabled.text).to.equal(200);
        expect(enabled.body).to.include({ id: gone.id, confirmed: true }).and.not.have.property('disabled');
        // Enabling one that is enabled changes nothing.
        expect((await user.post(`/personalize/channels/${gone.id}/enable`)).status).to.equal(200);
        const third = await createAlert(user, { close: 182 });
        await fire(third);
        const both = await eventually(
          () => deliveries(user, `?alertId=${third.id}`),
          (list) => list.length === 2 && list.every((d) => d.status === 'succeeded'),
        );
        expect(both.map((d) => d.channelId)).to.have.members([gone.id, kept.id]);
      } finally {
        goneAnswer = 410;
      }
      // The alert triggered while it was disabled was never queued to it.
      expect((await deliveries(user, `?alertId=${second.id}`)).map((d) => d.channelId)).to.deep.equal([kept.id]);
      const types = (await gw.running.system.events.readStream(`channels-${user.username}`)).map((e) => e.type);
      expect(types.filter((t) => t.startsWith('Webhook'))).to.deep.equal(['WebhookDisabled', 'WebhookEnabled']);
    });

    it('rotates a webhook secret: answered once, never in the log, and signing every delivery from then on', async function () {
      const user = await gw.user();
      const path = `/rotate-${user.username}`;
      const hook = await addChannel(user, { type: 'webhook', url: `${receiver.url}${path}` });
      const res = await user.post(`/personalize/channels/${hook.id}/secret`);
      expect(res.status, res.text).to.equal(200);
      const rotated = res.body as ChannelAnswer & { secret: string };
      expect(rotated).to.include({ id: hook.id, type: 'webhook', url: hook.url });
      expect(rotated.secret).to.match(/^whsec_[0-9a-f]{64}$/);
      expect(rotated.secret).to.not.equal(hook.secret);
      const listed = await user.getOk<ChannelAnswer[]>('/personalize/channels');
      expect(JSON.stringify(listed)).to.not.contain(rotated.secret);
      const recorded = await gw.running.system.events.readStream(`channels-${user.username}`);
      expect(JSON.stringify(recorded.map((e) => e.data))).to.not.contain(rotated.secret);
      expect(recorded.at(-1)).to.deep.include({ type: 'WebhookSecretRotated' });
      expect(recorded.at(-1)!.data).to.include({ channelId: hook.id, generation: 1 });

      // A test message and an alert, each signed with the new secret and not the old.
      expect(await testMessage(user, hook.id)).to.include({ ok: true });
      const alert = await createAlert(user, { close: 183 });
      await fire(alert);
      const received = await eventually(
        () => Promise.resolve(receiver.requests.filter((r) => r.url === path)),
        (list) => list.length === 2,
      );
      for (const request of received) {
        expect(signedWith(request.headers['stockpulse-signature'], request.body, rotated.secret)).to.equal(true);
        expect(signedWith(request.headers['stockpulse-signature'], request.body, hook.secret!)).to.equal(false);
      }
      // Another rotation, another secret.
      const again = (await user.post(`/personalize/channels/${hook.id}/secret`)).body as { secret: string };
      expect(again.secret)
        .to.match(/^whsec_/)
        .and.not.equal(rotated.secret);

      // Only a webhook has a secret; refusals name params.id.
      const other = await gw.user();
      const email = await addChannel(user, { type: 'email', address: `${user.username}@example.com` });
      const missing = randomUUID();
      refused(await user.post(`/personalize/channels/${missing}/secret`), 404, `params.id: no such channel ${missing}`);
      refused(await user.post('/personalize/channels/x%20y/secret'), 404, 'params.id: no such channel x y');
      refused(
        await other.post(`/personalize/channels/${hook.id}/secret`),
        404,
        `params.id: no such channel ${hook.id}`,
      );
      refused(
        await user.post(`/personalize/channels/${email.id}/secret`),
        400,
        'params.id: only a webhook has a signing secret, and this channel is an email address',
      );
      // A body, whatever it holds, changes nothing.
      const withBody = await user.postInput(`/personalize/channels/${hook.id}/secret`, { body: [1, { secret: 'x' }] });
      expect(withBody.status, withBody.text).to.equal(200);
      expect((await gw.client().post(`/personalize/channels/${hook.id}/secret`)).status).to.equal(401);
    });

    it('refuses bad delivery queries naming the field', async function () {
      const user = await gw.user();
      await user.getRefused('/personalize/deliveries?limit=0', 'query.limit');
      await user.getRefused('/personalize/deliveries?limit=abc', 'query.limit');
      await user.getRefused('/personalize/deliveries?limit=', 'query.limit');
      await user.getRefused('/personalize/deliveries?limit=1&limit=2', 'query.limit');
      const refusal = await user.get('/personalize/deliveries?limit=abc');
      expect((refusal.body as { message: string }).message).to.match(
        /^query\.limit: must be a whole number from 1 to \d+$/,
      );
      await user.getRefused('/personalize/deliveries?alertId=nope', 'query.alertId');
    });
  });

  describe('email', function () {
    it('sends a confirmation link first, and alerts with a text and an HTML part once confirmed', async function () {
      const user = await gw.user();
      const address = `${user.username}@example.com`;
      const channel = await addChannel(user, { type: 'email', address });
      expect(channel).to.include({ type: 'email', address, confirmed: false });
      const confirm = await eventually(
        () => Promise.resolve(mails.find((m) => m.to.includes(address))),
        (m) => m !== undefined,
      );
      const text = unquote(confirm!.raw);
      expect(text).to.match(/Subject: Confirm your StockPulse alert address/);
      const link = /http:\/\/stocks\.example\.com\/ConfirmEmail\?([^\s"<>]+)/.exec(text);
      expect(link, text).to.not.equal(null);
      const fields = Object.fromEntries(new URLSearchParams(link![1]!.replaceAll('&amp;', '&')));

      // Until confirmed: no test message, no alert.
      expect((await user.post(`/personalize/channels/${channel.id}/test`)).status).to.equal(409);
      const early = await createAlert(user, { close: 140 });
      await fire(early);

      // Opening a link (as a mail scanner does), this one or one of an older email, confirms nothing: the older
      // one is sent on to the page, where a person confirms.
      const query = new URLSearchParams(fields).toString();
      const older = await gw.client().get(`/api/channels/confirm?${query}`);
      expect(older.status, older.text).to.equal(303);
      expect(older.headers.get('location')).to.equal(`/ConfirmEmail?${query}`);
      await gw.client().get(`/ConfirmEmail?${query}`);
      expect((await user.getOk<ChannelAnswer[]>('/personalize/channels'))[0]).to.include({ confirmed: false });

      const forged = { ...fields, token: `0000${fields.token!.slice(4)}` };
      const refused = await gw.client().post('/api/channels/confirm', forged);
      expect(refused.status).to.equal(404);
      expect((refused.body as { message: string }).message).to.equal('body.token: no such confirmation link');
      const confirmed = await gw.client().post('/api/channels/confirm', fields);
      expect(confirmed.status, confirmed.text).to.equal(200);
      expect(confirmed.body).to.deep.equal({ id: channel.id, confirmed: true });
      expect((await user.getOk<ChannelAnswer[]>('/personalize/channels'))[0]).to.include({ confirmed: true });

      const alert = await createAlert(user, { close: 145, note: 'Sell <half> & hold' });
      await fire(alert);
      const mail = await eventually(
        () => Promise.resolve(mails.filter((m) => m.to.includes(address))),
        (list) => list.length === 2,
      );
      const raw = unquote(mail[1]!.raw);
      expect(raw).to.match(/Subject: StockPulse: AAPL rose above 145\.00/);
      expect(raw).to.match(/Content-Type: text\/plain/i);
      expect(raw).to.match(/Content-Type: text\/html/i);
      expect(raw).to.contain('<strong>AAPL rose above 145.00');
      // The alert's note, in the text part as written and in the HTML part escaped.
      expect(raw).to.contain('Your note: Sell <half> & hold');
      expect(raw).to.contain('<p>Your note: Sell &#60;half&#62; &#38; hold</p>');
      expect(await deliveries(user, `?alertId=${early.id}`)).to.deep.equal([]);

      // A test message, of no symbol and no price: its time alone under the message.
      expect((await user.post(`/personalize/channels/${channel.id}/test`)).status).to.equal(200);
      const withTest = await eventually(
        () => Promise.resolve(mails.filter((m) => m.to.includes(address))),
        (list) => list.length === 3,
      );
      const test = unquote(withTest[2]!.raw);
      expect(test).to.match(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} ET$/m);
      expect(test, 'no empty symbol before the time').to.not.match(/^, \d{4}-/m);
      expect(test).to.not.contain('<p>, ');
    });

    it('sends an unconfirmed address its confirmation again, with the same link, as a delivery of its own', async function () {
      const user = await gw.user();
      const address = `${user.username}@example.com`;
      const channel = await addChannel(user, { type: 'email', address });
      const [first] = await mailsTo(address, 1);
      const res = await user.post(`/personalize/channels/${channel.id}/confirm/resend`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.equal({ id: channel.id, resent: true });
      const [, second] = await mailsTo(address, 2);
      expect(unquote(second!.raw)).to.match(/Subject: Confirm your StockPulse alert address/);
      expect(confirmFields(second!)).to.deep.equal(confirmFields(first!));
      const sent = await eventually(
        () => deliveries(user, `?channelId=${channel.id}`),
        (list) => list.length === 2 && list.every((d) => d.status === 'succeeded'),
      );
      expect(sent.map((d) => d.kind)).to.deep.equal(['confirm', 'confirm']);
      expect(sent[0]!.id).to.not.equal(sent[1]!.id);
      const recorded = await gw.running.system.events.readStream(`channels-${user.username}`);
      expect(recorded.map((e) => e.type)).to.deep.equal(['ChannelAdded', 'EmailConfirmationResent']);

      // Only an unconfirmed address; refusals name params.id.
      const hook = await addChannel(user, { type: 'webhook', url: `${receiver.url}/resend-${user.username}` });
      const missing = randomUUID();
      const resend = (id: string, who: User = user) => who.post(`/personalize/channels/${id}/confirm/resend`);
      refused(await resend(missing), 404, `params.id: no such channel ${missing}`);
      refused(await resend('nope'), 404, 'params.id: no such channel nope');
      refused(await resend(channel.id, await gw.user()), 404, `params.id: no such channel ${channel.id}`);
      refused(
        await resend(hook.id),
        400,
        'params.id: only an email address is confirmed, and this channel is a webhook',
      );
      const confirmed = await gw.client().post('/api/channels/confirm', confirmFields(second!));
      expect(confirmed.status, confirmed.text).to.equal(200);
      refused(await resend(channel.id), 400, 'params.id: the address is confirmed already; nothing to send again');
      expect((await gw.client().post(`/personalize/channels/${channel.id}/confirm/resend`)).status).to.equal(401);
      // Nothing refused was sent.
      expect(mails.filter((m) => m.to.includes(address))).to.have.length(2);
    });

    it(`counts a confirmation sent again with the ${SENDS_ON_REQUEST_PER_HOUR} messages an hour, then answers 429`, async function () {
      const user = await gw.user();
      const address = `${user.username}@example.com`;
      // Adding it sent the first.
      const channel = await addChannel(user, { type: 'email', address });
      for (let i = 1; i < SENDS_ON_REQUEST_PER_HOUR; i++) {
        const res = await user.post(`/personalize/channels/${channel.id}/confirm/resend`);
        expect(res.status, res.text).to.equal(200);
      }
      const over = await user.post(`/personalize/channels/${channel.id}/confirm/resend`);
      refused(over, 429, /^at most \d+ test and confirmation messages an hour; try again in \d+ s$/);
      expect(Number(over.headers.get('retry-after'))).to.be.greaterThan(0);
      await mailsTo(address, SENDS_ON_REQUEST_PER_HOUR);
      const recorded = await gw.running.system.events.readStream(`channels-${user.username}`);
      expect(recorded.filter((e) => e.type === 'EmailConfirmationResent')).to.have.length(
        SENDS_ON_REQUEST_PER_HOUR - 1,
      );
    });

    it('counts only the addresses it sends to: not one refused, nor one that is a channel already', async function () {
      const user = await gw.user();
      const address = `${user.username}@example.com`;
      for (let i = 0; i < SENDS_ON_REQUEST_PER_HOUR; i++) {
        const res = await user.post('/personalize/channels', { type: 'email', address: `not an address ${i}` });
        expect(res.status, res.text).to.equal(400);
      }
      // Adding it sent the first; adding it again sends nothing.
      const channel = await addChannel(user, { type: 'email', address });
      for (let i = 0; i < 3; i++) expect((await addChannel(user, { type: 'email', address })).id).to.equal(channel.id);
      for (let i = 1; i < SENDS_ON_REQUEST_PER_HOUR; i++) {
        const res = await user.post(`/personalize/channels/${channel.id}/confirm/resend`);
        expect(res.status, res.text).to.equal(200);
      }
      refused(await user.post(`/personalize/channels/${channel.id}/confirm/resend`), 429, /^at most \d+ /);
      await mailsTo(address, SENDS_ON_REQUEST_PER_HOUR);
    });

    it('carries List-Unsubscribe and one-click unsubscribe on alert emails; a GET opens the page, a POST unsubscribes', async function () {
      const user = await gw.user();
      const address = `${user.username}@example.com`;
      const channel = await confirmedEmail(user, address);
      const [confirmation] = await mailsTo(address, 1);
      expect(headersOf(confirmation!.raw)).to.not.have.property('list-unsubscribe');
      const alert = await createAlert(user, { close: 186 });
      await fire(alert);
      const [, mail] = await mailsTo(address, 2);
      const headers = headersOf(mail!.raw);
      expect(headers.subject).to.match(/^StockPulse: AAPL rose above 186\.00/);
      const [, link] =
        /^<(http:\/\/stocks\.example\.com\/api\/channels\/unsubscribe\?[^>]+)>$/.exec(
          headers['list-unsubscribe'] ?? '',
        ) ?? [];
      expect(link, headers['list-unsubscribe']).to.be.a('string');
      expect(headers['list-unsubscribe-post']).to.equal('List-Unsubscribe=One-Click');
      const url = new URL(link!);
      const fields = Object.fromEntries(url.searchParams);
      expect(fields).to.include({ user: user.username, channel: channel.id });
      expect(fields.token).to.match(/^[0-9a-f]{64}$/);
      // The footers of both parts carry it too.
      const body = unquote(mail!.raw);
      expect(body).to.contain(`unsubscribe: ${link}`);
      expect(body).to.contain(`<a href="${link!.replaceAll('&', '&#38;')}">unsubscribe</a>`);
      const path = `${url.pathname}${url.search}`;
      const channelNow = async () => (await user.getOk<ChannelAnswer[]>('/personalize/channels'))[0]!;

      // Opening the link (a mail scanner does) changes nothing: it is sent on to the page.
      const opened = await gw.client().get(path);
      expect(opened.status, opened.text).to.equal(303);
      expect(opened.headers.get('location')).to.equal(`/Unsubscribe${url.search}`);
      expect(await channelNow()).to.include({ confirmed: true });

      // Refusals name the field; none is a 500.
      const oneClick = {
        raw: 'List-Unsubscribe=One-Click',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      };
      const post = (query: string, input: Parameters<User['postInput']>[1] = oneClick) =>
        gw.client().postInput(`/api/channels/unsubscribe?${query}`, input);
      const query = (change: Record<string, string>) => new URLSearchParams({ ...fields, ...change }).toString();
      refused(
        await post(query({ token: `0000${fields.token!.slice(4)}` })),
        400,
        'query.token: not the token of this unsubscribe link',
      );
      refused(await post(query({ user: 'someone-else' })), 400, 'query.token: not the token of this unsubscribe link');
      refused(await post(query({ token: 'x' })), 400, /^query\.token: must be the token of the unsubscribe link$/);
      refused(await post(query({ channel: 'x' })), 400, /^query\.channel: /);
      refused(await post(`user=${user.username}&channel=${channel.id}`), 400, /^query\.token: /);
      refused(await post(`${query({})}&user=again`), 400, /^query\.user: /);
      refused(
        await post(query({}), { raw: 'List-Unsubscribe=Later', headers: oneClick.headers }),
        400,
        'body.List-Unsubscribe: must be One-Click',
      );
      refused(await post(query({}), { raw: '', headers: oneClick.headers }), 400, /^body\.List-Unsubscribe: /);
      refused(await post(query({}), { raw: '' }), 400, /^body: /);
      refused(await post(query({}), { body: { 'List-Unsubscribe': 1 } }), 400, /^body\.List-Unsubscribe: /);
      refused(
        await post(query({}), { raw: 'x', headers: { 'content-type': 'multipart/form-data; boundary=b' } }),
        400,
        'body: not a valid form',
      );
      refused(
        await post(query({}), { raw: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'text/plain' } }),
        415,
        /^body: /,
      );
      refused(await gw.client().get(`/api/channels/unsubscribe?${query({ channel: 'x' })}`), 400, /^query\.channel: /);
      expect(await channelNow()).to.include({ confirmed: true });

      // The one-click POST, as a mail client sends it, with no session.
      const done = await post(query({}));
      expect(done.status, done.text).to.equal(200);
      expect(done.headers.get('content-type')).to.match(/^text\/plain/);
      expect(done.text).to.equal(`Unsubscribed: StockPulse sends no more alerts to ${address}.`);
      const unsubscribed = await channelNow();
      expect(unsubscribed).to.include({ id: channel.id, confirmed: false });
      expect(unsubscribed.unsubscribedAt).to.be.a('string');
      const recorded = await gw.running.system.events.readStream(`channels-${user.username}`);
      expect(recorded.at(-1)).to.deep.include({ type: 'EmailChannelUnsubscribed' });
      expect(recorded.at(-1)!.metadata.actor).to.equal(`address:${channel.id}`);
      // Again, as multipart: answered the same, nothing more recorded.
      const boundary = 'stockpulse-test';
      const multipart = [
        `--${boundary}`,
        'Content-Disposition: form-data; name="List-Unsubscribe"',
        '',
        'One-Click',
        `--${boundary}--`,
        '',
      ].join('\r\n');
      const again = await post(query({}), {
        raw: multipart,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      expect(again.status, again.text).to.equal(200);
      expect(await gw.running.system.events.readStream(`channels-${user.username}`)).to.have.length(recorded.length);

      // No alert reaches it; its user may have the confirmation sent again, and its holder confirm it again.
      const later = await createAlert(user, { close: 187 });
      await fire(later);
      const resent = await user.post(`/personalize/channels/${channel.id}/confirm/resend`);
      expect(resent.status, resent.text).to.equal(200);
      const all = await mailsTo(address, 3);
      expect(headersOf(all[2]!.raw).subject).to.equal('Confirm your StockPulse alert address');
      expect(await deliveries(user, `?alertId=${later.id}`)).to.deep.equal([]);
      expect((await gw.client().post('/api/channels/confirm', confirmFields(all[2]!))).status).to.equal(200);
      expect(await channelNow())
        .to.include({ confirmed: true })
        .and.not.have.property('unsubscribedAt');
    });
  });

  describe('Web Push', function () {
    it('encrypts the notification for the browser, and drops a subscription its push service has forgotten', async function () {
      const user = await gw.user();
      const keys = browserKeys();
      const { publicKey } = await user.getOk<{ publicKey: string }>('/personalize/channels/pushkey');
      expect(Buffer.from(publicKey, 'base64url')).to.have.length(65);
      const endpoint = `${receiver.url}/push/${user.username}`;
      const subscription = { endpoint, keys: { p256dh: keys.p256dh, auth: keys.authText } };
      const channel = await addChannel(user, { type: 'webpush', subscription });
      expect(channel).to.include({ type: 'webpush', endpoint, confirmed: true });
      // The same browser subscribing again is the same channel.
      expect((await addChannel(user, { type: 'webpush', subscription })).id).to.equal(channel.id);

      const alert = await createAlert(user, { close: 130, note: 'Check the news first' });
      await fire(alert);
      const push = await eventually(
        () => Promise.resolve(receiver.requests.find((r) => r.url === `/push/${user.username}`)),
        (r) => r !== undefined,
      );
      expect(push!.headers['content-encoding']).to.equal('aes128gcm');
      expect(String(push!.headers.authorization)).to.match(/^vapid t=[\w-]+\.[\w-]+\.[\w-]+, k=/);
      expect(String(push!.headers.authorization)).to.contain(publicKey);
      const content = JSON.parse(decryptPush(push!.raw, keys)) as { symbol: string; url: string; body: string };
      expect(content).to.include({ symbol: 'AAPL', url: '/PriceCharts?stock=AAPL' });
      expect(content.body).to.match(/^AAPL rose above 130\.00.*\nCheck the news first$/);
      // Tagged as the bell's notification, which a tab of the app tags its own system notification with.
      const [note] = await user.getOk<{ id: string }[]>('/personalize/usernotifications/ALL');
      expect(content).to.include({ tag: note!.id });

      pushAnswer = 410;
      try {
        const gone = await user.post(`/personalize/channels/${channel.id}/test`);
        expect(gone.body).to.include({ ok: false, status: 410 });
        await eventually(
          () => user.getOk<ChannelAnswer[]>('/personalize/channels'),
          (list) => list.length === 0,
        );
        const recorded = await gw.running.system.events.readStream(`channels-${user.username}`);
        expect(recorded.map((e) => e.type)).to.deep.equal(['ChannelAdded', 'PushSubscriptionRemoved']);
      } finally {
        pushAnswer = 201;
      }
    });
  });
});
