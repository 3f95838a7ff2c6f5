import { expect } from 'chai';
import { DomainError, fold } from '../decider.ts';
import { given } from '../testing/givenWhenThen.ts';
import {
  WATCHLIST_LIMIT,
  watchlistDecider,
  type WatchlistCommand,
  type WatchlistEvent,
  type WatchlistState,
} from './watchlist.ts';

const add = (...symbols: string[]): WatchlistCommand => ({ type: 'AddSymbolsToWatchlist', data: { symbols } });
const remove = (symbol: string): WatchlistCommand => ({ type: 'RemoveSymbolFromWatchlist', data: { symbol } });
const added = (symbol: string): WatchlistEvent => ({ type: 'SymbolAddedToWatchlist', data: { symbol } });
const removed = (symbol: string): WatchlistEvent => ({ type: 'SymbolRemovedFromWatchlist', data: { symbol } });
const symbolsNumbered = (count: number, from = 0): string[] =>
  Array.from({ length: count }, (_, i) => `S${String(from + i).padStart(4, '0')}`);

describe('watch list decider', () => {
  describe('adding symbols', () => {
    it('adds symbols to an empty watch list in the order given', () => {
      given(watchlistDecider)
        .when(add('NVDA', 'AAPL'))
        .then([added('NVDA'), added('AAPL')]);
    });

    it('drops a symbol already on the watch list and adds the rest', () => {
      given(watchlistDecider, [added('AAPL')])
        .when(add('AAPL', 'MSFT'))
        .then([added('MSFT')]);
    });

    it('decides nothing when every symbol is already on the watch list', () => {
      given(watchlistDecider, [added('AAPL'), added('MSFT')])
        .when(add('MSFT', 'AAPL'))
        .thenNothing();
    });

    it('drops repeats within one command', () => {
      given(watchlistDecider)
        .when(add('AAPL', 'MSFT', 'AAPL', 'msft'))
        .then([added('AAPL'), added('MSFT')]);
    });

    it('upper-cases and trims symbols', () => {
      given(watchlistDecider)
        .when(add('brk.b', ' bf-b '))
        .then([added('BRK.B'), added('BF-B')]);
    });

    it('treats a lower-case symbol as the one already on the list', () => {
      given(watchlistDecider, [added('AAPL')])
        .when(add('aapl'))
        .thenNothing();
    });

    it('refuses an invalid symbol, naming it and its place in the command', () => {
      given(watchlistDecider).when(add('AAPL', 'NOT A SYMBOL')).thenError('invalid_symbol');
      try {
        watchlistDecider.decide(add('AAPL', 'AA$'), watchlistDecider.initialState);
        expect.fail('decide accepted AA$');
      } catch (error) {
        expect(error).to.be.instanceOf(DomainError);
        expect((error as DomainError).field).to.equal('symbols[1]');
        expect((error as DomainError).message)
          .to.contain('symbols[1]')
          .and.contain('"AA$"');
      }
    });

    for (const bad of ['', ' ', 'ABCDEFGHIJK', '.A', '-A', 'AA/B', 'ÄPFEL', 'AA B']) {
      it(`refuses ${JSON.stringify(bad)} as a symbol`, () => {
        given(watchlistDecider).when(add(bad)).thenError('invalid_symbol');
      });
    }

    it('accepts a symbol of exactly ten characters and one of one character', () => {
      given(watchlistDecider)
        .when(add('ABCDEFGHIJ', 'F'))
        .then([added('ABCDEFGHIJ'), added('F')]);
    });

    it('refuses an invalid symbol even when the others are already on the list', () => {
      given(watchlistDecider, [added('AAPL')])
        .when(add('AAPL', '!'))
        .thenError('invalid_symbol');
    });

    it('refuses an empty list of symbols', () => {
      given(watchlistDecider).when(add()).thenError('empty');
    });

    it(`fills the watch list up to exactly ${WATCHLIST_LIMIT} symbols`, () => {
      const past = symbolsNumbered(WATCHLIST_LIMIT - 1).map(added);
      given(watchlistDecider, past)
        .when(add('ZZZ'))
        .then([added('ZZZ')]);
    });

    it(`refuses a command that would take the watch list past ${WATCHLIST_LIMIT} symbols`, () => {
      const past = symbolsNumbered(WATCHLIST_LIMIT - 1).map(added);
      given(watchlistDecider, past).when(add('ZZZ', 'YYY')).thenError('limit');
      given(watchlistDecider)
        .when(add(...symbolsNumbered(WATCHLIST_LIMIT + 1)))
        .thenError('limit');
    });

    it('counts only new symbols against the limit', () => {
      const full = symbolsNumbered(WATCHLIST_LIMIT);
      given(watchlistDecider, full.map(added)).when(add(full[0]!, full[1]!.toLowerCase())).thenNothing();
    });

    it('has room again after a removal', () => {
      const full = symbolsNumbered(WATCHLIST_LIMIT);
      given(watchlistDecider, [...full.map(added), removed(full[5]!)])
        .when(add('NEW'))
        .then([added('NEW')]);
    });
  });

  describe('removing a symbol', () => {
    it('removes a symbol on the watch list', () => {
      given(watchlistDecider, [added('AAPL'), added('MSFT')])
        .when(remove('AAPL'))
        .then([removed('AAPL')]);
    });

    it('removes a symbol named in lower case', () => {
      given(watchlistDecider, [added('AAPL')])
        .when(remove('aapl'))
        .then([removed('AAPL')]);
    });

    it('decides nothing when the symbol is not on the watch list', () => {
      given(watchlistDecider, [added('AAPL')])
        .when(remove('MSFT'))
        .thenNothing();
    });

    it('decides nothing when the symbol was already removed', () => {
      given(watchlistDecider, [added('AAPL'), removed('AAPL')])
        .when(remove('AAPL'))
        .thenNothing();
    });

    it('refuses an invalid symbol', () => {
      given(watchlistDecider).when(remove('A A')).thenError('invalid_symbol');
    });
  });

  it('refuses a command type it does not know', () => {
    const unknown = { type: 'RenameWatchlist', data: { name: 'x' } } as unknown as WatchlistCommand;
    given(watchlistDecider).when(unknown).thenError('unknown_command');
  });

  describe('evolve', () => {
    const at = (...symbols: string[]): WatchlistState => ({ symbols });

    it('appends an added symbol and filters out a removed one', () => {
      expect(watchlistDecider.evolve(at('AAPL'), added('MSFT'))).to.deep.equal(at('AAPL', 'MSFT'));
      expect(watchlistDecider.evolve(at('AAPL', 'MSFT', 'IBM'), removed('MSFT'))).to.deep.equal(at('AAPL', 'IBM'));
    });

    it('is total: a repeated add or an absent removal leaves the state as it is', () => {
      expect(watchlistDecider.evolve(at('AAPL'), added('AAPL'))).to.deep.equal(at('AAPL'));
      expect(watchlistDecider.evolve(at('AAPL'), removed('MSFT'))).to.deep.equal(at('AAPL'));
      expect(watchlistDecider.evolve(at(), removed('MSFT'))).to.deep.equal(at());
    });

    it('ignores an event type it does not know', () => {
      const unknown = { type: 'SymbolRenamedOnWatchlist', data: { symbol: 'X' } } as unknown as WatchlistEvent;
      expect(watchlistDecider.evolve(at('AAPL'), unknown)).to.deep.equal(at('AAPL'));
    });

    it('does not change the state it is given', () => {
      const before = Object.freeze(at('AAPL', 'MSFT'));
      watchlistDecider.evolve(before, added('IBM'));
      watchlistDecider.evolve(before, removed('AAPL'));
      expect(before).to.deep.equal(at('AAPL', 'MSFT'));
    });

    it('folds events into the list in the order they happened', () => {
      const state = fold(watchlistDecider, [
        added('NVDA'),
        added('AAPL'),
        added('MSFT'),
        removed('AAPL'),
        added('IBM'),
        added('AAPL'),
      ]);
      expect(state).to.deep.equal(at('NVDA', 'MSFT', 'IBM', 'AAPL'));
    });

    it('starts from an empty watch list', () => {
      expect(fold(watchlistDecider, [])).to.deep.equal(at());
    });
  });
});

describe('given/when/then on the watch list decider', () => {
  const add = (...symbols: string[]): WatchlistCommand => ({ type: 'AddSymbolsToWatchlist', data: { symbols } });
  const added = (symbol: string): WatchlistEvent => ({ type: 'SymbolAddedToWatchlist', data: { symbol } });
  const failureOf = (spec: () => void): Error => {
    try {
      spec();
    } catch (error) {
      return error as Error;
    }
    throw new Error('the spec passed although it should have failed');
  };

  it('fails then() on other events, showing both', () => {
    const error = failureOf(() =>
      given(watchlistDecider)
        .when(add('AAPL'))
        .then([added('MSFT')]),
    );
    expect(error.name).to.equal('AssertionError');
    expect(error.message).to.contain('decided events').and.contain('AAPL').and.contain('MSFT');
  });

  it('fails then() on a refusal, naming its code and message', () => {
    const error = failureOf(() =>
      given(watchlistDecider)
        .when(add())
        .then([added('MSFT')]),
    );
    expect(error.message).to.contain('DomainError "empty"').and.contain('symbols must name');
  });

  it('fails thenError() on events and on another code', () => {
    expect(failureOf(() => given(watchlistDecider).when(add('AAPL')).thenError('empty')).message).to.contain(
      'but got events [{"type":"SymbolAddedToWatchlist","data":{"symbol":"AAPL"}}]',
    );
    expect(failureOf(() => given(watchlistDecider).when(add('$')).thenError('empty')).message).to.contain(
      'invalid_symbol',
    );
  });

  it('fails thenNothing() on events', () => {
    expect(failureOf(() => given(watchlistDecider).when(add('AAPL')).thenNothing()).message).to.contain(
      'expected no events but got events',
    );
  });

  it('lets an error other than a DomainError through', () => {
    const broken = {
      ...watchlistDecider,
      decide: (): WatchlistEvent[] => {
        throw new TypeError('boom');
      },
    };
    expect(failureOf(() => given(broken).when(add('AAPL')).thenNothing())).to.be.instanceOf(TypeError);
  });

  it('fails a decider that changes the state it is given', () => {
    const mutating = {
      ...watchlistDecider,
      decide: (command: WatchlistCommand, state: WatchlistState): WatchlistEvent[] => {
        (state.symbols as string[]).push('OOPS');
        return watchlistDecider.decide(command, state);
      },
    };
    expect(
      failureOf(() =>
        given(mutating, [added('AAPL')])
          .when(add('MSFT'))
          .then([added('MSFT')]),
      ),
    ).to.be.instanceOf(TypeError);
  });
});
