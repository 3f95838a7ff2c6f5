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

  it('Drill: plots the positions, switches to all sectors, drills into one and plots symbols picked in the search', async () => {
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

    // Symbols picked in the search, by Enter and by a click; a chosen one is marked among the matches.
    const search = page.getByRole('combobox', { name: 'Add a symbol' });
    await search.fill('NVDA');
    await page.getByRole('option', { name: /^NVDA/ }).waitFor();
    await search.press('Enter');
    const chosen = page.getByRole('complementary', { name: 'What to plot' });
    await chosen.getByRole('button', { name: 'Remove NVDA' }).waitFor();
    expect(await search.inputValue(), 'the field is emptied after a pick').to.equal('');
    await search.fill('AMD');
    await page.getByRole('option', { name: /^AMD/ }).click();
    await chosen.getByRole('button', { name: 'Remove AMD' }).waitFor();
    const picked = page.getByRole('article', { name: /^Chosen symbols/ });
    await picked.getByRole('button', { name: /^AMD/ }).waitFor();
    expect(await picked.locator('.line-key').count()).to.equal(2);
    await search.fill('NVDA');
    await page.getByRole('option', { name: /^NVDA.*chosen$/ }).waitFor();
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
    // The date's count is of patterns, the filter's of stocks, and the page says which is which.
    const patterns = await cards.locator('.pattern').count();
    const stocks = await cards.count();
    expect(patterns).to.be.above(stocks);
    const tabName = (await dates.getByRole('tab').first().textContent()) ?? '';
    expect(tabName).to.match(new RegExp(`\\b${patterns} patterns$`));
    expect(await page.locator('.pattern-total').textContent()).to.equal(`${patterns} patterns in ${stocks} stocks`);
    await page.getByRole('button', { name: `All stocks (${stocks})` }).waitFor();
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

  it('Analyze: a stream of ticks redraws the live prices in place, at most once a second, creating no element', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'analyzelive');
    await open(page, errors, '/Analyzer');
    await page.waitForFunction(() => {
      const cards = [...document.querySelectorAll('.pattern-card')];
      return cards.length > 20 && cards.every((card) => card.querySelector('.live-price strong') !== null);
    });
    const cards = await page.$$eval('.pattern-card', (all) =>
      all.map((card) => ({
        symbol: (card.querySelector('.symbol-chip a')?.textContent ?? '').trim(),
        price: Number((card.querySelector('.live-price strong')?.textContent ?? '').replace(/,/g, '')),
      })),
    );
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    const nodes = async () => {
      const { metrics } = await cdp.send('Performance.getMetrics');
      return metrics.find((m) => m.name === 'Nodes')?.value ?? Number.NaN;
    };

    // Every change of the cards is recorded, and each redraw of the first card's price with its flash.
    await page.evaluate(() => {
      const grid = document.querySelector('.pattern-cards');
      const first = grid?.querySelector('.pattern-card');
      const tag = first?.querySelector('.live-price');
      if (!grid || !first || !tag) throw new Error('no priced card');
      const record = {
        added: 0,
        redraws: [] as { at: number; text: string; same: boolean; flash: string; time: number }[],
      };
      let last = tag.querySelector('strong')?.textContent ?? '';
      new MutationObserver((mutations) => {
        for (const mutation of mutations) {
          for (const node of mutation.addedNodes) if (node.nodeType === Node.ELEMENT_NODE) record.added += 1;
        }
        const now = first.querySelector('.live-price');
        const text = now?.querySelector('strong')?.textContent ?? '';
        if (text === last) return;
        last = text;
        const animation = now?.getAnimations()[0] as CSSAnimation | undefined;
        record.redraws.push({
          at: performance.now(),
          text,
          same: now === tag,
          flash: animation?.animationName ?? '',
          time: Number(animation?.currentTime ?? 0),
        });
      }).observe(grid, { childList: true, subtree: true, characterData: true, attributes: true });
      (window as unknown as { liveRecord: typeof record }).liveRecord = record;
    });
    const before = await nodes();

    // Rounds of bursts: each moves every card's symbol up 8 times as fast as the feed route takes the ticks, then
    // waits for the first card to show the last price.
    const ROUNDS = 4;
    const BURST = 8;
    const priceAt = (price: number, step: number) => Math.round(price * (1 + step / 1000) * 100) / 100;
    let step = 0;
    for (let round = 1; round <= ROUNDS; round += 1) {
      for (let i = 0; i < BURST; i += 1) {
        step += 1;
        await e2e.pushTicks(cards.map((c) => ({ symbol: c.symbol, price: priceAt(c.price, step), size: 100 })));
      }
      await page.waitForFunction(
        (want) =>
          Number((document.querySelector('.pattern-card .live-price strong')?.textContent ?? '').replace(/,/g, '')) ===
          want,
        priceAt(cards[0]!.price, step),
      );
    }
    await page.waitForFunction(
      (want) =>
        [...document.querySelectorAll('.pattern-card .live-price strong')].every(
          (price, i) => Number((price.textContent ?? '').replace(/,/g, '')) === want[i],
        ),
      cards.map((c) => priceAt(c.price, step)),
    );
    const after = await nodes();
    const { added, redraws } = await page.evaluate(
      () =>
        (
          window as unknown as {
            liveRecord: { added: number; redraws: { at: number; same: boolean; flash: string; time: number }[] };
          }
        ).liveRecord,
    );

    expect(added, 'a price change creates no element').to.equal(0);
    expect(after - before, 'the page holds no more nodes after the ticks').to.be.below(200);
    expect(redraws.length, 'every round is shown').to.be.at.least(ROUNDS);
    for (const [i, redraw] of redraws.entries()) {
      expect(redraw.same, 'the same price element').to.equal(true);
      expect(redraw.flash, 'each move up flashes').to.match(/^flash-up/);
      expect(redraw.time, 'the flash starts again').to.be.below(400);
      // The batches leave at least a second apart; each redraw then waits for the page's turn, which on a busy
      // machine takes up to about a tenth of a second more for one than for the next.
      const previous = redraws[i - 1];
      if (previous) expect(redraw.at - previous.at, 'no two redraws within half a second').to.be.at.least(500);
    }
    const span = redraws.at(-1)!.at - redraws[0]!.at;
    expect(span, 'at most one redraw a second over the stream').to.be.at.least((redraws.length - 1) * 1000 - 250);

    // The page still answers a click.
    await page.getByRole('tab', { name: 'Stock list' }).click();
    await page.locator('.ranked-row').first().waitFor();
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
