/**
 * Socket.IO on the gateway's HTTP server: the handshake needs the session cookie, a socket joins only its
 * user's room, quotes go to the sockets that subscribed (at most 4 a second per symbol, the first at once), a
 * notification is pushed to the user's sockets as soon as the trigger is appended, and a socket that
 * reconnects with the position of the last notification it saw (`auth: {since}`) first gets the ones it
 * missed, each once.
 *
 * With Redis (`REDIS_URL`) the server uses the Redis Streams adapter: notifications reach the sockets of every
 * gateway, whichever process learnt of the trigger (an engine without HTTP relays them, see `relay.ts`), and
 * `readmodel:changed` reaches every gateway too; quotes are sent by each gateway to its own sockets from its
 * own subscription to the tick bus.
 */
import type http from 'node:http';
import { createAdapter } from '@socket.io/redis-streams-adapter';
import { Server, type Socket } from 'socket.io';
import type { Quote, QuoteSource } from '../../engine/market/quotes.ts';
import { ALERTS_CONCERN, type AlertTriggered, type AlertTriggeredData } from '../../domain/alerts/alerts.ts';
import { streamName } from '../../domain/ids.ts';
import {
  isNotificationRead,
  notificationsDecider,
  type NotificationsState,
} from '../../domain/notifications/notifications.ts';
import {
  StreamNotFoundError,
  comparePositions,
  formatPosition,
  parsePosition,
  type EventStore,
  type LogPosition,
  type RecordedEvent,
} from '../../platform/eventstore/port.ts';
import type { Logger } from '../../platform/logger.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import type { RedisClient } from '../../platform/redis.ts';
import type { SessionStore } from '../../platform/sessions/port.ts';
import { notificationReadsProjection } from '../../projections/notifications/notifications.projection.ts';
import { readDocument } from '../../projections/projection.ts';
import type { EngineTrigger } from '../../engine/alerts/alertEngine.ts';
import { SESSION_COOKIE } from '../auth/session.ts';
import { validationError } from '../http/route.ts';
import type { SymbolDirectory } from '../http/schemas.ts';
import type { System } from '../system.ts';
import {
  MAX_WATCHED_SYMBOLS,
  quotesRequest,
  type ClientToServerEvents,
  type NotificationPush,
  type QuotesAck,
  type ServerToClientEvents,
} from '../../domain/contract/socket.ts';

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
}

/** Events between the servers (through the Redis adapter). */
export interface InterServerEvents {
  /** A trigger became durable: each gateway pushes it to its own sockets of the user. */
  notification: (userId: string, push: NotificationPush) => void;
}

/** The Socket.IO server type of the gateway. */
export type RealtimeServer = Server<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;

/** Shortest interval between two quotes of one symbol (4 per second). */
export const QUOTE_INTERVAL_MS = 250;

export { MAX_WATCHED_SYMBOLS } from '../../domain/contract/socket.ts';

/** Most missed notifications sent to a reconnecting socket (the newest; older ones are in the GET route). */
export const MAX_CATCH_UP = 200;

/** The Redis stream of the Socket.IO adapter. */
export const SOCKET_STREAM = 'socket.io';

/** What the realtime server needs. */
export interface RealtimeDeps {
  /** Sessions, to authenticate the handshake. */
  readonly sessions: SessionStore;
  /** The symbols that exist. */
  readonly symbols: SymbolDirectory;
  /** The current quotes (snapshot of a subscription, and what is streamed). */
  readonly quotes: () => QuoteSource;
  /** Quote updates (a symbol moved), when ticks reach this process. */
  readonly quoteUpdates: ((listener: (symbol: string) => void) => () => void) | null;
  /** Triggers of the engine this process runs, when it runs one. */
  readonly triggers: ((listener: (trigger: EngineTrigger) => void) => () => void) | null;
  /** The log, where a reconnecting socket's missed notifications are read. */
  readonly events: EventStore;
  /** The read models (which notifications are read). */
  readonly readModels: ReadModelStore;
  /** Logger. */
  readonly logger: Logger;
  /** Commits of the projections this process runs (for `readmodel:changed`). */
  readonly onReadModelCommit?: System['onReadModelCommit'];
  /** Redis, to share notifications and read-model changes with the other gateways; null in one process. */
  readonly redis?: RedisClient | null;
}

/** The running realtime server. */
export interface Realtime {
  /** The Socket.IO server. */
  readonly io: RealtimeServer;
  /** Connected sockets. */
  socketCount(): number;
  /** Disconnects every socket and stops the timers (the HTTP server is left to its owner). */
  close(): Promise<void>;
}

type RealtimeSocket = Socket<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;

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

/** The push of a trigger: the notification as the GET route answers it, plus its position. */
export function notificationOf(trigger: Pick<EngineTrigger, 'eventId' | 'event' | 'position'>): NotificationPush {
  const data: AlertTriggeredData = trigger.event.data;
  return {
    id: trigger.eventId,
    symbol: data.symbol,
    notificationtype: data.notificationtype,
    notifcationmessage: data.message,
    createdt: data.at,
    read: false,
    position: trigger.position ? formatPosition(trigger.position) : '',
  };
}

/**
 * The notifications of a user after `since`, oldest first (at most {@link MAX_CATCH_UP}, the newest), read
 * from the user's alerts stream in the log, so a trigger appended a moment ago is there even before the
 * notifications read model has it.
 */
export async function missedNotifications(
  events: EventStore,
  readModels: ReadModelStore,
  userId: string,
  since: LogPosition,
): Promise<NotificationPush[]> {
  const found: RecordedEvent<AlertTriggeredData>[] = [];
  const stream = streamName(ALERTS_CONCERN, userId);
  let from: number | 'end' = 'end';
  reading: for (;;) {
    let page: RecordedEvent[];
    try {
      page = await events.readStream(stream, { direction: 'backwards', fromRevision: from, maxCount: 100 });
    } catch (error) {
      if (error instanceof StreamNotFoundError) break;
      throw error;
    }
    for (const event of page) {
      if (comparePositions(event.position, since) <= 0) break reading;
      if (event.type === ('AlertTriggered' satisfies AlertTriggered['type'])) {
        found.push(event as RecordedEvent<AlertTriggeredData>);
        if (found.length >= MAX_CATCH_UP) break reading;
      }
    }
    const last = page.at(-1);
    if (page.length < 100 || last === undefined || last.revision === 0) break;
    from = last.revision - 1;
  }
  if (found.length === 0) return [];
  const reads = await readDocument<NotificationsState>(readModels, notificationReadsProjection, userId);
  const state = reads?.value ?? notificationsDecider.initialState;
  return found.reverse().map((event) => ({
    ...notificationOf({
      eventId: event.id,
      event: { type: 'AlertTriggered', data: event.data },
      position: event.position,
    }),
    createdt: typeof event.data.at === 'string' ? event.data.at : event.created,
    read: isNotificationRead(state, event.id, event.position),
  }));
}

/** The value of one cookie in a `Cookie` header. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** The handshake's `auth.since`: absent (null), a position, or a refusal naming the field. */
function sinceOf(auth: unknown): LogPosition | null | Error {
  const since = (auth as { since?: unknown } | null | undefined)?.since;
  if (since === undefined || since === null || since === '') return null;
  const position = typeof since === 'string' ? parsePosition(since) : null;
  return position ?? new Error('auth.since: must be the position of a notification, "<commit>/<prepare>"');
}

/** Sends the quotes of moved symbols to their rooms: at once if the symbol's last one is old enough, else later. */
class QuoteThrottle {
  private readonly due = new Set<string>();
  private readonly lastSent = new Map<string, number>();
  private immediate = false;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;

  constructor(
    private readonly send: (symbol: string) => boolean,
    private readonly watched: (symbol: string) => boolean,
  ) {}

  moved(symbol: string): void {
    if (!this.watched(symbol)) return;
    this.due.add(symbol);
    if (this.immediate) return;
    this.immediate = true;
    setImmediate(() => {
      this.immediate = false;
      this.flush();
    });
  }

  private flush(): void {
    const now = performance.now();
    let next = Infinity;
    for (const symbol of this.due) {
      const wait = (this.lastSent.get(symbol) ?? -Infinity) + QUOTE_INTERVAL_MS - now;
      if (wait > 0) {
        next = Math.min(next, wait);
        continue;
      }
      this.due.delete(symbol);
      if (this.send(symbol)) this.lastSent.set(symbol, now);
    }
    if (this.lastSent.size > 10_000) {
      for (const [symbol, at] of this.lastSent) if (now - at > QUOTE_INTERVAL_MS) this.lastSent.delete(symbol);
    }
    if (next === Infinity || now + next >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = now + next;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.flush();
    }, Math.ceil(next));
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.due.clear();
  }
}

/** Attaches Socket.IO to the gateway's HTTP server. */
export function attachRealtime(server: http.Server, deps: RealtimeDeps): Realtime {
  const redis = deps.redis ?? null;
  const io: RealtimeServer = new Server(server, {
    serveClient: false,
    ...(redis ? { adapter: redisAdapter(redis) } : {}),
  });

  io.use((socket, next) => {
    const token = cookieValue(socket.request.headers.cookie, SESSION_COOKIE);
    if (!token) {
      next(new Error('unauthorized: sign in first'));
      return;
    }
    const since = sinceOf(socket.handshake.auth);
    if (since instanceof Error) {
      next(since);
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
        socket.data.since = since;
        socket.data.catchingUp = since ? [] : null;
        next();
      },
      (error: unknown) => next(error instanceof Error ? error : new Error(String(error))),
    );
  });

  const parse = (request: unknown): { symbols: string[] } | { message: string } => {
    const parsed = quotesRequest.safeParse(request);
    if (!parsed.success) return { message: validationError('symbols', parsed.error).message.replace(/^symbols\./, '') };
    const unknown = parsed.data.symbols.findIndex((s) => !deps.symbols.has(s));
    if (unknown >= 0) return { message: `symbols[${unknown}]: unknown symbol ${parsed.data.symbols[unknown]}` };
    return { symbols: [...parsed.data.symbols] };
  };

  /** Sends a reconnecting socket what it missed, then what was pushed meanwhile, each once. */
  const catchUp = (socket: RealtimeSocket, since: LogPosition): void => {
    const finish = (missed: readonly NotificationPush[]): void => {
      const sent = new Set<string>();
      for (const push of missed) {
        socket.emit('notification', push);
        sent.add(push.id);
      }
      for (const push of socket.data.catchingUp ?? []) if (!sent.has(push.id)) socket.emit('notification', push);
      socket.data.catchingUp = null;
    };
    missedNotifications(deps.events, deps.readModels, socket.data.userId, since).then(finish, (error: unknown) => {
      deps.logger.error({ err: error, userId: socket.data.userId }, 'could not read missed notifications');
      finish([]);
    });
  };

  io.on('connection', (socket: RealtimeSocket) => {
    void socket.join(userRoom(socket.data.userId));
    if (socket.data.since) catchUp(socket, socket.data.since);
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

  // Quotes: each gateway sends its own sockets the quotes of its own live quotes (`local`: not through Redis).
  const localRooms = (): Map<string, Set<string>> => io.of('/').adapter.rooms;
  const throttle = new QuoteThrottle(
    (symbol) => {
      const quote: Quote | undefined = deps.quotes().quote(symbol);
      if (quote) io.local.to(quoteRoom(symbol)).emit('quote', quote);
      return quote !== undefined;
    },
    (symbol) => localRooms().has(quoteRoom(symbol)),
  );
  const stopQuotes = deps.quoteUpdates?.((symbol) => throttle.moved(symbol));

  // Notifications: to this gateway's sockets of the user; a socket still catching up gets it afterwards.
  const deliver = (userId: string, push: NotificationPush): void => {
    const room = userRoom(userId);
    const members = localRooms().get(room);
    if (!members) return;
    const sockets = io.of('/').sockets;
    let holding = false;
    for (const id of members) {
      const socket = sockets.get(id);
      if (socket?.data.catchingUp) {
        socket.data.catchingUp.push(push);
        holding = true;
      }
    }
    // The common case: one packet encoded once for every socket of the user on this gateway.
    if (!holding) io.local.to(room).emit('notification', push);
    else {
      for (const id of members) {
        const socket = sockets.get(id);
        if (socket && !socket.data.catchingUp) socket.emit('notification', push);
      }
    }
  };
  io.on('notification', deliver);
  const stopTriggers = deps.triggers?.((trigger) => {
    const push = notificationOf(trigger);
    deliver(trigger.userId, push);
    if (redis) io.serverSideEmit('notification', trigger.userId, push);
  });

  // Read models: each user whose documents a commit wrote hears of it (keys are `<userId>` or `<userId>/…`).
  const stopCommits = deps.onReadModelCommit?.((name, position, writes) => {
    const users = new Set<string>();
    for (const write of writes) users.add(write.key.split('/', 1)[0]!);
    const change = { name, position: formatPosition(position) };
    const rooms = localRooms();
    for (const userId of users) {
      // Through Redis every gateway may have sockets of the user; alone, only local rooms matter.
      if (redis || rooms.has(userRoom(userId))) io.to(userRoom(userId)).emit('readmodel:changed', change);
    }
  });

  return {
    io,
    socketCount: () => io.of('/').sockets.size,
    close: async () => {
      throttle.stop();
      stopQuotes?.();
      stopTriggers?.();
      stopCommits?.();
      io.disconnectSockets(true);
      // io.close() would also close the HTTP server, which belongs to main.ts.
      io.engine.close();
      await io.of('/').adapter.close();
    },
  };
}
