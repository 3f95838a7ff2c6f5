import { expect } from 'chai';
import { SimulatedClock, createActor, fromPromise, waitFor } from 'xstate';
import { ApiError } from '../../services/api.ts';
import {
  HISTORY_MAX_PAGES,
  HISTORY_PAGE_SIZE,
  SLIDER_DEBOUNCE_MS,
  auditMachine,
  readHistory,
  type History,
} from './audit.machine.ts';
import {
  NO_FILTER,
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

function panel(
  options: {
    users?: () => AuditAccount[];
    history?: () => History;
    verify?: () => Verification;
  } = {},
) {
  const clock = new SimulatedClock();
  const calls = { users: 0, histories: [] as string[], states: [] as string[], verifies: 0 };
  const actor = createActor(
    auditMachine.provide({
      actors: {
        loadUsers: fromPromise<AuditAccount[]>(async () => {
          calls.users += 1;
          const users =
            options.users ?? (() => [{ username: 'ada', roles: ['user'], registeredAt: '', lastSignInAt: null }]);
          return Promise.resolve().then<AuditAccount[]>(users);
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
    expect(calls.users).to.equal(2);
  });

  it("reads a picked user's history and shows the state after the last event", async () => {
    const { actor, calls } = panel();
    await waitFor(actor, (s) => s.matches({ ready: 'noUser' }));
    actor.send({ type: 'user.pickUser', username: 'ada' });
    expect(actor.getSnapshot().matches({ ready: 'loadingHistory' })).to.equal(true);
    await waitFor(actor, (s) => s.matches({ ready: { history: { moment: 'shown' } } }));
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
    await waitFor(actor, (s) => s.matches({ ready: { history: { moment: 'shown' } } }));
    actor.send({ type: 'user.moveSlider', index: 2 });
    actor.send({ type: 'user.moveSlider', index: 1 });
    expect(actor.getSnapshot().context.index).to.equal(1);
    clock.increment(SLIDER_DEBOUNCE_MS - 1);
    expect(calls.states).to.deep.equal(['4/4']);
    clock.increment(1);
    await waitFor(actor, (s) => s.matches({ ready: { history: { moment: 'shown' } } }));
    expect(calls.states).to.deep.equal(['4/4', '2/2']);
    expect(actor.getSnapshot().context.state?.eventCount).to.equal(2);
    actor.send({ type: 'user.moveSlider', index: 9 });
    expect(actor.getSnapshot().context.index, 'outside the history is ignored').to.equal(1);
  });

  it('filters the event list by type and time, and clears the filter', async () => {
    const { actor } = panel();
    await waitFor(actor, (s) => s.matches('ready'));
    actor.send({ type: 'user.pickUser', username: 'ada' });
    await waitFor(actor, (s) => s.matches({ ready: 'history' }));
    actor.send({ type: 'user.filter', patch: { type: 'SymbolAddedToWatchlist' } });
    actor.send({ type: 'user.filter', patch: { from: '2026-01-02T00:00:00.000Z' } });
    const { context } = actor.getSnapshot();
    expect(filterEvents(context.events, context.filter).map((e) => e.id)).to.deep.equal(['e3']);
    actor.send({ type: 'user.clearFilter' });
    expect(actor.getSnapshot().context.filter).to.deep.equal(NO_FILTER);
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
    await waitFor(actor, (s) => s.matches({ ready: 'history' }));
    actor.send({ type: 'user.verify' });
    expect(actor.getSnapshot().matches({ ready: { history: { chain: 'verifying' } } })).to.equal(true);
    await waitFor(actor, (s) => s.matches({ ready: { history: { chain: 'verified' } } }));
    expect(calls.verifies).to.equal(1);
    expect(actor.getSnapshot().context.verification?.firstBreak?.position).to.equal('3/3');
  });

  it('starts afresh when another user is picked', async () => {
    const { actor, calls } = panel();
    await waitFor(actor, (s) => s.matches('ready'));
    actor.send({ type: 'user.pickUser', username: 'ada' });
    await waitFor(actor, (s) => s.matches({ ready: 'history' }));
    actor.send({ type: 'user.verify' });
    await waitFor(actor, (s) => s.matches({ ready: { history: { chain: 'verified' } } }));
    actor.send({ type: 'user.pickUser', username: 'bob' });
    expect(actor.getSnapshot().context.verification).to.equal(null);
    expect(actor.getSnapshot().context.selected).to.equal('bob');
    await waitFor(actor, (s) => s.matches({ ready: { history: { chain: 'unchecked' } } }));
    expect(calls.histories).to.deep.equal(['ada', 'bob']);
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
