import { expect } from 'chai';
import { createActor, fromCallback, fromPromise, sendTo, setup, waitFor } from 'xstate';
import type { Quote } from '../../../domain/market/types.ts';
import type { WatchQuotes } from '../watchlist/quotes.ts';
import {
  applyAnswer,
  batchedQuoteFeedOf,
  changeRefusal,
  portfolioMachine,
  type PortfolioAnswer,
  type PortfolioChange,
  type PortfolioEvent,
  type PortfolioLoad,
} from './portfolio.machine.ts';
import type { PositionLot } from './positions.ts';

function quote(symbol: string, price: number, ts = '2026-01-05T15:00:00.000Z'): Quote {
  return { symbol, price, change: 0, changepct: 0, volume: 1000, ts, source: 'simulated' };
}

interface FakeServer {
  symbols: string[];
  lots: Record<string, PositionLot[]>;
  failLoad?: string;
  failSave?: string;
}

function portfolio(server: FakeServer) {
  const calls: string[] = [];
  const watched: (readonly string[])[] = [];
  const toasts: string[] = [];
  let sendBack: ((event: PortfolioEvent) => void) | null = null;
  let nextId = 1;
  const snapshot = (): PortfolioLoad => ({
    symbols: [...server.symbols],
    lots: Object.fromEntries(server.symbols.map((s) => [s, [...(server.lots[s] ?? [])]])),
  });
  const actor = createActor(
    portfolioMachine.provide({
      actors: {
        loadPortfolio: fromPromise<PortfolioLoad>(async () => {
          calls.push('load');
          if (server.failLoad) throw new Error(server.failLoad);
          return Promise.resolve({ ...snapshot(), quotes: server.symbols.map((s) => quote(s, 110)) });
        }),
        readPortfolio: fromPromise<PortfolioLoad>(async () => {
          calls.push('read');
          return Promise.resolve(snapshot());
        }),
        saveChange: fromPromise<PortfolioAnswer, PortfolioChange>(async ({ input }) => {
          calls.push(`${input.kind} ${input.symbol}`);
          if (server.failSave) throw new Error(server.failSave);
          const { symbol } = input;
          switch (input.kind) {
            case 'addSymbol':
              if (!server.symbols.includes(symbol)) server.symbols.push(symbol);
              return Promise.resolve({ symbols: [...server.symbols] });
            case 'removeSymbol':
              if (!server.symbols.includes(symbol)) throw new Error(`params.symbol: ${symbol} is not in the portfolio`);
              server.symbols = server.symbols.filter((s) => s !== symbol);
              delete server.lots[symbol];
              return Promise.resolve({ symbols: [...server.symbols] });
            case 'addLot':
              if (!server.symbols.includes(symbol)) server.symbols.push(symbol);
              server.lots[symbol] = [...(server.lots[symbol] ?? []), { id: `lot-${nextId++}`, ...input.lot }];
              return Promise.resolve({ symbol, positions: server.lots[symbol] });
            case 'removeLot':
              server.lots[symbol] = (server.lots[symbol] ?? []).filter((l) => l.id !== input.id);
              return Promise.resolve({ symbol, positions: server.lots[symbol] });
          }
        }),
        quoteFeed: fromCallback<WatchQuotes, { symbols: readonly string[] }>(({ input, receive, sendBack: back }) => {
          watched.push(input.symbols);
          sendBack = back;
          receive((event) => watched.push(event.symbols));
        }),
        portfolioChanges: fromCallback(() => undefined),
      },
      actions: { tellAlreadyHeld: (_, params: { symbol: string }) => toasts.push(params.symbol) },
    }),
  ).start();
  return { actor, calls, watched, toasts, push: (event: PortfolioEvent) => sendBack?.(event) };
}

const idle = { ready: 'idle' } as const;
const settled = (s: { matches: (v: typeof idle) => boolean; context: { pending: readonly unknown[] } }) =>
  s.matches(idle) && s.context.pending.length === 0;
const lot = { date: '2025-06-02', close: 100, position: 10 };
/** Today, as the lot form gives it. */
const TODAY = '2026-01-05';
/** {@link lot} as typed in a card's "add a lot" form. */
const lotForm = { date: '2025-06-02', price: '100', quantity: '10' };
/** A card's lot form sent as typed. */
const addLot = (symbol: string, form: Partial<typeof lotForm> = {}) =>
  ({ type: 'user.addLot', symbol, form: { ...lotForm, ...form }, today: TODAY }) as const;

describe('portfolio machine', () => {
  it('loads the symbols, their lots and quotes, and follows the quotes live', async () => {
    const { actor, watched } = portfolio({ symbols: ['AAPL'], lots: { AAPL: [{ id: 'l1', ...lot }] } });
    expect(actor.getSnapshot().matches('loading')).to.equal(true);
    await waitFor(actor, (s) => s.matches(idle));
    const { context } = actor.getSnapshot();
    expect(context.symbols).to.deep.equal(['AAPL']);
    expect(context.lots['AAPL']).to.have.length(1);
    expect(context.quotes['AAPL']?.price).to.equal(110);
    expect(watched).to.deep.equal([['AAPL']]);
  });

  it('keeps the message of a failed load, stops loading and retries', async () => {
    const server: FakeServer = { symbols: [], lots: {}, failLoad: 'The server could not answer' };
    const { actor, calls } = portfolio(server);
    await waitFor(actor, (s) => s.matches('failed'));
    expect(actor.getSnapshot().context.error).to.equal('The server could not answer');
    delete server.failLoad;
    actor.send({ type: 'user.retry' });
    await waitFor(actor, (s) => s.matches(idle));
    expect(calls).to.deep.equal(['load', 'load']);
  });

  it('adds a symbol, ignores one already held, and follows the new quotes', async () => {
    const { actor, calls, toasts, watched } = portfolio({ symbols: ['AAPL'], lots: {} });
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.addSymbol', symbol: 'MSFT' });
    actor.send({ type: 'user.addSymbol', symbol: 'MSFT' });
    actor.send({ type: 'user.addSymbol', symbol: 'AAPL' });
    await waitFor(actor, settled);
    expect(actor.getSnapshot().context.symbols).to.deep.equal(['AAPL', 'MSFT']);
    expect(actor.getSnapshot().context.lots['MSFT']).to.deep.equal([]);
    expect(calls).to.deep.equal(['load', 'addSymbol MSFT']);
    expect(toasts).to.deep.equal(['MSFT', 'AAPL']);
    expect(watched.at(-1)).to.deep.equal(['AAPL', 'MSFT']);
  });

  it('adds a lot and removes it by id', async () => {
    const { actor, calls } = portfolio({ symbols: ['AAPL'], lots: {} });
    await waitFor(actor, (s) => s.matches(idle));
    actor.send(addLot('AAPL'));
    expect(actor.getSnapshot().matches({ ready: 'saving' })).to.equal(true);
    await waitFor(actor, settled);
    const added = actor.getSnapshot().context.lots['AAPL'];
    expect(added).to.deep.equal([{ id: 'lot-1', ...lot }]);
    actor.send({ type: 'user.removeLot', symbol: 'AAPL', id: 'lot-1' });
    await waitFor(actor, settled);
    expect(actor.getSnapshot().context.lots['AAPL']).to.deep.equal([]);
    expect(calls).to.deep.equal(['load', 'addLot AAPL', 'removeLot AAPL']);
  });

  it('adds the symbol with its first lot when it was not held', async () => {
    const { actor } = portfolio({ symbols: [], lots: {} });
    await waitFor(actor, (s) => s.matches(idle));
    actor.send(addLot('NVDA'));
    await waitFor(actor, settled);
    expect(actor.getSnapshot().context.symbols).to.deep.equal(['NVDA']);
  });

  it('removes a symbol with its lots', async () => {
    const { actor, watched } = portfolio({ symbols: ['AAPL', 'MSFT'], lots: { AAPL: [{ id: 'l1', ...lot }] } });
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.removeSymbol', symbol: 'AAPL' });
    await waitFor(actor, settled);
    expect(actor.getSnapshot().context.symbols).to.deep.equal(['MSFT']);
    expect(actor.getSnapshot().context.lots).to.not.have.property('AAPL');
    expect(watched.at(-1)).to.deep.equal(['MSFT']);
  });

  it('asks before removing a symbol, and sends nothing when the user keeps it', async () => {
    const { actor, calls } = portfolio({ symbols: ['AAPL', 'MSFT'], lots: { AAPL: [{ id: 'l1', ...lot }] } });
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.askRemoveSymbol', symbol: 'NVDA' });
    expect(actor.getSnapshot().context.confirmingRemoval, 'a symbol not held').to.equal(null);
    actor.send({ type: 'user.askRemoveSymbol', symbol: 'AAPL' });
    expect(actor.getSnapshot().context.confirmingRemoval).to.deep.equal({ symbol: 'AAPL', lot: null });
    actor.send({ type: 'user.keep' });
    expect(actor.getSnapshot().context.confirmingRemoval).to.equal(null);
    actor.send({ type: 'user.askRemoveSymbol', symbol: 'AAPL' });
    actor.send({ type: 'user.removeSymbol', symbol: 'AAPL' });
    expect(actor.getSnapshot().context.confirmingRemoval, 'answered by the removal').to.equal(null);
    await waitFor(actor, settled);
    expect(calls).to.deep.equal(['load', 'removeSymbol AAPL']);
    expect(actor.getSnapshot().context.symbols).to.deep.equal(['MSFT']);
  });

  it('asks before removing a lot, sends nothing when the user keeps it, and removes it once confirmed', async () => {
    const { actor, calls } = portfolio({
      symbols: ['AAPL'],
      lots: {
        AAPL: [
          { id: 'l1', ...lot },
          { id: 'l2', ...lot, position: 4 },
        ],
      },
    });
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.askRemoveLot', symbol: 'AAPL', id: 'l9' });
    expect(actor.getSnapshot().context.confirmingRemoval, 'a lot not held').to.equal(null);
    actor.send({ type: 'user.askRemoveLot', symbol: 'AAPL', id: 'l2' });
    expect(actor.getSnapshot().context.confirmingRemoval).to.deep.equal({ symbol: 'AAPL', lot: 'l2' });
    actor.send({ type: 'user.keep' });
    expect(actor.getSnapshot().context.confirmingRemoval).to.equal(null);
    actor.send({ type: 'user.askRemoveLot', symbol: 'AAPL', id: 'l2' });
    actor.send({ type: 'user.removeLot', symbol: 'AAPL', id: 'l2' });
    expect(actor.getSnapshot().context.confirmingRemoval, 'answered by the removal').to.equal(null);
    await waitFor(actor, settled);
    expect(calls).to.deep.equal(['load', 'removeLot AAPL']);
    expect(actor.getSnapshot().context.lots['AAPL']?.map((l) => l.id)).to.deep.equal(['l1']);
  });

  it('drops the question about a lot removed elsewhere, and keeps the one about a lot still held', async () => {
    const server: FakeServer = {
      symbols: ['AAPL'],
      lots: {
        AAPL: [
          { id: 'l1', ...lot },
          { id: 'l2', ...lot },
        ],
      },
    };
    const { actor } = portfolio(server);
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.askRemoveLot', symbol: 'AAPL', id: 'l1' });
    server.lots['AAPL'] = [{ id: 'l1', ...lot }];
    actor.send({ type: 'server.changed' });
    await waitFor(actor, (s) => s.matches(idle) && s.context.lots['AAPL']?.length === 1);
    expect(actor.getSnapshot().context.confirmingRemoval, 'its lot still held').to.deep.equal({
      symbol: 'AAPL',
      lot: 'l1',
    });
    server.lots['AAPL'] = [];
    actor.send({ type: 'server.changed' });
    await waitFor(actor, (s) => s.matches(idle) && s.context.lots['AAPL']?.length === 0);
    expect(actor.getSnapshot().context.confirmingRemoval).to.equal(null);
  });

  it('drops the question about a symbol removed elsewhere, so that adding it again asks nothing', async () => {
    const server: FakeServer = { symbols: ['AAPL', 'MSFT'], lots: {} };
    const { actor } = portfolio(server);
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.askRemoveSymbol', symbol: 'AAPL' });
    server.symbols = ['MSFT'];
    actor.send({ type: 'server.changed' });
    await waitFor(actor, (s) => s.matches(idle) && !s.context.symbols.includes('AAPL'));
    expect(actor.getSnapshot().context.confirmingRemoval).to.equal(null);
  });

  it('sends the removal of a symbol once when it is asked again before the answer', async () => {
    const { actor, calls } = portfolio({ symbols: ['AAPL', 'MSFT'], lots: {} });
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.removeSymbol', symbol: 'AAPL' });
    actor.send({ type: 'user.removeSymbol', symbol: 'AAPL' });
    await waitFor(actor, settled);
    expect(calls).to.deep.equal(['load', 'removeSymbol AAPL']);
    expect(actor.getSnapshot().context.saveError).to.equal(null);
    expect(actor.getSnapshot().context.symbols).to.deep.equal(['MSFT']);
  });

  it('keeps the message of a change that failed and reads the portfolio again', async () => {
    const server: FakeServer = { symbols: ['AAPL'], lots: {}, failSave: 'body.date: must not be in the future' };
    const { actor, calls } = portfolio(server);
    await waitFor(actor, (s) => s.matches(idle));
    actor.send(addLot('AAPL'));
    await waitFor(actor, (s) => settled(s) && calls.includes('read'));
    expect(actor.getSnapshot().context.saveError).to.equal(
      'Could not add the lot of AAPL: Date: must not be in the future',
    );
    expect(actor.getSnapshot().context.saveErrorSymbol).to.equal('AAPL');
    actor.send({ type: 'user.dismissError' });
    expect(actor.getSnapshot().context.saveError).to.equal(null);
    expect(actor.getSnapshot().context.saveErrorSymbol).to.equal(null);
  });

  it('tells which symbol a refused lot removal was of, and forgets it once a change is saved', async () => {
    const refusal = '4 shares of the 2025-06-02 lot of AAPL were sold, the last on 2025-06-03; record a sale';
    const server: FakeServer = {
      symbols: ['AAPL', 'MSFT'],
      lots: { AAPL: [{ id: 'l1', ...lot }] },
      failSave: `body.id: ${refusal}`,
    };
    const { actor, calls } = portfolio(server);
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.removeLot', symbol: 'AAPL', id: 'l1' });
    await waitFor(actor, (s) => settled(s) && calls.includes('read'));
    const { context } = actor.getSnapshot();
    expect([context.saveError, context.saveErrorSymbol]).to.deep.equal([
      `Could not remove the lot of AAPL: ${refusal}`,
      'AAPL',
    ]);
    expect(context.lots['AAPL']).to.deep.equal([{ id: 'l1', ...lot }]);
    delete server.failSave;
    actor.send(addLot('MSFT'));
    await waitFor(actor, settled);
    expect([actor.getSnapshot().context.saveError, actor.getSnapshot().context.saveErrorSymbol]).to.deep.equal([
      null,
      null,
    ]);
  });

  it('checks the lot form before sending: a refused field is said until that field is edited', async () => {
    const { actor, calls } = portfolio({ symbols: ['AAPL'], lots: {} });
    await waitFor(actor, (s) => s.matches(idle));
    actor.send(addLot('AAPL', { price: '99999999', quantity: '0' }));
    expect(actor.getSnapshot().context.lotForms['AAPL']).to.deep.equal({
      errors: {
        price: 'Price: must be at most 10,000,000',
        quantity: 'Quantity: must not be 0 (negative for a short position)',
      },
      sent: 0,
    });
    actor.send({ type: 'user.editLot', symbol: 'AAPL', field: 'quantity' });
    expect(actor.getSnapshot().context.lotForms['AAPL']?.errors).to.deep.equal({
      price: 'Price: must be at most 10,000,000',
    });
    actor.send({ type: 'user.editLot', symbol: 'AAPL', field: 'price' });
    expect(actor.getSnapshot().context.lotForms['AAPL']?.errors).to.deep.equal({});
    expect(calls).to.deep.equal(['load']);
    actor.send(addLot('AAPL'));
    expect(actor.getSnapshot().context.lotForms['AAPL']).to.deep.equal({ errors: {}, sent: 1 });
    await waitFor(actor, settled);
    expect(calls).to.deep.equal(['load', 'addLot AAPL']);
  });

  it("forgets what a card's lot form said once a lot is removed there, not what another card's said", async () => {
    const { actor, calls } = portfolio({
      symbols: ['AAPL', 'MSFT'],
      lots: { AAPL: [{ id: 'l1', ...lot }], MSFT: [{ id: 'l2', ...lot }] },
    });
    await waitFor(actor, (s) => s.matches(idle));
    actor.send(addLot('AAPL', { price: '99999999' }));
    actor.send(addLot('MSFT', { quantity: 'x' }));
    actor.send({ type: 'user.askRemoveLot', symbol: 'AAPL', id: 'l1' });
    expect(actor.getSnapshot().context.lotForms['AAPL']?.errors).to.deep.equal({});
    expect(actor.getSnapshot().context.lotForms['MSFT']?.errors).to.deep.equal({
      quantity: 'Quantity: must be a number, e.g. 10',
    });
    actor.send({ type: 'user.removeLot', symbol: 'AAPL', id: 'l1' });
    await waitFor(actor, settled);
    expect(calls).to.deep.equal(['load', 'removeLot AAPL']);
    expect(actor.getSnapshot().context.lotForms['MSFT']?.errors).to.deep.equal({
      quantity: 'Quantity: must be a number, e.g. 10',
    });
  });

  it("replaces a refused removal's message with what the next attempt in its card gets", async () => {
    const server: FakeServer = {
      symbols: ['AAPL'],
      lots: { AAPL: [{ id: 'l1', ...lot }] },
      failSave: 'body.id: 4 shares of the 2025-06-02 lot of AAPL were sold, the last on 2025-06-03',
    };
    const { actor, calls } = portfolio(server);
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.removeLot', symbol: 'AAPL', id: 'l1' });
    await waitFor(actor, (s) => settled(s) && calls.includes('read'));
    expect(actor.getSnapshot().context.saveError).to.equal(
      'Could not remove the lot of AAPL: 4 shares of the 2025-06-02 lot of AAPL were sold, the last on 2025-06-03',
    );
    actor.send(addLot('AAPL', { price: '99999999' }));
    const { context } = actor.getSnapshot();
    expect([context.saveError, context.saveErrorSymbol]).to.deep.equal([null, null]);
    expect(context.lotForms['AAPL']?.errors).to.deep.equal({ price: 'Price: must be at most 10,000,000' });
  });

  it("words a refused change in the card's terms: the lot form's labels, no path of a field it does not show", () => {
    expect(
      changeRefusal(
        { kind: 'removeLot', symbol: 'AAPL', id: 'l1' },
        new Error('body.id: 4 shares of the 2024-01-10 lot of AAPL were sold'),
      ),
    ).to.equal('Could not remove the lot of AAPL: 4 shares of the 2024-01-10 lot of AAPL were sold');
    expect(
      changeRefusal({ kind: 'addLot', symbol: 'AAPL', lot }, new Error('body.close: must be at most 10000000')),
    ).to.equal('Could not add the lot of AAPL: Price: must be at most 10000000');
    expect(
      changeRefusal({ kind: 'removeSymbol', symbol: 'AAPL' }, new Error('params.symbol: AAPL is not in the portfolio')),
    ).to.equal('Could not remove AAPL: AAPL is not in the portfolio');
    expect(changeRefusal(undefined, new Error('The server cannot be reached'))).to.equal(
      'Could not save: The server cannot be reached',
    );
  });

  it('takes live quotes and reads the portfolio again when it changed elsewhere', async () => {
    const server: FakeServer = { symbols: ['AAPL'], lots: {} };
    const { actor, push, calls } = portfolio(server);
    await waitFor(actor, (s) => s.matches(idle));
    push({ type: 'server.quote', quote: quote('AAPL', 120.5, '2026-01-05T15:00:01.000Z') });
    expect(actor.getSnapshot().context.quotes['AAPL']?.price).to.equal(120.5);
    server.symbols.push('TSLA');
    push({ type: 'server.changed' });
    await waitFor(actor, (s) => s.matches(idle) && calls.includes('read'));
    expect(actor.getSnapshot().context.symbols).to.deep.equal(['AAPL', 'TSLA']);
  });

  it('drops the lots of symbols the server no longer lists', () => {
    const state = { symbols: ['A', 'B'], lots: { A: [], B: [{ id: 'x', ...lot }] } };
    const next = applyAnswer(state, { kind: 'removeSymbol', symbol: 'B' }, { symbols: ['A'] });
    expect(next).to.deep.equal({ symbols: ['A'], lots: { A: [] } });
  });
});

describe('portfolio batched quote feed', () => {
  it('sends the first quote at once, then the latest of each symbol in a batch, across a new watch', async () => {
    const listeners = new Map<string, Set<(quote: Quote) => void>>();
    const source = {
      onQuotes: (symbols: readonly string[], listener: (quote: Quote) => void) => {
        for (const s of symbols) listeners.set(s, (listeners.get(s) ?? new Set()).add(listener));
        return () => symbols.forEach((s) => listeners.get(s)?.delete(listener));
      },
    };
    const tick = (q: Quote) => listeners.get(q.symbol)?.forEach((listener) => listener(q));
    const batches: (readonly Quote[])[] = [];
    const parent = createActor(
      setup({ actors: { feed: batchedQuoteFeedOf(source, 30) } }).createMachine({
        invoke: { id: 'feed', src: 'feed', input: { symbols: ['AAPL'] } },
        on: {
          'server.quotes': {
            actions: ({ event }) => batches.push((event as unknown as { quotes: readonly Quote[] }).quotes),
          },
          watch: { actions: sendTo('feed', { type: 'quotes.watch', symbols: ['AAPL', 'MSFT'] }) },
        },
      }),
    ).start();
    tick(quote('AAPL', 100));
    await waitFor(parent, () => batches.length === 1);
    parent.send({ type: 'watch' });
    tick(quote('AAPL', 101));
    tick(quote('MSFT', 400));
    tick(quote('AAPL', 102));
    await waitFor(parent, () => batches.length === 2);
    expect(batches.map((b) => b.map((q) => `${q.symbol} ${q.price}`))).to.deep.equal([
      ['AAPL 100'],
      ['AAPL 102', 'MSFT 400'],
    ]);
    parent.stop();
  });
});
