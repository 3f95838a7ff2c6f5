/**
 * Socket.IO on the gateway's HTTP server: the handshake needs the session cookie, a socket joins only its
 * user's room, quotes go to the sockets that subscribed (coalesced per symbol), and a notification is pushed
 * to the user's room once the trigger is durable and in the read model.
 */
import type http from 'node:http';
import { Server, type Socket } from 'socket.io';
import { z } from 'zod';
import type { Quote, QuoteSource } from '../../engine/market/quotes.ts';
import type { AlertTriggeredData } from '../../domain/alerts/alerts.ts';
import { formatPosition } from '../../platform/eventstore/port.ts';
import type { Logger } from '../../platform/logger.ts';
import type { SessionStore } from '../../platform/sessions/port.ts';
import { SESSION_COOKIE } from '../auth/session.ts';
import type { ReadModelSync } from '../commands.ts';
import { validationError } from '../http/route.ts';
import { symbolSchema, type SymbolDirectory } from '../http/schemas.ts';
import type { RunningEngine, System } from '../system.ts';
import type {
  ClientToServerEvents,
  NotificationPush,
  QuotesAck,
  ServerToClientEvents,
} from '../../domain/contract/socket.ts';

/** What the server keeps per socket. */
export interface SocketData {
  /** The signed-in user. */
  userId: string;
  /** Symbols watched. */
  symbols: Set<string>;
}

/** Shortest interval between two quotes of one symbol (4 per second). */
export const QUOTE_INTERVAL_MS = 250;

/** Most symbols one socket may watch. */
export const MAX_WATCHED_SYMBOLS = 200;

/** Longest wait (ms) for the notifications read model before pushing anyway. */
const READ_MODEL_WAIT_MS = 2000;

/** What the realtime server needs. */
export interface RealtimeDeps {
  /** Sessions, to authenticate the handshake. */
  readonly sessions: SessionStore;
  /** The symbols that exist. */
  readonly symbols: SymbolDirectory;
  /** The current quotes (snapshot of a subscription). */
  readonly quotes: () => QuoteSource;
  /** The live engine, when this process runs it: quote updates and triggers. */
  readonly engine: Pick<RunningEngine, 'quotes' | 'onTrigger'> | null;
  /** Waits until the read models include a position. */
  readonly readModelSync: ReadModelSync;
  /** Logger. */
  readonly logger: Logger;
  /** Commits of the projections this process runs (for `readmodel:changed`). */
  readonly onReadModelCommit?: System['onReadModelCommit'];
}

/** The running realtime server. */
export interface Realtime {
  /** The Socket.IO server. */
  readonly io: Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
  /** Connected sockets. */
  socketCount(): number;
  /** Disconnects every socket and stops the timers (the HTTP server is left to its owner). */
  close(): Promise<void>;
}

type RealtimeSocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;

/** The room of a user's sockets. */
export function userRoom(userId: string): string {
  return `user:${userId}`;
}

/** The room of a symbol's watchers. */
export function quoteRoom(symbol: string): string {
  return `quote:${symbol}`;
}

const quotesRequestSchema = z.object({
  symbols: z
    .array(symbolSchema)
    .min(1, 'must name at least one symbol')
    .max(MAX_WATCHED_SYMBOLS, `must name at most ${MAX_WATCHED_SYMBOLS} symbols`),
});

/** The value of one cookie in a `Cookie` header. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** Attaches Socket.IO to the gateway's HTTP server. */
export function attachRealtime(server: http.Server, deps: RealtimeDeps): Realtime {
  const io = new Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>(server, {
    serveClient: false,
  });

  io.use((socket, next) => {
    const token = cookieValue(socket.request.headers.cookie, SESSION_COOKIE);
    if (!token) {
      next(new Error('unauthorized: sign in first'));
      return;
    }
    deps.sessions.get(token).then(
      (session) => {
        if (!session) {
          next(new Error('unauthorized: sign in first'));
          return;
        }
        socket.data.userId = session.userId;
        socket.data.symbols = new Set();
        next();
      },
      (error: unknown) => next(error instanceof Error ? error : new Error(String(error))),
    );
  });

  const parse = (request: unknown): { symbols: string[] } | { message: string } => {
    const parsed = quotesRequestSchema.safeParse(request);
    if (!parsed.success) return { message: validationError('symbols', parsed.error).message.replace(/^symbols\./, '') };
    const unknown = parsed.data.symbols.findIndex((s) => !deps.symbols.has(s));
    if (unknown >= 0) return { message: `symbols[${unknown}]: unknown symbol ${parsed.data.symbols[unknown]}` };
    return { symbols: parsed.data.symbols };
  };

  io.on('connection', (socket: RealtimeSocket) => {
    void socket.join(userRoom(socket.data.userId));
    const answer = (ack: unknown, value: QuotesAck): void => {
      if (typeof ack === 'function') (ack as (answer: QuotesAck) => void)(value);
    };
    socket.on('quotes:subscribe', (request, ack) => {
      const asked = parse(request);
      if ('message' in asked) return answer(ack, { ok: false, message: asked.message });
      const watched = socket.data.symbols;
      const added = asked.symbols.filter((s) => !watched.has(s));
      if (watched.size + added.length > MAX_WATCHED_SYMBOLS) {
        return answer(ack, { ok: false, message: `symbols: at most ${MAX_WATCHED_SYMBOLS} watched per socket` });
      }
      for (const symbol of added) watched.add(symbol);
      void socket.join(added.map(quoteRoom));
      answer(ack, { ok: true, symbols: [...watched], quotes: deps.quotes().quotes(asked.symbols) });
    });
    socket.on('quotes:unsubscribe', (request, ack) => {
      const asked = parse(request);
      if ('message' in asked) return answer(ack, { ok: false, message: asked.message });
      for (const symbol of asked.symbols) {
        socket.data.symbols.delete(symbol);
        void socket.leave(quoteRoom(symbol));
      }
      const watched = [...socket.data.symbols];
      answer(ack, { ok: true, symbols: watched, quotes: deps.quotes().quotes(watched) });
    });
  });

  // Quotes: each symbol that moved is sent at most once per interval, to the sockets watching it.
  const moved = new Set<string>();
  const stopQuotes = deps.engine?.quotes.onUpdate((symbol) => moved.add(symbol));
  const flushQuotes = setInterval(() => {
    if (moved.size === 0) return;
    const source = deps.quotes();
    const rooms = io.of('/').adapter.rooms;
    for (const symbol of moved) {
      if (!rooms.has(quoteRoom(symbol))) continue;
      const quote: Quote | undefined = source.quote(symbol);
      if (quote) io.to(quoteRoom(symbol)).emit('quote', quote);
    }
    moved.clear();
  }, QUOTE_INTERVAL_MS);
  flushQuotes.unref();

  // Notifications: once the trigger is durable and the notifications read model has it.
  const stopTriggers = deps.engine?.onTrigger(({ userId, eventId, event, position }) => {
    const data: AlertTriggeredData = event.data;
    const push: NotificationPush = {
      id: eventId,
      symbol: data.symbol,
      notificationtype: data.notificationtype,
      notifcationmessage: data.message,
      createdt: data.at,
      read: false,
      position: position ? formatPosition(position) : '',
    };
    const send = (): void => {
      io.to(userRoom(userId)).emit('notification', push);
    };
    if (!position) return send();
    deps.readModelSync.waitFor(position, ['AlertTriggered'], READ_MODEL_WAIT_MS).then(send, (error: unknown) => {
      deps.logger.warn({ err: error, eventId }, 'notifications read model is late; pushing anyway');
      send();
    });
  });

  // Read models: each user whose documents a commit wrote hears of it (keys are `<userId>` or `<userId>/…`).
  const stopCommits = deps.onReadModelCommit?.((name, position, writes) => {
    const rooms = io.of('/').adapter.rooms;
    const users = new Set<string>();
    for (const write of writes) users.add(write.key.split('/', 1)[0]!);
    const change = { name, position: formatPosition(position) };
    for (const userId of users) {
      if (rooms.has(userRoom(userId))) io.to(userRoom(userId)).emit('readmodel:changed', change);
    }
  });

  return {
    io,
    socketCount: () => io.of('/').sockets.size,
    close: async () => {
      clearInterval(flushQuotes);
      stopQuotes?.();
      stopTriggers?.();
      stopCommits?.();
      io.disconnectSockets(true);
      // io.close() would also close the HTTP server, which belongs to main.ts.
      await new Promise<void>((resolve) => {
        io.engine.close();
        resolve();
      });
    },
  };
}
