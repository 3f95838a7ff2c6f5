/**
 * The Alpaca market data v2 stream (`wss://stream.data.alpaca.markets/v2/iex` or `/sip`): the server greets
 * with `[{"T":"success","msg":"connected"}]`, the client authenticates with
 * `{"action":"auth","key","secret"}` (answered `authenticated`, or an error such as 402 `auth failed`),
 * subscribes trades with `{"action":"subscribe","trades":[…]}` (answered by a `subscription` message listing
 * every subscribed symbol) and receives trades `{"T":"t","S","p","s","t"}` (`t` RFC 3339 with nanoseconds),
 * always in arrays. The free plan's IEX feed carries at most 30 symbols.
 */
import type { ProviderProtocol, ProviderSession } from './providerStream.ts';

/** Where and how to connect. */
export interface AlpacaOptions {
  /** API key id. */
  readonly keyId: string;
  /** API secret key. */
  readonly secretKey: string;
  /** `iex` (free plan) or `sip`. */
  readonly feed: 'iex' | 'sip';
  /** The stream URL (default the feed's public one). */
  readonly streamUrl?: string;
}

/** Symbols one connection may subscribe: the free plan's limit on IEX, none to speak of on SIP. */
export const ALPACA_SYMBOL_LIMITS = Object.freeze({ iex: 30, sip: 10_000 });

/** Alpaca error codes that mean the credentials are refused. */
const AUTH_ERRORS = new Set([401, 402, 404]);

/** Alpaca's documented stream error codes, for the reason shown. */
const ERROR_NAMES: Readonly<Record<number, string>> = {
  400: 'invalid syntax',
  401: 'not authenticated',
  402: 'auth failed',
  403: 'already authenticated',
  404: 'auth timeout',
  405: 'symbol limit exceeded',
  406: 'connection limit exceeded',
  407: 'slow client',
  409: 'insufficient subscription',
  500: 'internal error',
};

function record(message: unknown): Record<string, unknown> {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) throw new Error('not an object');
  return message as Record<string, unknown>;
}

/** The Alpaca stream's protocol. */
export function alpacaProtocol(options: AlpacaOptions): ProviderProtocol {
  return {
    name: `alpaca-${options.feed}`,
    url: options.streamUrl ?? `wss://stream.data.alpaca.markets/v2/${options.feed}`,
    maxSymbols: ALPACA_SYMBOL_LIMITS[options.feed],
    opened: () => undefined,
    message(message: unknown, session: ProviderSession) {
      const m = record(message);
      switch (m.T) {
        case 't': {
          const ts = typeof m.t === 'string' ? Date.parse(m.t) : NaN;
          session.trades([{ symbol: m.S, price: m.p, size: m.s, ts: Number.isFinite(ts) ? ts : m.t }]);
          return;
        }
        case 'success':
          if (m.msg === 'connected') session.send({ action: 'auth', key: options.keyId, secret: options.secretKey });
          else if (m.msg === 'authenticated') session.authenticated();
          else throw new Error(`unknown success ${JSON.stringify(m.msg)}`);
          return;
        case 'subscription':
          if (!Array.isArray(m.trades)) throw new Error('subscription without trades');
          session.subscribed(m.trades.filter((s): s is string => typeof s === 'string'));
          return;
        case 'error': {
          const code = typeof m.code === 'number' ? m.code : 0;
          const text = `${code} ${typeof m.msg === 'string' ? m.msg : (ERROR_NAMES[code] ?? 'error')}`;
          if (AUTH_ERRORS.has(code)) session.authFailed(text);
          else session.error(`alpaca error ${text}`);
          return;
        }
        case 'q':
        case 'b':
        case 'd':
        case 'u':
        case 's':
        case 'c':
        case 'x':
        case 'l':
          // Quotes, bars, statuses, corrections: not subscribed, ignored if sent.
          return;
        default:
          throw new Error(`unknown message type ${JSON.stringify(m.T)}`);
      }
    },
    subscribe: (symbols, session) => session.send({ action: 'subscribe', trades: symbols }),
    unsubscribe: (symbols, session) => session.send({ action: 'unsubscribe', trades: symbols }),
  };
}
