/**
 * A market data provider's trade stream over WebSocket, behind the TickSource port: what every provider shares
 * (connecting, reconnecting with exponential backoff and jitter, following the symbols users need, counting
 * and skipping bad messages, noticing a stream gone quiet during the session, reporting its health). A
 * {@link ProviderProtocol} speaks one provider's messages (`alpaca.ts`, `finnhub.ts`).
 */
import WebSocket from 'ws';
import { systemClock, type Clock, type TimerHandle } from './clock.ts';
import type { MarketClock } from './marketClock.ts';
import type { TickSource } from './port.ts';
import { checkTick, type Tick, type TickListener } from './tick.ts';
import { SYMBOL_PATTERN } from '../../domain/symbol.ts';

/** What the stream is doing. */
export type ProviderState = 'connecting' | 'live' | 'auth-failed' | 'disconnected' | 'stale' | 'stopped';

/** The health of a provider stream, for `/readyz`, `/metrics` and the Maint page. */
export interface ProviderHealth {
  /** The provider and feed, e.g. `alpaca-iex`, `finnhub`. */
  readonly provider: string;
  /** What the stream is doing. */
  readonly state: ProviderState;
  /** Whether trades can arrive (connected, authenticated, not stale). */
  readonly ok: boolean;
  /** Why it is not ok, or the last provider error or warning; null when there is none. */
  readonly reason: string | null;
  /** Symbols wanted by the users (watched, alerted on, held), and those subscribed on the stream. */
  readonly wanted: number;
  readonly subscribed: number;
  /** Trades delivered, messages skipped as bad, provider errors, reconnections. */
  readonly trades: number;
  readonly badMessages: number;
  readonly errors: number;
  /** Why the last bad message was skipped, or null. */
  readonly lastBadMessage: string | null;
  readonly reconnects: number;
  /** When the last message arrived (ms since the epoch), or null. */
  readonly lastMessageAt: number | null;
}

/** One line for people: `alpaca-iex auth-failed: authentication failed: 402 auth failed`, `finnhub live`. */
export function describeProviderHealth(health: ProviderHealth): string {
  return `${health.provider} ${health.state}${health.reason ? `: ${health.reason}` : ''}`;
}

/** The symbols the stream should carry, asked again every `refreshMs`. */
export interface SymbolDemand {
  /** Every symbol users need now (any case; invalid ones are skipped). */
  symbols(): Iterable<string> | Promise<Iterable<string>>;
}

/** What a protocol may do on one connection. */
export interface ProviderSession {
  /** Sends a message (JSON-encoded). */
  send(message: unknown): void;
  /** The connection is authenticated: the stream subscribes the wanted symbols. */
  authenticated(): void;
  /** The provider acknowledged a subscription: its full list of subscribed symbols. */
  subscribed(symbols: readonly string[]): void;
  /** Trades (unchecked: invalid ones are counted as bad and skipped). */
  trades(ticks: readonly unknown[]): void;
  /** A message that cannot be read: counted and skipped. */
  bad(reason: string): void;
  /** An error the provider reported; the connection stays. */
  error(reason: string): void;
  /** Authentication was refused: the connection closes, retried at the longest backoff. */
  authFailed(reason: string): void;
}

/** One provider's messages. */
export interface ProviderProtocol {
  /** Provider and feed, e.g. `alpaca-iex`. */
  readonly name: string;
  /** The URL to connect to (may hold a token: it is never reported). */
  readonly url: string;
  /** The most symbols one connection may carry (the provider's plan limit). */
  readonly maxSymbols: number;
  /** The connection opened. */
  opened(session: ProviderSession): void;
  /** One decoded message (an element when the provider sends arrays). */
  message(message: unknown, session: ProviderSession): void;
  /** Subscribes symbols on an authenticated connection. */
  subscribe(symbols: readonly string[], session: ProviderSession): void;
  /** Unsubscribes symbols. */
  unsubscribe(symbols: readonly string[], session: ProviderSession): void;
}

/** Options of a {@link ProviderStream}. */
export interface ProviderStreamOptions {
  /** The symbols to carry. */
  readonly demand: SymbolDemand;
  /** Timers (default the system clock). */
  readonly clock?: Clock;
  /** How often (ms) the demand is asked again (default 5000). */
  readonly refreshMs?: number;
  /** First and longest wait (ms) before reconnecting (defaults 1000 and 60000); each wait has jitter. */
  readonly backoffMs?: { readonly initial: number; readonly max: number };
  /**
   * A stream with no message (nor an answer to the WebSocket pings sent every quarter of it) for this long (ms)
   * during a session is stale and reconnected (default 60000).
   */
  readonly staleMs?: number;
  /** When the market is open (stale streams count only then); default always. */
  readonly sessions?: MarketClock;
  /** Random numbers in [0, 1) for the jitter (default `Math.random`). */
  readonly random?: () => number;
  /** Health changes (for logs). */
  readonly onHealth?: (health: ProviderHealth) => void;
}

/** The text of a WebSocket message. */
function textOf(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  return Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data).toString('utf8');
}

/** Upper-cased valid symbols of a demand. */
export function normaliseSymbols(symbols: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const raw of symbols) {
    const symbol = raw.trim().toUpperCase();
    if (SYMBOL_PATTERN.test(symbol)) out.add(symbol);
  }
  return out;
}

/** The trade stream of a provider, a {@link TickSource}. */
export class ProviderStream implements TickSource {
  private readonly clock: Clock;
  private readonly refreshMs: number;
  private readonly backoff: { readonly initial: number; readonly max: number };
  private readonly staleMs: number;
  private readonly random: () => number;
  private listener: TickListener | undefined;
  private socket: WebSocket | undefined;
  private session: ProviderSession | undefined;
  private wanted = new Set<string>();
  /** Symbols asked on the current connection. */
  private requested = new Set<string>();
  private acknowledged = 0;
  private state: ProviderState = 'connecting';
  private reason: string | null = null;
  private attempt = 0;
  private lastTs = 0;
  private lastMessageAt: number | null = null;
  private lastBad: string | null = null;
  private counts = { trades: 0, badMessages: 0, errors: 0, reconnects: 0 };
  private timers = {
    retry: undefined as TimerHandle | undefined,
    refresh: undefined as TimerHandle | undefined,
    stale: undefined as TimerHandle | undefined,
  };
  private stopped = false;
  private closed: Promise<void> = Promise.resolve();

  constructor(
    private readonly protocol: ProviderProtocol,
    private readonly options: ProviderStreamOptions,
  ) {
    this.clock = options.clock ?? systemClock();
    this.refreshMs = options.refreshMs ?? 5000;
    this.backoff = options.backoffMs ?? { initial: 1000, max: 60_000 };
    this.staleMs = options.staleMs ?? 60_000;
    this.random = options.random ?? Math.random;
  }

  /** Asks the demand, then connects. */
  start(listener: TickListener): void {
    if (this.listener) throw new Error(`the ${this.protocol.name} stream is already started`);
    this.listener = listener;
    void this.refresh().then(() => {
      if (!this.stopped) this.connect();
    });
    this.watchStale();
  }

  /** Closes the connection; resolves once it is closed. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of Object.values(this.timers)) if (timer) this.clock.clearTimeout(timer);
    this.setState('stopped', null);
    this.socket?.close(1000);
    await this.closed;
  }

  /** The stream's health now. */
  health(): ProviderHealth {
    return {
      provider: this.protocol.name,
      state: this.state,
      ok: this.state === 'live',
      reason: this.reason,
      wanted: this.wanted.size,
      subscribed: this.acknowledged,
      ...this.counts,
      lastBadMessage: this.lastBad,
      lastMessageAt: this.lastMessageAt,
    };
  }

  /** Asks the demand again now and follows it (the timer does this every `refreshMs`). */
  async refresh(): Promise<void> {
    if (this.timers.refresh) this.clock.clearTimeout(this.timers.refresh);
    this.timers.refresh = undefined;
    try {
      const all = [...normaliseSymbols(await this.options.demand.symbols())].sort();
      const limit = this.protocol.maxSymbols;
      this.wanted = new Set(all.slice(0, limit));
      if (all.length > limit && this.state === 'live') {
        this.reason = `symbol limit: ${all.length} wanted, the first ${limit} subscribed`;
      }
      this.follow();
    } catch (error) {
      this.reason = `symbols: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (!this.stopped) this.timers.refresh = this.clock.setTimeout(() => void this.refresh(), this.refreshMs);
  }

  private setState(state: ProviderState, reason: string | null): void {
    this.state = state;
    this.reason = reason;
    this.options.onHealth?.(this.health());
  }

  private connect(): void {
    const socket = new WebSocket(this.protocol.url, { handshakeTimeout: 10_000 });
    this.socket = socket;
    this.requested = new Set();
    this.acknowledged = 0;
    let authFailed = false;
    let lastError: string | null = null;
    /** The trades of the message being read: one message, one batch. */
    let received: unknown[] = [];
    const current = () => this.socket === socket && !this.stopped;
    const session: ProviderSession = {
      send: (message) => {
        if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
      },
      authenticated: () => {
        if (!current()) return;
        this.attempt = 0;
        this.lastMessageAt = this.clock.now();
        this.setState('live', null);
        this.follow();
      },
      subscribed: (symbols) => {
        this.acknowledged = symbols.length;
        this.options.onHealth?.(this.health());
      },
      trades: (ticks) => {
        for (const tick of ticks) received.push(tick);
      },
      bad: (reason) => {
        this.counts.badMessages += 1;
        this.lastBad = reason;
      },
      error: (reason) => {
        this.counts.errors += 1;
        this.reason = reason;
      },
      authFailed: (reason) => {
        authFailed = true;
        this.counts.errors += 1;
        this.setState('auth-failed', `authentication failed: ${reason}`);
        socket.close(1000);
      },
    };
    this.session = session;
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('open', () => {
      if (current()) this.protocol.opened(session);
    });
    socket.on('message', (data: WebSocket.RawData) => {
      if (!current()) return;
      this.lastMessageAt = this.clock.now();
      if (this.state === 'stale') this.setState('live', null);
      let decoded: unknown;
      try {
        decoded = JSON.parse(textOf(data));
      } catch {
        session.bad('not JSON');
        return;
      }
      received = [];
      for (const message of Array.isArray(decoded) ? decoded : [decoded]) {
        try {
          this.protocol.message(message, session);
        } catch (error) {
          session.bad(error instanceof Error ? error.message : String(error));
        }
      }
      if (received.length > 0) this.deliver(received);
    });
    socket.on('pong', () => {
      if (current()) this.lastMessageAt = this.clock.now();
    });
    socket.on('unexpected-response', (_request, response) => {
      const status = response.statusCode ?? 0;
      if (status === 401 || status === 403) {
        authFailed = true;
        this.counts.errors += 1;
        this.setState('auth-failed', `authentication failed: the server answered ${status}`);
      } else {
        lastError = `the server answered ${status}`;
      }
      socket.terminate();
    });
    socket.on('error', (error) => {
      lastError = error.message;
    });
    socket.on('close', (code, why) => {
      if (this.socket !== socket || this.stopped) return;
      this.session = undefined;
      this.acknowledged = 0;
      if (!authFailed && this.state !== 'stale') {
        const text = why.toString();
        this.setState('disconnected', `connection lost (${lastError ?? `code ${code}${text ? `, ${text}` : ''}`})`);
      }
      this.reconnectLater(authFailed);
      this.options.onHealth?.(this.health());
    });
  }

  private reconnectLater(longest: boolean): void {
    if (this.stopped) return;
    const base = longest ? this.backoff.max : Math.min(this.backoff.max, this.backoff.initial * 2 ** this.attempt);
    this.attempt += 1;
    // Equal jitter: half the wait fixed, half random, so engines restarted together spread their reconnects.
    const wait = Math.round(base / 2 + (this.random() * base) / 2);
    this.timers.retry = this.clock.setTimeout(() => {
      this.timers.retry = undefined;
      if (this.stopped) return;
      this.counts.reconnects += 1;
      this.connect();
    }, wait);
  }

  /** Subscribes what is wanted and not asked on this connection, unsubscribes what is no longer wanted. */
  private follow(): void {
    const session = this.session;
    if (!session || this.state !== 'live') return;
    const add = [...this.wanted].filter((s) => !this.requested.has(s));
    const remove = [...this.requested].filter((s) => !this.wanted.has(s));
    if (remove.length > 0) {
      this.protocol.unsubscribe(remove, session);
      for (const s of remove) this.requested.delete(s);
    }
    if (add.length > 0) {
      this.protocol.subscribe(add, session);
      for (const s of add) this.requested.add(s);
    }
  }

  /** Checks trades, skips the bad ones, and delivers the rest in time order (a late trade takes the latest time). */
  private deliver(raw: readonly unknown[]): void {
    const batch: Tick[] = [];
    for (const value of raw) {
      try {
        batch.push(checkTick(value, `${this.protocol.name} trade`));
      } catch (error) {
        this.counts.badMessages += 1;
        this.lastBad = error instanceof Error ? error.message : String(error);
      }
    }
    if (batch.length === 0 || this.stopped) return;
    batch.sort((a, b) => a.ts - b.ts);
    const ordered = batch.map((tick) => {
      if (tick.ts >= this.lastTs) {
        this.lastTs = tick.ts;
        return tick;
      }
      return { ...tick, ts: this.lastTs };
    });
    this.counts.trades += ordered.length;
    void this.listener?.onTicks(ordered);
  }

  /**
   * Every quarter of `staleMs`: pings the provider (its pong counts as a message), and reconnects a live
   * stream that has been silent for `staleMs` while the market is open.
   */
  private watchStale(): void {
    this.timers.stale = this.clock.setTimeout(
      () => {
        this.timers.stale = undefined;
        if (this.stopped) return;
        const now = this.clock.now();
        const session = this.options.sessions?.sessionAt(now);
        const open = session === undefined || (now >= session.start && now < session.end);
        if (this.state === 'live' && open && now - (this.lastMessageAt ?? now) >= this.staleMs) {
          this.setState(
            'stale',
            `stale: no message for ${Math.round((now - this.lastMessageAt!) / 1000)} s during the session`,
          );
          this.socket?.terminate();
        } else if (this.state === 'live' && this.socket?.readyState === WebSocket.OPEN) {
          // A quiet market is not a dead stream: a pong counts as a message.
          this.socket.ping();
        }
        this.watchStale();
      },
      Math.max(1, this.staleMs / 4),
    );
  }
}
