import { expect } from 'chai';
import { isUuid } from '../../domain/ids.ts';
import { LOTS_PER_SYMBOL_LIMIT } from '../../domain/positions/lots.ts';
import {
  startTestGateway,
  useTestGateway,
  type TestClient,
  type TestGateway,
  type TestInput,
} from '../testing/harness.ts';

interface Positions {
  readonly symbol: string;
  readonly positions: { id: string; date: string; close: number; position: number }[];
}

const lot = (date = '2024-05-01', close = 170.25, position = 10) => ({ date, close, position });

function utcDate(offsetDays: number): string {
  return new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

describe('portfolio routes', function () {
  let gw: TestGateway;
  useTestGateway((started) => {
    gw = started;
  });

  const eventCount = (username: string) => gw.eventCount(`portfolio-${username}`);

  function refusesEach(
    path: string,
    table: [string, TestInput, number, string][],
    setup?: (user: TestClient) => Promise<void>,
  ): void {
    for (const [what, input, status, field] of table) {
      it(`refuses ${what} with ${status} naming ${field}, appending nothing`, async function () {
        const user = await gw.user();
        await setup?.(user);
        const before = await eventCount(user.username);
        const res = await user.postInput(path, input);
        expect(res.status).to.equal(status, res.text);
        const message = (res.body as { message: string }).message;
        expect(message.startsWith(`${field}:`) || message.startsWith(`${field} `)).to.equal(true, message);
        expect(await eventCount(user.username)).to.equal(before);
      });
    }
  }

  const common: [string, TestInput, number, string][] = [
    ['invalid JSON', { raw: '["AAPL"', headers: { 'content-type': 'application/json' } }, 400, 'body'],
    ['a body that is not JSON', { raw: 'AAPL', headers: { 'content-type': 'text/plain' } }, 415, 'body'],
    ['a huge body', { raw: JSON.stringify(['x'.repeat(70_000)]) }, 413, 'body'],
  ];

  describe('symbols', function () {
    it('answers an empty portfolio to a new user', async function () {
      const user = await gw.user();
      const res = await user.get('/api/userstkpositions');
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal([]);
    });

    it('merges added symbols, ignoring ones already present, and reads the list back', async function () {
      const user = await gw.user();
      expect((await user.post('/personalize/userstockportfolio', ['AAPL', 'nvda'])).body).to.deep.equal([
        'AAPL',
        'NVDA',
      ]);
      const res = await user.post('/personalize/userstockportfolio', ['NVDA', 'MSFT', 'MSFT', 'aapl']);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(['AAPL', 'NVDA', 'MSFT']);
      const read = await user.get('/api/userstkpositions');
      expect(read.body).to.deep.equal(['AAPL', 'NVDA', 'MSFT']);
      expect(read.headers.get('x-read-model-position')).to.match(/^\d+\/\d+$/);
    });

    it('removes a symbol and answers the list after removal', async function () {
      const user = await gw.user();
      await user.post('/personalize/userstockportfolio', ['AAPL', 'NVDA']);
      expect((await user.post('/personalize/delstockfromportfolio/aapl')).body).to.deep.equal(['NVDA']);
      expect((await user.get('/api/userstkpositions')).body).to.deep.equal(['NVDA']);
    });

    it('answers 404 naming params.symbol, appending nothing, for a symbol not in the portfolio', async function () {
      const user = await gw.user();
      await user.post('/personalize/userstockportfolio', ['AAPL']);
      const res = await user.post('/personalize/delstockfromportfolio/msft');
      expect(res.status).to.equal(404, res.text);
      expect(res.body).to.deep.include({
        error: 'not_found',
        message: 'params.symbol: MSFT is not in the portfolio',
      });
      expect(await eventCount(user.username)).to.equal(1);
      expect((await user.get('/api/userstkpositions')).body).to.deep.equal(['AAPL']);
      // Removed once, the second removal finds it gone too.
      expect((await user.post('/personalize/delstockfromportfolio/AAPL')).status).to.equal(200);
      const again = await user.post('/personalize/delstockfromportfolio/AAPL');
      expect(again.status).to.equal(404, again.text);
      expect(await eventCount(user.username)).to.equal(2);
    });

    it('answers a retried removal with the same Idempotency-Key as it answered the first time', async function () {
      const user = await gw.user();
      await user.post('/personalize/userstockportfolio', ['AAPL', 'MSFT']);
      const headers = { 'Idempotency-Key': 'remove-1' };
      const first = await user.post('/personalize/delstockfromportfolio/AAPL', undefined, headers);
      const retried = await user.post('/personalize/delstockfromportfolio/AAPL', undefined, headers);
      expect([first.status, retried.status]).to.deep.equal([200, 200], retried.text);
      expect(retried.body).to.deep.equal(['MSFT']);
      expect(await eventCount(user.username)).to.equal(3);
    });

    it('removes the lots of a removed symbol too', async function () {
      const user = await gw.user();
      await user.post('/personalize/userPositions/AAPL', [lot(), lot('2024-06-03', 190, 5)]);
      await user.post('/personalize/userPositions/MSFT', lot());
      expect((await user.post('/personalize/delstockfromportfolio/AAPL')).body).to.deep.equal(['MSFT']);
      expect((await user.get('/personalize/userPositions/AAPL')).body).to.deep.equal({ symbol: 'AAPL', positions: [] });
      expect(((await user.get('/personalize/userPositions/MSFT')).body as Positions).positions).to.have.length(1);
      await user.post('/personalize/userstockportfolio', ['AAPL']);
      expect((await user.get('/personalize/userPositions/AAPL')).body).to.deep.equal({ symbol: 'AAPL', positions: [] });
    });

    it('appends nothing for a retried POST with the same Idempotency-Key and answers the same', async function () {
      const user = await gw.user();
      const headers = { 'Idempotency-Key': 'portfolio-1' };
      const first = await user.post('/personalize/userstockportfolio', ['AAPL'], headers);
      await user.post('/personalize/userstockportfolio', ['MSFT']);
      const retried = await user.post('/personalize/userstockportfolio', ['AAPL'], headers);
      expect(retried.status).to.equal(200);
      expect(retried.body).to.deep.equal(first.body);
      expect(await eventCount(user.username)).to.equal(2);
    });

    describe('bad symbol lists', function () {
      refusesEach('/personalize/userstockportfolio', [
        ['an empty list', { body: [] }, 400, 'body'],
        ['a number instead of symbols', { body: 42 }, 400, 'body'],
        ['a symbol of the wrong type', { body: ['AAPL', 7] }, 400, 'body[1]'],
        ['a symbol breaking the rule', { body: ['AAPL', 'BAD SYMBOL!'] }, 400, 'body[1]'],
        ['a symbol outside the universe', { body: ['AAPL', 'ZZZZZZ'] }, 400, 'body[1]'],
        ['an object of symbols', { body: { symbols: ['AAPL'] } }, 400, 'body'],
        ['more than 200 symbols', { body: Array.from({ length: 201 }, () => 'AAPL') }, 400, 'body'],
        ...common,
      ]);
    });

    it('refuses a removal with a bad symbol naming params.symbol', async function () {
      const user = await gw.user();
      const res = await user.post('/personalize/delstockfromportfolio/BAD%20ONE');
      expect(res.status).to.equal(400);
      expect((res.body as { message: string }).message).to.match(/^params\.symbol:/);
    });
  });

  describe('lots', function () {
    it('answers no positions for a symbol without lots', async function () {
      const user = await gw.user();
      const res = await user.get('/personalize/userPositions/aapl');
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ symbol: 'AAPL', positions: [] });
    });

    it('refuses the lots of a symbol the universe does not list, naming params.symbol', async function () {
      const user = await gw.user();
      await user.getRefused('/personalize/userPositions/ZZZZ', 'params.symbol');
    });

    it('adds one lot, answers {symbol, positions} with its id, and adds the symbol to the portfolio', async function () {
      const user = await gw.user();
      const res = await user.post('/personalize/userPositions/aapl', lot('2024-05-01', 170.25, 10));
      expect(res.status).to.equal(200);
      const body = res.body as Positions;
      expect(body.symbol).to.equal('AAPL');
      expect(body.positions).to.have.length(1);
      const [added] = body.positions;
      expect(Object.keys(added!)).to.deep.equal(['id', 'date', 'close', 'position']);
      expect(isUuid(added!.id)).to.equal(true);
      expect(added).to.deep.include(lot('2024-05-01', 170.25, 10));
      expect((await user.get('/personalize/userPositions/AAPL')).body).to.deep.equal(body);
      expect((await user.get('/api/userstkpositions')).body).to.deep.equal(['AAPL']);
    });

    it('adds a list of lots after the ones already there, short ones and fractional shares included', async function () {
      const user = await gw.user();
      await user.post('/personalize/userstockportfolio', ['MSFT']);
      await user.post('/personalize/userPositions/MSFT', lot('2024-01-02', 370, 3));
      const res = await user.post('/personalize/userPositions/MSFT', [
        lot('2024-02-01', 400.1, -2),
        lot('2024-03-01', 410, 0.123456),
      ]);
      const positions = (res.body as Positions).positions.map(({ date, close, position }) => ({
        date,
        close,
        position,
      }));
      expect(positions).to.deep.equal([
        lot('2024-01-02', 370, 3),
        lot('2024-02-01', 400.1, -2),
        lot('2024-03-01', 410, 0.123456),
      ]);
      expect(new Set((res.body as Positions).positions.map((p) => p.id)).size).to.equal(3);
      expect((await user.get('/api/userstkpositions')).body).to.deep.equal(['MSFT']);
    });

    it('lists lots oldest first, those of one date in the order added, whatever the order they came in', async function () {
      const user = await gw.user();
      const first = (await user.post('/personalize/userPositions/MSFT', lot('2024-03-01', 410, 1))).body as Positions;
      const res = await user.post('/personalize/userPositions/MSFT', [
        lot('2024-03-01', 411, 2),
        lot('2024-01-02', 370, 3),
      ]);
      expect(res.status).to.equal(200, res.text);
      const listed = (res.body as Positions).positions;
      expect(listed.map((p) => [p.date, p.close])).to.deep.equal([
        ['2024-01-02', 370],
        ['2024-03-01', 410],
        ['2024-03-01', 411],
      ]);
      expect(listed[1]!.id).to.equal(first.positions[0]!.id);
      expect((await user.get('/personalize/userPositions/MSFT')).body).to.deep.equal(res.body);
      const removed = await user.post('/personalize/deluserPositions/MSFT', { id: listed[1]!.id });
      expect((removed.body as Positions).positions).to.deep.equal([listed[0], listed[2]]);
    });

    it('rounds prices to whole cents', async function () {
      const user = await gw.user();
      const res = await user.post('/personalize/userPositions/AAPL', [
        lot('2024-05-01', 170.005),
        lot('2024-05-01', 99.994),
      ]);
      expect((res.body as Positions).positions.map((p) => p.close)).to.deep.equal([170.01, 99.99]);
    });

    it('accepts a lot dated today', async function () {
      const user = await gw.user();
      const res = await user.post('/personalize/userPositions/AAPL', lot(utcDate(0)));
      expect(res.status).to.equal(200, res.text);
    });

    it('removes a lot by its id and answers what is left', async function () {
      const user = await gw.user();
      const added = (await user.post('/personalize/userPositions/AAPL', [lot('2024-05-01'), lot('2024-05-02')]))
        .body as Positions;
      const res = await user.post('/personalize/deluserPositions/aapl', { id: added.positions[0]!.id });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ symbol: 'AAPL', positions: [added.positions[1]] });
      expect((await user.get('/personalize/userPositions/AAPL')).body).to.deep.equal(res.body);
      expect((await user.get('/api/userstkpositions')).body).to.deep.equal(['AAPL']);
    });

    it('removes the oldest lot matching the fields given', async function () {
      const user = await gw.user();
      const added = (
        await user.post('/personalize/userPositions/AAPL', [
          lot('2024-05-01', 10),
          lot('2024-05-02', 10),
          lot('2024-05-01', 10),
        ])
      ).body as Positions;
      const res = await user.post('/personalize/deluserPositions/AAPL', lot('2024-05-01', 10.004, 10));
      expect(res.status).to.equal(200);
      expect((res.body as Positions).positions).to.deep.equal(added.positions.slice(1));
    });

    it('answers 404 naming the field for an unknown lot, appending nothing', async function () {
      const user = await gw.user();
      const added = (await user.post('/personalize/userPositions/AAPL', lot())).body as Positions;
      const before = await eventCount(user.username);
      const byId = await user.post('/personalize/deluserPositions/AAPL', {
        id: '6ba7b810-9dad-51d1-80b4-00c04fd430c8',
      });
      expect(byId.status).to.equal(404);
      expect((byId.body as { message: string }).message).to.match(/^body\.id /);
      const byFields = await user.post('/personalize/deluserPositions/AAPL', lot('2024-05-01', 1, 1));
      expect(byFields.status).to.equal(404);
      expect((byFields.body as { message: string }).message).to.match(/^body /);
      const otherSymbol = await user.post('/personalize/deluserPositions/MSFT', lot());
      expect(otherSymbol.status).to.equal(404);
      expect(otherSymbol.body).to.deep.include({
        error: 'not_found',
        message: 'params.symbol: MSFT is not in the portfolio',
      });
      const otherById = await user.post('/personalize/deluserPositions/msft', { id: added.positions[0]!.id });
      expect(otherById.status).to.equal(404);
      expect((otherById.body as { message: string }).message).to.equal('params.symbol: MSFT is not in the portfolio');
      expect(await eventCount(user.username)).to.equal(before);
      expect(((await user.get('/personalize/userPositions/AAPL')).body as Positions).positions).to.have.length(1);
    });

    it("answers 404 for another user's lot id and leaves both users' lots alone", async function () {
      const ada = await gw.user('ada');
      const bob = await gw.user('bob');
      const adas = (await ada.post('/personalize/userPositions/AAPL', lot())).body as Positions;
      await bob.post('/personalize/userPositions/AAPL', lot('2024-01-05'));
      const res = await bob.post('/personalize/deluserPositions/AAPL', { id: adas.positions[0]!.id });
      expect(res.status).to.equal(404);
      expect((await ada.get('/personalize/userPositions/AAPL')).body).to.deep.equal(adas);
      expect(((await bob.get('/personalize/userPositions/AAPL')).body as Positions).positions).to.have.length(1);
      expect(await eventCount(bob.username)).to.equal(2);
    });

    it("never shows one user another's portfolio or lots", async function () {
      const ada = await gw.user('ada');
      const bob = await gw.user('bob');
      await ada.post('/personalize/userPositions/NVDA', lot());
      await bob.post('/personalize/userstockportfolio', ['XOM']);
      expect((await bob.get('/api/userstkpositions')).body).to.deep.equal(['XOM']);
      expect((await bob.get('/personalize/userPositions/NVDA')).body).to.deep.equal({ symbol: 'NVDA', positions: [] });
      expect((await ada.get('/api/userstkpositions')).body).to.deep.equal(['NVDA']);
    });

    it('gives the same lot ids and appends nothing for a retried POST with the same Idempotency-Key', async function () {
      const user = await gw.user();
      const headers = { 'Idempotency-Key': 'lots-1' };
      const first = await user.post('/personalize/userPositions/AAPL', [lot(), lot('2024-05-02')], headers);
      await user.post('/personalize/userPositions/AAPL', lot('2024-05-03'));
      const before = await eventCount(user.username);
      const retried = await user.post('/personalize/userPositions/AAPL', [lot(), lot('2024-05-02')], headers);
      expect(retried.status).to.equal(200);
      expect(retried.body).to.deep.equal(first.body);
      expect(await eventCount(user.username)).to.equal(before);
      expect(((await user.get('/personalize/userPositions/AAPL')).body as Positions).positions).to.have.length(3);
    });

    it('appends nothing for a retried removal with the same Idempotency-Key and answers the same', async function () {
      const user = await gw.user();
      const added = (await user.post('/personalize/userPositions/AAPL', [lot(), lot()])).body as Positions;
      const headers = { 'Idempotency-Key': 'del-1' };
      const first = await user.post('/personalize/deluserPositions/AAPL', lot(), headers);
      const retried = await user.post('/personalize/deluserPositions/AAPL', lot(), headers);
      expect(retried.body).to.deep.equal(first.body);
      expect((await user.get('/personalize/userPositions/AAPL')).body).to.deep.equal({
        symbol: 'AAPL',
        positions: [added.positions[1]],
      });
    });

    it(`holds ${LOTS_PER_SYMBOL_LIMIT} lots of a symbol and refuses one more with 400 limit naming body`, async function () {
      const user = await gw.user();
      const many = Array.from({ length: LOTS_PER_SYMBOL_LIMIT }, (_, i) => lot('2024-05-01', 100 + i));
      expect(((await user.post('/personalize/userPositions/AAPL', many)).body as Positions).positions).to.have.length(
        LOTS_PER_SYMBOL_LIMIT,
      );
      const before = await eventCount(user.username);
      const res = await user.post('/personalize/userPositions/AAPL', lot());
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.include({ error: 'limit' });
      expect((res.body as { message: string }).message).to.match(/^body /);
      expect(await eventCount(user.username)).to.equal(before);
    });

    describe('bad lots to add', function () {
      refusesEach('/personalize/userPositions/AAPL', [
        ['a missing date', { body: { close: 1, position: 1 } }, 400, 'body.date'],
        ['a date that is not a calendar date', { body: lot('2025-02-30') }, 400, 'body.date'],
        ['a date with a time', { body: lot('2024-05-01T10:00:00Z') }, 400, 'body.date'],
        ['a date in the future', { body: lot(utcDate(2)) }, 400, 'body.date'],
        ['a date before 1900', { body: lot('1899-12-29') }, 400, 'body.date'],
        ['a price of 0', { body: lot('2024-05-01', 0) }, 400, 'body.close'],
        ['a negative price', { body: lot('2024-05-01', -3) }, 400, 'body.close'],
        ['a price that rounds to 0', { body: lot('2024-05-01', 0.004) }, 400, 'body.close'],
        ['a price as text', { body: { ...lot(), close: '170' } }, 400, 'body.close'],
        ['a price past 10,000,000', { body: lot('2024-05-01', 10_000_000.01) }, 400, 'body.close'],
        ['an infinite price', { raw: '{"date":"2024-05-01","close":1e999,"position":1}' }, 400, 'body.close'],
        ['a quantity of 0', { body: lot('2024-05-01', 10, 0) }, 400, 'body.position'],
        ['a quantity with 7 decimals', { body: lot('2024-05-01', 10, 0.1234567) }, 400, 'body.position'],
        ['a quantity past a billion', { body: lot('2024-05-01', 10, -1_000_000_001) }, 400, 'body.position'],
        ['a missing quantity', { body: { date: '2024-05-01', close: 10 } }, 400, 'body.position'],
        ['an empty list', { body: [] }, 400, 'body'],
        ['a bad lot in a list', { body: [lot(), lot('2024-05-01', 'x' as unknown as number)] }, 400, 'body[1].close'],
        ['a future lot in a list', { body: [lot(), lot(utcDate(3))] }, 400, 'body[1].date'],
        ['more than 100 lots', { body: Array.from({ length: 101 }, () => lot()) }, 400, 'body'],
        ['a number', { body: 5 }, 400, 'body'],
        ...common,
      ]);

      it('refuses a symbol outside the universe and a bad symbol, naming params.symbol', async function () {
        const user = await gw.user();
        for (const path of ['/personalize/userPositions/ZZZZZZ', '/personalize/userPositions/BAD%20ONE']) {
          const res = await user.post(path, lot());
          expect(res.status).to.equal(400);
          expect((res.body as { message: string }).message).to.match(/^params\.symbol:/);
        }
        expect(await eventCount(user.username)).to.equal(0);
      });
    });

    describe('bad lots to remove', function () {
      refusesEach(
        '/personalize/deluserPositions/AAPL',
        [
          ['an empty object', { body: {} }, 400, 'body.id'],
          ['an id that is not a lot id', { body: { id: 'abc' } }, 400, 'body.id'],
          ['an id that is a number', { body: { id: 5 } }, 400, 'body.id'],
          ['fields with a bad date', { body: lot('yesterday') }, 400, 'body.date'],
          ['fields with a quantity of 0', { body: lot('2024-05-01', 10, 0) }, 400, 'body.position'],
          ['a list of lots', { body: [lot()] }, 400, 'body'],
          ...common,
        ],
        async (user) => {
          await user.post('/personalize/userPositions/AAPL', lot());
        },
      );
    });
  });

  it('refuses every portfolio route without a session', async function () {
    const anonymous = gw.client();
    expect((await anonymous.get('/api/userstkpositions')).status).to.equal(401);
    expect((await anonymous.get('/personalize/userPositions/AAPL')).status).to.equal(401);
    expect((await anonymous.post('/personalize/userstockportfolio', ['AAPL'])).status).to.equal(401);
    expect((await anonymous.post('/personalize/delstockfromportfolio/AAPL')).status).to.equal(401);
    expect((await anonymous.post('/personalize/userPositions/AAPL', lot())).status).to.equal(401);
    expect((await anonymous.post('/personalize/deluserPositions/AAPL', lot())).status).to.equal(401);
  });

  it('keeps the portfolio and its lots across a restart', async function () {
    const gw2 = await startTestGateway();
    const user = await gw2.user();
    await user.post('/personalize/userstockportfolio', ['NVDA']);
    const added = (await user.post('/personalize/userPositions/AAPL', lot())).body as Positions;
    const dataDir = gw2.dataDir;
    await gw2.close({ keepData: true });
    const restarted = await startTestGateway({ dataDir });
    const again = restarted.client();
    for (const [k, v] of user.cookies) again.cookies.set(k, v);
    expect((await again.get('/api/userstkpositions')).body).to.deep.equal(['NVDA', 'AAPL']);
    expect((await again.get('/personalize/userPositions/AAPL')).body).to.deep.equal(added);
    await restarted.close();
  });
});
