import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { startE2E, type E2E } from './browser.ts';

const IBKR_FILE = fileURLToPath(new URL('../../data/portfolio-import/ibkr-activity-statement.csv', import.meta.url));

describe('portfolio transactions, import and performance (Chromium)', function () {
  this.timeout(120_000);
  let e2e: E2E;

  before(async function () {
    this.timeout(300_000);
    e2e = await startE2E();
  });
  after(async () => {
    await e2e?.close();
  });

  it('imports a broker statement, sells part of a position and sees realized P&L and the performance chart', async () => {
    const { page, context, errors } = await e2e.newPage({ width: 1400, height: 1000 });
    await e2e.signUp(page, 'ledger');
    await page.goto('/Portfolio');
    const wizard = page.getByRole('group', { name: 'Import transactions' });
    await wizard.waitFor();

    // Upload → preview: each row's verdict, nothing recorded yet.
    await wizard.getByLabel('CSV file').setInputFiles(IBKR_FILE);
    const summary = wizard.getByTestId('import-summary');
    await summary.waitFor();
    expect(await summary.textContent()).to.match(
      /Interactive Brokers activity statement\): 4 new, 0 recorded already, 2 skipped, 0 refused/,
    );
    await wizard.getByRole('gridcell', { name: 'Equity and Index Options is not stocks' }).waitFor();
    expect(await page.getByTestId('realized-pnl').textContent()).to.equal('0.00');

    // Commit all at once: the positions appear.
    await wizard.getByRole('button', { name: 'Import 4 transactions' }).click();
    await wizard.getByTestId('import-result').getByText('Imported 4 transactions').waitFor();
    const apple = page.getByRole('region', { name: 'AAPL position' });
    await apple.waitFor();
    await page.getByRole('region', { name: 'NVDA position' }).waitFor();
    await apple.getByRole('button', { name: /Remove the lot of 20 AAPL bought 2024-01-10/ }).waitFor();

    // The same file again adds nothing.
    await wizard.getByRole('button', { name: 'Import another file' }).click();
    await wizard.getByLabel('CSV file').setInputFiles(IBKR_FILE);
    await summary.getByText(/0 new, 4 recorded already/).waitFor();
    expect(await wizard.getByRole('button', { name: /Import 0 transactions/ }).isDisabled()).to.equal(true);
    await wizard.getByRole('button', { name: 'Cancel' }).click();

    // Sell 12 of the 30 AAPL, first in first out: all from the lot of 20 at 185.14.
    const form = page.getByRole('form', { name: 'Record a transaction' });
    await form.getByLabel('Transaction').selectOption('sell');
    // The symbol is searched by company too: the pick leaves its symbol in the field.
    const symbolField = form.getByRole('combobox', { name: 'Symbol' });
    await symbolField.fill('apple');
    await form.getByRole('option', { name: /^AAPL Apple/ }).click();
    expect(await symbolField.inputValue()).to.equal('AAPL');
    await form.getByLabel('Date').fill('2024-06-03');
    await form.getByLabel('Quantity').fill('12');
    await form.getByLabel('Price').fill('200');
    await form.getByRole('button', { name: 'Record sell' }).click();
    // (200 − 185.14) × 12 = 178.32
    await page.getByTestId('realized-pnl').getByText('+178.32').waitFor();
    const rest = apple.getByRole('button', { name: /Remove the lot of 8 AAPL bought 2024-01-10/ });
    await rest.waitFor();
    const sale = page.locator('table.transactions tr[data-kind="sell"]');
    expect(await sale.textContent()).to.include('+178.32');

    // The rest of a lot partly sold is not removed by hand (its trades would still count the shares): the card
    // says to record the sale of it, and the lot, the sale and the realized P&L stay.
    await rest.click();
    await apple
      .getByRole('alertdialog', { name: 'Remove this lot?' })
      .getByRole('button', { name: 'Remove the lot' })
      .click();
    const refused = apple.getByRole('alert');
    await refused
      .getByText(
        'Could not remove the lot of AAPL: 12 shares of the 2024-01-10 lot of AAPL were sold, the last on ' +
          '2024-06-03; record a sale of the 8 left to close it, or remove AAPL with its transactions',
      )
      .waitFor();
    expect(await page.locator('.portfolio-save-error').count()).to.equal(0);
    await refused.getByRole('button', { name: 'Dismiss' }).click();
    await refused.waitFor({ state: 'detached' });
    expect(await rest.count()).to.equal(1);
    expect(await sale.count()).to.equal(1);
    await page.getByTestId('realized-pnl').getByText('+178.32').waitFor();

    // Sell 4 more from the lot chosen, the one bought 2024-03-12 at 173.23: (210 − 173.23) × 4 = 147.08.
    await form.getByLabel('Date').fill('2024-06-04');
    await form.getByLabel('Quantity', { exact: true }).fill('4');
    await form.getByLabel('Price').fill('210');
    await form.getByLabel('Choose lots').check();
    const chosen = form.getByLabel('Quantity sold of the lot bought 2024-03-12 at 173.23');
    expect(await chosen.getAttribute('placeholder'), 'the most the lot can give').to.equal('up to 10');
    await chosen.fill('4');
    await form.getByRole('button', { name: 'Record sell' }).click();
    await page.getByTestId('realized-pnl').getByText('+325.40').waitFor();
    await apple.getByRole('button', { name: /Remove the lot of 6 AAPL bought 2024-03-12/ }).waitFor();
    expect(await sale.count()).to.equal(2);

    // The performance chart, over a range and against a symbol.
    const chart = (name: RegExp) => page.getByRole('figure', { name }).locator('.main-svg').first();
    await chart(/Time-weighted return of the portfolio against Equal weight \(universe\), All/).waitFor();
    await page.getByRole('group', { name: 'Range' }).getByRole('button', { name: '1Y' }).click();
    await chart(/against Equal weight \(universe\), 1Y/).waitFor();
    // The benchmark is searched by company name too, and a pick compares at once.
    await page.getByRole('combobox', { name: 'Benchmark' }).fill('microsoft');
    await page.getByRole('listbox', { name: 'Benchmark: matches' }).getByRole('option', { name: /MSFT/ }).click();
    await chart(/against MSFT, 1Y/).waitFor();
    expect(await page.getByRole('combobox', { name: 'Benchmark' }).inputValue()).to.equal('MSFT');
    await page.getByRole('figure', { name: /Allocation by sector: Information Technology/ }).waitFor();
    await e2e.screenshot(page, 'portfolio-transactions');

    // The export holds the four imported rows and the sales.
    const exported = await page.evaluate(async () => (await fetch('/api/portfolio/export/transactions.csv')).text());
    const lines = exported.trim().split('\n');
    expect(lines[0]).to.equal('id,date,kind,symbol,quantity,price,fee,amount,lots');
    expect(lines.slice(1).map((l) => l.split(',').slice(1, 4).join(','))).to.deep.equal([
      '2024-01-10,buy,AAPL',
      '2024-02-05,buy,NVDA',
      '2024-03-12,buy,AAPL',
      '2024-05-16,dividend,AAPL',
      '2024-06-03,sell,AAPL',
      '2024-06-04,sell,AAPL',
    ]);
    // The one error is the refused removal's answer, which the browser logs.
    expect(errors).to.have.length(1);
    expect(errors[0]).to.match(/409 \(Conflict\) .*\/personalize\/deluserPositions\/AAPL$/);
    await context.close();
  });

  it("words the forms' refusals by field and replaces them with what the user does next", async () => {
    const { page, context, errors } = await e2e.newPage({
      width: 1400,
      height: 1000,
      expectedErrors: ['/api/portfolio/transactions', '/personalize/deluserPositions/AAPL'],
    });
    await e2e.signUp(page, 'refusal');
    await page.goto('/Portfolio');
    const form = page.getByRole('form', { name: 'Record a transaction' });
    const record = async (kind: string, symbol: string, quantity: string, price: string) => {
      await form.getByLabel('Transaction').selectOption(kind);
      await form.getByRole('combobox', { name: 'Symbol' }).fill(symbol);
      await form.getByLabel('Date').fill('2024-07-01');
      await form.getByLabel('Quantity', { exact: true }).fill(quantity);
      await form.getByLabel('Price').fill(price);
      await form.getByRole('button', { name: `Record ${kind}` }).click();
    };
    const formAlerts = () => form.getByRole('alert').allInnerTexts();

    // The server's refusal of the symbol is said on the symbol field, in the form's words.
    const refused = page.waitForResponse((r) => r.url().endsWith('/api/portfolio/transactions'));
    await record('buy', 'ZZZZ', '5', '10');
    expect((await refused).status()).to.equal(400);
    const unknown = form.getByRole('alert').getByText('Symbol: unknown symbol ZZZZ', { exact: true });
    await unknown.waitFor();
    const symbol = form.getByRole('combobox', { name: 'Symbol' });
    expect(await symbol.getAttribute('aria-invalid')).to.equal('true');
    expect(await symbol.getAttribute('aria-describedby')).to.equal(await unknown.getAttribute('id'));
    expect(await page.getByText(/body\./).count(), 'no request path on screen').to.equal(0);

    // Editing the symbol takes it away; the next attempts each say only what is wrong with them.
    await symbol.fill('aapl');
    await unknown.waitFor({ state: 'detached' });
    expect(await symbol.getAttribute('aria-invalid')).to.equal(null);
    const quantity = form.getByRole('alert').getByText('Enter a quantity above 0');
    await record('buy', 'aapl', '1e3', '1,000');
    await quantity.waitFor();
    expect(await formAlerts()).to.deep.equal(['Enter a quantity above 0']);
    await record('buy', 'AAPL', '0', '10');
    await quantity.waitFor();
    expect(await formAlerts()).to.deep.equal(['Enter a quantity above 0']);
    await record('buy', 'AAPL', '10', '150');
    await page.locator('table.transactions tr[data-kind="buy"]').waitFor();
    expect(await formAlerts()).to.deep.equal([]);

    // The lot form's own refusal goes when the user acts again in the card: here, removing a lot partly sold.
    const apple = page.getByRole('region', { name: 'AAPL position' });
    const lotForm = apple.getByRole('form', { name: 'Add a lot of AAPL' });
    await lotForm.getByLabel('Date').fill('2024-04-01');
    await lotForm.getByLabel('Price paid').fill('99999999');
    await lotForm.getByLabel('Quantity').fill('2');
    await lotForm.getByRole('button', { name: 'Add lot' }).click();
    const tooHigh = lotForm.getByRole('alert').getByText('Price: must be at most 10,000,000');
    await tooHigh.waitFor();
    await record('sell', 'AAPL', '4', '160');
    const rest = apple.getByRole('button', { name: /Remove the lot of 6 AAPL bought 2024-07-01/ });
    await rest.click();
    await tooHigh.waitFor({ state: 'detached' });
    await apple
      .getByRole('alertdialog', { name: 'Remove this lot?' })
      .getByRole('button', { name: 'Remove the lot' })
      .click();
    const removal = apple.locator('.position-save-error');
    await removal
      .getByText(/^Could not remove the lot of AAPL: 4 shares of the 2024-07-01 lot of AAPL were sold/)
      .waitFor();
    expect(await apple.getByRole('alert').count(), 'the removal refusal alone').to.equal(1);
    expect(await page.getByText(/body\./).count(), 'no request path on screen').to.equal(0);

    // Trying again in the card replaces the removal's refusal with the lot form's own.
    await lotForm.getByRole('button', { name: 'Add lot' }).click();
    await tooHigh.waitFor();
    await removal.waitFor({ state: 'detached' });
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('refuses an unknown benchmark next to its field and keeps the one in use, later reads working', async () => {
    const { page, context, errors } = await e2e.newPage({
      width: 1400,
      height: 1000,
      expectedErrors: ['/api/portfolio/performance'],
    });
    await e2e.signUp(page, 'bench');
    await page.goto('/Portfolio');
    const form = page.getByRole('form', { name: 'Record a transaction' });
    const buy = async (date: string, quantity: string, price: string) => {
      await form.getByRole('combobox', { name: 'Symbol' }).fill('AAPL');
      await form.getByLabel('Date').fill(date);
      await form.getByLabel('Quantity', { exact: true }).fill(quantity);
      await form.getByLabel('Price').fill(price);
      await form.getByRole('button', { name: 'Record buy' }).click();
    };
    await buy('2024-06-03', '10', '300');
    const chart = (name: RegExp) => page.getByRole('figure', { name }).locator('.main-svg').first();
    await chart(/against Equal weight \(universe\), All/).waitFor();

    const benchmark = page.getByRole('combobox', { name: 'Benchmark' });
    // On a wide screen the field and its button keep to the ranges' line (the button once wrapped under them).
    const tops = await Promise.all(
      [page.getByRole('group', { name: 'Range' }), benchmark, page.getByRole('button', { name: 'Compare' })].map(
        async (element) => (await element.boundingBox())?.y ?? NaN,
      ),
    );
    expect(Math.max(...tops) - Math.min(...tops), 'ranges, field and button on one line').to.be.below(8);

    // Refused: said next to the field, what was typed kept, the chart still against the benchmark in use.
    const refused = page.waitForResponse((r) => r.url().includes('/api/portfolio/performance?benchmark=ZZZZZZ'));
    await benchmark.fill('ZZZZZZ');
    await page.getByRole('button', { name: 'Compare' }).click();
    expect((await refused).status()).to.equal(400);
    const refusal = page.locator('.benchmark-form').getByRole('alert');
    await refusal.getByText('Benchmark: no company ZZZZZZ').waitFor();
    expect(await benchmark.inputValue()).to.equal('ZZZZZZ');
    expect(await benchmark.getAttribute('aria-invalid')).to.equal('true');
    expect(await benchmark.getAttribute('aria-describedby')).to.equal(await refusal.getAttribute('id'));
    await chart(/against Equal weight \(universe\), All/).waitFor();
    expect(await page.getByText(/Could not read the ledger/).count()).to.equal(0);

    // Another buy reads the ledger again against the benchmark in use, and it works.
    const reread = page.waitForResponse((r) => r.url().includes('/api/portfolio/performance?'));
    await buy('2024-06-04', '5', '310');
    const answer = await reread;
    expect(new URL(answer.url()).searchParams.get('benchmark')).to.equal('EW');
    expect(answer.status()).to.equal(200);
    await page.locator('table.transactions tr[data-kind="buy"]').nth(1).waitFor();
    await chart(/against Equal weight \(universe\), All/).waitFor();
    expect(await page.getByText(/Could not read the ledger/).count()).to.equal(0);

    // A benchmark the server knows replaces the refusal.
    await benchmark.fill('msft');
    await page.getByRole('button', { name: 'Compare' }).click();
    await chart(/against MSFT, All/).waitFor();
    await refusal.waitFor({ state: 'detached' });
    expect(await benchmark.getAttribute('aria-invalid')).to.equal(null);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('says when a sale opens a short, and gives the book a P&L % over long cost plus short proceeds', async () => {
    const { page, context, errors } = await e2e.newPage({ width: 1400, height: 1000 });
    await e2e.signUp(page, 'short');
    await page.goto('/Portfolio');
    const form = page.getByRole('form', { name: 'Record a transaction' });
    const trade = async (kind: 'buy' | 'sell', date: string, quantity: string, price: string) => {
      await form.getByLabel('Transaction').selectOption(kind);
      await form.getByRole('combobox', { name: 'Symbol' }).fill('AAPL');
      await form.getByLabel('Date').fill(date);
      await form.getByLabel('Quantity', { exact: true }).fill(quantity);
      await form.getByLabel('Price').fill(price);
      await form.getByRole('button', { name: `Record ${kind}` }).click();
    };
    await trade('buy', '2024-06-03', '10', '100');
    const apple = page.getByRole('region', { name: 'AAPL position' });
    await apple.getByRole('button', { name: /Remove the lot of 10 AAPL bought 2024-06-03/ }).waitFor();
    expect(await page.getByTestId('short-notice').count()).to.equal(0);

    // 15 sold of 10 held: the 10 close, a short of 5 at 150 opens, and the panel says so.
    await trade('sell', '2024-06-04', '15', '150');
    await page.getByTestId('short-notice').getByText('Sold 15 of 10 held: a short of 5 is open').waitFor();
    await apple.getByRole('button', { name: /Remove the lot of -5 AAPL bought 2024-06-04/ }).waitFor();

    // A long lot of 10 at 100 beside the short, then AAPL trades at 120.
    const lotForm = apple.getByRole('form', { name: 'Add a lot of AAPL' });
    await lotForm.getByLabel('Date').fill('2024-06-05');
    await lotForm.getByLabel('Price paid').fill('100');
    // A decimal comma is refused next to its field, never read as 5 shares.
    await lotForm.getByLabel('Quantity').fill('0,5');
    await lotForm.getByRole('button', { name: 'Add lot' }).click();
    await lotForm.getByText('Quantity: must be a number, e.g. 10').waitFor();
    expect(await apple.getByRole('button', { name: /Remove the lot of 5 AAPL/ }).count()).to.equal(0);
    await lotForm.getByLabel('Quantity').fill('10');
    await lotForm.getByRole('button', { name: 'Add lot' }).click();
    await apple.getByRole('button', { name: /Remove the lot of 10 AAPL bought 2024-06-05/ }).waitFor();
    await page.getByTestId('connection-banner').waitFor({ state: 'detached' });
    await e2e.pushTicks([{ symbol: 'AAPL', price: 120, size: 100 }]);
    await apple.getByLabel('AAPL price').getByText('120.00').waitFor({ timeout: 10_000 });

    // The long gains (120 − 100) × 10 = 200, the short (120 − 150) × −5 = 150: 350 over 1,000 paid for the long
    // plus 750 received for the short, +20%, in the symbol's total as in the portfolio's.
    await page.getByTestId('total-pnl').getByText('+350.00').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('total-pnl-pct').textContent()).to.equal('+20.00%');
    expect((await apple.getByRole('row', { name: 'AAPL total' }).textContent()) ?? '').to.include('+20.00%');
    const totals = page.getByRole('group', { name: 'Portfolio totals' });
    expect(await totals.getByText('P&L %').getAttribute('title')).to.equal(
      'P&L over what long lots cost plus what short lots were sold for',
    );

    // The positions export values the lots at the same live price.
    const csv = await page.evaluate(async () => (await fetch('/api/portfolio/export/positions.csv')).text());
    const [header, ...rows] = csv
      .trim()
      .split('\n')
      .map((line) => line.split(','));
    const column = (name: string) => header!.indexOf(name);
    const total = rows.find((r) => r[column('symbol')] === 'AAPL' && r[column('lot')] === 'total')!;
    expect([total[column('marketPrice')], total[column('value')], total[column('unrealized')]]).to.deep.equal([
      '120',
      '600',
      '350',
    ]);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('does not redraw the performance chart while live prices move', async () => {
    const { page, context, errors } = await e2e.newPage({ width: 1400, height: 1000 });
    await e2e.signUp(page, 'calm');
    await page.goto('/Portfolio');
    const form = page.getByRole('form', { name: 'Record a transaction' });
    await form.getByRole('combobox', { name: 'Symbol' }).fill('AAPL');
    await form.getByLabel('Date').fill('2024-06-03');
    await form.getByLabel('Quantity', { exact: true }).fill('10');
    await form.getByLabel('Price').fill('300');
    await form.getByRole('button', { name: 'Record buy' }).click();
    const apple = page.getByRole('region', { name: 'AAPL position' });
    await apple.waitFor();
    const performance = page.getByRole('figure', { name: /Time-weighted return of the portfolio/ });
    await performance.locator('.main-svg').first().waitFor();
    await page.getByTestId('connection-banner').waitFor({ state: 'detached' });

    // Count every change inside the performance chart's plot, and every change of the AAPL price shown.
    await page.evaluate(() => {
      const plot = document.querySelector('[role="figure"][aria-label^="Time-weighted return"] .js-plotly-plot');
      const price = document.querySelector('[aria-label="AAPL price"]');
      if (!plot || !price) throw new Error('the performance chart or the AAPL price is missing');
      const counts = { plot: 0, price: 0 };
      (window as unknown as { redraws: typeof counts }).redraws = counts;
      const options = { subtree: true, childList: true, attributes: true, characterData: true };
      new MutationObserver((records) => (counts.plot += records.length)).observe(plot, options);
      new MutationObserver((records) => (counts.price += records.length)).observe(price, options);
    });

    // A stream of ticks, one after the other; the last one reaches the page.
    const prices = [301, 302.5, 299.75, 304, 306.25, 303, 307.5, 308];
    for (const price of prices) await e2e.pushTicks([{ symbol: 'AAPL', price, size: 100 }]);
    await apple.getByLabel('AAPL price').getByText('308.00').waitFor({ timeout: 10_000 });
    // 10 × (308 − 300)
    await page.getByTestId('unrealized-pnl').getByText('+80.00').waitFor({ timeout: 10_000 });
    const counts = await page.evaluate(
      () => (window as unknown as { redraws: { plot: number; price: number } }).redraws,
    );
    expect(counts.price).to.be.greaterThan(0);
    expect(counts.plot).to.equal(0);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('lists a long portfolio a page at a time, and flashes only the totals of a card of many lots', async () => {
    const { page, context, errors } = await e2e.newPage({ width: 1400, height: 1000 });
    await e2e.signUp(page, 'many');
    await page.goto('/Portfolio');
    await page.getByRole('group', { name: 'Import transactions' }).waitFor();
    // 130 purchases of AAPL, one a day from 2024-01-02, imported as a broker file would be.
    const day = (i: number) => new Date(Date.UTC(2024, 0, 2) + i * 86_400_000).toISOString().slice(0, 10);
    const rows = Array.from({ length: 130 }, (_, i) => `${day(i)},buy,AAPL,${i + 1},${(150 + i / 10).toFixed(2)},0`);
    const csv = ['date,kind,symbol,quantity,price,fee', ...rows].join('\n');
    const status = await page.evaluate(async (body) => {
      const response = await fetch('/api/portfolio/import', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ format: 'generic', csv: body }),
      });
      return response.status;
    }, csv);
    expect(status).to.equal(200);
    await page.reload();

    // The card lists its first 20 lots, its total counts all 130 (1 + … + 130 = 8,515 shares).
    const apple = page.getByRole('region', { name: 'AAPL position' });
    const lots = apple.locator('tbody tr');
    await apple.getByText('Showing 20 of 130 AAPL lots.').waitFor();
    expect(await lots.count()).to.equal(20);
    expect(await apple.locator('tfoot').textContent()).to.include('8,515');
    await apple.getByRole('button', { name: 'Show 20 more' }).click();
    await apple.getByText('Showing 40 of 130 AAPL lots.').waitFor();
    expect(await lots.count()).to.equal(40);

    // The transactions: the newest 100 first, then the 30 older ones.
    const transactions = page.locator('table.transactions tbody tr');
    await page.getByText('Showing 100 of 130 transactions.').waitFor();
    expect(await transactions.count()).to.equal(100);
    expect(await transactions.first().locator('td').first().textContent()).to.equal(day(129));
    await page.getByRole('button', { name: 'Show 30 more' }).click();
    await page.getByText(/Showing \d+ of 130 transactions/).waitFor({ state: 'detached' });
    expect(await transactions.count()).to.equal(130);
    expect(await transactions.last().locator('td').first().textContent()).to.equal(day(0));

    // A tick flashes the card's total, not each of its many lots.
    await e2e.pushTicks([{ symbol: 'AAPL', price: 200, size: 100 }]);
    await apple.getByLabel('AAPL price').getByText('200.00').waitFor({ timeout: 10_000 });
    await e2e.pushTicks([{ symbol: 'AAPL', price: 201, size: 100 }]);
    await apple.locator('tfoot .flash-up').waitFor({ timeout: 10_000 });
    expect(await apple.locator('tbody .flash-up, tbody .flash-down').count()).to.equal(0);
    expect(errors).to.deep.equal([]);
    await context.close();
  });
});
