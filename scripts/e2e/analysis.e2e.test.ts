import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { startE2E, type E2E } from './browser.ts';

/** Waits until no "Updating…" status is shown. */
async function settled(page: Page): Promise<void> {
  await page.getByRole('status').filter({ hasText: 'Updating…' }).waitFor({ state: 'detached' });
}

/** Opens a page of the app afresh; console errors count from there (the dashboard's own are not this file's). */
async function open(page: Page, errors: string[], path: string): Promise<void> {
  errors.length = 0;
  await page.goto(path);
}

describe('analysis pages: Perform, Drill, Analyze, Correlate (Chromium)', function () {
  this.timeout(180_000);
  let e2e: E2E;

  before(async function () {
    e2e = await startE2E();
  });
  after(async () => {
    await e2e?.close();
  });

  it('Perform: charts every sector, follows the slider, isolates a line and opens its chart', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'perform');
    await open(page, errors, '/SectorPerformance');
    const energy = page.getByRole('article', { name: /^Energy/ });
    const xom = energy.getByRole('button', { name: /^XOM/ });
    await xom.waitFor();
    expect(await page.locator('.perform-card').count()).to.equal(11);
    await page.locator('.perform-card .js-plotly-plot').nth(10).waitFor();
    const before = await xom.textContent();

    await page.getByRole('slider', { name: 'Months' }).fill('12');
    await page.getByText('Period: 12 months').waitFor();
    await settled(page);
    await page.getByRole('figure', { name: /Energy stocks over 12 months/ }).waitFor();
    expect(await xom.textContent(), 'the change is measured over 12 months now').not.to.equal(before);
    await e2e.screenshot(page, 'perform');

    await energy.getByRole('button', { name: 'Remove CVX' }).click();
    await energy.getByRole('button', { name: 'Restore 1 removed' }).waitFor();
    expect(await energy.getByRole('button', { name: /^CVX/ }).count()).to.equal(0);
    await xom.click();
    expect(await xom.getAttribute('aria-pressed')).to.equal('true');
    await energy.getByText('isolated: click it again to open its chart').waitFor();
    expect(errors).to.deep.equal([]);
    await xom.click();
    await page.waitForURL('**/PriceCharts?stock=XOM');
    await context.close();
  });

  it('Drill: plots the positions, switches to all sectors and drills into one', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'drill');
    const status = await page.evaluate(async () => {
      const answer = await fetch('/personalize/userstockportfolio', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(['AAPL', 'MSFT', 'XOM']),
      });
      return answer.status;
    });
    expect(status).to.equal(200);
    await open(page, errors, '/Charting');
    const chart = page.getByRole('article', { name: /^My positions/ });
    await chart.getByRole('button', { name: /^MSFT/ }).waitFor();
    expect(await chart.locator('.line-key').count()).to.equal(3);

    await page.getByRole('radio', { name: 'All sectors' }).check();
    const sectors = page.getByRole('article', { name: /^All sectors/ });
    const utilities = sectors.getByRole('button', { name: /^Utilities/ });
    await utilities.waitFor();
    await settled(page);
    expect(await sectors.locator('.line-key').count()).to.equal(11);
    await e2e.screenshot(page, 'drill');

    await utilities.click();
    await sectors.getByRole('button', { name: 'Drill into Utilities' }).waitFor();
    await utilities.click();
    const sector = page.getByRole('article', { name: /^Utilities/ });
    await sector.getByRole('button', { name: /^DUK/ }).waitFor();
    expect(await sector.locator('.line-key').count()).to.be.above(20);
    expect(await page.getByRole('combobox', { name: /^Sector/ }).inputValue()).to.equal('gics:Utilities');
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('Analyze: shows the latest patterns with live prices, switches date, lists stocks and the statistics', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'analyze');
    await open(page, errors, '/Analyzer');
    const dates = page.getByRole('tablist', { name: 'Pattern dates' });
    await dates.getByRole('tab').first().waitFor();
    expect(await dates.getByRole('tab').count()).to.equal(10);
    expect(await dates.getByRole('tab').first().getAttribute('aria-selected')).to.equal('true');
    const cards = page.locator('.pattern-card');
    await cards.first().locator('.live-price strong').waitFor();
    expect(await cards.count()).to.be.above(20);
    expect(await page.locator('.pattern.bullish').count()).to.be.above(0);
    expect(await page.locator('.pattern.bearish').count()).to.be.above(0);
    await page
      .getByText(/^Since [A-Z][a-z]{2} \d+ close/)
      .first()
      .waitFor();

    // A tick moves the first card's live price.
    const first = cards.first();
    const symbol = ((await first.locator('.symbol-chip a').textContent()) ?? '').trim();
    const price = Number(((await first.locator('.live-price strong').textContent()) ?? '').replace(/[^\d.]/g, ''));
    const moved = Math.round(price * 103) / 100;
    await e2e.pushTicks([{ symbol, price: moved, size: 100 }]);
    await first.locator('.live-price.flash-up').waitFor({ timeout: 10_000 });
    const shown = ((await first.locator('.live-price strong').textContent()) ?? '').replace(/,/g, '');
    expect(Number(shown)).to.equal(moved);
    await e2e.screenshot(page, 'analyze');

    const second = dates.getByRole('tab').nth(1);
    await second.click();
    expect(await second.getAttribute('aria-selected')).to.equal('true');
    await cards.first().waitFor();
    expect(await cards.count()).to.be.above(20);

    await page.getByRole('tab', { name: 'Stock list' }).click();
    await page.locator('.ranked-row .js-plotly-plot').first().waitFor();
    expect(await page.locator('.ranked-row').count()).to.equal(15);
    await page.getByRole('button', { name: /^Show more/ }).click();
    await page.locator('.ranked-row').nth(29).waitFor();

    await page.getByRole('tab', { name: 'Pattern statistics' }).click();
    await page.getByRole('gridcell', { name: 'Doji', exact: true }).waitFor();
    expect(await page.getByRole('columnheader', { name: 'Occurrences' }).count()).to.equal(1);
    expect(await page.getByRole('row').count()).to.be.above(10);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('Correlate: picks a sector, shows the heatmap and clusters, and compares the pair of a clicked cell', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'correlate');
    await open(page, errors, '/Correlate');
    await page.getByRole('figure', { name: /^Correlation heatmap of \d+ symbols over 60 trading days/ }).waitFor();
    const energy = await page.evaluate(async () => {
      const sectors = (await (await fetch('/api/sectors')).json()) as { sector: string; symbols: string[] }[];
      return sectors.find((s) => s.sector === 'Energy')?.symbols.length ?? 0;
    });
    await page.getByRole('combobox', { name: /^Sector/ }).selectOption({ label: 'Energy' });
    await page.getByRole('figure', { name: `Correlation heatmap of ${energy} symbols over 60 trading days` }).waitFor();
    await settled(page);
    // One Plotly heatmap trace, a row and a column per symbol, drawn as a heatmap (one image of cells); the chart
    // code loads lazily, so the traces are read once Plotly has drawn the sector's matrix.
    const heatmap = await (
      await page.waitForFunction((rows) => {
        const graph = document.querySelector('.correlate-heatmap .js-plotly-plot') as unknown as {
          data?: { type?: string; z?: number[][] }[];
        } | null;
        const traces = (graph?.data ?? []).map(({ type, z }) => ({ type, rows: z?.length, columns: z?.[0]?.length }));
        return traces.length > 0 && traces[0]!.rows === rows ? traces : false;
      }, energy)
    ).jsonValue();
    expect(heatmap).to.deep.equal([{ type: 'heatmap', rows: energy, columns: energy }]);
    expect(await page.locator('.correlate-heatmap .hm image').count()).to.equal(1);
    await page.getByRole('heading', { name: 'Stocks that move together' }).waitFor();
    expect(await page.locator('.cluster, .cluster-alone').count()).to.be.above(0);

    const plot = page.locator('.correlate-heatmap .nsewdrag').first();
    const box = await plot.boundingBox();
    if (box === null) throw new Error('the heatmap has no plot area');
    // A cell off the diagonal, near the top-right corner: pointed at (its value shows), then clicked.
    const [x, y] = [box.x + box.width * 0.9, box.y + box.height * 0.1];
    await page.mouse.move(x, y);
    await page.locator('.correlate-heatmap .hovertext').waitFor();
    await page.mouse.click(x, y);
    const compare = page.getByRole('article', { name: /rebased to 100$/ });
    await compare.getByRole('figure', { name: /rebased to 100, correlation -?\d\.\d\d/ }).waitFor();
    await compare.locator('.js-plotly-plot').waitFor();
    await e2e.screenshot(page, 'correlate');

    await page.getByRole('group', { name: 'Window (trading days)' }).getByText('250', { exact: true }).click();
    await compare.waitFor({ state: 'detached' });
    await page
      .getByRole('figure', { name: `Correlation heatmap of ${energy} symbols over 250 trading days` })
      .waitFor();
    expect(errors).to.deep.equal([]);
    await context.close();
  });
});
