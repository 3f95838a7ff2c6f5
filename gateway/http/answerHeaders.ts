/**
 * The headers every answer carries (the request id and the security headers), set by the front (`front.ts`)
 * once the answer is known rather than one by one as the request starts: an answer written at once
 * ({@link writeAtOnce}) then passes all its headers to Node in one `writeHead`, which stores and checks them in
 * one pass, where eight `setHeader` calls (each checking, lower-casing and storing one) cost a kept GET answer
 * about 2 µs more.
 */
import type { Context } from 'koa';
import { REQUEST_ID_HEADER } from './requestLog.ts';

const ANSWER_HEADERS = Symbol('answer headers');

interface WithAnswerHeaders {
  [ANSWER_HEADERS]?: readonly string[];
}

function requestIdOf(ctx: Context): string {
  return String((ctx.state as { requestId?: string }).requestId);
}

/**
 * Marks a request as one whose answer carries its id (`ctx.state.requestId`, see `requestLog.ts`) in
 * `X-Request-Id` and the `fixed` headers (flat name, value pairs, shared by every request): written at once by
 * {@link writeAtOnce}, else set by {@link setAnswerHeaders} before Koa sends the answer.
 */
export function carryAnswerHeaders(ctx: Context, fixed: readonly string[]): void {
  (ctx as WithAnswerHeaders)[ANSWER_HEADERS] = fixed;
}

/**
 * Sets the headers of {@link carryAnswerHeaders} that the answer does not have yet (a route may set its own),
 * unless the answer was written already.
 */
export function setAnswerHeaders(ctx: Context): void {
  const fixed = (ctx as WithAnswerHeaders)[ANSWER_HEADERS];
  const res = ctx.res;
  if (fixed === undefined || res.headersSent) return;
  if (!res.hasHeader(REQUEST_ID_HEADER)) res.setHeader(REQUEST_ID_HEADER, requestIdOf(ctx));
  for (let i = 0; i < fixed.length; i += 2) {
    if (!res.hasHeader(fixed[i]!)) res.setHeader(fixed[i]!, fixed[i + 1]!);
  }
}

/**
 * Writes a whole answer at once: the status, the headers of {@link carryAnswerHeaders}, `headers` (flat name,
 * value pairs) and the body, past Koa's `respond`. Answers false, writing nothing, for a request not marked so
 * (an application without the front) or whose headers were sent already: answer it through Koa then.
 */
export function writeAtOnce(
  ctx: Context,
  status: number,
  headers: readonly (string | number)[],
  body: string,
): boolean {
  const fixed = (ctx as WithAnswerHeaders)[ANSWER_HEADERS];
  const res = ctx.res;
  if (fixed === undefined || res.headersSent) return false;
  ctx.respond = false;
  res.writeHead(status, [REQUEST_ID_HEADER, requestIdOf(ctx), ...fixed, ...headers] as string[]);
  res.end(body);
  return true;
}
