import { EventEmitter } from 'node:events';
import { expect } from 'chai';
import { openTickSource } from './sources.ts';
import { loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { memoryDayCloseClaims } from './dayCloser.ts';
import { finnhubProtocol } from './finnhub.ts';
import {
  calendarStreamSubject,
  EnginePath,
  LoopbackProvider,
  until,
  watchStream,
  type WatchedStream,
} from './providerTesting.ts';
import { tickSourceContract } from './tickSource.contract.ts';

const TOKEN = 'finnhub-test-token';

/** A loopback server speaking Finnhub's trade WebSocket: the token in the query, one subscription per message. */
function finnhubServer(): LoopbackProvider & { subscriptions: () => string[] } {
  const subs = new Map<unknown, Set<string>>();
  const server = new LoopbackProvider({
    refuse: (request) => (new URL(request.url ?? '/', 'ws://x').searchParams.get('token') === TOKEN ? null : 401),
    onMessage: (c, message) => {
      const m = message as { type: string; symbol?: string };
      const set = subs.get(c) ?? new Set<string>();
      subs.set(c, set);
      if (m.type === 'subscribe' && m.symbol) set.add(m.symbol);
      else if (m.type === 'unsubscribe' && m.symbol) set.delete(m.symbol);
      else c.socket.send(JSON.stringify({ type: 'error', msg: 'Invalid message' }));
    },
  });
  return Object.assign(server, { subscriptions: () => [...(subs.get(server.current) ?? [])].sort() });
}

function trades(...rows: [string, number, number, number][]): { type: 'trade'; data: unknown[] } {
  return { type: 'trade', data: rows.map(([s, p, v, t]) => ({ s, p, v, t, c: null })) };
}

describe('Finnhub trade stream', function () {
  let server: ReturnType<typeof finnhubServer>;
  let watched: WatchedStream | undefined;

  function start(demand: () => string[], token = TOKEN): WatchedStream {
    watched = watchStream(finnhubProtocol({ token, streamUrl: server.url }), demand);
    return watched;
  }

  async function subscribed(s: WatchedStream, symbols: string[]): Promise<void> {
    await until(
      () => server.connections.length > 0 && server.subscriptions().join() === symbols.join(),
      [server, s.events],
      'the subscriptions',
    );
  }

  beforeEach(async function () {
    server = finnhubServer();
    await server.listening();
  });

  afterEach(async function () {
    await watched?.stream.stop();
    watched = undefined;
    await server.close();
  });

  it('connects with the token and subscribes each symbol users need', async function () {
    const s = start(() => ['MSFT', 'aapl']);
    await subscribed(s, ['AAPL', 'MSFT']);
    expect(server.current.received).to.deep.equal([
      { type: 'subscribe', symbol: 'AAPL' },
      { type: 'subscribe', symbol: 'MSFT' },
    ]);
    expect(s.stream.health()).to.deep.include({ provider: 'finnhub', state: 'live', ok: true, subscribed: 2 });
  });

  it('reports a refused token as an authentication failure, never showing the token', async function () {
    const s = start(() => ['AAPL'], 'wrong-token');
    await until(() => s.healths.some((h) => h.state === 'auth-failed'), [server, s.events], 'the refusal');
    const failed = s.healths.find((h) => h.state === 'auth-failed')!;
    expect(failed).to.deep.include({ ok: false, reason: 'authentication failed: the server answered 401' });
    expect(JSON.stringify(s.healths)).to.not.include('wrong-token');
    expect(server.connections).to.have.length(0);
  });

  it('delivers a trade batch in time order, ignores pings, and rounds fractional volumes', async function () {
    const s = start(() => ['AAPL', 'BINANCE:BTCUSDT']);
    await subscribed(s, ['AAPL']);
    server.send({ type: 'ping' });
    server.send(trades(['AAPL', 230.5, 100, 1795532400250], ['AAPL', 230.25, 0.4, 1795532400125]));
    await until(() => s.ticks.length === 2, [s.events], 'the trades');
    expect(s.ticks).to.deep.equal([
      { symbol: 'AAPL', price: 230.25, size: 0, ts: 1795532400125 },
      { symbol: 'AAPL', price: 230.5, size: 100, ts: 1795532400250 },
    ]);
    expect(s.stream.health()).to.deep.include({ badMessages: 0, trades: 2 });
  });

  it('reports an error message and keeps the connection', async function () {
    const s = start(() => ['AAPL']);
    await subscribed(s, ['AAPL']);
    server.send({ type: 'error', msg: 'Subscribing to too many symbols' });
    server.send(trades(['AAPL', 231, 10, 1795532401000]));
    await until(() => s.ticks.length === 1, [s.events], 'the trade after the error');
    expect(s.stream.health()).to.deep.include({
      state: 'live',
      errors: 1,
      reason: 'finnhub error: Subscribing to too many symbols',
    });
  });

  it('counts and skips bad messages, and goes on with the good ones', async function () {
    const s = start(() => ['AAPL']);
    await subscribed(s, ['AAPL']);
    server.send('{oops');
    server.send({ type: 'news' });
    server.send({ type: 'trade', data: 'none' });
    server.send(trades(['AAPL', 0, 1, 1795532401000], ['AAPL', 232, 5, 1795532402000]));
    await until(() => s.ticks.length === 1, [s.events], 'the good trade');
    expect(s.stream.health()).to.deep.include({ badMessages: 4, trades: 1, state: 'live' });
  });

  it('resubscribes every symbol after a dropped connection, and follows removed symbols', async function () {
    let wanted = ['AAPL', 'MSFT'];
    const s = start(() => wanted);
    await subscribed(s, ['AAPL', 'MSFT']);
    const first = server.current;
    first.socket.terminate();
    await until(() => server.current !== first, [server, s.events], 'the reconnection');
    await subscribed(s, ['AAPL', 'MSFT']);
    expect(s.stream.health()).to.deep.include({ state: 'live', reconnects: 1 });
    wanted = ['MSFT'];
    await subscribed(s, ['MSFT']);
    expect(server.current.received.at(-1)).to.deep.equal({ type: 'unsubscribe', symbol: 'AAPL' });
  });
});

describe('Finnhub stream through the engine', function () {
  it('fires an alert once when trades cross its threshold, down as well as up', async function () {
    const server = finnhubServer();
    await server.listening();
    const bars = [{ date: '2026-11-23', open: 100, high: 101, low: 99, close: 100, volume: 1000 }];
    const engine = await EnginePath.start([{ symbol: 'KO', bars }]);
    const healthEvents = new EventEmitter();
    const opened = openTickSource(
      loadConfig({ TICK_SOURCE: 'finnhub', FINNHUB_TOKEN: TOKEN, FINNHUB_STREAM_URL: server.url }),
      engine.bus,
      new Map([['KO', bars]]),
      memoryDayCloseClaims(),
      createLogger({ level: 'silent' }),
      { demand: { symbols: () => ['KO'] }, stream: { onHealth: () => healthEvents.emit('event') } },
    );
    try {
      await engine.createAlert('u1', { symbol: 'KO', kind: 'PRICE', alerttype: 'D', threshold: 99 });
      opened.source.start({ onTicks: (batch) => void engine.bus.publish(batch) });
      await until(() => opened.health?.().subscribed === 1, [server, healthEvents], 'the subscription');
      const now = Date.now();
      server.send(trades(['KO', 99.5, 10, now], ['KO', 98.9, 10, now + 1], ['KO', 98.5, 10, now + 2]));
      server.send(trades(['KO', 99.2, 10, now + 3], ['KO', 98.7, 10, now + 4]));
      await until(() => engine.quotes.quote('KO')?.price === 98.7, [engine], 'the trades');
      const fired = await engine.triggered('u1');
      expect(fired).to.have.length(1);
      expect(fired[0]).to.deep.include({ symbol: 'KO', price: 98.9, threshold: 99 });
    } finally {
      await opened.source.stop();
      await engine.close();
      await server.close();
    }
  });
});

tickSourceContract('Finnhub stream closed by the calendar', async () => {
  const server = finnhubServer();
  await server.listening();
  return calendarStreamSubject(
    server,
    (url) => finnhubProtocol({ token: TOKEN, streamUrl: url }),
    (rows) => server.send(trades(...rows)),
  );
});
