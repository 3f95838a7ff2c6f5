/**
 * What every StockPulse Socket.IO server shares (the gateways' and the relays'): its types, the rooms a socket
 * joins, and the Redis Streams adapter through which the servers of several processes reach each other.
 */
import { createAdapter } from '@socket.io/redis-streams-adapter';
import { tokenHash } from '../../platform/sessions/token.ts';
import type { Server, Socket } from 'socket.io';
import type { LogPosition } from '../../platform/eventstore/port.ts';
import type { RedisClient } from '../../platform/redis.ts';
import type { ClientToServerEvents, NotificationPush, ServerToClientEvents } from '../../domain/contract/socket.ts';

/** What the server keeps per socket. */
export interface SocketData {
  /** The signed-in user. */
  userId: string;
  /** Symbols watched. */
  symbols: Set<string>;
  /** The position of the last notification the client saw (`auth.since`), when it gave one. */
  since: LogPosition | null;
  /** Notifications pushed while the missed ones are being sent (null once they are). */
  catchingUp: NotificationPush[] | null;
  /** The room of the socket's session ({@link sessionRoom}), which signing out disconnects. */
  sessionRoom: string;
  /** When the socket's session expires (ms since the epoch): the socket is disconnected then. */
  expiresAt: number;
}

/** Events between the servers (through the Redis adapter). */
export interface InterServerEvents {
  /** A trigger became durable: each gateway pushes it to its own sockets of the user. */
  notification: (userId: string, push: NotificationPush) => void;
}

/** The Socket.IO server type of the gateway. */
export type RealtimeServer = Server<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;

/** The Redis stream of the Socket.IO adapter. */
export const SOCKET_STREAM = 'socket.io';

/** A socket of the gateway. */
export type RealtimeSocket = Socket<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;

/**
 * The room of the sockets opened with one session: named by a hash of its token, so the token itself is never
 * a room's name (rooms travel between the gateways through Redis).
 */
export function sessionRoom(token: string): string {
  return sessionHashRoom(tokenHash(token));
}

/** The room of the sockets of the session whose token has this hash (`tokenHash`). */
export function sessionHashRoom(hash: string): string {
  return `session:${hash}`;
}

/** The room of a user's sockets. */
export function userRoom(userId: string): string {
  return `user:${userId}`;
}

/** The room of a symbol's watchers. */
export function quoteRoom(symbol: string): string {
  return `quote:${symbol}`;
}

/** The Redis Streams adapter of every StockPulse Socket.IO server (gateways and relays agree on it). */
export function redisAdapter(redis: RedisClient): ReturnType<typeof createAdapter> {
  // A short block lets a closed adapter's reader stop within a second.
  return createAdapter(redis, { streamName: SOCKET_STREAM, blockTimeInMs: 1000, onlyPlaintext: true });
}
