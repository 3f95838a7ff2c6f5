/**
 * Finnhub's trade WebSocket (`wss://ws.finnhub.io?token=<token>`): a bad token is refused at the handshake;
 * the client subscribes one symbol per message, `{"type":"subscribe","symbol":"AAPL"}` (no acknowledgement),
 * and receives `{"type":"trade","data":[{"s","p","v","t"}]}` (`t` in ms), `{"type":"ping"}` and
 * `{"type":"error","msg"}`. The free plan carries at most 50 symbols.
 */
import type { ProviderProtocol, ProviderSession } from './providerStream.ts';

/** Where and how to connect. */
export interface FinnhubOptions {
  /** API token (sent in the URL's query, never reported). */
  readonly token: string;
  /** The stream URL without the token (default `wss://ws.finnhub.io`). */
  readonly streamUrl?: string;
}

/** Symbols one connection may subscribe on the free plan. */
export const FINNHUB_SYMBOL_LIMIT = 50;

/** The Finnhub stream's protocol. */
export function finnhubProtocol(options: FinnhubOptions): ProviderProtocol {
  const base = new URL(options.streamUrl ?? 'wss://ws.finnhub.io');
  base.searchParams.set('token', options.token);
  let subscribed = new Set<string>();
  return {
    name: 'finnhub',
    url: base.toString(),
    maxSymbols: FINNHUB_SYMBOL_LIMIT,
    opened(session: ProviderSession) {
      subscribed = new Set();
      session.authenticated();
    },
    message(message: unknown, session: ProviderSession) {
      if (message === null || typeof message !== 'object' || Array.isArray(message)) throw new Error('not an object');
      const m = message as Record<string, unknown>;
      switch (m.type) {
        case 'trade': {
          if (!Array.isArray(m.data)) throw new Error('trade without data');
          session.trades(
            m.data.map((raw: unknown) => {
              const t = (raw ?? {}) as Record<string, unknown>;
              // Volumes may be fractional (crypto): shares are whole.
              return { symbol: t.s, price: t.p, size: typeof t.v === 'number' ? Math.round(t.v) : t.v, ts: t.t };
            }),
          );
          return;
        }
        case 'ping':
          return;
        case 'error':
          session.error(`finnhub error: ${typeof m.msg === 'string' ? m.msg : 'unknown'}`);
          return;
        default:
          throw new Error(`unknown message type ${JSON.stringify(m.type)}`);
      }
    },
    subscribe(symbols, session) {
      for (const symbol of symbols) {
        session.send({ type: 'subscribe', symbol });
        subscribed.add(symbol);
      }
      session.subscribed([...subscribed]);
    },
    unsubscribe(symbols, session) {
      for (const symbol of symbols) {
        session.send({ type: 'unsubscribe', symbol });
        subscribed.delete(symbol);
      }
      session.subscribed([...subscribed]);
    },
  };
}
