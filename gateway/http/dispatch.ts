/**
 * A lean dispatcher in front of `@koa/router` for the API routes: it picks the same route the router would
 * (built from the router's own layers, in their order, with their own regular expressions) but without the
 * router's per-request work (host check, lists of every matching layer, a composed chain), which was the
 * largest framework cost of a GET read-model route (see `npm run bench -- gateway`). Anything it does not
 * take, and every request whose first matching route is not a {@link routeHandler} route, goes on to the
 * router as before, so 404, 405, HEAD and OPTIONS answers do not change.
 */
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { isRouteHandler } from './route.ts';

type Layer = Router['stack'][number];

/** The layers of one method in router order, and the static paths whose first matching layer is known. */
interface MethodTable {
  readonly layers: readonly Layer[];
  readonly exact: ReadonlyMap<string, Layer>;
}

function tableFor(router: Router, method: string): MethodTable {
  const layers = router.stack.filter((layer) => layer.methods.includes(method));
  const exact = new Map<string, Layer>();
  for (const layer of layers) {
    if (typeof layer.path !== 'string' || layer.paramNames.length > 0 || exact.has(layer.path)) continue;
    const path = layer.path;
    // The first layer in router order that matches the path, e.g. an earlier `/a/:x` shadows a later `/a/b`.
    const first = layers.find((l) => l.match(path));
    if (first === layer) exact.set(path, layer);
  }
  return { layers, exact };
}

function answer(ctx: Context, layer: Layer, path: string, next: () => Promise<unknown>): Promise<unknown> | null {
  const handle = layer.stack[0];
  if (layer.stack.length !== 1 || !isRouteHandler(handle)) return null;
  const params = layer.paramNames.length > 0 ? layer.params(path, layer.captures(path), {}) : {};
  ctx.params = params;
  // What the router would set: the route's path, for the request metrics.
  (ctx as { _matchedRoute?: string })._matchedRoute = String(layer.path);
  (ctx.request as { params?: Record<string, string> }).params = params;
  return (handle as (ctx: Context, next: () => Promise<unknown>) => Promise<unknown>)(ctx, next);
}

/**
 * The dispatcher of a router's GET and POST routes registered by `mountRoutes`; put it right before
 * `router.routes()`. A router with a host, a prefix, parameter middleware, `exclusive` or a custom routing
 * path is left entirely to itself.
 */
export function routeDispatcher(router: Router): Middleware {
  const plain =
    !router.host &&
    !router.exclusive &&
    !router.opts.prefix &&
    !router.opts.routerPath &&
    Object.keys(router.params).length === 0 &&
    router.stack.every((layer) => layer.methods.length > 0);
  if (!plain) return (_ctx, next) => next();
  const tables = new Map<string, MethodTable>([
    ['GET', tableFor(router, 'GET')],
    ['POST', tableFor(router, 'POST')],
  ]);
  return (ctx, next) => {
    const table = tables.get(ctx.method);
    if (!table || (ctx as { newRouterPath?: string }).newRouterPath) return next();
    const path = ctx.path;
    const layer = table.exact.get(path) ?? table.layers.find((l) => l.match(path));
    return (layer && answer(ctx, layer, path, next)) ?? next();
  };
}
