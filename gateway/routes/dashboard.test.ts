import { expect } from 'chai';
import { DASHBOARD_STOCKS_LIMIT } from '../../domain/dashboard/stocks.ts';
import { loadUniverse } from '../../engine/marketdata/universe.ts';
import { startTestGateway, useTestGateway, type TestGateway, type TestInput } from '../testing/harness.ts';

const DEFAULT_LAYOUT = [
  { layoutId: 1, compId: [1] },
  { layoutId: 2, compId: [2] },
  { layoutId: 3, compId: [3] },
];
const DEFAULT_OPTIONS = {
  addstks: true,
  subheader: 'basic',
  showcarddetail: true,
  showcardactions: true,
  slider: { type: 'M', val: 3 },
  selectedsector: 0,
  sectorflag: false,
  watchlistflag: false,
};

describe('dashboard routes', function () {
  let gw: TestGateway;
  const known = loadUniverse().map((entry) => entry.symbol);
  useTestGateway((started) => {
    gw = started;
  });

  const eventCount = (concern: string, username: string) => gw.eventCount(`${concern}-${username}`);

  function refusesEach(path: string, concern: string, table: [string, TestInput, number, string][]): void {
    for (const [what, input, status, field] of table) {
      it(`refuses ${what} with ${status} naming ${field}, appending nothing`, async function () {
        const user = await gw.user();
        const res = await user.postInput(path, input);
        expect(res.status).to.equal(status, res.text);
        const message = (res.body as { message: string }).message;
        expect(message.startsWith(`${field}:`) || message.startsWith(`${field} `)).to.equal(true, message);
        expect(await eventCount(concern, user.username)).to.equal(0);
      });
    }
  }

  const common: [string, TestInput, number, string][] = [
    ['invalid JSON', { raw: '[{"layoutId"', headers: { 'content-type': 'application/json' } }, 400, 'body'],
    ['a body that is not JSON', { raw: 'layout', headers: { 'content-type': 'text/plain' } }, 415, 'body'],
    ['a huge body', { raw: JSON.stringify(['x'.repeat(70_000)]) }, 413, 'body'],
  ];

  describe('layout', function () {
    it('answers the default layout to a new user', async function () {
      const user = await gw.user();
      const res = await user.get('/personalize/dashboard');
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(DEFAULT_LAYOUT);
    });

    it('saves a layout list, answers it, and reads it back with the position it reflects', async function () {
      const user = await gw.user();
      const layouts = [
        { layoutId: 1, compId: [2, 1] },
        { layoutId: 4, compId: [] },
        { layoutId: 7, compId: [5, 3] },
      ];
      const res = await user.post('/personalize/dashboard', layouts);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(layouts);
      const read = await user.get('/personalize/dashboard');
      expect(read.body).to.deep.equal(layouts);
      expect(read.headers.get('x-read-model-position')).to.match(/^\d+\/\d+$/);
    });

    it('refuses an entry with a field other than layoutId and compId, naming it, and keeps the saved list', async function () {
      const user = await gw.user();
      const res = await user.post('/personalize/dashboard', [{ layoutId: 2, compId: [1], title: 'x' }]);
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.include({ message: 'body[0].title: is not a field of this request' });
      expect((await user.get('/personalize/dashboard')).body).to.deep.equal(DEFAULT_LAYOUT);
    });

    it('saves an empty list, which is then what the user has', async function () {
      const user = await gw.user();
      expect((await user.post('/personalize/dashboard', [])).body).to.deep.equal([]);
      expect((await user.get('/personalize/dashboard')).body).to.deep.equal([]);
    });

    it('appends nothing when the default is saved unchanged', async function () {
      const user = await gw.user();
      expect((await user.post('/personalize/dashboard', DEFAULT_LAYOUT)).body).to.deep.equal(DEFAULT_LAYOUT);
      expect(await eventCount('dashboardlayout', user.username)).to.equal(0);
    });

    it('toggles a component into a layout and out again, answering the list each time', async function () {
      const user = await gw.user();
      const on = await user.post('/personalize/dashboard/toggle', { layoutId: 2, compId: 5 });
      expect(on.status).to.equal(200);
      expect(on.body).to.deep.equal([
        { layoutId: 1, compId: [1] },
        { layoutId: 2, compId: [2, 5] },
        { layoutId: 3, compId: [3] },
      ]);
      const off = await user.post('/personalize/dashboard/toggle', { layoutId: 2, compId: 2 });
      expect(off.body).to.deep.equal([
        { layoutId: 1, compId: [1] },
        { layoutId: 2, compId: [5] },
        { layoutId: 3, compId: [3] },
      ]);
      expect((await user.get('/personalize/dashboard')).body).to.deep.equal(off.body);
    });

    it('toggles in a saved layout', async function () {
      const user = await gw.user();
      await user.post('/personalize/dashboard', [{ layoutId: 9, compId: [4] }]);
      expect((await user.post('/personalize/dashboard/toggle', { layoutId: 9, compId: 4 })).body).to.deep.equal([
        { layoutId: 9, compId: [] },
      ]);
    });

    it('answers 404 naming body.layoutId for a layout the user does not have, appending nothing', async function () {
      const user = await gw.user();
      const res = await user.post('/personalize/dashboard/toggle', { layoutId: 4, compId: 1 });
      expect(res.status).to.equal(404);
      expect((res.body as { message: string }).message).to.match(/^body\.layoutId /);
      expect(await eventCount('dashboardlayout', user.username)).to.equal(0);
    });

    it('does not toggle again on a retry with the same Idempotency-Key', async function () {
      const user = await gw.user();
      const headers = { 'Idempotency-Key': 'toggle-1' };
      const first = await user.post('/personalize/dashboard/toggle', { layoutId: 1, compId: 3 }, headers);
      const retried = await user.post('/personalize/dashboard/toggle', { layoutId: 1, compId: 3 }, headers);
      expect(retried.status).to.equal(200);
      expect(retried.body).to.deep.equal(first.body);
      expect((await user.get('/personalize/dashboard')).body).to.deep.equal(first.body);
      expect(await eventCount('dashboardlayout', user.username)).to.equal(1);
    });

    it('appends nothing for a retried save with the same Idempotency-Key and answers the same', async function () {
      const user = await gw.user();
      const headers = { 'Idempotency-Key': 'save-1' };
      const first = await user.post('/personalize/dashboard', [{ layoutId: 1, compId: [4] }], headers);
      await user.post('/personalize/dashboard/toggle', { layoutId: 1, compId: 5 });
      const retried = await user.post('/personalize/dashboard', [{ layoutId: 1, compId: [4] }], headers);
      expect(retried.body).to.deep.equal(first.body);
      expect(await eventCount('dashboardlayout', user.username)).to.equal(2);
    });

    describe('bad layout lists', function () {
      refusesEach('/personalize/dashboard', 'dashboardlayout', [
        ['an object instead of a list', { body: { layoutId: 1, compId: [1] } }, 400, 'body'],
        ['a layout id of 0', { body: [{ layoutId: 0, compId: [1] }] }, 400, 'body[0].layoutId'],
        ['a fractional layout id', { body: [{ layoutId: 1.5, compId: [1] }] }, 400, 'body[0].layoutId'],
        ['a layout id as text', { body: [{ layoutId: '1', compId: [1] }] }, 400, 'body[0].layoutId'],
        ['a missing compId', { body: [{ layoutId: 1 }] }, 400, 'body[0].compId'],
        ['a compId that is not a list', { body: [{ layoutId: 1, compId: 2 }] }, 400, 'body[0].compId'],
        ['a component of 6', { body: [{ layoutId: 1, compId: [1, 6] }] }, 400, 'body[0].compId[1]'],
        ['a component of 0', { body: [{ layoutId: 1, compId: [0] }] }, 400, 'body[0].compId[0]'],
        [
          'a layout id used twice',
          {
            body: [
              { layoutId: 1, compId: [1] },
              { layoutId: 1, compId: [2] },
            ],
          },
          400,
          'body[1].layoutId',
        ],
        ['a component twice in a layout', { body: [{ layoutId: 1, compId: [2, 3, 2] }] }, 400, 'body[0].compId[2]'],
        [
          'more than 12 layouts',
          { body: Array.from({ length: 13 }, (_, i) => ({ layoutId: i + 1, compId: [1] })) },
          400,
          'body',
        ],
        ...common,
      ]);
    });

    describe('bad toggles', function () {
      refusesEach('/personalize/dashboard/toggle', 'dashboardlayout', [
        ['a missing component', { body: { layoutId: 1 } }, 400, 'body.compId'],
        ['a missing layout', { body: { compId: 1 } }, 400, 'body.layoutId'],
        ['a component of 6', { body: { layoutId: 1, compId: 6 } }, 400, 'body.compId'],
        ['a negative layout id', { body: { layoutId: -1, compId: 1 } }, 400, 'body.layoutId'],
        ['a list of components', { body: { layoutId: 1, compId: [1, 2] } }, 400, 'body.compId'],
        ['an unknown field', { body: { layoutId: 1, compId: 1, on: true } }, 400, 'body.on'],
        ['a list instead of an object', { body: [1, 1] }, 400, 'body'],
        ...common,
      ]);
    });
  });

  describe('options', function () {
    it('answers the defaults to a new user', async function () {
      const user = await gw.user();
      expect((await user.get('/personalize/dashboardoptions')).body).to.deep.equal(DEFAULT_OPTIONS);
    });

    it('merges a partial change over the options and reads it back', async function () {
      const user = await gw.user();
      const res = await user.post('/personalize/dashboardoptions', {
        subheader: 'detailed',
        slider: { type: 'Y', val: 2 },
      });
      expect(res.status).to.equal(200);
      const merged = { ...DEFAULT_OPTIONS, subheader: 'detailed', slider: { type: 'Y', val: 2 } };
      expect(res.body).to.deep.equal(merged);
      const next = await user.post('/personalize/dashboardoptions', { sectorflag: true, selectedsector: 11 });
      expect(next.body).to.deep.equal({ ...merged, sectorflag: true, selectedsector: 11 });
      expect((await user.get('/personalize/dashboardoptions')).body).to.deep.equal(next.body);
    });

    it('appends nothing for an empty change or one that sets the values already there', async function () {
      const user = await gw.user();
      expect((await user.post('/personalize/dashboardoptions', {})).body).to.deep.equal(DEFAULT_OPTIONS);
      expect((await user.post('/personalize/dashboardoptions', DEFAULT_OPTIONS)).body).to.deep.equal(DEFAULT_OPTIONS);
      expect(await eventCount('dashboardoptions', user.username)).to.equal(0);
    });

    it('appends nothing for a retried change with the same Idempotency-Key and answers the same', async function () {
      const user = await gw.user();
      const headers = { 'Idempotency-Key': 'options-1' };
      const first = await user.post('/personalize/dashboardoptions', { addstks: false }, headers);
      await user.post('/personalize/dashboardoptions', { addstks: true });
      const retried = await user.post('/personalize/dashboardoptions', { addstks: false }, headers);
      expect(retried.body).to.deep.equal(first.body);
      expect(await eventCount('dashboardoptions', user.username)).to.equal(2);
    });

    describe('bad changes', function () {
      refusesEach('/personalize/dashboardoptions', 'dashboardoptions', [
        ['an unknown option', { body: { colour: 'red' } }, 400, 'body.colour'],
        ['a text for a boolean', { body: { addstks: 'yes' } }, 400, 'body.addstks'],
        ['an unknown sub-header', { body: { subheader: 'fancy' } }, 400, 'body.subheader'],
        ['a slider without its value', { body: { slider: { type: 'M' } } }, 400, 'body.slider.val'],
        ['a slider of an unknown unit', { body: { slider: { type: 'H', val: 3 } } }, 400, 'body.slider.type'],
        ['a slider of 61', { body: { slider: { type: 'M', val: 61 } } }, 400, 'body.slider.val'],
        ['a slider of 0', { body: { slider: { type: 'M', val: 0 } } }, 400, 'body.slider.val'],
        ['a sector of 12', { body: { selectedsector: 12 } }, 400, 'body.selectedsector'],
        ['a negative sector', { body: { selectedsector: -1 } }, 400, 'body.selectedsector'],
        ['null for a flag', { body: { sectorflag: null } }, 400, 'body.sectorflag'],
        ['a list instead of an object', { body: [{ addstks: false }] }, 400, 'body'],
        ...common,
      ]);
    });
  });

  describe('stock list', function () {
    it('answers an empty list to a new user', async function () {
      const user = await gw.user();
      expect((await user.get('/personalize/dashboardstocks')).body).to.deep.equal([]);
    });

    it('sets the list without repeats and reads it back', async function () {
      const user = await gw.user();
      const res = await user.post('/personalize/dashboardstocks', ['NVDA', 'aapl', 'NVDA', 'MSFT']);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(['NVDA', 'AAPL', 'MSFT']);
      expect((await user.get('/personalize/dashboardstocks')).body).to.deep.equal(['NVDA', 'AAPL', 'MSFT']);
      expect((await user.post('/personalize/dashboardstocks', [])).body).to.deep.equal([]);
    });

    it(`keeps the first ${DASHBOARD_STOCKS_LIMIT} distinct symbols of a longer list`, async function () {
      const user = await gw.user();
      const many = known.slice(0, DASHBOARD_STOCKS_LIMIT + 10);
      const res = await user.post('/personalize/dashboardstocks', [many[0], ...many]);
      expect(res.body).to.deep.equal(many.slice(0, DASHBOARD_STOCKS_LIMIT));
    });

    it('adds symbols at the end, dropping ones already there and repeats', async function () {
      const user = await gw.user();
      await user.post('/personalize/dashboardstocks', ['NVDA']);
      const res = await user.post('/personalize/dashboardstocks/add', ['AAPL', 'nvda', 'AAPL', 'MSFT']);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(['NVDA', 'AAPL', 'MSFT']);
      expect((await user.get('/personalize/dashboardstocks')).body).to.deep.equal(['NVDA', 'AAPL', 'MSFT']);
    });

    it(`fills the list to exactly ${DASHBOARD_STOCKS_LIMIT}, then refuses one more with 400 limit naming body`, async function () {
      const user = await gw.user();
      await user.post('/personalize/dashboardstocks', known.slice(0, DASHBOARD_STOCKS_LIMIT - 1));
      const full = await user.post('/personalize/dashboardstocks/add', [known[0], known[DASHBOARD_STOCKS_LIMIT - 1]]);
      expect(full.body).to.have.length(DASHBOARD_STOCKS_LIMIT);
      const before = await eventCount('dashboardstocks', user.username);
      const res = await user.post('/personalize/dashboardstocks/add', [known[DASHBOARD_STOCKS_LIMIT]]);
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.include({ error: 'limit' });
      expect((res.body as { message: string }).message).to.match(/^body /);
      expect(await eventCount('dashboardstocks', user.username)).to.equal(before);
    });

    it('appends nothing for a retried addition with the same Idempotency-Key and answers the same', async function () {
      const user = await gw.user();
      const headers = { 'Idempotency-Key': 'add-1' };
      const first = await user.post('/personalize/dashboardstocks/add', ['NVDA'], headers);
      await user.post('/personalize/dashboardstocks/add', ['AAPL']);
      const retried = await user.post('/personalize/dashboardstocks/add', ['NVDA'], headers);
      expect(retried.body).to.deep.equal(first.body);
      expect(await eventCount('dashboardstocks', user.username)).to.equal(2);
    });

    const badLists: [string, TestInput, number, string][] = [
      ['a number instead of symbols', { body: 42 }, 400, 'body'],
      ['a symbol of the wrong type', { body: ['NVDA', 7] }, 400, 'body[1]'],
      ['a symbol breaking the rule', { body: ['NVDA', 'BAD SYMBOL!'] }, 400, 'body[1]'],
      ['a symbol outside the universe', { body: ['NVDA', 'ZZZZZZ'] }, 400, 'body[1]'],
      ['an object of symbols', { body: { symbols: ['NVDA'] } }, 400, 'body'],
      ['more than 200 symbols', { body: Array.from({ length: 201 }, () => 'NVDA') }, 400, 'body'],
      ...common,
    ];
    describe('bad lists to set', function () {
      refusesEach('/personalize/dashboardstocks', 'dashboardstocks', badLists);
    });
    describe('bad lists to add', function () {
      refusesEach('/personalize/dashboardstocks/add', 'dashboardstocks', [
        ['an empty list', { body: [] }, 400, 'body'],
        ...badLists,
      ]);
    });
  });

  it("never shows one user another's layout, options or stocks", async function () {
    const ada = await gw.user('ada');
    const bob = await gw.user('bob');
    await ada.post('/personalize/dashboard/toggle', { layoutId: 1, compId: 2 });
    await ada.post('/personalize/dashboardoptions', { subheader: 'detailed' });
    await ada.post('/personalize/dashboardstocks', ['NVDA']);
    await bob.post('/personalize/dashboardstocks', ['XOM']);
    expect((await bob.get('/personalize/dashboard')).body).to.deep.equal(DEFAULT_LAYOUT);
    expect((await bob.get('/personalize/dashboardoptions')).body).to.deep.equal(DEFAULT_OPTIONS);
    expect((await bob.get('/personalize/dashboardstocks')).body).to.deep.equal(['XOM']);
    expect((await ada.get('/personalize/dashboardstocks')).body).to.deep.equal(['NVDA']);
    expect((await ada.get('/personalize/dashboard')).body).to.deep.equal([
      { layoutId: 1, compId: [1, 2] },
      { layoutId: 2, compId: [2] },
      { layoutId: 3, compId: [3] },
    ]);
  });

  it('refuses every dashboard route without a session', async function () {
    const anonymous = gw.client();
    for (const path of ['/personalize/dashboard', '/personalize/dashboardoptions', '/personalize/dashboardstocks']) {
      expect((await anonymous.get(path)).status).to.equal(401);
    }
    const posts: [string, unknown][] = [
      ['/personalize/dashboard', DEFAULT_LAYOUT],
      ['/personalize/dashboard/toggle', { layoutId: 1, compId: 1 }],
      ['/personalize/dashboardoptions', { addstks: false }],
      ['/personalize/dashboardstocks', ['NVDA']],
      ['/personalize/dashboardstocks/add', ['NVDA']],
    ];
    for (const [path, body] of posts) expect((await anonymous.post(path, body)).status).to.equal(401);
  });

  it('keeps the layout, options and stocks across a restart', async function () {
    const gw2 = await startTestGateway();
    const user = await gw2.user();
    await user.post('/personalize/dashboard/toggle', { layoutId: 3, compId: 4 });
    await user.post('/personalize/dashboardoptions', { showcarddetail: false });
    await user.post('/personalize/dashboardstocks', ['NVDA', 'AAPL']);
    const dataDir = gw2.dataDir;
    await gw2.close({ keepData: true });
    const restarted = await startTestGateway({ dataDir });
    const again = restarted.client();
    for (const [k, v] of user.cookies) again.cookies.set(k, v);
    expect((await again.get('/personalize/dashboard')).body).to.deep.equal([
      { layoutId: 1, compId: [1] },
      { layoutId: 2, compId: [2] },
      { layoutId: 3, compId: [3, 4] },
    ]);
    expect((await again.get('/personalize/dashboardoptions')).body).to.deep.equal({
      ...DEFAULT_OPTIONS,
      showcarddetail: false,
    });
    expect((await again.get('/personalize/dashboardstocks')).body).to.deep.equal(['NVDA', 'AAPL']);
    await restarted.close();
  });
});
