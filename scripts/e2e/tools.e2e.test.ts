import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { grantRole } from '../../gateway/auth/grant.ts';
import { startE2E, type E2E } from './browser.ts';

/** The traces of the first Plotly graph inside `scope`. */
async function traces(page: Page, scope: string): Promise<{ type?: string; fill?: string; x?: unknown[] }[]> {
  return page.evaluate((selector) => {
    const graph = document.querySelector(`${selector} .js-plotly-plot`) as unknown as {
      data?: { type?: string; fill?: string; x?: unknown[] }[];
    } | null;
    return (graph?.data ?? []).map(({ type, fill, x }) => ({ type, fill, x }));
  }, scope);
}

/** Today's % change the market map shows for a symbol (the colour of its treemap node), or null. */
async function tileChange(page: Page, symbol: string): Promise<number | null> {
  return page.evaluate((s) => {
    const graph = document.querySelector('[data-testid=art-map] .js-plotly-plot') as unknown as {
      data?: { ids?: string[]; marker?: { colors?: number[] } }[];
    } | null;
    const map = graph?.data?.[0];
    const index = (map?.ids ?? []).indexOf(s);
    return index < 0 ? null : (map?.marker?.colors?.[index] ?? null);
  }, symbol);
}

describe('Predict, Maint and Art (Chromium)', function () {
  this.timeout(240_000);
  let e2e: E2E;

  before(async function () {
    e2e = await startE2E();
  });
  after(async () => {
    await e2e?.close();
  });

  it('Predict: fits AAPL, shows the errors beside the baseline, the verdict and the forecast, saves and deletes it', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'predict');
    await page.getByRole('menuitem', { name: 'Predict', exact: true }).first().click();
    await page.waitForURL('**/Prediction');
    await page.getByText('No saved models yet').waitFor();
    await page.getByRole('combobox', { name: 'Symbol' }).fill('AAPL');
    await page.getByRole('option', { name: /AAPL/ }).first().click();
    expect(await page.getByTestId('predict-symbol').textContent()).to.equal('AAPL');
    await page.getByLabel('Horizon (trading days)').fill('5');
    await page.getByRole('button', { name: 'Fit', exact: true }).click();

    const verdict = page.getByTestId('predict-verdict');
    await verdict.waitFor({ timeout: 30_000 });
    expect(await verdict.textContent()).to.match(/(beats|does not beat) the naive baseline/);
    const metrics = page.getByRole('table', { name: 'Walk-forward errors' });
    expect(await metrics.getByRole('row', { name: /Root mean square error/ }).count()).to.equal(1);
    expect(await metrics.getByRole('row', { name: /Direction hit rate .*%.*%/ }).count()).to.equal(1);
    expect(await page.getByRole('table', { name: 'Coefficients' }).getByText('intercept').count()).to.equal(1);
    await page.locator('.predict-result .js-plotly-plot').waitFor();
    const drawn = await traces(page, '.predict-result');
    expect(drawn.map((t) => t.type)).to.deep.equal(['scatter', 'scatter', 'scatter', 'scatter']);
    expect(drawn[2]?.fill, 'the interval band').to.equal('tonexty');
    expect(drawn[3]?.x, 'the last close and 5 forecast days').to.have.length(6);

    await page.getByLabel('Model name').fill('AAPL five days');
    await page.getByRole('button', { name: 'Save model' }).click();
    const saved = page.getByRole('list', { name: 'Saved models' }).getByRole('listitem');
    await saved.filter({ hasText: 'AAPL five days' }).waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    await e2e.screenshot(page, 'predict');

    await page.getByRole('button', { name: 'Fit AAPL five days again' }).click();
    await verdict.waitFor();
    await page.getByRole('button', { name: 'Delete model AAPL five days' }).click();
    await page.getByText('No saved models yet').waitFor();
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it("Maint: shows the status and projection lags, an operator runs the rebuild check; an auditor sees another user's events and a verified chain", async () => {
    const target = await e2e.newPage();
    const audited = await e2e.signUp(target.page, 'audited');
    const added = await target.page.evaluate(async () => {
      const response = await fetch('/personalize/createwatchlist', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(['AAPL', 'MSFT']),
      });
      return response.status;
    });
    expect(added).to.equal(200);
    await target.context.close();

    // The session tells the page the user is no auditor: no audit part, and no refused request in the console.
    const { page, context, errors } = await e2e.newPage();
    const auditor = await e2e.signUp(page, 'auditor');
    await page.goto('/Maint');
    await page.getByTestId('maint-asof').waitFor();
    expect(await page.getByTestId('maint-asof').textContent()).to.match(/^\d{4}-\d{2}-\d{2}$/);
    expect(await page.getByTestId('maint-tick-source').textContent()).to.equal('Feed');
    expect(await page.getByTestId('maint-feed-health').textContent()).to.equal('live');
    expect(await page.getByTestId('market-label').textContent()).to.match(
      /^Feed prices \(as the producer sends them\), live · /,
    );
    const lags = page.getByRole('region', { name: 'Projection lags' });
    await lags.getByText('watchlist', { exact: true }).waitFor();
    expect(await lags.getByText('up to date').count()).to.be.greaterThan(5);
    expect(await page.getByText('shown to auditors').count(), 'no audit part for a plain user').to.equal(1);

    // Granted the auditor and operator roles, the user signs in again to use them.
    await grantRole(e2e.gw.running.system.events, auditor, 'auditor');
    await grantRole(e2e.gw.running.system.events, auditor, 'operator');
    await page.getByRole('button', { name: 'Account' }).click();
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await page.waitForURL('**/Login');
    await page.getByLabel('User name').fill(auditor);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/Dashboard');
    await page.goto('/Maint');
    await page.getByRole('heading', { name: 'Audit trail' }).waitFor();
    await page.getByRole('button', { name: 'Run the rebuild check' }).click();
    const result = page.getByTestId('maint-rebuild-result');
    await result.waitFor({ timeout: 30_000 });
    expect(await result.getByRole('status').textContent()).to.contain('The read models match the log');
    await page.getByRole('combobox', { name: /^User/ }).selectOption(audited);
    const events = page.getByRole('region', { name: `Events of ${audited}` });
    await events.getByText('UserRegistered').first().waitFor();
    await page.getByTestId('maint-moment').waitFor();
    await page.getByRole('slider').focus();
    await page.keyboard.press('Home');
    await page.getByTestId('maint-moment').getByText('After event 1 of', { exact: false }).waitFor();
    await page
      .locator('.maint-state[aria-busy=false]')
      .getByRole('heading', { name: /^account$/i })
      .waitFor();
    expect(await page.locator('.maint-state').getByText('"MSFT"').count(), 'no watch list yet').to.equal(0);
    await page.keyboard.press('End');
    await page.getByTestId('maint-moment').getByText('SymbolAddedToWatchlist', { exact: false }).waitFor();
    await page.locator('.maint-state[aria-busy=false]').getByText('"MSFT"').waitFor();
    await page
      .locator('.maint-state[aria-busy=false]')
      .getByRole('heading', { name: /^account$/i })
      .waitFor();

    await page.getByRole('button', { name: 'Verify hash chain' }).click();
    const verified = page.getByTestId('maint-verify');
    await verified.waitFor();
    expect(await verified.textContent()).to.match(/✓ chain intact: \d+ events in \d+ streams/);

    await page.evaluate(() => window.scrollTo(0, 0));
    await e2e.screenshot(page, 'maint');
    // The auditor's reads are events no projection applies: the page opened again shows none behind.
    await page.goto('/Maint');
    await lags.getByText('watchlist', { exact: true }).waitFor();
    expect(await lags.getByText('behind', { exact: true }).count(), 'no projection behind').to.equal(0);
    await page.getByRole('heading', { name: 'Audit trail' }).waitFor();
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('Art: draws the live market map, saves it into the gallery, deletes it, and a tile opens its chart', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'art');
    await page.goto('/Art');
    await page.getByText('Your gallery is empty').waitFor();
    await page.locator('[data-testid=art-map] .js-plotly-plot').waitFor();
    const [map] = await traces(page, '[data-testid=art-map]');
    expect(map?.type).to.equal('treemap');
    const nodes = await page.evaluate(() => {
      const graph = document.querySelector('[data-testid=art-map] .js-plotly-plot') as unknown as {
        data?: { parents?: string[] }[];
      } | null;
      const parents = graph?.data?.[0]?.parents ?? [];
      return { all: parents.length, sectors: parents.filter((p) => p === 'market').length };
    });
    expect(nodes.sectors).to.be.above(5);
    // The market, its sectors and the 325 companies, each node drawn as a slice by Plotly.
    expect(nodes.all).to.equal(1 + nodes.sectors + 325);
    expect(await page.locator('[data-testid=art-map] .treemaplayer g.slice').count()).to.equal(nodes.all);

    await page.getByTestId('connection-banner').waitFor({ state: 'detached' });
    const price = await page.evaluate(async () => {
      const quotes = (await (await fetch('/api/quotes?symbols=AAPL')).json()) as { price: number }[];
      return quotes[0]?.price ?? 100;
    });
    const before = await tileChange(page, 'AAPL');
    await e2e.pushTicks([{ symbol: 'AAPL', price: Math.round(price * 104) / 100, size: 100 }]);
    await page.waitForFunction(
      (previous) => {
        const graph = document.querySelector('[data-testid=art-map] .js-plotly-plot') as unknown as {
          data?: { ids?: string[]; marker?: { colors?: number[] } }[];
        } | null;
        const map = graph?.data?.[0];
        const now = map?.marker?.colors?.[(map.ids ?? []).indexOf('AAPL')];
        return typeof now === 'number' && now !== previous && now > 0;
      },
      before,
      { timeout: 10_000 },
    );

    await page.getByRole('button', { name: 'Save this map' }).click();
    const gallery = page.getByRole('list', { name: 'Snapshots' });
    const card = gallery.getByRole('listitem').filter({ hasText: 'Market map' });
    await card.waitFor({ timeout: 30_000 });
    const thumb = card.getByRole('img');
    await page.waitForFunction(
      () => (document.querySelector<HTMLImageElement>('.art-thumb img')?.naturalWidth ?? 0) > 0,
    );
    expect(await thumb.evaluate((img: HTMLImageElement) => img.naturalWidth)).to.be.greaterThan(600);
    await e2e.screenshot(page, 'art');

    await card.getByRole('button', { name: /^Open Market map .* full size$/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('img').waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await card.getByRole('button', { name: /^Delete snapshot Market map/ }).click();
    await page.getByText('Your gallery is empty').waitFor();

    const tile = page.locator('[data-testid=art-map] .treemaplayer g.slice').filter({ hasText: /^AAPL[+-]/ });
    const box = await tile.boundingBox();
    if (!box) throw new Error('no AAPL tile');
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForURL(/\/PriceCharts\?stock=AAPL/);
    expect(errors).to.deep.equal([]);
    await context.close();
  });
});

describe('refusals of the screener clause builder and the account card (Chromium)', function () {
  this.timeout(120_000);
  let e2e: E2E;

  before(async function () {
    this.timeout(300_000);
    e2e = await startE2E();
  });
  after(async () => {
    await e2e?.close();
  });

  it('Screener: refuses a value that is not a number as "Value: enter a number", then adds the clause', async () => {
    const { page, context, errors } = await e2e.newPage({ width: 1400, height: 1000 });
    await e2e.signUp(page, 'clause');
    await page.goto('/StockSearch');
    const builder = page.getByRole('form', { name: 'Clause builder' });
    await builder.getByLabel('Type', { exact: true }).selectOption('rsi');
    await builder.getByLabel('Operator', { exact: true }).selectOption('<');
    const value = builder.getByLabel('Value', { exact: true });
    const refusal = builder.getByRole('alert');
    for (const typed of ['abc', '1e999']) {
      await value.fill(typed);
      await builder.getByRole('button', { name: 'Add clause' }).click();
      await refusal.getByText('Value: enter a number', { exact: true }).waitFor();
      expect(await value.getAttribute('aria-invalid')).to.equal('true');
    }
    expect(await page.getByText(/clause: val/).count(), 'no validator wording on screen').to.equal(0);
    await value.fill('30');
    await builder.getByRole('button', { name: 'Add clause' }).click();
    await refusal.waitFor({ state: 'detached' });
    expect(await value.getAttribute('aria-invalid')).to.equal('false');
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it("Settings: a password refusal goes once its field is edited, and the next try's outcome replaces it", async () => {
    const { page, context, errors } = await e2e.newPage({ expectedErrors: ['/api/account/password'] });
    await e2e.signUp(page, 'refused');
    await page.goto('/Settings');
    const card = page.getByRole('region', { name: 'Account' });
    const current = card.getByLabel('Current password');
    const fresh = card.getByLabel('New password', { exact: true });
    const again = card.getByLabel('New password, again');
    const change = card.getByRole('button', { name: 'Change password' });
    const wrong = card.getByText('Current password: is not the password of this account');
    const short = card.getByText('New password: 8 to 128 characters');

    await current.fill('wrong horse battery');
    await fresh.fill('newpassword1');
    await again.fill('newpassword1');
    await change.click();
    await wrong.waitFor();
    expect(await current.getAttribute('aria-invalid')).to.equal('true');
    // Described by the refusal, which a screen reader then reads with the field.
    const refusalId = await card.getByRole('alert').getAttribute('id');
    expect(refusalId).to.be.a('string');
    expect(await current.getAttribute('aria-describedby')).to.equal(refusalId);

    // A next try the form refuses (too short: nothing is sent) says so instead.
    await fresh.fill('short');
    await again.fill('short');
    expect(await wrong.count(), 'editing another field leaves it').to.equal(1);
    await change.click();
    await short.waitFor();
    expect(await wrong.count()).to.equal(0);
    expect(await current.getAttribute('aria-invalid')).to.equal(null);
    expect(await current.getAttribute('aria-describedby')).to.equal(null);
    expect(await fresh.getAttribute('aria-invalid')).to.equal('true');
    expect(await fresh.getAttribute('aria-describedby')).to.equal(refusalId);

    // Editing the field refused takes the refusal away.
    await fresh.fill('newpassword1');
    await short.waitFor({ state: 'detached' });
    expect(await card.getByRole('alert').count()).to.equal(0);
    expect(errors).to.deep.equal([]);
    await context.close();
  });
});
