import { expect } from 'chai';
import { createActor, sendTo, setup } from 'xstate';
import type { Quote } from '../../../domain/market/types.ts';
import { flashClass } from '../../components/PriceFlash.tsx';
import {
  formatPercent,
  formatPrice,
  formatSigned,
  quoteFeedOf,
  signClass,
  type QuoteSource,
  type ServerQuotes,
} from './quotes.ts';

/** A connection that keeps listeners per symbol in sets, as the real one does. */
function fakeConnection() {
  const listeners = new Map<string, Set<(quote: Quote) => void>>();
  const source: QuoteSource = {
    onQuotes: (symbols, listener) => {
      for (const symbol of symbols) {
        if (!listeners.has(symbol)) listeners.set(symbol, new Set());
        listeners.get(symbol)!.add(listener);
      }
      return () => {
        for (const symbol of symbols) {
          listeners.get(symbol)?.delete(listener);
          if (listeners.get(symbol)?.size === 0) listeners.delete(symbol);
        }
      };
    },
  };
  const push = (quote: Quote) => {
    for (const listener of listeners.get(quote.symbol) ?? []) listener(quote);
  };
  return { source, listeners, push };
}

const quote = (symbol: string, price: number): Quote => ({
  symbol,
  price,
  change: 0,
  changepct: 0,
  volume: 0,
  ts: '2026-01-05T15:00:00.000Z',
  source: 'simulated',
});

describe('list screens: live quotes', () => {
  it('keeps following the symbols that stay when the list changes, and drops the others', async () => {
    const { source, listeners, push } = fakeConnection();
    const got: string[][] = [];
    const parent = setup({
      types: { events: {} as ServerQuotes | { type: 'change'; symbols: string[] } },
      actors: { feed: quoteFeedOf(source, 20) },
    }).createMachine({
      invoke: { id: 'feed', src: 'feed', input: { symbols: ['A', 'B'] } },
      on: {
        'server.quotes': { actions: ({ event }) => got.push(event.quotes.map((q) => `${q.symbol} ${q.price}`)) },
        change: { actions: sendTo('feed', ({ event }) => ({ type: 'quotes.watch', symbols: event.symbols })) },
      },
    });
    const actor = createActor(parent).start();
    actor.send({ type: 'change', symbols: ['A', 'B'] });
    actor.send({ type: 'change', symbols: ['B', 'C'] });
    expect([...listeners.keys()].sort()).to.deep.equal(['B', 'C']);
    expect(listeners.get('B')?.size).to.equal(1);
    push(quote('A', 1));
    push(quote('B', 2));
    push(quote('C', 3));
    push(quote('B', 4));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(got, 'the newest quote of each symbol followed, in one batch').to.deep.equal([['B 4', 'C 3']]);
    push(quote('C', 5));
    actor.stop();
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(got, 'nothing after the feed stopped').to.have.length(1);
    expect(listeners.size).to.equal(0);
  });

  it('writes prices, signed changes and percentages, and colours them by sign', () => {
    expect(formatPrice(1234.5)).to.equal('1,234.50');
    expect(formatPrice(null)).to.equal('–');
    expect(formatSigned(1.5)).to.equal('+1.50');
    expect(formatSigned(-0.4)).to.equal('-0.40');
    expect(formatPercent(0)).to.equal('0.00%');
    expect(signClass(2)).to.equal('up');
    expect(signClass(-2)).to.equal('down');
    expect(signClass(0)).to.equal('');
    expect(signClass(undefined)).to.equal('');
  });

  it('flashes green on a rise, red on a fall, and not at all without a change', () => {
    expect(flashClass(10, 10.5)).to.equal('flash-up');
    expect(flashClass(10, 9.5)).to.equal('flash-down');
    expect(flashClass(10, 10)).to.equal(null);
    expect(flashClass(null, 10)).to.equal(null);
    expect(flashClass(10, undefined)).to.equal(null);
  });
});
