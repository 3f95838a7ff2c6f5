import type { Context } from 'koa';
import { ApiError } from '../errors.ts';
import { originAllowed, type OriginPolicy } from './origin.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses (403) a state-changing request whose `Origin` is another site's (cross-site request forgery).
 * Requests without an `Origin` (non-browser clients) pass; browsers always send one on POST.
 */
export function refuseCrossSite(ctx: Context, policy: OriginPolicy): void {
  if (SAFE_METHODS.has(ctx.method)) return;
  const origin = ctx.get('origin');
  // Koa 3's ctx.origin echoes the Origin header, so the server's own origin is built from the request.
  if (!originAllowed(origin, `${ctx.protocol}://${ctx.host}`, policy)) {
    throw new ApiError(403, 'forbidden', `Origin ${origin} may not change state here`);
  }
}
