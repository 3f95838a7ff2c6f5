import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { startE2E, type E2E } from './browser.ts';

/** The relative luminance (0 black – 1 white) of a colour: `rgb(r, g, b)`, `rgba(…)` or `#rrggbb`. */
function luminance(color: string): number {
  const hex = /^#([\da-f]{2})([\da-f]{2})([\da-f]{2})$/i.exec(color);
  const channels = hex ? hex.slice(1).map((h) => parseInt(h, 16)) : (color.match(/[\d.]+/g) ?? []).map(Number);
  const [r, g, b] = channels.slice(0, 3) as [number, number, number];
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}

/** An instant as the app shows it with seconds: `YYYY-MM-DD HH:MM:SS <label>` in the zone. */
function shownAs(iso: string, timeZone: string, label: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(new Date(iso))
      .map((part) => [part.type, part.value]),
  ) as Record<string, string>;
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second} ${label}`;
}

/** The page's background, the theme written on <html>, and a grid's background. */
async function shown(page: Page, grid: string) {
  return page.evaluate((selector) => {
    const wrapper = document.querySelector(`${selector} .ag-root-wrapper`);
    return {
      theme: document.documentElement.dataset.theme,
      html: getComputedStyle(document.documentElement).backgroundColor,
      grid: wrapper ? getComputedStyle(wrapper).backgroundColor : null,
    };
  }, grid);
}

/** Opens the account menu and picks a choice in it. */
async function pick(page: Page, name: string | RegExp): Promise<void> {
  await page.getByRole('button', { name: 'Account' }).click();
  await page.getByRole('menuitemradio', { name }).click();
  await page.keyboard.press('Escape');
}

/**
 * What of the Analyze screen's latest-pattern cards reaches past its card (the card's padding included), each as
 * `SYMBOL: text`, and by how many pixels the page is wider than the window.
 */
async function cardsPastTheirEdge(page: Page): Promise<{ past: string[]; pageOverflow: number }> {
  return page.evaluate(() => {
    const past: string[] = [];
    for (const card of document.querySelectorAll<HTMLElement>('.pattern-card')) {
      const symbol = card.querySelector('.symbol-chip a')?.textContent ?? '?';
      const box = card.getBoundingClientRect();
      const style = getComputedStyle(card);
      const left = box.left + parseFloat(style.borderLeftWidth) + parseFloat(style.paddingLeft);
      const right = box.right - parseFloat(style.borderRightWidth) - parseFloat(style.paddingRight);
      const lines = [...card.querySelectorAll<HTMLElement>('header, .live-price, .since'), card];
      const wide = lines.find((line) => line.scrollWidth > line.clientWidth);
      const outside = [...card.querySelectorAll<HTMLElement>('*')].find((element) => {
        const r = element.getBoundingClientRect();
        return r.width > 0 && (r.left < left - 0.5 || r.right > right + 0.5);
      });
      const shown = wide ?? outside;
      if (shown) past.push(`${symbol}: ${(shown.textContent ?? '').trim()}`);
    }
    return { past, pageOverflow: document.documentElement.scrollWidth - window.innerWidth };
  });
}

const LAGS = '.maint-lags';

describe('display: dark theme, CSV export of grids, times in the chosen zone (Chromium)', function () {
  this.timeout(180_000);
  let e2e: E2E;

  before(async function () {
    e2e = await startE2E();
  });
  after(async () => {
    await e2e?.close();
  });

  /** A context with its own cookies, the given system colour scheme and zone. */
  async function contextWith(options: { colorScheme?: 'light' | 'dark'; timezoneId?: string }) {
    const context: BrowserContext = await e2e.browser.newContext({
      baseURL: e2e.gw.url,
      viewport: { width: 1400, height: 900 },
      acceptDownloads: true,
      ...options,
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().includes('401')) errors.push(message.text());
    });
    return { context, page, errors };
  }

  it('shows the dark theme, grids included, when the system asks for it, from the first paint', async () => {
    const { context, page, errors } = await contextWith({ colorScheme: 'dark' });
    // What <html> said the first time the theme was written, and whether the page's body had been parsed then
    // (the app's module script runs only after it: a theme written by the app would come after a first paint).
    await context.addInitScript(() => {
      const seen: { theme: string | null; parsed: boolean }[] = [];
      (window as unknown as { themeWrites: typeof seen }).themeWrites = seen;
      new MutationObserver(() => {
        if (seen.length > 0) return;
        seen.push({
          theme: document.documentElement.getAttribute('data-theme'),
          parsed: document.body !== null,
        });
        // The document is observed: it has no <html> element yet when this runs.
      }).observe(document, { attributes: true, subtree: true, attributeFilter: ['data-theme'] });
    });
    await e2e.signUp(page, 'dark');
    await page.goto('/Maint');
    await page.locator(`${LAGS} .ag-root-wrapper`).waitFor();
    const first = await page.evaluate(
      () => (window as unknown as { themeWrites: { theme: string | null; parsed: boolean }[] }).themeWrites[0],
    );
    expect(first, 'the theme is written before the body is parsed').to.deep.equal({ theme: 'dark', parsed: false });
    const dark = await shown(page, LAGS);
    expect(dark.theme).to.equal('dark');
    expect(luminance(dark.html), `page ${dark.html}`).to.be.below(0.15);
    expect(luminance(dark.grid!), `grid ${dark.grid}`).to.be.below(0.15);
    await e2e.screenshot(page, 'maint-dark');

    // The % change charts' lines stand out from the dark cards: none is drawn black (the spec's second colour).
    await page.goto('/SectorPerformance');
    const lines = page.locator('.scatterlayer path.js-line');
    await lines.nth(9).waitFor();
    const strokes = await lines.evaluateAll((paths) => paths.map((path) => getComputedStyle(path).stroke));
    expect(strokes.length).to.be.at.least(10);
    for (const stroke of strokes) expect(luminance(stroke), stroke).to.be.above(0.2);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('switches the theme from the account menu, charts included, and keeps it after a reload', async () => {
    const { context, page, errors } = await contextWith({ colorScheme: 'light' });
    await e2e.signUp(page, 'toggle');
    await page.goto('/Maint');
    await page.locator(`${LAGS} .ag-root-wrapper`).waitFor();
    const light = await shown(page, LAGS);
    expect(light.theme).to.equal('light');
    expect(luminance(light.html)).to.be.above(0.85);
    expect(luminance(light.grid!)).to.be.above(0.85);

    await page.getByRole('button', { name: 'Account' }).click();
    expect(await page.getByRole('menuitemradio', { name: 'System' }).getAttribute('aria-checked')).to.equal('true');
    await page.getByRole('menuitemradio', { name: 'Dark' }).click();
    expect(await page.getByRole('menuitemradio', { name: 'Dark' }).getAttribute('aria-checked')).to.equal('true');
    await page.keyboard.press('Escape');
    const dark = await shown(page, LAGS);
    expect(dark.theme).to.equal('dark');
    expect(luminance(dark.html)).to.be.below(0.15);
    expect(luminance(dark.grid!)).to.be.below(0.15);

    await page.reload();
    await page.locator(`${LAGS} .ag-root-wrapper`).waitFor();
    const reloaded = await shown(page, LAGS);
    expect(reloaded).to.deep.equal(dark);

    // A chart drawn in the dark theme takes the light one's colours when the theme changes.
    await page.goto('/SectorPerformance');
    await page.locator('.perform-card .js-plotly-plot .main-svg').first().waitFor();
    const fontColour = () =>
      page.evaluate(
        () =>
          (
            document.querySelector('.perform-card .js-plotly-plot') as unknown as {
              _fullLayout: { font: { color: string } };
            }
          )._fullLayout.font.color,
      );
    expect(luminance(await fontColour())).to.be.above(0.8);
    await pick(page, 'Light');
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    await page.waitForFunction(
      () =>
        (
          document.querySelector('.perform-card .js-plotly-plot') as unknown as {
            _fullLayout: { font: { color: string } };
          }
        )._fullLayout.font.color !== '#e6edf3',
    );
    expect(luminance(await fontColour())).to.be.below(0.3);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it("draws the price chart's labels on the dark theme's boxes, and the light theme's after a switch", async () => {
    const { context, page, errors } = await contextWith({ colorScheme: 'dark' });
    await e2e.signUp(page, 'labels');
    await page.goto('/PriceCharts?stock=AAPL');
    await page.locator('.plot-container').first().waitFor();
    await page.getByTestId('chart-quote').waitFor();
    const box = await page.locator('.nsewdrag').first().boundingBox();
    if (!box) throw new Error('no plot area');
    await page.mouse.click(box.x + box.width / 2, box.y + box.height * 0.15);
    await page
      .getByRole('dialog', { name: /Add an alert at/ })
      .getByRole('button', { name: '▲ Up (U)' })
      .click();
    const label = page.locator('.plot-container g.annotation', { hasText: /▲ Up \d+\.\d\d/ });
    await label.waitFor();
    // The box behind the label's text, and the text's own colour.
    const colours = () =>
      label.evaluate((g) => ({
        box: getComputedStyle(g.querySelector('rect.bg')!).fill,
        text: getComputedStyle(g.querySelector('text')!).fill,
      }));
    const dark = await colours();
    expect(luminance(dark.box), `box ${dark.box}`).to.be.below(0.15);
    await pick(page, 'Light');
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    await page.waitForFunction(
      (before) =>
        getComputedStyle(document.querySelector('.plot-container g.annotation rect.bg') ?? document.documentElement)
          .fill !== before,
      dark.box,
    );
    const light = await colours();
    expect(luminance(light.box), `box ${light.box}`).to.be.above(0.85);
    expect(light.text, 'the label keeps its line colour').to.equal(dark.text);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it("exports a grid as CSV: the grid's columns, its rows, a file named after the table and the date", async () => {
    const { context, page, errors } = await contextWith({});
    await e2e.signUp(page, 'csv');
    await page.goto('/Maint');
    const lags = page.getByRole('region', { name: 'Projection lags' });
    await lags.getByText('watchlist', { exact: true }).waitFor();
    const headers = await lags.locator('.ag-header-cell-text').allTextContents();
    const rows = new Set(
      await lags.locator('.ag-row[row-index]').evaluateAll((r) => r.map((e) => e.getAttribute('row-index'))),
    ).size;
    expect(rows).to.be.greaterThan(5);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      lags.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).to.match(/^projections-\d{4}-\d{2}-\d{2}\.csv$/);
    const lines = readFileSync(await download.path(), 'utf8')
      .trim()
      .split(/\r?\n/);
    expect(lines[0]).to.equal(headers.map((h) => `"${h}"`).join(','));
    expect(lines.length - 1, 'a line per row').to.equal(rows);
    // Formatted values: the state column says what the grid shows, not the boolean behind it.
    expect(lines.slice(1).some((line) => line.includes('"up to date"'))).to.equal(true);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('labels times with their zone and switches them between market and local time, kept after a reload', async () => {
    const { context, page, errors } = await contextWith({ timezoneId: 'Asia/Tokyo' });
    await e2e.signUp(page, 'zones');
    await e2e.pushTicks([{ symbol: 'AAPL', price: 101.25, size: 100 }]);
    await page.goto('/Maint');
    const updated = page.getByTestId('maint-updated');
    await updated.waitFor();
    expect(await updated.textContent()).to.match(/^\d{2}:\d{2}:\d{2} ET \(every/);
    expect(await page.getByTestId('market-label').textContent()).to.match(/ · times in ET$/);
    const lastTick: string | null = await page.evaluate(
      async () =>
        ((await (await fetch('/api/maint/status')).json()) as { market: { lastTick: string | null } }).market.lastTick,
    );
    expect(lastTick).to.be.a('string');
    const tickRow = page.locator('dt', { hasText: 'Last tick' }).locator('xpath=following-sibling::dd[1]');
    await tickRow.getByText(shownAs(lastTick!, 'America/New_York', 'ET'), { exact: true }).waitFor();

    await page.getByRole('button', { name: 'Account' }).click();
    expect(await page.getByRole('menuitemradio', { name: /^Market time/ }).getAttribute('aria-checked')).to.equal(
      'true',
    );
    await page.getByRole('menuitemradio', { name: 'Local time (GMT+9)' }).click();
    await page.keyboard.press('Escape');
    // Tokyo keeps no daylight time: nine hours ahead of UTC all year.
    const tokyo = `${new Date(Date.parse(lastTick!) + 9 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ')} GMT+9`;
    await tickRow.getByText(tokyo, { exact: true }).waitFor();
    await updated.getByText(/^\d{2}:\d{2}:\d{2} GMT\+9 \(every/).waitFor();
    expect(await page.getByTestId('market-label').textContent()).to.match(/ · times in GMT\+9$/);

    await page.reload();
    await tickRow.getByText(tokyo, { exact: true }).waitFor();
    await pick(page, 'Market time (ET)');
    await tickRow.getByText(shownAs(lastTick!, 'America/New_York', 'ET'), { exact: true }).waitFor();
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it("draws the price chart's 1D axis in the chosen zone, titled with it, and labels daily dates as New York trading days", async () => {
    const { context, page, errors } = await contextWith({ timezoneId: 'Europe/Paris' });
    await e2e.signUp(page, 'chartzone');
    await page.goto('/PriceCharts?stock=AAPL');
    await page.locator('.plot-container').first().waitFor();
    const axis = () =>
      page.evaluate(() => {
        const graph = document.querySelector('.js-plotly-plot') as unknown as {
          data?: { type?: string; x?: string[] }[];
          layout?: { xaxis?: { title?: { text?: string } } };
        } | null;
        return {
          title: graph?.layout?.xaxis?.title?.text ?? null,
          x: graph?.data?.find((t) => t.type === 'candlestick')?.x ?? [],
          ticks: [...document.querySelectorAll('.xaxislayer-above .xtick text')].map((t) => t.textContent ?? ''),
        };
      });
    const titled = (text: string) =>
      page.waitForFunction(
        (wanted) =>
          (
            document.querySelector('.js-plotly-plot') as unknown as {
              layout?: { xaxis?: { title?: { text?: string } } };
            }
          )?.layout?.xaxis?.title?.text === wanted,
        text,
      );
    await titled('Date (New York trading day)');

    await page.getByRole('group', { name: 'Duration' }).getByRole('button', { name: '1D' }).click();
    await titled('Time (New York)');
    await page.getByTestId('chart-quote').waitFor();
    await e2e.pushTicks([{ symbol: 'AAPL', price: 101.25, size: 100 }]);
    await page.waitForFunction(() => {
      const graph = document.querySelector('.js-plotly-plot') as unknown as {
        data?: { type?: string; close?: number[] }[];
      };
      return graph.data?.find((t) => t.type === 'candlestick')?.close?.includes(101.25) === true;
    });
    const market = await axis();
    expect(market.x.length).to.be.greaterThan(0);
    expect(market.ticks.length).to.be.greaterThan(0);
    // The previous close, the day's reference, is on the axis however far the day's candles are from it.
    const reference = await page
      .locator('.js-plotly-plot')
      .first()
      .evaluate((graph) => {
        const plot = graph.querySelector('.nsewdrag')!.getBoundingClientRect();
        const label = [...graph.querySelectorAll('.annotation')].find((a) =>
          (a.textContent ?? '').startsWith('Previous close'),
        );
        const box = label?.getBoundingClientRect();
        return box !== undefined && box.height > 0 && box.top >= plot.top - 1 && box.bottom <= plot.bottom + 1;
      });
    expect(reference, 'the previous close inside the plot').to.equal(true);

    await pick(page, /^Local time/);
    await titled('Time (Europe/Paris)');
    const paris = await axis();
    // The same instants, read on Paris' clock: New York's offset from Paris now (six hours most of the year).
    const wall = (zone: string) => {
      const parts = Object.fromEntries(
        new Intl.DateTimeFormat('en-US', {
          timeZone: zone,
          hourCycle: 'h23',
          year: 'numeric',
          month: '2-digit',
          day: '2-digit',
          hour: '2-digit',
          minute: '2-digit',
        })
          .formatToParts(new Date())
          .map((p) => [p.type, p.value]),
      ) as Record<string, string>;
      return Date.parse(`${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:00Z`);
    };
    const shift = wall('Europe/Paris') - wall('America/New_York');
    const asUtc = (text: string) => Date.parse(`${text.replace(' ', 'T')}:00Z`);
    // A live quote may start a new minute between the two reads: the candles read before come first, unchanged.
    const shifted = paris.x.map((x) => asUtc(x) - shift);
    expect(shifted.slice(0, market.x.length)).to.deep.equal(market.x.map(asUtc));
    expect(shifted.length - market.x.length, 'at most a minute begun since').to.be.within(0, 1);
    expect(paris.ticks, 'the tick labels moved with the zone').to.not.deep.equal(market.ticks);

    await pick(page, 'Market time (ET)');
    await titled('Time (New York)');
    const back = (await axis()).x;
    expect(back.slice(0, market.x.length)).to.deep.equal(market.x);
    expect(back.length - market.x.length, 'at most two minutes begun since').to.be.within(0, 2);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it("fits each latest-pattern card's price and changes in its card, from a phone to a laptop", async () => {
    const { context, page, errors } = await contextWith({});
    await e2e.signUp(page, 'cards');
    await page.goto('/Analyzer');
    // Every card priced: its live price, and its change since the date.
    await page.waitForFunction(() => {
      const cards = [...document.querySelectorAll('.pattern-card')];
      return (
        cards.length > 20 &&
        cards.every((card) => card.querySelector('.live-price strong') && card.querySelector('.since strong'))
      );
    });
    // The widest head a card can have: a price in thousands, its change in thousands and percent in thousands.
    const last = page.locator('.pattern-card').last();
    const symbol = ((await last.locator('.symbol-chip a').textContent()) ?? '').trim();
    const price = Number(((await last.locator('.live-price strong').textContent()) ?? '').replace(/,/g, ''));
    const soared = Math.round(price * 3000) / 100;
    await e2e.pushTicks([{ symbol, price: soared, size: 100 }]);
    await last
      .locator('.live-price strong')
      .getByText(soared.toLocaleString('en-US', { minimumFractionDigits: 2 }))
      .waitFor();
    await last
      .locator('.since strong')
      .filter({ hasText: /^\+[\d,]+\.\d\d \(\+[\d,]+\.\d\d%\)$/ })
      .waitFor();

    // From a laptop's four cards to a row, through the narrowest cards (three to a row at 900 px), to a phone.
    for (const width of [1400, 1280, 900, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForFunction((w) => window.innerWidth === w, width);
      const { past, pageOverflow } = await cardsPastTheirEdge(page);
      expect(past, `cards whose text reaches past them at ${width} px`).to.deep.equal([]);
      expect(pageOverflow, `the page's sideways scroll at ${width} px`).to.be.at.most(0);
    }
    expect(errors).to.deep.equal([]);
    await context.close();
  });
});
