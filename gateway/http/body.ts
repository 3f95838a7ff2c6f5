/**
 * Request bodies: JSON only (and an HTML form on the {@link FORM_PATHS}), size-limited, read before routing so
 * every route sees a parsed `ctx.request.body`.
 * A body declared larger than the global limit is not read here: a route that accepts more (`bodyLimit` of its
 * definition) reads it itself, after its access check, with {@link settleBody}; for any other route
 * {@link refuseLargeBody} answers 413, and so does any other reader of the body.
 */
import type { Context } from 'koa';
import { channelsApi } from '../../domain/contract/channels.ts';
import { ApiError } from '../errors.ts';
import { refuseDeepJson } from './depth.ts';

/** Largest request body accepted, in bytes, unless a route allows more. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * The paths (lower case) whose POST may carry a form (`application/x-www-form-urlencoded` or
 * `multipart/form-data`) instead of JSON: the one-click unsubscribe a mail client sends (RFC 8058). Its fields
 * become the body's, as strings (a field given twice, a list of them).
 */
export const FORM_PATHS: ReadonlySet<string> = new Set([channelsApi.postUnsubscribe.path.toLowerCase()]);

const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data'];

declare module 'koa' {
  interface Request {
    /** The parsed JSON body, or undefined when the request had none. */
    body?: unknown;
  }
}

/** Requests whose declared body was larger than the global limit, left unread for their route. */
const deferred = new WeakMap<Context, { declared: number; limit: number }>();

function tooLarge(limit: number): ApiError {
  return new ApiError(413, 'payload_too_large', `body: larger than ${limit} bytes`);
}

/**
 * Refuses a body sent compressed or otherwise encoded (`Content-Encoding` other than `identity`): bodies are read
 * as sent, so such a body would otherwise be refused as JSON that is not valid, or read as something else.
 */
export function refuseEncodedBody(ctx: Context): void {
  const encoding = ctx.get('content-encoding').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'identity') {
    throw new ApiError(
      415,
      'unsupported_media_type',
      `headers.content-encoding: ${encoding.slice(0, 40)} is not accepted; send the body as it is`,
    );
  }
}

async function readJson(ctx: Context, limit: number): Promise<void> {
  refuseEncodedBody(ctx);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  const raw = Buffer.concat(chunks);
  if (FORM_PATHS.has(ctx.path.replace(/\/+$/, '').toLowerCase()) && ctx.is(FORM_TYPES) !== false) {
    ctx.request.body = await parseForm(raw, ctx.get('content-type'));
    return;
  }
  const text = raw.toString('utf8');
  if (text.trim() !== '') ctx.request.body = parseJson(ctx.is('application/json') === 'application/json', text);
}

/** The fields of a form body, by name: a string, or the list of them for a name given more than once. */
async function parseForm(raw: Buffer, contentType: string): Promise<Record<string, string | string[]>> {
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(raw), { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw new ApiError(400, 'bad_request', 'body: not a valid form');
  }
  const fields: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (const [name, value] of form) {
    const text = typeof value === 'string' ? value : value.name;
    const before = fields[name];
    fields[name] = before === undefined ? text : [...(Array.isArray(before) ? before : [before]), text];
  }
  return { ...fields };
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Reads and parses the JSON body of a POST, PUT, PATCH or DELETE request, refusing other media types; answers
 * undefined, with nothing to wait for, for any other method and for a body left to its route.
 */
export function readBody(ctx: Context, limit = MAX_BODY_BYTES): Promise<void> | undefined {
  if (!BODY_METHODS.has(ctx.method)) return undefined;
  const declared = Number(ctx.get('content-length') || '0');
  if (declared > limit) {
    deferred.set(ctx, { declared, limit });
    // Whoever reads the body of such a request, other than a route allowing it, gets the 413.
    Object.defineProperty(ctx.request, 'body', {
      configurable: true,
      get: () => {
        throw tooLarge(limit);
      },
    });
    return undefined;
  }
  return readJson(ctx, limit);
}

/**
 * For a route allowing bodies up to `routeLimit` bytes (none beyond the global limit when undefined): answers 413
 * when the request's body was left unread by {@link readBody} and is larger than the route allows. Call it before
 * anything else the route does, so a body too large is refused first, as {@link readBody} refuses it.
 */
export function refuseLargeBody(ctx: Context, routeLimit: number | undefined): void {
  const pending = deferred.get(ctx);
  if (pending && (routeLimit === undefined || pending.declared > routeLimit)) {
    deferred.delete(ctx);
    throw tooLarge(routeLimit ?? pending.limit);
  }
}

/**
 * Reads a body that {@link readBody} left unread (declared larger than the global limit) once
 * {@link refuseLargeBody} let it through, up to `routeLimit` bytes; does nothing, and answers undefined, for a
 * body already read.
 */
export function settleBody(ctx: Context, routeLimit: number | undefined): Promise<void> | undefined {
  const pending = deferred.get(ctx);
  // Nothing to wait for, so most requests get no promise here.
  if (!pending) return undefined;
  deferred.delete(ctx);
  const limit = routeLimit ?? pending.limit;
  if (pending.declared > limit) throw tooLarge(limit);
  Object.defineProperty(ctx.request, 'body', { configurable: true, writable: true, value: undefined });
  return readJson(ctx, limit);
}

function parseJson(isJson: boolean, text: string): unknown {
  if (!isJson) {
    throw new ApiError(415, 'unsupported_media_type', 'body: must be JSON (Content-Type: application/json)');
  }
  refuseDeepJson(text);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError(400, 'bad_request', 'body: not valid JSON');
  }
}
