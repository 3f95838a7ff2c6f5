import { expect } from 'chai';
import { io as connect, type Socket } from 'socket.io-client';
import type { Quote } from '../../engine/market/quotes.ts';
import { startTestGateway, type TestClient, type TestGateway } from '../testing/harness.ts';
import type {
  ClientToServerEvents,
  NotificationPush,
  QuotesAck,
  ReadModelChange,
  ServerToClientEvents,
} from '../../domain/contract/socket.ts';

const TOKEN = 'feed-token-0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };

type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

function open(gw: TestGateway, client?: TestClient): ClientSocket {
  const cookie = client ? [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ') : '';
  return connect(gw.url, {
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    extraHeaders: cookie ? { cookie } : {},
  });
}

function connected(socket: ClientSocket): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
}

function subscribe(socket: ClientSocket, symbols: unknown): Promise<QuotesAck> {
  return new Promise((resolve) => socket.emit('quotes:subscribe', { symbols } as { symbols: string[] }, resolve));
}

function next<T>(socket: ClientSocket, event: 'quote' | 'notification' | 'readmodel:changed', ms = 3000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${ms} ms`)), ms);
    socket.once(event, (value: unknown) => {
      clearTimeout(timer);
      resolve(value as T);
    });
  });
}

describe('realtime (Socket.IO)', function () {
  let gw: TestGateway;
  const sockets: ClientSocket[] = [];
  before(async function () {
    gw = await startTestGateway({ env: { FEED_TOKEN: TOKEN } });
  });
  afterEach(function () {
    for (const s of sockets.splice(0)) s.disconnect();
  });
  after(async function () {
    await gw.close();
  });

  it('refuses a handshake without a session, or with an unknown one', async function () {
    const anonymous = open(gw);
    sockets.push(anonymous);
    const error = await connected(anonymous).then(
      () => null,
      (e: Error) => e,
    );
    expect(error?.message).to.match(/unauthorized/);
    const client = gw.client();
    client.cookies.set('sid', 'not-a-session');
    const forged = open(gw, client);
    sockets.push(forged);
    expect(
      await connected(forged).then(
        () => 'connected',
        () => 'refused',
      ),
    ).to.equal('refused');
  });

  it('acknowledges a subscription with a snapshot, refuses bad symbols naming them, and streams quotes', async function () {
    const user = await gw.user();
    const socket = open(gw, user);
    sockets.push(socket);
    await connected(socket);
    const ack = await subscribe(socket, ['aapl', 'MSFT']);
    expect(ack.ok).to.equal(true);
    if (!ack.ok) return;
    expect(ack.symbols).to.deep.equal(['AAPL', 'MSFT']);
    expect(ack.quotes.map((q) => q.symbol)).to.deep.equal(['AAPL', 'MSFT']);
    expect(Object.keys(ack.quotes[0]!).sort()).to.deep.equal([
      'change',
      'changepct',
      'price',
      'symbol',
      'ts',
      'volume',
    ]);
    const bad = await subscribe(socket, ['AAPL', 'ZZZZZZ']);
    expect(bad).to.deep.equal({ ok: false, message: 'symbols[1]: unknown symbol ZZZZZZ' });
    expect((await subscribe(socket, 'AAPL')).ok).to.equal(false);

    const quote = next<Quote>(socket, 'quote');
    const price = Math.round((ack.quotes[0]!.price + 2) * 100) / 100;
    const ticks = [1, 2, 3].map((i) => ({ symbol: 'AAPL', price: price + i / 100, size: 10 }));
    expect((await gw.client().post('/api/feed/ticks', ticks, AUTH)).status).to.equal(202);
    const got = await quote;
    expect(got).to.include({ symbol: 'AAPL', price: price + 0.03, volume: 30 });

    const metrics = await gw.client().get('/metrics');
    expect(metrics.text).to.match(/^stockpulse_sockets 1$/m);
  });

  it("pushes a notification to its user's sockets only, after it is in the read model", async function () {
    const alice = await gw.user('alice');
    const bob = await gw.user('bob');
    const aliceSocket = open(gw, alice);
    const bobSocket = open(gw, bob);
    sockets.push(aliceSocket, bobSocket);
    await Promise.all([connected(aliceSocket), connected(bobSocket)]);
    const bobGot: unknown[] = [];
    bobSocket.on('notification', (n) => bobGot.push(n));
    bobSocket.on('readmodel:changed', (c) => bobGot.push(c));
    const aliceChanges: ReadModelChange[] = [];
    aliceSocket.on('readmodel:changed', (c) => aliceChanges.push(c));

    const quotes = (await alice.get('/api/quotes?symbols=NVDA')).body as Quote[];
    const threshold = Math.round((quotes[0]!.price + 1) * 100) / 100;
    const created = await alice.post('/personalize/stockalerts', { symbol: 'NVDA', close: threshold, alerttype: 'U' });
    expect(created.status).to.equal(200, created.text);

    const pushed = next<NotificationPush>(aliceSocket, 'notification');
    const sent = performance.now();
    expect((await gw.client().post('/api/feed/ticks', [{ symbol: 'NVDA', price: threshold }], AUTH)).status).to.equal(
      202,
    );
    const notification = await pushed;
    const elapsedMs = performance.now() - sent;
    expect(notification).to.include({ symbol: 'NVDA', notificationtype: 1, read: false });
    expect(notification.position).to.match(/^\d+\/\d+$/);
    expect(aliceChanges.map((c) => c.name)).to.include('alerts');
    const listed = (await alice.get('/personalize/usernotifications/ALL')).body as { id: string }[];
    expect(listed.map((n) => n.id)).to.deep.equal([notification.id]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(bobGot).to.deep.equal([]);
    expect(elapsedMs).to.be.below(1000);
  });
});
