/**
 * A route of the API as data: method, path, who may call it, and the zod schemas of its path parameters, query,
 * body and answer. The gateway validates requests and writes the OpenAPI reference from these; the web app's
 * client types its calls and checks the answers from the same objects.
 */
import type { z } from 'zod';

/** Who may call a route: anyone, a signed-in user, a signed-in auditor, or a feed with the bearer feed token. */
export type Access = 'public' | 'user' | 'auditor' | 'operator' | 'feed';

/** The contract of one route. */
export interface RouteContract {
  /** HTTP method. */
  readonly method: 'GET' | 'POST';
  /** Path with `:name` parameters, as @koa/router writes it. */
  readonly path: string;
  /** One line on what it does. */
  readonly summary: string;
  /** Group in the reference. */
  readonly tag: string;
  /** Who may call it. */
  readonly access: Access;
  /** Path parameters. */
  readonly params?: z.ZodType;
  /** Query parameters. */
  readonly query?: z.ZodType;
  /** Request body. */
  readonly body?: z.ZodType;
  /** What a success answers. */
  readonly response: z.ZodType;
  /** Status of a success (200 unless said). */
  readonly status?: number;
  /** Media type of a success when it is not JSON (`text/plain`, `image/png`, …); `response` then documents it. */
  readonly contentType?: string;
}

/** Declares a route contract, keeping the exact schema types for the gateway and the client. */
export function route<const C extends RouteContract>(contract: C): C {
  return contract;
}

type SchemaOf<C, K extends 'params' | 'query' | 'body'> = C extends { readonly [P in K]: infer S extends z.ZodType }
  ? S
  : undefined;

/** The path parameters a caller gives (the schema's input), or `undefined` when the route has none. */
export type ParamsOf<C> = SchemaOf<C, 'params'> extends infer S extends z.ZodType ? z.input<S> : undefined;
/** The query a caller gives (the schema's input), or `undefined` when the route has none. */
export type QueryOf<C> = SchemaOf<C, 'query'> extends infer S extends z.ZodType ? z.input<S> : undefined;
/** The body a caller sends (the schema's input), or `undefined` when the route has none. */
export type BodyOf<C> = SchemaOf<C, 'body'> extends infer S extends z.ZodType ? z.input<S> : undefined;
/** What a route answers on success. */
export type AnswerOf<C extends RouteContract> = z.output<C['response']>;

/** A path with its `:name` parameters filled in (each value URI-encoded). */
export function fillPath(
  path: string,
  params: Readonly<Record<string, string | number | undefined>> | undefined,
): string {
  return path.replace(/:([A-Za-z_]+)/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined) throw new TypeError(`${path}: missing path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
}
