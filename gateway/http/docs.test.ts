import { expect } from 'chai';
import { ALERT_FREQUENCIES, ALERT_OPS } from '../../domain/alerts/conditions.ts';
import { feedApi } from '../../domain/contract/feed.ts';
import { createApp } from '../app.ts';
import { useTestGateway, type TestGateway } from '../testing/harness.ts';
import { REFERENCE_FILES } from './docs.ts';

/** What the test reads of a router: its layers. */
interface MountedRouter {
  readonly stack: readonly { readonly methods: readonly string[]; readonly path: string | RegExp }[];
}

interface OpenApi {
  readonly openapi: string;
  readonly paths: Record<string, Record<string, unknown>>;
}

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** The `src` and `href` values of an HTML page. */
function links(html: string): string[] {
  return [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
}

describe('API reference', function () {
  let gw: TestGateway;
  useTestGateway((started) => {
    gw = started;
  });

  it('lists every route the application mounts, and the feed route', async function () {
    const app = createApp({
      ...gw.running.system.appDeps,
      feed: { token: 'feed-token', bus: { publish: () => Promise.resolve() } },
    });
    const router = app.middleware
      .map((m) => (m as { router?: MountedRouter }).router)
      .find((r): r is MountedRouter => r !== undefined);
    expect(router, 'the router middleware').to.not.equal(undefined);
    const doc = (await gw.client().get('/api/docs')).body as OpenApi;
    const mounted = router!.stack.flatMap((layer) =>
      layer.methods.filter((m) => m !== 'HEAD').map((method) => [method.toLowerCase(), String(layer.path)] as const),
    );
    expect(mounted.length).to.be.greaterThan(80);
    const missing = mounted
      .filter(([method, path]) => !doc.paths[path.replace(/:([A-Za-z_]+)/g, '{$1}')]?.[method])
      .map(([method, path]) => `${method.toUpperCase()} ${path}`);
    expect(missing).to.deep.equal([]);
    expect(doc.paths[feedApi.postFeedTicks.path]).to.have.property('post');
  });

  it("describes an alert body's condition and frequency: the operators, the levels, the frequencies", async () => {
    const doc = (await gw.client().get('/api/docs')).body as OpenApi;
    const post = doc.paths['/personalize/stockalerts']?.post as {
      requestBody: { content: { 'application/json': { schema: { properties: Record<string, unknown> } } } };
    };
    const body = post.requestBody.content['application/json'].schema.properties;
    const condition = body.condition as { anyOf: { properties?: Record<string, unknown>; required?: string[] }[] };
    const shape = condition.anyOf.find((s) => s.properties !== undefined)!;
    expect(shape.required).to.deep.equal(['op']);
    expect(shape.properties!.op).to.deep.equal({ type: 'string', enum: [...ALERT_OPS] });
    // A level is a number or another series as {ref}.
    for (const level of ['value', 'lower', 'upper']) {
      const text = JSON.stringify(shape.properties![level]);
      expect(text, level).to.include('{"type":"number"}');
      expect(text, level).to.include('"required":["ref"]');
    }
    expect(shape.properties!.bars).to.deep.equal({ type: ['integer', 'null'], minimum: 1, maximum: 200 });
    const frequency = body.frequency as { anyOf: unknown[] };
    expect(frequency.anyOf).to.deep.include({ type: 'string', enum: [...ALERT_FREQUENCIES] });
  });

  it('keeps the JSON document at /api/docs for API clients and at /api/docs/openapi.json', async function () {
    for (const [path, accept] of [
      ['/api/docs', 'application/json'],
      ['/api/docs', '*/*'],
      ['/api/docs/openapi.json', BROWSER_ACCEPT],
    ] as const) {
      const res = await gw.client().request('GET', path, { headers: { accept } });
      expect(res.status, path).to.equal(200);
      expect(res.headers.get('content-type'), path).to.match(/^application\/json/);
      expect((res.body as OpenApi).openapi, path).to.equal('3.1.0');
    }
  });

  it('serves a readable page to a browser at /api/docs, made only of files of this server', async function () {
    for (const path of ['/api/docs', '/api/docs/index.html']) {
      const res = await gw.client().request('GET', path, { headers: { accept: BROWSER_ACCEPT } });
      expect(res.status, path).to.equal(200);
      expect(res.headers.get('content-type'), path).to.match(/^text\/html/);
      expect(res.text).to.include('<div id="reference">');
      expect(res.text, 'no inline script').to.not.match(/<script>/);
      const refs = links(res.text);
      expect(refs.length).to.be.greaterThan(2);
      for (const ref of refs) expect(ref, 'a path of this server').to.match(/^\/api\/docs\/[\w.-]+$/);
    }
  });

  it('serves each file of the page with its media type, the initializer naming only this server', async function () {
    const types: Record<string, RegExp> = {
      html: /^text\/html/,
      js: /^text\/javascript/,
      css: /^text\/css/,
      png: /^image\/png/,
    };
    for (const file of REFERENCE_FILES) {
      const res = await gw.client().get(`/api/docs/${file}`);
      expect(res.status, file).to.equal(200);
      expect(res.headers.get('content-type'), file).to.match(types[file.split('.').pop()!]!);
      expect(res.text.length, file).to.be.greaterThan(100);
    }
    const init = await gw.client().get('/api/docs/init.js');
    expect(init.text).to.include("'/api/docs/openapi.json'");
    expect(init.text).to.not.match(/https?:\/\//);
    expect(init.text, 'no validator badge fetched from another site').to.include('validatorUrl: null');
  });

  it('answers 404 naming the file for anything else under /api/docs', async function () {
    for (const path of [
      '/api/docs/package.json',
      '/api/docs/..%2F..%2Fpackage.json',
      '/api/docs/swagger-ui.js.map',
      // Names every object has: the files are a map, not an object's properties.
      '/api/docs/constructor',
      '/api/docs/__proto__',
      '/api/docs/toString',
      '/api/docs/hasOwnProperty',
    ]) {
      const res = await gw.client().get(path);
      expect(res.status, path).to.equal(404);
      expect(res.body).to.deep.include({ error: 'not_found' });
    }
  });
});
