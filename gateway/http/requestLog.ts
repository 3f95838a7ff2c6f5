/**
 * Request logs (pino-http): one line per answered request (method, path, status, time), at `error` for a 5xx,
 * `warn` for a 4xx and `info` otherwise (none for a client that aborted its upload), each carrying the request's id. The id is made here, returned in the
 * `X-Request-Id` header, kept as the request's id for the commands it issues (`requestIdOf` in `route.ts`) and
 * written in every error answer (`errors.ts`). Every other line written while the request is handled, by any
 * logger of `createLogger`, carries it as `requestId` (`withLogContext` in `platform/logger.ts`).
 */
import { randomUUID } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { pinoHttp } from 'pino-http';
import { withLogContext, type Logger } from '../../platform/logger.ts';

/** The header that tells the client the id of its request. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** What starts every request: its id and its log line. */
export interface RequestLogger {
  /**
   * Gives the request its id (`ctx.state.requestId`) and starts its log line; answers the id. The caller puts it
   * in the answer's `X-Request-Id` header (`requestLog` below at once, the front with the answer's other headers).
   */
  begin(ctx: Context): string;
  /**
   * Runs the rest of the request so every line logged meanwhile carries its id. With a logger that writes
   * nothing it just runs it: there is no line to mark, and the context would cost every promise of the request.
   */
  within<T>(id: string, work: () => T): T;
}

/** The request logger of `logger`. */
export function requestLogger(logger: Logger): RequestLogger {
  const log = pinoHttp({
    logger,
    // Asked only for a request without the id `begin` gives it (`req.id`).
    genReqId: () => randomUUID(),
    // A client that left before its request was read is logged once, at info, by `aborted.ts`.
    customLogLevel: (req, res, error) =>
      req.readableAborted
        ? 'silent'
        : error || res.statusCode >= 500
          ? 'error'
          : res.statusCode >= 400
            ? 'warn'
            : 'info',
    customSuccessMessage: (req, res, ms) => `${req.method} ${req.url} ${res.statusCode} ${Math.round(ms)} ms`,
    customErrorMessage: (req, res) => `${req.method} ${req.url} ${res.statusCode} failed`,
    // The line names the request; headers and cookies (the session) stay out of the log.
    serializers: {
      req: (req: { id: unknown; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  });
  // A logger that writes nothing (level `silent`) gets no request logger at all: the ids stay.
  const logging = logger.isLevelEnabled('error');
  return {
    begin: (ctx) => {
      const id = randomUUID();
      (ctx.state as { requestId?: string }).requestId = id;
      if (logging) {
        // pino-http logs the id a request already has.
        (ctx.req as { id?: string }).id = id;
        log(ctx.req, ctx.res);
      }
      return id;
    },
    within: logging ? (id, work) => withLogContext({ requestId: id }, work) : (_id, work) => work(),
  };
}

/** Logs every request through `logger` and gives it an id; put it first, so every answer carries the id. */
export function requestLog(logger: Logger): Middleware {
  const requests = requestLogger(logger);
  return (ctx, next) => {
    const id = requests.begin(ctx);
    ctx.res.setHeader(REQUEST_ID_HEADER, id);
    return requests.within(id, next);
  };
}
