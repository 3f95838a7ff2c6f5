import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { startE2E, type E2E } from './browser.ts';

/** The sign-in page's budget of bytes transferred (headers and compressed bodies). */
const LOGIN_BUDGET_BYTES = 150 * 1024;
/**
 * The dashboard's budget from navigation to a usable screen is 1 s on a quiet machine (the measured figure is in
 * the README); a test run shares its machine with the rest of the suite, so it prints the time and fails only on
 * a screen that takes several times the budget.
 */
const DASHBOARD_CEILING_MS = 3000;
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

  it('makes the dashboard of a user with stocks usable on a first visit, and prints how soon', async () => {
    const { page, context } = await e2e.newPage();
    await e2e.signUp(page, 'load');
    const added = await page.evaluate(async () => {
      const response = await fetch('/personalize/dashboardstocks', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(['AAPL', 'NVDA']),
      });
      return response.status;
    });
    expect(added).to.equal(200);
    // A fresh browser context with the same session: nothing cached, as on a first visit.
    const cold = await e2e.browser.newContext({
      baseURL: e2e.gw.url,
      viewport: { width: 1400, height: 900 },
      storageState: await context.storageState(),
    });
    const fresh = await cold.newPage();
    await fresh.goto('/Dashboard');
    // Usable: a card shows its price and the symbol search takes input. The page itself notes the moment (at
    // each frame), so the test's own round trips do not count.
    const usable = await fresh.waitForFunction(
      () => {
        const price = document.querySelector('[data-testid="price-AAPL"]')?.textContent ?? '';
        const search = document.querySelector<HTMLInputElement>('.add-card input[role="combobox"]');
        return /\d/.test(price) && search && !search.disabled ? performance.now() : false;
      },
      null,
      { polling: 'raf' },
    );
    const interactiveMs = (await usable.jsonValue()) as number;
    await fresh.getByRole('article', { name: 'AAPL card' }).getByTestId('price-AAPL').waitFor();
    await fresh.getByRole('combobox', { name: 'Symbol or company' }).waitFor();
    await fresh.waitForLoadState('networkidle');
    const { bytes } = await loaded(fresh);
    console.log(
      `      /Dashboard: interactive after ${interactiveMs.toFixed(0)} ms, ${(bytes / 1024).toFixed(1)} kB transferred`,
    );
    expect(interactiveMs).to.be.below(DASHBOARD_CEILING_MS);
    await cold.close();
    await context.close();
  });
});
