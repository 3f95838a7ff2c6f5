import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import { loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { memoryDayCloseClaims } from './dayCloser.ts';
import { alpacaProtocol } from './alpaca.ts';
import { ManualClock } from './clock.ts';
import { newYorkInstant, regularMarketClock } from './marketClock.ts';
import { ProviderStream, type ProviderHealth } from './providerStream.ts';
import {
  loopbackAlpaca,
  type AlpacaServer,
  calendarStreamSubject,
  EnginePath,
  until,
  watchStream,
  type WatchedStream,
} from './providerTesting.ts';
import { tickSourceContract } from './tickSource.contract.ts';
import { openTickSource } from './sources.ts';

const KEY = 'PKTESTKEY';
const SECRET = 'test-secret';

function alpacaServer(): AlpacaServer {
  return loopbackAlpaca(KEY, SECRET);
}

function trade(symbol: string, price: number, at: string, size = 100): Record<string, unknown> {
  return { T: 't', S: symbol, i: 1, x: 'V', p: price, s: size, t: at, c: ['@'], z: 'C' };
}

/** An Alpaca stream under test, with short waits. */
function streamOn(url: string, demand: () => string[], options: { key?: string } = {}): WatchedStream {
  return watchStream(
    alpacaProtocol({ keyId: options.key ?? KEY, secretKey: SECRET, feed: 'iex', streamUrl: url }),
    demand,
  );
}

describe('Alpaca market data stream', function () {
  let server: ReturnType<typeof alpacaServer>;
  let stream: ProviderStream | undefined;

  beforeEach(async function () {
    server = alpacaServer();
    await server.listening();
  });

  afterEach(async function () {
    await stream?.stop();
    stream = undefined;
    await server.close();
  });

  it('authenticates, subscribes the trades of the symbols users need, and is acknowledged', async function () {
    const s = streamOn(server.url, () => ['msft', 'AAPL', 'not a symbol!']);
    stream = s.stream;
    await until(() => s.stream.health().subscribed === 2, [server, s.events], 'the subscription');
    expect(server.current.received).to.deep.equal([
      { action: 'auth', key: KEY, secret: SECRET },
      { action: 'subscribe', trades: ['AAPL', 'MSFT'] },
    ]);
    expect(s.stream.health()).to.deep.include({ provider: 'alpaca-iex', state: 'live', ok: true, wanted: 2 });
  });

  it('reports a refused key as an authentication failure with the reason, and retries later', async function () {
    const s = streamOn(server.url, () => ['AAPL'], { key: 'wrong' });
    stream = s.stream;
    await until(() => server.connections.length >= 2, [server, s.events], 'a retry');
    expect(s.healths.find((h) => h.state === 'auth-failed')).to.deep.include({
      ok: false,
      reason: 'authentication failed: 402 auth failed',
    });
    expect(server.connections[0]!.received).to.deep.equal([{ action: 'auth', key: 'wrong', secret: SECRET }]);
  });

  it('delivers a batch of trades in time order, with times read to the millisecond', async function () {
    const s = streamOn(server.url, () => ['AAPL', 'MSFT']);
    stream = s.stream;
    await until(() => s.stream.health().subscribed === 2, [server, s.events], 'the subscription');
    server.send([
      trade('MSFT', 420.5, '2026-11-24T15:00:00.250123456Z', 10),
      trade('AAPL', 230.25, '2026-11-24T15:00:00.125Z'),
    ]);
    await until(() => s.ticks.length === 2, [s.events], 'the trades');
    expect(s.ticks).to.deep.equal([
      { symbol: 'AAPL', price: 230.25, size: 100, ts: Date.parse('2026-11-24T15:00:00.125Z') },
      { symbol: 'MSFT', price: 420.5, size: 10, ts: Date.parse('2026-11-24T15:00:00.250Z') },
    ]);
  });

  it('reports a provider error and keeps the connection', async function () {
    const s = streamOn(server.url, () => ['AAPL']);
    stream = s.stream;
    await until(() => s.stream.health().subscribed === 1, [server, s.events], 'the subscription');
    server.send([{ T: 'error', code: 405, msg: 'symbol limit exceeded' }]);
    server.send([trade('AAPL', 231, '2026-11-24T15:00:01Z')]);
    await until(() => s.ticks.length === 1, [s.events], 'the trade after the error');
    expect(s.stream.health()).to.deep.include({
      state: 'live',
      errors: 1,
      reason: 'alpaca error 405 symbol limit exceeded',
    });
    expect(server.connections).to.have.length(1);
  });

  it('counts and skips bad messages, and goes on with the good ones', async function () {
    const s = streamOn(server.url, () => ['AAPL']);
    stream = s.stream;
    await until(() => s.stream.health().subscribed === 1, [server, s.events], 'the subscription');
    server.send('not json{');
    server.send(42);
    server.send([{ T: 'zz' }, trade('AAPL', -5, '2026-11-24T15:00:01Z'), trade('AAPL', 231, 'yesterday')]);
    server.send([{ T: 't', S: 'AAPL' }, trade('AAPL', 232, '2026-11-24T15:00:02Z')]);
    await until(() => s.ticks.length === 1, [s.events], 'the good trade');
    expect(s.ticks[0]).to.deep.include({ symbol: 'AAPL', price: 232 });
    expect(s.stream.health()).to.deep.include({ badMessages: 6, trades: 1, state: 'live' });
  });

  it('reconnects after a dropped connection with every subscription, and follows the symbols users add', async function () {
    let wanted = ['AAPL', 'MSFT'];
    const s = streamOn(server.url, () => wanted);
    stream = s.stream;
    await until(() => s.stream.health().subscribed === 2, [server, s.events], 'the subscription');
    const first = server.current;
    first.socket.terminate();
    await until(() => s.healths.some((h) => h.state === 'disconnected'), [s.events], 'the loss');
    expect(s.healths.find((h) => h.state === 'disconnected')!.reason).to.match(/^connection lost/);
    await until(
      () => server.current !== first && server.subscriptions().length === 2,
      [server, s.events],
      'the resubscription',
    );
    expect(server.subscriptions()).to.deep.equal(['AAPL', 'MSFT']);
    expect(s.stream.health()).to.deep.include({ state: 'live', reconnects: 1 });
    wanted = ['MSFT', 'NVDA'];
    await until(() => server.subscriptions().join() === 'MSFT,NVDA', [server], 'the new symbols');
    server.send([trade('NVDA', 150, '2026-11-24T15:00:03Z')]);
    await until(() => s.ticks.length === 1, [s.events], 'the trade of the added symbol');
  });

  it('reports a stream silent during the session as stale, and reconnects', async function () {
    const clock = new ManualClock(newYorkInstant('2026-11-24', 10, 0));
    const events = new EventEmitter();
    const healths: ProviderHealth[] = [];
    stream = new ProviderStream(alpacaProtocol({ keyId: KEY, secretKey: SECRET, feed: 'iex', streamUrl: server.url }), {
      demand: { symbols: () => ['AAPL'] },
      clock,
      staleMs: 60_000,
      backoffMs: { initial: 0, max: 0 },
      sessions: regularMarketClock('2026-11-20'),
      onHealth: (h) => {
        healths.push(h);
        events.emit('event');
      },
    });
    stream.start({ onTicks: () => undefined });
    await until(() => stream!.health().subscribed === 1, [server, events], 'the subscription');
    clock.advance(90_000);
    expect(healths.at(-1)).to.deep.include({ state: 'stale', ok: false });
    expect(healths.at(-1)!.reason).to.match(/^stale: no message for \d+ s during the session$/);
    await until(() => healths.at(-1)!.subscribed === 0, [events], 'the close');
    clock.advance(1);
    await until(
      () => server.connections.length === 2 && stream!.health().state === 'live',
      [server, events],
      'the reconnection',
    );
  });
});

describe('Alpaca stream through the engine', function () {
  let server: ReturnType<typeof alpacaServer>;
  let engine: EnginePath;
  let stop: () => Promise<void>;

  beforeEach(async function () {
    server = alpacaServer();
    await server.listening();
    engine = await EnginePath.start([
      { symbol: 'AAPL', bars: [{ date: '2026-11-23', open: 228, high: 230, low: 227, close: 229, volume: 1000 }] },
    ]);
  });

  afterEach(async function () {
    await stop();
    await engine.close();
    await server.close();
  });

  it('fires an alert once when trades cross its threshold, with the source the configuration names', async function () {
    const config = loadConfig({
      TICK_SOURCE: 'alpaca',
      ALPACA_KEY_ID: KEY,
      ALPACA_SECRET_KEY: SECRET,
      ALPACA_STREAM_URL: server.url,
      DATA_DIR: '/nonexistent',
    });
    await engine.createAlert('u1', { symbol: 'AAPL', kind: 'PRICE', alerttype: 'U', threshold: 230 });
    const bars = new Map([
      ['AAPL', [{ date: '2026-11-23', open: 228, high: 230, low: 227, close: 229, volume: 1000 }]],
    ]);
    const healthEvents = new EventEmitter();
    const opened = openTickSource(config, engine.bus, bars, memoryDayCloseClaims(), createLogger({ level: 'silent' }), {
      demand: { symbols: () => ['AAPL'] },
      stream: { backoffMs: { initial: 5, max: 20 }, onHealth: () => healthEvents.emit('event') },
    });
    opened.source.start({
      onTicks: (batch) => void engine.bus.publish(batch),
      onDayClosed: (day) => void engine.bus.publishDayClosed(day),
    });
    stop = () => opened.source.stop();
    await until(() => opened.health?.().subscribed === 1, [server, healthEvents], 'the subscription');
    const now = new Date().toISOString();
    server.send([trade('AAPL', 229.5, now), trade('AAPL', 230.1, now)]);
    server.send([trade('AAPL', 231, now), trade('AAPL', 229, now), trade('AAPL', 232, now)]);
    await until(() => engine.quotes.quote('AAPL')?.price === 232, [engine], 'the trades');
    const fired = await engine.triggered('u1');
    expect(fired).to.have.length(1);
    expect(fired[0]).to.deep.include({ symbol: 'AAPL', price: 230.1, threshold: 230 });
    expect(opened.health?.()).to.deep.include({ provider: 'alpaca-iex', trades: 5, ok: true });
  });
});

tickSourceContract('Alpaca stream closed by the calendar', async () => {
  const server = alpacaServer();
  await server.listening();
  const at = (ms: number): string => new Date(ms).toISOString();
  return calendarStreamSubject(
    server,
    (url) => alpacaProtocol({ keyId: KEY, secretKey: SECRET, feed: 'sip', streamUrl: url }),
    (rows) => server.send(rows.map(([symbol, price, size, ts]) => trade(symbol, price, at(ts), size))),
  );
});
