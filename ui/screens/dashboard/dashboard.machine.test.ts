import { expect } from 'chai';
import { createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import type { Quote } from '../../../domain/market/types.ts';
import {
  DEFAULT_LAYOUT,
  DEFAULT_OPTIONS,
  listSource,
  shownStocks,
  type DashboardOptions,
  type LayoutEntry,
  type StockLists,
} from './dashboard.logic.ts';
import { dashboardMachine, planListEdit, type DashboardEvent, type SectorEntry } from './dashboard.machine.ts';

const SECTORS: SectorEntry[] = [
  { sector: 'Energy', symbols: ['XOM', 'CVX', 'COP'] },
  { sector: 'Information Technology', symbols: Array.from({ length: 40 }, (_, i) => `T${i}`) },
];

/** A quote of a session whose previous close is 99. */
function quote(symbol: string, price: number, ts = '2026-01-02T15:00:00Z'): Quote {
  const change = Math.round((price - 99) * 10_000) / 10_000;
  return { symbol, price, change, changepct: 0.5, volume: 1000, ts, source: 'simulated' };
}

/** Resolves when the test says so, to hold a request open. */
function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

interface Fakes {
  layout?: LayoutEntry[] | Error;
  options?: DashboardOptions | Error;
  saved?: string[];
  portfolio?: string[];
  watchlist?: string[];
  listFails?: number;
  saveLayoutFails?: boolean;
  saveLayoutGate?: Promise<void>;
  saveOptionsFails?: boolean;
  saveStocksFails?: boolean;
  /** Saved lists are read back by later loads, as the server does. */
  keepSaves?: boolean;
}

function dashboard(fakes: Fakes = {}) {
  const calls: { name: string; input?: unknown }[] = [];
  const opened: string[] = [];
  let listFails = fakes.listFails ?? 0;
  let push: ((event: DashboardEvent) => void) | null = null;
  let notifyList: ((event: DashboardEvent) => void) | null = null;
  const subscriptions: (readonly string[])[] = [];
  const actor = createActor(
    dashboardMachine.provide({
      actors: {
        loadLayout: fromPromise<LayoutEntry[]>(async () => {
          calls.push({ name: 'loadLayout' });
          if (fakes.layout instanceof Error) throw fakes.layout;
          return Promise.resolve(fakes.layout ?? [...DEFAULT_LAYOUT]);
        }),
        saveLayout: fromPromise<LayoutEntry[], readonly LayoutEntry[]>(async ({ input }) => {
          calls.push({ name: 'saveLayout', input });
          if (fakes.saveLayoutGate) await fakes.saveLayoutGate;
          if (fakes.saveLayoutFails) throw new Error('The server could not answer');
          return [...input];
        }),
        loadOptions: fromPromise<DashboardOptions>(async () => {
          calls.push({ name: 'loadOptions' });
          if (fakes.options instanceof Error) throw fakes.options;
          return Promise.resolve(fakes.options ?? DEFAULT_OPTIONS);
        }),
        saveOptions: fromPromise<DashboardOptions, DashboardOptions>(async ({ input }) => {
          calls.push({ name: 'saveOptions', input });
          if (fakes.saveOptionsFails) throw new Error('options refused');
          return Promise.resolve(input);
        }),
        loadLists: fromPromise<StockLists>(async () => {
          calls.push({ name: 'loadLists' });
          if (listFails > 0) {
            listFails -= 1;
            throw new Error('The portfolio could not be read');
          }
          return Promise.resolve({
            saved: [...(fakes.saved ?? [])],
            portfolio: [...(fakes.portfolio ?? ['AAPL', 'MSFT'])],
            watchlist: [...(fakes.watchlist ?? ['NVDA', 'AMD'])],
          });
        }),
        saveStocks: fromPromise<string[], readonly string[]>(async ({ input }) => {
          calls.push({ name: 'saveStocks', input });
          if (fakes.saveStocksFails) throw new Error('list refused');
          if (fakes.keepSaves) fakes.saved = [...input];
          return Promise.resolve([...input]);
        }),
        loadSectors: fromPromise<SectorEntry[]>(async () => Promise.resolve(SECTORS)),
        liveQuotes: fromCallback<DashboardEvent, { symbols: readonly string[] }>(({ sendBack, input }) => {
          subscriptions.push(input.symbols);
          push = sendBack;
        }),
        listChanges: fromCallback<DashboardEvent>(({ sendBack }) => {
          notifyList = sendBack;
        }),
      },
      actions: { openChart: (_, params) => void opened.push(params.symbol) },
    }),
  ).start();
  const ready = () =>
    waitFor(actor, (s) => s.matches({ settings: 'ready', list: 'ready' }) && s.matches({ sectors: 'ready' }));
  const idle = () =>
    waitFor(
      actor,
      (s) =>
        s.matches({ settings: { ready: { layout: 'idle', options: 'idle' } } }) &&
        (s.matches({ list: 'ready' }) || s.matches({ list: 'failed' })),
    );
  return {
    actor,
    calls,
    opened,
    subscriptions,
    ready,
    idle,
    push: (event: DashboardEvent) => push?.(event),
    listChanged: () => notifyList?.({ type: 'server.listChanged' }),
    saves: (name: string) => calls.filter((c) => c.name === name).map((c) => c.input),
  };
}

describe('dashboard machine', () => {
  describe('layout', () => {
    it('loads the saved layout', async () => {
      const saved = [{ layoutId: 1, compId: [2, 4] }];
      const { actor, ready } = dashboard({ layout: saved });
      await ready();
      expect(actor.getSnapshot().context.layouts).to.deep.equal(saved);
      expect(actor.getSnapshot().context.layoutNote).to.equal(null);
    });

    it('falls back to the default layout when the load fails, and says so', async () => {
      const { actor, ready } = dashboard({ layout: new Error('The server could not answer') });
      await ready();
      const { layouts, layoutNote } = actor.getSnapshot().context;
      expect(layouts).to.deep.equal(DEFAULT_LAYOUT);
      expect(layoutNote).to.match(/could not be loaded \(The server could not answer\): showing the default/);
    });

    it('toggles a component out of a layout and saves the change at once', async () => {
      const { actor, ready, idle, saves } = dashboard();
      await ready();
      actor.send({ type: 'user.toggleComponent', layoutId: 3, compId: 3 });
      expect(actor.getSnapshot().context.layouts[2]).to.deep.equal({ layoutId: 3, compId: [] });
      await idle();
      expect(saves('saveLayout')).to.deep.equal([
        [
          { layoutId: 1, compId: [1] },
          { layoutId: 2, compId: [2] },
          { layoutId: 3, compId: [] },
        ],
      ]);
      actor.send({ type: 'user.toggleComponent', layoutId: 1, compId: 4 });
      await idle();
      expect(actor.getSnapshot().context.layouts[0]).to.deep.equal({ layoutId: 1, compId: [1, 4] });
      expect(saves('saveLayout')).to.have.length(2);
    });

    it('saves again after a save when the user toggled during it, ending with the latest layout', async () => {
      const g = gate();
      const { actor, ready, idle, saves } = dashboard({ saveLayoutGate: g.opened });
      await ready();
      actor.send({ type: 'user.toggleComponent', layoutId: 1, compId: 5 });
      actor.send({ type: 'user.toggleComponent', layoutId: 2, compId: 2 });
      g.open();
      await idle();
      const all = saves('saveLayout') as LayoutEntry[][];
      expect(all).to.have.length(2);
      expect(all[1]).to.deep.equal([
        { layoutId: 1, compId: [1, 5] },
        { layoutId: 2, compId: [] },
        { layoutId: 3, compId: [3] },
      ]);
      expect(actor.getSnapshot().context.layouts).to.deep.equal(all[1]);
    });

    it('puts the saved layout back and keeps the message when a save fails', async () => {
      const { actor, ready, idle } = dashboard({ saveLayoutFails: true });
      await ready();
      actor.send({ type: 'user.toggleComponent', layoutId: 2, compId: 2 });
      await idle();
      const { layouts, layoutError } = actor.getSnapshot().context;
      expect(layouts).to.deep.equal(DEFAULT_LAYOUT);
      expect(layoutError).to.equal('The layout could not be saved: The server could not answer');
      actor.send({ type: 'user.dismissNotice' });
      expect(actor.getSnapshot().context.layoutError).to.equal(null);
    });

    it('adds an empty layout with the next id and removes one', async () => {
      const { actor, ready, idle } = dashboard();
      await ready();
      actor.send({ type: 'user.addLayout' });
      await idle();
      expect(actor.getSnapshot().context.layouts.at(-1)).to.deep.equal({ layoutId: 4, compId: [] });
      actor.send({ type: 'user.removeLayout', layoutId: 1 });
      await idle();
      expect(actor.getSnapshot().context.layouts.map((l) => l.layoutId)).to.deep.equal([2, 3, 4]);
    });
  });

  describe('options', () => {
    it('uses the spec defaults when the options cannot be loaded', async () => {
      const { actor, ready } = dashboard({ options: new Error('boom') });
      await ready();
      const { options, optionsNote } = actor.getSnapshot().context;
      expect(options).to.deep.equal({
        addstks: true,
        subheader: 'basic',
        showcarddetail: true,
        showcardactions: true,
        slider: { type: 'M', val: 3 },
        selectedsector: 0,
        sectorflag: false,
        watchlistflag: false,
      });
      expect(optionsNote).to.match(/using the defaults/);
    });

    it('saves a changed option at once with the others', async () => {
      const { actor, ready, idle, saves } = dashboard();
      await ready();
      actor.send({ type: 'user.changeOptions', changes: { slider: { type: 'M', val: 12 } } });
      expect(actor.getSnapshot().context.options.slider).to.deep.equal({ type: 'M', val: 12 });
      await idle();
      expect(saves('saveOptions')).to.deep.equal([{ ...DEFAULT_OPTIONS, slider: { type: 'M', val: 12 } }]);
    });

    it('puts the saved options back when a save fails', async () => {
      const { actor, ready, idle } = dashboard({ saveOptionsFails: true });
      await ready();
      actor.send({ type: 'user.changeOptions', changes: { showcardactions: false } });
      await idle();
      expect(actor.getSnapshot().context.options.showcardactions).to.equal(true);
      expect(actor.getSnapshot().context.optionsError).to.equal('The options could not be saved: options refused');
    });
  });

  describe('stock list', () => {
    it('shows the portfolio by default and watches its quotes', async () => {
      const { actor, ready, subscriptions } = dashboard({ portfolio: ['AAPL', 'MSFT'] });
      await ready();
      expect(actor.getSnapshot().context.lists.saved).to.deep.equal([]);
      expect(subscriptions.at(-1)).to.deep.equal(['AAPL', 'MSFT']);
    });

    it('keeps the message of a failed load, stops loading and retries on demand', async () => {
      const { actor, calls } = dashboard({ listFails: 1 });
      await waitFor(actor, (s) => s.matches({ list: 'failed' }));
      expect(actor.getSnapshot().context.listError).to.equal('The portfolio could not be read');
      actor.send({ type: 'user.retryList' });
      await waitFor(actor, (s) => s.matches({ list: 'ready' }));
      expect(actor.getSnapshot().context.listError).to.equal(null);
      expect(calls.filter((c) => c.name === 'loadLists')).to.have.length(2);
    });

    it('switches to the watch list, saving its first 30, and back to the portfolio', async () => {
      const watchlist = Array.from({ length: 35 }, (_, i) => `W${i}`);
      const { actor, ready, idle, saves, subscriptions } = dashboard({ watchlist });
      await ready();
      actor.send({ type: 'user.useSource', source: 'watchlist' });
      await idle();
      expect(saves('saveStocks')).to.deep.equal([watchlist.slice(0, 30)]);
      expect(subscriptions.at(-1)).to.deep.equal(watchlist.slice(0, 30));
      actor.send({ type: 'user.useSource', source: 'portfolio' });
      await idle();
      expect(saves('saveStocks').at(-1)).to.deep.equal([]);
      expect(subscriptions.at(-1)).to.deep.equal(['AAPL', 'MSFT']);
    });

    it('saves that it follows the watch list, and stops when another source is chosen', async () => {
      const { actor, ready, idle, saves } = dashboard({ watchlist: ['KO', 'XOM'] });
      await ready();
      actor.send({ type: 'user.useSource', source: 'watchlist' });
      await idle();
      expect(saves('saveOptions').at(-1)).to.include({ watchlistflag: true, sectorflag: false });
      actor.send({ type: 'user.useSource', source: 'portfolio' });
      await idle();
      expect(saves('saveOptions').at(-1)).to.include({ watchlistflag: false });
    });

    it('shows the watch list as it is now when it changed while no dashboard was open', async () => {
      const { actor, ready, idle, saves, subscriptions } = dashboard({
        options: { ...DEFAULT_OPTIONS, watchlistflag: true },
        saved: ['AAPL', 'MSFT', 'KO'],
        watchlist: ['AAPL', 'MSFT', 'XOM'],
        keepSaves: true,
      });
      await ready();
      await idle();
      expect(saves('saveStocks')).to.deep.equal([['AAPL', 'MSFT', 'XOM']]);
      const { lists, options } = actor.getSnapshot().context;
      expect(shownStocks(lists)).to.deep.equal(['AAPL', 'MSFT', 'XOM']);
      expect(listSource(lists, options)).to.equal('watchlist');
      expect(subscriptions.at(-1)).to.deep.equal(['AAPL', 'MSFT', 'XOM']);
    });

    it('switches to a sector: its first 30 symbols, and the sector flag and index saved in the options', async () => {
      const { actor, ready, idle, saves } = dashboard();
      await ready();
      actor.send({ type: 'user.useSector', index: 1 });
      await idle();
      expect(saves('saveStocks')).to.deep.equal([SECTORS[1]!.symbols.slice(0, 30)]);
      expect(actor.getSnapshot().context.options).to.include({ sectorflag: true, selectedsector: 1 });
      expect(saves('saveOptions').at(-1)).to.include({ sectorflag: true, selectedsector: 1 });
      actor.send({ type: 'user.useSource', source: 'watchlist' });
      await idle();
      expect(actor.getSnapshot().context.options.sectorflag).to.equal(false);
    });

    it('adds a symbol at the end of the shown list, and refuses one already there', async () => {
      const { actor, ready, idle, saves } = dashboard({ portfolio: ['AAPL'] });
      await ready();
      actor.send({ type: 'user.addSymbol', symbol: 'TSLA' });
      await idle();
      expect(saves('saveStocks')).to.deep.equal([['AAPL', 'TSLA']]);
      actor.send({ type: 'user.addSymbol', symbol: 'TSLA' });
      expect(actor.getSnapshot().context.listNotice).to.equal('TSLA is already on the dashboard');
      expect(saves('saveStocks')).to.have.length(1);
    });

    it('refuses a 31st stock', async () => {
      const saved = Array.from({ length: 30 }, (_, i) => `S${i}`);
      const { actor, ready, saves } = dashboard({ saved });
      await ready();
      actor.send({ type: 'user.addSymbol', symbol: 'ONEMORE' });
      expect(actor.getSnapshot().context.listNotice).to.equal(
        'The dashboard holds at most 30 stocks: remove one first',
      );
      expect(saves('saveStocks')).to.deep.equal([]);
    });

    it('removes a symbol, and puts the list back with a message when the save fails', async () => {
      const { actor, ready, idle } = dashboard({ saved: ['AAPL', 'NVDA'], saveStocksFails: true });
      await ready();
      actor.send({ type: 'user.removeSymbol', symbol: 'AAPL' });
      expect(actor.getSnapshot().context.lists.saved).to.deep.equal(['NVDA']);
      await idle();
      expect(actor.getSnapshot().context.lists.saved).to.deep.equal(['AAPL', 'NVDA']);
      expect(actor.getSnapshot().context.listNotice).to.equal('The stock list could not be saved: list refused');
    });

    it('reads the lists again when the server says one changed, keeping the quotes of an unchanged list', async () => {
      const { actor, ready, calls, listChanged, subscriptions } = dashboard();
      await ready();
      listChanged();
      await waitFor(
        actor,
        (s) => s.matches({ list: 'ready' }) && calls.filter((c) => c.name === 'loadLists').length === 2,
      );
      expect(subscriptions).to.have.length(1);
    });

    it('watches the quotes of the new list when a change read again shows other stocks', async () => {
      const portfolio = ['AAPL'];
      const { actor, ready, calls, listChanged, subscriptions } = dashboard({ portfolio });
      await ready();
      portfolio.push('MSFT');
      listChanged();
      await waitFor(actor, () => calls.filter((c) => c.name === 'loadLists').length === 2);
      await waitFor(actor, (s) => s.matches({ list: 'ready' }));
      expect(subscriptions).to.deep.equal([['AAPL'], ['AAPL', 'MSFT']]);
    });

    it('follows the watch list while it is the source: a changed watch list read again is shown and saved', async () => {
      const watchlist = ['AAPL', 'MSFT', 'KO'];
      const { actor, ready, idle, calls, listChanged, saves, subscriptions } = dashboard({
        portfolio: ['NVDA'],
        watchlist,
        keepSaves: true,
      });
      await ready();
      actor.send({ type: 'user.useSource', source: 'watchlist' });
      await idle();
      expect(saves('saveStocks')).to.deep.equal([['AAPL', 'MSFT', 'KO']]);

      watchlist.splice(0, 3, 'AAPL', 'MSFT', 'XOM');
      listChanged();
      await waitFor(actor, () => calls.filter((c) => c.name === 'loadLists').length === 2);
      await idle();
      expect(saves('saveStocks').at(-1)).to.deep.equal(['AAPL', 'MSFT', 'XOM']);
      expect(shownStocks(actor.getSnapshot().context.lists)).to.deep.equal(['AAPL', 'MSFT', 'XOM']);
      expect(listSource(actor.getSnapshot().context.lists, actor.getSnapshot().context.options)).to.equal('watchlist');
      expect(subscriptions.at(-1)).to.deep.equal(['AAPL', 'MSFT', 'XOM']);
    });

    it('reads the lists again after a read or a save during which the server said one changed', async () => {
      const watchlist = ['AAPL', 'MSFT', 'KO'];
      const { actor, ready, idle, calls, listChanged, saves } = dashboard({
        portfolio: ['NVDA'],
        watchlist,
        saved: ['AAPL', 'MSFT', 'KO'],
        keepSaves: true,
      });
      await ready();
      watchlist.push('XOM');
      listChanged();
      expect(actor.getSnapshot().matches({ list: 'refreshing' })).to.equal(true);
      watchlist.splice(2, 1);
      listChanged();
      await waitFor(actor, () => calls.filter((c) => c.name === 'loadLists').length === 3);
      await idle();
      expect(shownStocks(actor.getSnapshot().context.lists)).to.deep.equal(['AAPL', 'MSFT', 'XOM']);
      expect(saves('saveStocks').at(-1)).to.deep.equal(['AAPL', 'MSFT', 'XOM']);
    });

    it('leaves a list of its own alone when the watch list changes', async () => {
      const watchlist = ['AAPL', 'MSFT'];
      const { actor, ready, calls, listChanged, saves } = dashboard({ saved: ['TSLA'], watchlist });
      await ready();
      watchlist.push('XOM');
      listChanged();
      await waitFor(actor, () => calls.filter((c) => c.name === 'loadLists').length === 2);
      await waitFor(actor, (s) => s.matches({ list: 'ready' }));
      expect(saves('saveStocks')).to.deep.equal([]);
      expect(shownStocks(actor.getSnapshot().context.lists)).to.deep.equal(['TSLA']);
    });
  });

  describe('live quotes', () => {
    it('replaces the quote of a symbol and flashes a move up or down', async () => {
      const { actor, ready, push } = dashboard();
      await ready();
      push({ type: 'server.quote', quote: quote('AAPL', 100) });
      expect(actor.getSnapshot().context.live.flashes.AAPL).to.equal(undefined);
      push({ type: 'server.quote', quote: quote('AAPL', 101, '2026-01-02T15:00:01Z') });
      expect(actor.getSnapshot().context.live.quotes.AAPL?.price).to.equal(101);
      expect(actor.getSnapshot().context.live.flashes.AAPL).to.deep.equal({ dir: 'up', seq: 1 });
      push({ type: 'server.quote', quote: quote('AAPL', 99, '2026-01-02T15:00:02Z') });
      expect(actor.getSnapshot().context.live.flashes.AAPL).to.deep.equal({ dir: 'down', seq: 2 });
      expect(actor.getSnapshot().context.live.trails.AAPL?.map((p) => p.price)).to.deep.equal([100, 101, 99]);
    });

    it('drops the live state of a symbol no longer shown', async () => {
      const { actor, ready, idle, push } = dashboard({ saved: ['AAPL', 'NVDA'] });
      await ready();
      push({ type: 'server.quote', quote: quote('AAPL', 100) });
      push({ type: 'server.quote', quote: quote('NVDA', 500) });
      actor.send({ type: 'user.removeSymbol', symbol: 'NVDA' });
      await idle();
      expect(Object.keys(actor.getSnapshot().context.live.quotes)).to.deep.equal(['AAPL']);
    });
  });

  describe('navigation', () => {
    it('opens a chart through the named action', async () => {
      const { actor, ready, opened } = dashboard();
      await ready();
      actor.send({ type: 'user.openChart', symbol: 'NVDA' });
      expect(opened).to.deep.equal(['NVDA']);
    });
  });

  describe('planListEdit', () => {
    const base = {
      lists: { saved: [], portfolio: ['AAPL'], watchlist: [] },
      options: DEFAULT_OPTIONS,
      sectors: SECTORS,
    };

    it('refuses the watch list while it is empty', () => {
      expect(planListEdit(base, { type: 'user.useSource', source: 'watchlist' })).to.deep.equal({
        refused: 'Your watch list is empty: add symbols to it first',
      });
    });

    it('does nothing when the list already follows the chosen source', () => {
      expect(planListEdit(base, { type: 'user.useSource', source: 'portfolio' })).to.equal(null);
    });

    it('says the portfolio comes back when the last stock is removed', () => {
      expect(planListEdit(base, { type: 'user.removeSymbol', symbol: 'AAPL' })).to.deep.equal({
        saved: [],
        notice: 'The list is empty, so the dashboard shows your portfolio (its default)',
      });
    });

    it('leaves the sector when a stock is added to a sector list', () => {
      const inSector = {
        ...base,
        lists: { ...base.lists, saved: ['XOM'] },
        options: { ...DEFAULT_OPTIONS, sectorflag: true },
      };
      expect(planListEdit(inSector, { type: 'user.addSymbol', symbol: 'AAPL' })).to.deep.equal({
        saved: ['XOM', 'AAPL'],
        options: { sectorflag: false },
      });
    });
  });
});
