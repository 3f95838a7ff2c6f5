import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { Quote } from '../../domain/market/types.ts';
import { createAlertIn, exportedLines, lastPriceIn, startE2E, type E2E } from './browser.ts';

/** The shapes of the chart's Plotly graph. */
async function shapes(page: Page): Promise<{ type?: string; y0?: number; y1?: number }[]> {
  return page.evaluate(() => {
    const graph = document.querySelector('.js-plotly-plot') as unknown as {
      layout?: { shapes?: { type?: string; y0?: number; y1?: number }[] };
    } | null;
    return (graph?.layout?.shapes ?? []).map(({ type, y0, y1 }) => ({ type, y0, y1 }));
  });
}

/** A scatter trace of the chart's Plotly graph as the page holds it. */
interface PlotTrace {
  readonly name?: string;
  readonly x?: string[];
  readonly y?: (number | null)[];
  readonly fill?: string;
  readonly yaxis?: string;
}

/** The traces of the chart's Plotly graph. */
async function traces(page: Page): Promise<PlotTrace[]> {
  return page.evaluate(() => {
    const graph = document.querySelector('.js-plotly-plot') as unknown as { data?: PlotTrace[] } | null;
    return (graph?.data ?? []).map(({ name, x, y, fill, yaxis }) => ({ name, x, y, fill, yaxis }));
  });
}

/** Reads `lower – upper` from the channel popover's name. */
function boundsOf(name: string): { lower: number; upper: number } {
  const match = /([\d.]+) – ([\d.]+)/.exec(name);
  if (!match) throw new Error(`no channel in ${name}`);
  return { lower: Number(match[1]), upper: Number(match[2]) };
}

const cents = (value: number) => Math.round(value * 100) / 100;

/** The hover text of the chart's annotation written `text`, as the page's graph holds it. */
async function hoverOf(page: Page, text: string): Promise<string | undefined> {
  return page.evaluate((written) => {
    const graph = document.querySelector('.js-plotly-plot') as unknown as {
      layout?: { annotations?: { text?: string; hovertext?: string }[] };
    } | null;
    return graph?.layout?.annotations?.find((a) => a.text === written)?.hovertext;
  }, text);
}

/** Whether the annotation written `text` is drawn whole right of every candle, inside the plot. */
async function clearOfCandles(page: Page, text: string): Promise<boolean> {
  return page.evaluate((written) => {
    const graph = document.querySelector('.js-plotly-plot') as HTMLElement;
    const label = [...graph.querySelectorAll('.annotation')].find((a) => a.textContent === written);
    const plot = graph.querySelector('.nsewdrag')?.getBoundingClientRect();
    const candles = [...graph.querySelectorAll('.boxlayer path.box')].map((c) => c.getBoundingClientRect());
    if (!label || !plot || candles.length < 20) return false;
    const box = label.getBoundingClientRect();
    const latest = Math.max(...candles.map((c) => c.right));
    return box.left >= latest && box.right <= plot.right + 1;
  }, text);
}

describe('alerts (Chromium)', function () {
  this.timeout(240_000);
  let e2e: E2E;

  before(async function () {
    e2e = await startE2E();
  });
  after(async () => {
    await e2e?.close();
  });

  it('creates a channel alert with two clicks on the chart, fires it once by feed ticks, and shows it in the bell and in its history', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'channel');
    await page.getByRole('button', { name: 'Account' }).click();
    await page.getByRole('menuitem', { name: 'Alerts' }).click();
    await page.waitForURL('**/Alerts');
    await page.getByText('No alerts yet').waitFor();
    await page.goto('/PriceCharts?stock=AAPL');
    await page.locator('.plot-container').first().waitFor();
    await page.getByTestId('chart-quote').waitFor();
    await page.getByTestId('connection-banner').waitFor({ state: 'detached' });

    // Two clicks on the chart draw the channel; its popover creates the alert.
    await page
      .getByRole('group', { name: 'A click on the chart draws' })
      .getByRole('button', { name: 'Channel' })
      .click();
    const plot = page.locator('.nsewdrag').first();
    const box = await plot.boundingBox();
    if (!box) throw new Error('no plot area');
    const started = page.locator('.plot-container').getByText(/Channel from \d+\.\d\d: click the other bound/);
    // Escape drops a channel whose first bound is placed; the next click starts another.
    await page.mouse.click(box.x + box.width / 2, box.y + box.height * 0.5);
    await started.waitFor();
    await page.keyboard.press('Escape');
    await started.waitFor({ state: 'detached' });
    await page.mouse.click(box.x + box.width / 2, box.y + box.height * 0.12);
    await started.waitFor();
    await page.mouse.click(box.x + box.width / 2, box.y + box.height * 0.3);
    const popover = page.getByRole('dialog', { name: /Add a channel alert/ });
    await popover.waitFor();
    const { lower, upper } = boundsOf((await popover.getAttribute('aria-label')) ?? '');
    expect(lower).to.be.below(upper);
    await popover.getByLabel('Channel operator').selectOption('entering_channel');
    const channelNote = 'Fade the move back to the top of the range';
    await popover.getByLabel('Channel note').fill(channelNote);
    await popover.getByRole('button', { name: 'Create channel alert' }).click();
    const words = `Price enters the channel ${lower.toFixed(2)} – ${upper.toFixed(2)}`;
    // On the chart a short tag right of the latest candle, the words on hover; in the list, the words.
    const tag = `Enter ${lower.toFixed(2)} – ${upper.toFixed(2)}`;
    await page.locator('.plot-container').getByText(`${tag} ✕`).waitFor();
    expect(await hoverOf(page, `${tag} ✕`)).to.equal(`${words}. Click to delete this alert`);
    expect(await clearOfCandles(page, `${tag} ✕`), 'the tag right of the latest candle').to.equal(true);
    const listed = page.getByRole('list', { name: 'Alerts' }).getByText(words);
    await listed.waitFor();
    expect(await listed.getAttribute('title')).to.equal(`Your note: ${channelNote}`);
    expect(await shapes(page)).to.deep.include({ type: 'rect', y0: lower, y1: upper });
    await e2e.screenshot(page, 'pricechart-channel');

    // Outside, then inside twice: it fires once, on entering.
    const below = cents(lower - Math.max(0.5, (upper - lower) / 2));
    const inside = cents((lower + upper) / 2);
    await e2e.pushTicks([
      { symbol: 'AAPL', price: below, size: 100 },
      { symbol: 'AAPL', price: inside, size: 100 },
      { symbol: 'AAPL', price: cents(inside + 0.01), size: 100 },
    ]);
    await page.getByLabel('1 unread').waitFor({ timeout: 15_000 });
    await page.locator('.plot-container').getByText(`${tag} · triggered ✕`).waitFor();

    await page.getByRole('button', { name: 'Notifications' }).click();
    const panel = page.getByRole('dialog', { name: 'Notifications' });
    const rows = panel.locator('.ag-row');
    await rows.first().waitFor();
    expect(await rows.count()).to.equal(1);
    expect(await panel.locator('.ag-row [col-id="symbol"]').allTextContents()).to.deep.equal(['AAPL']);
    expect(await panel.locator('.bell-type').allTextContents()).to.deep.equal(['Price']);
    expect(await panel.locator('.bell-note').allTextContents()).to.deep.equal([`“${channelNote}”`]);

    // The manager lists it as triggered once, with its history.
    await panel.getByRole('link', { name: 'Manage alerts' }).click();
    await page.waitForURL('**/Alerts');
    const grid = page.getByRole('region', { name: 'Alerts table' });
    const row = grid.locator('.ag-row', { hasText: words });
    await row.waitFor();
    expect(await row.locator('[col-id="status"]').textContent()).to.equal('triggered');
    expect(await row.locator('[col-id="triggercount"]').textContent()).to.equal('1');
    expect(await row.locator('[col-id="frequency"]').textContent()).to.equal('Only once');
    expect(await row.locator('[col-id="conditiontext"] .al-note').textContent()).to.equal(`“${channelNote}”`);
    // The symbol's chip and the row's buttons fit within the row.
    const cell = await row.locator('[col-id="symbol"]').boundingBox();
    for (const inCell of [row.locator('[col-id="symbol"] .symbol-chip'), row.getByRole('button', { name: /^Edit / })]) {
      const box = await inCell.boundingBox();
      expect(box!.y).to.be.at.least(cell!.y);
      expect(box!.y + box!.height).to.be.at.most(cell!.y + cell!.height);
    }
    // The row is not under the grid's horizontal scrollbar (an overlay one in headless Chromium, as on macOS).
    const scrollbar = await grid.locator('.ag-body-horizontal-scroll').boundingBox();
    const rowBox = await row.boundingBox();
    expect(rowBox!.y + rowBox!.height).to.be.at.most(scrollbar!.y);
    await page.getByRole('button', { name: `History of alert AAPL ${words}` }).click();
    const triggers = page.getByRole('table', { name: 'Triggers' }).locator('tbody tr');
    await triggers.first().waitFor();
    expect(await triggers.count()).to.equal(1);
    expect(await triggers.first().locator('td').nth(2).textContent()).to.equal(inside.toFixed(2));
    // The source's value, the price here, as the message writes it (two decimals).
    expect(await triggers.first().locator('td').nth(3).textContent()).to.equal(inside.toFixed(2));

    // A second alert, made in the builder, marks when later ticks have been evaluated.
    await page.getByRole('button', { name: 'New alert' }).click();
    const builder = page.getByRole('form', { name: 'Condition' });
    // The symbol found by a word of the company's name, and picked.
    const symbolField = builder.getByRole('combobox', { name: 'Symbol' });
    await symbolField.fill('apple');
    await builder.getByRole('option', { name: /AAPL/ }).click();
    expect(await symbolField.inputValue()).to.equal('AAPL');
    await builder.getByLabel('Operator').selectOption('greater_than');
    await builder.getByRole('button', { name: 'Create alert' }).click();
    await builder.getByText('Level: is required for Greater Than').waitFor();
    const marker = cents(upper + 1);
    await builder.getByLabel('Level', { exact: true }).fill(marker.toFixed(2));
    // With a note, which goes with its firing.
    const note = 'Take half off; stop under the channel';
    await builder.getByLabel('Note (shown with each firing)').fill(note);
    await builder.getByRole('button', { name: 'Create alert' }).click();
    const markerWords = `Price is at or above ${marker.toFixed(2)}`;
    const markerRow = grid.locator('.ag-row', { hasText: markerWords });
    await markerRow.waitFor();
    expect(await markerRow.locator('[col-id="conditiontext"] .al-note').textContent()).to.equal(`“${note}”`);
    await e2e.pushTicks([
      { symbol: 'AAPL', price: below, size: 100 },
      { symbol: 'AAPL', price: inside, size: 100 },
      { symbol: 'AAPL', price: marker, size: 100 },
    ]);
    await markerRow.locator('[col-id="status"]', { hasText: 'triggered' }).waitFor({ timeout: 15_000 });
    await page.getByLabel('1 unread').waitFor({ timeout: 15_000 });
    expect(await row.locator('[col-id="triggercount"]').textContent()).to.equal('1');
    // The bell shows the note under the firing's message.
    await page.getByRole('button', { name: 'Notifications' }).click();
    // It fired on its level: the price rose to it.
    const firing = panel.locator('.ag-row', { hasText: `AAPL rose to ${marker.toFixed(2)}: ${marker.toFixed(2)}` });
    expect(await firing.locator('.bell-note').textContent()).to.equal(`“${note}”`);
    // The row grows to hold the note's line under the message, and the rows below move down out of its way.
    await page.waitForFunction(() => {
      const shown = document.querySelector('[role="dialog"] .bell-note');
      const row = shown?.closest('.ag-row');
      if (!shown || !row || shown.getBoundingClientRect().bottom > row.getBoundingClientRect().bottom) return false;
      const boxes = [...document.querySelectorAll('[role="dialog"] .ag-row')]
        .map((r) => r.getBoundingClientRect())
        .sort((a, b) => a.top - b.top);
      return boxes.every((box, i) => i === 0 || box.top >= boxes[i - 1]!.bottom - 0.5);
    });
    await e2e.screenshot(page, 'bell-note');
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Close the history' }).click();
    await page.getByRole('button', { name: `History of alert AAPL ${words}` }).click();
    await triggers.first().waitFor();
    expect(await triggers.count()).to.equal(1);
    await e2e.screenshot(page, 'alerts');

    // A third alert, armed: paused and resumed with the others selected, which are left as they are.
    await page.getByRole('button', { name: 'New alert' }).click();
    await builder.getByRole('combobox', { name: 'Symbol' }).fill('MSFT');
    await builder.getByLabel('Operator').selectOption('less_than');
    await builder.getByLabel('Level', { exact: true }).fill('1.00');
    await builder.getByRole('button', { name: 'Create alert' }).click();
    const armedRow = grid.locator('.ag-row', { hasText: 'Price is at or below 1.00' });
    await armedRow.locator('[col-id="status"]', { hasText: 'armed' }).waitFor();
    await grid.locator('.ag-header-select-all').click();
    await page.getByRole('button', { name: 'Resume selected (0)' }).waitFor();
    await page.getByRole('button', { name: 'Pause selected (1)' }).click();
    await armedRow.locator('[col-id="status"]', { hasText: 'paused' }).waitFor();
    await page.getByRole('button', { name: 'Resume selected (1)' }).click();
    await armedRow.locator('[col-id="status"]', { hasText: 'armed' }).waitFor();
    expect(await markerRow.locator('[col-id="status"]').textContent()).to.equal('triggered');
    expect(await row.locator('[col-id="status"]').textContent()).to.equal('triggered');

    // All three deleted at once by row selection.
    await page.getByRole('button', { name: 'Delete selected (3)' }).click();
    // Nothing is deleted before the confirmation names them.
    const confirm = page.getByRole('alertdialog');
    await confirm.getByText('AAPL').first().waitFor();
    await confirm.getByRole('button', { name: 'Delete 3 alerts' }).click();
    await page.getByText('No alerts yet').waitFor();

    // A symbol in the bell opens its chart, and the panel closes behind it.
    await page.getByRole('button', { name: 'Notifications' }).click();
    await panel.locator('.ag-row [col-id="symbol"]').getByRole('link', { name: 'AAPL' }).first().click();
    await page.waitForURL('**/PriceCharts?stock=AAPL');
    await panel.waitFor({ state: 'detached' });
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('draws a channel following the 50-day SMA, an RSI channel on the RSI panel once shown, and says why a change % channel is not drawn', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'refband');
    await page.goto('/PriceCharts?stock=AAPL');
    await page.locator('.plot-container').first().waitFor();
    await page.getByTestId('chart-quote').waitFor();
    await page.locator('.legendtext', { hasText: 'SMA 50' }).waitFor();
    const upper = cents((await lastPriceIn(page, 'AAPL')) * 1.5);

    await page.getByText('Any condition (SMA, EMA, RSI, volume, change %)').click();
    const builder = page.getByRole('form', { name: 'Condition' });
    await builder.getByLabel('Operator').selectOption('inside_channel');
    await builder.getByLabel('Lower: a number or a series').selectOption('sma:50');
    await builder.getByLabel('Upper', { exact: true }).fill(upper.toFixed(2));
    await builder.getByLabel('Note (shown with each firing)').fill('Trim into the band');
    await builder.getByRole('button', { name: 'Add alert' }).click();
    const alerts = page.getByRole('list', { name: 'Alerts' });
    await alerts.getByRole('listitem').first().waitFor();
    const words = (await alerts.locator('.pc-alert-label').first().textContent()) ?? '';
    expect(words).to.include('50-day SMA');
    expect(await alerts.locator('.pc-alert-label').first().getAttribute('title')).to.equal(
      'Your note: Trim into the band',
    );
    // Saved, the form starts afresh: its note and levels went with that alert.
    await page.waitForFunction(
      () => document.querySelector<HTMLInputElement>('form[aria-label="Condition"] .cb-note input')?.value === '',
    );
    expect(await builder.getByLabel('Operator').inputValue()).to.equal('crossing');
    await page
      .locator('.plot-container')
      .getByText(`Inside SMA 50 – ${upper.toFixed(2)} ✕`)
      .waitFor();

    // The band: a line on the SMA's values, then one at the upper price filled down to it.
    const drawn = await traces(page);
    const sma = drawn.find((t) => t.name === 'SMA 50');
    const filled = drawn.findIndex((t) => t.fill === 'tonexty');
    expect(
      sma?.y?.some((v) => typeof v === 'number'),
      'the SMA has values',
    ).to.equal(true);
    expect(filled, 'a filled band').to.be.greaterThan(0);
    const lowerLine = drawn[filled - 1];
    const upperLine = drawn[filled];
    expect(lowerLine?.x).to.deep.equal(sma?.x);
    expect(lowerLine?.y).to.deep.equal(sma?.y);
    expect(new Set(upperLine?.y)).to.deep.equal(new Set([upper]));
    expect(upperLine?.yaxis).to.equal('y');
    await e2e.screenshot(page, 'pricechart-ref-band');

    // A channel of a series the chart has no panel for is listed with the reason it is not drawn.
    await builder.getByRole('button', { name: 'Change %' }).click();
    await builder.getByLabel('Operator').selectOption('outside_channel');
    // The day's change takes numbers only: no series to choose, the number field at once.
    expect(await builder.getByLabel('Lower: a number or a series').isHidden()).to.equal(true);
    await builder.getByLabel('Lower', { exact: true }).fill('-2');
    await builder.getByLabel('Upper', { exact: true }).fill('2');
    await builder.getByRole('button', { name: 'Add alert' }).click();
    await alerts.getByRole('listitem').nth(1).waitFor();
    const note = alerts.getByRole('listitem').nth(1).locator('.pc-alert-note');
    expect(await alerts.getByRole('listitem').nth(1).locator('.pc-alert-label').getAttribute('title')).to.equal(null);
    expect(await note.textContent()).to.equal('Not drawn: the chart has no change % panel');
    expect(await note.getAttribute('title')).to.equal('Not drawn: the chart has no change % panel');
    expect((await traces(page)).filter((t) => t.fill === 'tonexty')).to.have.length(1);

    // An RSI channel waits for the RSI panel, then is drawn on its axis.
    await builder.getByRole('button', { name: 'RSI 14' }).click();
    await builder.getByLabel('Operator').selectOption('outside_channel');
    await builder.getByLabel('Lower', { exact: true }).fill('30');
    await builder.getByLabel('Upper', { exact: true }).fill('70');
    await builder.getByRole('button', { name: 'Add alert' }).click();
    await alerts.getByRole('listitem').nth(2).waitFor();
    const rsiNote = alerts.getByRole('listitem').nth(2).locator('.pc-alert-note');
    expect(await rsiNote.textContent()).to.equal(
      'Not drawn: the chart shows no RSI(14) panel (turn on the RSI 14 chip)',
    );
    const rsiBand = () =>
      page.evaluate(() => {
        const graph = document.querySelector('.js-plotly-plot') as unknown as {
          layout?: { shapes?: { type?: string; yref?: string; y0?: number; y1?: number }[]; yaxis4?: unknown };
        } | null;
        return (graph?.layout?.shapes ?? [])
          .filter((shape) => shape.yref === 'y4')
          .map(({ type, y0, y1 }) => ({ type, y0, y1 }));
      });
    expect(await rsiBand()).to.deep.equal([]);
    // So does a level of RSI: a line on its panel.
    const rsiLevel = { symbol: 'AAPL', condition: { op: 'less_than', source: 'rsi:14', value: 25 } };
    expect(await createAlertIn(page, rsiLevel)).to.equal(200);
    await alerts.getByRole('listitem').nth(3).waitFor();
    expect(await alerts.getByRole('listitem').nth(3).locator('.pc-alert-note').textContent()).to.equal(
      'Not drawn: the chart shows no RSI(14) panel (turn on the RSI 14 chip)',
    );
    await page.getByRole('group', { name: 'Panels' }).getByRole('button', { name: 'RSI 14' }).click();
    await page.locator('.legendtext', { hasText: 'RSI 14' }).waitFor();
    await rsiNote.waitFor({ state: 'detached' });
    await page.locator('.plot-container').getByText('RSI 14 ≤ 25 ✕').waitFor();
    expect(await rsiBand()).to.deep.equal([
      { type: 'rect', y0: 30, y1: 70 },
      { type: 'line', y0: 25, y1: 25 },
    ]);
    await e2e.screenshot(page, 'pricechart-rsi-band');
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('closes the condition builder by Escape as by Cancel, giving the focus back to the button that opened it', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'escape');
    expect(await createAlertIn(page, { symbol: 'MSFT', condition: { op: 'greater_than', value: 1 } })).to.equal(200);
    await page.goto('/Alerts');
    const words = 'Price is at or above 1.00';
    await page.getByRole('region', { name: 'Alerts table' }).locator('.ag-row', { hasText: words }).waitFor();
    const focused = page.locator(':focus');
    const builder = page.getByRole('form', { name: 'Condition' });

    // New alert: the builder takes the focus; Escape closes it and New alert has the focus again.
    const create = page.getByRole('button', { name: 'New alert' });
    await create.focus();
    await page.keyboard.press('Enter');
    await builder.waitFor();
    await page.keyboard.press('Escape');
    await builder.waitFor({ state: 'detached' });
    await create.and(focused).waitFor();

    // Escape in the symbol's search closes its suggestions, then clears it, before it closes the builder.
    await page.keyboard.press('Enter');
    const symbol = builder.getByRole('combobox', { name: 'Symbol' });
    await symbol.fill('apple');
    const suggestions = builder.getByRole('option', { name: /AAPL/ });
    await suggestions.waitFor();
    await page.keyboard.press('Escape');
    await suggestions.waitFor({ state: 'detached' });
    expect(await builder.count(), 'the builder stays open').to.equal(1);
    expect(await symbol.inputValue()).to.equal('apple');
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => (document.activeElement as HTMLInputElement | null)?.value === '');
    expect(await builder.count(), 'the builder stays open').to.equal(1);
    await page.keyboard.press('Escape');
    await builder.waitFor({ state: 'detached' });
    await create.and(focused).waitFor();

    // Edit: Escape from one of its fields closes it unsaved, and the row's Edit button has the focus again.
    const edit = page.getByRole('button', { name: `Edit alert MSFT ${words}` });
    await edit.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: `Change the alert on MSFT: ${words}` }).waitFor();
    const level = builder.getByLabel('Level', { exact: true });
    await level.fill('2');
    await page.keyboard.press('Escape');
    await builder.waitFor({ state: 'detached' });
    await edit.and(focused).waitFor();
    // Nothing was saved: the alert is as it was.
    const held = await page.evaluate(async () => {
      const alerts = (await (await fetch('/personalize/stockalerts')).json()) as { conditiontext: string }[];
      return alerts.map((a) => a.conditiontext);
    });
    expect(held).to.deep.equal([words]);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('on a laptop says frequency and expiry under the condition, keeps status to buttons in view, and exports every column at every width', async () => {
    const { page, context, errors } = await e2e.newPage({ width: 1280, height: 800 });
    await e2e.signUp(page, 'laptop');
    const created = await createAlertIn(page, {
      symbol: 'AAPL',
      condition: { op: 'entering_channel', lower: 180.5, upper: 195.25 },
      frequency: 'once_per_bar_close',
      expires: '2030-01-02T21:00:00Z',
    });
    expect(created).to.equal(200);
    // The user's channels (none) are read with the screen: the CSV says where the triggers go from them.
    const channelsRead = page.waitForResponse((r) => new URL(r.url()).pathname === '/personalize/channels');
    await page.goto('/Alerts');
    await channelsRead;
    const grid = page.getByRole('region', { name: 'Alerts table' });
    const condition = grid.locator('.al-condition', { hasText: 'Price enters the channel 180.50 – 195.25' });
    await condition.waitFor();
    expect(await condition.locator('.al-meta').textContent()).to.equal(
      'Once per bar close · expires 2030-01-02 16:00 ET',
    );
    // Each header's name (the sort's order, a hidden number, left out).
    const headers = (await grid.getByRole('columnheader').allTextContents()).map((text) =>
      text.trim().replace(/\s+\d+$/, ''),
    );
    expect(headers.filter(Boolean)).to.deep.equal([
      'Symbol',
      'Condition',
      'Status',
      'Last fired',
      'Triggers',
      'Actions',
    ]);
    // Nothing scrolls under the pinned buttons: the last column ends where they begin.
    const triggers = await grid.getByRole('columnheader', { name: 'Triggers' }).boundingBox();
    const actions = await grid.getByRole('columnheader', { name: 'Actions' }).boundingBox();
    expect(triggers!.x + triggers!.width, 'Triggers ends before the buttons').to.be.at.most(actions!.x + 1);
    expect(actions!.x + actions!.width, 'the buttons are within the window').to.be.at.most(1280);
    await e2e.screenshot(page, 'alerts-laptop');

    /** The CSV the grid exports, as lines. */
    const exported = () => exportedLines(page, grid);
    const laptop = await exported();
    expect(laptop[0]).to.equal(
      '"Symbol","Condition","Frequency","Deliver to","Expires","Status","Last fired","Triggers"',
    );
    expect(laptop[1]).to.equal(
      '"AAPL","Price enters the channel 180.50 – 195.25","Once per bar close","The bell only (no channel yet)","2030-01-02 16:00 ET","armed","–","0"',
    );
    // A window where each alert is a card exports the same file; so does the wide one.
    await page.setViewportSize({ width: 900, height: 800 });
    await grid.locator('.al-card').first().waitFor();
    expect(await exported()).to.deep.equal(laptop);
    await page.setViewportSize({ width: 1400, height: 900 });
    await grid.getByRole('columnheader', { name: 'Frequency' }).waitFor();
    expect(await exported()).to.deep.equal(laptop);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it("shows a five-letter symbol whole in the Symbol column at every width the table has columns, and the filter's placeholder whole", async () => {
    const { page, context, errors } = await e2e.newPage({ width: 1280, height: 800 });
    await e2e.signUp(page, 'longsymbol');
    for (const symbol of ['GOOGL', 'CMCSA', 'BRK.B']) {
      expect(await createAlertIn(page, { symbol, condition: { op: 'greater_than', value: 5000 } })).to.equal(200);
    }
    await page.goto('/Alerts');
    const grid = page.getByRole('region', { name: 'Alerts table' });
    for (const width of [1280, 1920]) {
      await page.setViewportSize({ width, height: 800 });
      const chips = grid.locator('[col-id="symbol"] .symbol-chip');
      await chips.nth(2).waitFor();
      // A chip wider than its cell is cut by the cell (which hides what overflows it).
      const overflowing = await grid
        .locator('.ag-cell[col-id="symbol"]')
        .evaluateAll((cells) =>
          cells.filter((cell) => cell.scrollWidth > cell.clientWidth).map((cell) => cell.textContent),
        );
      expect(overflowing, `at ${width} px`).to.deep.equal([]);
    }
    // The filter's placeholder is whole too: typed as the field's text, it does not scroll.
    const filter = page.getByRole('searchbox', { name: 'Filter' });
    const placeholder = (await filter.getAttribute('placeholder')) ?? '';
    expect(placeholder).to.equal('Symbol, condition or note');
    await filter.fill(placeholder);
    expect(await filter.evaluate((input) => input.scrollWidth - input.clientWidth)).to.equal(0);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('sorts the alerts by any column from Sort by, also one a card folds, and keeps the order through a change of layout', async () => {
    const { page, context, errors } = await e2e.newPage({ width: 900, height: 800 });
    await e2e.signUp(page, 'sorter');
    const alerts = [
      { symbol: 'MSFT', condition: { op: 'crossing', value: 900 }, expires: '2031-03-02T21:00:00Z' },
      { symbol: 'NVDA', condition: { op: 'less_than', value: 5 }, expires: '2029-01-02T21:00:00Z' },
      { symbol: 'AAPL', condition: { op: 'greater_than', value: 500 } },
    ];
    for (const alert of alerts) expect(await createAlertIn(page, alert)).to.equal(200);
    await page.goto('/Alerts');
    const grid = page.getByRole('region', { name: 'Alerts table' });
    await grid.locator('.al-card').nth(2).waitFor();
    const sortBy = page.getByLabel('Sort by');
    /**
     * Waits until the grid shows the symbols in this order: by each row's index, not the rows' order in the page
     * (a row with a pinned column is drawn in two containers: the one holding the symbol is read).
     */
    const inOrder = (want: string[]) =>
      page.waitForFunction((expected) => {
        const shown = [...document.querySelectorAll('.al-grid .ag-row')]
          .map((row) => ({
            at: Number(row.getAttribute('row-index')),
            symbol: row.querySelector('[col-id="symbol"]')?.textContent?.replace('+', '').trim(),
          }))
          .filter((row) => row.symbol !== undefined)
          .sort((x, y) => x.at - y.at)
          .map((row) => row.symbol);
        return JSON.stringify(shown) === JSON.stringify(expected);
      }, want);
    expect(await sortBy.inputValue()).to.equal('lastfired');
    await sortBy.selectOption({ label: 'Symbol, A to Z' });
    await inOrder(['AAPL', 'MSFT', 'NVDA']);
    // The expiry is said in the card only; the alert that never expires comes last.
    await sortBy.selectOption({ label: 'Expires, soonest first' });
    await inOrder(['NVDA', 'MSFT', 'AAPL']);
    // "Price crosses 900.00", "Price is at or above 500.00", "Price is at or below 5.00".
    await sortBy.selectOption({ label: 'Condition, A to Z' });
    await inOrder(['MSFT', 'AAPL', 'NVDA']);
    // A header sorts too: Sort by names the order when it offers it, and says so when it does not.
    const symbolHeader = grid.getByRole('columnheader', { name: 'Symbol' });
    // The grid's order and the select follow the header in renders of their own: the select's is waited for too.
    const named = async (value: string): Promise<string> => {
      const select = await sortBy.elementHandle();
      await page.waitForFunction(([element, want]) => (element as HTMLSelectElement).value === want, [select, value]);
      return sortBy.inputValue();
    };
    await symbolHeader.click();
    await inOrder(['AAPL', 'MSFT', 'NVDA']);
    expect(await named('symbol')).to.equal('symbol');
    await symbolHeader.click();
    await inOrder(['NVDA', 'MSFT', 'AAPL']);
    expect(await named('')).to.equal('');
    expect(await sortBy.locator('option:checked').textContent()).to.equal('As the column headers say');
    // The wide layout's new columns keep the order.
    await page.setViewportSize({ width: 1400, height: 900 });
    await grid.getByRole('columnheader', { name: 'Frequency' }).waitFor();
    await inOrder(['NVDA', 'MSFT', 'AAPL']);
    await sortBy.selectOption({ label: 'Condition, A to Z' });
    await inOrder(['MSFT', 'AAPL', 'NVDA']);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('shows each alert whole on a phone, its buttons in view, pauses it there, and words a firing in the bell', async () => {
    const { page, context, errors } = await e2e.newPage({ width: 390, height: 844 });
    await e2e.signUp(page, 'phone');
    const created = await createAlertIn(page, {
      symbol: 'MSFT',
      condition: { op: 'crossing_up', source: 'sma:50', value: { ref: 'sma:200' } },
      frequency: 'once_per_bar',
    });
    expect(created).to.equal(200);
    await page.goto('/Alerts');
    // The alert's cell: the condition in words, then its status, frequency and firings, then its buttons.
    const row = page.locator('.al-card', { hasText: '50-day SMA crosses above the 200-day SMA' });
    await row.waitFor();
    expect(await row.locator('.al-card-meta').textContent()).to.equal('armed · Once per bar · not fired yet');
    const pause = row.getByRole('button', { name: /^Pause alert MSFT/ });
    const box = await pause.boundingBox();
    expect(box, 'the Pause button is drawn').to.not.equal(null);
    expect(box!.x + box!.width, 'the Pause button is within the screen').to.be.at.most(390);
    // Every button whole inside the cell, which cuts what overflows it (the delete ✕ was cut in half).
    const cut = await row.evaluate((card) => {
      const clip = card.closest('.ag-cell-value')!.getBoundingClientRect();
      return [...card.querySelectorAll('button')]
        .filter((b) => {
          const r = b.getBoundingClientRect();
          return r.left < clip.left - 0.5 || r.right > clip.right + 0.5;
        })
        .map((b) => b.getAttribute('aria-label') ?? b.textContent);
    });
    expect(cut, 'buttons cut by the cell').to.deep.equal([]);
    // Edit, Pause and History on one line; the delete button in the corner, beside the condition.
    const lines = await row.evaluate((card) => {
      const buttons = [...card.querySelectorAll('.al-actions > button')];
      const condition = card.querySelector('.al-card-condition')!.getBoundingClientRect();
      const remove = buttons.at(-1)!.getBoundingClientRect();
      return {
        actions: new Set(buttons.slice(0, -1).map((b) => Math.round(b.getBoundingClientRect().top))).size,
        besideCondition: remove.top < condition.bottom && remove.left >= condition.left,
      };
    });
    expect(lines).to.deep.equal({ actions: 1, besideCondition: true });
    await pause.click();
    await row.locator('.al-status', { hasText: 'paused' }).waitFor();
    await e2e.screenshot(page, 'alerts-phone');

    // The bell on a phone: no Stock column (the message starts with the symbol), the message given the width.
    const fired = await createAlertIn(page, {
      symbol: 'MSFT',
      condition: { op: 'greater_than', value: 1 },
      note: 'Sell into strength',
    });
    expect(fired).to.equal(200);
    await page.getByTestId('connection-banner').waitFor({ state: 'detached' });
    await e2e.pushTicks([{ symbol: 'MSFT', price: 400 }]);
    await page.getByTestId('bell-badge').waitFor({ timeout: 10_000 });
    await page.getByRole('button', { name: 'Notifications' }).click();
    const panel = page.getByRole('dialog', { name: 'Notifications' });
    const message = panel.getByText(/^MSFT rose above 1\.00/);
    await message.waitFor();
    const headers = await panel.getByRole('columnheader').allTextContents();
    expect(headers.map((text) => text.trim())).to.deep.equal(['Alert', 'Time']);
    const cell = await message.locator('xpath=ancestor::div[contains(@class, "ag-cell")][1]').boundingBox();
    expect(cell!.width, 'the message has most of the width').to.be.above(220);
    await e2e.screenshot(page, 'bell-phone');
    await page.keyboard.press('Escape');

    // The fired alert's history on a phone: its table scrolls within its card, the page keeps its width.
    await page.goto('/Alerts');
    const firedCard = page.locator('.al-card', { hasText: 'triggered' });
    await firedCard.getByRole('button', { name: /^History of alert MSFT/ }).click();
    await page
      .getByRole('table', { name: 'Triggers' })
      .getByText(/^MSFT rose above 1\.00/)
      .waitFor();
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
      'the page is no wider than the phone',
    ).to.equal(0);
    // Its message keeps a width to be read at (the table scrolls), not a word a line.
    const messageCell = await page
      .getByRole('table', { name: 'Triggers' })
      .locator('td.al-history-message')
      .first()
      .boundingBox();
    expect(messageCell!.width).to.be.at.least(180);

    // The dashboard's alerts and notifications show the note too: under the alert, and under its firing.
    await page.goto('/Dashboard');
    const activity = page.getByRole('region', { name: 'Alerts and notifications' });
    await activity.locator('.dash-note').nth(1).waitFor();
    expect(await activity.locator('.dash-note').allTextContents()).to.deep.equal([
      '“Sell into strength”',
      '“Sell into strength”',
    ]);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it("marks a condition's firing on a flat day with no indicator in the bell, though its words have a hyphen", async () => {
    const { page, context, errors } = await e2e.newPage({ width: 1280, height: 800 });
    await e2e.signUp(page, 'flat');
    // Against the 50-day SMA, one way or the other: one of the two holds at the previous close.
    for (const op of ['greater_than', 'less_than']) {
      const condition = { op, value: { ref: 'sma:50' } };
      expect(await createAlertIn(page, { symbol: 'AAPL', condition })).to.equal(200);
    }
    // A tick at the previous close (the last close, while the quote is that close): no change on the day.
    const quote = await page.evaluate(async () => {
      const quotes = (await (await fetch('/api/quotes?symbols=AAPL')).json()) as Quote[];
      return quotes[0]!;
    });
    const previous = quote.source === 'close' ? quote.price : quote.price - quote.change;
    await page.getByTestId('connection-banner').waitFor({ state: 'detached' });
    await e2e.pushTicks([{ symbol: 'AAPL', price: cents(previous) }]);
    await page.getByTestId('bell-badge').waitFor({ timeout: 10_000 });
    await page.getByRole('button', { name: 'Notifications' }).click();
    const panel = page.getByRole('dialog', { name: 'Notifications' });
    const row = panel.locator('.ag-row', { hasText: '50-day SMA' });
    await row.first().waitFor();
    const text = (await row.first().textContent()) ?? '';
    expect(text, text).to.include('(0.00% on the day)');
    // No move on the day, no indicator: the `-` of `50-day` is no move down.
    expect(await row.first().locator('.indicator').count()).to.equal(0);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it("writes a phone's chart tags briefly, right of every candle, their words on hover", async () => {
    const { page, context, errors } = await e2e.newPage({ width: 390, height: 844 });
    await e2e.signUp(page, 'tags');
    const price = await lastPriceIn(page, 'AAPL');
    const lower = cents(price * 1.02);
    const upper = cents(price * 1.04);
    const channel = { op: 'entering_channel', lower, upper };
    expect(await createAlertIn(page, { symbol: 'AAPL', condition: channel })).to.equal(200);
    const move = { op: 'moving_up_pct', value: 3, bars: 2 };
    expect(await createAlertIn(page, { symbol: 'AAPL', condition: move })).to.equal(200);
    const crossing = cents(price * 0.95);
    expect(await createAlertIn(page, { symbol: 'AAPL', condition: { op: 'crossing_up', value: crossing } })).to.equal(
      200,
    );
    await page.goto('/PriceCharts?stock=AAPL');
    await page.locator('.plot-container').first().waitFor();
    // Their tags (`Enter 180.00 – 190.00`, `▲ 3% in 2 bars · 187.50`, `Cross ▲ 170.00`) are wider than 30% of a
    // phone's plot: the brief ones are written, clear of the candles, which the empty bars right of the latest one
    // make room for.
    for (const tag of ['Enter ✕', '▲ 3% ✕', `▲ ${crossing.toFixed(2)} ✕`]) {
      await page.locator('.plot-container').getByText(tag, { exact: true }).waitFor();
      expect(await clearOfCandles(page, tag), `${tag} right of the latest candle`).to.equal(true);
    }
    const words = `Price enters the channel ${lower.toFixed(2)} – ${upper.toFixed(2)}`;
    expect(await hoverOf(page, 'Enter ✕')).to.equal(`${words}. Click to delete this alert`);
    expect(await hoverOf(page, '▲ 3% ✕')).to.match(/^Price moves up by 3% in 2 bars \(today at \d+\.\d\d\)\. Click/);
    await e2e.screenshot(page, 'pricechart-tags-phone');
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it("shows at a laptop's width an expiry set or cleared by an edit that changes nothing else", async () => {
    // Below 1,400 px the frequency and the expiry are said under the condition, in its cell.
    const { page, context, errors } = await e2e.newPage({ width: 1280, height: 800 });
    await e2e.signUp(page, 'expiry');
    expect(await createAlertIn(page, { symbol: 'KO', condition: { op: 'greater_than', value: 500 } })).to.equal(200);
    await page.goto('/Alerts');
    await page.getByTestId('connection-banner').waitFor({ state: 'detached' });
    const meta = page.locator('[col-id="conditiontext"] .al-meta');
    await meta.first().waitFor();
    expect(await meta.textContent()).to.equal('Only once');
    const edit = async (expires: string) => {
      await page.getByRole('button', { name: /^Edit alert KO/ }).click();
      const builder = page.getByRole('form', { name: 'Condition' });
      await builder.getByLabel(/^Expires/).fill(expires);
      await builder.getByRole('button', { name: 'Save and re-arm' }).click();
      await builder.waitFor({ state: 'detached' });
    };
    await edit('2030-01-02T16:00');
    await meta.getByText(/· expires 2030-01-02 16:00/).waitFor();
    await edit('');
    await page.waitForFunction(
      () => document.querySelector('[col-id="conditiontext"] .al-meta')?.textContent === 'Only once',
    );
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('opens an alert fired before an expiry that has passed since in the builder to re-arm it, no error', async () => {
    const { page, context, errors } = await e2e.newPage({ width: 1400, height: 900 });
    await e2e.signUp(page, 'lapsed');
    await page.getByTestId('connection-banner').waitFor({ state: 'detached' });
    const expires = Date.now() + 5_000;
    const created = await createAlertIn(page, {
      symbol: 'KO',
      condition: { op: 'greater_than', value: 1 },
      expires: new Date(expires).toISOString(),
    });
    expect(created).to.equal(200);
    await e2e.pushTicks([{ symbol: 'KO', price: 70 }]);
    await page.goto('/Alerts');
    const rearm = page.getByRole('button', { name: /^Re-arm alert KO/ });
    await rearm.waitFor({ timeout: 10_000 });
    // Fired, and now past its expiry: re-arming it needs a later one, which the builder asks for.
    await page.waitForFunction((at) => Date.now() > at, expires, { timeout: 10_000 });
    await rearm.click();
    await page.getByText('has passed; set a later time, or clear it, to re-arm the alert').waitFor();
    expect(await page.getByText('The alert could not be re-armed').count()).to.equal(0);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('refuses a decimal comma in a level, and closes the builder of an alert deleted elsewhere, saying so', async () => {
    const { page, context, errors } = await e2e.newPage({ width: 1400, height: 900 });
    await e2e.signUp(page, 'elsewhere');
    expect(await createAlertIn(page, { symbol: 'KO', condition: { op: 'greater_than', value: 500 } })).to.equal(200);
    await page.goto('/Alerts');
    await page.getByTestId('connection-banner').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: /^Edit alert KO/ }).click();
    await page.getByRole('heading', { name: /^Change the alert on KO/ }).waitFor();
    const builder = page.getByRole('form', { name: 'Condition' });
    const level = builder.getByLabel('Level', { exact: true });
    // 62,50 is a decimal comma: refused, naming the field, rather than read as a level of 6,250.
    await level.fill('62,50');
    await builder.getByRole('button', { name: 'Save and re-arm' }).click();
    await builder
      .getByRole('alert')
      .getByText(/^Level: /)
      .waitFor();
    const levels = async () =>
      page.evaluate(async () =>
        (
          (await (await fetch('/personalize/stockalerts')).json()) as { id: string; condition: { value: number } }[]
        ).map((a) => ({ id: a.id, value: a.condition.value })),
      );
    const [held] = await levels();
    expect(held?.value, 'nothing was saved').to.equal(500);

    // The alert is deleted elsewhere (another tab, another device) while its builder is open here.
    const deleted = await page.evaluate(
      async (id) => (await fetch(`/personalize/deletealert/${id}`, { method: 'POST' })).status,
      held!.id,
    );
    expect(deleted).to.equal(200);
    await page.getByText('The alert you were changing on KO was deleted elsewhere').waitFor();
    await builder.waitFor({ state: 'detached' });
    expect(await page.getByRole('heading', { name: 'New alert' }).count(), 'no blank new alert instead').to.equal(0);
    expect(await levels()).to.deep.equal([]);
    expect(errors).to.deep.equal([]);
    await context.close();
  });
});
