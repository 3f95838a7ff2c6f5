import { createHash, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { PASSWORD_RESET_TTL_MS, accountDecider } from '../../domain/accounts/accounts.ts';
import { startTestSmtp, type ReceivedMail, type TestSmtp } from '../../engine/delivery/testing/smtp.ts';
import { handleCommand } from '../../platform/commandHandler.ts';
import { startTestGateway, type TestClient, type TestGateway, type TestResponse } from '../testing/harness.ts';
import { RESET_ATTEMPTS_PER_ADDRESS, RESET_REQUESTS_PER_ADDRESS, RESET_REQUESTS_PER_USERNAME } from './limits.ts';

const ORIGIN = 'http://stocks.example.com';
const PASSWORD = 'correct horse';
const NEW_PASSWORD = 'a brand new password';

type User = TestClient & { readonly username: string };

/** A reset link's fields. */
interface ResetLink {
  readonly user: string;
  readonly request: string;
  readonly token: string;
}

let addresses = 0;
/** A client address of its own, as the TLS proxy in front reports it, so tests do not share the address limits. */
function from(): Record<string, string> {
  addresses += 1;
  return { 'X-Forwarded-For': `198.51.${Math.floor(addresses / 250)}.${addresses % 250}` };
}

function message(res: TestResponse): string {
  return (res.body as { message: string }).message;
}

/** The fields of the first link to `page` a mail carries. */
function linkIn(mail: ReceivedMail, page: string): Record<string, string> {
  const found = new RegExp(`${ORIGIN.replaceAll('.', '\\.')}/${page}\\?([^\\s"<>]+)`).exec(mail.text);
  expect(found, mail.text).to.not.equal(null);
  return Object.fromEntries(new URLSearchParams(found![1]!.replaceAll('&amp;', '&')));
}

describe('password reset by e-mail', function () {
  this.timeout(60_000);
  let gw: TestGateway;
  let smtp: TestSmtp;

  before(async function () {
    this.timeout(300_000);
    smtp = await startTestSmtp();
    gw = await startTestGateway({
      env: {
        TRUST_PROXY: 'true',
        SMTP_URL: smtp.url,
        SMTP_FROM: 'StockPulse <alerts@example.com>',
        PUBLIC_ORIGIN: ORIGIN,
      },
    });
  });
  after(async function () {
    await gw?.close();
    await smtp?.close();
  });

  const isReset = (address: string) => (mail: ReceivedMail) =>
    mail.to.includes(address) && /^Subject: Reset your StockPulse password$/m.test(mail.text);

  /** Adds an e-mail address to the user's channels; confirmed through its link unless told otherwise. */
  async function addEmail(user: User, confirm = true): Promise<string> {
    const address = `${user.username}@example.com`;
    const added = await user.post('/personalize/channels', { type: 'email', address });
    expect(added.status, added.text).to.equal(200);
    const mail = await smtp.waitFor((m) => m.to.includes(address) && /Subject: Confirm/.test(m.text));
    if (confirm) {
      const confirmed = await gw.client().post('/api/channels/confirm', linkIn(mail, 'ConfirmEmail'));
      expect(confirmed.status, confirmed.text).to.equal(200);
    }
    return address;
  }

  function forgot(username: unknown, headers: Record<string, string> = from()): Promise<TestResponse> {
    return gw.client().post('/api/account/password/forgot', { username }, headers);
  }

  function reset(link: ResetLink, newPassword = NEW_PASSWORD, headers = from()): Promise<TestResponse> {
    return gw.client().post('/api/account/password/reset', { ...link, newPassword }, headers);
  }

  /** Asks for a reset of the user's password and answers the link the mail to `address` carries. */
  async function requestLink(user: User, address: string): Promise<ResetLink> {
    const before = smtp.mails.filter(isReset(address)).length;
    const asked = await forgot(user.username);
    expect(asked.status, asked.text).to.equal(202);
    const mail = await smtp.waitFor(
      (m) => isReset(address)(m) && smtp.mails.filter(isReset(address)).indexOf(m) >= before,
    );
    const fields = linkIn(mail, 'ResetPassword');
    expect(Object.keys(fields)).to.deep.equal(['user', 'request', 'token']);
    return fields as unknown as ResetLink;
  }

  async function signIn(username: string, password: string): Promise<TestResponse & { client: TestClient }> {
    const client = gw.client();
    const res = await client.post('/api/login', { username, password }, from());
    return Object.assign(res, { client });
  }

  async function accountEvents(username: string): Promise<string[]> {
    return (await gw.running.system.events.readStream(`account-${username}`).catch(() => [])).map((e) => e.type);
  }

  it('answers alike whether or not the account exists or has a confirmed address, and mails only then', async function () {
    const withAddress = await gw.user('rst');
    const address = await addEmail(withAddress);
    const unconfirmedUser = await gw.user('rst');
    const unconfirmed = await addEmail(unconfirmedUser, false);
    const withoutChannel = await gw.user('rst');
    const unknown = `nobody${randomUUID().slice(0, 8)}`;

    const answers = [];
    for (const name of [unknown, withoutChannel.username, unconfirmedUser.username, withAddress.username]) {
      answers.push(await forgot(name));
    }
    for (const res of answers) {
      expect(res.status, res.text).to.equal(202);
      expect(res.body).to.deep.equal({ requested: true });
      expect(res.headers.get('content-length')).to.equal(answers[0]!.headers.get('content-length'));
    }
    // Only the account with a confirmed address has a request recorded, so only it can be sent a link.
    expect(await accountEvents(unknown)).to.deep.equal([]);
    expect(await accountEvents(withoutChannel.username)).to.not.include('PasswordResetRequested');
    expect(await accountEvents(unconfirmedUser.username)).to.not.include('PasswordResetRequested');
    expect((await accountEvents(withAddress.username)).at(-1)).to.equal('PasswordResetRequested');
    const mail = await smtp.waitFor(isReset(address));
    expect(mail.text).to.match(/expires in one hour/);
    expect(mail.text).to.match(/If you did not ask for this, ignore this message: nothing changes/);
    expect(
      smtp.mails.filter((m) => m.to.includes(unconfirmed)).map((m) => /^Subject: (.*)$/m.exec(m.text)![1]),
    ).to.deep.equal(['Confirm your StockPulse alert address']);
  });

  it('sets the new password through the link, ends every session of the user, and takes the link once', async function () {
    const user = await gw.user('rst');
    const address = await addEmail(user);
    const phone = (await signIn(user.username, PASSWORD)).client;
    const tablet = (await signIn(user.username, PASSWORD)).client;
    const link = await requestLink(user, address);
    expect(link.user).to.equal(user.username);

    const done = await gw
      .client()
      .post(
        '/api/account/password/reset',
        { ...link, newPassword: NEW_PASSWORD },
        { ...from(), 'Idempotency-Key': 'reset-1' },
      );
    expect(done.status, done.text).to.equal(200);
    expect(done.body).to.deep.equal({ endedSessions: 3 });
    for (const client of [user, phone, tablet]) {
      expect((await client.get('/personalize/watchlist')).status).to.equal(401);
    }
    expect((await signIn(user.username, PASSWORD)).status).to.equal(401);
    const signedIn = await signIn(user.username, NEW_PASSWORD);
    expect(signedIn.status, signedIn.text).to.equal(200);
    expect((await signedIn.client.get('/api/loggedinstatus')).body).to.equal(true);

    const again = await reset(link, 'yet another password');
    expect(again.status, again.text).to.equal(400);
    expect(message(again)).to.match(/^body\.request: is not a pending password reset/);
    expect((await signIn(user.username, NEW_PASSWORD)).status).to.equal(200);

    const recorded = await gw.running.system.events.readStream(`account-${user.username}`);
    expect(recorded.map((e) => e.type).slice(-5)).to.deep.equal([
      'PasswordResetRequested',
      'PasswordReset',
      'OtherSessionsEnded',
      'UserSignedIn',
      'UserSignedIn',
    ]);
    // Neither the token nor the password is in the log, nor in the fingerprint of the request.
    const text = JSON.stringify(await gw.running.system.events.readAll());
    expect(text).to.not.contain(link.token);
    expect(text).to.not.contain(NEW_PASSWORD);
    const fingerprint = (recorded.find((e) => e.type === 'PasswordReset')!.metadata as { requestHash?: string })
      .requestHash;
    const withSecrets = createHash('sha256')
      .update(`POST /api/account/password/reset\n${JSON.stringify({ ...link, newPassword: NEW_PASSWORD })}`)
      .digest('base64url');
    expect(fingerprint).to.be.a('string').and.not.equal(withSecrets);
  });

  it('refuses a wrong token naming body.token, changing nothing', async function () {
    const user = await gw.user('rst');
    const link = await requestLink(user, await addEmail(user));
    const wrong = [
      { ...link, token: `${link.token.startsWith('0') ? '1' : '0'}${link.token.slice(1)}` },
      { ...link, token: link.token.slice(0, -1) },
      { ...link, token: gw.running.system.appDeps.delivery!.secrets.confirmToken(link.user, link.request) },
      { ...link, user: `${link.user}x` },
    ];
    for (const forged of wrong) {
      const res = await reset(forged);
      expect(res.status, res.text).to.equal(400);
      expect(message(res)).to.equal('body.token: is not the token of this reset link');
    }
    expect((await user.get('/api/loggedinstatus')).body).to.equal(true);
    expect((await reset(link)).status).to.equal(200);
  });

  it('refuses a request older than one hour, and one a newer request replaced, naming body.request', async function () {
    const user = await gw.user('rst');
    const address = await addEmail(user);
    // A request made an hour and a minute ago: its time is the command's, the domain's only clock.
    const requestId = randomUUID();
    const at = new Date(Date.now() - PASSWORD_RESET_TTL_MS - 60_000).toISOString();
    await handleCommand(
      gw.running.system.events,
      accountDecider,
      `account-${user.username}`,
      { type: 'RequestPasswordReset', data: { requestId, at } },
      { commandId: randomUUID(), userId: user.username, at, actor: `user:${user.username}` },
    );
    const token = gw.running.system.appDeps.delivery!.secrets.resetToken(user.username, requestId);
    const expired = await reset({ user: user.username, request: requestId, token });
    expect(expired.status, expired.text).to.equal(400);
    expect(message(expired)).to.equal('body.request: has expired (a reset link works for one hour)');

    const first = await requestLink(user, address);
    const second = await requestLink(user, address);
    expect(second.request).to.not.equal(first.request);
    const replaced = await reset(first);
    expect(replaced.status, replaced.text).to.equal(400);
    expect(message(replaced)).to.match(/^body\.request: is not a pending password reset/);
    expect((await reset(second)).status).to.equal(200);
  });

  it('refuses a link once the password was changed since it was asked for', async function () {
    const user = await gw.user('rst');
    const link = await requestLink(user, await addEmail(user));
    const changed = await user.post('/api/account/password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(changed.status, changed.text).to.equal(200);
    const res = await reset(link, 'yet another password');
    expect(res.status, res.text).to.equal(400);
    expect(message(res)).to.match(/^body\.request: /);
    expect((await signIn(user.username, NEW_PASSWORD)).status).to.equal(200);
  });

  it('refuses a new password outside the rules of registration, naming body.newPassword', async function () {
    const user = await gw.user('rst');
    const link = await requestLink(user, await addEmail(user));
    for (const newPassword of ['short', 'x'.repeat(129)]) {
      const res = await reset(link, newPassword);
      expect(res.status, res.text).to.equal(400);
      expect(message(res)).to.match(/^body\.newPassword: /);
    }
    expect((await reset(link)).status).to.equal(200);
  });

  describe('limits', function () {
    it(`takes ${RESET_REQUESTS_PER_USERNAME} requests per user name an hour, known or not, then 429`, async function () {
      for (const username of [`nobody${randomUUID().slice(0, 8)}`, (await gw.user('rst')).username]) {
        for (let i = 0; i < RESET_REQUESTS_PER_USERNAME; i++) expect((await forgot(username)).status).to.equal(202);
        const limited = await forgot(username);
        expect(limited.status, limited.text).to.equal(429);
        expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 3600);
        expect(message(limited)).to.match(/^too many password reset requests; try again in \d+ s$/);
      }
    });

    it(`takes ${RESET_REQUESTS_PER_ADDRESS} requests per address an hour, whatever the names, then 429`, async function () {
      const address = from();
      for (let i = 0; i < RESET_REQUESTS_PER_ADDRESS; i++) {
        expect((await forgot(`nobody${randomUUID().slice(0, 8)}`, address)).status).to.equal(202);
      }
      const limited = await forgot(`nobody${randomUUID().slice(0, 8)}`, address);
      expect(limited.status, limited.text).to.equal(429);
      expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 3600);
      // Another address is not held back.
      expect((await forgot(`nobody${randomUUID().slice(0, 8)}`)).status).to.equal(202);
    });

    it(`takes ${RESET_ATTEMPTS_PER_ADDRESS} attempts at a link per address an hour, wrong tokens counted, then 429`, async function () {
      const user = await gw.user('rst');
      const link = await requestLink(user, await addEmail(user));
      const address = from();
      for (let i = 0; i < RESET_ATTEMPTS_PER_ADDRESS; i++) {
        const res = await reset({ ...link, token: randomUUID().replaceAll('-', '').repeat(2) }, NEW_PASSWORD, address);
        expect(res.status).to.equal(400);
      }
      const limited = await reset(link, NEW_PASSWORD, address);
      expect(limited.status, limited.text).to.equal(429);
      expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 3600);
      expect(message(limited)).to.match(/^too many password reset attempts; try again in \d+ s$/);
      // The right link from elsewhere still works.
      expect((await reset(link)).status).to.equal(200);
    });
  });

  describe('requests of any shape', function () {
    const link = {
      user: 'ada',
      request: '6f1c2e0a-8d4b-4c1e-9a7f-0b1d2c3e4f51',
      token: 'f'.repeat(64),
      newPassword: NEW_PASSWORD,
    };
    const FORGOT = '/api/account/password/forgot';
    const RESET = '/api/account/password/reset';
    const cases: [string, string, { raw?: string; body?: unknown }, string][] = [
      ['forgot without a user name', FORGOT, { body: {} }, 'body.username'],
      ['forgot with an empty user name', FORGOT, { body: { username: '' } }, 'body.username'],
      ['forgot with a number for the name', FORGOT, { body: { username: 42 } }, 'body.username'],
      ['forgot with a list for the name', FORGOT, { body: { username: ['ada'] } }, 'body.username'],
      ['forgot with a name too long', FORGOT, { body: { username: 'x'.repeat(65) } }, 'body.username'],
      ['forgot with a list for a body', FORGOT, { body: ['ada'] }, 'body'],
      ['forgot with null for a body', FORGOT, { body: null }, 'body'],
      ['forgot with broken JSON', FORGOT, { raw: '{"username":' }, 'body'],
      ['reset with an empty body', RESET, { body: {} }, 'body.user'],
      ['reset without the user', RESET, { body: { ...link, user: undefined } }, 'body.user'],
      ['reset with a number for the user', RESET, { body: { ...link, user: 7 } }, 'body.user'],
      ['reset without the request', RESET, { body: { ...link, request: undefined } }, 'body.request'],
      ['reset with a request that is no id', RESET, { body: { ...link, request: 'not-an-id' } }, 'body.request'],
      ['reset with a number for the request', RESET, { body: { ...link, request: 12 } }, 'body.request'],
      ['reset without the token', RESET, { body: { ...link, token: undefined } }, 'body.token'],
      ['reset with an object for the token', RESET, { body: { ...link, token: { a: 1 } } }, 'body.token'],
      ['reset with a token too long', RESET, { body: { ...link, token: 't'.repeat(129) } }, 'body.token'],
      ['reset without the new password', RESET, { body: { ...link, newPassword: undefined } }, 'body.newPassword'],
      ['reset with a number for the password', RESET, { body: { ...link, newPassword: 12345678 } }, 'body.newPassword'],
      ['reset with a text for a body', RESET, { body: 'ada' }, 'body'],
      ['reset with a body that is no JSON', RESET, { raw: 'not json' }, 'body'],
      ['reset with a well-formed link the server never made', RESET, { body: link }, 'body.token'],
    ];
    for (const [what, path, input, field] of cases) {
      it(`refuses ${what} with 400 naming ${field}`, async function () {
        const res = await gw.client().postInput(path, { ...input, headers: from() });
        expect(res.status, res.text).to.equal(400);
        expect(message(res).startsWith(`${field}: `), res.text).to.equal(true);
      });
    }

    it('answers a valid token of an account that does not exist with 404 naming body.user, never 500', async function () {
      const user = `nobody${randomUUID().slice(0, 8)}`;
      const request = randomUUID();
      const token = gw.running.system.appDeps.delivery!.secrets.resetToken(user, request);
      const res = await reset({ user, request, token });
      expect(res.status, res.text).to.equal(404);
      expect(message(res)).to.match(/^body\.user: /);
    });
  });
});
