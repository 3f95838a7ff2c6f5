import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { grantRole } from './grant.ts';
import { useTestGateway, type TestGateway } from '../testing/harness.ts';

function name(): string {
  return `ada${randomUUID().replaceAll('-', '').slice(0, 10)}`;
}

describe('session routes', function () {
  let gw: TestGateway;
  useTestGateway((started) => {
    gw = started;
  });

  it('registers a user with 201 and the initial, and refuses the same name with 409', async function () {
    const username = name();
    const first = await gw.client().post('/api/register', { username, password: 'long enough' });
    expect(first.status).to.equal(201);
    expect(first.body).to.deep.equal({ username, initial: 'A' });
    const again = await gw.client().post('/api/register', { username, password: 'another one' });
    expect(again.status).to.equal(409);
    expect(again.body).to.deep.include({ error: 'taken', message: 'body.username: already taken' });
  });

  for (const [body, field] of [
    [{ username: 'AB', password: 'long enough' }, 'body.username'],
    [{ username: 'has space', password: 'long enough' }, 'body.username'],
    [{ username: 'fine_name', password: 'short' }, 'body.password'],
    [{ username: 'fine_name', password: 'x'.repeat(129) }, 'body.password'],
    [{ username: 'fine_name' }, 'body.password'],
    [{ username: 42, password: 'long enough' }, 'body.username'],
    [['fine_name', 'long enough'], 'body'],
  ] as const) {
    it(`refuses registration ${JSON.stringify(body).slice(0, 60)} naming ${field}`, async function () {
      const res = await gw.client().post('/api/register', body);
      expect(res.status).to.equal(400);
      expect((res.body as { message: string }).message.startsWith(`${field}`)).to.equal(true, res.text);
    });
  }

  it('signs in with cookies: sid HttpOnly SameSite=Lax, initial readable by the page', async function () {
    const username = name();
    const client = gw.client();
    await client.post('/api/register', { username, password: 'long enough' });
    const res = await client.post('/api/login', { username, password: 'long enough' });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ username, initial: 'A' });
    const cookies = res.headers.getSetCookie();
    const sid = cookies.find((c) => c.startsWith('sid='))!;
    const initial = cookies.find((c) => c.startsWith('initial='))!;
    expect(sid)
      .to.match(/httponly/i)
      .and.match(/samesite=lax/i);
    expect(initial).to.not.match(/httponly/i);
    expect(initial).to.match(/^initial=A;/);
    expect((await client.get('/api/loggedinstatus')).body).to.equal(true);
  });

  it('refuses a wrong password and an unknown user alike with 401', async function () {
    const username = name();
    await gw.client().post('/api/register', { username, password: 'long enough' });
    const wrong = await gw.client().post('/api/login', { username, password: 'not the one' });
    const unknown = await gw.client().post('/api/login', { username: name(), password: 'long enough' });
    expect([wrong.status, unknown.status]).to.deep.equal([401, 401]);
    expect((wrong.body as { message: string }).message).to.equal((unknown.body as { message: string }).message);
  });

  it('limits failed sign-ins per account with 429 and Retry-After', async function () {
    const username = name();
    await gw.client().post('/api/register', { username, password: 'long enough' });
    for (let i = 0; i < 5; i++) {
      expect((await gw.client().post('/api/login', { username, password: 'wrong guess' })).status).to.equal(401);
    }
    const limited = await gw.client().post('/api/login', { username, password: 'long enough' });
    expect(limited.status).to.equal(429);
    expect(Number(limited.headers.get('retry-after'))).to.be.greaterThan(0);
  });

  it('logs out: the session ends and the initial cookie is cleared', async function () {
    const user = await gw.user();
    const res = await user.post('/api/logout');
    expect(res.status).to.equal(200);
    expect(res.body).to.equal(true);
    expect(res.headers.getSetCookie().some((c) => /^initial=;/.test(c))).to.equal(true);
    expect(user.cookies.has('initial')).to.equal(false);
    expect((await user.get('/api/loggedinstatus')).body).to.equal(false);
  });

  it('answers the session with its roles, an auditor once signed in again after the grant, and never 401', async function () {
    const anonymous = await gw.client().get('/api/session');
    expect(anonymous.status).to.equal(200);
    expect(anonymous.body).to.deep.equal({ signedIn: false, username: null, roles: [] });
    const user = await gw.user();
    expect((await user.get('/api/session')).body).to.deep.equal({
      signedIn: true,
      username: user.username,
      roles: ['user'],
    });
    await grantRole(gw.running.system.events, user.username, 'auditor');
    expect(((await user.get('/api/session')).body as { roles: string[] }).roles).to.deep.equal(['user']);
    expect((await user.post('/api/login', { username: user.username, password: 'correct horse' })).status).to.equal(
      200,
    );
    expect((await user.get('/api/session')).body).to.deep.equal({
      signedIn: true,
      username: user.username,
      roles: ['user', 'auditor'],
    });
    expect((await user.get('/api/loggedinstatus')).body, 'the status answer is unchanged').to.equal(true);
    await user.post('/api/logout');
    expect((await user.get('/api/session')).body).to.deep.equal({ signedIn: false, username: null, roles: [] });
  });

  it('keeps a stolen token useless after logout', async function () {
    const user = await gw.user();
    const token = user.cookies.get('sid')!;
    await user.post('/api/logout');
    const thief = gw.client();
    thief.cookies.set('sid', token);
    expect((await thief.get('/personalize/watchlist')).status).to.equal(401);
  });

  it('answers 401 JSON on a personal route without a session', async function () {
    const res = await gw.client().get('/personalize/watchlist');
    expect(res.status).to.equal(401);
    expect(res.body).to.deep.include({ error: 'unauthorized' });
  });

  it('records registration, sign-in and sign-out as events of the account stream', async function () {
    const user = await gw.user();
    await user.post('/api/logout');
    const events = await gw.running.system.events.readStream(`account-${user.username}`);
    expect(events.map((e) => e.type)).to.deep.equal(['UserRegistered', 'UserSignedIn', 'UserSignedOut']);
    expect(JSON.stringify(events[0]!.data)).to.not.include('correct horse');
  });

  describe('changing the password', function () {
    async function signedIn(username: string, password: string) {
      const client = gw.client();
      const res = await client.post('/api/login', { username, password });
      expect(res.status).to.equal(200, res.text);
      return client;
    }

    it('takes the new password, refuses the old one, and ends the other sessions but this one', async function () {
      const username = name();
      await gw.client().post('/api/register', { username, password: 'long enough' });
      const here = await signedIn(username, 'long enough');
      const phone = await signedIn(username, 'long enough');
      const tablet = await signedIn(username, 'long enough');
      const res = await here.post('/api/account/password', {
        currentPassword: 'long enough',
        newPassword: 'even longer now',
      });
      expect(res.status).to.equal(200, res.text);
      expect(res.body).to.deep.equal({ endedSessions: 2 });
      expect((await here.get('/api/loggedinstatus')).body).to.equal(true);
      for (const other of [phone, tablet]) {
        expect((await other.get('/personalize/watchlist')).status).to.equal(401);
      }
      expect((await gw.client().post('/api/login', { username, password: 'long enough' })).status).to.equal(401);
      await signedIn(username, 'even longer now');
      const types = (await gw.running.system.events.readStream(`account-${username}`)).map((e) => e.type);
      expect(types.slice(-3)).to.deep.equal(['PasswordChanged', 'OtherSessionsEnded', 'UserSignedIn']);
    });

    for (const [what, body, field] of [
      [
        'a wrong current password',
        { currentPassword: 'not it at all', newPassword: 'even longer now' },
        'body.currentPassword',
      ],
      ['a short new password', { currentPassword: 'long enough', newPassword: 'short' }, 'body.newPassword'],
      ['the same password again', { currentPassword: 'long enough', newPassword: 'long enough' }, 'body.newPassword'],
      ['no current password', { newPassword: 'even longer now' }, 'body.currentPassword'],
    ] as const) {
      it(`refuses ${what} with 400 naming ${field}, changing nothing`, async function () {
        const username = name();
        await gw.client().post('/api/register', { username, password: 'long enough' });
        const here = await signedIn(username, 'long enough');
        const other = await signedIn(username, 'long enough');
        const res = await here.post('/api/account/password', body);
        expect(res.status).to.equal(400, res.text);
        expect((res.body as { message: string }).message.startsWith(field)).to.equal(true, res.text);
        expect((await other.get('/api/loggedinstatus')).body).to.equal(true);
        await signedIn(username, 'long enough');
      });
    }

    it('counts wrong current passwords as failed sign-ins, so guessing here is slowed down too', async function () {
      const username = name();
      await gw.client().post('/api/register', { username, password: 'long enough' });
      const here = await signedIn(username, 'long enough');
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        const res = await here.post('/api/account/password', {
          currentPassword: `guess ${i}`,
          newPassword: 'x'.repeat(9),
        });
        statuses.push(res.status);
      }
      expect(statuses).to.include(429);
      expect(statuses.indexOf(429)).to.be.greaterThan(0);
    });

    it('answers a retried change (same Idempotency-Key, same passwords) as the first, once', async function () {
      const username = name();
      await gw.client().post('/api/register', { username, password: 'long enough' });
      const here = await signedIn(username, 'long enough');
      await signedIn(username, 'long enough');
      const body = { currentPassword: 'long enough', newPassword: 'even longer now' };
      const key = { 'Idempotency-Key': 'change-1' };
      const first = await here.post('/api/account/password', body, key);
      expect(first.status).to.equal(200, first.text);
      expect(first.body).to.deep.equal({ endedSessions: 1 });
      // The answer was lost: the client sends the same request again, the current password having changed.
      const again = await here.post('/api/account/password', body, key);
      expect(again.status).to.equal(200, again.text);
      expect(again.body).to.deep.equal(first.body);
      const types = (await gw.running.system.events.readStream(`account-${username}`)).map((e) => e.type);
      expect(types.filter((t) => t === 'PasswordChanged')).to.have.length(1);
      expect(types.filter((t) => t === 'OtherSessionsEnded')).to.have.length(1);
      await signedIn(username, 'even longer now');
    });

    it('refuses the key of a change made with other passwords with 422, changing nothing', async function () {
      const username = name();
      await gw.client().post('/api/register', { username, password: 'long enough' });
      const here = await signedIn(username, 'long enough');
      const key = { 'Idempotency-Key': 'change-2' };
      const body = { currentPassword: 'long enough', newPassword: 'even longer now' };
      expect((await here.post('/api/account/password', body, key)).status).to.equal(200);
      // The current password is right, but the key names the change already made: not a new change.
      const other = { currentPassword: 'even longer now', newPassword: 'a third password' };
      const res = await here.post('/api/account/password', other, key);
      expect(res.status).to.equal(422, res.text);
      expect(res.body).to.deep.include({ error: 'idempotency_key_reused' });
      expect((await gw.client().post('/api/login', { username, password: 'a third password' })).status).to.equal(401);
      await signedIn(username, 'even longer now');
      // A new key changes it.
      const changed = await here.post('/api/account/password', other, { 'Idempotency-Key': 'change-3' });
      expect(changed.status).to.equal(200, changed.text);
      await signedIn(username, 'a third password');
    });

    it('asks for a session', async function () {
      const res = await gw.client().post('/api/account/password', { currentPassword: 'a', newPassword: 'b'.repeat(8) });
      expect(res.status).to.equal(401);
      expect((await gw.client().post('/api/account/sessions/end-others')).status).to.equal(401);
    });
  });
});
