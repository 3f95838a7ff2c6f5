import { expect } from 'chai';
import { createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import { DEFAULT_COMPANY_STATS, type CompanyStat } from '../../../domain/companystats/companystats.ts';
import type { UniverseHit } from '../../components/symbolSearch.machine.ts';
import {
  addStat,
  addableTypes,
  barsOf,
  companyStatsMachine,
  figureKey,
  limitChoices,
  limitLabel,
  modifyStat,
  removeStat,
  type CompanyStatsEvent,
  type FundamentalFigure,
  type LoadFigures,
} from './companystats.machine.ts';

function figure(fy: number, fp = 'FY', val = fy * 1e9): FundamentalFigure {
  return { end: `${fy}-12-31`, val, fy, fp, label: 'derived' };
}

interface FakeServer {
  stats?: CompanyStat[];
  failStats?: boolean;
  failSave?: boolean;
  failFigures?: string;
  failCompany?: boolean;
  defaultSymbol?: string;
}

function companyStats(server: FakeServer, symbol: string | null = 'AAPL') {
  const calls: string[] = [];
  const shown: { symbol: string; replace: boolean }[] = [];
  const saved: CompanyStat[][] = [];
  const actor = createActor(
    companyStatsMachine.provide({
      actors: {
        loadStats: fromPromise<readonly CompanyStat[]>(async () => {
          calls.push('loadStats');
          if (server.failStats) throw new Error('The server could not answer');
          return Promise.resolve(server.stats ?? DEFAULT_COMPANY_STATS);
        }),
        saveStats: fromPromise<readonly CompanyStat[], { stats: readonly CompanyStat[] }>(async ({ input }) => {
          saved.push([...input.stats]);
          if (server.failSave) throw new Error('body: must hold at least one statistic');
          server.stats = [...input.stats];
          return Promise.resolve(server.stats);
        }),
        defaultSymbol: fromPromise<string>(async () => {
          calls.push('defaultSymbol');
          return Promise.resolve(server.defaultSymbol ?? 'MSFT');
        }),
        loadCompany: fromPromise<UniverseHit | null, { symbol: string }>(async ({ input }) => {
          calls.push('loadCompany');
          if (server.failCompany) throw new Error('sign in first');
          return Promise.resolve(
            input.symbol === 'NOPE'
              ? null
              : {
                  symbol: input.symbol,
                  name: `${input.symbol} Corp.`,
                  sector: 'Information Technology',
                  industry: 'Software',
                  marketcap: 1e12,
                  capclass: 'large',
                },
          );
        }),
        figuresLoader: fromCallback<LoadFigures>(({ receive, sendBack }) => {
          receive(({ request }) => {
            calls.push(`figures ${request.key}`);
            queueMicrotask(() => {
              const event: CompanyStatsEvent =
                server.failFigures === request.stat.type
                  ? { type: 'server.figuresFailed', key: request.key, error: 'params.symbol: unknown symbol' }
                  : {
                      type: 'server.figures',
                      key: request.key,
                      rows: request.stat.period === 'A' ? [figure(2024), figure(2023)] : [figure(2024, 'Q3')],
                    };
              sendBack(event);
            });
          });
        }),
      },
      actions: {
        showSymbol: (_, params: { symbol: string; replace: boolean }) => shown.push(params),
      },
    }),
    { input: { symbol } },
  ).start();
  return { actor, calls, shown, saved };
}

type Snapshot = ReturnType<ReturnType<typeof companyStats>['actor']['getSnapshot']>;
/** The list is saved and, the company checked, every card's figures are read (or failed). */
const allLoaded = (s: Snapshot) =>
  s.matches({ stats: { ready: 'idle' } }) &&
  s.context.checked &&
  s.context.stats.length > 0 &&
  s.context.stats.every((stat) => {
    const figures = s.context.symbol === null ? undefined : s.context.figures[figureKey(s.context.symbol, stat)];
    return figures !== undefined && figures.status !== 'loading';
  });

describe('company statistics machine', () => {
  it("shows the cards under the symbol alone when the company's name cannot be read", async () => {
    const { actor, calls } = companyStats({ failCompany: true });
    await waitFor(actor, allLoaded);
    await waitFor(actor, () => calls.includes('loadCompany'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(actor.getSnapshot().status, 'the screen goes on').to.equal('active');
    expect(actor.getSnapshot().context.company).to.equal(null);
    expect(actor.getSnapshot().matches({ company: 'shown' })).to.equal(true);
  });

  it('loads the list and the figures of every card for the symbol of the address', async () => {
    const { actor, calls } = companyStats({
      stats: [
        { type: 'revenue', limit: 0, period: 'A' },
        { type: 'income', limit: 4, period: 'Q' },
      ],
    });
    await waitFor(actor, allLoaded);
    const { context } = actor.getSnapshot();
    expect(context.symbol).to.equal('AAPL');
    expect(context.company?.name).to.equal('AAPL Corp.');
    expect(calls).to.include.members(['figures AAPL/revenue/0/A', 'figures AAPL/income/4/Q']);
    const revenue = context.figures['AAPL/revenue/0/A'];
    expect(revenue?.status === 'ready' && revenue.rows.length).to.equal(2);
  });

  it('falls back to the defaults when the list cannot be loaded, keeping the message, and retries', async () => {
    const server: FakeServer = { failStats: true, stats: [{ type: 'income', limit: 0, period: 'A' }] };
    const { actor, calls } = companyStats(server);
    await waitFor(actor, allLoaded);
    expect(actor.getSnapshot().context.stats).to.deep.equal(DEFAULT_COMPANY_STATS);
    expect(actor.getSnapshot().context.statsError).to.equal('The server could not answer');
    server.failStats = false;
    actor.send({ type: 'user.retry' });
    await waitFor(actor, (s) => allLoaded(s) && s.context.stats.length === 1);
    expect(actor.getSnapshot().context.statsError).to.equal(null);
    expect(calls.filter((c) => c === 'loadStats')).to.have.length(2);
  });

  it('switches a card to quarterly, loads its figures and saves the list', async () => {
    const { actor, calls, saved } = companyStats({});
    await waitFor(actor, allLoaded);
    actor.send({ type: 'user.modifyStat', statType: 'revenue', period: 'Q' });
    expect(actor.getSnapshot().context.stats[0]).to.deep.equal({ type: 'revenue', limit: 0, period: 'Q' });
    await waitFor(actor, allLoaded);
    expect(calls).to.include('figures AAPL/revenue/0/Q');
    expect(saved.at(-1)?.[0]).to.deep.equal({ type: 'revenue', limit: 0, period: 'Q' });
    actor.send({ type: 'user.modifyStat', statType: 'revenue', limit: 8 });
    await waitFor(actor, allLoaded);
    expect(saved.at(-1)?.[0]).to.deep.equal({ type: 'revenue', limit: 8, period: 'Q' });
  });

  it('deletes and adds a card, saving after each change, and keeps the last card', async () => {
    const { actor, saved } = companyStats({
      stats: [
        { type: 'revenue', limit: 0, period: 'A' },
        { type: 'income', limit: 0, period: 'A' },
      ],
    });
    await waitFor(actor, allLoaded);
    actor.send({ type: 'user.removeStat', statType: 'income' });
    await waitFor(actor, (s) => allLoaded(s) && saved.length === 1);
    expect(saved[0]?.map((s) => s.type)).to.deep.equal(['revenue']);
    actor.send({ type: 'user.removeStat', statType: 'revenue' });
    expect(actor.getSnapshot().context.stats.map((s) => s.type)).to.deep.equal(['revenue']);
    actor.send({ type: 'user.addStat', statType: 'earningspershare' });
    await waitFor(actor, (s) => allLoaded(s) && saved.length === 2);
    expect(saved[1]?.map((s) => s.type)).to.deep.equal(['revenue', 'earningspershare']);
  });

  it('sends the newest list when changes come while saving', async () => {
    const { actor, saved } = companyStats({});
    await waitFor(actor, allLoaded);
    actor.send({ type: 'user.modifyStat', statType: 'revenue', period: 'Q' });
    actor.send({ type: 'user.modifyStat', statType: 'income', period: 'Q' });
    await waitFor(actor, (s) => allLoaded(s) && saved.length === 2);
    expect(saved[1]?.filter((s) => s.period === 'Q').map((s) => s.type)).to.deep.equal(['revenue', 'income']);
    expect(actor.getSnapshot().context.stats.filter((s) => s.period === 'Q')).to.have.length(2);
  });

  it('keeps the message of a failed save', async () => {
    const { actor } = companyStats({ failSave: true });
    await waitFor(actor, allLoaded);
    actor.send({ type: 'user.removeStat', statType: 'income' });
    await waitFor(actor, (s) => s.context.saveError !== null);
    expect(actor.getSnapshot().context.saveError).to.equal(
      'Your statistics could not be saved: body: must hold at least one statistic',
    );
    actor.send({ type: 'user.dismissError' });
    expect(actor.getSnapshot().context.saveError).to.equal(null);
  });

  it('picks a company: shows it in the address and loads its figures', async () => {
    const { actor, calls, shown } = companyStats({});
    await waitFor(actor, allLoaded);
    actor.send({ type: 'user.pickSymbol', symbol: 'nvda' });
    await waitFor(actor, (s) => allLoaded(s) && s.context.company?.symbol === 'NVDA');
    expect(shown).to.deep.equal([{ symbol: 'NVDA', replace: false }]);
    expect(calls).to.include('figures NVDA/earningspershare/0/A');
  });

  it('chooses a company when the address names none', async () => {
    const { actor, calls, shown } = companyStats({ defaultSymbol: 'JPM' }, null);
    await waitFor(actor, (s) => allLoaded(s) && s.context.symbol === 'JPM');
    expect(calls).to.include('defaultSymbol');
    expect(shown).to.deep.equal([{ symbol: 'JPM', replace: true }]);
    expect(calls).to.include('figures JPM/revenue/0/A');
  });

  it('says so when the address names a company the market data does not have, and reads none of its figures', async () => {
    const { actor, calls } = companyStats({}, 'nope');
    await waitFor(actor, (s) => s.matches({ company: 'unknown' }) && s.matches({ stats: { ready: 'idle' } }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(actor.getSnapshot().context.symbol).to.equal('NOPE');
    expect(actor.getSnapshot().context.company).to.equal(null);
    expect(calls.filter((c) => c.startsWith('figures'))).to.deep.equal([]);
    actor.send({ type: 'user.modifyStat', statType: 'revenue', period: 'Q' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(
      calls.filter((c) => c.startsWith('figures')),
      'nor after a change of a card',
    ).to.deep.equal([]);
    actor.send({ type: 'user.pickSymbol', symbol: 'MSFT' });
    await waitFor(actor, (s) => allLoaded(s) && s.context.company?.symbol === 'MSFT');
    expect(calls).to.include('figures MSFT/revenue/0/Q');
  });

  it('reads the figures of a company picked only once the market data has it', async () => {
    const { actor, calls } = companyStats({});
    await waitFor(actor, allLoaded);
    actor.send({ type: 'user.pickSymbol', symbol: 'nope' });
    await waitFor(actor, (s) => s.matches({ company: 'unknown' }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls.filter((c) => c.startsWith('figures NOPE'))).to.deep.equal([]);
  });

  it('keeps the message of figures that failed and loads them again on retry', async () => {
    const server: FakeServer = { failFigures: 'income' };
    const { actor, calls } = companyStats(server);
    await waitFor(actor, allLoaded);
    expect(actor.getSnapshot().context.figures['AAPL/income/0/A']).to.deep.equal({
      status: 'failed',
      error: 'params.symbol: unknown symbol',
    });
    delete server.failFigures;
    actor.send({ type: 'user.retryFigures', statType: 'income' });
    await waitFor(actor, (s) => s.context.figures['AAPL/income/0/A']?.status === 'ready');
    expect(calls.filter((c) => c === 'figures AAPL/income/0/A')).to.have.length(2);
  });

  it('adds, removes and modifies statistics as pure list changes', () => {
    const one: CompanyStat[] = [{ type: 'revenue', limit: 0, period: 'A' }];
    expect(addStat(one, 'revenue')).to.equal(one);
    expect(addStat(one, 'income')).to.deep.equal([...one, { type: 'income', limit: 0, period: 'A' }]);
    expect(removeStat(one, 'revenue')).to.equal(one);
    expect(modifyStat(one, 'revenue', { period: 'Q' })).to.deep.equal([{ type: 'revenue', limit: 0, period: 'Q' }]);
    expect(addableTypes(one)).to.deep.equal(['grossprofit', 'income', 'earningspershare']);
    expect(figureKey('A', { type: 'income', limit: 4, period: 'Q' })).to.equal('A/income/4/Q');
  });

  it("offers a card's own figure count when it is none of the presets, labelled with its number", () => {
    expect(limitChoices(8)).to.deep.equal([0, 4, 8, 12, 20, 40]);
    expect(limitChoices(0)).to.deep.equal([0, 4, 8, 12, 20, 40]);
    expect(limitChoices(5)).to.deep.equal([0, 4, 5, 8, 12, 20, 40]);
    expect(limitChoices(1)).to.deep.equal([0, 1, 4, 8, 12, 20, 40]);
    expect(limitChoices(33)).to.deep.equal([0, 4, 8, 12, 20, 33, 40]);
    expect(limitChoices(5).map(limitLabel)).to.deep.equal([
      'All',
      'Last 4',
      'Last 5',
      'Last 8',
      'Last 12',
      'Last 20',
      'Last 40',
    ]);
  });

  it('orders bars oldest first with year and quarter labels', () => {
    expect(barsOf([figure(2024, 'Q2', 5), figure(2024, 'Q1', 4), figure(2023, 'FY', 3)])).to.deep.equal({
      x: ['FY 2023', '2024 Q1', '2024 Q2'],
      y: [3, 4, 5],
    });
  });
});
