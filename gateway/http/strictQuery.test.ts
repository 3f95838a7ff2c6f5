/**
 * A query parameter a route does not have is named, not ignored: `?limt=5` or `?q[]=a` must not answer as if it
 * were not there (the whole universe for a search). Every query schema of the contract is strict, but those of
 * the links opened from e-mails, to which a mail client or link checker may add parameters of its own.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { z } from 'zod';
import type { RouteContract } from '../../domain/contract/route.ts';
import { startTestGateway, type TestClient, type TestGateway } from '../testing/harness.ts';

/** The routes whose query lets other parameters through, and why. */
const LENIENT: Readonly<Record<string, string>> = {
  'GET /api/channels/confirm': 'opened from an e-mail',
  'GET /api/channels/unsubscribe': 'opened from an e-mail',
  'POST /api/channels/unsubscribe': 'one-click unsubscribe from an e-mail',
};

/** Every route of the contract modules in `domain/contract`. */
async function contractRoutes(): Promise<RouteContract[]> {
  const dir = join(import.meta.dirname, '..', '..', 'domain', 'contract');
  const routes: RouteContract[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
    const module = (await import(join(dir, file))) as Record<string, unknown>;
    for (const value of Object.values(module)) {
      if (typeof value !== 'object' || value === null) continue;
      for (const candidate of Object.values(value as Record<string, unknown>)) {
        const route = candidate as Partial<RouteContract> | null;
        if (route && typeof route === 'object' && typeof route.method === 'string' && typeof route.path === 'string')
          routes.push(route as RouteContract);
      }
    }
  }
  return routes;
}

describe('query parameters a route does not have', function () {
  it('are refused by every query schema of the contract, but those of the links in e-mails', async function () {
    const routes = await contractRoutes();
    const withQuery = routes.filter((r) => r.query !== undefined);
    expect(withQuery.length, 'routes with a query').to.be.above(15);
    const lenient: string[] = [];
    for (const route of withQuery) {
      const name = `${route.method} ${route.path}`;
      const result = (route.query as z.ZodType).safeParse({ zzz: 'x' });
      const named =
        !result.success && result.error.issues.some((i) => i.code === 'unrecognized_keys' && i.keys.includes('zzz'));
      if (!named) lenient.push(name);
    }
    expect(lenient.sort()).to.deep.equal(Object.keys(LENIENT).sort());
  });

  describe('over HTTP', function () {
    let gw: TestGateway;
    let user: TestClient;
    before(async function () {
      gw = await startTestGateway();
      user = await gw.user();
    });
    after(async function () {
      await gw.close();
    });

    const refusals: readonly [string, string][] = [
      ['/api/universe?q[]=a', 'query.q[]: is not a parameter of this request'],
      ['/api/universe?q=app&limt=5', 'query.limt: is not a parameter of this request'],
      ['/api/quotes?symbols=AAPL&symbol=MSFT', 'query.symbol: is not a parameter of this request'],
      // A route without a query schema takes none.
      ['/personalize/watchlist?limit=5', 'query.limit: is not a parameter of this request'],
      ['/personalize/watchlist?=x', 'query: this request takes no parameters'],
      ['/api/sectors?sector=Energy', 'query.sector: is not a parameter of this request'],
    ];
    for (const [path, message] of refusals) {
      it(`refuses ${path}, naming the parameter`, async function () {
        const res = await user.get(path);
        expect(res.status, res.text).to.equal(400);
        expect(res.body).to.deep.include({ error: 'bad_request', message });
      });
    }

    it('answers the same routes with only their own parameters, and without a query', async function () {
      expect((await user.get('/api/universe?q=app&limit=5')).status).to.equal(200);
      expect((await user.get('/personalize/watchlist')).status).to.equal(200);
      expect((await user.get('/personalize/watchlist?')).status).to.equal(200);
    });
  });
});
