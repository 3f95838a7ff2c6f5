import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { io as connect, type Socket } from 'socket.io-client';
import { PLAIN_TEXT_MESSAGE } from '../../domain/text.ts';
import { MAX_SOCKETS_PER_USER } from '../realtime/socketCap.ts';
import { MAX_PARALLEL_FITS_PER_USER } from './prediction.ts';
import { useTestGateway, type TestClient, type TestGateway } from '../testing/harness.ts';

const HOSTILE_TEXTS: readonly (readonly [string, string])[] = [
  ['NUL', 'Tech\u0000leaders'],
  ['ESC', 'Tech \u001b[31mleaders'],
  ['CR/LF', 'Tech\r\nleaders'],
  ['a lone surrogate', 'Tech \ud83d leaders'],
];

const rsiLow = { label: 'RSI low', query: { type: 'rsi', param: 14, op: '<', val: 30 } };
const weekly = { symbol: 'AAPL', horizon: 5, model: 'ridge', features: { lagReturns: 3, rsi: true } };

/** Each free-text name a user gives, as the body that carries it and the field a refusal names. */
const NAMED: readonly { path: string; field: string; body: (text: string) => unknown }[] = [
  { path: '/personalize/stockalertquery', field: 'body.queryname', body: (t) => ({ queryname: t, query: [rsiLow] }) },
  {
    path: '/personalize/stockalertquery',
    field: 'body.type',
    body: (t) => ({ queryname: 'q', type: t, query: [rsiLow] }),
  },
  { path: '/personalize/sectors', field: 'body.name', body: (t) => ({ name: t }) },
  { path: '/personalize/predictions', field: 'body.name', body: (t) => ({ name: t, ...weekly }) },
  { path: '/personalize/snapshots', field: 'body.title', body: (t) => ({ title: t, image: 'data:image/png;base64,' }) },
];

describe('hostile input on the personal routes', function () {
  let gw: TestGateway;
  useTestGateway((started) => {
    gw = started;
  });

  describe('control characters in names', function () {
    for (const { path, field, body } of NAMED) {
      for (const [what, text] of HOSTILE_TEXTS) {
        it(`refuses ${what} in ${field} of ${path} with 400 naming the field`, async function () {
          const user = await gw.user();
          const res = await user.post(path, body(text));
          expect(res.status, res.text).to.equal(400);
          expect((res.body as { message: string }).message).to.equal(`${field}: ${PLAIN_TEXT_MESSAGE}`);
        });
      }
    }

    it('refuses a control character in a clause label, naming the clause', async function () {
      const user = await gw.user();
      const res = await user.post('/personalize/stockalertquery', {
        queryname: 'q',
        query: [{ ...rsiLow, label: 'RSI\u001blow' }],
      });
      expect(res.status, res.text).to.equal(400);
      expect((res.body as { message: string }).message).to.contain(`label ${PLAIN_TEXT_MESSAGE}`);
      expect((await user.get('/personalize/stockalertquery')).body).to.deep.equal([]);
    });

    it('keeps accents and emoji', async function () {
      const user = await gw.user();
      const res = await user.post('/personalize/sectors', { name: 'Énergie 🚀' });
      expect(res.status, res.text).to.equal(200);
    });
  });

  describe('removing what is not there', function () {
    it('answers 404 naming params.symbol for a symbol not on the watch list', async function () {
      const user = await gw.user();
      await user.post('/personalize/createwatchlist', ['NVDA']);
      const res = await user.post('/personalize/delstkwatchlist/AAPL');
      expect(res.status, res.text).to.equal(404);
      expect(res.body).to.include({ error: 'not_found', message: 'params.symbol: AAPL is not on the watch list' });
      expect((await user.get('/personalize/watchlist')).body).to.deep.equal(['NVDA']);
    });

    it('answers 404 naming params.symbol for a symbol not in the sector', async function () {
      const user = await gw.user();
      const sector = (await user.post('/personalize/sectors', { name: 'Chips', symbols: ['NVDA'] })).body as {
        id: string;
      };
      const res = await user.post(`/personalize/sectors/${sector.id}/delsymbol/AAPL`);
      expect(res.status, res.text).to.equal(404);
      expect((res.body as { message: string }).message).to.equal('params.symbol: AAPL is not on the sector');
    });

    for (const path of [
      '/personalize/deletealert/:id',
      '/personalize/delstkalertqry/:id',
      '/personalize/delprediction/:id',
      '/personalize/delsector/:id',
      '/personalize/delsnapshot/:id',
    ]) {
      it(`names params.id, not a command field, in the 404 of ${path}`, async function () {
        const user = await gw.user();
        const id = randomUUID();
        const res = await user.post(path.replace(':id', id));
        expect(res.status, res.text).to.equal(404);
        const message = (res.body as { message: string }).message;
        expect(message).to.match(/^params\.id: /);
        expect(message).to.contain(id);
        expect(message).not.to.match(/alertId|queryId|modelId|sectorId|snapshotId/);
      });
    }
  });

  describe('open sockets', function () {
    function open(client: TestClient): Socket {
      const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      return connect(gw.url, {
        transports: ['websocket'],
        reconnection: false,
        forceNew: true,
        extraHeaders: { cookie },
      });
    }
    function outcome(socket: Socket): Promise<string> {
      return new Promise((resolve) => {
        socket.once('connect', () => resolve('connected'));
        socket.once('connect_error', (error) => resolve(error.message));
      });
    }
    const sockets: Socket[] = [];
    afterEach(function () {
      for (const socket of sockets.splice(0)) socket.close();
    });

    it(`refuses a user's socket past ${MAX_SOCKETS_PER_USER}, and not another user's`, async function () {
      const user = await gw.user();
      for (let i = 0; i < MAX_SOCKETS_PER_USER; i++) {
        const socket = open(user);
        sockets.push(socket);
        expect(await outcome(socket)).to.equal('connected');
      }
      const extra = open(user);
      sockets.push(extra);
      expect(await outcome(extra)).to.equal(`too many sockets: at most ${MAX_SOCKETS_PER_USER} open per user`);
      const other = open(await gw.user());
      sockets.push(other);
      expect(await outcome(other)).to.equal('connected');
    });

    it('holds the cap against handshakes sent all at once', async function () {
      const user = await gw.user();
      const burst = Array.from({ length: MAX_SOCKETS_PER_USER * 2 }, () => open(user));
      sockets.push(...burst);
      await Promise.all(burst.map(outcome));
      const stillOpen = (): number => burst.filter((s) => s.connected).length;
      // A socket past the cap that raced through the handshake is disconnected right after it connects.
      for (let i = 0; i < 100 && stillOpen() > MAX_SOCKETS_PER_USER; i++) await new Promise((r) => setTimeout(r, 10));
      expect(stillOpen()).to.equal(MAX_SOCKETS_PER_USER);
    });
  });

  describe('expensive work', function () {
    it(`runs at most ${MAX_PARALLEL_FITS_PER_USER} prediction fits of one user at once; others answer 429, and other users still fit`, async function () {
      const user = await gw.user();
      const other = await gw.user();
      const specs = Array.from({ length: 8 }, (_, i) => ({
        ...weekly,
        horizon: i + 1,
        features: { lagReturns: 5, rsi: true, volume: true },
      }));
      const [answers, others] = await Promise.all([
        Promise.all(specs.map((spec) => user.post('/api/prediction/fit', spec))),
        other.post('/api/prediction/fit', { ...weekly, horizon: 9 }),
      ]);
      expect(others.status, others.text).to.equal(200);
      const statuses = answers.map((res) => res.status);
      expect(
        statuses.every((status) => status === 200 || status === 429),
        statuses.join(','),
      ).to.equal(true);
      expect(statuses.filter((status) => status === 200).length).to.be.at.least(MAX_PARALLEL_FITS_PER_USER);
      // Whether fits overlap depends on timing; the refusal itself is pinned down in http/concurrency.test.ts.
      const refused = answers.filter((res) => res.status === 429);
      for (const res of refused) {
        expect(res.headers.get('retry-after')).to.equal('1');
        expect(res.body).to.include({
          error: 'rate_limited',
          message: `too many prediction fits at once: at most ${MAX_PARALLEL_FITS_PER_USER} per user`,
        });
      }
    });
  });
});
