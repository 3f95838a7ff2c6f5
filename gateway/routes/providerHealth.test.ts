import { expect } from 'chai';
import { loopbackAlpaca, until, type AlpacaServer } from '../../engine/ticks/providerTesting.ts';
import { startTestGateway, type TestGateway } from '../testing/harness.ts';

const KEY = 'PKHEALTHKEY';
const SECRET = 'health-secret';

describe('health of a provider stream (TICK_SOURCE=alpaca)', function () {
  this.timeout(60_000);
  let server: AlpacaServer;
  let gw: TestGateway | undefined;

  beforeEach(async function () {
    server = loopbackAlpaca(KEY, SECRET);
    await server.listening();
  });

  afterEach(async function () {
    await gw?.close();
    gw = undefined;
    await server.close();
  });

  function start(key: string): Promise<TestGateway> {
    return startTestGateway({
      env: { TICK_SOURCE: 'alpaca', ALPACA_KEY_ID: key, ALPACA_SECRET_KEY: SECRET, ALPACA_STREAM_URL: server.url },
    });
  }

  it('answers /readyz 503 and /metrics with the refused key, and goes on serving', async function () {
    gw = await start('PKWRONG');
    await until(
      () =>
        server.connections.length > 0 &&
        server.connections[0]!.socket.readyState === server.connections[0]!.socket.CLOSED,
      [server],
      'the refused authentication',
    );
    const ready = await gw.client().get('/readyz');
    expect(ready.status).to.equal(503);
    expect((ready.body as { checks: { tickSource: unknown } }).checks.tickSource).to.deep.equal({
      ok: false,
      detail: 'alpaca-iex auth-failed: authentication failed: 402 auth failed',
    });
    const metrics = (await gw.client().get('/metrics')).text;
    expect(metrics).to.match(
      /^stockpulse_provider_up\{provider="alpaca-iex",state="auth-failed",reason="authentication failed: 402 auth failed"\} 0$/m,
    );
    expect(metrics).to.match(/^stockpulse_tick_source_live\{source="alpaca"\} 0$/m);
    expect(metrics).to.not.include(SECRET);
    const ops = await gw.user('ops');
    expect(((await ops.get('/api/maint/status')).body as { ticks: unknown }).ticks).to.deep.include({
      source: 'alpaca',
      live: false,
      health: 'alpaca-iex auth-failed: authentication failed: 402 auth failed',
    });
    expect(((await ops.get('/api/market/status')).body as { feed: unknown }).feed).to.deep.equal({
      source: 'alpaca-iex',
      name: 'Alpaca IEX',
      delay: 'real-time, IEX trades only',
      ok: false,
      health: 'alpaca-iex auth-failed: authentication failed: 402 auth failed',
    });
    expect((await gw.client().get('/healthz')).status).to.equal(200);
    expect((await gw.client().get('/api/quote/AAPL')).status).to.be.below(500);
  });

  it('subscribes the symbols of a watch list once a user adds them, and is ready while live', async function () {
    gw = await start(KEY);
    const user = await gw.user('watcher');
    expect((await user.post('/personalize/createwatchlist', ['NVDA', 'KO'])).status).to.be.below(300);
    await until(
      () => server.connections.length > 0 && server.subscriptions().join() === 'KO,NVDA',
      [server],
      'the subscription',
      10_000,
    );
    const ready = await gw.client().get('/readyz');
    expect(ready.status).to.equal(200, ready.text);
    expect((ready.body as { checks: { tickSource: unknown } }).checks.tickSource).to.deep.equal({
      ok: true,
      detail: 'alpaca-iex live',
    });
    expect((await gw.client().get('/metrics')).text).to.match(
      /^stockpulse_provider_symbols\{provider="alpaca-iex",set="subscribed"\} 2$/m,
    );
  });

  it("subscribes the symbol of a user's armed alert, as the alert engine's index tells", async function () {
    gw = await start(KEY);
    const user = await gw.user('alerter');
    const res = await user.post('/personalize/stockalerts', { symbol: 'XOM', close: 500, alerttype: 'U' });
    expect(res.status).to.equal(200, res.text);
    await until(
      () => server.connections.length > 0 && server.subscriptions().join() === 'XOM',
      [server],
      'the subscription',
      10_000,
    );
  });
});
