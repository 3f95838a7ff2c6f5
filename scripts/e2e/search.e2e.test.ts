import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { formatNumber } from '../../domain/format.ts';
import { exportedRows, shownRows, startE2E, type E2E } from './browser.ts';

/** The "Showing N of M" counts above the results grid. */
async function shown(page: Page): Promise<{ rows: number; total: number }> {
  const hint = page.getByText(/Showing \d+ of \d+ matching stocks/);
  await hint.waitFor();
  const match = /Showing (\d+) of (\d+)/.exec((await hint.textContent()) ?? '');
  return { rows: Number(match?.[1]), total: Number(match?.[2]) };
}

/** The symbols of the grid's rendered rows, in order. */
async function gridSymbols(page: Page): Promise<string[]> {
  const links = page.getByRole('grid').getByRole('link', { name: /^[A-Z0-9.-]+$/ });
  await links.first().waitFor();
  return links.allTextContents();
}

/** The names of the saved queries, read through the page's session. */
async function savedNames(page: Page): Promise<string[]> {
  return page.evaluate(async () =>
    ((await (await fetch('/personalize/stockalertquery')).json()) as { queryname: string }[]).map((q) => q.queryname),
  );
}

/** The height of the main container as a fraction of the viewport's. */
async function mainHeight(page: Page): Promise<number> {
  return page
    .getByRole('region', { name: 'Screener' })
    .evaluate((el) => el.getBoundingClientRect().height / window.innerHeight);
}

describe('search page (Chromium)', function () {
  this.timeout(180_000);
  let e2e: E2E;

  before(async function () {
    e2e = await startE2E();
  });
  after(async () => {
    await e2e?.close();
  });

  it('runs a preset, adds clauses, refuses a bad one, saves the query in white in the quick-fill and deletes it', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'search');
    await page.getByRole('menuitem', { name: 'Search', exact: true }).first().click();
    await page.waitForURL('**/StockSearch');
    const first = await shown(page);
    expect(first.rows).to.equal(50);

    await page.getByRole('button', { name: 'Close below 50-day average', exact: true }).click();
    await page.getByRole('button', { name: 'Remove Close below 50-day average' }).waitFor();
    await page.getByRole('grid').getByRole('columnheader', { name: 'SMA 50' }).waitFor();
    const preset = await shown(page);
    expect(preset.rows).to.be.within(1, 50);
    const symbols = await gridSymbols(page);
    const universe = await page.evaluate(async () =>
      ((await (await fetch('/api/universe')).json()) as { symbol: string }[]).map((e) => e.symbol),
    );
    expect(universe).to.include.members(symbols);

    const builder = page.getByRole('form', { name: 'Clause builder' });
    await builder.getByLabel('Type', { exact: true }).selectOption('rsi');
    await builder.getByLabel('Operator', { exact: true }).selectOption('>');
    await builder.getByLabel('Value', { exact: true }).fill('150');
    await builder.getByRole('button', { name: 'Add clause' }).click();
    await builder.getByRole('alert').getByText('Value: must be between 0 and 100 for rsi, got 150').waitFor();
    // A range's refusal names its bound, and marks that one.
    await builder.getByLabel('Operator', { exact: true }).selectOption('bet');
    await builder.getByLabel('From', { exact: true }).fill('50');
    await builder.getByLabel('To', { exact: true }).fill('20');
    await builder.getByRole('button', { name: 'Add clause' }).click();
    await builder.getByRole('alert').getByText('To: must not be below From').waitFor();
    expect(await builder.getByLabel('To', { exact: true }).getAttribute('aria-invalid')).to.equal('true');
    expect(await builder.getByLabel('From', { exact: true }).getAttribute('aria-invalid')).to.equal('false');

    await builder.getByLabel('Type', { exact: true }).selectOption('mcap');
    await builder.getByLabel('Operator', { exact: true }).selectOption('like');
    await builder.getByLabel('Cap class').selectOption('large');
    await builder.getByRole('button', { name: 'Add clause' }).click();
    await page.getByRole('button', { name: 'Remove Market cap is large', exact: true }).waitFor();
    expect(await builder.getByRole('alert').count()).to.equal(0);
    const narrowed = await shown(page);
    expect(narrowed.total).to.be.at.most(preset.total);

    // The industry clause offers the universe's industries as its value is typed.
    await builder.getByLabel('Type', { exact: true }).selectOption('industry');
    const offered = await builder
      .getByLabel('Industry', { exact: true })
      .evaluate((input) => [...((input as HTMLInputElement).list?.options ?? [])].map((o) => o.value));
    const industries = await page.evaluate(async () =>
      ((await (await fetch('/api/universe?limit=1000')).json()) as { industry: string }[]).map((e) => e.industry),
    );
    expect(offered).to.have.length.above(1);
    expect([...offered].sort()).to.deep.equal([...new Set(industries.filter((name) => name !== ''))].sort());
    await builder.getByLabel('Type', { exact: true }).selectOption('rsi');

    const name = `E2E large below SMA 50`;
    await page.getByLabel('Query name').fill(name);
    await page.getByRole('button', { name: 'Save query' }).click();
    const savedEntry = page
      .getByRole('list', { name: 'Presets and saved queries' })
      .getByRole('button', { name, exact: true });
    await savedEntry.waitFor();
    const colours = await savedEntry.evaluate((el) => ({
      text: getComputedStyle(el).color,
      list: getComputedStyle(el.closest('ul')!).backgroundColor,
    }));
    expect(colours.text).to.equal('rgb(255, 255, 255)');
    expect(colours.list).to.equal('rgb(17, 24, 39)');
    expect(await savedNames(page)).to.deep.equal([name]);

    // A name held already, in another case, replaces that query: the form says so before the click.
    const shouting = name.toUpperCase();
    await page.getByLabel('Query name').fill(shouting);
    await page.getByRole('status').getByText(`Replaces the saved query “${name}”`).waitFor();
    await page.getByRole('button', { name: 'Replace query' }).click();
    await page.getByText(`Saved "${shouting}", replacing "${name}"`).waitFor();
    const replaced = page
      .getByRole('list', { name: 'Presets and saved queries' })
      .getByRole('button', { name: shouting, exact: true });
    await replaced.waitFor();
    expect(await savedNames(page)).to.deep.equal([shouting]);
    await page.getByLabel('Query name').fill('E2E another name');
    await page.getByRole('button', { name: 'Save query' }).waitFor();
    expect(await page.getByText(/^Replaces the saved query/).count()).to.equal(0);

    await page.getByLabel('Quick fill').fill('large below');
    await page.getByRole('button', { name: 'Close below 50-day average', exact: true }).waitFor({ state: 'detached' });
    await page.getByRole('button', { name: `Delete saved query ${shouting}` }).click();
    // The ✕ asks first; Keep leaves the query, Delete deletes it.
    const asked = page.getByRole('alertdialog', { name: `Delete saved query ${shouting}?` });
    await asked.getByRole('button', { name: 'Keep' }).click();
    await asked.waitFor({ state: 'detached' });
    expect(await savedNames(page)).to.deep.equal([shouting]);
    await page.getByRole('button', { name: `Delete saved query ${shouting}` }).click();
    await asked.getByRole('button', { name: 'Delete' }).click();
    await replaced.waitFor({ state: 'detached' });
    await page.getByText(`Deleted "${shouting}"`).waitFor();
    expect(await savedNames(page)).to.deep.equal([]);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('sorts every matching stock when a column is sorted, not only the rows shown', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'sorted');
    await page.goto('/StockSearch');
    const before = await shown(page);
    expect(before.rows).to.be.below(before.total);
    // The first rows of every match by the day's change, highest first, as the server sorts them.
    const expected = await page.evaluate(async (limit) => {
      const response = await fetch('/api/screener/run', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: [], limit, sort: { field: 'changepct', dir: 'desc' } }),
      });
      return ((await response.json()) as { rows: { symbol: string }[] }).rows.map((row) => row.symbol);
    }, before.rows);
    const header = page.getByRole('grid').getByRole('columnheader', { name: 'Change %' });
    await header.click();
    await header.click();
    await page.waitForFunction(
      (symbol) => document.querySelector('.ag-row[row-index="0"]')?.textContent?.startsWith(symbol) === true,
      expected[0] ?? '',
    );
    expect((await gridSymbols(page)).slice(0, 5)).to.deep.equal(expected.slice(0, 5));
    expect(await shown(page)).to.deep.equal(before);
    // The RSI column writes two decimals on every row, so its figures line up.
    const rsi = await page.locator('.ag-row .ag-cell[col-id="rsi_14"]').allTextContents();
    expect(rsi).to.have.length.above(0);
    for (const text of rsi) expect(text).to.match(/^(\d+\.\d{2}|n\/a)$/);

    // The CSV export holds the rows in the order sorted, each as the grid shows it (the close and the change too).
    const grid = page.locator('.grid-frame');
    const [headers, ...lines] = await exportedRows(page, grid);
    expect(headers!.slice(0, 4)).to.deep.equal(['Symbol', 'Name', 'Sector', 'Close']);
    const drawn = await shownRows(grid, headers!);
    expect(drawn.length).to.be.above(5);
    expect(lines.slice(0, drawn.length)).to.deep.equal(drawn);
    expect(lines.map((line) => line[0]).slice(0, 5)).to.deep.equal(expected.slice(0, 5));
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('builds sector and performance clauses, shows their columns, and offers the signals', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'search-metrics');
    await page.getByRole('menuitem', { name: 'Search', exact: true }).first().click();
    await page.waitForURL('**/StockSearch');
    await shown(page);
    const presets = page.getByRole('list', { name: 'Presets and saved queries' });
    for (const name of ['Top Gainers', 'Unusual Volume', 'Golden Cross', 'Bullish engulfing']) {
      await presets.getByRole('button', { name, exact: true }).waitFor();
    }

    const builder = page.getByRole('form', { name: 'Clause builder' });
    await builder.getByLabel('Type', { exact: true }).selectOption('sector');
    await builder.getByLabel('Operator', { exact: true }).selectOption('=');
    await builder.getByLabel('Sector', { exact: true }).selectOption('Energy');
    await builder.getByRole('button', { name: 'Add clause' }).click();
    await page.getByRole('button', { name: 'Remove Sector is Energy', exact: true }).waitFor();

    await builder.getByLabel('Type', { exact: true }).selectOption('perf');
    await builder.getByLabel('Period', { exact: true }).selectOption('1M');
    await builder.getByLabel('Operator', { exact: true }).selectOption('bet');
    await builder.getByLabel('From', { exact: true }).fill('-1000');
    await builder.getByLabel('To', { exact: true }).fill('1000');
    await builder.getByRole('button', { name: 'Add clause' }).click();
    await page.getByRole('button', { name: 'Remove Performance 1M between -1000% and 1000%', exact: true }).waitFor();
    await page.getByRole('grid').getByRole('columnheader', { name: 'Performance 1M %' }).waitFor();

    const answer = await page.evaluate(async () => {
      const res = await fetch('/api/screener/run', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: [
            { type: 'sector', op: '=', val: 'Energy' },
            { type: 'perf', param: '1M', op: 'bet', val: [-1000, 1000] },
          ],
          limit: 1000,
        }),
      });
      return (await res.json()) as { rows: { symbol: string; sector: string }[]; total: number };
    });
    expect(answer.total).to.be.above(0);
    expect(answer.rows.every((r) => r.sector === 'Energy')).to.equal(true);
    expect((await shown(page)).total).to.equal(answer.total);
    expect(answer.rows.map((r) => r.symbol)).to.include.members(await gridSymbols(page));

    await builder.getByLabel('Type', { exact: true }).selectOption('atr');
    await builder.getByLabel('Operator', { exact: true }).selectOption('<');
    await builder.getByLabel('Value', { exact: true }).fill('-1');
    await builder.getByRole('button', { name: 'Add clause' }).click();
    await builder.getByRole('alert').getByText('Value: must be at or above 0 for atr ($), got -1').waitFor();
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('shows the bottom container with the clicked row chart at 78vh, hides it at 90vh, and streams prices', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'stream');
    await page.goto('/StockSearch');
    await shown(page);
    expect(await mainHeight(page)).to.be.closeTo(0.9, 0.01);
    await page.getByRole('button', { name: 'Show chart panel' }).click();
    await page.getByRole('region', { name: 'Chart panel' }).getByText('Click a row of the results').waitFor();
    expect(await mainHeight(page)).to.be.closeTo(0.78, 0.01);
    await page.getByRole('button', { name: 'Hide chart panel' }).click();
    expect(await mainHeight(page)).to.be.closeTo(0.9, 0.01);

    const [symbol] = await gridSymbols(page);
    expect(symbol).to.be.a('string');
    const company = await page.evaluate(
      async (s) =>
        ((await (await fetch(`/api/universe?q=${s}`)).json()) as { symbol: string; name: string }[]).find(
          (e) => e.symbol === s,
        )?.name,
      symbol!,
    );
    await page.getByRole('gridcell', { name: company, exact: true }).click();
    const panel = page.getByRole('region', { name: 'Chart panel' });
    await panel.getByRole('figure', { name: `Daily prices of ${symbol} over 3 months` }).waitFor();
    await panel.locator('.js-plotly-plot').waitFor();
    expect(await mainHeight(page)).to.be.closeTo(0.78, 0.01);
    expect(
      await panel.getByRole('list', { name: 'Click context' }).getByRole('button').allTextContents(),
    ).to.deep.equal([`${symbol}clicked`, 'Intraday']);

    await page.getByTestId('connection-banner').waitFor({ state: 'detached' });
    await page.getByRole('switch', { name: 'Stream live' }).check();
    const close = page.getByLabel(`${symbol} close`);
    const before = Number((await close.textContent())?.replace(/[^0-9.]/g, ''));
    const price = Math.round(before * 103) / 100;
    const expected = price < 1000 ? formatNumber(price) : price.toLocaleString('en-US', { maximumFractionDigits: 2 });
    await e2e.pushTicks([{ symbol: symbol!, price, size: 100 }]);
    await page.getByLabel(`${symbol} close`).filter({ hasText: expected }).waitFor({ timeout: 10_000 });
    expect(await page.getByLabel(`${symbol} close`).getAttribute('class')).to.include('flash-up');
    await page.getByText(/· live\./).waitFor();
    await e2e.screenshot(page, 'search');
    expect(errors).to.deep.equal([]);
    await context.close();
  });
});
