/**
 * A client that goes away before sending its whole request (a closed tab, a cancelled upload) is not a failure
 * of the server: it is logged once, at info level, and never as an error. Nor is a request Node's parser refuses
 * (answered 400 by Node itself): logged at info level with its code only, never its bytes, which may hold a
 * password or a session cookie.
 */

/** Errors Node reports when the client closed the connection before the request was read or the answer sent. */
const CLIENT_GONE = new Set([
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ERR_STREAM_PREMATURE_CLOSE',
  'HPE_INVALID_EOF_STATE',
]);

/** Whether `error` says the client closed the connection early. */
export function isClientGone(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CLIENT_GONE.has(code);
}

/** Whether `error` is a request Node's HTTP parser could not read (llhttp's `HPE_…` codes): the client's doing. */
export function isUnreadableRequest(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('HPE_');
}
