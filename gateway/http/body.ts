/**
 * Request bodies: JSON only, size-limited, read before routing so every route sees a parsed `ctx.request.body`.
 */
import type { Middleware } from 'koa';
import { ApiError } from '../errors.ts';

/** Largest request body accepted, in bytes. */
export const MAX_BODY_BYTES = 64 * 1024;

declare module 'koa' {
  interface Request {
    /** The parsed JSON body, or undefined when the request had none. */
    body?: unknown;
  }
}

function tooLarge(): ApiError {
  return new ApiError(413, 'payload_too_large', `body: larger than ${MAX_BODY_BYTES} bytes`);
}

/** Reads and parses JSON bodies of POST, PUT, PATCH and DELETE requests; refuses other media types. */
export function jsonBody(limit = MAX_BODY_BYTES): Middleware {
  return async (ctx, next) => {
    if (!['POST', 'PUT', 'PATCH', 'DELETE'].includes(ctx.method)) {
      await next();
      return;
    }
    const declared = Number(ctx.get('content-length') || '0');
    if (declared > limit) throw tooLarge();
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw tooLarge();
      chunks.push(chunk);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    if (text.trim() !== '') ctx.request.body = parseJson(ctx.is('application/json') === 'application/json', text);
    await next();
  };
}

function parseJson(isJson: boolean, text: string): unknown {
  if (!isJson) {
    throw new ApiError(415, 'unsupported_media_type', 'body: must be JSON (Content-Type: application/json)');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError(400, 'bad_request', 'body: not valid JSON');
  }
}
