/**
 * The live connection: one Socket.IO client per signed-in tab, shared by every screen. Screens subscribe to
 * the quotes of the symbols they show (counted per symbol, renewed after a reconnect), to notifications and
 * to read-model changes; the session actor follows its status for the connection banner.
 *
 * Quotes reach their listeners together, once per animation frame. Each socket message is a task of its own, so a
 * screen that took every quote as it came would render once per message; React counts a render that ends with
 * another update already waiting (a changed price's flash, the grid's cells) as a nested update, and throws after 50
 * in a row, which a backlog of quotes (a stalled network, a busy page) would reach before React's own task could run.
 * Every quote is still handed over, in the order it came, so that what a screen builds from each one is the same.
 */
import { io, type ManagerOptions, type Socket, type SocketOptions } from 'socket.io-client';
import type {
  ClientToServerEvents,
  NotificationPush,
  QuotesAck,
  ReadModelChange,
  ServerToClientEvents,
} from '../../domain/contract/socket.ts';
import type { Quote } from '../../domain/market/types.ts';

/** Connection status as the banner shows it. */
export type LiveStatus = 'connecting' | 'connected' | 'disconnected';

type Listener<T> = (value: T) => void;

/** The socket of the live connection. */
export type LiveSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/** Runs a callback once, later; answers the cancel. */
export type FrameScheduler = (run: () => void) => () => void;

/** The longest a quote waits for a frame: a hidden page draws none, and a page too busy to draw draws few. */
export const FRAME_FALLBACK_MS = 100;

/** The frame functions of a window. */
export type AnimationFrames = Pick<typeof globalThis, 'requestAnimationFrame' | 'cancelAnimationFrame'>;

/**
 * Runs a callback at the next animation frame of `frames`, or after `fallbackMs` when no frame came by then
 * (or there are no frames: outside a browser).
 */
export function frameScheduler(
  frames: AnimationFrames | null = typeof requestAnimationFrame === 'function' ? globalThis : null,
  fallbackMs = FRAME_FALLBACK_MS,
): FrameScheduler {
  return (run) => {
    let frame: number | null = null;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const cancel = () => {
      if (frame !== null) frames?.cancelAnimationFrame(frame);
      if (timer !== null) clearTimeout(timer);
      frame = timer = null;
    };
    const fire = () => {
      cancel();
      run();
    };
    timer = setTimeout(fire, fallbackMs);
    if (frames) frame = frames.requestAnimationFrame(fire);
    return cancel;
  };
}

/** How the live connection opens its socket and waits for a frame: by default `io` and {@link frameScheduler}. */
export interface LiveOptions {
  readonly open?: (options: Partial<ManagerOptions & SocketOptions>) => LiveSocket;
  readonly frame?: FrameScheduler;
}

/** Compares two `commit/prepare` positions. */
export function comparePositions(a: string, b: string): number {
  const [ac = 0n, ap = 0n] = a.split('/').map((part) => BigInt(part));
  const [bc = 0n, bp = 0n] = b.split('/').map((part) => BigInt(part));
  if (ac !== bc) return ac < bc ? -1 : 1;
  if (ap !== bp) return ap < bp ? -1 : 1;
  return 0;
}

/** The shared live connection. */
export class LiveConnection {
  private socket: LiveSocket | null = null;
  private readonly quoteListeners = new Map<string, Set<Listener<Quote>>>();
  private readonly notificationListeners = new Set<Listener<NotificationPush>>();
  private readonly changeListeners = new Set<Listener<ReadModelChange>>();
  private readonly statusListeners = new Set<Listener<LiveStatus>>();
  private readonly serverDisconnectListeners = new Set<() => void>();
  private readonly lastQuotes = new Map<string, Quote>();
  /** The quotes come since the last frame, oldest first, and the cancel of the frame asked for to hand them over. */
  private readonly queuedQuotes: Quote[] = [];
  private cancelFrame: (() => void) | null = null;
  private lastPosition: string | null = null;
  private current: LiveStatus = 'disconnected';
  private readonly open: (options: Partial<ManagerOptions & SocketOptions>) => LiveSocket;
  private readonly frame: FrameScheduler;

  constructor(options: LiveOptions = {}) {
    this.open = options.open ?? ((socketOptions) => io(socketOptions));
    this.frame = options.frame ?? frameScheduler();
  }

  /** Opens the connection (the session cookie authenticates it). */
  connect(): void {
    if (this.socket) return;
    const socket = this.open({
      withCredentials: true,
      auth: (cb) => cb(this.lastPosition ? { since: this.lastPosition } : {}),
    });
    this.socket = socket;
    this.setStatus('connecting');
    socket.on('connect', () => {
      this.setStatus('connected');
      const symbols = [...this.quoteListeners.keys()];
      if (symbols.length > 0) this.subscribeRemote(symbols);
    });
    socket.on('disconnect', (reason) => {
      this.setStatus('disconnected');
      // The server closed it (its session ended, or the server is stopping): socket.io does not reconnect then.
      if (reason === 'io server disconnect') for (const listener of this.serverDisconnectListeners) listener();
    });
    socket.on('connect_error', (error) => {
      this.setStatus('disconnected');
      // Refused for want of a session: as when the server closes it, it is not tried again by itself.
      if (error.message.startsWith('unauthorized')) for (const listener of this.serverDisconnectListeners) listener();
    });
    socket.on('quote', (quote) => this.queueQuote(quote));
    socket.on('notification', (notification) => {
      if (this.lastPosition && comparePositions(notification.position, this.lastPosition) <= 0) return;
      this.lastPosition = notification.position;
      for (const listener of this.notificationListeners) listener(notification);
    });
    socket.on('readmodel:changed', (change) => {
      for (const listener of this.changeListeners) listener(change);
    });
  }

  /**
   * Follows the server closing the connection itself (a session ended, or the server stopping) or refusing it
   * for want of a session, after which it is not opened again but by {@link reconnect}; answers the unsubscribe.
   */
  onServerDisconnect(listener: () => void): () => void {
    this.serverDisconnectListeners.add(listener);
    return () => this.serverDisconnectListeners.delete(listener);
  }

  /** Opens again a connection the server closed (the session still holds). */
  reconnect(): void {
    if (this.socket && !this.socket.connected) {
      this.setStatus('connecting');
      this.socket.connect();
    }
  }

  /** Closes the connection and forgets the listeners' symbols (on sign-out). */
  disconnect(): void {
    this.socket?.disconnect();
    this.socket = null;
    this.lastPosition = null;
    this.lastQuotes.clear();
    this.queuedQuotes.length = 0;
    this.cancelFrame?.();
    this.cancelFrame = null;
    this.setStatus('disconnected');
  }

  /** The status now. */
  get status(): LiveStatus {
    return this.current;
  }

  /** Follows the status; answers the unsubscribe. */
  onStatus(listener: Listener<LiveStatus>): () => void {
    this.statusListeners.add(listener);
    listener(this.current);
    return () => this.statusListeners.delete(listener);
  }

  /** Follows notifications pushed to this user. */
  onNotification(listener: Listener<NotificationPush>): () => void {
    this.notificationListeners.add(listener);
    return () => this.notificationListeners.delete(listener);
  }

  /** Follows read-model changes of this user. */
  onReadModelChanged(listener: Listener<ReadModelChange>): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Records the newest notification position the screens hold (after a GET), for catch-up on reconnect. */
  notePosition(position: string): void {
    if (!this.lastPosition || comparePositions(position, this.lastPosition) > 0) this.lastPosition = position;
  }

  /**
   * Follows the quotes of symbols; the listener gets the snapshot first (the quote last handed over), then each
   * update: the ones come since the last frame together, at the next one.
   */
  onQuotes(symbols: readonly string[], listener: Listener<Quote>): () => void {
    const fresh: string[] = [];
    for (const symbol of new Set(symbols)) {
      let set = this.quoteListeners.get(symbol);
      if (!set) {
        set = new Set();
        this.quoteListeners.set(symbol, set);
        fresh.push(symbol);
      }
      set.add(listener);
      const known = this.lastQuotes.get(symbol);
      if (known) listener(known);
    }
    if (fresh.length > 0) this.subscribeRemote(fresh);
    return () => {
      const gone: string[] = [];
      for (const symbol of new Set(symbols)) {
        const set = this.quoteListeners.get(symbol);
        if (!set) continue;
        set.delete(listener);
        if (set.size === 0) {
          this.quoteListeners.delete(symbol);
          this.lastQuotes.delete(symbol);
          gone.push(symbol);
        }
      }
      if (gone.length > 0 && this.socket?.connected) {
        this.socket.emit('quotes:unsubscribe', { symbols: gone }, () => undefined);
      }
    };
  }

  private subscribeRemote(symbols: readonly string[]): void {
    const socket = this.socket;
    if (!socket?.connected) return;
    socket.emit('quotes:subscribe', { symbols }, (answer: QuotesAck) => {
      if (!answer.ok) return;
      for (const quote of answer.quotes) this.queueQuote(quote);
    });
  }

  /** Keeps a quote for the next frame, asking for one unless asked already. */
  private queueQuote(quote: Quote): void {
    this.queuedQuotes.push(quote);
    this.cancelFrame ??= this.frame(() => this.handOverQuotes());
  }

  /**
   * Hands the quotes kept to the listeners of their symbols, in the order they came (one render for them all). A
   * listener that throws keeps no other from its quotes: the first error is thrown once all are handed over.
   */
  private handOverQuotes(): void {
    this.cancelFrame = null;
    let failure: { readonly error: unknown } | null = null;
    for (const quote of this.queuedQuotes.splice(0)) {
      const listeners = this.quoteListeners.get(quote.symbol);
      // Nobody follows the symbol any more: its quote is not kept either.
      if (!listeners) continue;
      this.lastQuotes.set(quote.symbol, quote);
      for (const listener of [...listeners]) {
        try {
          listener(quote);
        } catch (error) {
          failure ??= { error };
        }
      }
    }
    if (failure) throw failure.error;
  }

  private setStatus(status: LiveStatus): void {
    if (status === this.current) return;
    this.current = status;
    for (const listener of this.statusListeners) listener(status);
  }
}

/** The tab's live connection. */
export const live = new LiveConnection();
