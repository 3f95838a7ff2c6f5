import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { startE2E, type E2E } from './browser.ts';

/** The sign-in page's budget of bytes transferred (headers and compressed bodies). */
const LOGIN_BUDGET_BYTES = 150 * 1024;
/** Strings only AG Grid's and Plotly's code contain. */
const GRID_MARKER = 'ag-root-wrapper';
const CHART_MARKER = 'modebar-btn';

/** What a page loaded so far: bytes transferred, and the addresses of its scripts. */
async function loaded(page: Page): Promise<{ bytes: number; scripts: string[] }> {
  return page.evaluate(() => {
    const entries = [
      ...performance.getEntriesByType('navigation'),
      ...performance.getEntriesByType('resource'),
    ] as PerformanceResourceTiming[];
    return {
      bytes: entries.reduce((sum, e) => sum + e.transferSize, 0),
      scripts: entries.filter((e) => e.name.endsWith('.js')).map((e) => e.name),
    };
  });
}

/** The `Content-Encoding` the server sends a browser for `url`, and the script's text. */
async function fetchAsBrowser(url: string): Promise<{ encoding: string; text: string }> {
  const response = await fetch(url, { headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } });
  return { encoding: response.headers.get('content-encoding') ?? '', text: await response.text() };
}

describe('page weight and loading time (Chromium)', function () {
  this.timeout(180_000);
  let e2e: E2E;

  before(async function () {
    e2e = await startE2E();
  });
  after(async () => {
    await e2e?.close();
  });

  it('sends the sign-in page compressed, under 150 kB, without grid or chart code', async () => {
    const { page, context, errors } = await e2e.newPage();
    await page.goto('/Login');
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const interactiveMs = await page.evaluate(() => performance.now());
    await page.waitForLoadState('networkidle');
    const { bytes, scripts } = await loaded(page);
    console.log(
      `      /Login: ${(bytes / 1024).toFixed(1)} kB transferred, interactive after ${interactiveMs.toFixed(0)} ms`,
    );
    expect(bytes).to.be.above(0).and.below(LOGIN_BUDGET_BYTES);
    expect(scripts.length).to.be.greaterThan(0);
    for (const url of scripts) {
      const { encoding, text } = await fetchAsBrowser(url);
      expect(text, url).not.to.include(GRID_MARKER);
      expect(text, url).not.to.include(CHART_MARKER);
      if (text.length >= 1024) expect(encoding, url).to.equal('br');
    }
    expect(errors).to.deep.equal([]);
    await context.close();
  });
});
