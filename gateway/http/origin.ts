/**
 * Which browser origins may change state or open a socket: the configured public origin (`PUBLIC_ORIGIN`) when
 * there is one, else the origin the request itself was sent to. The same rule guards REST requests (cross-site
 * request forgery) and the Socket.IO handshake (cross-site WebSocket hijacking).
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

/** How the app's own origin is found. */
export interface OriginPolicy {
  /** The configured public origin, or null to take it from the request. */
  readonly publicOrigin: string | null;
  /** Whether `X-Forwarded-Proto` and `X-Forwarded-Host` are believed (`TRUST_PROXY`). */
  readonly trustProxy: boolean;
}

/** The policy of a single process reached directly: the request's own origin, no proxy headers. */
export const DIRECT: OriginPolicy = Object.freeze({ publicOrigin: null, trustProxy: false });

function firstHeader(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text?.split(',', 1)[0]?.trim() || undefined;
}

/** The origin a raw request was sent to, as Koa works it out for `ctx.protocol` and `ctx.host`. */
export function requestOrigin(request: IncomingMessage, trustProxy: boolean): string {
  const encrypted = (request.socket as Partial<TLSSocket>).encrypted === true;
  const proto = (trustProxy && firstHeader(request.headers['x-forwarded-proto'])) || (encrypted ? 'https' : 'http');
  const host = (trustProxy && firstHeader(request.headers['x-forwarded-host'])) || request.headers.host || '';
  return `${proto}://${host}`;
}

/**
 * Whether a browser at `origin` may act on the app: requests without an `Origin` (non-browser clients) may;
 * otherwise it must be the public origin when one is configured, else the origin the request was sent to.
 */
export function originAllowed(origin: string | undefined, ownOrigin: string, policy: OriginPolicy): boolean {
  if (!origin) return true;
  return origin === (policy.publicOrigin ?? ownOrigin);
}
