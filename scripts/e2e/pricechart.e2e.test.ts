import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { formingRsi } from '../../domain/market/rsi.ts';
import { createAlertIn, startE2E, type E2E } from './browser.ts';

/** The traces of the chart's Plotly graph, by type. */
async function traceTypes(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const graph = document.querySelector('.js-plotly-plot') as unknown as { data?: { type?: string }[] } | null;
    return (graph?.data ?? []).map((trace) => trace.type ?? 'scatter');
  });
}

/** The last price of a symbol, read through the page's session. */
async function lastPrice(page: Page, symbol: string): Promise<number> {
  return page.evaluate(async (s) => {
    const quotes = (await (await fetch(`/api/quotes?symbols=${s}`)).json()) as { price: number }[];
    return quotes[0]?.price ?? 100;
  }, symbol);
}

describe('price chart (Chromium)', function () {
  this.timeout(180_000);
  let e2e: E2E;

  before(async function () {
    e2e = await startE2E();
  });
  after(async () => {
    await e2e?.close();
  });

  it('draws candlesticks, adds a typed price alert whose line fires into the bell, and deletes it by its label', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'chart');
    await page.goto('/PriceCharts?stock=AAPL');
    await page.locator('.plot-container').first().waitFor();
    expect(await traceTypes(page)).to.include.members(['candlestick', 'bar']);
    // The latest candle keeps clear of the plot's right edge, where the alerts' labels are written: empty bars
    // right of it, a tenth of the bars shown.
    const clearance = await page
      .locator('.js-plotly-plot')
      .first()
      .evaluate((graph) => {
        const plot = graph.querySelector('.nsewdrag')!.getBoundingClientRect();
        const candles = [...graph.querySelectorAll('.boxlayer path.box')].map((c) => c.getBoundingClientRect());
        const first = candles[0]!;
        const last = candles.at(-1)!;
        const spacing = (last.left - first.left) / Math.max(1, candles.length - 1);
        return { bars: (plot.right - last.right) / spacing, shown: candles.length };
      });
    expect(clearance.bars, 'empty bars right of the latest candle').to.be.at.least(Math.floor(clearance.shown / 10));
    await page.getByTestId('chart-quote').waitFor();
    await page.getByTestId('connection-banner').waitFor({ state: 'detached' });

    const price = await lastPrice(page, 'AAPL');
    const threshold = (Math.round(price * 101) / 100).toFixed(2);
    // A refused price keeps what was typed, for another try.
    await page.getByLabel('Alert price').fill('0');
    await page.getByLabel('Price alert note').fill('Above last week’s high: buy the first pullback');
    await page.getByRole('button', { name: 'Add price alert' }).click();
    await page.getByText('Price: at least 0.01').waitFor();
    expect(await page.getByLabel('Alert price').inputValue(), 'the refused price is kept').to.equal('0');
    expect(await page.getByLabel('Price alert note').inputValue(), 'the note is kept').to.equal(
      'Above last week’s high: buy the first pullback',
    );
    await page.getByLabel('Alert price').fill(threshold);
    await page.getByRole('button', { name: 'Add price alert' }).click();
    const label = page.locator('.plot-container').getByText(`▲ Up ${threshold} ✕`);
    await label.waitFor();
    expect(await page.getByRole('list', { name: 'Alerts' }).getByText('armed').count()).to.equal(1);
    expect(await page.locator('.pc-alert-label').getAttribute('title')).to.equal(
      'Your note: Above last week’s high: buy the first pullback',
    );
    expect(await page.getByLabel('Price alert note').inputValue(), 'the form is cleared for the next').to.equal('');
    expect(await page.getByLabel('Alert price').inputValue()).to.equal('');

    await e2e.pushTicks([{ symbol: 'AAPL', price: Math.round(price * 104) / 100, size: 100 }]);
    const badge = page.getByTestId('bell-badge');
    await badge.waitFor({ timeout: 10_000 });
    expect(await badge.textContent()).to.equal('1');
    await page.locator('.plot-container').getByText(`▲ Up ${threshold} · triggered ✕`).waitFor();
    await page.getByRole('list', { name: 'Alerts' }).getByText('triggered', { exact: true }).waitFor();

    // Its tag on the chart asks before deleting: Keep keeps it, Delete deletes it.
    const tag = page.locator('.plot-container').getByText(`▲ Up ${threshold} · triggered ✕`);
    const ask = page.getByRole('alertdialog', { name: `Delete alert ▲ Up ${threshold} · triggered?` });
    await tag.click();
    await ask.getByRole('button', { name: 'Keep' }).click();
    await ask.waitFor({ state: 'detached' });
    expect(await page.getByRole('list', { name: 'Alerts' }).getByRole('listitem').count(), 'kept').to.equal(1);
    await tag.click();
    await ask.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No alerts on AAPL yet').waitFor();
    expect(await page.locator('.plot-container').getByText(threshold).count()).to.equal(0);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('draws on 1D the minutes the session traded before the page opened', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'minutes');
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    await e2e.pushTicks([
      { symbol: 'NVDA', price: 140.1, size: 100, ts: minute - 120_000 + 5_000 },
      { symbol: 'NVDA', price: 141.3, size: 50, ts: minute - 120_000 + 30_000 },
      { symbol: 'NVDA', price: 139.8, size: 70, ts: minute - 60_000 + 5_000 },
    ]);
    await page.goto('/PriceCharts?stock=NVDA');
    await page.locator('.plot-container').first().waitFor();
    await page.getByRole('group', { name: 'Duration' }).getByRole('button', { name: '1D' }).click();
    const drawn = await page.waitForFunction(() => {
      const graph = document.querySelector('.js-plotly-plot') as unknown as {
        data?: { type?: string; open?: number[]; high?: number[]; low?: number[]; close?: number[] }[];
        layout?: { xaxis?: { title?: { text?: string } } };
      } | null;
      if (graph?.layout?.xaxis?.title?.text !== 'Time (New York)') return null;
      const candles = graph.data?.find((t) => t.type === 'candlestick');
      return candles?.close?.length
        ? { open: candles.open, high: candles.high, low: candles.low, close: candles.close }
        : null;
    });
    expect(await drawn.jsonValue()).to.deep.equal({
      open: [140.1, 139.8],
      high: [141.3, 139.8],
      low: [140.1, 139.8],
      close: [141.3, 139.8],
    });
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it("draws today's moving averages and RSI on the forming candle, today's price counted, and moves them", async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'averages');
    await page.goto('/PriceCharts?stock=MSFT');
    await page.locator('.plot-container').first().waitFor();
    await page.getByTestId('connection-banner').waitFor({ state: 'detached' });
    await page.getByRole('group', { name: 'Panels' }).getByRole('button', { name: 'RSI 14' }).click();
    await page.locator('.legendtext', { hasText: 'RSI 14' }).waitFor();
    const { next, close } = await page.evaluate(async () => {
      const answer = (await (await fetch('/api/bars/MSFT?months=3')).json()) as {
        bars: { close: number }[];
        next: { SMA_50: number; SMA_200: number; rsi_14: { gain: number; loss: number } };
      };
      return { next: answer.next, close: answer.bars.at(-1)!.close };
    });
    /** The forming candle's date and the last point of each average, once the candle is at `price`. */
    const lastPoints = (price: number) =>
      page.waitForFunction((close) => {
        const graph = document.querySelector('.js-plotly-plot') as unknown as {
          data: { type?: string; name?: string; x: string[]; y: (number | null)[]; close?: number[] }[];
        };
        const candles = graph.data.find((trace) => trace.type === 'candlestick');
        if (candles?.close?.at(-1) !== close) return null;
        const [sma50, sma200, rsi] = ['SMA 50', 'SMA 200', 'RSI 14'].map(
          (name) => graph.data.find((trace) => trace.name === name)?.y.at(-1) ?? null,
        );
        return { date: candles.x.at(-1), sma50, sma200, rsi };
      }, price);
    const price = Math.round((await lastPrice(page, 'MSFT')) * 103) / 100;
    await e2e.pushTicks([{ symbol: 'MSFT', price, size: 100 }]);
    const today = await (await lastPoints(price)).jsonValue();
    expect(today?.sma50, "today's 50-day average").to.be.closeTo((next.SMA_50 + price) / 50, 1e-6);
    expect(today?.sma200, "today's 200-day average").to.be.closeTo((next.SMA_200 + price) / 200, 1e-6);
    const { gain, loss } = next.rsi_14;
    expect(today?.rsi, "today's RSI 14").to.be.closeTo(formingRsi(gain, loss, price - close, 14), 1e-6);
    const later = Math.round(price * 102) / 100;
    await e2e.pushTicks([{ symbol: 'MSFT', price: later, size: 100 }]);
    const moved = await (await lastPoints(later)).jsonValue();
    expect(moved?.date, 'the same forming candle').to.equal(today?.date);
    expect(moved?.sma50).to.be.closeTo((next.SMA_50 + later) / 50, 1e-6);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it("moves a condition's line dragged to another price, puts a dragged support line back, and adds an alert at it clicked", async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'chart');
    await page.goto('/PriceCharts?stock=AAPL');
    const price = await lastPrice(page, 'AAPL');
    const level = Math.round(price * 95) / 100;
    expect(
      await createAlertIn(page, {
        symbol: 'AAPL',
        condition: { op: 'less_than', value: level },
        frequency: 'every_time',
        note: 'Add on the dip',
      }),
    ).to.equal(200);
    await page.reload();
    const alerts = page.getByRole('list', { name: 'Alerts' });
    await alerts.getByText(`Price is at or below ${level.toFixed(2)}`).waitFor();
    await page.locator('.plot-container').first().waitFor();
    /** Each line's price and where it is on the screen, in the order of the layout's shapes. */
    const lines = (): Promise<{ y0: number; x: number; y: number }[]> =>
      page.evaluate(`(() => {
        const gd = document.querySelector('.js-plotly-plot');
        const ax = gd._fullLayout.yaxis;
        const xa = gd._fullLayout.xaxis;
        const box = gd.getBoundingClientRect();
        return (gd.layout.shapes || [])
          .filter((s) => s.type === 'line' && s.yref === 'y')
          .map((s) => ({ y0: s.y0, x: box.left + xa._offset + xa._length * 0.5, y: box.top + ax._offset + ax.d2p(s.y0) }));
      })()`);
    const drag = async (line: { x: number; y: number }, dy: number) => {
      await page.mouse.move(line.x, line.y);
      await page.mouse.down();
      await page.mouse.move(line.x, line.y + dy / 2, { steps: 4 });
      await page.mouse.move(line.x, line.y + dy, { steps: 4 });
      await page.mouse.up();
    };
    const before = await lines();
    const alertLine = before.find((l) => Math.abs(l.y0 - level) < 1e-9);
    expect(alertLine, 'the alert is drawn as a line').to.not.equal(undefined);
    expect(before.at(-1), 'above every other line').to.equal(alertLine);

    await drag(alertLine!, 30);
    const moved = alerts.getByText(/^Price is at or below \d+\.\d\d$/);
    await page.waitForFunction(
      (was) =>
        [...document.querySelectorAll('.pc-alert-label')].some(
          (e) => /at or below/.test(e.textContent ?? '') && !(e.textContent ?? '').includes(was),
        ),
      level.toFixed(2),
    );
    const to = Number(/(\d+\.\d\d)$/.exec((await moved.textContent()) ?? '')?.[1]);
    expect(to).to.be.below(level);
    const answer = await page.evaluate<{ condition: { op: string; value: number }; frequency: string; note: string }[]>(
      `fetch('/personalize/stockalerts').then((r) => r.json())`,
    );
    expect(answer).to.have.length(1);
    expect(answer[0]).to.deep.include({ frequency: 'every_time', note: 'Add on the dip' });
    expect(answer[0]!.condition).to.deep.include({ op: 'less_than', value: to });

    // A support or resistance line is the market's: dragged, it goes back to its price.
    const fixed = (await lines()).find((l) => Math.abs(l.y0 - to) > 1e-9);
    expect(fixed, 'a support or resistance line').to.not.equal(undefined);
    await page.evaluate(`(() => {
      window.__dragged = [];
      document.querySelector('.js-plotly-plot').on('plotly_relayout', (e) => window.__dragged.push(Object.keys(e)));
    })()`);
    await drag(fixed!, 40);
    // Plotly took the drag (the line left its price), and the chart then put it back.
    await page.waitForFunction(() =>
      (window as unknown as { __dragged: string[][] }).__dragged.some((keys) =>
        keys.some((k) => /^shapes\[\d+\]\.y0$/.test(k)),
      ),
    );
    await page.waitForFunction(
      (y0) =>
        (
          (document.querySelector('.js-plotly-plot') as unknown as { layout: { shapes?: { y0: number }[] } }).layout
            .shapes ?? []
        ).some((shape) => shape.y0 === y0),
      fixed!.y0,
    );
    expect((await lines()).map((l) => l.y0)).to.include(fixed!.y0);
    // Clicked, it places an alert at its price.
    const support = (await lines()).find((l) => l.y0 === fixed!.y0)!;
    await page.mouse.click(support.x, support.y);
    await page.getByRole('dialog', { name: `Add an alert at ${fixed!.y0.toFixed(2)}` }).waitFor();
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('adds an alert by clicking the chart, compares a symbol, hides and resets it, and opens others by company', async () => {
    const { page, context, errors } = await e2e.newPage();
    await e2e.signUp(page, 'chart');
    await page.goto('/PriceCharts?stock=AAPL');
    await page.locator('.plot-container').first().waitFor();
    await page.getByTestId('chart-quote').waitFor();

    const plot = page.locator('.nsewdrag').first();
    const box = await plot.boundingBox();
    if (!box) throw new Error('no plot area');
    await page.mouse.click(box.x + box.width / 2, box.y + box.height * 0.15);
    const popover = page.getByRole('dialog', { name: /Add an alert at/ });
    await popover.waitFor();
    // Escape closes it, the focus left on the chart rather than lost to the page.
    await page.keyboard.press('Escape');
    await popover.waitFor({ state: 'detached' });
    await page.locator('.pc-chart-wrap:focus').waitFor();
    await page.mouse.click(box.x + box.width / 2, box.y + box.height * 0.15);
    await popover.getByRole('button', { name: '▲ Up (U)' }).click();
    await page.getByRole('list', { name: 'Alerts' }).getByRole('listitem').first().waitFor();
    expect(
      await page
        .locator('.plot-container')
        .getByText(/▲ Up \d+\.\d\d ✕/)
        .count(),
    ).to.equal(1);

    // The symbols to compare and to open are searched by symbol or company, as everywhere else.
    await page.getByRole('combobox', { name: 'Compare symbol' }).fill('Microsoft');
    await page.getByRole('option', { name: /^MSFT Microsoft/ }).click();
    await page.locator('.legendtext', { hasText: 'MSFT' }).waitFor();
    await page.getByRole('button', { name: 'Hide MSFT (normalised)' }).click();
    await page.locator('.legendtext', { hasText: 'MSFT' }).waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Reset hidden' }).click();
    await page.locator('.legendtext', { hasText: 'MSFT' }).waitFor();

    await page.getByRole('button', { name: '1Y' }).click();
    await page.locator('.pc-reloading').waitFor({ state: 'detached' });
    await page.locator('.legendtext', { hasText: 'SMA 200' }).waitFor();
    await e2e.screenshot(page, 'pricechart');

    await page.getByRole('combobox', { name: 'Open another symbol' }).fill('nvidia');
    await page.getByRole('option', { name: /^NVDA/ }).waitFor();
    await page.keyboard.press('Enter');
    await page.waitForURL('**/PriceCharts?stock=NVDA');
    await page.getByTestId('chart-quote').waitFor();
    await page.goto('/PriceCharts');
    await page.getByText('No symbol chosen').waitFor();
    await page.getByRole('combobox', { name: 'Symbol to chart' }).fill('apple');
    await page.getByRole('option', { name: /^AAPL Apple/ }).waitFor();
    await page.keyboard.press('Enter');
    await page.waitForURL('**/PriceCharts?stock=AAPL');
    await page.getByTestId('chart-quote').waitFor();
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('keeps an open alert popover at its price and place across the plot when the window is resized', async () => {
    const { page, context, errors } = await e2e.newPage({ width: 1400, height: 900 });
    await e2e.signUp(page, 'chart');
    await page.goto('/PriceCharts?stock=AAPL');
    await page.locator('.plot-container').first().waitFor();
    await page.getByTestId('chart-quote').waitFor();
    const box = await page.locator('.nsewdrag').first().boundingBox();
    if (!box) throw new Error('no plot area');
    await page.mouse.click(box.x + box.width * 0.5, box.y + box.height * 0.2);
    await page.getByRole('dialog', { name: /Add an alert at/ }).waitFor();
    /**
     * How far the popover's anchor is from where its price is on the price axis now, in pixels, and where it is
     * across the plot (a fraction of its width).
     */
    const offAxis = () =>
      page.evaluate(() => {
        const popover = document.querySelector<HTMLElement>('.pc-popover')!;
        const price = Number(/at ([\d.]+)/.exec(popover.getAttribute('aria-label') ?? '')?.[1]);
        type Axis = { _offset: number; _length: number; d2p: (v: number) => number };
        const graph = document.querySelector('.pc-chart-wrap .js-plotly-plot') as unknown as HTMLElement & {
          _fullLayout: { xaxis: Axis; yaxis: Axis };
        };
        const { xaxis, yaxis } = graph._fullLayout;
        const g = graph.getBoundingClientRect();
        const wrap = (popover.offsetParent as HTMLElement).getBoundingClientRect();
        const top = parseFloat(popover.style.top) - (g.top - wrap.top) - yaxis._offset;
        const left = parseFloat(popover.style.left) - (g.left - wrap.left) - xaxis._offset;
        return { pixels: Math.abs(top - yaxis.d2p(price)), across: left / xaxis._length, width: xaxis._length };
      });
    const before = await offAxis();
    expect(before.pixels, 'opened at its price').to.be.below(2);
    await page.setViewportSize({ width: 900, height: 700 });
    await page.waitForFunction((width) => {
      const graph = document.querySelector('.pc-chart-wrap .js-plotly-plot') as unknown as {
        _fullLayout: { xaxis: { _length: number } };
      };
      return graph._fullLayout.xaxis._length < width - 100;
    }, before.width);
    await page.waitForFunction(() => document.querySelector('.pc-popover') !== null);
    const after = await offAxis();
    expect(after.pixels, 'at its price on the narrower chart').to.be.below(2);
    expect(after.across, 'at the same place across the plot').to.be.closeTo(before.across, 0.01);
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it("writes the patterns' names apart, whole and clear of the bars on a phone's chart and a wide one", async () => {
    const { page, context, errors } = await e2e.newPage({ width: 390, height: 844 });
    await e2e.signUp(page, 'names');
    await page.goto('/PriceCharts?stock=AAPL');
    await page.locator('.plot-container').first().waitFor();
    /**
     * How many names are written once the candles and markers are drawn, no name covers another, a marker other
     * than its own or a candle, none is cut at the plot's side, and the dates are level and inside the chart
     * (waiting a frame at a time for the redraw); -1 if that never comes.
     */
    const namesClear = () =>
      page
        .locator('.js-plotly-plot')
        .first()
        .evaluate(async (graph) => {
          for (let frame = 0; frame < 180; frame++) {
            const plot = graph.querySelector('.nsewdrag')!.getBoundingClientRect();
            const chart = graph.getBoundingClientRect();
            const boxes = [...graph.querySelectorAll('.scatterlayer .textpoint text')]
              .filter((text) => (text.textContent ?? '').trim() !== '')
              .map((text) => text.getBoundingClientRect());
            const markers = [...graph.querySelectorAll('.scatterlayer path.point')].map((m) =>
              m.getBoundingClientRect(),
            );
            const candles = [...graph.querySelectorAll('.boxlayer path.box')].map((c) => c.getBoundingClientRect());
            // Boxes overlapping by more than a pixel; a marker is a name's own when centred under it.
            const covered = boxes.some((a, i) =>
              [...boxes.filter((_, j) => j > i), ...markers, ...candles].some(
                (b) =>
                  Math.abs(b.left + b.right - a.left - a.right) > 2 &&
                  a.left < b.right - 1 &&
                  b.left < a.right - 1 &&
                  a.top < b.bottom - 1 &&
                  b.top < a.bottom - 1,
              ),
            );
            const whole = boxes.every((box) => box.left >= plot.left - 1 && box.right <= plot.right + 1);
            const dates = [...graph.querySelectorAll('.xtick text')];
            const level = dates.every((text) => !/rotate\((?!0[,)])/.test(text.getAttribute('transform') ?? ''));
            const inside = dates
              .map((text) => text.getBoundingClientRect())
              .every((box) => box.left >= chart.left && box.right <= chart.right);
            const drawn = candles.length > 20 && markers.length > 0;
            if (drawn && !covered && whole && dates.length >= 3 && level && inside) return boxes.length;
            await new Promise(requestAnimationFrame);
          }
          return -1;
        });
    /**
     * Whether the mode bar's buttons are shown and whether any of them lies over an entry of the legend (a touch
     * there would reach the button, not the entry), once the chart shows the legend and the mode bar as `wanted`
     * with none over it (a frame at a time, the chart redrawn at its width); as they are after 180 frames if never.
     */
    const modeBarOverLegend = (wanted: boolean) =>
      page
        .locator('.js-plotly-plot')
        .first()
        .evaluate(async (graph, modeBarWanted) => {
          let seen = { entries: 0, modeBar: false, over: false };
          for (let frame = 0; frame < 180; frame++) {
            const entries = [...graph.querySelectorAll('.legend .traces')].map((e) => e.getBoundingClientRect());
            const buttons = [...graph.querySelectorAll('.modebar-btn')].map((b) => b.getBoundingClientRect());
            const over = buttons.some((b) =>
              entries.some((e) => e.left < b.right && b.left < e.right && e.top < b.bottom && b.top < e.bottom),
            );
            seen = { entries: entries.length, modeBar: buttons.length > 0, over };
            if (entries.length >= 3 && !over && seen.modeBar === modeBarWanted) break;
            await new Promise(requestAnimationFrame);
          }
          return seen;
        }, wanted);
    // A phone's candles are close together: a name written there may be none (each shows when its marker is
    // touched), but none that covers anything. The mode bar is not shown there: it would cover the legend.
    const onPhone = await namesClear();
    expect(onPhone, "the names on a phone's chart covering nothing, the dates level").to.be.at.least(0);
    const phone = await modeBarOverLegend(false);
    expect(phone.over, "no button over a phone's legend").to.equal(false);
    expect(phone, 'its four entries, no mode bar').to.deep.equal({ entries: 4, modeBar: false, over: false });
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.waitForFunction(() => (document.querySelector('.js-plotly-plot') as HTMLElement).clientWidth > 700);
    const wide = await namesClear();
    expect(wide, 'the names on a wide chart covering nothing').to.be.above(0);
    expect(wide).to.be.at.least(onPhone);
    expect(await modeBarOverLegend(true), 'a wide chart with its mode bar, clear of the legend').to.deep.equal({
      entries: 4,
      modeBar: true,
      over: false,
    });
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it("places alerts and a channel's bounds by taps on a phone's chart, its popovers on the screen at the chart's edge", async () => {
    // A touch screen: a tap reaches the chart as the click Plotly makes of it, which has no place of its own.
    const { page, context, errors } = await e2e.newPage({ width: 390, height: 844, touch: true });
    await e2e.signUp(page, 'chart');
    await page.goto('/PriceCharts?stock=AAPL');
    await page.locator('.plot-container').first().waitFor();
    await page.getByTestId('chart-quote').waitFor();
    /** The plot area where it is now (a click on a button above it may have scrolled the page). */
    const plotBox = async () => {
      const box = await page.locator('.nsewdrag').first().boundingBox();
      if (!box) throw new Error('no plot area');
      return box;
    };
    /**
     * A point of the plot area at `x` px from its left, `from` of its height down or below: the first there that
     * is the plot itself (a line's drag handle or a label takes the click instead).
     */
    const freePoint = async (x: number, from: number) => {
      const box = await plotBox();
      return page.evaluate(
        ([left, top, height]) => {
          for (let y = top; y < top + height; y += 4) {
            if (document.elementFromPoint(left, y)?.classList.contains('nsewdrag')) return { x: left, y };
          }
          throw new Error(`no free point of the plot at ${left}`);
        },
        [box.x + (x < 0 ? box.width + x : x), box.y + box.height * from, box.height * (1 - from)] as const,
      );
    };
    /** The popover's left and right edges, and how wide the page can scroll. */
    const placeOf = (name: RegExp) =>
      page.getByRole('dialog', { name }).evaluate((dialog) => {
        const { left, right } = dialog.getBoundingClientRect();
        return { left, right, page: document.documentElement.scrollWidth };
      });

    // A channel drawn at the plot's right edge: its popover (with the note) is moved in, the page not widened.
    await page
      .getByRole('group', { name: 'A click on the chart draws' })
      .getByRole('button', { name: 'Channel' })
      .click();
    const first = await freePoint(-3, 0.1);
    await page.touchscreen.tap(first.x, first.y);
    const started = page.locator('.plot-container').getByText(/Channel from \d+\.\d\d: click the other bound/);
    await started.waitFor();
    const from = /Channel from (\d+\.\d\d)/.exec((await started.textContent()) ?? '')?.[1];
    const second = await freePoint(-3, 0.4);
    await page.touchscreen.tap(second.x, second.y);
    const drawn = page.getByRole('dialog', { name: /Add a channel alert/ });
    await drawn.waitFor();
    // The first tap, higher on the chart, is the upper bound; the second the lower.
    const [lower, upper] = /([\d.]+) – ([\d.]+)/.exec((await drawn.getAttribute('aria-label')) ?? '')!.slice(1);
    expect(upper).to.equal(from);
    expect(Number(lower)).to.be.below(Number(upper));
    const channel = await placeOf(/Add a channel alert/);
    expect(channel.left).to.be.at.least(0);
    expect(channel.right).to.be.at.most(390);
    expect(channel.page, 'no sideways scroll').to.be.at.most(390);
    await page.keyboard.press('Escape');

    // A level at the left edge: its popover whole on the screen, and its buttons make the alert.
    await page
      .getByRole('group', { name: 'A click on the chart draws' })
      .getByRole('button', { name: 'Price level' })
      .click();
    const level = await freePoint(3, 0.2);
    await page.touchscreen.tap(level.x, level.y);
    const popover = page.getByRole('dialog', { name: /Add an alert at/ });
    await popover.waitFor();
    const place = await placeOf(/Add an alert at/);
    expect(place.left).to.be.at.least(0);
    expect(place.right).to.be.at.most(390);
    await popover.getByRole('button', { name: '▲ Up (U)' }).click();
    await page.getByRole('list', { name: 'Alerts' }).getByRole('listitem').first().waitFor();
    expect(errors).to.deep.equal([]);
    await context.close();
  });
});
