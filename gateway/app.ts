/**
 * The HTTP application: middleware order, security headers, error mapping and routes. It never listens;
 * `main.ts` (or a test) owns the server.
 */
import Koa from 'koa';
import type { Context, Middleware } from 'koa';
import Router from '@koa/router';
import { ApiError, errorMapper, notFound } from './errors.ts';
import { componentLogger, type Logger } from '../platform/logger.ts';

/** What the gateway knows of a signed-in caller. */
export interface SessionInfo {
  /** The caller's user id. */
  readonly userId: string;
}

/** Finds the session a request carries, so routes can tell who is calling. */
export interface SessionLookup {
  /** The request's session, or `null` when it carries none (or an expired one). */
  current(ctx: Context): Promise<SessionInfo | null>;
}

/** Everything the application needs from the composition root. */
export interface AppDeps {
  /** Root logger; the app logs through a `gateway` child. */
  readonly logger: Logger;
  /** Session lookup; without one, every request is anonymous. */
  readonly sessions?: SessionLookup;
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

/** Builds the Koa application without listening, so tests can mount it on a server of their own. */
export function createApp(deps: AppDeps): Koa {
  const logger = componentLogger(deps.logger, 'gateway');
  const app = new Koa();
  const router = new Router();

  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  router.get('/api/loggedinstatus', async (ctx) => {
    const session = deps.sessions ? await deps.sessions.current(ctx) : null;
    ctx.body = session !== null;
  });

  app.use(securityHeaders());
  app.use(errorMapper(logger));
  app.use(apiNotFound());
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
