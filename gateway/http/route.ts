/**
 * Routes as data: method, path, access, and the zod schemas of params, query and body. The same
 * definitions validate requests (a refusal names the field) and produce the OpenAPI reference.
 */
import { randomUUID } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import type { RouteContract } from '../../domain/contract/route.ts';
import type { CommandMeta } from '../../domain/decider.ts';
import { uuidV5, STOCKPULSE_NAMESPACE } from '../../domain/ids.ts';
import { IdempotencyKeyReusedError } from '../../platform/commandHandler.ts';
import { formatPosition, type LogPosition } from '../../platform/eventstore/port.ts';
import type { Session } from '../../platform/sessions/port.ts';
import { ApiError } from '../errors.ts';
import { writeAtOnce } from './answerHeaders.ts';
import { refuseLargeBody, settleBody } from './body.ts';
import { acceptsCompression, COMPRESS_THRESHOLD_BYTES } from './compression.ts';
import { idempotencyKeyOf, keyReused, requestFingerprint } from './idempotency.ts';
import { JsonText } from './keptAnswer.ts';
import { restateIdRefusal } from './paramErrors.ts';

export type { Access } from '../../domain/contract/route.ts';

/** What a route handler receives: validated input and the caller. */
export interface RouteRequest<P, Q, B> {
  /** Validated path parameters. */
  readonly params: P;
  /** Validated query parameters. */
  readonly query: Q;
  /** Validated body. */
  readonly body: B;
  /** The caller's session (null only on public routes). */
  readonly session: Session | null;
  /** The caller's user id (empty on public routes without a session). */
  readonly userId: string;
  /** Metadata for a command issued by this request (idempotency key, time, actor). */
  readonly meta: () => CommandMeta;
  /** The Koa context, for cookies and headers. */
  readonly ctx: Context;
}

/** One route of the API: its contract from `domain/contract/`, and the work it does. */
export interface RouteDef<P = unknown, Q = unknown, B = unknown> extends Omit<
  RouteContract,
  'params' | 'query' | 'body'
> {
  /** Path parameters. */
  readonly params?: z.ZodType<P>;
  /** Query parameters. */
  readonly query?: z.ZodType<Q>;
  /** Request body. */
  readonly body?: z.ZodType<B>;
  /** Largest body this route accepts, in bytes, when more than the global limit of `http/body.ts`. */
  readonly bodyLimit?: number;
  /** Does the work; a {@link JsonText} answer (a kept one comes without a promise) is sent as it is. */
  handle(request: RouteRequest<P, Q, B>): Promise<unknown> | JsonText;
}

/** Defines a route with its types inferred from its schemas. */
export function defineRoute<P = Record<string, never>, Q = Record<string, never>, B = undefined>(
  def: RouteDef<P, Q, B>,
): RouteDef<P, Q, B> {
  return def;
}

/** Turns a zod failure into a 400 whose message names the field, e.g. `body.symbols[1]: …`. */
export function validationError(where: string, error: z.ZodError): ApiError {
  const found = mostSpecific(error.issues);
  // A field a strict object does not have is named itself (`body.frequncy: is not a field of this request`).
  const unknown = where === 'query' ? 'is not a parameter of this request' : 'is not a field of this request';
  const issue =
    found.code === 'unrecognized_keys' && found.keys.length > 0
      ? { ...found, path: [...found.path, found.keys[0]!], message: unknown }
      : found;
  const path = issue.path.reduce<string>(
    (text, part) => (typeof part === 'number' ? `${text}[${part}]` : `${text}.${String(part)}`),
    where,
  );
  return new ApiError(400, 'bad_request', `${path}: ${inWords(issue.message)}`);
}

/** zod's own message of a value of the wrong type, which a schema without a message of its own answers. */
const TYPE_DEFAULT_MESSAGE = /^Invalid input: expected (\w+), received (\w+)$/;

/** The types of zod's messages as the API's other refusals write them. */
const TYPE_WORDS: Readonly<Record<string, string>> = {
  string: 'a text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
};

/** zod's own wording of a wrong type in the API's: `is required: a text`, `must be a number, not a text`. */
function inWords(message: string): string {
  const match = TYPE_DEFAULT_MESSAGE.exec(message);
  if (!match) return message;
  const expected = TYPE_WORDS[match[1]!] ?? match[1]!;
  const received = match[2]!;
  if (received === 'undefined') return `is required: ${expected}`;
  return `must be ${expected}, not ${TYPE_WORDS[received] ?? received}`;
}

/** zod's own message of a union none of whose branches took the value. */
const UNION_DEFAULT_MESSAGE = 'Invalid input';

/**
 * For a union that failed, the issue of the branch that got furthest: the deepest path, and at the same depth a
 * branch whose type the value has (a list of 101 symbols is refused for its length, not for not being an
 * object). A value of none of the branches' types is refused with the union's own message, else with the types
 * it may have (`must be an object or an array`).
 */
function mostSpecific(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue {
  const issue = issues[0]!;
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return issue;
  const candidates = issue.errors.map((branch) => mostSpecific(branch));
  const deepest = candidates.reduce((best, c) =>
    c.path.length > best.path.length ||
    (c.path.length === best.path.length && best.code === 'invalid_type' && c.code !== 'invalid_type')
      ? c
      : best,
  );
  if (deepest.path.length > 0 || deepest.code !== 'invalid_type') {
    return { ...deepest, path: [...issue.path, ...deepest.path] };
  }
  if (issue.message !== UNION_DEFAULT_MESSAGE) return issue;
  const expected = [...new Set(candidates.flatMap((c) => (c.code === 'invalid_type' ? [c.expected] : [])))];
  const named = expected.map((type) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`));
  return { ...issue, message: `must be ${named.join(' or ')}` };
}

function parse<T>(schema: z.ZodType<T> | undefined, value: unknown, where: string): T {
  if (!schema) return undefined as T;
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(where, result.error);
  return result.data;
}

/**
 * A route without a query schema takes no parameters: one given anyway is named rather than ignored (a misspelt
 * `?limt=5` must not answer as if it were not there), as a strict query schema names one it does not have.
 */
function noQuery(ctx: Context): undefined {
  if (ctx.querystring === '') return undefined;
  const name = Object.keys(ctx.query)[0];
  throw new ApiError(
    400,
    'bad_request',
    name ? `query.${name}: is not a parameter of this request` : 'query: this request takes no parameters',
  );
}

/**
 * Validated path parameters and queries of GET routes, kept per route by their raw text: a repeated request
 * (the same page asked again, the common case of read-model routes) skips the schema's work. Only accepted
 * values made only of plain values are kept (frozen, so no handler can change what the next request gets);
 * lists and refusals are worked out every time. Bounded: a full cache starts again empty.
 */
const PARSED_LIMIT = 512;

function keptParse<T>(
  kept: Map<string, unknown>,
  schema: z.ZodType<T> | undefined,
  key: string,
  value: () => unknown,
  where: string,
): T {
  if (!schema) return undefined as T;
  if (kept.has(key)) return kept.get(key) as T;
  const parsed = parse(schema, value(), where);
  if (kept.size >= PARSED_LIMIT) kept.clear();
  if (flat(parsed)) kept.set(key, Object.freeze(parsed));
  return parsed;
}

/** Whether a parsed value is an object of plain values only (none a handler could change in place). */
function flat(parsed: unknown): boolean {
  if (typeof parsed !== 'object' || parsed === null) return false;
  return Object.values(parsed).every((v) => v === null || typeof v !== 'object');
}

function paramsKey(params: unknown): string {
  return params && typeof params === 'object' ? Object.values(params as Record<string, string>).join('\u0000') : '';
}

function commandIdOf(ctx: Context, userId: string): string {
  const key = idempotencyKeyOf(ctx);
  if (!key) return randomUUID();
  return uuidV5(`${userId}/${key}`, STOCKPULSE_NAMESPACE);
}

/** The id of a request, made when first asked for: every command the request issues shares it as correlation id. */
export function requestIdOf(ctx: Context): string {
  const state = ctx.state as { requestId?: string };
  state.requestId ??= randomUUID();
  return state.requestId;
}

/** The metadata of the commands a request issues, made on first use (most requests issue none). */
function lazyMeta(ctx: Context, userId: string): () => CommandMeta {
  let meta: CommandMeta | undefined;
  return () =>
    (meta ??= {
      commandId: commandIdOf(ctx, userId),
      userId,
      at: new Date().toISOString(),
      actor: `user:${userId}`,
      correlationId: requestIdOf(ctx),
      ...(idempotencyKeyOf(ctx) !== undefined ? { requestHash: requestFingerprint(ctx) } : {}),
    });
}

/** The content type Koa gives a JSON answer, so a {@link JsonText} answer is sent byte for byte the same. */
const JSON_TYPE = 'application/json; charset=utf-8';

/** A route's Koa handler: the promise of its answer, or undefined when it answered at once. */
export type RouteHandler = (ctx: Context) => Promise<void> | undefined;

const routeHandlers = new WeakSet<object>();

/** Whether a function is a handler made by {@link routeHandler}: it answers and never calls `next`. */
export function isRouteHandler(fn: unknown): fn is RouteHandler {
  return typeof fn === 'function' && routeHandlers.has(fn);
}

/**
 * Sends a {@link JsonText} answer. A GET answer below the compression threshold (or to a request that accepts
 * no compression) is written at once with its kept `Content-Length` and every header in one `writeHead`
 * (`answerHeaders.ts`), past Koa's body setters and `respond`, which only repeated what is known here; anything
 * else goes through `ctx.body` as usual.
 */
function sendJsonText(ctx: Context, status: number, answer: JsonText): void {
  if (ctx.method === 'GET' && (answer.bytes < COMPRESS_THRESHOLD_BYTES || !acceptsCompression(ctx))) {
    const headers =
      answer.position === undefined
        ? ['Content-Type', JSON_TYPE, 'Content-Length', answer.bytes]
        : [POSITION_HEADER, answer.position, 'Content-Type', JSON_TYPE, 'Content-Length', answer.bytes];
    if (writeAtOnce(ctx, status, headers, answer.text)) return;
  }
  ctx.status = status;
  if (answer.position !== undefined) ctx.set(POSITION_HEADER, answer.position);
  ctx.set('Content-Type', JSON_TYPE);
  ctx.body = answer.text;
}

/** Whether a route's answer is a JSON object or array (not text, bytes or a stream a route sends as it is). */
function isJsonValue(result: unknown): result is object {
  if (result === null || typeof result !== 'object') return false;
  const prototype: unknown = Object.getPrototypeOf(result);
  return Array.isArray(result) || prototype === Object.prototype || prototype === null;
}

/**
 * An object answer as its JSON text, typed as JSON: Koa would otherwise write an object twice when compressing
 * it (once to count its bytes, once to compress it), and count the bytes of its text again when sending it.
 */
function jsonBody(ctx: Context, result: object): string {
  if (ctx.type === '') ctx.set('Content-Type', JSON_TYPE);
  return JSON.stringify(result);
}

/**
 * The Koa handler of one route: access check, validation, then the route's work; the answer is its JSON. A
 * route answering at once (a kept {@link JsonText}) is answered without a promise.
 */
export function routeHandler(definition: RouteDef<never, never, never>): RouteHandler {
  const route = definition as RouteDef;
  const status = route.status ?? 200;
  const keptParams = new Map<string, unknown>();
  const keptQueries = new Map<string, unknown>();
  const restate = (ctx: Context, error: unknown): unknown =>
    error instanceof IdempotencyKeyReusedError
      ? keyReused(ctx)
      : restateIdRefusal(error, ctx.params as Record<string, string> | undefined);
  const send = (ctx: Context, result: unknown): void => {
    if (result instanceof JsonText) return sendJsonText(ctx, status, result);
    ctx.status = status;
    ctx.body = isJsonValue(result) ? jsonBody(ctx, result) : result;
  };
  const run = (ctx: Context, session: Session | null): Promise<void> | undefined => {
    if (route.method !== 'GET') idempotencyKeyOf(ctx);
    const userId = session?.userId ?? '';
    const get = route.method === 'GET';
    const params = get
      ? keptParse(keptParams, route.params, paramsKey(ctx.params), () => ctx.params, 'params')
      : parse(route.params, ctx.params, 'params');
    const query = !route.query
      ? noQuery(ctx)
      : get
        ? keptParse(keptQueries, route.query, ctx.querystring, () => ({ ...ctx.query }), 'query')
        : parse(route.query, { ...ctx.query }, 'query');
    const body = parse(route.body, ctx.request.body, 'body');
    let out: Promise<unknown> | JsonText;
    try {
      out = route.handle({ params, query, body, session, userId, ctx, meta: lazyMeta(ctx, userId) });
    } catch (error) {
      throw restate(ctx, error);
    }
    if (out instanceof JsonText) {
      send(ctx, out);
      return undefined;
    }
    return Promise.resolve(out).then(
      (result) => send(ctx, result),
      (error: unknown) => {
        throw restate(ctx, error);
      },
    );
  };
  const handler: RouteHandler = (ctx) => {
    refuseLargeBody(ctx, route.bodyLimit);
    const session = (ctx.state.session as Session | null | undefined) ?? null;
    if (route.access !== 'public' && !session) throw new ApiError(401, 'unauthorized', 'sign in first');
    if ((route.access === 'auditor' || route.access === 'operator') && !session?.roles.includes(route.access)) {
      throw new ApiError(403, 'forbidden', `this route is for ${route.access}s`);
    }
    const settling = settleBody(ctx, route.bodyLimit);
    return settling ? settling.then(() => run(ctx, session)) : run(ctx, session);
  };
  routeHandlers.add(handler);
  return handler;
}

/** Registers routes on a router: access check, validation, then the handler; the answer is its JSON. */
export function mountRoutes(router: Router, routes: readonly RouteDef<never, never, never>[]): void {
  for (const route of routes) {
    const handler = routeHandler(route);
    if (route.method === 'GET') router.get(route.path, handler);
    else router.post(route.path, handler);
  }
}

/** The OpenAPI 3.1 document of the routes, built from the same schemas that validate requests. */
export function openApiDocument(routes: readonly RouteContract[], version: string): object {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes as readonly (RouteContract & { readonly bodyLimit?: number })[]) {
    const path = route.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const parameters: object[] = [];
    for (const [where, schema] of [
      ['path', route.params],
      ['query', route.query],
    ] as const) {
      if (!schema) continue;
      const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
        properties?: Record<string, object>;
        required?: string[];
      };
      for (const [name, property] of Object.entries(json.properties ?? {})) {
        parameters.push({
          name,
          in: where,
          required: where === 'path' || !!json.required?.includes(name),
          schema: property,
        });
      }
    }
    const errors = {
      '400': { description: 'bad input; the message names the field' },
      ...(route.access === 'feed' ? { '401': { description: 'no valid bearer feed token' } } : {}),
      ...(route.access !== 'public' && route.access !== 'feed' ? { '401': { description: 'no session' } } : {}),
      ...(route.access === 'auditor' || route.access === 'operator'
        ? { '403': { description: `not an ${route.access}` } }
        : {}),
      ...(route.bodyLimit !== undefined ? { '413': { description: `body larger than ${route.bodyLimit} bytes` } } : {}),
    };
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      summary: route.summary,
      tags: [route.tag],
      ...(route.access === 'feed' ? { security: [{ feedToken: [] }] } : {}),
      ...(route.access !== 'public' && route.access !== 'feed' ? { security: [{ session: [] }] } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(route.body
        ? {
            requestBody: {
              required: true,
              content: {
                'application/json': { schema: z.toJSONSchema(route.body, { io: 'input', unrepresentable: 'any' }) },
              },
            },
          }
        : {}),
      responses: {
        [String(route.status ?? 200)]: {
          description: 'success',
          content: {
            [route.contentType ?? 'application/json']: {
              schema: z.toJSONSchema(route.response, { unrepresentable: 'any' }),
            },
          },
        },
        ...errors,
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'StockPulse API', version },
    components: {
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: 'sid' },
        feedToken: { type: 'http', scheme: 'bearer' },
      },
    },
    paths,
  };
}

/** Header telling which log position a read-model answer reflects. */
export const POSITION_HEADER = 'X-Read-Model-Position';

/** Marks an answer with the log position its read model reflects. */
export function markPosition(ctx: Context, position: LogPosition | undefined): void {
  if (position) ctx.set(POSITION_HEADER, formatPosition(position));
}
