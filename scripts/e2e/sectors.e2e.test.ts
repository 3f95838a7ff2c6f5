import { expect } from 'chai';
import { keepByEscapeThenAskAgain, startE2E, type E2E } from './browser.ts';

describe('sectors page (Chromium)', function () {
  this.timeout(180_000);
  let e2e: E2E;

  before(async function () {
    e2e = await startE2E();
  });
  after(async () => {
    await e2e?.close();
  });

  it('creates a sector, adds symbols by search and by list, removes one, renames it, copies a GICS sector and deletes', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'sectors');
    await page.getByRole('menuitem', { name: 'Sectors', exact: true }).first().click();
    await page.waitForURL('**/SectorSetUp');
    await page.getByText('You have no sectors yet').waitFor();
    const gics = page.getByRole('list', { name: 'GICS sectors' });
    expect(await gics.getByRole('listitem').count()).to.equal(11);

    await page.getByLabel('Sector name').fill('E2E Chips');
    await page.getByLabel('Symbols (optional)').fill('nvda');
    await page.getByRole('button', { name: 'Create sector' }).click();
    const card = page.getByRole('article', { name: 'E2E Chips' });
    await card.waitFor();
    const chips = card.getByRole('list', { name: 'Symbols of E2E Chips' });
    await chips.getByRole('link', { name: 'NVDA' }).waitFor();

    await card.getByLabel('Add symbols to E2E Chips').fill('Advanced Micro');
    await card.getByRole('button', { name: /^AMD Advanced Micro Devices/ }).click();
    await chips.getByRole('link', { name: 'AMD' }).waitFor();
    await card.getByLabel('Add symbols to E2E Chips').fill('avgo, qcom');
    await card.getByLabel('Add symbols to E2E Chips').press('Enter');
    await chips.getByRole('link', { name: 'QCOM' }).waitFor();
    // Listed as the server answers them: largest market cap first, not in the order added.
    expect(await chips.getByRole('link').allTextContents()).to.deep.equal(['NVDA', 'AVGO', 'AMD', 'QCOM']);

    await card.getByRole('button', { name: 'Remove NVDA from E2E Chips' }).click();
    await chips.getByRole('link', { name: 'NVDA' }).waitFor({ state: 'detached' });

    await card.getByRole('button', { name: 'Rename E2E Chips' }).click();
    await page.getByLabel('New name for E2E Chips').fill('E2E Semis');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const renamed = page.getByRole('article', { name: 'E2E Semis' });
    await renamed.waitFor();
    expect(
      await renamed.getByRole('list', { name: 'Symbols of E2E Semis' }).getByRole('link').allTextContents(),
    ).to.deep.equal(['AVGO', 'AMD', 'QCOM']);

    await gics.getByRole('button', { name: 'Copy Energy' }).click();
    const energy = page.getByRole('article', { name: 'Energy' });
    await energy.getByRole('link', { name: 'XOM' }).waitFor();
    await gics.getByRole('button', { name: 'Energy is in your sectors' }).waitFor();
    expect(await gics.getByRole('button', { name: 'Energy is in your sectors' }).isDisabled()).to.equal(true);

    await page.getByLabel('Sector name').fill('energy');
    await page.getByRole('button', { name: 'Create sector' }).click();
    await page
      .getByRole('alert')
      .getByText('Sector name: you already have a sector named "Energy"', { exact: true })
      .waitFor();
    await page.getByRole('button', { name: 'Dismiss' }).click();
    await page.getByText('Copied Energy with 32 symbols').waitFor({ state: 'detached' });
    await e2e.screenshot(page, 'sectors');

    // Asked first, Keep focused: Escape keeps the sector, then the deletion is confirmed.
    const remove = renamed.getByRole('button', { name: 'Delete E2E Semis' });
    await remove.click();
    const ask = page.getByRole('alertdialog', { name: 'Delete E2E Semis?' });
    await keepByEscapeThenAskAgain(page, ask, remove);
    await ask.getByRole('button', { name: 'Delete' }).click();
    await renamed.waitFor({ state: 'detached' });
    const stored = await page.evaluate(async () =>
      ((await (await fetch('/personalize/sectors')).json()) as { name: string }[]).map((s) => s.name),
    );
    expect(stored).to.deep.equal(['Energy']);
    expect(errors).to.deep.equal([]);
    await context.close();
  });
});
