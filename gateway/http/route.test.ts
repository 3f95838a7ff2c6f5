import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import { expect } from 'chai';
import Koa from 'koa';
import { z } from 'zod';
import { toErrorAnswer } from '../errors.ts';
import { defineRoute, mountRoutes, validationError, type RouteDef } from './route.ts';

/** A GET route whose schemas count their runs, and the answers it gives. */
function countedRoutes(runs: { params: number; query: number }): RouteDef<never, never, never>[] {
  const params = z.object({
    kind: z
      .string()
      .toUpperCase()
      .refine((kind) => {
        runs.params += 1;
        return kind === 'ALL' || kind === 'ONE';
      }, 'must be ALL or ONE'),
  });
  const query = z.object({
    limit: z.coerce
      .number()
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .refine(() => {
        runs.query += 1;
        return true;
      })
      .default(5),
    tags: z
      .string()
      .transform((text) => text.split(','))
      .optional(),
  });
  return [
    defineRoute({
      method: 'GET',
      path: '/things/:kind',
      summary: 'things',
      tag: 'test',
      access: 'public',
      params,
      query,
      response: z.object({ kind: z.string(), limit: z.number(), tags: z.array(z.string()).nullable() }),
      handle: ({ params: p, query: q }) => {
        const tags = q.tags ?? null;
        // A handler that changes a list it was given must not change what a later request gets.
        tags?.push('seen');
        return Promise.resolve({ kind: p.kind, limit: q.limit, tags });
      },
    }),
  ] as RouteDef<never, never, never>[];
}

async function serve(runs: { params: number; query: number }): Promise<{ url: string; close: () => Promise<void> }> {
  const app = new Koa();
  const router = new Router();
  mountRoutes(router, countedRoutes(runs));
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const { status, body } = toErrorAnswer(error);
      ctx.status = status;
      ctx.body = body;
    }
  });
  app.use(router.routes());
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('route validation of repeated GETs', function () {
  const runs = { params: 0, query: 0 };
  let server: { url: string; close: () => Promise<void> };
  before(async function () {
    server = await serve(runs);
  });
  after(async function () {
    await server.close();
  });
  const get = async (path: string) => {
    const res = await fetch(`${server.url}${path}`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('validates a repeated path and query once and answers it the same every time', async function () {
    const first = await get('/things/all?limit=3');
    const { params, query } = runs;
    const again = await get('/things/all?limit=3');
    expect(again).to.deep.equal(first);
    expect(first).to.deep.equal({ status: 200, body: { kind: 'ALL', limit: 3, tags: null } });
    expect(runs).to.deep.equal({ params, query });
    const other = await get('/things/one?limit=4');
    expect(other.body).to.deep.equal({ kind: 'ONE', limit: 4, tags: null });
    expect(runs).to.deep.equal({ params: params + 1, query: query + 1 });
  });

  it('refuses a bad parameter or query every time, naming the field', async function () {
    for (let i = 0; i < 2; i += 1) {
      const badParam = await get('/things/some');
      expect(badParam.status).to.equal(400);
      expect(String(badParam.body.message)).to.match(/^params\.kind: must be ALL or ONE/);
      const badQuery = await get('/things/all?limit=0');
      expect(badQuery.status).to.equal(400);
      expect(String(badQuery.body.message)).to.match(/^query\.limit: must be at least 1/);
    }
  });

  it('works out a query holding a list every time, so a handler changing it changes nothing later', async function () {
    const first = await get('/things/all?tags=a,b');
    const again = await get('/things/all?tags=a,b');
    expect(first.body.tags).to.deep.equal(['a', 'b', 'seen']);
    expect(again.body.tags).to.deep.equal(['a', 'b', 'seen']);
  });
});

describe('refusals of a union body', function () {
  const symbols = z.array(z.string()).max(3, 'must name at most 3 symbols');
  const body = z.union([symbols, z.object({ symbols })]);
  const refusal = (value: unknown) => {
    const result = body.safeParse(value);
    expect(result.success).to.equal(false);
    return validationError('body', result.error!).message;
  };

  it('names the rule of the branch whose type the value has', function () {
    expect(refusal(['A', 'B', 'C', 'D'])).to.equal('body: must name at most 3 symbols');
    expect(refusal({ symbols: ['A', 'B', 'C', 'D'] })).to.equal('body.symbols: must name at most 3 symbols');
    expect(refusal({ symbols: 'A' })).to.match(/^body\.symbols: /);
  });

  it('names the types a value of none of them may have, or the union’s own words', function () {
    expect(refusal('AAPL')).to.equal('body: must be an array or an object');
    const worded = z.union([symbols, z.object({ symbols })], { error: 'must be a list of symbols or {symbols}' });
    const result = worded.safeParse(7);
    expect(validationError('body', result.error!).message).to.equal('body: must be a list of symbols or {symbols}');
  });
});

describe('refusals of a field without words of its own', function () {
  const body = z.object({ symbol: z.string(), months: z.number(), days: z.array(z.string()) });
  const refusal = (value: unknown) => validationError('body', body.safeParse(value).error!).message;

  it('says a missing field is required, and a value of the wrong type what it must be, in the API’s words', function () {
    expect(refusal({})).to.equal('body.symbol: is required: a text');
    expect(refusal({ symbol: 'AAPL', months: '3', days: [] })).to.equal('body.months: must be a number, not a text');
    expect(refusal({ symbol: 'AAPL', months: 3, days: {} })).to.equal('body.days: must be a list, not an object');
  });
});
