/**
 * Socket.IO on the gateway's HTTP server: the handshake needs the session cookie, a socket joins only its
 * user's room (and its session's: signing out or the session's expiry disconnects it), quotes go to the sockets that subscribed (at most 4 a second per symbol, the first at once), a
 * notification is pushed to the user's sockets as soon as the trigger is appended, and a socket that
 * reconnects with the position of the last notification it saw (`auth: {since}`) first gets the ones it
 * missed, each once.
 *
 * With Redis (`REDIS_URL`) the server uses the Redis Streams adapter: notifications reach the sockets of every
 * gateway, whichever process learnt of the trigger (an engine without HTTP relays them, see `relay.ts`), and
 * `readmodel:changed` reaches every gateway too; quotes are sent by each gateway to its own sockets from its
 * own subscription to the tick bus.
 *
 * This module wires the parts: the handshake (`auth.ts`), the quote subscriptions, the throttle
 * (`throttle.ts`), the catch-up of a reconnecting socket (`catchUp.ts`) and the fan-out of notifications and
 * read-model changes (`fanOut.ts`); `server.ts` holds what every StockPulse Socket.IO server shares.
 */
import type http from 'node:http';
import { Server } from 'socket.io';
import type { Quote, QuoteSource } from '../../engine/market/quotes.ts';
import type { EventStore } from '../../platform/eventstore/port.ts';
import type { Logger } from '../../platform/logger.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import type { RedisClient } from '../../platform/redis.ts';
import type { SessionStore } from '../../platform/sessions/port.ts';
import { tokenHash } from '../../platform/sessions/token.ts';
import type { ReadModelCommitListener } from '../../projections/index.ts';
import type { EngineTrigger } from '../../engine/alerts/alertEngine.ts';
import type { OriginPolicy } from '../http/origin.ts';
import { validationError } from '../http/route.ts';
import { foreignOrigin } from './handshakeOrigin.ts';
import { pastSocketCap, socketCapRefusal } from './socketCap.ts';
import type { SymbolDirectory } from '../http/schemas.ts';
import { MAX_WATCHED_SYMBOLS, quotesRequest, type QuotesAck } from '../../domain/contract/socket.ts';
import { authenticateSockets } from './auth.ts';
import { catchUp } from './catchUp.ts';
import { startFanOut } from './fanOut.ts';
import {
  quoteRoom,
  redisAdapter,
  sessionHashRoom,
  userRoom,
  type RealtimeServer,
  type RealtimeSocket,
} from './server.ts';
import { QuoteThrottle } from './throttle.ts';

export { MAX_WATCHED_SYMBOLS } from '../../domain/contract/socket.ts';

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
  readonly onReadModelCommit?: ((listener: ReadModelCommitListener) => () => void) | undefined;
  /** Redis, to share notifications and read-model changes with the other gateways; null in one process. */
  readonly redis?: RedisClient | null;
  /** Which browser origins may open a socket (the rule of state-changing requests); the request's own when absent. */
  readonly origin?: OriginPolicy | undefined;
}

/** The running realtime server. */
export interface Realtime {
  /** The Socket.IO server. */
  readonly io: RealtimeServer;
  /** Connected sockets. */
  socketCount(): number;
  /** Disconnects the sockets opened with the sessions of these token hashes, on every gateway (they were ended). */
  endSessions(tokenHashes: readonly string[]): void;
  /** Disconnects every socket and stops the timers (the HTTP server is left to its owner). */
  close(): Promise<void>;
}

/** The longest delay `setTimeout` keeps (about 24.8 days); a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * `store`, with each session it ends (signing out, or a user's other sessions) also ending those sessions'
 * sockets through `endSockets` (`Realtime.endSessions`, given once the realtime server is attached).
 */
export function endingSockets(store: SessionStore, endSockets: (tokenHashes: readonly string[]) => void): SessionStore {
  return {
    create: (userId, roles, ttlMs) => store.create(userId, roles, ttlMs),
    get: (token) => store.get(token),
    delete: async (token) => {
      await store.delete(token);
      endSockets([tokenHash(token)]);
    },
    endOthers: async (userId, keep) => {
      const ended = await store.endOthers(userId, keep);
      if (ended.length > 0) endSockets(ended);
      return ended;
    },
    close: () => store.close(),
  };
}

/** Attaches Socket.IO to the gateway's HTTP server. */
export function attachRealtime(server: http.Server, deps: RealtimeDeps): Realtime {
  const redis = deps.redis ?? null;
  const io: RealtimeServer = new Server(server, {
    serveClient: false,
    ...(redis ? { adapter: redisAdapter(redis) } : {}),
  });
  io.use((socket, next) => next(foreignOrigin(socket.request, deps.origin) ?? undefined));
  io.use(authenticateSockets(deps.sessions));
  io.use((socket, next) => next(socketCapRefusal(io.of('/').adapter.rooms, userRoom(socket.data.userId)) ?? undefined));

  const parse = (request: unknown): { symbols: string[] } | { message: string } => {
    const parsed = quotesRequest.safeParse(request);
    if (!parsed.success) return { message: validationError('symbols', parsed.error).message.replace(/^symbols\./, '') };
    const unknown = parsed.data.symbols.findIndex((s) => !deps.symbols.has(s));
    if (unknown >= 0) return { message: `symbols[${unknown}]: unknown symbol ${parsed.data.symbols[unknown]}` };
    return { symbols: [...parsed.data.symbols] };
  };

  io.on('connection', (socket: RealtimeSocket) => {
    void socket.join([userRoom(socket.data.userId), socket.data.sessionRoom]);
    if (pastSocketCap(io.of('/').adapter.rooms, userRoom(socket.data.userId))) {
      socket.disconnect(true);
      return;
    }
    // The session ends at its expiry, and its sockets with it (a timer's longest delay is about 24 days).
    const expiry = setTimeout(
      () => socket.disconnect(true),
      Math.min(MAX_TIMER_MS, Math.max(0, socket.data.expiresAt - Date.now())),
    );
    expiry.unref();
    socket.once('disconnect', () => clearTimeout(expiry));
    if (socket.data.since) catchUp(socket, socket.data.since, deps);
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

  const stopFanOut = startFanOut(io, {
    triggers: deps.triggers,
    onReadModelCommit: deps.onReadModelCommit,
    shared: redis !== null,
  });

  return {
    io,
    socketCount: () => io.of('/').sockets.size,
    endSessions: (hashes) => {
      if (hashes.length > 0) io.in(hashes.map(sessionHashRoom)).disconnectSockets(true);
    },
    close: async () => {
      throttle.stop();
      stopQuotes?.();
      stopFanOut();
      // Each socket is told the server disconnected it (socket.io's clients do not reconnect by themselves then),
      // and the connections are closed by the engine, which discards what a long-polling client would have had
      // to fetch: closed with the sockets, such a connection waits up to 30 s for a poll its client never
      // makes, and holds the process that long. io.close() would also close the HTTP server, which belongs to
      // its owner.
      io.disconnectSockets(false);
      io.engine.close();
      await io.of('/').adapter.close();
    },
  };
}
