/**
 * The one place where failures become HTTP answers: `{error, message}` bodies with the status codes of the
 * API contract, and never a 500 for bad input.
 */
import type { Context, Middleware } from 'koa';
import { isDomainError } from '../domain/decider.ts';
import { WrongExpectedRevisionError } from '../platform/eventstore/port.ts';
import type { Logger } from '../platform/logger.ts';
import { isStoreUnreachable } from '../platform/unreachable.ts';
import { isClientGone } from './http/aborted.ts';

/** HTTP status of a domain refusal by its code; any other code is bad input (400). */
export const DOMAIN_ERROR_STATUS: Readonly<Record<string, number>> = Object.freeze({
  not_found: 404,
  taken: 409,
  conflict: 409,
  not_armed: 409,
  not_paused: 409,
  expired: 409,
});

/** Machine-readable error codes by HTTP status, as answered in the `error` field. */
export const ERROR_CODES: Readonly<Record<number, string>> = Object.freeze({
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable',
  429: 'rate_limited',
  431: 'headers_too_large',
  500: 'internal',
  501: 'not_implemented',
  503: 'unavailable',
});

/** The body of every error answer. */
export interface ErrorBody {
  /** Machine-readable code, e.g. `not_found`. */
  readonly error: string;
  /** What is wrong, naming the field when there is one. */
  readonly message: string;
  /** The request's id (also in its `X-Request-Id` header and log line), to quote when reporting a failure. */
  readonly requestId?: string;
}

/** An error a route throws on purpose; the mapping middleware answers it with its status, code and message. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    /** HTTP status of the answer. */
    readonly status: number,
    /** Machine-readable code for the `error` field. */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A 404 answer for a path or object that does not exist (or is not the caller's). */
export function notFound(message: string): ApiError {
  return new ApiError(404, 'not_found', message);
}

function statusOf(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { status, statusCode } = err as { status?: unknown; statusCode?: unknown };
  const value = status ?? statusCode;
  return typeof value === 'number' && Number.isInteger(value) && value >= 400 && value <= 599 ? value : undefined;
}

/** What a request that needed a shared store out of reach is told (503, with `Retry-After`). */
export const STORE_UNREACHABLE_MESSAGE =
  'the server cannot reach its data store at the moment; try again in a few seconds';

/** Seconds a client is asked to wait before retrying a request answered 503. */
export const UNAVAILABLE_RETRY_AFTER_S = 5;

/** Turns any thrown value into a status and body; unknown failures become a 500 that reveals nothing. */
export function toErrorAnswer(err: unknown): { status: number; body: ErrorBody } {
  if (err instanceof ApiError) return { status: err.status, body: { error: err.code, message: err.message } };
  if (isDomainError(err)) {
    const status = DOMAIN_ERROR_STATUS[err.code] ?? 400;
    return { status, body: { error: err.code, message: err.message } };
  }
  if (err instanceof WrongExpectedRevisionError) {
    return { status: 409, body: { error: 'conflict', message: 'the object changed meanwhile; retry' } };
  }
  if (isStoreUnreachable(err)) {
    return { status: 503, body: { error: 'unavailable', message: STORE_UNREACHABLE_MESSAGE } };
  }
  const status = statusOf(err);
  // Koa's and the router's own errors (http-errors) carry a status and mark client errors as exposable.
  if (status !== undefined && status < 500 && (err as { expose?: unknown }).expose !== false) {
    const message = err instanceof Error && err.message ? err.message : `request failed with status ${status}`;
    return { status, body: { error: ERROR_CODES[status] ?? 'bad_request', message } };
  }
  const answer = status ?? 500;
  return { status: answer, body: { error: ERROR_CODES[answer] ?? 'internal', message: 'internal error' } };
}

/**
 * Middleware catching every error below it and answering `{error, message, requestId}` JSON (the id when the
 * request has one, see `http/requestLog.ts`); 5xx are logged with it.
 */
export function errorMapper(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      answerError(ctx, err, logger);
    }
  };
}

/** Answers a request that failed with `err`, as {@link errorMapper} does. */
export function answerError(ctx: Context, err: unknown, logger: Logger): void {
  if (isClientGone(err) && ctx.req.destroyed) {
    logger.info({ method: ctx.method, path: ctx.path }, 'client closed the connection before its request was read');
    ctx.status = 400;
    ctx.body = { error: 'bad_request', message: 'body: the connection closed before it was all sent' };
    return;
  }
  const { status, body } = toErrorAnswer(err);
  const requestId = (ctx.state as { requestId?: string }).requestId;
  if (isStoreUnreachable(err)) {
    logger.warn({ err, requestId, method: ctx.method, path: ctx.path }, 'request failed: a data store is unreachable');
    ctx.set('Retry-After', String(UNAVAILABLE_RETRY_AFTER_S));
  } else if (status >= 500) logger.error({ err, requestId, method: ctx.method, path: ctx.path }, 'request failed');
  ctx.status = status;
  ctx.body = requestId === undefined ? body : { ...body, requestId };
}
