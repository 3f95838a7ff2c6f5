/**
 * Standard metrics with prom-client: the process's default metrics (CPU, memory, heap, event-loop lag, GC,
 * handles), once per process, and each application's HTTP request durations by method, route and status.
 * `/metrics` prints them after the engine and projection figures (see `routes/health.ts`).
 */
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { Context, Middleware } from 'koa';

/** An application's HTTP metrics and their text. */
export interface HttpMetrics {
  /** Times every request below it; put it outside the error mapping, so error answers count with their status. */
  readonly middleware: Middleware;
  /** The default process metrics and the request durations, in the Prometheus text format. */
  text(): Promise<string>;
}

let processRegistry: Registry | undefined;

/** The registry of the default process metrics, made on first use: their collectors are per process. */
function defaultMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** The route a request matched, as written in the router (`/api/bars/:symbol`), so the label stays bounded. */
function routeOf(ctx: Context, isApiPath: (path: string) => boolean): string {
  const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  if (typeof matched === 'string') return matched;
  return isApiPath(ctx.path) ? 'unmatched' : 'web app';
}

/** HTTP metrics of one application; `isApiPath` tells API paths no route matched from pages of the web app. */
export function httpMetrics(isApiPath: (path: string) => boolean): HttpMetrics {
  const registry = new Registry();
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from a request to its answer, by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const processMetrics = defaultMetrics();
  return {
    middleware: async (ctx, next) => {
      const start = process.hrtime.bigint();
      try {
        await next();
      } finally {
        const seconds = Number(process.hrtime.bigint() - start) / 1e9;
        duration.observe({ method: ctx.method, route: routeOf(ctx, isApiPath), status: String(ctx.status) }, seconds);
      }
    },
    text: async () => `${(await processMetrics.metrics()).trimEnd()}\n${(await registry.metrics()).trimEnd()}\n`,
  };
}
