/**
 * Standard metrics with prom-client: the process's default metrics (CPU, memory, heap, event-loop lag, GC,
 * handles), once per process, and each application's HTTP request durations by method, route and status.
 * `/metrics` prints them after the engine and projection figures (see `routes/health.ts`).
 *
 * The request-duration histogram is counted here rather than by prom-client's `Histogram`: its `observe` builds
 * a label object, validates it and hashes its sorted keys on every request, 0.9% of the gateway's CPU profile
 * samples in `npm run bench -- gateway` (about 4.7 µs a request with the profiler on), against 0.8 µs for this
 * one; here one string key finds the series' bucket counts. The text is the same Prometheus format prom-client
 * writes (`le` first, cumulative buckets).
 *
 * Five of prom-client's default metrics are collected here instead (same names, help and values; see
 * {@link processMetricsRegistry}): theirs read what they count on the event loop, once per metric, and with many
 * sockets open a scrape held the loop for milliseconds, the ticks and notifications of that moment waiting.
 */
import { readdir } from 'node:fs/promises';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { Context } from 'koa';

/** An application's HTTP metrics and their text. */
export interface HttpMetrics {
  /**
   * Counts one answered request that started at `startMs` (`performance.now()`); call it outside the error
   * mapping, so error answers count with their status (see `front.ts`).
   */
  observe(ctx: Context, startMs: number): void;
  /** The default process metrics and the request durations, in the Prometheus text format. */
  text(): Promise<string>;
}

let processRegistry: Registry | undefined;

/** The registry of the default process metrics, made on first use: their collectors are per process. */
function defaultMetrics(): Registry {
  processRegistry ??= processMetricsRegistry();
  return processRegistry;
}

/** The default metrics {@link processMetricsRegistry} collects itself rather than with prom-client's collectors. */
export const OWN_DEFAULT_METRICS: readonly string[] = [
  'process_open_fds',
  'nodejs_active_handles',
  'nodejs_active_handles_total',
  'nodejs_active_resources',
  'nodejs_active_resources_total',
];

/** How many times each name occurs. */
function countOf(names: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return counts;
}

/** Sets a gauge of `type` labels to the counts, dropping the types no longer counted. */
function setByType(gauge: Gauge<'type'>, counts: ReadonlyMap<string, number>): void {
  gauge.reset();
  for (const [type, count] of counts) gauge.set({ type }, count);
}

/**
 * A registry of prom-client's default process metrics, five of them collected here with the same names, help and
 * values (`OWN_DEFAULT_METRICS`). prom-client lists `/proc/self/fd` synchronously for `process_open_fds`, and
 * lists the active handles, and the active resources, once for each of the two metrics of each; the time grows
 * with the sockets open. Here the descriptors are listed off the event loop (`fs.promises.readdir`), and each
 * list is made once per scrape for both of its metrics (the grouped one, registered first, sets the total):
 * `npm run bench -- metrics`, with 2,000 sockets open, measures the event loop's time per scrape against
 * prom-client's own collectors.
 */
export function processMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const name of OWN_DEFAULT_METRICS) registry.removeSingleMetric(name);
  const registers = [registry];
  if (process.platform === 'linux') {
    new Gauge({
      name: 'process_open_fds',
      help: 'Number of open file descriptors.',
      registers,
      async collect() {
        try {
          // Less the descriptor the listing itself opened, closed since.
          this.set((await readdir('/proc/self/fd')).length - 1);
        } catch {
          // Not readable here: the last value stays.
        }
      },
    });
  }
  const activeHandles = (process as unknown as { _getActiveHandles?: () => unknown[] })._getActiveHandles;
  if (typeof activeHandles === 'function') {
    const total = new Gauge({
      name: 'nodejs_active_handles_total',
      help: 'Total number of active handles.',
      registers: [],
    });
    new Gauge({
      name: 'nodejs_active_handles',
      help: 'Number of active libuv handles grouped by handle type. Every handle type is C++ class name.',
      labelNames: ['type'],
      registers,
      collect() {
        const handles = activeHandles.call(process);
        const types: string[] = [];
        for (const handle of handles) {
          const type = (handle as { constructor?: { name?: unknown } } | null)?.constructor?.name;
          if (typeof type === 'string') types.push(type);
        }
        setByType(this, countOf(types));
        total.set(handles.length);
      },
    });
    registry.registerMetric(total);
  }
  const resourcesTotal = new Gauge({
    name: 'nodejs_active_resources_total',
    help: 'Total number of active resources.',
    registers: [],
  });
  new Gauge({
    name: 'nodejs_active_resources',
    help: 'Number of active resources that are currently keeping the event loop alive, grouped by async resource type.',
    labelNames: ['type'],
    registers,
    collect() {
      const resources = process.getActiveResourcesInfo();
      setByType(this, countOf(resources));
      resourcesTotal.set(resources.length);
    },
  });
  registry.registerMetric(resourcesTotal);
  return registry;
}

/** Registries of the parts this process runs (delivery), printed under `/metrics` after the process metrics. */
const partRegistries = new Set<Registry>();

/** Adds a part's registry to this process's `/metrics`; answers the function that removes it. */
export function registerPartMetrics(registry: Registry): () => void {
  partRegistries.add(registry);
  return () => partRegistries.delete(registry);
}

/** The registered parts' metrics in the Prometheus text format (empty when none). */
export async function partMetricsText(): Promise<string> {
  const texts = await Promise.all([...partRegistries].map((registry) => registry.metrics()));
  return texts.map((text) => `${text.trimEnd()}\n`).join('');
}

/** The route a request matched, as written in the router (`/api/bars/:symbol`), so the label stays bounded. */
function routeOf(ctx: Context, isApiPath: (path: string) => boolean): string {
  const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  if (typeof matched === 'string') return matched;
  return isApiPath(ctx.path) ? 'unmatched' : 'web app';
}

/** Upper bounds of the request-duration buckets, in seconds. */
export const DURATION_BUCKETS: readonly number[] = Object.freeze([
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
]);

/** One series of the histogram: its labels as written, its bucket counts (not cumulative), sum and count. */
interface Series {
  readonly labels: string;
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

function labelValue(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

/** A histogram of durations by method, route and status, in the Prometheus text format. */
export class DurationHistogram {
  private readonly series = new Map<string, Series>();

  constructor(
    private readonly name: string,
    private readonly help: string,
    private readonly buckets: readonly number[] = DURATION_BUCKETS,
  ) {}

  /** Counts one duration of `seconds`. */
  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let series = this.series.get(key);
    if (!series) {
      const labels = `method="${labelValue(method)}",route="${labelValue(route)}",status="${status}"`;
      series = { labels, counts: new Float64Array(this.buckets.length), sum: 0, count: 0 };
      this.series.set(key, series);
    }
    const buckets = this.buckets;
    let i = 0;
    while (i < buckets.length && seconds > buckets[i]!) i++;
    if (i < buckets.length) series.counts[i]! += 1;
    series.sum += seconds;
    series.count += 1;
  }

  /** The histogram in the Prometheus text format. */
  text(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const { labels, counts, sum, count } of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((bound, i) => {
        cumulative += counts[i]!;
        lines.push(`${this.name}_bucket{le="${bound}",${labels}} ${cumulative}`);
      });
      lines.push(`${this.name}_bucket{le="+Inf",${labels}} ${count}`);
      lines.push(`${this.name}_sum{${labels}} ${sum}`);
      lines.push(`${this.name}_count{${labels}} ${count}`);
    }
    return `${lines.join('\n')}\n`;
  }
}

/** HTTP metrics of one application; `isApiPath` tells API paths no route matched from pages of the web app. */
export function httpMetrics(isApiPath: (path: string) => boolean): HttpMetrics {
  const duration = new DurationHistogram(
    'http_request_duration_seconds',
    'Time from a request to its answer, by method, route and status.',
  );
  const processMetrics = defaultMetrics();
  const observe = (ctx: Context, startMs: number): void => {
    const seconds = (performance.now() - startMs) / 1000;
    duration.observe(ctx.method, routeOf(ctx, isApiPath), ctx.status, seconds);
  };
  return {
    observe,
    text: async () => `${(await processMetrics.metrics()).trimEnd()}\n${duration.text()}${await partMetricsText()}`,
  };
}
