import { expect } from 'chai';
import { createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import {
  chartTitle,
  drillMachine,
  initialMode,
  linesRequest,
  type DrillEvent,
  type DrillLines,
  type DrillSetup,
  type LinesRequest,
} from './drill.machine.ts';

const SETUP: DrillSetup = {
  positions: ['AAPL', 'XOM'],
  groups: {
    gics: [
      { id: 'gics:Energy', name: 'Energy', symbols: ['XOM', 'CVX'], mine: false },
      { id: 'gics:Utilities', name: 'Utilities', symbols: ['NEE', 'DUK'], mine: false },
    ],
    mine: [{ id: 'mine:9', name: 'Chips', symbols: ['NVDA', 'AMD'], mine: true }],
  },
};

function linesOf(request: LinesRequest): DrillLines {
  if (request.kind === 'sectors') {
    return {
      kind: 'sectors',
      months: request.months,
      dates: ['d1', 'd2'],
      series: ['Energy', 'Utilities'].map((s) => ({ key: s, label: s, values: [0, 1] })),
    };
  }
  return {
    kind: 'symbols',
    months: request.months,
    dates: ['d1', 'd2'],
    series: request.symbols.map((s) => ({ key: s, label: s, values: [0, 1] })),
  };
}

function drill(options: { setup?: DrillSetup; failLines?: number } = {}) {
  const requests: LinesRequest[] = [];
  const opened: string[] = [];
  let setupLoads = 0;
  let push: ((event: DrillEvent) => void) | null = null;
  const actor = createActor(
    drillMachine.provide({
      actors: {
        loadSetup: fromPromise<DrillSetup>(async () => {
          setupLoads += 1;
          return Promise.resolve(options.setup ?? SETUP);
        }),
        loadLines: fromPromise<DrillLines, LinesRequest>(async ({ input }) => {
          requests.push(input);
          if (requests.length <= (options.failLines ?? 0)) throw new Error('The server could not answer');
          return Promise.resolve(linesOf(input));
        }),
        portfolioChanges: fromCallback<DrillEvent>(({ sendBack }) => {
          push = sendBack;
        }),
      },
      actions: { openChart: (_, params) => opened.push(params.symbol) },
      delays: { sliderSettle: 5 },
    }),
  ).start();
  return { actor, requests, opened, setupLoads: () => setupLoads, push: (e: DrillEvent) => push?.(e) };
}

const ready = { data: 'ready' } as const;

describe('drill machine', () => {
  it("loads the user's positions and plots them over 3 months", async () => {
    const { actor, requests } = drill();
    expect(actor.getSnapshot().matches({ data: 'loading' })).to.equal(true);
    await waitFor(actor, (s) => s.matches(ready));
    expect(actor.getSnapshot().context.mode).to.equal('positions');
    expect(requests).to.deep.equal([{ kind: 'symbols', symbols: ['AAPL', 'XOM'], months: 3 }]);
    expect(actor.getSnapshot().context.lines?.series.map((s) => s.key)).to.deep.equal(['AAPL', 'XOM']);
  });

  it('opens on every sector when the portfolio is empty', async () => {
    const { actor, requests } = drill({ setup: { ...SETUP, positions: [] } });
    await waitFor(actor, (s) => s.matches(ready));
    expect(actor.getSnapshot().context.mode).to.equal('sectors');
    expect(requests).to.deep.equal([{ kind: 'sectors', months: 3 }]);
  });

  it('keeps the failure message, stops loading and retries the chart', async () => {
    const { actor, requests } = drill({ failLines: 1 });
    await waitFor(actor, (s) => s.matches({ data: 'failed' }));
    expect(actor.getSnapshot().context.error).to.equal('The server could not answer');
    actor.send({ type: 'user.retry' });
    await waitFor(actor, (s) => s.matches(ready));
    expect(requests).to.have.length(2);
    expect(actor.getSnapshot().context.error).to.equal(null);
  });

  it('plots all sectors, then one sector, each time from a fresh focus', async () => {
    const { actor, requests } = drill();
    await waitFor(actor, (s) => s.matches(ready));
    actor.send({ type: 'user.clickLine', key: 'AAPL' });
    actor.send({ type: 'user.setMode', mode: 'sectors' });
    expect(actor.getSnapshot().context.focus.isolated).to.equal(null);
    await waitFor(actor, (s) => s.matches(ready));
    expect(actor.getSnapshot().context.lines?.kind).to.equal('sectors');
    actor.send({ type: 'user.selectSector', sectorId: 'mine:9' });
    await waitFor(actor, (s) => s.matches(ready));
    expect(requests.at(-1)).to.deep.equal({ kind: 'symbols', symbols: ['NVDA', 'AMD'], months: 3 });
    expect(chartTitle(actor.getSnapshot().context)).to.equal('Chips');
  });

  it('drills into a sector on the second click of its line', async () => {
    const { actor, opened } = drill({ setup: { ...SETUP, positions: [] } });
    await waitFor(actor, (s) => s.matches(ready));
    actor.send({ type: 'user.clickLine', key: 'Utilities' });
    expect(actor.getSnapshot().context.focus.isolated).to.equal('Utilities');
    actor.send({ type: 'user.clickLine', key: 'Utilities' });
    await waitFor(actor, (s) => s.matches(ready));
    expect(actor.getSnapshot().context).to.include({ mode: 'sector', sectorId: 'gics:Utilities' });
    expect(actor.getSnapshot().context.lines?.series.map((s) => s.key)).to.deep.equal(['NEE', 'DUK']);
    expect(opened).to.deep.equal([]);
  });

  it('isolates a stock on the first click and opens its chart on the second', async () => {
    const { actor, opened } = drill();
    await waitFor(actor, (s) => s.matches(ready));
    actor.send({ type: 'user.clickLine', key: 'XOM' });
    expect(opened).to.deep.equal([]);
    actor.send({ type: 'user.clickLine', key: 'XOM' });
    expect(opened).to.deep.equal(['XOM']);
    actor.send({ type: 'user.openLine', key: 'AAPL' });
    expect(opened).to.deep.equal(['XOM', 'AAPL']);
  });

  it('plots the symbols picked, each once, and drops a removed one', async () => {
    const { actor, requests } = drill();
    await waitFor(actor, (s) => s.matches(ready));
    actor.send({ type: 'user.addSymbol', symbol: 'nvda' });
    actor.send({ type: 'user.addSymbol', symbol: 'NVDA' });
    await waitFor(actor, (s) => s.matches(ready));
    expect(actor.getSnapshot().context.mode).to.equal('symbols');
    expect(actor.getSnapshot().context.chosen).to.deep.equal(['NVDA']);
    expect(requests.at(-1)).to.deep.equal({ kind: 'symbols', symbols: ['NVDA'], months: 3 });
    actor.send({ type: 'user.removeSymbol', symbol: 'NVDA' });
    expect(actor.getSnapshot().context.chosen).to.deep.equal([]);
    expect(actor.getSnapshot().context.lines?.series).to.deep.equal([]);
  });

  it('reloads after the slider rests, and re-reads the positions when the portfolio changes', async () => {
    const { actor, requests, push, setupLoads } = drill();
    await waitFor(actor, (s) => s.matches(ready));
    actor.send({ type: 'user.setMonths', months: 24 });
    expect(actor.getSnapshot().matches({ data: 'settling' })).to.equal(true);
    await waitFor(actor, (s) => s.matches(ready));
    expect(requests.at(-1)?.months).to.equal(24);
    actor.send({ type: 'user.setMode', mode: 'sectors' });
    await waitFor(actor, (s) => s.matches(ready));
    push({ type: 'server.positionsChanged' });
    await waitFor(actor, (s) => s.matches(ready));
    expect(setupLoads()).to.equal(2);
    expect(actor.getSnapshot().context.mode, 'a reload keeps the mode').to.equal('sectors');
  });

  it('removes, restores and highlights lines', async () => {
    const { actor } = drill();
    await waitFor(actor, (s) => s.matches(ready));
    actor.send({ type: 'user.hoverLine', key: 'AAPL' });
    expect(actor.getSnapshot().context.focus.hovered).to.equal('AAPL');
    actor.send({ type: 'user.removeLine', key: 'AAPL' });
    expect(actor.getSnapshot().context.focus).to.deep.equal({ hovered: null, isolated: null, removed: ['AAPL'] });
    actor.send({ type: 'user.restoreLines' });
    expect(actor.getSnapshot().context.focus.removed).to.deep.equal([]);
    actor.send({ type: 'user.clickLine', key: 'XOM' });
    actor.send({ type: 'user.showAll' });
    expect(actor.getSnapshot().context.focus.isolated).to.equal(null);
  });

  it('asks for the lines of each mode', () => {
    const base = drillMachine.config.context as Parameters<typeof linesRequest>[0];
    const context = { ...base, setup: SETUP, sectorId: 'gics:Energy', chosen: ['MSFT'], months: 6 };
    expect(linesRequest({ ...context, mode: 'positions' })).to.deep.equal({
      kind: 'symbols',
      symbols: ['AAPL', 'XOM'],
      months: 6,
    });
    expect(linesRequest({ ...context, mode: 'sectors' })).to.deep.equal({ kind: 'sectors', months: 6 });
    expect(linesRequest({ ...context, mode: 'sector' })).to.deep.equal({
      kind: 'symbols',
      symbols: ['XOM', 'CVX'],
      months: 6,
    });
    expect(linesRequest({ ...context, mode: 'symbols' })).to.deep.equal({
      kind: 'symbols',
      symbols: ['MSFT'],
      months: 6,
    });
    expect(initialMode(SETUP)).to.equal('positions');
  });
});
