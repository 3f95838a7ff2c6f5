import { expect } from 'chai';
import { createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import type { UniverseCompany } from '../../../domain/contract/market.ts';
import type { QuotesAck } from '../../../domain/contract/socket.ts';
import { marketCapOf, type Quote } from '../../../domain/market/types.ts';
import { LiveConnection, type LiveSocket } from '../../services/live.ts';
import { QUOTE_BATCH_MS, quoteFeedOf, withQuote, withQuotes, type QuoteSource, type WatchQuotes } from './quotes.ts';
import {
  applyChange,
  applyChanges,
  watchlistMachine,
  watchlistRows,
  type WatchlistChange,
  type WatchlistEvent,
  type WatchlistLoad,
} from './watchlist.machine.ts';

/** Shares outstanding of every company of the fake universe. */
const SHARES = 15_000_000_000;

/** A company as the universe answered it: its market cap at 98, the price when the screen read it. */
function company(symbol: string, name = `${symbol} Inc.`): UniverseCompany {
  return {
    symbol,
    name,
    sector: 'Information Technology',
    industry: 'Software',
    shares: SHARES,
    marketcap: marketCapOf(SHARES, 98),
    capclass: 'large',
  };
}

function quote(symbol: string, price: number, ts = '2026-01-05T15:00:00.000Z'): Quote {
  return { symbol, price, change: 1.5, changepct: 0.75, volume: 1_250_000, ts, source: 'simulated' };
}

interface FakeServer {
  list: string[];
  failLoad?: boolean;
  failSave?: string;
  /** Resolves a save only when released. */
  hold?: boolean;
}

/** The watch list screen on a fake server; its quotes from `connection` when given, else pushed by the test. */
function watchlist(server: FakeServer, connection?: QuoteSource) {
  const calls: string[] = [];
  const watched: (readonly string[])[] = [];
  const toasts: string[] = [];
  const released: (() => void)[] = [];
  let sendBack: ((event: WatchlistEvent) => void) | null = null;
  const actor = createActor(
    watchlistMachine.provide({
      actors: {
        loadWatchlist: fromPromise<WatchlistLoad>(async () => {
          calls.push('load');
          if (server.failLoad) throw new Error('The server could not answer: try again in a moment');
          return Promise.resolve({
            symbols: [...server.list],
            companies: {
              AAPL: company('AAPL', 'Apple Inc.'),
              NVDA: company('NVDA', 'NVIDIA Corp.'),
              MSFT: company('MSFT'),
            },
            quotes: server.list.map((s) => quote(s, 100)),
          });
        }),
        readWatchlist: fromPromise<readonly string[]>(async () => {
          calls.push('read');
          return Promise.resolve([...server.list]);
        }),
        saveChange: fromPromise<readonly string[], WatchlistChange>(async ({ input }) => {
          calls.push(`${input.kind} ${input.symbol}`);
          if (server.hold) await new Promise<void>((resolve) => released.push(resolve));
          if (server.failSave === input.symbol) throw new Error('params.symbol: unknown symbol');
          server.list = [...applyChange(server.list, input)];
          return [...server.list];
        }),
        quoteFeed: connection
          ? quoteFeedOf(connection)
          : fromCallback<WatchQuotes, { symbols: readonly string[] }>(({ input, receive, sendBack: back }) => {
              watched.push(input.symbols);
              sendBack = back;
              receive((event) => watched.push(event.symbols));
            }),
        listChanges: fromCallback(() => undefined),
      },
      actions: { tellAlreadyListed: (_, params: { symbol: string }) => toasts.push(params.symbol) },
    }),
  ).start();
  return { actor, calls, watched, toasts, released, push: (event: WatchlistEvent) => sendBack?.(event) };
}

const idle = { ready: 'idle' } as const;

/**
 * A live connection on a socket whose server the test plays, with frames the test draws: `serve` sends a
 * quote, `answer` answers the subscriptions asked for, `draw` draws the frames asked for.
 */
function liveOnFakeSocket() {
  const handlers = new Map<string, ((value: unknown) => void)[]>();
  const acks: ((answer: QuotesAck) => void)[] = [];
  const socket = {
    connected: true,
    on: (event: string, handler: (value: unknown) => void) =>
      handlers.set(event, [...(handlers.get(event) ?? []), handler]),
    emit: (_event: string, _request: unknown, ack: (answer: QuotesAck) => void) => acks.push(ack),
  };
  const waiting: (() => void)[] = [];
  const connection = new LiveConnection({
    open: () => socket as unknown as LiveSocket,
    frame: (run) => {
      waiting.push(run);
      return () => {
        if (waiting.includes(run)) waiting.splice(waiting.indexOf(run), 1);
      };
    },
  });
  connection.connect();
  const serve = (event: string, value?: unknown) => handlers.get(event)?.forEach((handler) => handler(value));
  serve('connect');
  return {
    connection,
    serve,
    answer: () => acks.splice(0).forEach((ack) => ack({ ok: true, symbols: [], quotes: [] })),
    draw: () => waiting.splice(0).forEach((run) => run()),
  };
}

describe('watch list machine', () => {
  it('loads the list with companies and quotes, and follows the quotes of its symbols', async () => {
    const { actor, watched } = watchlist({ list: ['AAPL', 'NVDA'] });
    expect(actor.getSnapshot().matches('loading')).to.equal(true);
    await waitFor(actor, (s) => s.matches(idle));
    const rows = watchlistRows(actor.getSnapshot().context);
    expect(rows.map((r) => [r.symbol, r.name, r.price])).to.deep.equal([
      ['AAPL', 'Apple Inc.', 100],
      ['NVDA', 'NVIDIA Corp.', 100],
    ]);
    expect(watched).to.deep.equal([['AAPL', 'NVDA']]);
  });

  it('keeps the load failure message, stops loading and retries on demand', async () => {
    const server: FakeServer = { list: [], failLoad: true };
    const { actor, calls } = watchlist(server);
    await waitFor(actor, (s) => s.matches('failed'));
    expect(actor.getSnapshot().context.error).to.equal('The server could not answer: try again in a moment');
    server.failLoad = false;
    actor.send({ type: 'user.retry' });
    await waitFor(actor, (s) => s.matches(idle));
    expect(calls).to.deep.equal(['load', 'load']);
    expect(actor.getSnapshot().context.error).to.equal(null);
  });

  it('adds a symbol at once, saves it and follows its quotes', async () => {
    const { actor, calls, watched } = watchlist({ list: ['AAPL'] });
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.add', symbol: 'NVDA' });
    expect(actor.getSnapshot().context.symbols).to.deep.equal(['AAPL', 'NVDA']);
    expect(actor.getSnapshot().matches({ ready: 'saving' })).to.equal(true);
    await waitFor(actor, (s) => s.matches(idle));
    expect(calls).to.deep.equal(['load', 'add NVDA']);
    expect(watched.at(-1)).to.deep.equal(['AAPL', 'NVDA']);
  });

  it('drops a symbol already on the watch list and says so', async () => {
    const { actor, calls, toasts } = watchlist({ list: ['AAPL'] });
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.add', symbol: 'AAPL' });
    expect(actor.getSnapshot().context.symbols).to.deep.equal(['AAPL']);
    expect(calls).to.deep.equal(['load']);
    expect(toasts).to.deep.equal(['AAPL']);
  });

  it('sends changes made while saving one after the other, in order', async () => {
    const server: FakeServer = { list: ['AAPL'], hold: true };
    const { actor, calls, released } = watchlist(server);
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.add', symbol: 'NVDA' });
    actor.send({ type: 'user.add', symbol: 'MSFT' });
    actor.send({ type: 'user.remove', symbol: 'AAPL' });
    expect(actor.getSnapshot().context.symbols).to.deep.equal(['NVDA', 'MSFT']);
    for (let i = 0; i < 3; i += 1) {
      await waitFor(actor, () => released.length > i);
      released[i]!();
    }
    await waitFor(actor, (s) => s.matches(idle) && s.context.pending.length === 0);
    expect(calls).to.deep.equal(['load', 'add NVDA', 'add MSFT', 'remove AAPL']);
    expect(actor.getSnapshot().context.symbols).to.deep.equal(['NVDA', 'MSFT']);
    expect(server.list).to.deep.equal(['NVDA', 'MSFT']);
  });

  it('removes a symbol and stops following its quotes', async () => {
    const { actor, watched } = watchlist({ list: ['AAPL', 'NVDA'] });
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.remove', symbol: 'AAPL' });
    await waitFor(actor, (s) => s.matches(idle));
    expect(actor.getSnapshot().context.symbols).to.deep.equal(['NVDA']);
    expect(watched.at(-1)).to.deep.equal(['NVDA']);
  });

  it('keeps the message of a change that failed and reads the list again', async () => {
    const { actor, calls } = watchlist({ list: ['AAPL'], failSave: 'ZZZZ' });
    await waitFor(actor, (s) => s.matches(idle));
    actor.send({ type: 'user.add', symbol: 'ZZZZ' });
    await waitFor(actor, (s) => s.matches(idle) && calls.includes('read'));
    expect(actor.getSnapshot().context.saveError).to.equal('Could not add ZZZZ: params.symbol: unknown symbol');
    expect(actor.getSnapshot().context.symbols).to.deep.equal(['AAPL']);
    actor.send({ type: 'user.dismissError' });
    expect(actor.getSnapshot().context.saveError).to.equal(null);
  });

  it('updates a price from the live feed and ignores an older quote', async () => {
    const { actor, push } = watchlist({ list: ['AAPL'] });
    await waitFor(actor, (s) => s.matches(idle));
    push({ type: 'server.quotes', quotes: [quote('AAPL', 101.25, '2026-01-05T15:00:01.000Z')] });
    push({ type: 'server.quotes', quotes: [quote('AAPL', 99, '2026-01-05T14:59:59.000Z')] });
    expect(actor.getSnapshot().context.quotes['AAPL']?.price).to.equal(101.25);
  });

  it('moves the market cap shown with the live price: shares × the price of the latest quote', async () => {
    const { actor, push } = watchlist({ list: ['AAPL'] });
    await waitFor(actor, (s) => s.matches(idle));
    const capOf = (symbol: string) =>
      watchlistRows(actor.getSnapshot().context).find((r) => r.symbol === symbol)?.marketcap;
    expect(capOf('AAPL'), 'at the price of the quote read with the list').to.equal(SHARES * 100);

    push({ type: 'server.quotes', quotes: [quote('AAPL', 101.25, '2026-01-05T15:00:01.000Z')] });
    expect(capOf('AAPL')).to.equal(SHARES * 101.25);
    expect(capOf('AAPL')).to.equal(marketCapOf(SHARES, 101.25));
    push({ type: 'server.quotes', quotes: [quote('AAPL', 99, '2026-01-05T14:59:59.000Z')] });
    expect(capOf('AAPL'), 'an older quote moves neither price nor cap').to.equal(SHARES * 101.25);

    actor.send({ type: 'user.add', symbol: 'NVDA' });
    await waitFor(actor, (s) => s.matches(idle));
    expect(capOf('NVDA'), 'the cap answered until a quote comes').to.equal(marketCapOf(SHARES, 98));
    push({ type: 'server.quotes', quotes: [quote('NVDA', 180.5, '2026-01-05T15:00:02.000Z')] });
    expect(capOf('NVDA')).to.equal(SHARES * 180.5);
    expect(actor.getSnapshot().context.companies['NVDA']?.capclass).to.equal('large');
  });

  it('takes a burst of quotes as one batch: the latest price and cap of each symbol, in one update', async () => {
    const live = liveOnFakeSocket();
    const { actor } = watchlist({ list: ['AAPL', 'MSFT', 'NVDA'] }, live.connection);
    await waitFor(actor, (s) => s.matches(idle));
    live.answer();
    live.draw();
    let updates = 0;
    actor.subscribe(() => (updates += 1));

    const symbols = ['AAPL', 'MSFT', 'NVDA'];
    const at = (i: number) => new Date(Date.UTC(2026, 0, 5, 15, 1, i)).toISOString();
    const burst = Array.from({ length: 100 }, (_, i) => quote(symbols[i % 3]!, 100 + (i % 7) - 3 + i / 100, at(i)));
    for (const q of burst) live.serve('quote', q);
    live.draw();
    const latest = new Map(burst.map((q) => [q.symbol, q.price]));
    const shown = () => watchlistRows(actor.getSnapshot().context).map((r) => r.price);
    await waitFor(actor, () => shown().every((price, i) => price === latest.get(symbols[i]!)));
    const rows = watchlistRows(actor.getSnapshot().context);
    expect(rows.map((r) => r.marketcap)).to.deep.equal(symbols.map((s) => marketCapOf(SHARES, latest.get(s)!)));
    expect(updates, 'the whole burst taken in one update').to.equal(1);

    // Quotes coming right after a batch wait for the next one.
    live.serve('quote', quote('AAPL', 150, at(200)));
    live.draw();
    await new Promise((resolve) => setTimeout(resolve, QUOTE_BATCH_MS / 2));
    expect(updates, 'not before the batch time').to.equal(1);
    await waitFor(actor, () => shown()[0] === 150);
    expect(updates).to.equal(2);
  });

  it('takes only the quotes of a batch newer than those held', async () => {
    const { actor, push } = watchlist({ list: ['AAPL', 'NVDA'] });
    await waitFor(actor, (s) => s.matches(idle));
    const before = actor.getSnapshot().context;
    push({ type: 'server.quotes', quotes: [quote('AAPL', 90, '2026-01-05T14:00:00.000Z')] });
    expect(actor.getSnapshot().context, 'an older batch changes nothing').to.equal(before);
    push({
      type: 'server.quotes',
      quotes: [quote('AAPL', 90, '2026-01-05T14:00:00.000Z'), quote('NVDA', 120, '2026-01-05T15:00:01.000Z')],
    });
    const rows = watchlistRows(actor.getSnapshot().context);
    expect(rows.map((r) => [r.symbol, r.price, r.marketcap])).to.deep.equal([
      ['AAPL', 100, SHARES * 100],
      ['NVDA', 120, SHARES * 120],
    ]);
  });

  it('reads the list again when it changed on the server', async () => {
    const server: FakeServer = { list: ['AAPL'] };
    const { actor, calls, push } = watchlist(server);
    await waitFor(actor, (s) => s.matches(idle));
    server.list = ['AAPL', 'MSFT'];
    push({ type: 'server.changed' });
    await waitFor(actor, (s) => s.matches(idle) && calls.includes('read'));
    expect(actor.getSnapshot().context.symbols).to.deep.equal(['AAPL', 'MSFT']);
  });

  it('merges without duplicates and filters out a removed symbol', () => {
    expect(applyChange(['A', 'B'], { kind: 'add', symbol: 'B' })).to.deep.equal(['A', 'B']);
    expect(applyChange(['A'], { kind: 'add', symbol: 'C' })).to.deep.equal(['A', 'C']);
    expect(applyChange(['A', 'B'], { kind: 'remove', symbol: 'A' })).to.deep.equal(['B']);
    expect(
      applyChanges(
        ['A'],
        [
          { kind: 'add', symbol: 'B' },
          { kind: 'remove', symbol: 'A' },
          { kind: 'add', symbol: 'B' },
        ],
      ),
    ).to.deep.equal(['B']);
  });

  it('replaces the quote of the same symbol unless the held one is newer', () => {
    const first = withQuote({}, quote('A', 1, '2026-01-01T00:00:01Z'));
    expect(withQuote(first, quote('A', 2, '2026-01-01T00:00:00Z'))).to.equal(first);
    expect(withQuote(first, quote('A', 3, '2026-01-01T00:00:02Z'))['A']?.price).to.equal(3);
    const batch = [quote('A', 2, '2026-01-01T00:00:00Z'), quote('B', 4, '2026-01-01T00:00:03Z')];
    expect(withQuotes(first, [batch[0]!]), 'no newer quote: the same map').to.equal(first);
    expect(Object.values(withQuotes(first, batch)).map((q) => q.price)).to.deep.equal([1, 4]);
  });
});
