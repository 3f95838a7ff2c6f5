import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { io as connect, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, QuotesAck, ServerToClientEvents } from '../../domain/contract/socket.ts';
import { formatNumber } from '../../domain/format.ts';
import { marketCapOf, type Quote } from '../../domain/market/types.ts';
import { exportedRows, keepByEscapeThenAskAgain, shownRows, startE2E, type E2E } from './browser.ts';

/** The last price of a symbol, read with the page's session. */
async function lastPrice(page: Page, symbol: string): Promise<number> {
  return page.evaluate(async (s) => {
    const quotes = (await (await fetch(`/api/quotes?symbols=${s}`)).json()) as { price: number }[];
    return quotes[0]?.price ?? 0;
  }, symbol);
}

/** The shares outstanding of a company, as the universe search answers them to the page's session. */
async function sharesOf(page: Page, symbol: string): Promise<number> {
  return page.evaluate(async (s) => {
    const hits = (await (await fetch(`/api/universe?q=${s}`)).json()) as { symbol: string; shares: number }[];
    return hits.find((hit) => hit.symbol === s)?.shares ?? 0;
  }, symbol);
}

/** Dollars as the screens write them: `1,234.50`. */
function dollars(value: number): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

/** Resolves once `socket` has received a quote of each symbol of `prices` at its price there. */
function quotesAt(socket: Socket<ServerToClientEvents, ClientToServerEvents>, prices: Map<string, number>) {
  const left = new Map(prices);
  return new Promise<void>((resolve) => {
    const seen = (quote: Quote) => {
      if (left.get(quote.symbol) === quote.price) left.delete(quote.symbol);
      if (left.size > 0) return;
      socket.off('quote', seen);
      resolve();
    };
    socket.on('quote', seen);
  });
}

/** Waits for the answer to the next save of the company statistics. */
function statsSaved(page: Page) {
  return page.waitForResponse(
    (r) => r.url().endsWith('/personalize/companystats') && r.request().method() === 'POST' && r.ok(),
  );
}

describe('watch list, portfolio and company statistics (Chromium)', function () {
  this.timeout(120_000);
  let e2e: E2E;

  before(async function () {
    this.timeout(300_000);
    e2e = await startE2E();
  });
  after(async () => {
    await e2e?.close();
  });

  it('adds two symbols to the watch list through the search, sees them live, removes one', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'watch');
    await page.goto('/Watchlist');
    await page.getByText('Your watch list is empty: search a symbol to add').waitFor();

    const search = page.getByRole('combobox', { name: 'Add a symbol' });
    await search.fill('NVDA');
    await page.getByRole('option', { name: /NVDA/ }).first().waitFor();
    await search.press('Enter');
    await page.getByRole('row', { name: /NVDA/ }).waitFor();

    // The keyboard: the highlight moves with the arrows, Enter picks it.
    await search.fill('apple');
    const apple = page.getByRole('option', { name: /AAPL.*Apple/ });
    await apple.waitFor();
    await search.press('ArrowDown');
    await search.press('ArrowUp');
    expect(await apple.getAttribute('aria-selected')).to.equal('true');
    await search.press('Enter');
    const appleRow = page.getByRole('row', { name: /AAPL/ });
    await appleRow.waitFor();
    expect(await appleRow.textContent()).to.match(/Apple/);
    await page.waitForFunction(() =>
      [...document.querySelectorAll('.ag-row [col-id="price"]')].every((cell) => /\d\.\d\d/.test(cell.textContent)),
    );

    // A tick moves the price live, flashing green.
    const price = await lastPrice(page, 'AAPL');
    const higher = Math.round(price * 102) / 100;
    await page.getByTestId('connection-banner').waitFor({ state: 'detached' });
    await e2e.pushTicks([{ symbol: 'AAPL', price: higher, size: 100 }]);
    await appleRow.locator('[col-id="price"]').getByText(dollars(higher)).waitFor({ timeout: 10_000 });
    expect(await appleRow.locator('.flash-up').count()).to.be.greaterThan(0);
    await e2e.screenshot(page, 'watchlist');

    // Removal by keyboard: Tab walks from a cell into the controls of the row's last cell.
    await page.getByRole('row', { name: /NVDA/ }).locator('[col-id="volume"]').click();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).to.equal('Statistics');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).to.equal(
      'Remove NVDA from the watch list',
    );
    await page.keyboard.press('Enter');
    await page.getByRole('row', { name: /NVDA/ }).waitFor({ state: 'detached' });
    await page.reload();
    await appleRow.waitFor();
    expect(await page.getByRole('row', { name: /NVDA/ }).count()).to.equal(0);

    await appleRow.getByRole('link', { name: 'Statistics of AAPL' }).click();
    await page.waitForURL('**/CompanyStats?stock=AAPL');
    await page.getByRole('heading', { name: 'Revenue' }).waitFor();
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('moves a market cap on the watch list with a pushed price, without a reload', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'caps');
    await page.goto('/Watchlist');
    await page.getByText('Your watch list is empty: search a symbol to add').waitFor();
    const search = page.getByRole('combobox', { name: 'Add a symbol' });
    await search.fill('KO');
    await page.getByRole('option', { name: /KO/ }).first().waitFor();
    await search.press('Enter');
    const row = page.getByRole('row', { name: /KO/ });
    await row.waitFor();

    const shares = await sharesOf(page, 'KO');
    expect(shares).to.be.above(0);
    const price = await lastPrice(page, 'KO');
    const cap = row.locator('[col-id="marketcap"]');
    const before = formatNumber(marketCapOf(shares, price));
    await cap.getByText(before, { exact: true }).waitFor({ timeout: 10_000 });

    // A tick moves the price, and the market cap with it: shares × the new price, on the same page.
    const higher = Math.round(price * 103) / 100;
    const after = formatNumber(marketCapOf(shares, higher));
    expect(after).to.not.equal(before);
    await page.getByTestId('connection-banner').waitFor({ state: 'detached' });
    await e2e.pushTicks([{ symbol: 'KO', price: higher, size: 100 }]);
    await row.locator('[col-id="price"]').getByText(dollars(higher)).waitFor({ timeout: 10_000 });
    await cap.getByText(after, { exact: true }).waitFor({ timeout: 10_000 });

    // The CSV export says what the grid shows: the price, its change and the percent as formatted on the screen.
    const grid = page.locator('.grid-frame');
    const [headers, ...lines] = await exportedRows(page, grid);
    expect(headers).to.deep.equal([
      'Symbol',
      'Company',
      'Sector',
      'Price',
      'Change',
      '% Change',
      'Market cap',
      'Volume',
    ]);
    expect(lines).to.deep.equal(await shownRows(grid, headers!));
    expect(lines[0]![3]).to.equal(dollars(higher));
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('shows the latest prices on the watch list when the quotes held by a network drop arrive at once', async () => {
    // On `localhost` the Socket.IO client keeps its connection when the browser goes offline (elsewhere it closes it
    // at once), so the quotes sent meanwhile are held and arrive one message after the other once back online, as
    // after a stalled network: 75 of them, more renders in a row than React allows to end with an update waiting.
    const site = e2e.gw.url.replace('127.0.0.1', 'localhost');
    const { page, context, errors } = await e2e.newPage();
    const rounds = 25;
    let quoteMessages = 0;
    let allArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (allArrived = resolve));
    page.on('websocket', (ws) =>
      ws.on('framereceived', ({ payload }) => {
        if (!String(payload).startsWith('42["quote"')) return;
        quoteMessages += 1;
        if (quoteMessages === rounds * 3) allArrived();
      }),
    );
    await page.goto(`${site}/`);
    await page.waitForURL('**/Login');
    await page.getByRole('tab', { name: 'Create account' }).click();
    await page.getByLabel('User name').fill(`burst${Date.now().toString(36)}`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL('**/Dashboard');
    const symbols = ['AAPL', 'MSFT', 'NVDA'];
    const listed = await page.evaluate(async (body) => {
      const res = await fetch('/personalize/createwatchlist', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      return res.status;
    }, JSON.stringify(symbols));
    expect(listed).to.equal(200);
    await page.goto(`${site}/Watchlist`);
    await page.waitForFunction(() => {
      const cells = [...document.querySelectorAll('.ag-row [col-id="price"]')];
      return cells.length === 3 && cells.every((cell) => /\d\.\d\d/.test(cell.textContent));
    });
    await page.getByTestId('connection-banner').waitFor({ state: 'detached' });

    // Another user's socket, following the same symbols, tells when the server has sent each round of prices.
    const watcher = await e2e.gw.user('pace');
    const socket: Socket<ServerToClientEvents, ClientToServerEvents> = connect(e2e.gw.url, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      extraHeaders: { cookie: [...watcher.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    const ack = await new Promise<QuotesAck>((resolve) => socket.emit('quotes:subscribe', { symbols }, resolve));
    expect(ack.ok).to.equal(true);

    const base = new Map<string, number>();
    for (const symbol of symbols) base.set(symbol, await lastPrice(page, symbol));
    await context.setOffline(true);
    quoteMessages = 0;
    let prices = new Map<string, number>();
    for (let round = 1; round <= rounds; round++) {
      prices = new Map(symbols.map((s) => [s, Math.round((base.get(s)! * (1000 + round)) / 10) / 100]));
      const sent = quotesAt(socket, prices);
      await e2e.pushTicks([...prices].map(([symbol, price]) => ({ symbol, price, size: 100 })));
      await sent;
    }
    expect(quoteMessages, 'no quote reaches the page while it is offline').to.equal(0);
    await context.setOffline(false);
    await arrived;

    for (const [symbol, price] of prices) {
      await page
        .getByRole('row', { name: new RegExp(symbol) })
        .locator('[col-id="price"]')
        .getByText(dollars(price))
        .waitFor({ timeout: 15_000 });
    }
    socket.disconnect();
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('adds a portfolio symbol and a lot, and values it live at the pushed price', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'folio');
    await page.goto('/Portfolio');
    await page.getByText(/Your portfolio is empty/).waitFor();

    const search = page.getByRole('combobox', { name: 'Add a symbol to the portfolio' });
    const addSymbol = async (symbol: string) => {
      await search.fill(symbol);
      await page
        .getByRole('option', { name: new RegExp(symbol) })
        .first()
        .waitFor();
      await search.press('Enter');
      const card = page.getByRole('region', { name: `${symbol} position` });
      await card.waitFor();
      return card;
    };
    const card = await addSymbol('MSFT');

    // The form says what is missing before anything is sent.
    await card.getByRole('button', { name: 'Add lot' }).click();
    await card.getByText('Price: enter the price paid per share').waitFor();
    await card.getByText('Quantity: enter the number of shares').waitFor();

    const price = await lastPrice(page, 'MSFT');
    const paid = Math.round(price * 90) / 100;
    await card.getByLabel('Price paid').fill(String(paid));
    await card.getByLabel('Quantity').fill('10');
    await card.getByRole('button', { name: 'Add lot' }).click();
    await card.getByRole('button', { name: /Remove the lot of 10 MSFT/ }).waitFor();
    const msftTotal = card.getByRole('row', { name: 'MSFT total' });
    expect(await msftTotal.textContent()).to.include(dollars(paid * 10));
    expect(await msftTotal.textContent()).to.include(dollars(price * 10));
    expect(await msftTotal.textContent()).to.include(`+${dollars(price * 10 - paid * 10)}`);

    const apple = await addSymbol('AAPL');
    const applePrice = await lastPrice(page, 'AAPL');
    await apple.getByLabel('Price paid').fill(String(Math.round(applePrice * 105) / 100));
    await apple.getByLabel('Quantity').fill('5');
    await apple.getByRole('button', { name: 'Add lot' }).click();
    await apple.getByRole('button', { name: /Remove the lot of 5 AAPL/ }).waitFor();

    const higher = Math.round(price * 105) / 100;
    await page.getByTestId('connection-banner').waitFor({ state: 'detached' });
    await e2e.pushTicks([{ symbol: 'MSFT', price: higher, size: 100 }]);
    await msftTotal.getByText(dollars(higher * 10)).waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('total-market-value').textContent()).to.equal(
      dollars(Math.round((higher * 10 + applePrice * 5) * 100) / 100),
    );
    await page
      .getByRole('figure', { name: /Allocation by market value: (MSFT, AAPL|AAPL, MSFT)/ })
      .locator('.main-svg')
      .first()
      .waitFor();
    await e2e.screenshot(page, 'portfolio');

    await page.reload();
    // A lot's removal asks first too: Escape keeps it, then the removal is confirmed.
    const removeLot = card.getByRole('button', { name: /Remove the lot of 10 MSFT/ });
    await removeLot.click();
    const askLot = card.getByRole('alertdialog', { name: 'Remove this lot?' });
    await askLot
      .getByText(/Remove the lot of 10 MSFT bought \d{4}-\d{2}-\d{2}\? The trade that opened it leaves/)
      .waitFor();
    await keepByEscapeThenAskAgain(page, askLot, removeLot);
    expect(await msftTotal.textContent()).to.include(dollars(paid * 10));
    await askLot.getByRole('button', { name: 'Remove the lot' }).click();
    await card.getByText(/No lots yet/).waitFor();
    // The symbol's too: Keep leaves it, then the removal is confirmed.
    const removeSymbol = card.getByRole('button', { name: 'Remove MSFT from the portfolio' });
    await removeSymbol.click();
    const ask = card.getByRole('alertdialog', { name: 'Remove MSFT?' });
    await ask.getByText('Its transactions go with it.').waitFor();
    await keepByEscapeThenAskAgain(page, ask, removeSymbol);
    await ask.getByRole('button', { name: 'Remove MSFT' }).click();
    await card.waitFor({ state: 'detached' });
    await page.reload();
    await apple.waitFor();
    expect(await card.count()).to.equal(0);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('draws company statistics as bar charts; quarterly, delete and add persist after a reload', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'stats');
    await page.goto('/CompanyStats?stock=MSFT');
    const revenue = page.getByRole('region', { name: 'Revenue' });
    await revenue.getByRole('figure', { name: /Revenue of MSFT, annual, \d+ figures/ }).waitFor();
    for (const title of ['Gross profit', 'Net income', 'Earnings per share']) {
      await page
        .getByRole('region', { name: title })
        .getByRole('figure', { name: /of MSFT, annual/ })
        .waitFor();
    }

    let saved = statsSaved(page);
    await revenue.getByRole('button', { name: 'Quarterly' }).click();
    await revenue.getByRole('figure', { name: /Revenue of MSFT, quarterly, \d+ figures/ }).waitFor();
    await saved;

    saved = statsSaved(page);
    await page.getByRole('button', { name: 'Remove the Net income card' }).click();
    await page.getByRole('region', { name: 'Net income' }).waitFor({ state: 'detached' });
    await saved;

    await page.reload();
    await revenue.getByRole('figure', { name: /Revenue of MSFT, quarterly/ }).waitFor();
    expect(await revenue.getByRole('button', { name: 'Quarterly' }).getAttribute('aria-pressed')).to.equal('true');
    expect(await page.getByRole('region', { name: 'Net income' }).count()).to.equal(0);

    saved = statsSaved(page);
    await page.getByLabel('Add a statistic').selectOption('income');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page
      .getByRole('region', { name: 'Net income' })
      .getByRole('figure', { name: /Net income of MSFT/ })
      .waitFor();
    await saved;
    await page.reload();
    await page
      .getByRole('region', { name: 'Net income' })
      .getByRole('figure', { name: /Net income of MSFT/ })
      .waitFor();
    // The other charts draw after the reload too: wait for the fourth before counting.
    await page
      .getByRole('figure', { name: / of MSFT, / })
      .nth(3)
      .waitFor();
    expect(await page.getByRole('figure', { name: / of MSFT, / }).count()).to.equal(4);

    // Another company through the picker.
    const picker = page.getByRole('combobox', { name: 'Company' });
    await picker.fill('AAPL');
    await page.getByRole('option', { name: /AAPL/ }).first().waitFor();
    await picker.press('Enter');
    await page.waitForURL('**/CompanyStats?stock=AAPL');
    await revenue.getByRole('figure', { name: /Revenue of AAPL, quarterly/ }).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('.stat-card .js-plotly-plot .bars .point').length >= 4);
    await e2e.screenshot(page, 'companystats');

    // On a phone a chart's yearly labels turn rather than run into each other (level ones keep a gap between them),
    // and none is cut at the card's edge.
    await page.setViewportSize({ width: 390, height: 844 });
    const gross = page.getByRole('region', { name: 'Gross profit' });
    await gross.getByRole('figure', { name: /Gross profit of AAPL, annual/ }).waitFor();
    // Plotly draws again on the resize: the check waits for the frame after it rather than for a set time.
    const labelsFit = await gross.evaluate(async (card) => {
      for (let frame = 0; ; frame++) {
        const edge = card.getBoundingClientRect();
        const texts = [...card.querySelectorAll('.xtick text')];
        const boxes = texts.map((text) => text.getBoundingClientRect());
        const turned = texts.every((text) => /rotate\(/.test(text.getAttribute('transform') ?? ''));
        const apart = boxes.every((box, i) => i === 0 || box.left >= boxes[i - 1]!.right + 4);
        const inside = boxes.every((box) => box.left >= edge.left && box.right <= edge.right);
        const fit = boxes.length >= 4 && edge.width < 390 && (turned || apart) && inside;
        if (fit || frame === 120) return fit;
        await new Promise(requestAnimationFrame);
      }
    });
    expect(labelsFit, 'the annual labels apart and inside the card at 390 px').to.equal(true);
    expect(errors).to.deep.equal([]);
    await context.close();
  });
});
