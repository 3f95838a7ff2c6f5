import { expect } from 'chai';
import { SECURITY_HEADERS } from '../app.ts';
import { startTestGateway, useTestGateway, type TestGateway } from '../testing/harness.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('watch list routes', function () {
  let gw: TestGateway;
  useTestGateway((started) => {
    gw = started;
  });

  const eventCount = (username: string) => gw.eventCount(`watchlist-${username}`);

  it('merges added symbols without duplicates and answers the whole list', async function () {
    const user = await gw.user();
    expect((await user.post('/personalize/createwatchlist', ['NVDA', 'aapl'])).body).to.deep.equal(['NVDA', 'AAPL']);
    const res = await user.post('/personalize/createwatchlist', { symbols: ['AAPL', 'MSFT', 'MSFT'] });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(['NVDA', 'AAPL', 'MSFT']);
  });

  it('reads the list back right after a change, with the position it reflects', async function () {
    const user = await gw.user();
    await user.post('/personalize/createwatchlist', ['NVDA', 'AAPL']);
    const res = await user.get('/personalize/watchlist');
    expect(res.body).to.deep.equal(['NVDA', 'AAPL']);
    expect(res.headers.get('x-read-model-position')).to.match(/^\d+\/\d+$/);
  });

  it('answers a repeated read with the same bytes and headers, and forgets the kept answer on a change', async function () {
    const user = await gw.user();
    await user.post('/personalize/createwatchlist', ['NVDA', 'AAPL']);
    const derived = await user.get('/personalize/watchlist');
    const kept = await user.get('/personalize/watchlist');
    expect(kept.text).to.equal(derived.text);
    expect(kept.text).to.equal(JSON.stringify(['NVDA', 'AAPL']));
    for (const header of ['content-type', 'content-length', 'x-read-model-position']) {
      expect(kept.headers.get(header), header).to.equal(derived.headers.get(header));
    }
    expect(kept.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    await user.post('/personalize/delstkwatchlist/NVDA');
    const changed = await user.get('/personalize/watchlist');
    expect(changed.text).to.equal(JSON.stringify(['AAPL']));
    expect(changed.headers.get('x-read-model-position')).to.not.equal(kept.headers.get('x-read-model-position'));
  });

  it('answers a kept read with every security header and a request id of its own, and counts it in /metrics', async function () {
    const user = await gw.user();
    await user.post('/personalize/createwatchlist', ['NVDA']);
    const counted = async (): Promise<number> => {
      const metrics = await gw.client().get('/metrics');
      const count =
        /^http_request_duration_seconds_count\{method="GET",route="\/personalize\/watchlist",status="200"\} (\d+)$/m;
      return Number(count.exec(metrics.text)?.[1] ?? 0);
    };
    const before = await counted();
    const derived = await user.get('/personalize/watchlist');
    const kept = await user.get('/personalize/watchlist');
    for (const res of [derived, kept]) {
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(res.headers.get(name), name).to.equal(value);
      expect(res.headers.get('x-request-id')).to.match(UUID);
    }
    expect(kept.headers.get('x-request-id')).to.not.equal(derived.headers.get('x-request-id'));
    expect(await counted()).to.equal(before + 2);
  });

  it('answers an empty list to a new user', async function () {
    const user = await gw.user();
    expect((await user.get('/personalize/watchlist')).body).to.deep.equal([]);
  });

  it('removes a symbol and answers the list after removal', async function () {
    const user = await gw.user();
    await user.post('/personalize/createwatchlist', ['NVDA', 'AAPL']);
    expect((await user.post('/personalize/delstkwatchlist/nvda')).body).to.deep.equal(['AAPL']);
    expect((await user.get('/personalize/watchlist')).body).to.deep.equal(['AAPL']);
  });

  it('never shows one user the list of another', async function () {
    const ada = await gw.user('ada');
    const bob = await gw.user('bob');
    await ada.post('/personalize/createwatchlist', ['NVDA']);
    await bob.post('/personalize/createwatchlist', ['XOM']);
    expect((await ada.get('/personalize/watchlist')).body).to.deep.equal(['NVDA']);
    expect((await bob.get('/personalize/watchlist')).body).to.deep.equal(['XOM']);
  });

  it('appends nothing for a retried POST with the same Idempotency-Key and answers the same', async function () {
    const user = await gw.user();
    const headers = { 'Idempotency-Key': 'add-nvda-1' };
    const first = await user.post('/personalize/createwatchlist', ['NVDA'], headers);
    await user.post('/personalize/createwatchlist', ['AAPL']);
    const retried = await user.post('/personalize/createwatchlist', ['NVDA'], headers);
    expect(retried.status).to.equal(200);
    expect(retried.body).to.deep.equal(first.body);
    expect(await eventCount(user.username)).to.equal(2);
  });

  const badInputs: [string, { raw?: string; body?: unknown; headers?: Record<string, string> }, number, string][] = [
    ['an empty list', { body: [] }, 400, 'body'],
    ['a number instead of symbols', { body: 42 }, 400, 'body'],
    ['a symbol of the wrong type', { body: ['NVDA', 7] }, 400, 'body[1]'],
    ['a symbol breaking the rule', { body: ['NVDA', 'BAD SYMBOL!'] }, 400, 'body[1]'],
    ['a symbol outside the universe', { body: ['NVDA', 'ZZZZZZ'] }, 400, 'body[1]'],
    ['an object without symbols', { body: { tickers: ['NVDA'] } }, 400, 'body'],
    ['more than 200 symbols', { body: Array.from({ length: 201 }, () => 'NVDA') }, 400, 'body'],
    ['invalid JSON', { raw: '["NVDA"', headers: { 'content-type': 'application/json' } }, 400, 'body'],
    ['a body that is not JSON', { raw: 'NVDA', headers: { 'content-type': 'text/plain' } }, 415, 'body'],
    [
      'a compressed body',
      { raw: '["NVDA"]', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } },
      415,
      'headers.content-encoding',
    ],
    ['a huge body', { body: ['NVDA'], raw: JSON.stringify(['x'.repeat(70_000)]) }, 413, 'body'],
  ];
  for (const [what, input, status, field] of badInputs) {
    it(`refuses ${what} with ${status} naming ${field}, appending nothing`, async function () {
      const user = await gw.user();
      const res = await user.postInput('/personalize/createwatchlist', input);
      expect(res.status).to.equal(status, res.text);
      const message = (res.body as { message: string }).message;
      expect(message.startsWith(`${field}:`) || message.startsWith(`${field}`)).to.equal(true, message);
      expect(await eventCount(user.username)).to.equal(0);
    });
  }

  it('refuses a removal with a bad symbol naming params.symbol', async function () {
    const user = await gw.user();
    const res = await user.post('/personalize/delstkwatchlist/BAD%20ONE');
    expect(res.status).to.equal(400);
    expect((res.body as { message: string }).message).to.match(/^params\.symbol:/);
  });

  it('refuses a change from another origin with 403', async function () {
    const user = await gw.user();
    const res = await user.post('/personalize/createwatchlist', ['NVDA'], { Origin: 'https://evil.example' });
    expect(res.status).to.equal(403);
    expect(await eventCount(user.username)).to.equal(0);
  });

  it('accepts a change from its own origin', async function () {
    const user = await gw.user();
    const res = await user.post('/personalize/createwatchlist', ['NVDA'], { Origin: gw.url });
    expect(res.status).to.equal(200);
  });

  it('refuses every watch list route without a session', async function () {
    const anonymous = gw.client();
    expect((await anonymous.get('/personalize/watchlist')).status).to.equal(401);
    expect((await anonymous.post('/personalize/createwatchlist', ['NVDA'])).status).to.equal(401);
    expect((await anonymous.post('/personalize/delstkwatchlist/NVDA')).status).to.equal(401);
  });

  it('keeps the list and the session across a restart', async function () {
    const gw2 = await startTestGateway();
    const user = await gw2.user();
    await user.post('/personalize/createwatchlist', ['NVDA', 'AAPL']);
    const dataDir = gw2.dataDir;
    await gw2.close({ keepData: true });
    const restarted = await startTestGateway({ dataDir });
    const again = restarted.client();
    for (const [k, v] of user.cookies) again.cookies.set(k, v);
    expect((await again.get('/personalize/watchlist')).body).to.deep.equal(['NVDA', 'AAPL']);
    await restarted.close();
  });
});
