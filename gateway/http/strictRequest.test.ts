/**
 * A query parameter or a body field a route does not have is named, not ignored: `?limt=5` or `?q[]=a` must not
 * answer as if it were not there (the whole universe for a search), nor `"fees": 1` record a purchase without its
 * commission. Every query and body schema of the contract is strict, but those of the links opened from e-mails,
 * to which a mail client or link checker may add parameters of its own, and a browser's push subscription.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { z } from 'zod';
import type { RouteContract } from '../../domain/contract/route.ts';
import { useTestGateway, type TestClient, type TestGateway } from '../testing/harness.ts';

/** The routes whose query lets other parameters through, and why. */
const LENIENT: Readonly<Record<string, string>> = {
  'GET /api/channels/confirm': 'opened from an e-mail',
  'GET /api/channels/unsubscribe': 'opened from an e-mail',
  'POST /api/channels/unsubscribe': 'one-click unsubscribe from an e-mail',
};

/** The places in a body where other fields are taken (and dropped), and why. */
const LENIENT_BODIES: Readonly<Record<string, string>> = {
  'POST /api/channels/confirm .': 'opened from an e-mail',
  'POST /api/channels/unsubscribe .': 'one-click unsubscribe from an e-mail',
  'POST /personalize/channels |2.subscription': "a browser's push subscription as the browser gives it",
  'POST /personalize/channels |2.subscription.keys': "a browser's push subscription as the browser gives it",
};

/** Every place in `schema` where an object takes fields it does not have: `.`, `.sort`, `|1` (a union's), `[]`. */
function looseObjects(schema: z.ZodType, at = ''): string[] {
  const def = schema.def as unknown as Record<string, unknown> & { type: string };
  switch (def.type) {
    case 'object': {
      const catchall = def.catchall as z.ZodType | undefined;
      const here = catchall?.def.type === 'never' ? [] : [at === '' ? '.' : at];
      const shape = def.shape as Record<string, z.ZodType>;
      return [...here, ...Object.entries(shape).flatMap(([key, field]) => looseObjects(field, `${at}.${key}`))];
    }
    case 'union':
      return (def.options as z.ZodType[]).flatMap((option, i) => looseObjects(option, `${at}|${i}`));
    case 'array':
      return looseObjects(def.element as z.ZodType, `${at}[]`);
    case 'pipe':
      return looseObjects(def.in as z.ZodType, at);
    case 'optional':
    case 'nullable':
    case 'default':
    case 'readonly':
    case 'nonoptional':
    case 'catch':
      return looseObjects(def.innerType as z.ZodType, at);
    case 'record':
      return looseObjects(def.valueType as z.ZodType, `${at}{}`);
    default:
      return [];
  }
}

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

describe('query parameters and body fields a route does not have', function () {
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

  it('are refused by every body schema of the contract, but where e-mails and browsers add their own', async function () {
    const routes = (await contractRoutes()).filter((r) => r.body !== undefined);
    expect(routes.length, 'routes with a body').to.be.above(25);
    const loose = routes.flatMap((route) =>
      looseObjects(route.body as z.ZodType).map((at) => `${route.method} ${route.path} ${at}`),
    );
    expect([...new Set(loose)].sort()).to.deep.equal(Object.keys(LENIENT_BODIES).sort());
  });

  describe('over HTTP', function () {
    let gw: TestGateway;
    let user: TestClient;
    useTestGateway(async (started) => {
      gw = started;
      user = await gw.user();
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

    const bodyRefusals: readonly [string, unknown, string][] = [
      [
        '/api/portfolio/transactions',
        { kind: 'buy', symbol: 'AAPL', date: '2024-03-01', quantity: 10, price: 180, fees: 1 },
        'body.fees: is not a field of this request',
      ],
      ['/api/screener/run', { query: [], limit: 5, offset: 5 }, 'body.offset: is not a field of this request'],
      [
        '/api/screener/run',
        { query: [], sort: { field: 'close', dir: 'desc', then: 'mcap' } },
        'body.sort.then: is not a field of this request',
      ],
      [
        '/personalize/createwatchlist',
        { symbols: ['AAPL'], name: 'Tech' },
        'body.name: is not a field of this request',
      ],
      [
        '/personalize/userPositions/AAPL',
        [{ date: '2024-03-01', close: 180, position: 2, fee: 1 }],
        'body[0].fee: is not a field of this request',
      ],
    ];
    for (const [path, body, message] of bodyRefusals) {
      it(`refuses ${JSON.stringify(body)} on ${path}, naming the field`, async function () {
        const res = await user.post(path, body);
        expect(res.status, res.text).to.equal(400);
        expect(res.body).to.deep.include({ error: 'bad_request', message });
      });
    }

    it('takes the same bodies with only their own fields', async function () {
      const bought = await user.post('/api/portfolio/transactions', {
        kind: 'buy',
        symbol: 'AAPL',
        date: '2024-03-01',
        quantity: 10,
        price: 180,
        fee: 1,
      });
      expect(bought.status, bought.text).to.equal(200);
      const run = await user.post('/api/screener/run', { query: [], limit: 5, sort: { field: 'close', dir: 'desc' } });
      expect(run.status, run.text).to.equal(200);
      const created = await user.post('/personalize/createwatchlist', { symbols: ['AAPL'] });
      expect(created.status, created.text).to.equal(200);
    });

    it('answers the same routes with only their own parameters, and without a query', async function () {
      expect((await user.get('/api/universe?q=app&limit=5')).status).to.equal(200);
      expect((await user.get('/personalize/watchlist')).status).to.equal(200);
      expect((await user.get('/personalize/watchlist?')).status).to.equal(200);
    });
  });
});
