import type { Middleware } from 'koa';
import { ApiError } from '../errors.ts';
import { DIRECT, originAllowed, type OriginPolicy } from './origin.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses state-changing requests whose `Origin` is another site's (cross-site request forgery). Requests
 * without an `Origin` (non-browser clients) pass; browsers always send one on POST.
 */
export function sameOrigin(policy: OriginPolicy = DIRECT): Middleware {
  return (ctx, next) => {
    if (!SAFE_METHODS.has(ctx.method)) {
      const origin = ctx.get('origin');
      // Koa 3's ctx.origin echoes the Origin header, so the server's own origin is built from the request.
      if (!originAllowed(origin, `${ctx.protocol}://${ctx.host}`, policy)) {
        throw new ApiError(403, 'forbidden', `Origin ${origin} may not change state here`);
      }
    }
    return next();
  };
}
