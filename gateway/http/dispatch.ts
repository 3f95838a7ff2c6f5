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
  /** Paths already looked up: their route and parameters. */
  readonly found: Map<string, Found>;
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
  return { layers, exact, found: new Map() };
}

/** The route a path leads to and its decoded parameters, as the router would make them. */
interface Found {
  readonly layer: Layer;
  readonly params: Readonly<Record<string, string>>;
}

/** Paths already looked up, per method table; bounded: a full cache starts again empty. */
const FOUND_LIMIT = 1024;

function find(table: MethodTable, path: string): Found | undefined {
  const known = table.found.get(path);
  if (known) return known;
  const layer = table.exact.get(path) ?? table.layers.find((l) => l.match(path));
  if (!layer) return undefined;
  // Frozen: every request of the path gets the same object.
  const params = Object.freeze<Record<string, string>>(
    layer.paramNames.length > 0 ? layer.params(path, layer.captures(path), {}) : {},
  );
  if (table.found.size >= FOUND_LIMIT) table.found.clear();
  const found = { layer, params };
  table.found.set(path, found);
  return found;
}

function answer(ctx: Context, { layer, params }: Found): Promise<unknown> | undefined | null {
  const handle = layer.stack[0];
  if (layer.stack.length !== 1 || !isRouteHandler(handle)) return null;
  ctx.params = params;
  // What the router would set: the route's path, for the request metrics.
  (ctx as { _matchedRoute?: string })._matchedRoute = String(layer.path);
  (ctx.request as { params?: Record<string, string> }).params = params;
  return handle(ctx);
}

/**
 * Answers a request with the {@link routeHandler} route the router would pick: the handler's promise, or
 * undefined when it answered at once; null when the request is left to the router (another kind of handler,
 * no route, another method). A route's failure is thrown or rejected as the router would.
 */
export type RouteAnswerer = (ctx: Context) => Promise<unknown> | undefined | null;

/**
 * The answerer of a router's GET and POST routes registered by `mountRoutes`. A router with a host, a prefix,
 * parameter middleware, `exclusive` or a custom routing path is left entirely to itself (every request null).
 */
export function routeAnswerer(router: Router): RouteAnswerer {
  const plain =
    !router.host &&
    !router.exclusive &&
    !router.opts.prefix &&
    !router.opts.routerPath &&
    Object.keys(router.params).length === 0 &&
    router.stack.every((layer) => layer.methods.length > 0);
  if (!plain) return () => null;
  const tables = new Map<string, MethodTable>([
    ['GET', tableFor(router, 'GET')],
    ['POST', tableFor(router, 'POST')],
  ]);
  return (ctx) => {
    const table = tables.get(ctx.method);
    if (!table || (ctx as { newRouterPath?: string }).newRouterPath) return null;
    const found = find(table, ctx.path);
    return found ? answer(ctx, found) : null;
  };
}

/**
 * The dispatcher of a router's GET and POST routes registered by `mountRoutes`, as a middleware (see
 * {@link routeAnswerer}); put it right before `router.routes()`.
 */
export function routeDispatcher(router: Router): Middleware {
  const answerer = routeAnswerer(router);
  return (ctx, next) => {
    const taken = answerer(ctx);
    return taken === null ? next() : taken;
  };
}
