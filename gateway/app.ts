/**
 * The HTTP application: middleware order, security headers, error mapping and routes. It never listens;
 * `main.ts` (or a test) owns the server.
 */
import { randomUUID } from 'node:crypto';
import Koa from 'koa';
import type { Middleware } from 'koa';
import Router from '@koa/router';
import type { EventStore } from '../platform/eventstore/port.ts';
import { componentLogger, type Logger } from '../platform/logger.ts';
import type { ReadModelStore } from '../platform/readmodels/port.ts';
import type { SessionStore } from '../platform/sessions/port.ts';
import { MemoryRateLimiter, signInLimits, type RateLimiter } from './auth/rateLimit.ts';
import { authRoutes } from './auth/routes.ts';
import { loadSession } from './auth/session.ts';
import { CommandService, type ReadModelSync } from './commands.ts';
import { ApiError, errorMapper, notFound } from './errors.ts';
import { jsonBody } from './http/body.ts';
import { mountRoutes, openApiDocument, type RouteDef } from './http/route.ts';
import type { SymbolDirectory } from './http/schemas.ts';
import { sameOrigin } from './http/security.ts';
import { watchlistRoutes } from './routes/watchlist.ts';

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
  /** Sign-in rate limiter; in-process when absent. */
  readonly rateLimiter?: RateLimiter;
  /** Version shown in the API reference. */
  readonly version?: string;
}

/** Path prefixes owned by the API: unknown routes under them answer 404 JSON. */
export const API_PREFIXES: readonly string[] = Object.freeze(['/api', '/personalize', '/realtime']);

/** Headers set on every answer, errors included. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
  'Content-Security-Policy': "default-src 'self'; base-uri 'self'; object-src 'none'; frame-ancestors 'none'",
});

function securityHeaders(): Middleware {
  return async (ctx, next) => {
    ctx.set(SECURITY_HEADERS);
    ctx.state.requestId = randomUUID();
    await next();
  };
}

function isApiPath(path: string): boolean {
  return API_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

function apiNotFound(): Middleware {
  return async (ctx, next) => {
    await next();
    if (ctx.body === undefined && ctx.status === 404 && isApiPath(ctx.path)) {
      throw notFound(`no route ${ctx.method} ${ctx.path}`);
    }
  };
}

/** Every API route, in the order of the reference. */
export function apiRoutes(deps: AppDeps): RouteDef<never, never, never>[] {
  const commands = new CommandService(deps.events, deps.readModelSync);
  const rateLimiter = deps.rateLimiter ?? new MemoryRateLimiter(signInLimits);
  return [
    ...authRoutes({ events: deps.events, commands, sessions: deps.sessions, rateLimiter }),
    ...watchlistRoutes({ commands, readModels: deps.readModels, symbols: deps.symbols }),
  ] as RouteDef<never, never, never>[];
}

/** Builds the Koa application without listening, so tests can mount it on a server of their own. */
export function createApp(deps: AppDeps): Koa {
  const logger = componentLogger(deps.logger, 'gateway');
  const app = new Koa();
  const router = new Router();
  const routes = apiRoutes(deps);
  const reference = openApiDocument(routes, deps.version ?? '0.1.0');

  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/api/docs', (ctx) => {
    ctx.body = reference;
  });
  mountRoutes(router, routes);

  app.use(securityHeaders());
  app.use(errorMapper(logger));
  app.use(apiNotFound());
  app.use(sameOrigin());
  app.use(jsonBody());
  app.use(loadSession(deps.sessions));
  app.use(router.routes());
  app.use(
    router.allowedMethods({
      throw: true,
      methodNotAllowed: () => new ApiError(405, 'method_not_allowed', 'method not allowed on this route'),
      notImplemented: () => new ApiError(501, 'not_implemented', 'method not implemented'),
    }),
  );
  return app;
}
