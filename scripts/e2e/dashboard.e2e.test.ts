import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { createAlertIn, startE2E, type E2E } from './browser.ts';

/** Calls the API with the page's session; answers the status and the JSON body. */
async function api(page: Page, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  return page.evaluate(
    async ({ method, path, body }) => {
      const response = await fetch(path, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? null : JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status}`);
      return (await response.json()) as unknown;
    },
    { method, path, body },
  );
}

/** Waits until every Plotly chart on the page has drawn. */
async function chartsDrawn(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const charts = [...document.querySelectorAll('.chart')];
    return charts.length > 0 && charts.every((c) => c.querySelector('.main-svg') !== null);
  });
}

/** The shapes of a card's chart: its alert lines and bands. */
async function cardShapes(page: Page, symbol: string): Promise<{ type?: string; y0?: number; y1?: number }[]> {
  return page.evaluate((s) => {
    const card = document.querySelector(`article[aria-label="${s} card"]`);
    const graph = card?.querySelector('.js-plotly-plot') as unknown as {
      layout?: { shapes?: { type?: string; y0?: number; y1?: number }[] };
    } | null;
    return (graph?.layout?.shapes ?? []).map(({ type, y0, y1 }) => ({ type, y0, y1 }));
  }, symbol);
}

/**
 * The rows of the movers panel that are not one line whose every value shows whole (the chip, the price, the
 * change, the volume side by side, none cut or reaching past the row or the panel), each as its text; the number
 * of rows; and by how many pixels the page is wider than the window.
 */
async function moverRowsOffTheirLine(page: Page): Promise<{ rows: number; off: string[]; pageOverflow: number }> {
  return page.getByRole('region', { name: 'Market movers' }).evaluate((panel) => {
    const box = panel.getBoundingClientRect();
    const style = getComputedStyle(panel);
    const right = box.right - parseFloat(style.borderRightWidth) - parseFloat(style.paddingRight);
    const rows = [...panel.querySelectorAll<HTMLElement>('ol.movers > li')];
    const off = rows.filter((row) => {
      const cells = [...row.children] as HTMLElement[];
      const boxes = cells.map((cell) => cell.getBoundingClientRect());
      const oneLine = Math.max(...boxes.map((b) => b.top)) < Math.min(...boxes.map((b) => b.bottom));
      const inOrder = boxes.every((b, i) => i === 0 || b.left >= boxes[i - 1]!.right - 0.5);
      const whole = cells.every((cell) => cell.scrollWidth <= cell.clientWidth);
      const inside = row.scrollWidth <= row.clientWidth && row.getBoundingClientRect().right <= right + 0.5;
      return !(oneLine && inOrder && whole && inside);
    });
    return {
      rows: rows.length,
      off: off.map((row) => [...row.children].map((cell) => (cell.textContent ?? '').trim()).join(' ')),
      pageOverflow: document.documentElement.scrollWidth - window.innerWidth,
    };
  });
}

describe('dashboard (Chromium)', function () {
  this.timeout(180_000);
  let e2e: E2E;

  before(async function () {
    e2e = await startE2E();
  });
  after(async () => {
    await e2e?.close();
  });

  it('adds stocks from the search, shows their live cards, and moves a price with a pushed tick', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'dash');
    await page.getByText('Your dashboard has no stocks yet').waitFor();

    const search = page.getByRole('combobox', { name: 'Symbol or company' });
    await search.fill('NVDA');
    await page.getByRole('option', { name: /^NVDA/ }).click();
    await page.getByRole('article', { name: 'NVDA card' }).waitFor();
    expect(await search.inputValue(), 'the field emptied by the pick').to.equal('');
    // A stock already shown is marked among the matches.
    await search.fill('NVDA');
    expect(await page.getByRole('option', { name: /^NVDA/ }).innerText()).to.contain('on the dashboard');
    await search.fill('AAPL');
    await page.getByRole('option', { name: /^AAPL/ }).waitFor();
    await search.press('Enter');
    const card = page.getByRole('article', { name: 'AAPL card' });
    await card.waitFor();
    // The card's views keep to one row in a card four of which share a 1,280 px screen.
    await page.setViewportSize({ width: 1280, height: 900 });
    const views = await card.getByRole('group', { name: 'AAPL card view' }).evaluate((group) => ({
      group: group.getBoundingClientRect().height,
      button: group.querySelector('button')!.getBoundingClientRect().height,
    }));
    expect(views.group, "the card's views on one row").to.be.below(views.button * 1.5);
    await page.setViewportSize({ width: 1400, height: 900 });
    // The card shows at once; the list is saved a moment later.
    await page.waitForFunction(
      async () => {
        const answer = await fetch('/personalize/dashboardstocks', { credentials: 'same-origin' });
        return JSON.stringify(await answer.json()) === '["NVDA","AAPL"]';
      },
      undefined,
      { polling: 100, timeout: 10_000 },
    );
    expect(await api(page, 'GET', '/personalize/dashboardstocks')).to.deep.equal(['NVDA', 'AAPL']);

    const quotes = (await api(page, 'GET', '/api/quotes?symbols=AAPL')) as { price: number }[];
    const before = quotes[0]!.price;
    const price = card.getByTestId('price-AAPL');
    await page.waitForFunction(
      (text) => document.querySelector('[data-testid="price-AAPL"]')?.textContent === text,
      before.toFixed(2),
    );
    await card.getByText(/^SMA 50 \d+\.\d\d$/).waitFor();
    await page.getByTestId('connection-banner').waitFor({ state: 'detached' });
    const moved = Math.round(before * 102) / 100;
    await e2e.pushTicks([{ symbol: 'AAPL', price: moved, size: 500 }]);
    await page.waitForFunction(
      (text) => document.querySelector('[data-testid="price-AAPL"]')?.textContent === text,
      moved.toFixed(2),
      { timeout: 10_000 },
    );
    expect(await price.getAttribute('class')).to.contain('flash-up');
    expect(await card.locator('.stock-change').getAttribute('class')).to.contain('up');
    // Today's 50-day average at the new price (a tick of a later day than the bars), as the chart and the alerts
    // count it: the sum of the last 49 closes and today's price, over 50.
    const { next } = (await api(page, 'GET', '/api/bars/AAPL?months=3')) as { next: { SMA_50: number } };
    await card.getByText(`SMA 50 ${((next.SMA_50 + moved) / 50).toFixed(2)}`, { exact: true }).waitFor();

    const threshold = (Math.round(moved * 105) / 100).toFixed(2);
    // Conditions of the price against prices, made elsewhere (the builder, the API): on the card's chart too.
    const lower = Math.round(moved * 95) / 100;
    const upper = Math.round(moved * 97) / 100;
    const crossing = Math.round(moved * 102) / 100;
    const channel = { symbol: 'AAPL', condition: { op: 'entering_channel', lower, upper } };
    expect(await createAlertIn(page, channel)).to.equal(200);
    expect(await createAlertIn(page, { symbol: 'AAPL', condition: { op: 'crossing_up', value: crossing } })).to.equal(
      200,
    );
    // Shown at once, with no word of alerts missing from the chart: both are drawn.
    await card.getByRole('button', { name: 'Alert lines' }).click();
    await card
      .locator('.chart')
      .getByText(`▲ ${crossing.toFixed(2)}`, { exact: true })
      .waitFor();
    expect(await card.getByText(/^No price alerts/).count(), 'a hint of alerts not drawn').to.equal(0);
    await card.getByRole('button', { name: 'Add alert' }).click();
    await card.getByLabel('Alert price').fill(threshold);
    await card.getByText('Fires when the price rises to it').waitFor();
    await card.getByRole('button', { name: 'Create alert' }).click();
    await card.locator('.chart').getByText(`▲ ${threshold}`).waitFor();
    await card.locator('.chart').getByText('Enter', { exact: true }).waitFor();
    await card
      .locator('.chart')
      .getByText(`▲ ${crossing.toFixed(2)}`, { exact: true })
      .waitFor();
    expect(await cardShapes(page, 'AAPL'), 'the channel as a band').to.deep.include({
      type: 'rect',
      y0: lower,
      y1: upper,
    });
    expect(await card.getByRole('button', { name: 'Alert lines' }).getAttribute('aria-pressed')).to.equal('true');
    await page
      .getByRole('region', { name: 'Alerts and notifications' })
      .getByText(`Price is at or above ${threshold}`)
      .waitFor();

    await card.getByRole('button', { name: 'Company' }).click();
    await card.getByText('Market cap').waitFor();
    expect(
      await card
        .locator('dd')
        .filter({ hasText: /^\d+(\.\d\d)?[MB]$/ })
        .count(),
    ).to.be.greaterThan(0);
    await page.getByRole('heading', { name: 'Performance over 3 months' }).waitFor();
    await chartsDrawn(page);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it("draws a card's Today from the session's minutes traded before the page opened", async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'today');
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    await e2e.pushTicks([
      { symbol: 'MSFT', price: 401.1, size: 10, ts: minute - 120_000 + 5_000 },
      { symbol: 'MSFT', price: 402.2, size: 10, ts: minute - 60_000 + 5_000 },
    ]);
    await page.getByRole('combobox', { name: 'Symbol or company' }).fill('MSFT');
    await page.getByRole('option', { name: /^MSFT/ }).click();
    const card = page.getByRole('article', { name: 'MSFT card' });
    await card.getByRole('button', { name: 'Today' }).click();
    const line = await page.waitForFunction(
      (element) => {
        const graph = element?.querySelector('.js-plotly-plot') as unknown as { data?: { y?: number[] }[] } | null;
        const y = graph?.data?.[0]?.y ?? [];
        return y.length >= 2 && y[0] === 401.1 ? y.slice(0, 2) : null;
      },
      await card.elementHandle(),
    );
    expect(await line.jsonValue()).to.deep.equal([401.1, 402.2]);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('toggles components in and out of a layout, saved at once, and keeps them after a reload', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'layout');
    await api(page, 'POST', '/personalize/dashboardstocks', ['AAPL', 'MSFT', 'NVDA', 'JPM', 'XOM']);
    await page.reload();
    await page.getByRole('article', { name: 'XOM card' }).waitFor();
    await page.getByRole('heading', { name: 'Alerts and notifications' }).waitFor();

    await page.getByRole('button', { name: 'Components of layout 3' }).click();
    await page.getByRole('checkbox', { name: 'Alerts and notifications' }).uncheck();
    await page.getByRole('checkbox', { name: 'Market movers' }).check();
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Components of layout 1' }).click();
    await page.getByRole('checkbox', { name: 'Latest patterns' }).check();
    await page.keyboard.press('Escape');
    await page.getByRole('heading', { name: 'Alerts and notifications' }).waitFor({ state: 'detached' });
    const movers = page.getByRole('region', { name: 'Market movers' });
    await movers.getByRole('heading', { name: 'Gainers' }).waitFor();
    await page.waitForFunction(async () => {
      const layouts = (await (await fetch('/personalize/dashboard')).json()) as { compId: number[] }[];
      return JSON.stringify(layouts[0]?.compId) === '[1,5]' && JSON.stringify(layouts[2]?.compId) === '[4]';
    });

    await page.reload();
    await movers.getByRole('heading', { name: 'Gainers' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Alerts and notifications' }).count()).to.equal(0);
    await movers
      .getByRole('button', { name: /^Add .+ to the watch list$/ })
      .first()
      .click();
    await page.getByText(/is on your watch list$/).waitFor();
    for (const symbol of ['AAPL', 'MSFT', 'NVDA', 'JPM', 'XOM']) {
      await page.waitForFunction(
        (s) => /^\d+\.\d\d$/.test(document.querySelector(`[data-testid="price-${s}"]`)?.textContent ?? ''),
        symbol,
      );
    }
    await page.getByRole('region', { name: 'Latest patterns' }).locator('.dash-list li').first().waitFor();
    await page.getByText(/is on your watch list$/).waitFor({ state: 'detached' });
    // The whole page in one viewport, so the sticky bottom bar is drawn at the bottom of the picture.
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.setViewportSize({ width: 1400, height });
    await page.evaluate(() => window.scrollTo(0, 0));
    await chartsDrawn(page);
    await page.waitForTimeout(300); // the charts follow the new width on the next frames
    await e2e.screenshot(page, 'dashboard');
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('switches the stock list between the watch list, a sector and the portfolio from the bottom bar', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'source');
    await api(page, 'POST', '/personalize/createwatchlist', ['MSFT', 'XOM']);
    await page.reload();
    const bar = page.getByRole('navigation', { name: 'Where the dashboard stocks come from' });
    await bar.getByRole('button', { name: 'Watch list (2)' }).click();
    await page.getByRole('article', { name: 'XOM card' }).waitFor();
    await page.getByText('2 stocks from your watch list').waitFor();

    const sector = bar.getByLabel('Sector');
    const energyValue = await sector.locator('option', { hasText: /^Energy \(\d+\)$/ }).getAttribute('value');
    await sector.selectOption(energyValue ?? '');
    await page.getByText(/stocks from the Energy sector/).waitFor();
    await page.reload();
    await page.getByText(/stocks from the Energy sector/).waitFor();
    const energy = (await api(page, 'GET', '/personalize/dashboardstocks')) as string[];
    expect(energy.length).to.be.within(1, 30);
    expect(energy).to.include('XOM');

    await bar.getByRole('button', { name: 'Portfolio (0)' }).click();
    await page.getByText('Your dashboard has no stocks yet').waitFor();
    expect(await api(page, 'GET', '/personalize/dashboardstocks')).to.deep.equal([]);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it("keeps the bottom bar to two rows on a phone, and the cards' lowest price labels clear of their dates", async () => {
    const { page, context, errors } = await e2e.newPage({ width: 390, height: 844 });
    await e2e.signUp(page, 'phone');
    await api(page, 'POST', '/personalize/createwatchlist', ['NVDA', 'XOM', 'KO']);
    await page.reload();
    const bar = page.getByRole('navigation', { name: 'Where the dashboard stocks come from' });
    await bar.getByRole('button', { name: 'Watch list (3)' }).click();
    await page.getByRole('article', { name: 'KO card' }).waitFor();
    await chartsDrawn(page);
    // Four rows of 30-odd pixels took about a sixth of the screen; the sources, then the sector and the count.
    const height = (await bar.boundingBox())!.height;
    expect(height, "the bar's height at 390 px").to.be.below(96);
    const countBox = (await bar.getByText('3 of 30 stocks').boundingBox())!;
    const sectorBox = (await bar.getByLabel('Sector').boundingBox())!;
    expect(Math.abs(countBox.y + countBox.height / 2 - (sectorBox.y + sectorBox.height / 2))).to.be.below(8);
    // In each card's chart, the lowest price label ends above the highest point of the dates.
    const gaps = await page.evaluate(() =>
      [...document.querySelectorAll('.stock-card .js-plotly-plot')].map((plot) => {
        const bottoms = [...plot.querySelectorAll('.ytick text')].map((t) => t.getBoundingClientRect().bottom);
        const tops = [...plot.querySelectorAll('.xtick text')].map((t) => t.getBoundingClientRect().top);
        return Math.min(...tops) - Math.max(...bottoms);
      }),
    );
    expect(gaps).to.have.length(3);
    for (const gap of gaps) expect(gap, 'space between the lowest price label and the dates').to.be.at.least(2);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('keeps each market mover to one line, volume included, at 1400 px beside two panels and on a phone', async () => {
    const { page, context, errors } = await e2e.newPage({ width: 1400, height: 900 });
    await e2e.signUp(page, 'movers');
    await api(page, 'POST', '/personalize/dashboard', [{ layoutId: 1, compId: [3, 4, 5] }]);
    const movers = page.getByRole('region', { name: 'Market movers' });
    for (const width of [1400, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto('/Dashboard');
      await page.waitForFunction((w) => window.innerWidth === w, width);
      for (const list of ['.movers-gainers', '.movers-losers', '.movers-active']) {
        await movers.locator(`${list} li`).first().waitFor();
      }
      // The most active show their volume, in millions or billions.
      expect(
        await movers
          .locator('.movers-active .mover-volume')
          .filter({ hasText: /^\d+\.\d\d[MB]$/ })
          .count(),
      ).to.be.greaterThan(0);
      const { rows, off, pageOverflow } = await moverRowsOffTheirLine(page);
      expect(rows, `rows at ${width} px`).to.be.greaterThan(10);
      expect(off, `rows not on one line at ${width} px`).to.deep.equal([]);
      expect(pageOverflow, `the page's sideways scroll at ${width} px`).to.be.at.most(0);
      await e2e.screenshot(page, `dashboard-movers-${width}`);
    }
    expect(errors).to.deep.equal([]);
    await context.close();
  });
});
