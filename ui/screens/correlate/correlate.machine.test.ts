import { expect } from 'chai';
import { createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import {
  clusterOrder,
  clusterSummary,
  correlateMachine,
  correlationOf,
  monthsFor,
  pairChoice,
  rebase,
  rebasedPair,
  type Comparison,
  type CorrelateEvent,
  type CorrelateSetup,
  type Correlation,
} from './correlate.machine.ts';
import { withoutSymbol, withSymbol } from './chosenSymbols.ts';

const SETUP: CorrelateSetup = {
  groups: {
    gics: [
      { id: 'gics:Energy', name: 'Energy', symbols: ['XOM', 'CVX', 'COP'], mine: false },
      { id: 'gics:Information Technology', name: 'Information Technology', symbols: ['AAPL', 'MSFT'], mine: false },
    ],
    mine: [{ id: 'mine:1', name: 'Solo', symbols: ['NVDA'], mine: true }],
  },
  watchlist: [],
};

function correlationOfSymbols(symbols: readonly string[], window: number): Correlation {
  return {
    window,
    symbols,
    values: symbols.map((_, i) => symbols.map((__, j) => (i === j ? 1 : 0.5))),
    groups: [symbols.map((stock) => ({ stock, value: 0.5 }))],
  };
}

function correlate(options: { setup?: CorrelateSetup; failCorrelation?: number; failCompare?: number } = {}) {
  const runs: { symbols: readonly string[]; window: number }[] = [];
  const compares: { a: string; b: string; window: number }[] = [];
  let setupLoads = 0;
  let push: ((event: CorrelateEvent) => void) | null = null;
  const actor = createActor(
    correlateMachine.provide({
      actors: {
        loadSetup: fromPromise<CorrelateSetup>(async () => {
          setupLoads += 1;
          return Promise.resolve(options.setup ?? SETUP);
        }),
        correlate: fromPromise<Correlation, { symbols: readonly string[]; window: number }>(async ({ input }) => {
          runs.push(input);
          if (runs.length <= (options.failCorrelation ?? 0)) throw new Error('stks[0]: no bars of XOM');
          return Promise.resolve(correlationOfSymbols(input.symbols, input.window));
        }),
        compare: fromPromise<Comparison, { a: string; b: string; window: number }>(async ({ input }) => {
          compares.push(input);
          if (compares.length <= (options.failCompare ?? 0)) throw new Error('The server could not answer');
          return Promise.resolve({
            a: input.a,
            b: input.b,
            dates: ['d1', 'd2'],
            aValues: [100, 101],
            bValues: [100, 99],
          });
        }),
        listChanges: fromCallback<CorrelateEvent>(({ sendBack }) => {
          push = sendBack;
        }),
      },
    }),
  ).start();
  return { actor, runs, compares, setupLoads: () => setupLoads, push: (e: CorrelateEvent) => push?.(e) };
}

const ready = { data: 'ready' } as const;

describe('correlate machine', () => {
  it('starts on the technology sector over 60 trading days when the watch list is short', async () => {
    const { actor, runs } = correlate();
    expect(actor.getSnapshot().matches({ data: 'loading' })).to.equal(true);
    await waitFor(actor, (s) => s.matches(ready));
    expect(actor.getSnapshot().context.source).to.equal('sector');
    expect(runs).to.deep.equal([{ symbols: ['AAPL', 'MSFT'], window: 60 }]);
    expect(actor.getSnapshot().context.result?.symbols).to.deep.equal(['AAPL', 'MSFT']);
  });

  it('starts on the watch list when it holds two symbols or more', async () => {
    const { actor, runs } = correlate({ setup: { ...SETUP, watchlist: ['NVDA', 'AMD', 'INTC'] } });
    await waitFor(actor, (s) => s.matches(ready));
    expect(actor.getSnapshot().context.source).to.equal('watchlist');
    expect(runs[0]?.symbols).to.deep.equal(['NVDA', 'AMD', 'INTC']);
  });

  it('keeps the failure message, stops loading and retries', async () => {
    const { actor, runs } = correlate({ failCorrelation: 1 });
    await waitFor(actor, (s) => s.matches({ data: 'failed' }));
    expect(actor.getSnapshot().context.error).to.equal('stks[0]: no bars of XOM');
    actor.send({ type: 'user.retry' });
    await waitFor(actor, (s) => s.matches(ready));
    expect(runs).to.have.length(2);
  });

  it('recomputes for another sector and window, and says when fewer than 2 symbols are chosen', async () => {
    const { actor, runs } = correlate();
    await waitFor(actor, (s) => s.matches(ready));
    actor.send({ type: 'user.selectSector', sectorId: 'gics:Energy' });
    await waitFor(actor, (s) => s.matches(ready));
    actor.send({ type: 'user.setWindow', window: 250 });
    await waitFor(actor, (s) => s.matches(ready));
    expect(runs.slice(1)).to.deep.equal([
      { symbols: ['XOM', 'CVX', 'COP'], window: 60 },
      { symbols: ['XOM', 'CVX', 'COP'], window: 250 },
    ]);
    actor.send({ type: 'user.selectSector', sectorId: 'mine:1' });
    expect(actor.getSnapshot().matches({ data: 'incomplete' })).to.equal(true);
    expect(actor.getSnapshot().context.result).to.equal(null);
    actor.send({ type: 'user.setSource', source: 'watchlist' });
    expect(actor.getSnapshot().matches({ data: 'incomplete' })).to.equal(true);
  });

  it('correlates the symbols picked', async () => {
    const { actor, runs } = correlate();
    await waitFor(actor, (s) => s.matches(ready));
    actor.send({ type: 'user.addSymbol', symbol: 'AMD' });
    expect(actor.getSnapshot().matches({ data: 'incomplete' })).to.equal(true);
    actor.send({ type: 'user.addSymbol', symbol: 'INTC' });
    await waitFor(actor, (s) => s.matches(ready));
    expect(runs.at(-1)?.symbols).to.deep.equal(['AMD', 'INTC']);
    actor.send({ type: 'user.removeSymbol', symbol: 'AMD' });
    expect(actor.getSnapshot().matches({ data: 'incomplete' })).to.equal(true);
  });

  it('compares the two symbols of a clicked cell, and drops the comparison when the symbols change', async () => {
    const { actor, compares } = correlate();
    await waitFor(actor, (s) => s.matches(ready));
    actor.send({ type: 'user.pickPair', a: 'AAPL', b: 'AAPL' });
    expect(actor.getSnapshot().matches({ comparison: 'idle' }), 'a diagonal cell compares nothing').to.equal(true);
    actor.send({ type: 'user.pickPair', a: 'AAPL', b: 'MSFT' });
    await waitFor(actor, (s) => s.matches({ comparison: 'ready' }));
    expect(compares).to.deep.equal([{ a: 'AAPL', b: 'MSFT', window: 60 }]);
    expect(actor.getSnapshot().context.comparison?.bValues).to.deep.equal([100, 99]);
    actor.send({ type: 'user.setWindow', window: 20 });
    expect(actor.getSnapshot().matches({ comparison: 'idle' })).to.equal(true);
    expect(actor.getSnapshot().context.pair).to.equal(null);
  });

  it('shows the pair of a clicked cell in the Compare choices, whatever they held before', async () => {
    const { actor } = correlate({ setup: { ...SETUP, watchlist: ['AAPL', 'NVDA', 'PLAB', 'NOW'] } });
    await waitFor(actor, (s) => s.matches(ready));
    const symbols = actor.getSnapshot().context.result?.symbols ?? [];
    expect(pairChoice(symbols, actor.getSnapshot().context.choice), 'the first two at first').to.deep.equal({
      a: 'AAPL',
      b: 'NVDA',
    });
    actor.send({ type: 'user.choosePair', patch: { b: 'PLAB' } });
    expect(pairChoice(symbols, actor.getSnapshot().context.choice)).to.deep.equal({ a: 'AAPL', b: 'PLAB' });
    actor.send({ type: 'user.pickPair', a: 'PLAB', b: 'NOW' });
    expect(actor.getSnapshot().context.pair).to.deep.equal({ a: 'PLAB', b: 'NOW' });
    expect(pairChoice(symbols, actor.getSnapshot().context.choice)).to.deep.equal({ a: 'PLAB', b: 'NOW' });
    actor.send({ type: 'user.choosePair', patch: { a: 'NOW' } });
    expect(
      pairChoice(symbols, actor.getSnapshot().context.choice),
      'a symbol is not compared with itself: the other side moves to another',
    ).to.deep.equal({ a: 'NOW', b: 'AAPL' });
    expect(pairChoice(['XOM', 'CVX'], actor.getSnapshot().context.choice), 'symbols no longer shown').to.deep.equal({
      a: 'XOM',
      b: 'CVX',
    });
  });

  it('keeps a failed comparison as its message and retries it', async () => {
    const { actor, compares } = correlate({ failCompare: 1 });
    await waitFor(actor, (s) => s.matches(ready));
    actor.send({ type: 'user.pickPair', a: 'AAPL', b: 'MSFT' });
    await waitFor(actor, (s) => s.matches({ comparison: 'failed' }));
    expect(actor.getSnapshot().context.compareError).to.equal('The server could not answer');
    actor.send({ type: 'user.retryComparison' });
    await waitFor(actor, (s) => s.matches({ comparison: 'ready' }));
    expect(compares).to.have.length(2);
    actor.send({ type: 'user.closeComparison' });
    expect(actor.getSnapshot().context.pair).to.equal(null);
  });

  it('re-reads the watch list when it changes', async () => {
    const { actor, push, setupLoads } = correlate();
    await waitFor(actor, (s) => s.matches(ready));
    push({ type: 'server.watchlistChanged' });
    await waitFor(actor, (s) => s.matches(ready));
    expect(setupLoads()).to.equal(2);
  });
});

describe('correlation helpers', () => {
  it('rebases values to 100 on the first', () => {
    expect(rebase([50, 55, 45])).to.deep.equal([100, 110, 90]);
    expect(rebase([0, 1]).every(Number.isNaN)).to.equal(true);
    expect(rebase([])).to.deep.equal([]);
  });

  it('rebases two symbols on their shared days, the window plus the day before it', () => {
    const a = [
      { date: 'd1', close: 10 },
      { date: 'd2', close: 11 },
      { date: 'd3', close: 12 },
      { date: 'd4', close: 15 },
    ];
    const b = [
      { date: 'd2', close: 20 },
      { date: 'd3', close: 30 },
      { date: 'd4', close: 10 },
    ];
    expect(rebasedPair('A', a, 'B', b, 1)).to.deep.equal({
      a: 'A',
      b: 'B',
      dates: ['d3', 'd4'],
      aValues: [100, 125],
      bValues: [100, 33.33],
    });
    expect(rebasedPair('A', a, 'B', b, 60).dates).to.deep.equal(['d2', 'd3', 'd4']);
  });

  it('reads enough months of bars for a window', () => {
    expect(monthsFor(20)).to.equal(2);
    expect(monthsFor(250)).to.equal(13);
    expect(monthsFor(1250)).to.equal(60);
  });

  it('orders the matrix by clusters so members sit together', () => {
    const ordered = clusterOrder({
      symbols: ['A', 'B', 'C', 'D'],
      values: [
        [1, 0.1, 0.9, 0.2],
        [0.1, 1, 0.3, 0.8],
        [0.9, 0.3, 1, 0.4],
        [0.2, 0.8, 0.4, 1],
      ],
      groups: [
        [
          { stock: 'B', value: 0.8 },
          { stock: 'D', value: 0.8 },
        ],
        [{ stock: 'A', value: 0 }],
      ],
    });
    expect(ordered.symbols).to.deep.equal(['B', 'D', 'A', 'C']);
    expect(ordered.values[0]).to.deep.equal([1, 0.8, 0.1, 0.3]);
    expect(ordered.values[2]).to.deep.equal([0.1, 0.2, 1, 0.9]);
  });

  it('lists clusters closest first and the stocks that move on their own', () => {
    const summary = clusterSummary([
      [
        { stock: 'A', value: 0.5 },
        { stock: 'B', value: 0.5 },
      ],
      [{ stock: 'C', value: 0 }],
      [
        { stock: 'D', value: 0.9 },
        { stock: 'E', value: 0.7 },
      ],
    ]);
    expect(summary.clusters.map((c) => c.members.map((m) => m.stock))).to.deep.equal([
      ['D', 'E'],
      ['A', 'B'],
    ]);
    expect(summary.clusters[0]?.average).to.be.closeTo(0.8, 1e-9);
    expect(summary.alone).to.deep.equal(['C']);
  });

  it('reads the correlation of a pair, and edits chosen lists once per symbol', () => {
    const result = correlationOfSymbols(['A', 'B'], 20);
    expect(correlationOf(result, 'A', 'B')).to.equal(0.5);
    expect(correlationOf(result, 'A', 'Z')).to.equal(null);
    expect(correlationOf(null, 'A', 'B')).to.equal(null);
    const list = withSymbol([], ' nvda ', 2);
    expect(list).to.deep.equal(['NVDA']);
    expect(withSymbol(list, 'NVDA', 2)).to.equal(list);
    expect(withSymbol(['A', 'B'], 'C', 2)).to.deep.equal(['A', 'B']);
    expect(withoutSymbol(['A', 'B'], 'A')).to.deep.equal(['B']);
  });
});
