/**
 * The typed HTTP client of the app: JSON in and out, the session cookie sent by the browser, and every failure
 * turned into an {@link ApiError} whose message a screen can show as is. {@link call} takes a route of
 * `domain/contract/`, so its input and answer are the types of the server's own schemas; in development it also
 * checks each answer against the route's answer schema.
 */
import {
  fillPath,
  type AnswerOf,
  type BodyOf,
  type ParamsOf,
  type QueryOf,
  type RouteContract,
} from '../../domain/contract/route.ts';

/** A failed request: the server's error code and message, or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    /** HTTP status, 0 when the server could not be reached. */
    readonly status: number,
    /** The server's error code (`bad_request`, `not_found`, …) or `network`. */
    readonly code: string,
    message: string,
    /** Seconds to wait before retrying, from `Retry-After`. */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** How long a refusal for too many attempts asks to wait, in words (` Try again in 2 min.`), or '' when it says not. */
export function tryAgainText(error: ApiError): string {
  return error.retryAfter ? ` Try again in ${Math.ceil(error.retryAfter / 60)} min.` : '';
}

/** The message of any thrown value, for a screen's error state. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : 'Something went wrong';
}

/** Options of one request. */
export interface RequestOptions {
  /** JSON body. */
  readonly body?: unknown;
  /** Makes a retried POST append nothing twice. */
  readonly idempotencyKey?: string;
  /** Cancels the request. */
  readonly signal?: AbortSignal;
  /** Sees the headers of a successful answer. */
  readonly onHeaders?: (headers: Headers) => void;
}

function describeFailure(status: number): string {
  if (status === 401) return 'Your session has ended: sign in again';
  if (status === 403) return 'You are not allowed to do this';
  if (status === 404) return 'Not found';
  if (status === 413) return 'Too large';
  if (status === 429) return 'Too many attempts: wait a moment and try again';
  if (status >= 500) return 'The server could not answer: try again in a moment';
  return `The request failed (${status})`;
}

/** Sends one request and answers the parsed JSON body; throws {@link ApiError}. */
export async function request<T>(method: 'GET' | 'POST', path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: options.body === undefined ? null : JSON.stringify(options.body),
      signal: options.signal ?? null,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, 'network', 'The server cannot be reached: check the connection and retry');
  }
  const text = await response.text();
  let body: unknown = undefined;
  if (text.length > 0) {
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  }
  if (!response.ok) {
    const failure = body as { error?: unknown; message?: unknown } | undefined;
    const retry = Number(response.headers.get('retry-after'));
    throw new ApiError(
      response.status,
      typeof failure?.error === 'string' ? failure.error : 'http',
      typeof failure?.message === 'string' ? failure.message : describeFailure(response.status),
      Number.isFinite(retry) && retry > 0 ? retry : undefined,
    );
  }
  options.onHeaders?.(response.headers);
  return body as T;
}

/** A value as a caller may hold it: lists and objects read-only all the way down (the client only sends it). */
type Sent<T> = T extends readonly (infer U)[]
  ? readonly Sent<U>[]
  : T extends object
    ? { readonly [K in keyof T]: Sent<T[K]> }
    : T;

/** What a call of a route gives: its path parameters, query and body as the route's schemas take them. */
export type CallInput<C extends RouteContract> = (ParamsOf<C> extends undefined
  ? { readonly params?: undefined }
  : { readonly params: Sent<ParamsOf<C>> }) &
  (QueryOf<C> extends undefined ? { readonly query?: undefined } : { readonly query?: Sent<QueryOf<C>> }) &
  (BodyOf<C> extends undefined ? { readonly body?: undefined } : { readonly body: Sent<BodyOf<C>> }) & {
    /** Cancels the request. */
    readonly signal?: AbortSignal;
  };

/** Whether answers are checked against their schemas: in development only, to keep production fast. */
const CHECK_ANSWERS = import.meta.env?.DEV === true;

/** The URL of a call: the path with its parameters, then the query's defined values. */
export function urlOf(route: RouteContract, input: { readonly params?: object; readonly query?: object }): string {
  const path = fillPath(route.path, input.params as Readonly<Record<string, string | number | undefined>>);
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(input.query ?? {})) {
    if (value !== undefined && value !== null) search.append(name, String(value as string | number | boolean));
  }
  const query = search.toString();
  return query ? `${path}?${query}` : path;
}

/**
 * Checks an answer against the route's answer schema; a mismatch is a defect of the contract, reported on the
 * console and thrown as an {@link ApiError} `contract` naming the route and the field.
 */
export function checkAnswer<C extends RouteContract>(route: C, answer: unknown): AnswerOf<C> {
  const result = route.response.safeParse(answer);
  if (result.success) return answer as AnswerOf<C>;
  const issue = result.error.issues[0];
  const field = issue ? ['answer', ...issue.path.map(String)].join('.') : 'answer';
  const message = `${route.method} ${route.path}: ${field}: ${issue?.message ?? 'does not match the contract'}`;
  console.error('The server answered outside the API contract', message, answer);
  throw new ApiError(0, 'contract', message);
}

/**
 * Calls a route of the API contract: the path filled from `params`, `query` appended, `body` sent as JSON (a
 * POST gets a fresh idempotency key, so a network retry of the same call is safe). Answers the route's answer type.
 */
export async function call<C extends RouteContract>(
  route: C,
  ...[input]: Partial<CallInput<C>> extends CallInput<C> ? [input?: CallInput<C>] : [input: CallInput<C>]
): Promise<AnswerOf<C>> {
  const given = (input ?? {}) as { params?: object; query?: object; body?: unknown; signal?: AbortSignal };
  const url = urlOf(route, given);
  const options: RequestOptions =
    route.method === 'POST'
      ? {
          body: given.body ?? {},
          idempotencyKey: crypto.randomUUID(),
          ...(given.signal ? { signal: given.signal } : {}),
        }
      : given.signal
        ? { signal: given.signal }
        : {};
  return answerAt(route, url, options);
}

/** Sends a request of a route to a URL built by the caller, and answers the route's answer (checked in development). */
export async function answerAt<C extends RouteContract>(
  route: C,
  url: string,
  options: RequestOptions = {},
): Promise<AnswerOf<C>> {
  const answer = await request<unknown>(route.method, url, options);
  return CHECK_ANSWERS ? checkAnswer(route, answer) : (answer as AnswerOf<C>);
}

/** Header telling which log position a read-model answer reflects. */
export const POSITION_HEADER = 'X-Read-Model-Position';

/** Calls a read-model route and answers its body with the log position it reflects (null when it names none). */
export async function callPositioned<C extends RouteContract>(
  route: C,
  input: CallInput<C>,
): Promise<{ readonly body: AnswerOf<C>; readonly position: string | null }> {
  const given = input as { params?: object; query?: object; signal?: AbortSignal };
  let position: string | null = null;
  const body = await answerAt(route, urlOf(route, given), {
    ...(given.signal ? { signal: given.signal } : {}),
    onHeaders: (headers) => (position = headers.get(POSITION_HEADER)),
  });
  return { body, position };
}
