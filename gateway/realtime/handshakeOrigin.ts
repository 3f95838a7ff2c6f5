/**
 * The Origin check of the Socket.IO handshake: a page of another origin (another site, or another port of this
 * one) may not open a socket with the user's cookie and read their notifications (cross-site WebSocket
 * hijacking). Same rule as state-changing REST requests (`http/origin.ts`).
 */
import type { IncomingMessage } from 'node:http';
import { DIRECT, originAllowed, requestOrigin, type OriginPolicy } from '../http/origin.ts';

/** The refusal of a handshake whose `Origin` is not the app's own, or null when it may go on. */
export function foreignOrigin(request: IncomingMessage, policy: OriginPolicy = DIRECT): Error | null {
  const origin = request.headers.origin;
  if (originAllowed(origin, requestOrigin(request, policy.trustProxy), policy)) return null;
  return new Error(`forbidden: Origin ${origin} may not open a socket here`);
}
