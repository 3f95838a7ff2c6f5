/**
 * The typed HTTP client of the app: JSON in and out, the session cookie sent by the browser, and every failure
 * turned into an {@link ApiError} whose message a screen can show as is.
 */

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

/** Header telling which log position a read-model answer reflects. */
export const POSITION_HEADER = 'X-Read-Model-Position';

/** GET a JSON document of a read model, with the log position it reflects (null when the answer names none). */
export async function getPositioned<T>(
  path: string,
  signal?: AbortSignal,
): Promise<{ readonly body: T; readonly position: string | null }> {
  let position: string | null = null;
  const body = await request<T>('GET', path, {
    ...(signal ? { signal } : {}),
    onHeaders: (headers) => (position = headers.get(POSITION_HEADER)),
  });
  return { body, position };
}

/** GET a JSON document. */
export function get<T>(path: string, signal?: AbortSignal): Promise<T> {
  return request<T>('GET', path, signal ? { signal } : {});
}

/** POST a JSON body (a fresh idempotency key per call, so a network retry of the same call is safe). */
export function post<T>(path: string, body?: unknown): Promise<T> {
  return request<T>('POST', path, { body: body ?? {}, idempotencyKey: crypto.randomUUID() });
}

/** A path segment, encoded. */
export function seg(value: string | number): string {
  return encodeURIComponent(String(value));
}
