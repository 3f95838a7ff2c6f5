/**
 * The HTTP application: middleware order, security headers, error mapping and routes. It never listens;
 * `main.ts` (or a test) owns the server.
 */
import Koa from 'koa';
import Router from '@koa/router';
import { feedApi } from '../domain/contract/feed.ts';
import { docsApi, healthApi } from '../domain/contract/health.ts';
import type { RouteContract } from '../domain/contract/route.ts';
import type { EventStore } from '../platform/eventstore/port.ts';
import type { MarketData } from '../engine/market/marketData.ts';
import { componentLogger, type Logger } from '../platform/logger.ts';
import type { ReadModelStore } from '../platform/readmodels/port.ts';
import type { SessionStore } from '../platform/sessions/port.ts';
import type { RebuildChecks } from '../projections/rebuildChecks.ts';
import { createAuthLimiter, type AuthLimiter } from './auth/limits.ts';
import { memoryLimiters } from './auth/rateLimit.ts';
import { loadConfig } from '../platform/config.ts';
import { authRoutes } from './auth/routes.ts';
import { CommandService, type ReadModelSync } from './commands.ts';
import { ApiError } from './errors.ts';
import { isClientGone, isUnreadableRequest } from './http/aborted.ts';
import { mountApiReference } from './http/docs.ts';
import { httpMetrics } from './http/metrics.ts';
import { front } from './http/front.ts';
import { routeAnswerer } from './http/dispatch.ts';
import { mountRoutes, openApiDocument, type RouteDef } from './http/route.ts';
import type { SymbolDirectory } from './http/schemas.ts';
import { DIRECT, type OriginPolicy } from './http/origin.ts';
import { configuredUiDir, webApp } from './http/static.ts';
import { auditRoutes } from './routes/audit.ts';
import { alertsRoutes } from './routes/alerts.ts';
import { notificationsRoutes } from './routes/notifications.ts';
import { queriesRoutes } from './routes/queries.ts';
import { companyStatsRoutes } from './routes/companystats.ts';
import { dashboardRoutes } from './routes/dashboard.ts';
import { portfolioRoutes } from './routes/portfolio.ts';
import { portfolioLedgerRoutes } from './routes/portfolioLedger.ts';
import { watchlistRoutes } from './routes/watchlist.ts';
import { channelsRoutes } from './routes/channels.ts';
import type { DeliverySetup } from '../engine/delivery/setup.ts';
import { marketRoutes } from './routes/market.ts';
import { patternsRoutes } from './routes/patterns.ts';
import { analysisRoutes } from './routes/analysis.ts';
import { screenerRoutes } from './routes/screener.ts';
import { sectorsRoutes } from './routes/sectors.ts';
import { snapshotsRoutes } from './routes/snapshots.ts';
import { maintRoutes } from './routes/maint.ts';
import { predictionRoutes } from './routes/prediction.ts';
import { moversRoutes } from './routes/movers.ts';
import { feedRoute, type FeedDeps } from './routes/feed.ts';
import { mountHealthRoutes, type HealthDeps } from './routes/health.ts';

/** Everything the application needs from the composition root. */
export interface AppDeps {
  /** Root logger; the app logs through a `gateway` child. */
  readonly logger: Logger;
  /** The event log. */
  readonly events: EventStore;
  /** The read models. */
  readonly readModels: ReadModelStore;
  /** A wait until read models include a position (read-your-writes). */
  readonly readModelSync: ReadModelSync;
  /** Sessions. */
  readonly sessions: SessionStore;
  /** The symbols that exist. */
  readonly symbols: SymbolDirectory;
  /** The market data: universe, bars, quotes, patterns and the analyses over them. */
  readonly market: MarketData;
  /** Registration and sign-in limits; the default limits in this process's memory when absent. */
  readonly authLimiter?: AuthLimiter;
  /** Version shown in the API reference. */
  readonly version?: string;
  /** The feed ingestion route's token and tick bus; the route is off (404) without it. */
  readonly feed?: FeedDeps | undefined;
  /** What `/readyz` and `/metrics` look at. */
  readonly health?: HealthDeps;
  /** The data folder (`DATA_DIR`): chart snapshot images are kept under its `snapshots/`; those routes answer 503 without it. */
  readonly dataDir?: string;
  /** The built web app's folder; `UI_DIR` or `ui/dist` when absent. */
  readonly uiDir?: string;
  /** The rebuild checks of the Maint page; those routes answer 503 without them. */
  readonly rebuildChecks?: RebuildChecks;
  /** The app's own origin and whether a proxy's headers are believed; the request's origin, no proxy, when absent. */
  readonly origin?: OriginPolicy;
  /** The delivery secrets and senders (test messages, confirmation links, the Web Push key); 503 without. */
  readonly delivery?: DeliverySetup;
}

/** Path prefixes owned by the API: unknown routes under them answer 404 JSON. */
export const API_PREFIXES: readonly string[] = Object.freeze(['/api', '/personalize', '/realtime']);

/** Headers set on every answer, errors included. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
  'Content-Security-Policy':
    "default-src 'self'; base-uri 'self'; object-src 'none'; frame-ancestors 'none'; form-action 'self'; " +
    // AG Grid and Plotly set styles at run time; Plotly's image export draws data: and blob: images.
    "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:",
});

function isApiPath(path: string): boolean {
  return API_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/** Every API route, in the order of the reference. */
export function apiRoutes(deps: AppDeps): RouteDef<never, never, never>[] {
  const commands = new CommandService(deps.events, deps.readModelSync);
  const limiter = deps.authLimiter ?? createAuthLimiter(loadConfig({}).authLimits, memoryLimiters);
  return [
    ...authRoutes({ events: deps.events, commands, sessions: deps.sessions, limiter, delivery: deps.delivery }),
    ...watchlistRoutes({ commands, readModels: deps.readModels, symbols: deps.symbols }),
    ...alertsRoutes({ commands, readModels: deps.readModels, symbols: deps.symbols }),
    ...channelsRoutes({
      commands,
      events: deps.events,
      readModels: deps.readModels,
      delivery: deps.delivery,
      limiter,
    }),
    ...notificationsRoutes({ commands, readModels: deps.readModels }),
    ...queriesRoutes({ commands, readModels: deps.readModels }),
    ...auditRoutes({ commands, events: deps.events, readModels: deps.readModels }),
    ...dashboardRoutes({ commands, readModels: deps.readModels, symbols: deps.symbols }),
    ...companyStatsRoutes({ commands, readModels: deps.readModels }),
    ...portfolioRoutes({ commands, readModels: deps.readModels, symbols: deps.symbols }),
    ...portfolioLedgerRoutes({ commands, readModels: deps.readModels, market: deps.market }),
    ...marketRoutes({ market: deps.market, engine: deps.health?.engine }),
    ...moversRoutes({ market: deps.market }),
    ...patternsRoutes({ market: deps.market }),
    ...analysisRoutes({ market: deps.market }),
    ...screenerRoutes({ market: deps.market }),
    ...sectorsRoutes({ commands, readModels: deps.readModels, symbols: deps.symbols, gics: deps.market }),
    ...snapshotsRoutes({ commands, readModels: deps.readModels, symbols: deps.symbols, dataDir: deps.dataDir }),
    ...maintRoutes({
      events: deps.events,
      readModels: deps.readModels,
      market: deps.market,
      health: deps.health,
      rebuildChecks: deps.rebuildChecks,
    }),
    ...predictionRoutes({ commands, readModels: deps.readModels, market: deps.market }),
  ] as RouteDef<never, never, never>[];
}

/** Routes mounted outside {@link apiRoutes} (health, the reference itself, the feed middleware), for the reference. */
const documentedElsewhere: readonly RouteContract[] = [
  ...Object.values(healthApi),
  ...Object.values(docsApi),
  feedApi.postFeedTicks,
];

/** Builds the Koa application without listening, so tests can mount it on a server of their own. */
export function createApp(deps: AppDeps): Koa {
  const logger = componentLogger(deps.logger, 'gateway');
  const app = new Koa();
  // Behind one TLS proxy: the client address is the last `X-Forwarded-For` entry, the one the proxy appended.
  app.proxy = deps.origin?.trustProxy ?? false;
  app.maxIpsCount = 1;
  // A browser that leaves while a file is still streaming is not an error of the server.
  app.on('error', (error: NodeJS.ErrnoException) => {
    if (isClientGone(error)) return;
    if (isUnreadableRequest(error)) {
      // The error carries the raw bytes read (`rawPacket`): only its code and reason are logged.
      logger.info(
        { code: error.code, reason: (error as { reason?: unknown }).reason },
        'a request the server could not read',
      );
      return;
    }
    logger.error({ err: error }, 'unhandled application error');
  });
  const router = new Router();
  const routes = apiRoutes(deps);
  const reference = openApiDocument([...routes, ...documentedElsewhere], deps.version ?? '0.1.0');

  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  const metrics = httpMetrics(isApiPath);
  mountHealthRoutes(router, deps.events, {
    projections: null,
    engine: null,
    ...deps.health,
    standard: () => metrics.text(),
  });
  mountApiReference(router, reference);
  mountRoutes(router, routes);

  // Request id and log, security headers, metrics, compression, error mapping, API 404, cross-site check, feed
  // route, JSON body and session, in this order (see http/front.ts).
  app.use(
    front({
      logger,
      headers: SECURITY_HEADERS,
      metrics,
      origin: deps.origin ?? DIRECT,
      feed: feedRoute(deps.feed, deps.symbols),
      sessions: deps.sessions,
      isApiPath,
      // Picks the same route as the router, without the router's per-request work (see http/dispatch.ts).
      answer: routeAnswerer(router),
    }),
  );
  app.use(router.routes());
  app.use(
    router.allowedMethods({
      throw: true,
      methodNotAllowed: () => new ApiError(405, 'method_not_allowed', 'method not allowed on this route'),
      notImplemented: () => new ApiError(501, 'not_implemented', 'method not implemented'),
    }),
  );
  // Last: a GET no route answered is a page of the web app.
  app.use(webApp(deps.uiDir ?? configuredUiDir(), isApiPath));
  return app;
}
