import { expect } from 'chai';
import { startTestGateway, useTestGateway, type TestGateway } from '../testing/harness.ts';
import { PROMETHEUS_CONTENT_TYPE, renderMetrics, type HealthDeps } from './health.ts';

const TOKEN = 'feed-token-0123456789abcdef';

describe('health routes', function () {
  let gw: TestGateway;
  useTestGateway({ env: { FEED_TOKEN: TOKEN } }, (started) => {
    gw = started;
  });

  it('answers /healthz without a session', async function () {
    const res = await gw.client().get('/healthz');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ status: 'ok' });
  });

  it('answers /readyz 200 with each check once caught up, without a session', async function () {
    const res = await gw.client().get('/readyz');
    expect(res.status).to.equal(200, res.text);
    expect(res.body).to.deep.equal({
      status: 'ready',
      checks: { store: { ok: true }, projections: { ok: true }, tickSource: { ok: true, detail: 'feed' } },
    });
  });

  it('answers /metrics in the Prometheus text format, counting ticks and triggers', async function () {
    const feed = await gw
      .client()
      .post('/api/feed/ticks', [{ symbol: 'AAPL', price: 123.45 }], { authorization: `Bearer ${TOKEN}` });
    expect(feed.status).to.equal(202);
    expect((await gw.client().get('/healthz')).status).to.equal(200);
    const res = await gw.client().get('/metrics');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal(PROMETHEUS_CONTENT_TYPE);
    // Blank lines between metrics are allowed by the format.
    for (const line of res.text
      .trim()
      .split('\n')
      .filter((l) => l !== '')) {
      expect(line).to.match(
        /^(# (HELP|TYPE) [a-z_][a-z0-9_]* .+|[a-z_][a-z0-9_]*(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? (-?[\d.e+-]+|NaN|[+-]Inf))$/i,
        line,
      );
    }
    expect(res.text).to.match(/^stockpulse_ticks_total 1$/m);
    expect(res.text).to.match(/^stockpulse_tick_source_live\{source="feed"\} 1$/m);
    expect(res.text).to.match(/^stockpulse_alert_triggers_total\{outcome="appended"\} 0$/m);
    expect(res.text).to.match(/^stockpulse_tick_evaluation_seconds_total [\d.e+-]+$/m);
    expect(res.text).to.match(/^stockpulse_projection_lag_seconds\{projection="[^"]+"\} [\d.e+-]+$/m);
    // prom-client's default process metrics, and the request durations by method, route and status.
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_gc_duration_seconds',
      'http_request_duration_seconds',
    ]) {
      expect(res.text).to.include(`# TYPE ${name} `);
    }
    expect(res.text).to.match(
      /^http_request_duration_seconds_count\{method="GET",route="\/healthz",status="200"\} [1-9]\d*$/m,
    );
    expect(res.text).to.match(
      /^http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/healthz",status="200"\}/m,
    );
  });

  it('answers /readyz 503 naming what is not ready', async function () {
    const engine = gw.running.system.engine!;
    const deps: HealthDeps = { projections: null, engine: { ...engine, live: () => false, alerts: engine.alerts } };
    expect(renderMetrics(deps.engine, [])).to.match(/^stockpulse_tick_source_live\{source="feed"\} 0$/m);
    const stopped = await startTestGateway();
    try {
      await stopped.running.system.engine!.stop();
      const res = await stopped.client().get('/readyz');
      expect(res.status).to.equal(503);
      expect(res.body).to.deep.include({ status: 'unavailable' });
      expect((res.body as { checks: { tickSource: unknown } }).checks.tickSource).to.deep.equal({
        ok: false,
        detail: 'feed stopped',
      });
    } finally {
      await stopped.close();
    }
  });
});

describe('the simulator source', function () {
  it('moves prices at any hour on the accelerated clock, and reports it in /metrics', async function () {
    const gw = await startTestGateway({ env: { TICK_SOURCE: 'simulator', MARKET_CLOCK: 'accelerated:1' } });
    try {
      const client = gw.client();
      // The first ticks of the simulator, seen on the bus after the engine (subscribed first) counted them.
      let firstTicks!: () => void;
      const ticked = new Promise<void>((resolve) => (firstTicks = resolve));
      const subscription = gw.running.system.bus!.subscribe({ onTicks: () => firstTicks() });
      await ticked;
      await subscription.unsubscribe();
      const text = (await client.get('/metrics')).text;
      expect(text).to.match(/^stockpulse_ticks_total [1-9]\d*$/m);
      expect(text).to.match(/^stockpulse_tick_source_live\{source="simulator"\} 1$/m);
      expect((await client.get('/readyz')).status).to.equal(200);
    } finally {
      await gw.close();
    }
  });
});
