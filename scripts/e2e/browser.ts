/**
 * End-to-end support: the real gateway (embedded adapters, a fresh temporary DATA_DIR, feed tick source) serving
 * the built web app, and a real Chromium driven by playwright-core. Screenshots go to `var/screenshots/`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../../gateway/testing/harness.ts';
import { buildUi } from '../buildUi.ts';

/** Where screenshots are saved (git-ignored). */
export const SCREENSHOT_DIR = resolve(fileURLToPath(new URL('../../var/screenshots', import.meta.url)));

/** The feed token of end-to-end gateways. */
export const E2E_FEED_TOKEN = 'e2e-feed-token-0123456789';

/** Chromium's path: CHROMIUM_PATH or Debian's package. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags that keep Chromium quiet on a closed network. */
export const CHROMIUM_ARGS: readonly string[] = Object.freeze([
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
]);

/** A running gateway and browser. */
export interface E2E {
  readonly gw: TestGateway;
  readonly browser: Browser;
  /** The folder of the web app build this run serves. */
  readonly uiDir: string;
  /**
   * A new browser context (its own cookies) and page; console errors (each with the address it is about) and
   * uncaught exceptions are collected in `errors`, except failed loads of the paths in `expectedErrors`, which the
   * page asks for knowing they may be refused.
   */
  newPage(options?: {
    width?: number;
    height?: number;
    /** A phone's touch screen (taps, as `page.touchscreen.tap` makes them) rather than a mouse. */
    touch?: boolean;
    expectedErrors?: readonly string[];
  }): Promise<{ context: BrowserContext; page: Page; errors: string[] }>;
  /** Pushes ticks through the feed route. */
  pushTicks(ticks: readonly { symbol: string; price: number; size?: number; ts?: number }[]): Promise<void>;
  /** Saves a full-page screenshot as `<name>.png`. */
  screenshot(page: Page, name: string): Promise<void>;
  /** Signs a new user up through the page and waits for the dashboard. */
  signUp(page: Page, prefix?: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * The console errors of a page, each with the address it is about, and its uncaught exceptions, leaving out the
 * console errors about the paths in `expected`.
 */
function collectErrors(page: Page, expected: readonly string[]): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const url = message.location().url;
    if (url && expected.includes(new URL(url).pathname)) return;
    errors.push(`${message.text()} ${url}`.trim());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

/**
 * Creates an alert through the page's session (`POST /personalize/stockalerts` with `body`, as the web app sends
 * it) and answers the HTTP status.
 */
export async function createAlertIn(page: Page, body: Record<string, unknown>): Promise<number> {
  return page.evaluate(async (sent) => {
    const res = await fetch('/personalize/stockalerts', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(sent),
    });
    return res.status;
  }, body);
}

/** The last price of a symbol, read through the page's session (`GET /api/quotes`); throws when it has none. */
export async function lastPriceIn(page: Page, symbol: string): Promise<number> {
  const price = await page.evaluate(async (s) => {
    const quotes = (await (await fetch(`/api/quotes?symbols=${encodeURIComponent(s)}`)).json()) as { price: number }[];
    return quotes[0]?.price;
  }, symbol);
  if (price === undefined) throw new Error(`no quote of ${symbol}`);
  return price;
}

/**
 * Adds a webhook channel through the page's session (`POST /personalize/channels`, as Settings sends it) and
 * answers the HTTP status and the channel's id (undefined when refused).
 */
export async function addWebhookIn(
  page: Page,
  url: string,
  name: string,
): Promise<{ readonly status: number; readonly id: string | undefined }> {
  return page.evaluate(
    async ([hookUrl, hookName]) => {
      const res = await fetch('/personalize/channels', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'webhook', url: hookUrl, name: hookName }),
      });
      return { status: res.status, id: ((await res.json()) as { id?: string }).id };
    },
    [url, name] as const,
  );
}

/**
 * Answers a confirmation bar (`ConfirmBar`) that the button `opener` opened by keeping: checks that Keep has the
 * focus, presses Escape, waits for the bar to close and the focus to be back on `opener`; then opens the bar again,
 * to be confirmed by the caller.
 */
export async function keepByEscapeThenAskAgain(page: Page, bar: Locator, opener: Locator): Promise<void> {
  const focused = (locator: Locator) => locator.evaluate((element) => element === document.activeElement);
  if (!(await focused(bar.getByRole('button', { name: 'Keep' })))) throw new Error('Keep does not have the focus');
  await page.keyboard.press('Escape');
  await bar.waitFor({ state: 'detached' });
  if (!(await focused(opener))) throw new Error('the focus is not back on the button that asked');
  await opener.click();
  await bar.waitFor();
}

/** Builds the app if needed, starts the gateway and launches Chromium. */
export async function startE2E(env: Record<string, string> = {}): Promise<E2E> {
  const uiDir = mkdtempSync(join(tmpdir(), 'sp-ui-'));
  const previousUiDir = process.env.UI_DIR;
  let gw: TestGateway | undefined;
  let browser: Browser;
  try {
    await buildUi(uiDir);
    process.env.UI_DIR = uiDir;
    gw = await startTestGateway({ env: { FEED_TOKEN: E2E_FEED_TOKEN, ...env } });
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS] });
  } catch (error) {
    // Nothing is left behind when the build, the gateway or the browser fails to start.
    await gw?.close();
    rmSync(uiDir, { recursive: true, force: true });
    throw error;
  } finally {
    if (previousUiDir === undefined) delete process.env.UI_DIR;
    else process.env.UI_DIR = previousUiDir;
  }
  const started = gw;
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  let counter = 0;
  return {
    gw: started,
    browser,
    uiDir,
    newPage: async ({ width = 1400, height = 900, touch = false, expectedErrors = [] } = {}) => {
      const context = await browser.newContext({
        baseURL: started.url,
        viewport: { width, height },
        ...(touch ? { hasTouch: true, isMobile: true } : {}),
      });
      const page = await context.newPage();
      return { context, page, errors: collectErrors(page, expectedErrors) };
    },
    pushTicks: async (ticks) => {
      const answer = await fetch(`${started.url}/api/feed/ticks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${E2E_FEED_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(ticks),
      });
      if (!answer.ok) throw new Error(`feed: ${answer.status} ${await answer.text()}`);
    },
    screenshot: async (page, name) => {
      await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
    },
    signUp: async (page, prefix = 'e2e') => {
      counter += 1;
      const username = `${prefix}${Date.now().toString(36)}${counter}`;
      await page.goto('/');
      await page.waitForURL('**/Login');
      await page.getByRole('tab', { name: 'Create account' }).click();
      await page.getByLabel('User name').fill(username);
      await page.getByLabel('Password').fill('correct horse battery');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.waitForURL('**/Dashboard');
      return username;
    },
    close: async () => {
      await browser.close();
      await started.close();
      rmSync(uiDir, { recursive: true, force: true });
    },
  };
}

/** The CSV a grid's Export CSV button downloads, as lines, header first. */
export async function exportedLines(page: Page, grid: Locator): Promise<string[]> {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    grid.getByRole('button', { name: 'Export CSV' }).click(),
  ]);
  return readFileSync(await download.path(), 'utf8')
    .replace(/^\uFEFF/, '')
    .trim()
    .split(/\r?\n/);
}

/** The CSV a grid's Export CSV button downloads, as rows of fields (the grid quotes every field), header first. */
export async function exportedRows(page: Page, grid: Locator): Promise<string[][]> {
  return (await exportedLines(page, grid)).map((line) => line.slice(1, -1).split('","'));
}

/**
 * The text a grid shows in the columns of the headers `headers`, a row of them per row drawn, in the grid's order
 * (a long grid draws the rows in view only).
 */
export async function shownRows(grid: Locator, headers: readonly string[]): Promise<string[][]> {
  return grid.evaluate((root, names) => {
    const ids = names.map((name) => {
      const header = [...root.querySelectorAll('.ag-header-cell')].find(
        (cell) => cell.querySelector('.ag-header-cell-text')?.textContent?.trim() === name,
      );
      return header?.getAttribute('col-id') ?? `(no column ${name})`;
    });
    const indexes = [
      ...new Set([...root.querySelectorAll('.ag-row[row-index]')].map((r) => r.getAttribute('row-index'))),
    ];
    return indexes
      .sort((a, b) => Number(a) - Number(b))
      .map((i) =>
        ids.map((id) => {
          // What the cell says, without its buttons (a symbol's "+" to add it to the watch list).
          const cell = root.querySelector(`.ag-row[row-index="${i}"] [col-id="${id}"]`)?.cloneNode(true) as Element;
          cell?.querySelectorAll('button').forEach((button) => button.remove());
          return cell?.textContent?.trim() ?? '';
        }),
      );
  }, headers);
}
