/**
 * Requests Node's HTTP parser refuses before any middleware sees them (an address and headers beyond
 * `http.maxHeaderSize`, a malformed request, one too slow to arrive) are answered with the API's `{error, message}`
 * JSON body and the status Node would give, rather than Node's bare status line.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../../platform/logger.ts';
import { ERROR_CODES } from '../errors.ts';
import { isClientGone, isUnreadableRequest } from './aborted.ts';

/** The status, its reason phrase and the message of a request the parser refused with `code`. */
function refusalOf(code: string | undefined): { status: number; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        message:
          `request: its address and headers are larger than ${http.maxHeaderSize.toLocaleString('en-US')} bytes; ` +
          'shorten the address (fewer symbols or parameters)',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, message: 'request: not received in time' };
    default:
      return { status: 400, message: 'request: not a well-formed HTTP request' };
  }
}

/**
 * Answers each request `server`'s parser refuses with a JSON error body (see the module's description), and logs
 * it at info level: the client's doing, logged by its code and reason only, never its bytes (the error carries
 * them, a password or a session cookie among them).
 */
export function answerClientErrors(server: http.Server, logger: Pick<Logger, 'info'>): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A connection reset, closed mid-request or already answered has nobody left to tell; the request's own log
    // line says so.
    if (isClientGone(error) || !socket.writable) {
      socket.destroy();
      return;
    }
    if (isUnreadableRequest(error)) {
      logger.info(
        { code: error.code, reason: (error as { reason?: unknown }).reason },
        'a request the server could not read',
      );
    }
    const { status, message } = refusalOf(error.code);
    const body = JSON.stringify({ error: ERROR_CODES[status] ?? 'bad_request', message });
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}
