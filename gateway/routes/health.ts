/**
 * Health routes, public and without a session: `/healthz` (the process answers), `/readyz` (the event store
 * answers, the projections have caught up, the tick source is live, Redis answers when configured) and `/metrics` (Prometheus text format).
 */
import type Router from '@koa/router';
import type { LiveFeed } from '../../domain/contract/market.ts';
import { DATA_FEEDS, FEED_DESCRIPTIONS, dataFeedOf, simulatedDelay, type DataFeed } from '../../domain/market/feeds.ts';
import { describeProviderHealth } from '../../engine/ticks/providerStream.ts';
import type { EventStore } from '../../platform/eventstore/port.ts';
import type { RedisClient } from '../../platform/redis.ts';
import type { ConsumerLag } from '../../platform/subscriptions/runner.ts';
import type { RunningProjections } from '../../projections/index.ts';
import type { RunningEngine } from '../../engine/running.ts';

/** What the health routes look at; a part this process does not run is null. */
export interface HealthDeps {
  /** The projections, when this process runs them. */
  readonly projections: Pick<RunningProjections, 'caughtUp' | 'lags'> | null;
  /** The live engine, when this process runs it. */
  readonly engine:
    | (Pick<RunningEngine, 'live' | 'alerts' | 'source'> &
        Pick<Partial<RunningEngine>, 'sourceHealth' | 'sessionMinutes'>)
    | null;
  /** The Redis connection, when `REDIS_URL` is set: `/readyz` checks that it answers. */
  readonly redis?: Pick<RedisClient, 'ping'> | null | undefined;
  /** Connected sockets, when this process serves Socket.IO. */
  readonly sockets?: (() => number) | undefined;
  /** The standard metrics (process, HTTP) in the Prometheus text format, printed after the app's own. */
  readonly standard?: (() => Promise<string>) | undefined;
}

/** A projection whose oldest uncommitted event is older than this (ms) is not caught up. */
export const READY_LAG_MS = 5000;

/** The content type of the Prometheus text exposition format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** One check of `/readyz`. */
interface Check {
  readonly ok: boolean;
  readonly detail?: string;
}

async function storeCheck(events: EventStore): Promise<Check> {
  try {
    await events.headPosition();
    return { ok: true };
  } catch (error) {
    return { ok: false, detail: error instanceof Error ? error.message : String(error) };
  }
}

/** How long `/readyz` waits for Redis to answer its PING (ms). */
export const REDIS_PING_TIMEOUT_MS = 1000;

async function redisCheck(redis: Pick<RedisClient, 'ping'>): Promise<Check> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer to PING within ${REDIS_PING_TIMEOUT_MS} ms`)),
      REDIS_PING_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([redis.ping(), late]);
    return { ok: true };
  } catch (error) {
    const message = error instanceof Error && error.message !== '' ? error.message : String(error);
    return { ok: false, detail: `unreachable: ${message}` };
  } finally {
    clearTimeout(timer);
  }
}

async function projectionsCheck(projections: HealthDeps['projections']): Promise<Check> {
  if (!projections) return { ok: true, detail: 'not run by this process' };
  let started = false;
  await Promise.race([projections.caughtUp.then(() => (started = true)), Promise.resolve()]);
  if (!started) return { ok: false, detail: 'catching up' };
  const late = (await projections.lags()).filter((lag) => lag.lagMs > READY_LAG_MS).map((lag) => lag.name);
  return late.length === 0 ? { ok: true } : { ok: false, detail: `behind: ${late.join(', ')}` };
}

function tickSourceCheck(engine: HealthDeps['engine']): Check {
  if (!engine) return { ok: true, detail: 'not run by this process' };
  const provider = engine.sourceHealth?.();
  if (provider) {
    return { ok: engine.live(), detail: describeProviderHealth(provider) };
  }
  return engine.live() ? { ok: true, detail: engine.source } : { ok: false, detail: `${engine.source} stopped` };
}

function isDataFeed(name: string): name is DataFeed {
  return (DATA_FEEDS as readonly string[]).includes(name);
}

/**
 * The live feed of the engine this process runs, with its name, delay and health (a provider stream's state
 * and reason); null when the process runs no engine.
 */
export function liveFeedOf(engine: HealthDeps['engine'] | undefined): LiveFeed | null {
  if (!engine) return null;
  const provider = engine.sourceHealth?.();
  const source = provider && isDataFeed(provider.provider) ? provider.provider : dataFeedOf(engine.source);
  const { ok, detail } = tickSourceCheck(engine);
  const live = provider ? ok && provider.ok : ok;
  const health = provider ? (detail ?? '') : live ? 'live' : 'stopped';
  const described = FEED_DESCRIPTIONS[source];
  const delay = source === 'simulated' ? simulatedDelay(engine.sessionMinutes ?? null) : described.delay;
  return { source, name: described.name, delay, ok: live, health };
}

/** A Prometheus label value, escaped. */
function label(value: string): string {
  return value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');
}

/** Renders the metrics of the parts this process runs in the Prometheus text format. */
export function renderMetrics(
  engine: HealthDeps['engine'],
  lags: readonly ConsumerLag[],
  sockets?: () => number,
): string {
  const lines: string[] = [];
  const metric = (name: string, type: 'counter' | 'gauge', help: string, samples: [string, number][]): void => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of samples) lines.push(`${name}${labels} ${Number.isFinite(value) ? value : 0}`);
  };
  if (engine) {
    const s = engine.alerts.stats();
    metric('stockpulse_tick_source_live', 'gauge', 'Whether the tick source is live (1) or not (0).', [
      [`{source="${label(engine.source)}"}`, engine.live() ? 1 : 0],
    ]);
    const provider = engine.sourceHealth?.();
    if (provider) {
      const p = `{provider="${label(provider.provider)}"}`;
      metric('stockpulse_provider_up', 'gauge', 'Whether the provider stream is connected, authenticated and fresh.', [
        [
          `{provider="${label(provider.provider)}",state="${provider.state}",reason="${label(provider.reason ?? '')}"}`,
          provider.ok ? 1 : 0,
        ],
      ]);
      metric('stockpulse_provider_trades_total', 'counter', 'Trades received from the provider.', [
        [p, provider.trades],
      ]);
      metric('stockpulse_provider_bad_messages_total', 'counter', 'Provider messages skipped as unreadable.', [
        [p, provider.badMessages],
      ]);
      metric('stockpulse_provider_errors_total', 'counter', 'Errors the provider reported.', [[p, provider.errors]]);
      metric('stockpulse_provider_reconnects_total', 'counter', 'Reconnections to the provider.', [
        [p, provider.reconnects],
      ]);
      metric('stockpulse_provider_symbols', 'gauge', 'Symbols wanted by users and subscribed on the stream.', [
        [`{provider="${label(provider.provider)}",set="wanted"}`, provider.wanted],
        [`{provider="${label(provider.provider)}",set="subscribed"}`, provider.subscribed],
      ]);
    }
    metric('stockpulse_ticks_total', 'counter', 'Ticks evaluated by the alert engine.', [['', s.ticks]]);
    metric('stockpulse_ticks_per_second', 'gauge', 'Ticks evaluated per second over the last second.', [
      ['', s.ticksPerSec],
    ]);
    metric('stockpulse_ticks_dropped_total', 'counter', 'Ticks received before the alert index was ready.', [
      ['', s.droppedTicks],
    ]);
    metric('stockpulse_tick_evaluation_seconds_total', 'counter', 'Time spent evaluating ticks.', [
      ['', s.evaluationSeconds],
    ]);
    metric('stockpulse_tick_evaluation_microseconds', 'gauge', 'Mean evaluation time per tick.', [
      ['', s.evaluationMicrosPerTick],
    ]);
    metric('stockpulse_alerts_armed', 'gauge', 'Alerts armed in the index.', [['', s.armed]]);
    metric(
      'stockpulse_alert_triggers_total',
      'counter',
      'Alert triggers by outcome.',
      Object.entries(s.triggers).map(([outcome, n]) => [`{outcome="${outcome}"}`, n]),
    );
    metric('stockpulse_alert_triggers_pending', 'gauge', 'Triggers whose append is under way.', [['', s.pending]]);
  }
  if (sockets) metric('stockpulse_sockets', 'gauge', 'Connected Socket.IO sockets.', [['', sockets()]]);
  if (lags.length > 0) {
    metric(
      'stockpulse_projection_lag_seconds',
      'gauge',
      'Age of the oldest event a projection has not committed.',
      lags.map((lag) => [`{projection="${label(lag.name)}"}`, lag.lagMs / 1000]),
    );
    metric(
      'stockpulse_projection_behind',
      'gauge',
      'Whether a projection has events left to apply (1) or not (0).',
      lags.map((lag) => [`{projection="${label(lag.name)}"}`, lag.behind ? 1 : 0]),
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Mounts `/readyz` and `/metrics` (`/healthz` is the application's own). */
export function mountHealthRoutes(router: Router, events: EventStore, deps: HealthDeps | undefined): void {
  const health: HealthDeps = deps ?? { projections: null, engine: null };
  router.get('/readyz', async (ctx) => {
    const [store, projections, redis] = await Promise.all([
      storeCheck(events),
      projectionsCheck(health.projections),
      health.redis ? redisCheck(health.redis) : undefined,
    ]);
    const checks = {
      store,
      projections,
      tickSource: tickSourceCheck(health.engine),
      ...(redis ? { redis } : {}),
    };
    const ready = Object.values(checks).every((c) => c.ok);
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'unavailable', checks };
  });
  router.get('/metrics', async (ctx) => {
    const lags = health.projections ? await health.projections.lags() : [];
    ctx.type = PROMETHEUS_CONTENT_TYPE;
    const standard = health.standard ? await health.standard() : '';
    ctx.body = `${renderMetrics(health.engine, lags, health.sockets)}${standard}`;
  });
}
