import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import { expect } from 'chai';
import Koa from 'koa';
import { z } from 'zod';
import { routeDispatcher } from './dispatch.ts';
import { JsonText } from './keptAnswer.ts';
import { defineRoute, mountRoutes, type RouteDef } from './route.ts';

const answer = z.object({ route: z.string(), params: z.record(z.string(), z.string()) });

/** Routes where order matters: a parameter route registered before a static one it also matches. */
function routes(): RouteDef<never, never, never>[] {
  const named = (method: 'GET' | 'POST', path: string, name: string) =>
    defineRoute({
      method,
      path,
      summary: name,
      tag: 'test',
      access: 'public',
      params: z.record(z.string(), z.string()),
      response: answer,
      handle: ({ params }) => Promise.resolve({ route: name, params }),
    });
  const kept = defineRoute({
    method: 'GET',
    path: '/kept/:id',
    summary: 'kept',
    tag: 'test',
    access: 'public',
    params: z.object({ id: z.string() }),
    response: answer,
    handle: ({ params }) => new JsonText(JSON.stringify({ route: 'kept', params }), `${params.id}/1`),
  });
  return [
    kept,
    named('GET', '/a/static', 'a-static'),
    named('GET', '/a/:id', 'a-param'),
    named('GET', '/b/:id', 'b-param'),
    named('GET', '/b/shadowed', 'b-shadowed'),
    named('POST', '/a/:id', 'a-post'),
  ] as RouteDef<never, never, never>[];
}

async function serve(
  withDispatcher: boolean,
): Promise<{ url: string; matches: () => number; close: () => Promise<void> }> {
  const app = new Koa();
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { route: 'healthz' };
  });
  mountRoutes(router, routes());
  let matches = 0;
  const match = router.match.bind(router);
  router.match = (path, method) => {
    matches += 1;
    return match(path, method);
  };
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      ctx.status = (error as { status?: number }).status ?? 500;
      ctx.body = { error: ctx.status };
    }
  });
  if (withDispatcher) app.use(routeDispatcher(router));
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    matches: () => matches,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('route dispatcher', function () {
  const requests: [string, string][] = [
    ['GET', '/a/static'],
    ['GET', '/kept/7'],
    ['HEAD', '/kept/7'],
    ['GET', '/a/42'],
    ['GET', '/a/caf%C3%A9'],
    ['GET', '/a/%E0%A4%A'],
    ['GET', '/b/shadowed'],
    ['GET', '/b/7'],
    ['GET', '/A/STATIC'],
    ['GET', '/a/static/'],
    ['GET', '/healthz'],
    ['GET', '/nothing'],
    ['POST', '/a/9'],
    ['POST', '/a/static'],
    ['POST', '/b/7'],
    ['HEAD', '/a/42'],
    ['OPTIONS', '/a/42'],
    ['PUT', '/a/42'],
  ];

  it('answers every request exactly as the router alone does', async function () {
    const plain = await serve(false);
    const dispatched = await serve(true);
    try {
      for (const [method, path] of requests) {
        const [a, b] = await Promise.all(
          [plain, dispatched].map(async ({ url }) => {
            const res = await fetch(`${url}${path}`, { method });
            return {
              status: res.status,
              allow: res.headers.get('allow'),
              type: res.headers.get('content-type'),
              length: res.headers.get('content-length'),
              position: res.headers.get('x-read-model-position'),
              body: await res.text(),
            };
          }),
        );
        expect(b, `${method} ${path}`).to.deep.equal(a);
      }
    } finally {
      await plain.close();
      await dispatched.close();
    }
  });

  it('takes the routes it knows without asking the router', async function () {
    const dispatched = await serve(true);
    try {
      for (const path of ['/a/static', '/a/42', '/b/7', '/kept/1', '/kept/2'])
        await (await fetch(`${dispatched.url}${path}`)).text();
      expect(dispatched.matches()).to.equal(0);
      await (await fetch(`${dispatched.url}/healthz`)).text();
      expect(dispatched.matches()).to.equal(1);
    } finally {
      await dispatched.close();
    }
  });

  it('lets the earlier parameter route win over a later static one, as the router does', async function () {
    const dispatched = await serve(true);
    try {
      expect(await (await fetch(`${dispatched.url}/b/shadowed`)).json()).to.deep.equal({
        route: 'b-param',
        params: { id: 'shadowed' },
      });
    } finally {
      await dispatched.close();
    }
  });
});
