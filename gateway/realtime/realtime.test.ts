import { expect } from 'chai';
import { io as connect, type Socket } from 'socket.io-client';
import type { Quote } from '../../engine/market/quotes.ts';
import { parsePosition } from '../../platform/eventstore/port.ts';
import type { NotificationAnswer } from '../routes/notifications.ts';
import { startTestGateway, type TestClient, type TestGateway } from '../testing/harness.ts';
import { QUOTE_INTERVAL_MS } from './throttle.ts';
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

function open(gw: TestGateway, client?: TestClient, auth?: Record<string, unknown>): ClientSocket {
  const cookie = client ? [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ') : '';
  return connect(gw.url, {
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    extraHeaders: cookie ? { cookie } : {},
    ...(auth ? { auth } : {}),
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

/**
 * A round trip on the socket: Socket.IO delivers one socket's packets in order, so once the answer to a request
 * sent now is back, everything the server sent the socket before has arrived too.
 */
async function roundTrip(socket: ClientSocket): Promise<void> {
  const answer = await subscribe(socket, ['AAPL']);
  expect(answer.ok).to.equal(true);
}

function until(predicate: () => boolean, ms = 3000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (predicate()) resolve();
      else if (Date.now() - started > ms) reject(new Error(`condition not met in ${ms} ms`));
      else setTimeout(check, 5);
    };
    check();
  });
}

/** Creates a price alert `above` dollars over the current price of `symbol`; answers its threshold. */
async function crossAbove(user: TestClient, symbol: string, above: number): Promise<number> {
  const quotes = (await user.get(`/api/quotes?symbols=${symbol}`)).body as Quote[];
  const threshold = Math.round((quotes[0]!.price + above) * 100) / 100;
  const created = await user.post('/personalize/stockalerts', { symbol, close: threshold, alerttype: 'U' });
  expect(created.status).to.equal(200, created.text);
  return threshold;
}

describe('realtime (Socket.IO)', function () {
  let gw: TestGateway;
  const sockets: ClientSocket[] = [];
  before(async function () {
    // The market is built once per test process; on a busy machine that outlasts a test's time.
    this.timeout(180_000);
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

  it('refuses a session cookie that is not URL-encoded text, and goes on serving', async function () {
    for (const token of ['%', '%E0%A4%A']) {
      const client = gw.client();
      client.cookies.set('sid', token);
      const socket = open(gw, client);
      sockets.push(socket);
      const error = await connected(socket).then(
        () => null,
        (e: Error) => e,
      );
      expect(error?.message, token).to.match(/unauthorized/);
    }
    const socket = open(gw, await gw.user());
    sockets.push(socket);
    await connected(socket);
    expect(socket.connected).to.equal(true);
  });

  /** A user signed in twice (this client and another), with a connected socket in each session. */
  async function signedInTwice() {
    const user = await gw.user();
    const elsewhere = gw.client();
    expect(
      (await elsewhere.post('/api/login', { username: user.username, password: 'correct horse' })).status,
    ).to.equal(200);
    const mine = open(gw, user);
    const theirs = open(gw, elsewhere);
    sockets.push(mine, theirs);
    await Promise.all([connected(mine), connected(theirs)]);
    return { user, elsewhere, mine, theirs };
  }

  it("disconnects a session's sockets when it signs out, and only that session's", async function () {
    const { user, mine, theirs } = await signedInTwice();
    const closed = new Promise<string>((resolve) => mine.once('disconnect', resolve));
    expect((await user.post('/api/logout')).status).to.equal(200);
    expect(await closed).to.equal('io server disconnect');
    // The same user signed in elsewhere is still served.
    await roundTrip(theirs);
    expect(theirs.connected).to.equal(true);
  });

  it("disconnects the other sessions' sockets when a user ends them, and keeps this session's", async function () {
    const { user, elsewhere, mine, theirs } = await signedInTwice();
    const closed = new Promise<string>((resolve) => theirs.once('disconnect', resolve));
    const ended = await user.post('/api/account/sessions/end-others');
    expect(ended.body).to.deep.equal({ endedSessions: 1 });
    expect(await closed).to.equal('io server disconnect');
    await roundTrip(mine);
    expect((await elsewhere.get('/api/loggedinstatus')).body).to.equal(false);
  });

  it('disconnects a socket when its session expires', async function () {
    const user = await gw.user();
    const token = await gw.running.system.appDeps.sessions.create(user.username, [], 300);
    const client = gw.client();
    client.cookies.set('sid', token);
    const socket = open(gw, client);
    sockets.push(socket);
    const closed = new Promise<string>((resolve) => socket.once('disconnect', resolve));
    await connected(socket);
    expect(await closed).to.equal('io server disconnect');
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
      'high',
      'low',
      'open',
      'price',
      'source',
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

  it("pushes a notification to its user's sockets only, as soon as the trigger is durable", async function () {
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

    const threshold = await crossAbove(alice, 'NVDA', 1);
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
    // Read-your-writes: once the read models include the pushed position, the GET route lists it.
    await gw.running.system.appDeps.readModelSync.waitFor(parsePosition(notification.position)!, ['AlertTriggered']);
    const listed = (await alice.get('/personalize/usernotifications/ALL')).body as NotificationAnswer[];
    expect(listed).to.deep.equal([
      {
        id: notification.id,
        symbol: notification.symbol,
        notificationtype: notification.notificationtype,
        notifcationmessage: notification.notifcationmessage,
        createdt: notification.createdt,
        read: false,
        note: null,
      },
    ]);
    // Whatever was pushed for the trigger and the commits went out before these round trips came back.
    await roundTrip(bobSocket);
    expect(bobGot).to.deep.equal([]);
    expect(elapsedMs).to.be.below(1000);
  });

  it('sends a reconnecting socket the notifications after its last position, oldest first, each once', async function () {
    const carol = await gw.user('carol');
    const first = open(gw, carol);
    sockets.push(first);
    await connected(first);
    const seen: NotificationPush[] = [];
    first.on('notification', (n) => seen.push(n));
    const t1 = await crossAbove(carol, 'MSFT', 1);
    const firstPush = next<NotificationPush>(first, 'notification');
    await gw.client().post('/api/feed/ticks', [{ symbol: 'MSFT', price: t1 }], AUTH);
    const last = await firstPush;
    first.disconnect();

    // Two alerts fire while no page is open.
    const t2 = await crossAbove(carol, 'XOM', 1);
    const t3 = await crossAbove(carol, 'KO', 1);
    await gw.client().post(
      '/api/feed/ticks',
      [
        { symbol: 'XOM', price: t2 },
        { symbol: 'KO', price: t3 },
      ],
      AUTH,
    );
    await gw.running.system.engine!.alerts.flush();

    const back = open(gw, carol, { since: last.position });
    sockets.push(back);
    const missed: NotificationPush[] = [];
    back.on('notification', (n) => missed.push(n));
    await connected(back);
    await until(() => missed.length >= 2);
    await roundTrip(back);
    expect(missed.map((n) => n.symbol)).to.deep.equal(['XOM', 'KO']);
    expect(new Set(missed.map((n) => n.id)).size).to.equal(2);
    for (const n of missed)
      expect(n.position > last.position || n.position.length > last.position.length).to.equal(true);

    // A socket that saw nothing yet (position 0/0) gets all three; one that is up to date gets none.
    const fresh = open(gw, carol, { since: '0/0' });
    const upToDate = open(gw, carol, { since: missed[1]!.position });
    sockets.push(fresh, upToDate);
    const all: NotificationPush[] = [];
    const none: NotificationPush[] = [];
    fresh.on('notification', (n) => all.push(n));
    upToDate.on('notification', (n) => none.push(n));
    await Promise.all([connected(fresh), connected(upToDate)]);
    await until(() => all.length >= 3);
    // Every catch-up has been sent once no socket of the server is catching up any more.
    await until(() => [...gw.running.realtime!.io.of('/').sockets.values()].every((s) => s.data.catchingUp === null));
    await Promise.all([roundTrip(fresh), roundTrip(upToDate)]);
    expect(all.map((n) => n.symbol)).to.deep.equal(['MSFT', 'XOM', 'KO']);
    expect(none).to.deep.equal([]);
    expect(seen.map((n) => n.id)).to.deep.equal([last.id]);
  });

  it('refuses a handshake whose since is not a position, naming the field', async function () {
    const dave = await gw.user('dave');
    const socket = open(gw, dave, { since: 'yesterday' });
    sockets.push(socket);
    const error = await connected(socket).then(
      () => null,
      (e: Error) => e,
    );
    expect(error?.message).to.match(/^auth\.since: /);
  });

  it('sends the first quote of a symbol at once and coalesces the next ones to 4 a second', async function () {
    const erin = await gw.user('erin');
    const socket = open(gw, erin);
    sockets.push(socket);
    await connected(socket);
    const ack = await subscribe(socket, ['JPM']);
    if (!ack.ok) throw new Error(ack.message);
    const base = ack.quotes[0]!.price;
    const got: { at: number; quote: Quote }[] = [];
    socket.on('quote', (quote) => got.push({ at: performance.now(), quote }));
    const sent = performance.now();
    for (let i = 1; i <= 10; i++) {
      await gw
        .client()
        .post('/api/feed/ticks', [{ symbol: 'JPM', price: Math.round((base + i / 100) * 100) / 100 }], AUTH);
    }
    await until(() => got.at(-1)?.quote.price === Math.round((base + 0.1) * 100) / 100);
    expect(got[0]!.at - sent).to.be.below(200);
    // Measured where the quotes arrive, so a little jitter of the network is allowed.
    for (let i = 1; i < got.length; i++) expect(got[i]!.at - got[i - 1]!.at).to.be.at.least(QUOTE_INTERVAL_MS - 50);
    expect(got.length, 'coalesced').to.be.below(10);
  });
});
