import { expect } from 'chai';
import { startE2E, type E2E } from './browser.ts';

describe('API reference page (Chromium)', function () {
  this.timeout(120_000);
  let e2e: E2E;

  before(async function () {
    e2e = await startE2E();
  });
  after(async () => {
    await e2e?.close();
  });

  it('draws every route of the OpenAPI document under the Content-Security-Policy, loading nothing from elsewhere', async () => {
    const { page, context, errors } = await e2e.newPage();
    const origin = new URL(e2e.gw.url).origin;
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    await page.goto('/api/docs');
    await page.locator('.opblock-summary-path', { hasText: '/api/feed/ticks' }).first().waitFor();
    const doc = (await (await page.request.get('/api/docs/openapi.json')).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.values(doc.paths).reduce((n, methods) => n + Object.keys(methods).length, 0);
    expect(await page.locator('.opblock').count(), 'one block per operation').to.equal(operations);
    expect(
      requested.filter((url) => !url.startsWith(origin) && !url.startsWith('data:')),
      'requests to other sites',
    ).to.deep.equal([]);
    expect(errors, 'console errors, Content-Security-Policy refusals included').to.deep.equal([]);
    await context.close();
  });
});
