/**
 * The front of every request, in one middleware instead of ten: the request's id and log line, the security
 * headers, the request metrics, compression, the error mapping, the 404 of unknown API paths, the cross-site
 * check, the feed route, the JSON body and the session, each step a function of its own module
 * (`requestLog.ts`, `metrics.ts`, `compression.ts`, `errors.ts`, `security.ts`, `feed.ts`, `body.ts`,
 * `session.ts`). As a chain of middleware, each added a promise, a bound `next` and an async frame to every
 * request: merged, CPU per watch-list request fell from 66 to 59 µs (bare Koa 35 µs, `/proc` ticks over 40,000
 * requests; see the gateway README). Steps with nothing to wait for (a GET has no body, a request without a
 * cookie no session) add no promise, and neither does the whole front for a request answered at once (a kept
 * answer): it calls the lean dispatcher (`dispatch.ts`) itself, and sets the request id and security headers
 * once the answer is known (`answerHeaders.ts`), so a kept answer writes them with its own in one `writeHead`.
 */
import type { Context, Middleware, Next } from 'koa';
import type { Logger } from '../../platform/logger.ts';
import type { SessionStore } from '../../platform/sessions/port.ts';
import { readSession } from '../auth/session.ts';
import { answerError, notFound } from '../errors.ts';
import { FEED_PATH } from '../routes/feed.ts';
import { readBody } from './body.ts';
import { carryAnswerHeaders, setAnswerHeaders } from './answerHeaders.ts';
import { acceptsCompression, compressAnswers } from './compression.ts';
import type { RouteAnswerer } from './dispatch.ts';
import type { HttpMetrics } from './metrics.ts';
import type { OriginPolicy } from './origin.ts';
import { requestLogger } from './requestLog.ts';
import { refuseCrossSite } from './security.ts';

/** What the front needs. */
export interface FrontParts {
  /** Where request lines and failures are logged. */
  readonly logger: Logger;
  /** Headers set on every answer, errors included. */
  readonly headers: Readonly<Record<string, string>>;
  /** Where each request's duration is counted. */
  readonly metrics: HttpMetrics;
  /** Which origins may change state. */
  readonly origin: OriginPolicy;
  /** The feed route, or null when it is off. */
  readonly feed: ((ctx: Context) => Promise<void>) | null;
  /** Where sessions are looked up. */
  readonly sessions: SessionStore;
  /** Whether a path belongs to the API (an unanswered one is a JSON 404). */
  readonly isApiPath: (path: string) => boolean;
  /** Answers the API routes it knows without the rest of the chain (`dispatch.ts`); null leaves one to it. */
  readonly answer: RouteAnswerer;
}

/** The front middleware; put it first, so every answer, errors included, carries the id and the headers. */
export function front(parts: FrontParts): Middleware {
  const { logger, metrics, origin, feed, sessions, isApiPath, answer } = parts;
  const requests = requestLogger(logger);
  const fixedHeaders = Object.entries(parts.headers).flat();
  const compressing = compressAnswers();

  // After the routes: an API path nothing answered is a JSON 404.
  const unanswered = (ctx: Context): void => {
    if (ctx.body === undefined && ctx.status === 404 && isApiPath(ctx.path)) {
      throw notFound(`no route ${ctx.method} ${ctx.path}`);
    }
  };
  // The route (the lean dispatcher's, else the rest of the chain), then the API 404.
  const route = (ctx: Context, next: Next): Promise<void> | undefined => {
    const taken = answer(ctx);
    const answering = taken === null ? (next() as Promise<unknown>) : taken;
    if (!answering) {
      unanswered(ctx);
      return undefined;
    }
    return answering.then(() => unanswered(ctx));
  };
  // The session, then the route.
  const signedIn = (ctx: Context, next: Next): Promise<void> | undefined => {
    const loading = readSession(ctx, sessions);
    if (loading) return loading.then(() => route(ctx, next));
    return route(ctx, next);
  };
  // Everything that can refuse or fail, in order: the cross-site check, the feed route, the JSON body.
  const steps = (ctx: Context, next: Next): Promise<void> | undefined => {
    refuseCrossSite(ctx, origin);
    if (feed !== null && ctx.path === FEED_PATH) return feed(ctx);
    const reading = readBody(ctx);
    if (reading) return reading.then(() => signedIn(ctx, next));
    return signedIn(ctx, next);
  };
  // Below the metrics and compression: the steps and the error mapping.
  const guarded = (ctx: Context, next: Next): Promise<void> | undefined => {
    let pending: Promise<void> | undefined;
    try {
      pending = steps(ctx, next);
    } catch (err) {
      answerError(ctx, err, logger);
      return undefined;
    }
    return pending?.then(undefined, (err: unknown) => answerError(ctx, err, logger));
  };

  // The answer is known: its headers, then its metrics.
  const done = (ctx: Context, start: number): void => {
    setAnswerHeaders(ctx);
    metrics.observe(ctx, start);
  };
  const timed = (ctx: Context, next: Next): Promise<void> | undefined => {
    carryAnswerHeaders(ctx, fixedHeaders);
    const start = performance.now();
    let pending: Promise<void> | undefined;
    try {
      pending = acceptsCompression(ctx)
        ? (compressing(ctx, () => guarded(ctx, next) ?? Promise.resolve()) as Promise<void>)
        : guarded(ctx, next);
    } catch (err) {
      done(ctx, start);
      throw err;
    }
    if (!pending) {
      done(ctx, start);
      return undefined;
    }
    return pending.finally(() => done(ctx, start));
  };

  return (ctx, next) => requests.within(requests.begin(ctx), () => timed(ctx, next));
}
