import { expect } from 'chai';
import { SECTORS_LIMIT } from '../../domain/sectors/sectors.ts';
import { servedAt, useTestGateway, type TestClient, type TestGateway } from '../testing/harness.ts';

interface SectorAnswer {
  id: string;
  name: string;
  symbols: string[];
  createdt: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('sector routes', function () {
  let gw: TestGateway;
  useTestGateway((started) => {
    gw = started;
  });

  const eventCount = (username: string) => gw.eventCount(`sectors-${username}`);

  async function create(client: TestClient, body: unknown): Promise<SectorAnswer> {
    const res = await client.post('/personalize/sectors', body);
    expect(res.status).to.equal(200, res.text);
    return res.body as SectorAnswer;
  }

  it('creates a sector with its symbols and answers it', async function () {
    const user = await gw.user();
    const before = Date.now();
    const sector = await create(user, { name: '  Chips ', symbols: ['nvda', 'AMD', 'NVDA'] });
    expect(sector.id).to.match(UUID);
    expect(sector).to.deep.include({ name: 'Chips', symbols: ['NVDA', 'AMD'] });
    expect(Date.parse(sector.createdt)).to.be.within(before - 1000, Date.now() + 1000);
    expect(Object.keys(sector).sort()).to.deep.equal(['createdt', 'id', 'name', 'symbols']);
  });

  it('reads the sectors back right after a change, oldest first, with the position they reflect', async function () {
    const user = await gw.user();
    const chips = await create(user, { name: 'Chips', symbols: ['NVDA'] });
    const empty = await create(user, { name: 'Later' });
    const res = await user.get('/personalize/sectors');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal([chips, { ...empty, symbols: [] }]);
    expect(res.headers.get('x-read-model-position')).to.match(/^\d+\/\d+$/);
  });

  it('answers an empty list to a new user', async function () {
    const user = await gw.user();
    expect((await user.get('/personalize/sectors')).body).to.deep.equal([]);
  });

  it('renames, merges symbols, removes a symbol and deletes, each answered and read back', async function () {
    const user = await gw.user();
    const { id } = await create(user, { name: 'Chips', symbols: ['NVDA'] });
    const renamed = await user.post(`/personalize/sectors/${id}/rename`, { name: 'Semis' });
    expect(renamed.status).to.equal(200, renamed.text);
    expect(renamed.body).to.deep.include({ id, name: 'Semis', symbols: ['NVDA'] });

    const merged = await user.post(`/personalize/sectors/${id}/symbols`, { symbols: ['AMD', 'nvda', 'INTC'] });
    expect((merged.body as SectorAnswer).symbols).to.deep.equal(['NVDA', 'AMD', 'INTC']);
    const bare = await user.post(`/personalize/sectors/${id}/symbols`, ['AMD']);
    expect((bare.body as SectorAnswer).symbols).to.deep.equal(['NVDA', 'AMD', 'INTC']);

    const removed = await user.post(`/personalize/sectors/${id}/delsymbol/nvda`);
    expect((removed.body as SectorAnswer).symbols).to.deep.equal(['AMD', 'INTC']);
    const absent = await user.post(`/personalize/sectors/${id}/delsymbol/NVDA`);
    expect(absent.status).to.equal(404);
    expect((absent.body as { message: string }).message).to.equal('params.symbol: NVDA is not on the sector');
    expect((await user.get('/personalize/sectors')).body).to.deep.equal([removed.body]);

    const deleted = await user.post(`/personalize/delsector/${id}`);
    expect(deleted.status).to.equal(200);
    expect(deleted.body).to.deep.equal({ id, deleted: true });
    expect((await user.get('/personalize/sectors')).body).to.deep.equal([]);
    expect((await user.post(`/personalize/sectors/${id}/rename`, { name: 'Again' })).status).to.equal(404);
    expect((await user.post(`/personalize/delsector/${id}`)).status).to.equal(404);
  });

  it('copies a GICS sector of the universe with its symbols, named after it unless told', async function () {
    const user = await gw.user();
    const universe = (await user.get('/api/sectors')).body as { sector: string; symbols: string[] }[];
    const energy = universe.find((s) => s.sector === 'Energy')!;
    const copy = await user.post('/personalize/sectors/copy', { gics: 'Energy' });
    expect(copy.status).to.equal(200, copy.text);
    expect(copy.body).to.deep.include({ name: 'Energy', symbols: energy.symbols });
    expect(energy.symbols.length).to.be.greaterThan(0);

    const again = await user.post('/personalize/sectors/copy', { gics: 'Energy' });
    expect(again.status).to.equal(409);
    expect((again.body as { message: string }).message).to.match(/^body\.name/);
    const named = await user.post('/personalize/sectors/copy', { gics: 'Energy', name: 'Oil and gas' });
    expect(named.body).to.deep.include({ name: 'Oil and gas', symbols: energy.symbols });
    expect(((await user.get('/personalize/sectors')).body as SectorAnswer[]).map((s) => s.name)).to.deep.equal([
      'Energy',
      'Oil and gas',
    ]);
  });

  it('refuses a name another sector of the user has, in any case, with 409 and no event', async function () {
    const user = await gw.user();
    await create(user, { name: 'Chips' });
    const { id } = await create(user, { name: 'Banks' });
    const count = await eventCount(user.username);
    const taken = await user.post('/personalize/sectors', { name: ' CHIPS ' });
    expect(taken.status).to.equal(409);
    expect(taken.body).to.deep.include({ error: 'taken' });
    expect((taken.body as { message: string }).message).to.match(/^body\.name/);
    const renamed = await user.post(`/personalize/sectors/${id}/rename`, { name: 'chips' });
    expect(renamed.status).to.equal(409);
    expect(await eventCount(user.username)).to.equal(count);
  });

  it(`refuses a sector beyond ${SECTORS_LIMIT}`, async function () {
    this.timeout(20_000);
    const user = await gw.user();
    for (let i = 0; i < SECTORS_LIMIT; i++) await create(user, { name: `Sector ${i}` });
    const res = await user.post('/personalize/sectors', { name: 'One too many' });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.include({ error: 'limit' });
    expect(await eventCount(user.username)).to.equal(SECTORS_LIMIT);
  });

  it('never shows one user the sectors of another, and answers 404 to changes of them', async function () {
    const ada = await gw.user('ada');
    const bob = await gw.user('bob');
    const adas = await create(ada, { name: 'Chips', symbols: ['NVDA'] });
    await create(bob, { name: 'Chips', symbols: ['XOM'] });
    const bobsBefore = await eventCount(bob.username);
    expect(((await bob.get('/personalize/sectors')).body as SectorAnswer[]).map((s) => s.symbols)).to.deep.equal([
      ['XOM'],
    ]);
    for (const [path, body] of [
      [`/personalize/sectors/${adas.id}/rename`, { name: 'Mine now' }],
      [`/personalize/sectors/${adas.id}/symbols`, { symbols: ['AAPL'] }],
      [`/personalize/sectors/${adas.id}/delsymbol/NVDA`, undefined],
      [`/personalize/delsector/${adas.id}`, undefined],
    ] as const) {
      const res = await bob.post(path, body);
      expect(res.status).to.equal(404, `${path}: ${res.text}`);
      expect((res.body as { message: string }).message).to.match(/^params\.id/);
    }
    expect(await eventCount(bob.username)).to.equal(bobsBefore);
    expect((await ada.get('/personalize/sectors')).body).to.deep.equal([adas]);
  });

  it('answers 404 to an id that is no sector id', async function () {
    const user = await gw.user();
    const res = await user.post('/personalize/sectors/not-a-sector/rename', { name: 'X' });
    expect(res.status).to.equal(404);
    expect((res.body as { message: string }).message).to.match(/^params\.id/);
  });

  it('creates nothing new for a retried POST with the same Idempotency-Key and answers the same sector', async function () {
    const user = await gw.user();
    const headers = { 'Idempotency-Key': 'create-chips-1' };
    const first = await user.post('/personalize/sectors', { name: 'Chips', symbols: ['NVDA'] }, headers);
    const count = await eventCount(user.username);
    const retried = await user.post('/personalize/sectors', { name: 'Chips', symbols: ['NVDA'] }, headers);
    expect(retried.status).to.equal(200, retried.text);
    expect(retried.body).to.deep.equal(first.body);
    expect(await eventCount(user.username)).to.equal(count);
    const copyHeaders = { 'Idempotency-Key': 'copy-energy-1' };
    const copied = await user.post('/personalize/sectors/copy', { gics: 'Energy' }, copyHeaders);
    const copiedAgain = await user.post('/personalize/sectors/copy', { gics: 'Energy' }, copyHeaders);
    expect(copiedAgain.status).to.equal(200);
    expect(copiedAgain.body).to.deep.equal(copied.body);
    expect(((await user.get('/personalize/sectors')).body as SectorAnswer[]).length).to.equal(2);
  });

  const badCreates: [string, { raw?: string; body?: unknown; headers?: Record<string, string> }, number, string][] = [
    ['no name', { body: { symbols: ['NVDA'] } }, 400, 'body.name'],
    ['an empty name', { body: { name: '   ' } }, 400, 'body.name'],
    ['a name of 41 characters', { body: { name: 'x'.repeat(41) } }, 400, 'body.name'],
    ['a name that is not a text', { body: { name: 7 } }, 400, 'body.name'],
    ['symbols that are not a list', { body: { name: 'A', symbols: 'NVDA' } }, 400, 'body.symbols'],
    ['a symbol breaking the rule', { body: { name: 'A', symbols: ['NVDA', 'BAD ONE!'] } }, 400, 'body.symbols[1]'],
    ['a symbol outside the universe', { body: { name: 'A', symbols: ['NVDA', 'ZZZZZZ'] } }, 400, 'body.symbols[1]'],
    [
      'more than 100 symbols',
      { body: { name: 'A', symbols: Array.from({ length: 101 }, () => 'NVDA') } },
      400,
      'body.symbols',
    ],
    ['a list instead of an object', { body: ['NVDA'] }, 400, 'body'],
    ['invalid JSON', { raw: '{"name":', headers: { 'content-type': 'application/json' } }, 400, 'body'],
    ['a body that is not JSON', { raw: 'name=A', headers: { 'content-type': 'text/plain' } }, 415, 'body'],
    ['a huge body', { raw: JSON.stringify({ name: 'x'.repeat(70_000) }) }, 413, 'body'],
  ];
  for (const [what, input, status, field] of badCreates) {
    it(`refuses a new sector with ${what}: ${status} naming ${field}, appending nothing`, async function () {
      const user = await gw.user();
      const res = await user.postInput('/personalize/sectors', input);
      expect(res.status).to.equal(status, res.text);
      const message = (res.body as { message: string }).message;
      expect(message.startsWith(`${field}:`) || message.startsWith(`${field} `)).to.equal(true, message);
      expect(await eventCount(user.username)).to.equal(0);
    });
  }

  it('refuses bad changes of a sector naming the field, appending nothing', async function () {
    const user = await gw.user();
    const { id } = await create(user, { name: 'Chips', symbols: ['NVDA'] });
    const count = await eventCount(user.username);
    const cases: [string, unknown, number, string][] = [
      [`/personalize/sectors/${id}/rename`, { name: '' }, 400, 'body.name'],
      [`/personalize/sectors/${id}/rename`, {}, 400, 'body.name'],
      [`/personalize/sectors/${id}/symbols`, { symbols: [] }, 400, 'body'],
      [`/personalize/sectors/${id}/symbols`, { symbols: ['QQQQQQ'] }, 400, 'body.symbols[0]'],
      [`/personalize/sectors/${id}/symbols`, ['AAPL', 'A A'], 400, 'body[1]'],
      [`/personalize/sectors/${id}/delsymbol/BAD%20ONE`, undefined, 400, 'params.symbol'],
      ['/personalize/sectors/copy', { gics: 'Crypto' }, 400, 'body.gics'],
      ['/personalize/sectors/copy', {}, 400, 'body.gics'],
      ['/personalize/sectors/copy', { gics: 'Energy', name: '' }, 400, 'body.name'],
    ];
    for (const [path, body, status, field] of cases) {
      const res = await user.post(path, body);
      expect(res.status).to.equal(status, `${path}: ${res.text}`);
      const message = (res.body as { message: string }).message;
      expect(message.startsWith(field), `${path}: ${message}`).to.equal(true);
    }
    expect(await eventCount(user.username)).to.equal(count);
  });

  it('refuses every sector route without a session', async function () {
    const anonymous = gw.client();
    const id = '00000000-0000-5000-8000-000000000000';
    expect((await anonymous.get('/personalize/sectors')).status).to.equal(401);
    for (const [path, body] of [
      ['/personalize/sectors', { name: 'A' }],
      ['/personalize/sectors/copy', { gics: 'Energy' }],
      [`/personalize/sectors/${id}/rename`, { name: 'A' }],
      [`/personalize/sectors/${id}/symbols`, { symbols: ['NVDA'] }],
      [`/personalize/sectors/${id}/delsymbol/NVDA`, undefined],
      [`/personalize/delsector/${id}`, undefined],
    ] as const) {
      expect((await anonymous.post(path, body)).status).to.equal(401, path);
    }
  });

  it('lists the symbols largest market cap first, as the GICS sectors, following live prices', async function () {
    const user = await gw.user();
    const caps = async () =>
      new Map(
        (await user.getOk<{ symbol: string; marketcap: number }[]>('/api/universe')).map((e) => [
          e.symbol,
          e.marketcap,
        ]),
      );
    const ranked = (symbols: readonly string[], cap: Map<string, number>) =>
      [...symbols].sort((a, b) => cap.get(b)! - cap.get(a)! || (a < b ? -1 : 1));
    const added = ['KO', 'PEP', 'NVDA', 'JPM', 'AAPL'];
    const created = await create(user, { name: 'Mixed', symbols: added });
    let cap = await caps();
    expect(created.symbols).to.deep.equal(ranked(added, cap));
    expect(created.symbols[0], 'not in the order added').to.not.equal('KO');

    // A tick makes KO the largest company of the market.
    const [ko] = await user.getOk<{ price: number }[]>('/api/quotes?symbols=KO');
    const price = Math.round(ko!.price * 100 * 100) / 100;
    const served = servedAt(gw, 'KO', price);
    await gw.pushTicks([{ symbol: 'KO', price, size: 100 }]);
    await served;
    cap = await caps();
    const [read] = await user.getOk<SectorAnswer[]>('/personalize/sectors');
    expect(read?.symbols).to.deep.equal(ranked(added, cap));
    expect(read?.symbols[0]).to.equal('KO');
    const staples = (await user.getOk<{ sector: string; symbols: string[] }[]>('/api/sectors')).find(
      (s) => s.sector === 'Consumer Staples',
    )!.symbols;
    expect(staples[0]).to.equal('KO');
    expect(staples).to.deep.equal(ranked(staples, cap));
    const more = await user.post(`/personalize/sectors/${created.id}/symbols`, ['XOM']);
    expect((more.body as SectorAnswer).symbols).to.deep.equal(ranked([...added, 'XOM'], cap));
  });

  it('lists the routes in the API reference', async function () {
    const doc = (await gw.client().get('/api/docs')).body as { paths: Record<string, Record<string, unknown>> };
    for (const path of [
      '/personalize/sectors',
      '/personalize/sectors/copy',
      '/personalize/sectors/{id}/rename',
      '/personalize/sectors/{id}/symbols',
      '/personalize/sectors/{id}/delsymbol/{symbol}',
      '/personalize/delsector/{id}',
    ]) {
      expect(doc.paths, path).to.have.property(path);
    }
  });
});
