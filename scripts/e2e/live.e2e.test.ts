import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { startE2E, type E2E } from './browser.ts';

describe('live connection (Chromium)', function () {
  this.timeout(120_000);
  let e2e: E2E;

  before(async function () {
    e2e = await startE2E();
  });
  after(async () => {
    await e2e?.close();
  });

  /**
   * Creates, with the page's session, a price alert 1% above the price of `symbol` and waits until the engine's
   * index holds it; answers a price that fires it.
   */
  async function armAlert(page: Page, symbol: string): Promise<number> {
    const created = await page.evaluate(async (symbol) => {
      const quotes = (await (await fetch(`/api/quotes?symbols=${symbol}`)).json()) as { price: number }[];
      const price = quotes[0]!.price;
      const response = await fetch('/personalize/stockalerts', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ symbol, close: Math.round(price * 101) / 100, alerttype: 'U' }),
      });
      return { status: response.status, price };
    }, symbol);
    expect(created.status).to.equal(200);
    const { engine, events } = e2e.gw.running.system;
    await engine!.alerts.waitFor(await events.headPosition());
    return Math.round(created.price * 105) / 100;
  }

  /** Pushes the tick that fires an alert through the feed route, and waits until its trigger is durable. */
  async function fire(symbol: string, price: number): Promise<void> {
    await e2e.pushTicks([{ symbol, price, size: 100 }]);
    await e2e.gw.running.system.engine!.alerts.flush();
  }

  /**
   * Cuts the server's side of every live connection at the transport, as a network failure does, and holds the
   * handshakes of the tabs that reconnect (the Socket.IO client in the page does so by itself) until `restore`.
   */
  async function cutConnections(): Promise<{ restore(): void }> {
    const io = e2e.gw.running.realtime!.io;
    let restore!: () => void;
    const restored = new Promise<void>((resolve) => (restore = resolve));
    io.use((_socket, next) => void restored.then(() => next()));
    const sockets = [...io.of('/').sockets.values()];
    const gone = sockets.map((socket) => new Promise((resolve) => socket.once('disconnect', resolve)));
    for (const socket of sockets) socket.conn.close();
    await Promise.all(gone);
    return { restore };
  }

  /** Waits for the badge to show `count` unread, then answers the symbols the bell's panel lists. */
  async function bellShows(page: Page, count: number): Promise<string[]> {
    const badge = page.getByTestId('bell-badge');
    await page.getByLabel(`${count} unread`).waitFor({ timeout: 15_000 });
    expect(await badge.textContent()).to.equal(String(count));
    await page.getByRole('button', { name: 'Notifications' }).click();
    const panel = page.getByRole('dialog', { name: 'Notifications' });
    const symbolCells = panel.locator('.ag-row [col-id="symbol"]');
    await symbolCells.first().waitFor();
    const symbols = await symbolCells.allTextContents();
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    return symbols;
  }

  /** Signs a user up and waits until the bell has read the notifications and the live connection is up. */
  async function signedInTab(prefix: string) {
    const opened = await e2e.newPage();
    const listed = opened.page.waitForResponse((r) => r.url().includes('/personalize/usernotifications/ALL'));
    await e2e.signUp(opened.page, prefix);
    expect((await listed).status()).to.equal(200);
    await opened.page.getByTestId('connection-banner').waitFor({ state: 'detached' });
    return opened;
  }

  it('shows an alert fired while the connection was down once it is back, after an earlier push', async () => {
    const { page, context, errors } = await signedInTab('pushed');
    const before = await armAlert(page, 'AAPL');
    await fire('AAPL', before);
    await page.getByLabel('1 unread').waitFor({ timeout: 15_000 });

    const missed = await armAlert(page, 'MSFT');
    const cut = await cutConnections();
    await page.getByTestId('connection-banner').getByText('disconnected').waitFor();
    await fire('MSFT', missed);
    cut.restore();
    await page.getByTestId('connection-banner').getByText('disconnected').waitFor({ state: 'detached' });

    // A push after the reconnection: whatever the catch-up sent came before it on the same connection.
    const after = await armAlert(page, 'NVDA');
    await fire('NVDA', after);
    expect(await bellShows(page, 3)).to.deep.equal(['NVDA', 'MSFT', 'AAPL']);
    await e2e.screenshot(page, 'bell-after-reconnect');
    expect(errors.filter((e) => !/WebSocket|socket\.io/i.test(e))).to.deep.equal([]);
    await context.close();
  });

  it('shows an alert fired while the connection was down once it is back, with no push before', async () => {
    const { page, context, errors } = await signedInTab('quiet');
    const missed = await armAlert(page, 'XOM');
    const cut = await cutConnections();
    await page.getByTestId('connection-banner').getByText('disconnected').waitFor();
    await fire('XOM', missed);
    cut.restore();
    await page.getByTestId('connection-banner').getByText('disconnected').waitFor({ state: 'detached' });

    const after = await armAlert(page, 'KO');
    await fire('KO', after);
    expect(await bellShows(page, 2)).to.deep.equal(['KO', 'XOM']);
    expect(errors.filter((e) => !/WebSocket|socket\.io/i.test(e))).to.deep.equal([]);
    await context.close();
  });

  it('keeps the panel of the bell within a short window, its list scrolling inside it', async () => {
    const { page, context, errors } = await signedInTab('short');
    for (const symbol of ['AAPL', 'MSFT', 'NVDA', 'KO']) await fire(symbol, await armAlert(page, symbol));
    await page.getByLabel('4 unread').waitFor({ timeout: 15_000 });
    await page.setViewportSize({ width: 1280, height: 300 });
    await page.getByRole('button', { name: 'Notifications' }).click();
    const panel = page.getByRole('dialog', { name: 'Notifications' });
    const lastRow = panel.locator('.ag-row[row-index="3"]').first();
    await lastRow.waitFor({ state: 'attached' });
    const box = await panel.evaluate((el) => ({
      bottom: el.getBoundingClientRect().bottom,
      window: window.innerHeight,
      scrolls: el.scrollHeight > el.clientHeight,
    }));
    expect(box.bottom).to.be.at.most(box.window);
    expect(box.scrolls).to.equal(true);
    // Scrolled to its end, the panel shows its last row inside the window.
    await panel.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    const last = await lastRow.evaluate((el) => el.getBoundingClientRect().bottom);
    expect(last).to.be.at.most(box.window);
    expect(errors).to.deep.equal([]);
    await context.close();
  });
});
