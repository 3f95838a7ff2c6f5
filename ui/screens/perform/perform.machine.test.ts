import { expect } from 'chai';
import { createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import {
  batches,
  covers,
  mergePerformance,
  missingSymbols,
  neededSymbols,
  performMachine,
  sectorCharts,
  topLabel,
  TOP_CHOICES,
  type PerformanceData,
  type PerformEvent,
  type SectorGroup,
  type SectorGroups,
} from './perform.machine.ts';

const energy: SectorGroup = { id: 'gics:Energy', name: 'Energy', symbols: ['XOM', 'CVX', 'COP'], mine: false };
const tech: SectorGroup = {
  id: 'gics:Information Technology',
  name: 'Information Technology',
  symbols: ['AAPL', 'MSFT'],
  mine: false,
};
const chips: SectorGroup = { id: 'mine:1', name: 'Chips', symbols: ['NVDA', 'AMD'], mine: true };
const GROUPS: SectorGroups = { gics: [energy, tech], mine: [chips] };

function perform(options: { failSectors?: number; failPerformance?: boolean; groups?: SectorGroups } = {}) {
  const calls: { symbols: readonly string[]; months: number }[] = [];
  const opened: string[] = [];
  let sectorLoads = 0;
  let push: ((event: PerformEvent) => void) | null = null;
  const actor = createActor(
    performMachine.provide({
      actors: {
        loadSectors: fromPromise<SectorGroups>(async () => {
          sectorLoads += 1;
          if (sectorLoads <= (options.failSectors ?? 0)) throw new Error('The server could not answer');
          return Promise.resolve(options.groups ?? GROUPS);
        }),
        loadPerformance: fromPromise<PerformanceData, { symbols: readonly string[]; months: number }>(
          async ({ input }) => {
            calls.push(input);
            if (options.failPerformance) throw new Error('query.symbols[0]: unknown symbol');
            return Promise.resolve({
              months: input.months,
              dates: ['2024-12-30', '2024-12-31'],
              values: Object.fromEntries(input.symbols.map((s, i) => [s, [0, i]])),
            });
          },
        ),
        sectorChanges: fromCallback<PerformEvent>(({ sendBack }) => {
          push = sendBack;
        }),
      },
      actions: { openChart: (_, params) => opened.push(params.symbol) },
      delays: { sliderSettle: 5 },
    }),
  ).start();
  return { actor, calls, opened, sectorLoads: () => sectorLoads, push: (e: PerformEvent) => push?.(e) };
}

describe('perform machine', () => {
  it('loads the sectors, then the % change of their largest stocks over 3 months', async () => {
    const { actor, calls } = perform();
    expect(actor.getSnapshot().matches('loading')).to.equal(true);
    await waitFor(actor, (s) => s.matches('ready'));
    expect(calls).to.deep.equal([{ symbols: ['XOM', 'CVX', 'COP', 'AAPL', 'MSFT'], months: 3 }]);
    const { context } = actor.getSnapshot();
    expect(sectorCharts(context.groups.gics, context.top, context.data).map((c) => c.series.length)).to.deep.equal([
      3, 2,
    ]);
  });

  it('keeps the failure message, stops loading and retries on demand', async () => {
    const { actor } = perform({ failSectors: 1 });
    await waitFor(actor, (s) => s.matches('failed'));
    expect(actor.getSnapshot().context.error).to.equal('The server could not answer');
    actor.send({ type: 'user.retry' });
    await waitFor(actor, (s) => s.matches('ready'));
    expect(actor.getSnapshot().context.error).to.equal(null);
  });

  it('keeps a failed chart load as a failure with its message', async () => {
    const { actor } = perform({ failPerformance: true });
    await waitFor(actor, (s) => s.matches('failed'));
    expect(actor.getSnapshot().context.error).to.equal('query.symbols[0]: unknown symbol');
  });

  it('reloads once the slider rests, with the months clamped to 3..60', async () => {
    const { actor, calls } = perform();
    await waitFor(actor, (s) => s.matches('ready'));
    actor.send({ type: 'user.setMonths', months: 12 });
    actor.send({ type: 'user.setMonths', months: 99 });
    expect(actor.getSnapshot().matches('settling')).to.equal(true);
    await waitFor(actor, (s) => s.matches('ready'));
    expect(calls.map((c) => c.months)).to.deep.equal([3, 60]);
    expect(actor.getSnapshot().context.data?.months).to.equal(60);
  });

  it("switches to the user's own sectors and back without reloading what it holds", async () => {
    const { actor, calls } = perform();
    await waitFor(actor, (s) => s.matches('ready'));
    actor.send({ type: 'user.setSource', source: 'mine' });
    await waitFor(actor, (s) => s.matches('ready'));
    expect(calls.at(-1)?.symbols).to.deep.equal(['NVDA', 'AMD']);
    actor.send({ type: 'user.setTop', top: 1 });
    expect(actor.getSnapshot().matches('ready'), 'a subset needs no reload').to.equal(true);
    actor.send({ type: 'user.setSource', source: 'gics' });
    expect(actor.getSnapshot().matches('ready'), 'the GICS stocks are still held').to.equal(true);
    actor.send({ type: 'user.setTop', top: 0 });
    await waitFor(actor, (s) => s.matches('ready'));
    expect(calls).to.have.length(2);
    actor.send({ type: 'user.setMonths', months: 6 });
    await waitFor(actor, (s) => s.matches('ready') && s.context.data?.months === 6);
    expect(calls.at(-1)?.symbols, 'other months read every symbol again').to.have.length(5);
  });

  it('isolates a line on the first click and opens its chart on the second', async () => {
    const { actor, opened } = perform();
    await waitFor(actor, (s) => s.matches('ready'));
    actor.send({ type: 'user.clickLine', chart: 'gics:Energy', key: 'CVX' });
    expect(actor.getSnapshot().context.focus['gics:Energy']?.isolated).to.equal('CVX');
    expect(actor.getSnapshot().context.focus['gics:Information Technology']).to.equal(undefined);
    expect(opened).to.deep.equal([]);
    actor.send({ type: 'user.clickLine', chart: 'gics:Energy', key: 'CVX' });
    expect(opened).to.deep.equal(['CVX']);
  });

  it('highlights, removes and restores lines per chart, and shows all after an isolation', async () => {
    const { actor } = perform();
    await waitFor(actor, (s) => s.matches('ready'));
    actor.send({ type: 'user.hoverLine', chart: 'gics:Energy', key: 'XOM' });
    expect(actor.getSnapshot().context.focus['gics:Energy']?.hovered).to.equal('XOM');
    actor.send({ type: 'user.clickLine', chart: 'gics:Energy', key: 'XOM' });
    actor.send({ type: 'user.showAll', chart: 'gics:Energy' });
    expect(actor.getSnapshot().context.focus['gics:Energy']?.isolated).to.equal(null);
    actor.send({ type: 'user.removeLine', chart: 'gics:Energy', key: 'COP' });
    expect(actor.getSnapshot().context.focus['gics:Energy']?.removed).to.deep.equal(['COP']);
    actor.send({ type: 'user.restoreLines', chart: 'gics:Energy' });
    expect(actor.getSnapshot().context.focus['gics:Energy']?.removed).to.deep.equal([]);
  });

  it('opens a line at once from its isolated action', async () => {
    const { actor, opened } = perform();
    await waitFor(actor, (s) => s.matches('ready'));
    actor.send({ type: 'user.openLine', chart: 'gics:Energy', key: 'XOM' });
    expect(opened).to.deep.equal(['XOM']);
  });

  it('re-reads the sectors when the sectors read model changes', async () => {
    const { actor, push, sectorLoads } = perform();
    await waitFor(actor, (s) => s.matches('ready'));
    push({ type: 'server.sectorsChanged' });
    await waitFor(actor, (s) => s.matches('ready'));
    expect(sectorLoads()).to.equal(2);
  });

  it('names the choice of stocks per chart: the largest of a sector, as the server lists every sector', () => {
    expect(TOP_CHOICES.map((n) => topLabel(n))).to.deep.equal(['Largest 10', 'Largest 20', 'All']);
    const listed = { ...chips, symbols: ['NVDA', 'AMD'] };
    expect(neededSymbols([listed], 1), "a user's sector is plotted in the server's order").to.deep.equal(['NVDA']);
  });

  it('batches symbols by the route limit and knows what the data covers', () => {
    expect(batches([1, 2, 3, 4, 5], 2)).to.deep.equal([[1, 2], [3, 4], [5]]);
    expect(neededSymbols([energy, { ...chips, symbols: ['XOM', 'NVDA'] }], 2)).to.deep.equal(['XOM', 'CVX', 'NVDA']);
    const data: PerformanceData = { months: 3, dates: [], values: { XOM: [] } };
    expect(covers(data, ['XOM'], 3)).to.equal(true);
    expect(covers(data, ['XOM'], 6)).to.equal(false);
    expect(covers(data, ['XOM', 'CVX'], 3)).to.equal(false);
    expect(covers(null, [], 3)).to.equal(false);
    expect(missingSymbols(data, ['XOM', 'CVX'], 3)).to.deep.equal(['CVX']);
    expect(missingSymbols(data, ['XOM', 'CVX'], 6)).to.deep.equal(['XOM', 'CVX']);
    const merged = mergePerformance(data, { months: 3, dates: ['d'], values: { CVX: [1] } });
    expect(merged).to.deep.equal({ months: 3, dates: ['d'], values: { XOM: [], CVX: [1] } });
    expect(mergePerformance(data, { months: 6, dates: [], values: {} }).values).to.deep.equal({});
  });
});
