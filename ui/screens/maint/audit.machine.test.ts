import { expect } from 'chai';
import { SimulatedClock, createActor, fromPromise, waitFor } from 'xstate';
import { USER_LIST_MAX } from '../../../domain/contract/audit.ts';
import { ApiError } from '../../services/api.ts';
import {
  HISTORY_MAX_PAGES,
  HISTORY_PAGE_SIZE,
  SEARCH_DEBOUNCE_MS,
  SLIDER_DEBOUNCE_MS,
  auditMachine,
  readHistory,
  searchPrefix,
  userListUrl,
  type History,
} from './audit.machine.ts';
import {
  NO_FILTER,
  comparePositions,
  eventTypeCounts,
  filterEvents,
  stateCards,
  type AuditAccount,
  type AuditEvent,
  type AuditPage,
  type AuditState,
  type Verification,
} from './maint.logic.ts';

function event(n: number, type: string, at: string): AuditEvent {
  return {
    id: `e${n}`,
    stream: 'watchlist-ada',
    type,
    revision: n,
    position: `${n}/${n}`,
    at,
    actor: 'ada',
    data: { n },
    hashOk: true,
  };
}

const HISTORY: AuditEvent[] = [
  event(1, 'AccountRegistered', '2026-01-01T10:00:00.000Z'),
  event(2, 'SymbolAddedToWatchlist', '2026-01-01T10:05:00.000Z'),
  event(3, 'SymbolAddedToWatchlist', '2026-01-02T09:00:00.000Z'),
  event(4, 'SymbolRemovedFromWatchlist', '2026-01-03T12:00:00.000Z'),
];

function stateAt(position: string): AuditState {
  return {
    username: 'ada',
    position,
    through: position,
    eventCount: Number(position.split('/')[0]),
    watchlist: { symbols: ['AAPL'] },
    account: { username: 'ada', roles: ['user'] },
  };
}

function account(username: string): AuditAccount {
  return { username, roles: ['user'], registeredAt: '', lastSignInAt: null };
}

/** The accounts of an install, in name order, as the server lists them: by prefix, at most {@link USER_LIST_MAX}. */
function listOf(names: readonly string[]) {
  return (prefix: string) =>
    names
      .filter((name) => name.startsWith(prefix))
      .slice(0, USER_LIST_MAX)
      .map(account);
}

function panel(
  options: {
    users?: (prefix: string) => AuditAccount[] | Promise<AuditAccount[]>;
    history?: () => History;
    verify?: () => Verification;
    searchDelay?: number;
  } = {},
) {
  const clock = new SimulatedClock();
  const calls = { prefixes: [] as string[], histories: [] as string[], states: [] as string[], verifies: 0 };
  const actor = createActor(
    auditMachine.provide({
      ...(options.searchDelay === undefined ? {} : { delays: { search: options.searchDelay } }),
      actors: {
        loadUsers: fromPromise<AuditAccount[], { prefix: string }>(async ({ input }) => {
          calls.prefixes.push(input.prefix);
          const users = options.users ?? listOf(['ada']);
          return Promise.resolve().then(() => users(input.prefix));
        }),
        loadHistory: fromPromise<History, { username: string }>(async ({ input }) => {
          calls.histories.push(input.username);
          return Promise.resolve((options.history ?? (() => ({ events: HISTORY, truncated: false })))());
        }),
        loadState: fromPromise<AuditState, { username: string; position: string }>(async ({ input }) => {
          calls.states.push(input.position);
          return Promise.resolve(stateAt(input.position));
        }),
        verifyChain: fromPromise<Verification, { username: string }>(async () => {
          calls.verifies += 1;
          return Promise.resolve(
            (
              options.verify ??
              (() => ({
                username: 'ada',
                intact: true,
                events: 4,
                streams: 2,
                firstBreak: null,
                summary: 'chain intact: 4 events in 2 streams',
              }))
            )(),
          );
        }),
      },
    }),
    { clock },
  ).start();
  return { actor, clock, calls };
}

describe('audit machine', () => {
  it('hides itself when the user list answers 403', async () => {
    const { actor } = panel({
      users: () => {
        throw new ApiError(403, 'forbidden', 'this route is for auditors');
      },
    });
    await waitFor(actor, (s) => s.matches('forbidden'));
    expect(actor.getSnapshot().context.error).to.equal(null);
  });

  it('shows any other failure with its message and retries', async () => {
    let fail = true;
    const { actor, calls } = panel({
      users: () => {
        if (fail) throw new Error('The server could not answer');
        return [];
      },
    });
    await waitFor(actor, (s) => s.matches('failed'));
    expect(actor.getSnapshot().context.error).to.equal('The server could not answer');
    fail = false;
    actor.send({ type: 'user.retry' });
    await waitFor(actor, (s) => s.matches('ready'));
    expect(calls.prefixes).to.deep.equal(['', '']);
  });

  it("reads a picked user's history and shows the state after the last event", async () => {
    const { actor, calls } = panel();
    await waitFor(actor, (s) => s.matches({ ready: { user: 'noUser' } }));
    actor.send({ type: 'user.pickUser', username: 'ada' });
    expect(actor.getSnapshot().matches({ ready: { user: 'loadingHistory' } })).to.equal(true);
    await waitFor(actor, (s) => s.matches({ ready: { user: { history: { moment: 'shown' } } } }));
    const { context } = actor.getSnapshot();
    expect(calls.histories).to.deep.equal(['ada']);
    expect(context.events).to.have.length(4);
    expect(context.index).to.equal(3);
    expect(calls.states).to.deep.equal(['4/4']);
    expect(context.state?.eventCount).to.equal(4);
  });

  it('moves the slider: the state is read once the slider rests, at the position of that event', async () => {
    const { actor, clock, calls } = panel();
    await waitFor(actor, (s) => s.matches('ready'));
    actor.send({ type: 'user.pickUser', username: 'ada' });
    await waitFor(actor, (s) => s.matches({ ready: { user: { history: { moment: 'shown' } } } }));
    actor.send({ type: 'user.moveSlider', index: 2 });
    actor.send({ type: 'user.moveSlider', index: 1 });
    expect(actor.getSnapshot().context.index).to.equal(1);
    clock.increment(SLIDER_DEBOUNCE_MS - 1);
    expect(calls.states).to.deep.equal(['4/4']);
    clock.increment(1);
    await waitFor(actor, (s) => s.matches({ ready: { user: { history: { moment: 'shown' } } } }));
    expect(calls.states).to.deep.equal(['4/4', '2/2']);
    expect(actor.getSnapshot().context.state?.eventCount).to.equal(2);
    actor.send({ type: 'user.moveSlider', index: 9 });
    expect(actor.getSnapshot().context.index, 'outside the history is ignored').to.equal(1);
  });

  it('filters the event list by type and time, and clears the filter', async () => {
    const { actor } = panel();
    await waitFor(actor, (s) => s.matches('ready'));
    actor.send({ type: 'user.pickUser', username: 'ada' });
    await waitFor(actor, (s) => s.matches({ ready: { user: 'history' } }));
    actor.send({ type: 'user.filter', patch: { type: 'SymbolAddedToWatchlist' } });
    actor.send({ type: 'user.filter', patch: { from: '2026-01-02T00:00:00.000Z' } });
    const { context } = actor.getSnapshot();
    expect(filterEvents(context.events, context.filter).map((e) => e.id)).to.deep.equal(['e3']);
    actor.send({ type: 'user.clearFilter' });
    expect(actor.getSnapshot().context.filter).to.deep.equal(NO_FILTER);
  });

  it('takes the To time as the whole second the field shows, so From and To on one second keep its events', async () => {
    const within = event(5, 'SymbolAddedToWatchlist', '2026-01-04T02:39:49.412Z');
    const after = event(6, 'SymbolAddedToWatchlist', '2026-01-04T02:39:50.000Z');
    const { actor } = panel({ history: () => ({ events: [...HISTORY, within, after], truncated: false }) });
    await waitFor(actor, (s) => s.matches('ready'));
    actor.send({ type: 'user.pickUser', username: 'ada' });
    await waitFor(actor, (s) => s.matches({ ready: { user: 'history' } }));
    actor.send({ type: 'user.filter', patch: { from: '2026-01-04T02:39:49.000Z', to: '2026-01-04T02:39:49.000Z' } });
    const { context } = actor.getSnapshot();
    expect(context.filter.to).to.equal('2026-01-04T02:39:49.999Z');
    expect(filterEvents(context.events, context.filter).map((e) => e.id)).to.deep.equal(['e5']);
    actor.send({ type: 'user.filter', patch: { to: '' } });
    expect(actor.getSnapshot().context.filter.to, 'an emptied field leaves the range open').to.equal('');
  });

  it('verifies the hash chain and shows the first break', async () => {
    const { actor, calls } = panel({
      verify: () => ({
        username: 'ada',
        intact: false,
        events: 4,
        streams: 2,
        firstBreak: { stream: 'watchlist-ada', revision: 2, eventId: 'e3', reason: 'hash mismatch', position: '3/3' },
        summary: 'first break: stream watchlist-ada revision 2 (event e3): hash mismatch',
      }),
    });
    await waitFor(actor, (s) => s.matches('ready'));
    actor.send({ type: 'user.pickUser', username: 'ada' });
    await waitFor(actor, (s) => s.matches({ ready: { user: 'history' } }));
    actor.send({ type: 'user.verify' });
    expect(actor.getSnapshot().matches({ ready: { user: { history: { chain: 'verifying' } } } })).to.equal(true);
    await waitFor(actor, (s) => s.matches({ ready: { user: { history: { chain: 'verified' } } } }));
    expect(calls.verifies).to.equal(1);
    expect(actor.getSnapshot().context.verification?.firstBreak?.position).to.equal('3/3');
  });

  it('keeps the verification shown while the slider moves', async () => {
    const { actor, clock, calls } = panel();
    await waitFor(actor, (s) => s.matches('ready'));
    actor.send({ type: 'user.pickUser', username: 'ada' });
    await waitFor(actor, (s) => s.matches({ ready: { user: { history: { moment: 'shown' } } } }));
    actor.send({ type: 'user.verify' });
    await waitFor(actor, (s) => s.matches({ ready: { user: { history: { chain: 'verified' } } } }));
    actor.send({ type: 'user.moveSlider', index: 0 });
    clock.increment(SLIDER_DEBOUNCE_MS);
    await waitFor(actor, (s) => s.matches({ ready: { user: { history: { moment: 'shown' } } } }));
    expect(actor.getSnapshot().matches({ ready: { user: { history: { chain: 'verified' } } } })).to.equal(true);
    expect(calls.states).to.deep.equal(['4/4', '1/1']);
  });

  it('starts afresh when another user is picked', async () => {
    const { actor, calls } = panel();
    await waitFor(actor, (s) => s.matches('ready'));
    actor.send({ type: 'user.pickUser', username: 'ada' });
    await waitFor(actor, (s) => s.matches({ ready: { user: 'history' } }));
    actor.send({ type: 'user.verify' });
    await waitFor(actor, (s) => s.matches({ ready: { user: { history: { chain: 'verified' } } } }));
    actor.send({ type: 'user.pickUser', username: 'bob' });
    expect(actor.getSnapshot().context.verification).to.equal(null);
    expect(actor.getSnapshot().context.selected).to.equal('bob');
    await waitFor(actor, (s) => s.matches({ ready: { user: { history: { chain: 'unchecked' } } } }));
    expect(calls.histories).to.deep.equal(['ada', 'bob']);
  });
});

describe('audit machine: user search', () => {
  /** Names past the first {@link USER_LIST_MAX}, alphabetically: `user0000` … plus `zoe`. */
  const MANY = [...Array.from({ length: USER_LIST_MAX + 5 }, (_, i) => `user${String(i).padStart(4, '0')}`), 'zoe'];

  it('reads the whole list at first, and each search by the prefix typed, trimmed and lower-cased', async () => {
    const { actor, clock, calls } = panel({ users: listOf(['ada', 'adam', 'bob']) });
    await waitFor(actor, (s) => s.matches({ ready: { list: 'idle' } }));
    expect(calls.prefixes).to.deep.equal(['']);
    expect(actor.getSnapshot().context.users.map((u) => u.username)).to.deep.equal(['ada', 'adam', 'bob']);
    actor.send({ type: 'user.search', text: ' AdA ' });
    expect(actor.getSnapshot().context.search, 'the field keeps what was typed').to.equal(' AdA ');
    clock.increment(SEARCH_DEBOUNCE_MS);
    await waitFor(actor, (s) => s.matches({ ready: { list: 'idle' } }));
    expect(calls.prefixes).to.deep.equal(['', 'ada']);
    const { context } = actor.getSnapshot();
    expect(context.listed).to.equal('ada');
    expect(context.users.map((u) => u.username)).to.deep.equal(['ada', 'adam']);
  });

  it('sends the prefix in the query parameter prefix, and none for the whole list', () => {
    expect(userListUrl('')).to.equal('/api/audit/users');
    expect(userListUrl('ad')).to.equal('/api/audit/users?prefix=ad');
    expect(userListUrl('j.doe_1')).to.equal('/api/audit/users?prefix=j.doe_1');
    expect(searchPrefix('  Zoe ')).to.equal('zoe');
    expect(searchPrefix('zoë'), 'no user name has that letter').to.equal(null);
    expect(searchPrefix('a'.repeat(33)), 'longer than any user name').to.equal(null);
  });

  it('waits until typing rests, then searches the last text only', async () => {
    const { actor, clock, calls } = panel({ users: listOf(['ada', 'adam', 'bob']) });
    await waitFor(actor, (s) => s.matches({ ready: { list: 'idle' } }));
    actor.send({ type: 'user.search', text: 'a' });
    clock.increment(SEARCH_DEBOUNCE_MS - 1);
    actor.send({ type: 'user.search', text: 'ad' });
    clock.increment(SEARCH_DEBOUNCE_MS - 1);
    actor.send({ type: 'user.search', text: 'ada' });
    clock.increment(SEARCH_DEBOUNCE_MS - 1);
    expect(calls.prefixes, 'nothing searched while typing').to.deep.equal(['']);
    expect(actor.getSnapshot().matches({ ready: { list: 'waiting' } })).to.equal(true);
    clock.increment(1);
    await waitFor(actor, (s) => s.matches({ ready: { list: 'idle' } }));
    expect(calls.prefixes).to.deep.equal(['', 'ada']);
  });

  it('drops the answer of a search the user typed past', async () => {
    const answers: ((users: AuditAccount[]) => void)[] = [];
    const { actor, clock, calls } = panel({
      users: (prefix) =>
        prefix === '' ? listOf(['ada', 'bob'])(prefix) : new Promise<AuditAccount[]>((done) => answers.push(done)),
    });
    await waitFor(actor, (s) => s.matches({ ready: { list: 'idle' } }));
    actor.send({ type: 'user.search', text: 'a' });
    clock.increment(SEARCH_DEBOUNCE_MS);
    await waitFor(actor, (s) => s.matches({ ready: { list: 'searching' } }));
    actor.send({ type: 'user.search', text: 'b' });
    answers[0]!([account('ada')]);
    await Promise.resolve();
    expect(
      actor.getSnapshot().context.users.map((u) => u.username),
      'the late answer is ignored',
    ).to.deep.equal(['ada', 'bob']);
    clock.increment(SEARCH_DEBOUNCE_MS);
    await waitFor(actor, (s) => s.matches({ ready: { list: 'searching' } }));
    answers[1]!([account('bob')]);
    await waitFor(actor, (s) => s.matches({ ready: { list: 'idle' } }));
    expect(calls.prefixes).to.deep.equal(['', 'a', 'b']);
    expect(actor.getSnapshot().context.users.map((u) => u.username)).to.deep.equal(['bob']);
    expect(actor.getSnapshot().context.listed).to.equal('b');
  });

  it('reads nothing again when the text comes back to the prefix listed', async () => {
    const { actor, clock, calls } = panel({ users: listOf(['ada', 'bob']) });
    await waitFor(actor, (s) => s.matches({ ready: { list: 'idle' } }));
    actor.send({ type: 'user.search', text: 'a' });
    actor.send({ type: 'user.search', text: '' });
    clock.increment(SEARCH_DEBOUNCE_MS);
    expect(actor.getSnapshot().matches({ ready: { list: 'idle' } })).to.equal(true);
    expect(calls.prefixes).to.deep.equal(['']);
  });

  it('says when the list stops at the cap, and lists the users past it by a longer prefix', async () => {
    const { actor, clock, calls } = panel({ users: listOf(MANY) });
    await waitFor(actor, (s) => s.matches({ ready: { list: 'idle' } }));
    let { context } = actor.getSnapshot();
    expect(context.users).to.have.length(USER_LIST_MAX);
    expect(context.cut).to.equal(true);
    expect(
      context.users.some((u) => u.username === 'zoe'),
      'past the cap',
    ).to.equal(false);
    actor.send({ type: 'user.search', text: 'user1' });
    clock.increment(SEARCH_DEBOUNCE_MS);
    await waitFor(actor, (s) => s.matches({ ready: { list: 'idle' } }) && s.context.listed === 'user1');
    context = actor.getSnapshot().context;
    expect(context.users).to.have.length(5);
    expect(context.users.map((u) => u.username)).to.include('user1004');
    expect(context.cut).to.equal(false);
    actor.send({ type: 'user.search', text: 'z' });
    clock.increment(SEARCH_DEBOUNCE_MS);
    await waitFor(actor, (s) => s.matches({ ready: { list: 'idle' } }) && s.context.listed === 'z');
    expect(actor.getSnapshot().context.users.map((u) => u.username)).to.deep.equal(['zoe']);
    actor.send({ type: 'user.pickUser', username: 'zoe' });
    await waitFor(actor, (s) => s.matches({ ready: { user: 'history' } }));
    expect(calls.histories).to.deep.equal(['zoe']);
    expect(calls.prefixes).to.deep.equal(['', 'user1', 'z']);
  });

  it('shows a failed search with its message, keeps the user audited, and retries', async () => {
    let fail = true;
    const { actor, clock, calls } = panel({
      users: (prefix) => {
        if (prefix !== '' && fail) throw new ApiError(503, 'unavailable', 'The server could not answer');
        return listOf(['ada', 'bob'])(prefix);
      },
    });
    await waitFor(actor, (s) => s.matches({ ready: { list: 'idle' } }));
    actor.send({ type: 'user.pickUser', username: 'ada' });
    await waitFor(actor, (s) => s.matches({ ready: { user: 'history' } }));
    actor.send({ type: 'user.search', text: 'b' });
    clock.increment(SEARCH_DEBOUNCE_MS);
    await waitFor(actor, (s) => s.matches({ ready: { list: 'failed' } }));
    let { context } = actor.getSnapshot();
    expect(context.searchError).to.equal('The server could not answer');
    expect(context.users).to.deep.equal([]);
    expect(context.selected).to.equal('ada');
    expect(actor.getSnapshot().matches({ ready: { user: 'history' } })).to.equal(true);
    fail = false;
    actor.send({ type: 'user.retrySearch' });
    await waitFor(actor, (s) => s.matches({ ready: { list: 'idle' } }));
    context = actor.getSnapshot().context;
    expect(context.searchError).to.equal(null);
    expect(context.users.map((u) => u.username)).to.deep.equal(['bob']);
    expect(calls.prefixes).to.deep.equal(['', 'b', 'b']);
  });

  it('hides the part when a search answers 403', async () => {
    const { actor, clock } = panel({
      users: (prefix) => {
        if (prefix !== '') throw new ApiError(403, 'forbidden', 'this route is for auditors');
        return listOf(['ada'])(prefix);
      },
    });
    await waitFor(actor, (s) => s.matches({ ready: { list: 'idle' } }));
    actor.send({ type: 'user.search', text: 'a' });
    clock.increment(SEARCH_DEBOUNCE_MS);
    await waitFor(actor, (s) => s.matches('forbidden'));
  });

  it('lists nobody for a text no user name can start with, without asking the server', async () => {
    const { actor, clock, calls } = panel({ users: listOf(['ada']) });
    await waitFor(actor, (s) => s.matches({ ready: { list: 'idle' } }));
    actor.send({ type: 'user.search', text: 'ad a' });
    clock.increment(SEARCH_DEBOUNCE_MS);
    expect(actor.getSnapshot().matches({ ready: { list: 'invalid' } })).to.equal(true);
    expect(actor.getSnapshot().context.users).to.deep.equal([]);
    expect(actor.getSnapshot().context.listed).to.equal(null);
    expect(calls.prefixes).to.deep.equal(['']);
    actor.send({ type: 'user.search', text: '' });
    clock.increment(SEARCH_DEBOUNCE_MS);
    await waitFor(actor, (s) => s.matches({ ready: { list: 'idle' } }) && s.context.users.length === 1);
    expect(calls.prefixes).to.deep.equal(['', '']);
  });

  it('takes the pause from the delay search, which a caller may set', async () => {
    const { actor, clock, calls } = panel({ users: listOf(['ada']), searchDelay: 10 });
    await waitFor(actor, (s) => s.matches({ ready: { list: 'idle' } }));
    actor.send({ type: 'user.search', text: 'a' });
    clock.increment(10);
    await waitFor(actor, (s) => s.matches({ ready: { list: 'idle' } }));
    expect(calls.prefixes).to.deep.equal(['', 'a']);
  });
});

describe('audit logic', () => {
  it('reads every page of a history, following next', async () => {
    const paths: string[] = [];
    const pages: AuditPage[] = [
      { events: HISTORY.slice(0, 2), next: '2/2' },
      { events: HISTORY.slice(2), next: null },
    ];
    const history = await readHistory('ada', async (path) => {
      paths.push(path);
      return Promise.resolve(pages[paths.length - 1]!);
    });
    expect(history.events.map((e) => e.id)).to.deep.equal(['e1', 'e2', 'e3', 'e4']);
    expect(history.truncated).to.equal(false);
    expect(paths).to.deep.equal([
      `/api/audit/users/ada/events?limit=${HISTORY_PAGE_SIZE}`,
      `/api/audit/users/ada/events?limit=${HISTORY_PAGE_SIZE}&after=2%2F2`,
    ]);
  });

  it('stops after the most pages and says the history was cut', async () => {
    let reads = 0;
    const history = await readHistory('ada', async () => {
      reads += 1;
      return Promise.resolve({ events: [HISTORY[0]!], next: `${reads}/${reads}` });
    });
    expect(reads).to.equal(HISTORY_MAX_PAGES);
    expect(history.truncated).to.equal(true);
  });

  it('filters by type and by an inclusive time range', () => {
    expect(filterEvents(HISTORY, NO_FILTER)).to.have.length(4);
    expect(
      filterEvents(HISTORY, { type: '', from: '2026-01-01T10:05:00.000Z', to: '2026-01-02T09:00:00.000Z' }).map(
        (e) => e.id,
      ),
    ).to.deep.equal(['e2', 'e3']);
    expect(filterEvents(HISTORY, { ...NO_FILTER, type: 'AccountRegistered' }).map((e) => e.id)).to.deep.equal(['e1']);
  });

  it('orders log positions numerically, by commit then prepare', () => {
    const positions = ['9/9', '43/43', '8/8', '42/42', '100/7', '100/12', '10/10'];
    expect([...positions].sort(comparePositions)).to.deep.equal([
      '8/8',
      '9/9',
      '10/10',
      '42/42',
      '43/43',
      '100/7',
      '100/12',
    ]);
    expect(comparePositions('43/43', '43/43')).to.equal(0);
  });

  it('counts the types of a history, sorted', () => {
    expect(eventTypeCounts(HISTORY)).to.deep.equal([
      { type: 'AccountRegistered', count: 1 },
      { type: 'SymbolAddedToWatchlist', count: 2 },
      { type: 'SymbolRemovedFromWatchlist', count: 1 },
    ]);
  });

  it('makes a card per concern in the registry order, naming it and marking empty states', () => {
    const cards = stateCards({ ...stateAt('4/4'), sectors: { sectors: [] }, future: { x: 1 } });
    expect(cards.map((c) => [c.concern, c.label, c.empty])).to.deep.equal([
      ['account', 'account', false],
      ['watchlist', 'watch list', false],
      ['sectors', 'sectors', true],
      ['future', 'future', false],
    ]);
  });
});
