import { expect } from 'chai';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../../domain/ids.ts';
import { QUERIES_LIMIT, queriesDecider } from '../../domain/queries/queries.ts';
import { CommandService } from '../commands.ts';
import { startTestGateway, useTestGateway, type TestClient, type TestGateway } from '../testing/harness.ts';
import type { QueryAnswer } from './queries.ts';

type User = TestClient & { readonly username: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const rsiLow = { label: 'RSI low', query: { type: 'rsi', param: 14, op: '<', val: 30 } };
const belowSma = {
  label: 'Close below 50-day average',
  query: { type: 'close', op: '<', val: { ref: 'SMA', param: 50 } },
};
const largeCap = { label: 'Large caps', query: { type: 'mcap', op: 'like', val: 'large' } };

describe('saved query routes', function () {
  let gw: TestGateway;
  useTestGateway((started) => {
    gw = started;
  });

  async function events(username: string): Promise<string[]> {
    const recorded = await gw.running.system.events.readStream(`queries-${username}`).catch(() => []);
    return recorded.map((e) => e.type);
  }

  async function save(user: User, body: unknown, headers?: Record<string, string>): Promise<QueryAnswer> {
    const res = await user.post('/personalize/stockalertquery', body, headers);
    expect(res.status).to.equal(200, res.text);
    return res.body as QueryAnswer;
  }

  const list = async (user: User) => (await user.get('/personalize/stockalertquery')).body as QueryAnswer[];

  describe('saving', function () {
    it('saves a named query and answers it in the contract shape, the clauses as a list', async function () {
      const user = await gw.user();
      const res = await user.post('/personalize/stockalertquery', {
        queryname: 'Oversold large caps',
        query: [rsiLow, largeCap],
        type: 'screener',
      });
      expect(res.status).to.equal(200, res.text);
      const saved = res.body as QueryAnswer;
      expect(Object.keys(saved)).to.have.members(['id', 'queryname', 'query', 'type']);
      expect(saved.id).to.match(UUID);
      expect(saved).to.deep.include({ queryname: 'Oversold large caps', query: [rsiLow, largeCap], type: 'screener' });
      expect(await events(user.username)).to.deep.equal(['QuerySaved']);
    });

    it('saves the metric and category clauses, and they run as saved', async function () {
      const user = await gw.user();
      const clauses = [
        { label: 'Banks', query: { type: 'industry', op: '=', val: 'Banks' } },
        { label: 'Up a year', query: { type: 'perf', param: '1Y', op: '>', val: 0 } },
        { label: 'Above SMA 200', query: { type: 'price_vs_sma', param: 200, op: 'bet', val: [0, 50] } },
        { label: 'Not utilities', query: { type: 'sector', op: 'not_like', val: 'Utilities' } },
      ];
      const saved = await save(user, { queryname: 'Rising banks', query: clauses });
      expect(saved.query).to.deep.equal(clauses);
      const listed = (await list(user)).find((q) => q.id === saved.id);
      const run = await user.post('/api/screener/run', { query: listed?.query, limit: 1000 });
      expect(run.status, run.text).to.equal(200);
      const rows = (run.body as { rows: { industry: string; perf_1Y: number; price_vs_sma_200: number }[] }).rows;
      expect(rows.length).to.be.above(0);
      for (const row of rows) {
        expect(row.industry).to.equal('Banks');
        expect(row.perf_1Y).to.be.above(0);
        expect(row.price_vs_sma_200).to.be.within(0, 50);
      }
    });

    it('gives a query without type the type custom, and normalises its clauses', async function () {
      const user = await gw.user();
      const saved = await save(user, {
        queryname: 'Oversold',
        query: [{ label: 'RSI low', query: { type: 'rsi', op: '<', val: 30 } }],
      });
      expect(saved).to.deep.include({ type: 'custom', query: [rsiLow] });
    });

    it('names a bare clause list after its labels', async function () {
      const user = await gw.user();
      const saved = await save(user, [rsiLow, belowSma]);
      expect(saved).to.deep.include({
        queryname: 'RSI low and Close below 50-day average',
        query: [rsiLow, belowSma],
        type: 'custom',
      });
    });

    it('labels bare clauses with their description', async function () {
      const user = await gw.user();
      const saved = await save(user, [{ type: 'rsi', param: 14, op: '>', val: 80 }]);
      expect(saved).to.deep.include({
        queryname: 'RSI(14) > 80',
        query: [{ label: 'RSI(14) > 80', query: { type: 'rsi', param: 14, op: '>', val: 80 } }],
      });
    });

    it('replaces the query saved under the same name (any case), keeping its id', async function () {
      const user = await gw.user();
      const first = await save(user, { queryname: 'Oversold', query: [rsiLow] });
      const other = await save(user, { queryname: 'Trend', query: [belowSma] });
      const replaced = await save(user, { queryname: 'OVERSOLD ', query: [rsiLow, largeCap] });
      expect(replaced).to.deep.equal({
        id: first.id,
        queryname: 'OVERSOLD',
        query: [rsiLow, largeCap],
        type: 'custom',
      });
      expect(await list(user)).to.deep.equal([replaced, other]);
      expect(await events(user.username)).to.deep.equal(['QuerySaved', 'QuerySaved', 'QueryReplaced']);
    });

    it('appends nothing when the same query is saved again under its name', async function () {
      const user = await gw.user();
      const first = await save(user, { queryname: 'Oversold', query: [rsiLow] });
      expect(await save(user, { queryname: 'Oversold', query: [rsiLow] })).to.deep.equal(first);
      expect(await events(user.username)).to.deep.equal(['QuerySaved']);
    });
  });

  describe('reading', function () {
    it('reads the queries back right after a change, oldest first, with the position', async function () {
      const user = await gw.user();
      const a = await save(user, { queryname: 'A', query: [rsiLow] });
      const b = await save(user, { queryname: 'B', query: [belowSma] });
      const res = await user.get('/personalize/stockalertquery');
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal([a, b]);
      expect(res.headers.get('x-read-model-position')).to.match(/^\d+\/\d+$/);
    });

    it('answers an empty list to a new user', async function () {
      const user = await gw.user();
      expect(await list(user)).to.deep.equal([]);
    });
  });

  describe('deleting', function () {
    it('deletes a saved query and answers {id, deleted: true}', async function () {
      const user = await gw.user();
      const keep = await save(user, { queryname: 'Keep', query: [rsiLow] });
      const drop = await save(user, { queryname: 'Drop', query: [belowSma] });
      const res = await user.post(`/personalize/delstkalertqry/${drop.id}`);
      expect(res.status).to.equal(200, res.text);
      expect(res.body).to.deep.equal({ id: drop.id, deleted: true });
      expect(await list(user)).to.deep.equal([keep]);
    });

    it('answers 404 when the query is already deleted or never was, appending nothing', async function () {
      const user = await gw.user();
      const saved = await save(user, { queryname: 'Once', query: [rsiLow] });
      await user.post(`/personalize/delstkalertqry/${saved.id}`);
      expect((await user.post(`/personalize/delstkalertqry/${saved.id}`)).status).to.equal(404);
      expect((await user.post('/personalize/delstkalertqry/not-a-query')).status).to.equal(404);
      expect(await events(user.username)).to.deep.equal(['QuerySaved', 'QueryDeleted']);
    });

    it('refuses an id longer than 100 characters naming params.id', async function () {
      const user = await gw.user();
      const res = await user.post(`/personalize/delstkalertqry/${'q'.repeat(101)}`);
      expect(res.status).to.equal(400);
      expect((res.body as { message: string }).message).to.match(/^params\.id:/);
    });
  });

  it('never shows one user the queries of another, nor lets them delete or replace them', async function () {
    const ada = await gw.user('ada');
    const bob = await gw.user('bob');
    const adas = await save(ada, { queryname: 'Oversold', query: [rsiLow] });
    expect(await list(bob)).to.deep.equal([]);
    expect((await bob.post(`/personalize/delstkalertqry/${adas.id}`)).status).to.equal(404);
    const bobs = await save(bob, { queryname: 'Oversold', query: [belowSma] });
    expect(bobs.id).not.to.equal(adas.id);
    expect(await list(ada)).to.deep.equal([adas]);
    expect(await events(ada.username)).to.deep.equal(['QuerySaved']);
    expect(await events(bob.username)).to.deep.equal(['QuerySaved']);
  });

  describe('retries', function () {
    it('appends nothing for a retried save with the same Idempotency-Key and answers the same', async function () {
      const user = await gw.user();
      const headers = { 'Idempotency-Key': 'save-oversold' };
      const first = await save(user, { queryname: 'Oversold', query: [rsiLow] }, headers);
      const retried = await save(user, { queryname: 'Oversold', query: [rsiLow] }, headers);
      expect(retried).to.deep.equal(first);
      expect(await events(user.username)).to.deep.equal(['QuerySaved']);
    });

    it('appends nothing for a retried delete with the same Idempotency-Key and answers the same', async function () {
      const user = await gw.user();
      const saved = await save(user, { queryname: 'Oversold', query: [rsiLow] });
      const headers = { 'Idempotency-Key': 'delete-oversold' };
      const first = await user.post(`/personalize/delstkalertqry/${saved.id}`, undefined, headers);
      const retried = await user.post(`/personalize/delstkalertqry/${saved.id}`, undefined, headers);
      expect(retried.status).to.equal(200);
      expect(retried.body).to.deep.equal(first.body);
      expect(await events(user.username)).to.deep.equal(['QuerySaved', 'QueryDeleted']);
    });
  });

  const badInputs: [string, { raw?: string; body?: unknown }, number, string][] = [
    ['a number', { body: 42 }, 400, 'body'],
    ['an empty clause list', { body: [] }, 400, 'body'],
    ['an object without query', { body: { queryname: 'x' } }, 400, 'body.query'],
    ['a query that is text', { body: { queryname: 'x', query: 'rsi < 30' } }, 400, 'body.query'],
    ['an empty query', { body: { queryname: 'x', query: [] } }, 400, 'body.query'],
    ['21 clauses', { body: { queryname: 'x', query: Array.from({ length: 21 }, () => rsiLow) } }, 400, 'body.query'],
    ['an empty name', { body: { queryname: ' ', query: [rsiLow] } }, 400, 'body.queryname'],
    ['a name of 81 characters', { body: { queryname: 'n'.repeat(81), query: [rsiLow] } }, 400, 'body.queryname'],
    ['a name that is no text', { body: { queryname: 7, query: [rsiLow] } }, 400, 'body.queryname'],
    ['an empty type', { body: { queryname: 'x', query: [rsiLow], type: '' } }, 400, 'body.type'],
    ['a type of 41 characters', { body: { queryname: 'x', query: [rsiLow], type: 't'.repeat(41) } }, 400, 'body.type'],
    [
      'a clause with a bad operator',
      { body: { queryname: 'x', query: [rsiLow, { label: 'odd', query: { type: 'rsi', op: 'like', val: 3 } }] } },
      400,
      'body.query[1]',
    ],
    [
      'a clause of an unknown type',
      { body: { queryname: 'x', query: [{ label: 'peg', query: { type: 'peg', op: '<', val: 3 } }] } },
      400,
      'body.query[0]',
    ],
    [
      'an unknown pattern',
      { body: { queryname: 'x', query: [{ label: 'p', query: { type: 'pattern_nope_', op: 'like' } }] } },
      400,
      'body.query[0]',
    ],
    ['a bad bare clause', { body: [rsiLow, { type: 'SMA', param: 30, op: '>', val: 1 }] }, 400, 'body[1]'],
    ['a label that is too long', { body: [{ label: 'l'.repeat(101), query: rsiLow.query }] }, 400, 'body[0]'],
    ['invalid JSON', { raw: '{"queryname":' }, 400, 'body'],
  ];
  for (const [what, input, status, field] of badInputs) {
    it(`refuses ${what} with ${status} naming ${field}, appending nothing`, async function () {
      const user = await gw.user();
      const res = await user.postInput('/personalize/stockalertquery', input);
      expect(res.status).to.equal(status, res.text);
      const message = (res.body as { message: string }).message;
      expect(message.startsWith(field), message).to.equal(true);
      expect(await events(user.username)).to.deep.equal([]);
    });
  }

  it(`refuses saved query number ${QUERIES_LIMIT + 1} but still replaces by name`, async function () {
    this.timeout(30_000);
    const user = await gw.user();
    const commands = new CommandService(gw.running.system.events, gw.running.system.projections!);
    const at = new Date().toISOString();
    for (let i = 0; i < QUERIES_LIMIT; i++) {
      await commands.execute(
        { concern: 'queries', decider: queriesDecider },
        {
          type: 'SaveQuery',
          data: {
            queryId: uuidV5(`${user.username}-${i}`, STOCKPULSE_NAMESPACE),
            queryname: `q${i}`,
            query: [rsiLow],
            type: null,
          },
        },
        { commandId: `seed-${i}`, userId: user.username, at, actor: `user:${user.username}` },
      );
    }
    const res = await user.post('/personalize/stockalertquery', { queryname: 'one more', query: [rsiLow] });
    expect(res.status).to.equal(400, res.text);
    expect(res.body).to.deep.include({ error: 'limit' });
    expect(await events(user.username)).to.have.length(QUERIES_LIMIT);
    const replaced = await save(user, { queryname: 'q7', query: [belowSma] });
    expect(replaced.query).to.deep.equal([belowSma]);
    expect(await list(user)).to.have.length(QUERIES_LIMIT);
  });

  it('refuses every saved query route without a session', async function () {
    const anonymous = gw.client();
    expect((await anonymous.get('/personalize/stockalertquery')).status).to.equal(401);
    expect((await anonymous.post('/personalize/stockalertquery', [rsiLow])).status).to.equal(401);
    expect((await anonymous.post(`/personalize/delstkalertqry/${uuidV5('q', STOCKPULSE_NAMESPACE)}`)).status).to.equal(
      401,
    );
  });

  it('keeps the saved queries across a restart', async function () {
    const gw2 = await startTestGateway();
    const user = await gw2.user();
    const saved = await save(user, { queryname: 'Oversold', query: [rsiLow] });
    const dataDir = gw2.dataDir;
    await gw2.close({ keepData: true });
    const restarted = await startTestGateway({ dataDir });
    const again = restarted.client();
    for (const [k, v] of user.cookies) again.cookies.set(k, v);
    expect((await again.get('/personalize/stockalertquery')).body).to.deep.equal([saved]);
    await restarted.close();
  });
});
