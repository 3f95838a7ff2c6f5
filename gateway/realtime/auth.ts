/**
 * The handshake of a socket: the session cookie is required (the user's sockets join only the user's room, and
 * their session's, see `sessionRoom`), and `auth.since`, when given, must be a log position.
 */
import { parsePosition, type LogPosition } from '../../platform/eventstore/port.ts';
import type { SessionStore } from '../../platform/sessions/port.ts';
import { sessionTokenOf } from '../auth/session.ts';
import { sessionRoom, type RealtimeServer } from './server.ts';

/** The handshake's `auth.since`: absent (null), a position, or a refusal naming the field. */
function sinceOf(auth: unknown): LogPosition | null | Error {
  const since = (auth as { since?: unknown } | null | undefined)?.since;
  if (since === undefined || since === null || since === '') return null;
  const position = typeof since === 'string' ? parsePosition(since) : null;
  return position ?? new Error('auth.since: must be the position of a notification, "<commit>/<prepare>"');
}
/** The handshake middleware: a socket without a valid session, or with a bad `auth.since`, is refused. */
export function authenticateSockets(sessions: SessionStore): Parameters<RealtimeServer['use']>[0] {
  return (socket, next) => {
    const token = sessionTokenOf(socket.request.headers.cookie);
    if (!token) {
      next(new Error('unauthorized: sign in first'));
      return;
    }
    const since = sinceOf(socket.handshake.auth);
    if (since instanceof Error) {
      next(since);
      return;
    }
    sessions.get(token).then(
      (session) => {
        if (!session) {
          next(new Error('unauthorized: sign in first'));
          return;
        }
        socket.data.userId = session.userId;
        socket.data.symbols = new Set();
        socket.data.since = since;
        socket.data.catchingUp = since ? [] : null;
        socket.data.sessionRoom = sessionRoom(token);
        socket.data.expiresAt = session.expiresAt;
        next();
      },
      (error: unknown) => next(error instanceof Error ? error : new Error(String(error))),
    );
  };
}
