import { expect } from 'chai';
import { startTestGateway, useTestGateway, type TestGateway } from '../testing/harness.ts';

const DEFAULTS = [
  { type: 'revenue', limit: 0, period: 'A' },
  { type: 'grossprofit', limit: 0, period: 'A' },
  { type: 'income', limit: 0, period: 'A' },
  { type: 'earningspershare', limit: 0, period: 'A' },
];

describe('company stats routes', function () {
  let gw: TestGateway;
  useTestGateway((started) => {
    gw = started;
  });

  async function events(username: string): Promise<{ type: string; data: unknown }[]> {
    const recorded = await gw.running.system.events.readStream(`companystats-${username}`).catch(() => []);
    return recorded.map(({ type, data }) => ({ type, data }));
  }

  it('answers the defaults to a new user and stores them', async function () {
    const user = await gw.user();
    const res = await user.get('/personalize/companystats');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(DEFAULTS);
    expect(res.headers.get('x-read-model-position')).to.match(/^\d+\/\d+$/);
    expect(await events(user.username)).to.deep.equal(DEFAULTS.map((data) => ({ type: 'CompanyStatAdded', data })));
    expect((await user.get('/personalize/companystats')).body).to.deep.equal(DEFAULTS);
    expect(await events(user.username)).to.have.length(4);
  });

  it('stores the defaults once when many first reads arrive together', async function () {
    const user = await gw.user();
    const answers = await Promise.all(Array.from({ length: 6 }, () => user.get('/personalize/companystats')));
    for (const res of answers) expect(res.body).to.deep.equal(DEFAULTS);
    expect(await events(user.username)).to.have.length(4);
  });

  it('saves a list as additions, removals and modifications, and reads it back', async function () {
    const user = await gw.user();
    await user.get('/personalize/companystats');
    const list = [
      { type: 'revenue', limit: 8, period: 'Q' },
      { type: 'income', limit: 0, period: 'A' },
    ];
    const res = await user.post('/personalize/companystats', list);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(list);
    expect((await user.get('/personalize/companystats')).body).to.deep.equal(list);
    expect((await events(user.username)).slice(4)).to.deep.equal([
      { type: 'CompanyStatRemoved', data: { type: 'grossprofit' } },
      { type: 'CompanyStatRemoved', data: { type: 'earningspershare' } },
      { type: 'CompanyStatModified', data: { type: 'revenue', limit: 8, period: 'Q' } },
    ]);
    const again = await user.post('/personalize/companystats', [
      ...list,
      { type: 'grossprofit', limit: 40, period: 'A' },
    ]);
    expect(again.body).to.deep.equal([...list, { type: 'grossprofit', limit: 40, period: 'A' }]);
    expect((await events(user.username)).at(-1)).to.deep.equal({
      type: 'CompanyStatAdded',
      data: { type: 'grossprofit', limit: 40, period: 'A' },
    });
  });

  it('saves a first list without storing the defaults, and keeps its order', async function () {
    const user = await gw.user();
    const list = [
      { type: 'earningspershare', limit: 4, period: 'Q' },
      { type: 'revenue', limit: 0, period: 'A' },
    ];
    expect((await user.post('/personalize/companystats', list)).body).to.deep.equal(list);
    expect((await user.get('/personalize/companystats')).body).to.deep.equal(list);
    expect(await events(user.username)).to.have.length(2);
  });

  it('saves a new order of the same statistics', async function () {
    const user = await gw.user();
    const reversed = [...DEFAULTS].reverse();
    await user.get('/personalize/companystats');
    expect((await user.post('/personalize/companystats', reversed)).body).to.deep.equal(reversed);
    expect((await user.get('/personalize/companystats')).body).to.deep.equal(reversed);
  });

  it('appends nothing when the list is unchanged', async function () {
    const user = await gw.user();
    await user.get('/personalize/companystats');
    expect((await user.post('/personalize/companystats', DEFAULTS)).body).to.deep.equal(DEFAULTS);
    expect(await events(user.username)).to.have.length(4);
  });

  it('appends nothing for a retried save with the same Idempotency-Key and answers the same', async function () {
    const user = await gw.user();
    const headers = { 'Idempotency-Key': 'stats-1' };
    const list = [{ type: 'income', limit: 2, period: 'Q' }];
    const first = await user.post('/personalize/companystats', list, headers);
    await user.post('/personalize/companystats', DEFAULTS);
    const before = (await events(user.username)).length;
    const retried = await user.post('/personalize/companystats', list, headers);
    expect(retried.status).to.equal(200);
    expect(retried.body).to.deep.equal(first.body);
    expect(await events(user.username)).to.have.length(before);
    expect((await user.get('/personalize/companystats')).body).to.deep.equal(DEFAULTS);
  });

  it("never shows one user another's statistics", async function () {
    const ada = await gw.user('ada');
    const bob = await gw.user('bob');
    await ada.post('/personalize/companystats', [{ type: 'income', limit: 1, period: 'Q' }]);
    expect((await bob.get('/personalize/companystats')).body).to.deep.equal(DEFAULTS);
    expect((await ada.get('/personalize/companystats')).body).to.deep.equal([
      { type: 'income', limit: 1, period: 'Q' },
    ]);
  });

  it('saves a period given in lower case, as the fundamentals route reads it, upper-cased', async function () {
    const user = await gw.user();
    const res = await user.post('/personalize/companystats', [
      { type: 'revenue', limit: 5, period: 'q' },
      { type: 'income', limit: 0, period: 'a' },
    ]);
    expect(res.status).to.equal(200, res.text);
    const saved = [
      { type: 'revenue', limit: 5, period: 'Q' },
      { type: 'income', limit: 0, period: 'A' },
    ];
    expect(res.body).to.deep.equal(saved);
    expect((await user.get('/personalize/companystats')).body).to.deep.equal(saved);
    expect(await events(user.username)).to.deep.equal(saved.map((data) => ({ type: 'CompanyStatAdded', data })));
  });

  const stat = { type: 'revenue', limit: 0, period: 'A' };
  const badInputs: [string, { raw?: string; body?: unknown; headers?: Record<string, string> }, number, string][] = [
    ['an empty list', { body: [] }, 400, 'body'],
    ['an object instead of a list', { body: stat }, 400, 'body'],
    ['an unknown type', { body: [{ ...stat, type: 'ebitda' }] }, 400, 'body[0].type'],
    ['a missing type', { body: [{ limit: 0, period: 'A' }] }, 400, 'body[0].type'],
    ['a type twice', { body: [stat, { ...stat, limit: 2 }] }, 400, 'body[1].type'],
    ['a negative limit', { body: [{ ...stat, limit: -1 }] }, 400, 'body[0].limit'],
    ['a limit of 41', { body: [{ ...stat, limit: 41 }] }, 400, 'body[0].limit'],
    ['a fractional limit', { body: [{ ...stat, limit: 2.5 }] }, 400, 'body[0].limit'],
    ['a limit as text', { body: [{ ...stat, limit: '4' }] }, 400, 'body[0].limit'],
    ['an unknown period', { body: [{ ...stat, period: 'M' }] }, 400, 'body[0].period'],
    ['a lower-case unknown period', { body: [{ ...stat, period: 'm' }] }, 400, 'body[0].period'],
    ['a period that is not text', { body: [{ ...stat, period: 1 }] }, 400, 'body[0].period'],
    ['more statistics than types', { body: [...DEFAULTS, stat] }, 400, 'body'],
    ['invalid JSON', { raw: '[{"type"', headers: { 'content-type': 'application/json' } }, 400, 'body'],
    ['a body that is not JSON', { raw: 'revenue', headers: { 'content-type': 'text/plain' } }, 415, 'body'],
    ['a huge body', { raw: JSON.stringify([{ type: 'x'.repeat(70_000) }]) }, 413, 'body'],
  ];
  for (const [what, input, status, field] of badInputs) {
    it(`refuses ${what} with ${status} naming ${field}, appending nothing`, async function () {
      const user = await gw.user();
      const res = await user.postInput('/personalize/companystats', input);
      expect(res.status).to.equal(status, res.text);
      const message = (res.body as { message: string }).message;
      expect(message.startsWith(`${field}:`) || message.startsWith(`${field} `)).to.equal(true, message);
      expect(await events(user.username)).to.deep.equal([]);
    });
  }

  const refusals: [string, unknown, string][] = [
    [
      'an unknown type',
      [{ ...stat, type: 'ebitda' }],
      'body[0].type: must be one of revenue, grossprofit, income, earningspershare',
    ],
    [
      'a missing type',
      [{ limit: 0, period: 'A' }],
      'body[0].type: must be one of revenue, grossprofit, income, earningspershare',
    ],
    ['a negative limit', [{ ...stat, limit: -1 }], 'body[0].limit: must be a whole number from 0 to 40'],
    ['a limit of 41', [{ ...stat, limit: 41 }], 'body[0].limit: must be a whole number from 0 to 40'],
    ['a fractional limit', [{ ...stat, limit: 2.5 }], 'body[0].limit: must be a whole number from 0 to 40'],
    ['a limit as text', [{ ...stat, limit: '4' }], 'body[0].limit: must be a whole number from 0 to 40'],
    ['a missing limit', [{ type: 'revenue', period: 'A' }], 'body[0].limit: must be a whole number from 0 to 40'],
    ['an unknown period', [{ ...stat, period: 'M' }], 'body[0].period: must be A or Q'],
    ['a missing period', [{ type: 'revenue', limit: 0 }], 'body[0].period: must be A or Q'],
    ['a statistic that is not an object', ['revenue'], 'body[0]: must be {type, limit, period}'],
    ['an object instead of a list', stat, 'body: must be a list of statistics'],
  ];
  for (const [what, body, message] of refusals) {
    it(`refuses ${what} saying "${message}"`, async function () {
      const res = await (await gw.user()).post('/personalize/companystats', body);
      expect(res.status).to.equal(400, res.text);
      expect((res.body as { message: string }).message).to.equal(message);
    });
  }

  it('refuses both routes without a session', async function () {
    const anonymous = gw.client();
    expect((await anonymous.get('/personalize/companystats')).status).to.equal(401);
    expect((await anonymous.post('/personalize/companystats', DEFAULTS)).status).to.equal(401);
  });

  it('keeps the statistics across a restart', async function () {
    const gw2 = await startTestGateway();
    const user = await gw2.user();
    await user.post('/personalize/companystats', [{ type: 'grossprofit', limit: 12, period: 'Q' }]);
    const dataDir = gw2.dataDir;
    await gw2.close({ keepData: true });
    const restarted = await startTestGateway({ dataDir });
    const again = restarted.client();
    for (const [k, v] of user.cookies) again.cookies.set(k, v);
    expect((await again.get('/personalize/companystats')).body).to.deep.equal([
      { type: 'grossprofit', limit: 12, period: 'Q' },
    ]);
    await restarted.close();
  });
});
