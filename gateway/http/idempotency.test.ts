import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { grantRole } from '../auth/grant.ts';
import { useTestGateway, type TestGateway } from '../testing/harness.ts';

describe('Idempotency-Key', function () {
  let gw: TestGateway;
  useTestGateway((started) => {
    gw = started;
  });

  it('refuses the key reused with another body with 422 naming the key, and keeps the first request', async function () {
    const user = await gw.user();
    const headers = { 'Idempotency-Key': 'alert-1' };
    const first = await user.post('/personalize/stockalerts', { symbol: 'AAPL', close: 190, alerttype: 'U' }, headers);
    expect(first.status, first.text).to.equal(200);
    const other = await user.post('/personalize/stockalerts', { symbol: 'MSFT', close: 10, alerttype: 'D' }, headers);
    expect(other.status, other.text).to.equal(422);
    expect(other.body).to.include({
      error: 'idempotency_key_reused',
      message: 'Idempotency-Key: alert-1 was already used with a different request',
    });
    const alerts = (await user.get('/personalize/stockalerts')).body as { symbol: string }[];
    expect(alerts.map((a) => a.symbol)).to.deep.equal(['AAPL']);
  });

  it('refuses the key reused on another path of the same list', async function () {
    const user = await gw.user();
    const headers = { 'Idempotency-Key': 'watch-1' };
    expect((await user.post('/personalize/createwatchlist', ['NVDA'], headers)).status).to.equal(200);
    const other = await user.post('/personalize/delstkwatchlist/NVDA', undefined, headers);
    expect(other.status, other.text).to.equal(422);
    expect((await user.get('/personalize/watchlist')).body).to.deep.equal(['NVDA']);
  });

  it('replays the same request, with its object keys in another order, as before', async function () {
    const user = await gw.user();
    const headers = { 'Idempotency-Key': 'alert-2' };
    const first = await user.post('/personalize/stockalerts', { symbol: 'AAPL', close: 190, alerttype: 'U' }, headers);
    const again = await user.post('/personalize/stockalerts', { alerttype: 'U', close: 190, symbol: 'AAPL' }, headers);
    expect(again.status, again.text).to.equal(200);
    expect(again.body).to.deep.equal(first.body);
  });

  it('keeps nothing made from a password in the log, and checks the password of a retried sign-in', async function () {
    const client = gw.client();
    const username = `idem${Date.now().toString(36)}`;
    const password = 'a password of its own';
    const registered = await client.post('/api/register', { username, password }, { 'Idempotency-Key': 'reg-1' });
    expect(registered.status, registered.text).to.equal(201);
    const signIn = { 'Idempotency-Key': 'login-1' };
    expect((await client.post('/api/login', { username, password }, signIn)).status).to.equal(200);
    // The same key with a wrong password: refused, not answered as the first sign-in was.
    const wrong = await client.post('/api/login', { username, password: 'not the password' }, signIn);
    expect(wrong.status, wrong.text).to.equal(401);
    const again = await client.post('/api/login', { username, password }, signIn);
    expect(again.status, again.text).to.equal(200);
    const recorded = await gw.running.system.events.readStream(`account-${username}`);
    const hashes = recorded.map((e) => (e.metadata as { requestHash?: string }).requestHash);
    expect(hashes.filter((h) => h !== undefined)).to.have.length.greaterThan(1);
    // A fingerprint made with the password is one a guess could be checked against: none is.
    const guessable = ['POST /api/register', 'POST /api/login'].map((path) =>
      createHash('sha256')
        .update(`${path}\n${JSON.stringify({ password, username })}`)
        .digest('base64url'),
    );
    for (const hash of hashes) expect(guessable).not.to.include(hash);
    expect(JSON.stringify(recorded)).not.to.include(password);
    // Nor does a password change keep a fingerprint of either password.
    const change = { currentPassword: password, newPassword: 'another password of its own' };
    const changed = await client.post('/api/account/password', change, { 'Idempotency-Key': 'pass-1' });
    expect(changed.status, changed.text).to.equal(200);
    const last = (await gw.running.system.events.readStream(`account-${username}`)).at(-2)!;
    expect(last.type).to.equal('PasswordChanged');
    const fingerprint = (last.metadata as { requestHash?: string }).requestHash;
    const withPasswords = createHash('sha256')
      .update(`POST /api/account/password\n${JSON.stringify(change)}`)
      .digest('base64url');
    expect(fingerprint).to.be.a('string').and.not.equal(withPasswords);
  });

  it('refuses a malformed key with 400 on every state-changing route', async function () {
    // An operator may call every POST route.
    const user = await gw.user();
    await grantRole(gw.running.system.events, user.username, 'operator');
    await user.post('/api/login', { username: user.username, password: 'correct horse' });
    type Operation = { security?: Record<string, unknown>[] };
    const reference = (await user.get('/api/docs')).body as { paths: Record<string, Record<string, Operation>> };
    // The feed route takes a bearer token and ticks, not commands: it has no idempotency key.
    const posts = Object.entries(reference.paths)
      .filter(([, methods]) => methods['post'] && !methods['post'].security?.some((s) => 'feedToken' in s))
      .map(([path]) => path.replace(/\{[^}]+\}/g, 'AAPL'));
    expect(posts.length).to.be.greaterThan(20);
    for (const key of ['has spaces', 'x'.repeat(201), 'tab\there']) {
      for (const path of posts) {
        const res = await user.post(path, {}, { 'Idempotency-Key': key });
        expect(res.status, `${path}: ${res.text}`).to.equal(400);
        expect((res.body as { message: string }).message, path).to.equal(
          'Idempotency-Key: 1-200 visible ASCII characters',
        );
      }
    }
  });
});
