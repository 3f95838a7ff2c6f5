import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleSizes } from '../buildUi.ts';
import type { Page } from 'playwright-core';
import { startE2E, type E2E } from './browser.ts';

/** Every path the app routes (the route table imports the screens' code, so its paths are read as text). */
function screenPaths(): string[] {
  const routes = readFileSync(fileURLToPath(new URL('../../ui/app/routes.ts', import.meta.url)), 'utf8');
  const paths = [...routes.matchAll(/path: '(\/\w+)'/g)].map((match) => match[1]!);
  expect(paths).to.include.members(['/Dashboard', '/Portfolio', '/Alerts', '/Settings']);
  return paths;
}

/** Lots, a watch list and an alert for the signed-in user: the screens show their tables rather than empty states. */
async function seedLists(page: Page): Promise<void> {
  await page.evaluate(`(async () => {
    const post = async (url, body) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!response.ok) throw new Error(url + ': ' + response.status);
    };
    await post('/personalize/createwatchlist', ['AAPL', 'MSFT', 'NVDA']);
    await post('/personalize/userstockportfolio', ['AAPL', 'MSFT']);
    await post('/personalize/userPositions/AAPL', [
      { date: '2024-06-03', close: 190.12, position: 15 },
      { date: '2024-09-03', close: 220.5, position: 5 },
    ]);
    // A sector of the longest name taken: its select must not widen Drill or Correlate.
    await post('/personalize/sectors', { name: 'Semiconductor equipment and materials 40' });
    await post('/personalize/stockalerts', {
      symbol: 'AAPL',
      condition: { op: 'entering_channel', lower: 150, upper: 160 },
      frequency: 'every_time',
      note: 'Add to the position on the way into the range, stop under 148',
    });
  })()`);
}

/** What a screen shows once its data is in (besides no loading skeleton left). */
const LOADED: Readonly<Record<string, string>> = {
  '/Portfolio': 'table.lots tbody tr',
  '/Watchlist': '.ag-row',
  '/Alerts': '.ag-row',
  '/PriceCharts': '.plot-container',
};

/** Opens a screen (the price chart on AAPL) and waits for its heading, its data and no skeleton left. */
async function openLoaded(page: Page, path: string): Promise<void> {
  await page.goto(path === '/PriceCharts' ? `${path}?stock=AAPL` : path);
  await page.locator('h1').first().waitFor();
  const ready = LOADED[path];
  if (ready !== undefined) await page.locator(ready).first().waitFor();
  await page.waitForFunction(() => document.querySelector('[aria-busy="true"]') === null);
}

describe('web app shell (Chromium)', function () {
  this.timeout(120_000);
  let e2e: E2E;

  before(async function () {
    e2e = await startE2E();
  });
  after(async () => {
    await e2e?.close();
  });

  it('sends a signed-out visitor to /Login and shows a wrong password in place without a reload', async () => {
    const { page, context } = await e2e.newPage();
    await page.goto('/Dashboard');
    await page.waitForURL('**/Login');
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    await page.getByLabel('User name').fill('nobody_here');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Wrong user name or password').waitFor();
    const marker = await page.evaluate(() => (window as unknown as { marker?: number }).marker);
    expect(marker, 'the page did not reload').to.equal(42);
    await e2e.screenshot(page, 'login');

    // A refusal of the form's own checks marks the field it names, described by it; a wrong pair marks neither.
    const name = page.getByLabel('User name');
    expect(await name.getAttribute('aria-invalid')).to.equal(null);
    await page.getByRole('tab', { name: 'Create account' }).click();
    await name.fill('Bad Name');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('User name: 3 to 32 characters of a-z, 0-9, _ . -').waitFor();
    expect(await name.getAttribute('aria-invalid')).to.equal('true');
    expect(await name.getAttribute('aria-describedby')).to.equal('login-error');
    expect(await page.getByLabel('Password').getAttribute('aria-invalid')).to.equal(null);

    // The server's refusal of one field (a password longer than any allowed) is that field's, in the form's words.
    await page.getByRole('tab', { name: 'Sign in' }).click();
    await name.fill('nobody_here');
    await page.getByLabel('Password').fill('x'.repeat(129));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Password: must be at most 128 characters', { exact: true }).waitFor();
    expect(await page.getByLabel('Password').getAttribute('aria-invalid')).to.equal('true');
    expect(await name.getAttribute('aria-invalid')).to.equal(null);
    await context.close();
  });

  it('brings a visitor sent to sign in back to the page and query they opened, never off the app', async () => {
    const { page, context, errors } = await e2e.newPage();
    const username = await e2e.signUp(page, 'back');
    const origin = new URL(e2e.gw.url).origin;
    const signIn = async () => {
      await page.getByLabel('User name').fill(username);
      await page.getByLabel('Password').fill('correct horse battery');
      await page.getByRole('button', { name: 'Sign in' }).click();
    };

    // A bookmarked page opened signed out: the sign-in page names it, and the sign-in opens it.
    await context.clearCookies();
    await page.goto('/Watchlist');
    await page.waitForURL((url) => url.pathname === '/Login' && url.searchParams.get('next') === '/Watchlist');
    await signIn();
    await page.waitForURL((url) => url.pathname === '/Watchlist');
    await page.getByRole('heading', { level: 1, name: 'Watch list' }).waitFor();
    expect(new URL(page.url()).search).to.equal('');

    // Its query too.
    await context.clearCookies();
    await page.goto('/PriceCharts?stock=MSFT');
    await page.waitForURL(
      (url) => url.pathname === '/Login' && url.searchParams.get('next') === '/PriceCharts?stock=MSFT',
    );
    await signIn();
    await page.waitForURL((url) => url.pathname + url.search === '/PriceCharts?stock=MSFT');
    await page.getByRole('heading', { level: 1 }).filter({ hasText: 'MSFT' }).waitFor();

    // A `next` naming another site, or no page of the app, leads to the dashboard on this origin.
    for (const next of [
      '//evil.example/Watchlist',
      'https://evil.example/Watchlist',
      '/\\evil.example',
      '/NoSuchPage',
    ]) {
      await context.clearCookies();
      await page.goto(`/Login?next=${encodeURIComponent(next)}`);
      await signIn();
      await page.waitForURL((url) => url.pathname === '/Dashboard');
      expect(new URL(page.url()).origin, next).to.equal(origin);
    }
    expect(errors.filter((e) => !e.includes('401'))).to.deep.equal([]);
    await context.close();
  });

  it('signs up, shows the avatar initial and the menu, gets a notification live in the bell, and logs out', async () => {
    const { page, context, errors } = await e2e.newPage();
    const username = await e2e.signUp(page, 'shell');
    expect(await page.getByRole('button', { name: 'Account' }).textContent()).to.equal(
      username.slice(0, 1).toUpperCase(),
    );
    for (const label of ['Search', 'Sectors', 'Perform', 'Drill', 'Predict', 'Analyze', 'Correlate', 'Maint', 'Art']) {
      expect(await page.getByRole('menuitem', { name: label, exact: true }).count(), label).to.be.greaterThan(0);
    }
    // An alert just above the last price, created through the API with the page's session.
    const created = await page.evaluate(async () => {
      const quotes = (await (await fetch('/api/quotes?symbols=AAPL')).json()) as { price: number }[];
      const price = quotes[0]?.price ?? 100;
      const response = await fetch('/personalize/stockalerts', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ symbol: 'AAPL', close: Math.round(price * 101) / 100, alerttype: 'U' }),
      });
      return { status: response.status, price };
    });
    expect(created.status).to.equal(200);
    await page.getByTestId('connection-banner').waitFor({ state: 'detached' });
    await e2e.pushTicks([{ symbol: 'AAPL', price: Math.round(created.price * 105) / 100, size: 100 }]);
    const badge = page.getByTestId('bell-badge');
    await badge.waitFor({ timeout: 10_000 });
    expect(await badge.textContent()).to.equal('1');

    await page.getByRole('button', { name: 'Notifications' }).click();
    const panel = page.getByRole('dialog', { name: 'Notifications' });
    await panel.getByText('AAPL').first().waitFor();
    expect(await panel.getByText('Price').count()).to.be.greaterThan(0);
    expect(await panel.locator('.indicator.up').count()).to.equal(1);
    await e2e.screenshot(page, 'bell');
    expect(await badge.count(), 'opening marks them read').to.equal(0);
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Account' }).click();
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await page.waitForURL('**/Login');
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'initial')?.value ?? '').to.equal('');
    expect(await page.evaluate(async () => (await fetch('/api/loggedinstatus')).json() as Promise<boolean>)).to.equal(
      false,
    );
    expect(errors.filter((e) => !e.includes('401'))).to.deep.equal([]);
    await context.close();
  });

  it('changes the password from the settings screen, which signs the other browser out', async () => {
    const { page, context, errors } = await e2e.newPage();
    const username = await e2e.signUp(page, 'pass');
    const other = await e2e.newPage();
    await other.page.goto('/Login');
    await other.page.getByLabel('User name').fill(username);
    await other.page.getByLabel('Password').fill('correct horse battery');
    await other.page.getByRole('button', { name: 'Sign in' }).click();
    await other.page.waitForURL('**/Dashboard');
    await other.page.getByTestId('connection-banner').waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Account' }).click();
    await page.getByRole('menuitem', { name: 'Settings' }).click();
    await page.waitForURL('**/Settings');
    const card = page.getByRole('region', { name: 'Account' });
    await card.getByLabel('Current password').waitFor();
    // Each field's name is shown above it, not only as a placeholder that typing hides.
    for (const name of ['Current password', 'New password', 'New password, again']) {
      expect(await card.getByText(name, { exact: true }).isVisible(), name).to.equal(true);
    }
    await card.getByLabel('Current password').fill('correct horse battery');
    await card.getByLabel('New password', { exact: true }).fill('a longer horse battery');
    await card.getByLabel('New password, again').fill('a longer horse batery');
    await card.getByRole('button', { name: 'Change password' }).click();
    await card.getByText('New password, again: does not match the new password').waitFor();
    await card.getByRole('button', { name: 'Dismiss' }).click();
    await card.getByLabel('New password, again').fill('a longer horse battery');
    await card.getByRole('button', { name: 'Change password' }).click();
    await card.getByText('Password changed. 1 other session was signed out.').waitFor();
    expect(await card.getByLabel('Current password').inputValue(), 'the fields are emptied').to.equal('');
    await e2e.screenshot(page, 'settings-account');

    // The other browser's session ended: the server closed its socket, and it went to sign in without a request
    // of its own, where only the new password works.
    await other.page.waitForURL('**/Login');
    await other.page.getByRole('button', { name: 'Sign in' }).waitFor();
    await other.page.getByLabel('User name').fill(username);
    await other.page.getByLabel('Password').fill('correct horse battery');
    await other.page.getByRole('button', { name: 'Sign in' }).click();
    await other.page.getByText('Wrong user name or password').waitFor();
    await other.page.getByLabel('Password').fill('a longer horse battery');
    await other.page.getByRole('button', { name: 'Sign in' }).click();
    await other.page.waitForURL('**/Dashboard');
    expect(errors).to.deep.equal([]);
    expect(other.errors.filter((e) => !e.includes('401'))).to.deep.equal([]);
    await other.context.close();
    await context.close();
  });

  it('opens a page typed by its menu name at its own address, and offers every page at an unknown one', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'typed');
    // The menu says Drill, the page's address is /Charting; the screen's title names the price chart.
    await page.goto('/drill');
    await page.waitForURL((url) => url.pathname === '/Charting');
    expect(await page.title()).to.equal('Drill · StockPulse');
    // The query goes along.
    await page.goto('/PriceChart?stock=MSFT');
    await page.waitForURL((url) => url.pathname === '/PriceCharts' && url.search === '?stock=MSFT');
    expect(await page.title()).to.equal('Price chart · StockPulse');
    // A symbol typed in the path opens that symbol's chart, and its company statistics.
    await page.goto('/PriceChart/nvda');
    await page.waitForURL((url) => url.pathname === '/PriceCharts' && url.search === '?stock=NVDA');
    await page.getByRole('heading', { name: /NVDA/ }).first().waitFor();
    await page.goto('/CompanyStats/AAPL');
    await page.waitForURL((url) => url.pathname === '/CompanyStats' && url.search === '?stock=AAPL');
    // An address that names no page says so and links to each page.
    await page.goto('/Analyse');
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    const pages = page.getByRole('navigation', { name: 'Pages' });
    expect(await pages.getByRole('link').count()).to.be.at.least(15);
    await pages.getByRole('link', { name: 'Analyze' }).click();
    await page.waitForURL((url) => url.pathname === '/Analyzer');
    expect(await page.title()).to.equal('Analyze · StockPulse');
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('collapses the menu into a dropdown on a narrow screen, usable with the keyboard', async () => {
    const { page, context } = await e2e.newPage({ width: 600, height: 800 });
    await e2e.signUp(page, 'narrow');
    expect(await page.getByRole('menubar').isVisible()).to.equal(false);
    const button = page.getByRole('button', { name: 'Menu' });
    const menu = page.getByRole('menu', { name: 'Main' });
    const focused = page.locator(':focus');
    await button.focus();
    await page.keyboard.press('Enter');
    await menu.getByRole('menuitem', { name: 'Art' }).waitFor();
    await e2e.screenshot(page, 'narrow-menu');
    // Opened on the page shown (the dashboard is none of them: the first); the arrows move through the items,
    // wrapping; Escape goes back to the button.
    await menu.getByRole('menuitem').first().and(focused).waitFor();
    await page.keyboard.press('ArrowUp');
    await menu.getByRole('menuitem').last().and(focused).waitFor();
    await page.keyboard.press('Home');
    await menu.getByRole('menuitem').first().and(focused).waitFor();
    await page.keyboard.press('ArrowDown');
    await menu.getByRole('menuitem').nth(1).and(focused).waitFor();
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    await button.and(focused).waitFor();
    await context.close();
  });

  it('moves through the account menu with the arrow keys, Home and End, and closes it by Escape back to the avatar or by a click outside', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'account');
    const focused = page.locator(':focus');
    const avatar = page.getByRole('button', { name: 'Account' });
    const menu = page.getByRole('menu', { name: 'Account' });
    /** Waits for the focus to be on the account menu's item `name`. */
    const focusOn = (role: 'menuitem' | 'menuitemradio', name: string | RegExp) =>
      menu.getByRole(role, { name }).and(focused).waitFor();

    await avatar.focus();
    await page.keyboard.press('Enter');
    await menu.waitFor();
    expect(await avatar.getAttribute('aria-expanded')).to.equal('true');
    // It opens on the chosen theme.
    await focusOn('menuitemradio', 'System');
    await page.keyboard.press('ArrowDown');
    await focusOn('menuitemradio', 'Light');
    await page.keyboard.press('ArrowDown');
    await focusOn('menuitemradio', 'Dark');
    await page.keyboard.press('ArrowDown');
    await focusOn('menuitemradio', /^Market time/);
    await page.keyboard.press('ArrowUp');
    await focusOn('menuitemradio', 'Dark');
    await page.keyboard.press('End');
    await focusOn('menuitem', 'Logout');
    // Past either end it wraps round.
    await page.keyboard.press('ArrowDown');
    await focusOn('menuitemradio', 'System');
    await page.keyboard.press('ArrowUp');
    await focusOn('menuitem', 'Logout');
    await page.keyboard.press('Home');
    await focusOn('menuitemradio', 'System');

    // Escape closes it and gives the focus back to the avatar, where Enter opens it again.
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    await avatar.and(focused).waitFor();
    expect(await avatar.getAttribute('aria-expanded')).to.equal('false');
    await page.keyboard.press('Enter');
    await focusOn('menuitemradio', 'System');

    // A click outside closes it too.
    await page.locator('h1').first().click();
    await menu.waitFor({ state: 'detached' });
    expect(await avatar.getAttribute('aria-expanded')).to.equal('false');
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it("fits every screen in a 390 px phone's width, with a portfolio, a watch list and alerts: none scrolls sideways", async () => {
    const { page, context, errors } = await e2e.newPage({ width: 390, height: 844 });
    await e2e.signUp(page, 'phone');
    await seedLists(page);
    const wide: string[] = [];
    const covered: string[] = [];
    for (const path of screenPaths()) {
      await openLoaded(page, path);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      if (width > 390) wide.push(`${path}: ${width} px`);
      // The market's label sits under the screen, covering none of it.
      const overlap = await page.evaluate<number>(`(() => {
        const label = document.querySelector('[data-testid="market-label"]');
        if (!label) return 0;
        return Math.max(0, Math.round(document.querySelector('main').getBoundingClientRect().bottom -
          label.getBoundingClientRect().top));
      })()`);
      if (overlap > 0) covered.push(`${path}: ${String(overlap)} px`);
    }
    expect(wide, 'screens wider than the phone').to.deep.equal([]);
    expect(covered, "screens whose content the market's label covers").to.deep.equal([]);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it("writes every field's placeholder whole on every screen, on a laptop and on a phone", async function () {
    this.timeout(240_000);
    const { page, context, errors } = await e2e.newPage({ width: 1280, height: 800 });
    await e2e.signUp(page, 'hints');
    await seedLists(page);
    const cut: string[] = [];
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 844 });
      for (const path of screenPaths()) {
        await openLoaded(page, path);
        // A placeholder typed as the field's text: a field that scrolls would have cut it.
        const fields = await page.evaluate(`(() => {
          const out = [];
          for (const field of document.querySelectorAll('input[placeholder], textarea[placeholder]')) {
            if (field.offsetParent === null || field.value !== '') continue;
            field.value = field.placeholder;
            if (field.scrollWidth > field.clientWidth) out.push(field.placeholder);
            field.value = '';
          }
          return out;
        })()`);
        for (const placeholder of fields as string[]) cut.push(`${path} at ${width} px: "${placeholder}"`);
      }
    }
    expect(cut, 'placeholders cut by their field').to.deep.equal([]);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('passes the axe-core accessibility rules on every screen, in the light and the dark theme', async function () {
    // About 40 s here: every screen twice, each scanned whole.
    this.timeout(300_000);
    // axe-core's own checks (WCAG 2.1 A and AA: names, roles, landmarks, contrast of text), run in the page.
    const axe = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    const violations: string[] = [];
    for (const theme of ['light', 'dark'] as const) {
      const { page, context, errors } = await e2e.newPage();
      await page.emulateMedia({ colorScheme: theme });
      const check = async (path: string): Promise<void> => {
        await page.evaluate(axe);
        const found = await page.evaluate<string[]>(`axe
          .run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] })
          .then((result) => result.violations.map((v) =>
            v.id + ' (' + v.impact + ') ' + v.nodes.length + 'x, e.g. ' + v.nodes[0].target.join(' ')))`);
        violations.push(...found.map((violation) => `${theme} ${path}: ${violation}`));
      };
      // The sign-in page signed out, then every screen signed in.
      await page.goto('/Login');
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      await check('/Login');
      await e2e.signUp(page, `axe${theme}`);
      await seedLists(page);
      for (const path of screenPaths()) {
        await openLoaded(page, path);
        await check(path);
      }
      expect(errors).to.deep.equal([]);
      await context.close();
    }
    expect(violations).to.deep.equal([]);
  });

  it('keeps the entry chunk under 500 kB gzip, with Plotly in a chunk of its own loaded only by chart screens', () => {
    const chunks = bundleSizes(e2e.uiDir);
    const entry = chunks.find((c) => c.entry);
    expect(entry, 'an entry chunk').to.exist;
    expect(entry!.gzipBytes).to.be.below(500 * 1024);
    const assets = join(e2e.uiDir, 'assets');
    const plotly = chunks.filter((c) => readFileSync(join(assets, c.file), 'utf8').includes('modebar-btn'));
    expect(plotly.map((c) => c.entry)).to.deep.equal([false]);
    console.log(
      `      entry ${(entry!.gzipBytes / 1024).toFixed(1)} kB gzip, Plotly ${(plotly[0]!.gzipBytes / 1024).toFixed(1)} kB gzip`,
    );
  });
});
