import { expect } from 'chai';
import { SECURITY_HEADERS } from './app.ts';
import { useTestGateway, type TestGateway } from './testing/harness.ts';

describe('gateway app', function () {
  let gw: TestGateway;
  useTestGateway((started) => {
    gw = started;
  });

  it('answers false to /api/loggedinstatus without a session', async function () {
    const res = await gw.client().get('/api/loggedinstatus');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    expect(res.text).to.equal('false');
  });

  it('answers /healthz with status ok', async function () {
    const res = await gw.client().get('/healthz');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ status: 'ok' });
  });

  for (const path of ['/api/nosuchroute', '/personalize/nosuchroute', '/api']) {
    it(`answers an unknown route ${path} with 404 JSON`, async function () {
      const res = await gw.client().get(path);
      expect(res.status).to.equal(404);
      expect(res.body).to.deep.include({ error: 'not_found' });
    });
  }

  it('answers a wrong method on a known route with 405 JSON', async function () {
    const res = await gw.client().request('DELETE', '/api/loggedinstatus');
    expect(res.status).to.equal(405);
    expect(res.body).to.deep.include({ error: 'method_not_allowed' });
  });

  for (const path of ['/api/loggedinstatus', '/api/nosuchroute', '/healthz']) {
    it(`sets the security headers on ${path}`, async function () {
      const res = await gw.client().get(path);
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(res.headers.get(name)).to.equal(value);
    });
  }

  it('serves the OpenAPI reference with every session route', async function () {
    const res = await gw.client().get('/api/docs');
    expect(res.status).to.equal(200);
    const doc = res.body as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).to.equal('3.1.0');
    expect(doc.paths['/api/login']).to.have.property('post');
    expect(doc.paths['/personalize/delstkwatchlist/{symbol}']).to.have.property('post');
  });
});
