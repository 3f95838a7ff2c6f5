import { expect } from 'chai';
import { ACCOUNT_CONCERN, accountDecider, type AccountCommand } from '../../domain/accounts/accounts.ts';
import { USER_CONCERNS } from '../../domain/concerns.ts';
import type { Actor, Decider, DomainEvent } from '../../domain/decider.ts';
import { streamName } from '../../domain/ids.ts';
import { WATCHLIST_CONCERN, watchlistDecider, type WatchlistCommand } from '../../domain/watchlist/watchlist.ts';
import { handleCommand } from '../../platform/commandHandler.ts';
import { formatPosition, parsePosition, type EventStore, type RecordedEvent } from '../../platform/eventstore/port.ts';
import { openSqliteEventStore } from '../../platform/eventstore/sqlite.ts';
import { REDACTED, historyPage, hashMarks, loadUserHistory, redact, type UserHistory } from './userHistory.ts';
import { userStateAt } from './userState.ts';
import { describeVerification, verifyUserHistory } from './verifyUser.ts';

/** An event store that refuses to scan the whole log, so a test fails if the audit reads do. */
function withoutReadAll(store: EventStore): EventStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'readAll' || property === 'subscribeToAll') {
        return () => {
          throw new Error(`${String(property)} must not be used for one user's history`);
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('audit reads of one user', function () {
  let store: EventStore;
  let n = 0;

  async function run<C, E extends DomainEvent, S>(
    decider: Decider<C, E, S>,
    concern: string,
    username: string,
    command: C,
    at: string,
  ): Promise<void> {
    n += 1;
    const actor: Actor = `user:${username}`;
    await handleCommand(store, decider, streamName(concern, username), command, {
      commandId: `cmd-${n}`,
      userId: username,
      at,
      actor,
    });
  }
  const account = (username: string, command: AccountCommand, at: string) =>
    run(accountDecider, ACCOUNT_CONCERN, username, command, at);
  const watch = (username: string, command: WatchlistCommand, at: string) =>
    run(watchlistDecider, WATCHLIST_CONCERN, username, command, at);

  beforeEach(async function () {
    store = openSqliteEventStore({ file: ':memory:' });
    await account(
      'ada',
      { type: 'RegisterUser', data: { username: 'ada', passwordHash: 'scrypt$secret' } },
      '2026-03-01T09:00:00.000Z',
    );
    await account(
      'bob',
      { type: 'RegisterUser', data: { username: 'bob', passwordHash: 'scrypt$other' } },
      '2026-03-01T09:00:30.000Z',
    );
    await watch(
      'ada',
      { type: 'AddSymbolsToWatchlist', data: { symbols: ['NVDA', 'AAPL'] } },
      '2026-03-01T10:00:00.000Z',
    );
    await watch('bob', { type: 'AddSymbolsToWatchlist', data: { symbols: ['XOM'] } }, '2026-03-01T10:30:00.000Z');
    await account('ada', { type: 'SignIn', data: { address: '127.0.0.1' } }, '2026-03-01T11:00:00.000Z');
    await watch('ada', { type: 'RemoveSymbolFromWatchlist', data: { symbol: 'NVDA' } }, '2026-03-01T12:00:00.000Z');
    await watch('ada', { type: 'AddSymbolsToWatchlist', data: { symbols: ['MSFT'] } }, '2026-03-01T13:00:00.000Z');
  });
  afterEach(async function () {
    await store.close();
  });

  async function history(username = 'ada'): Promise<UserHistory> {
    const loaded = await loadUserHistory(withoutReadAll(store), username);
    if (!loaded) throw new Error(`no history of ${username}`);
    return loaded;
  }

  it('merges the user streams by log position, reading only that user streams', async function () {
    const h = await history();
    expect(h.events.map((e) => e.type)).to.deep.equal([
      'UserRegistered',
      'SymbolAddedToWatchlist',
      'SymbolAddedToWatchlist',
      'UserSignedIn',
      'SymbolRemovedFromWatchlist',
      'SymbolAddedToWatchlist',
    ]);
    expect(h.events.every((e) => e.streamId.endsWith('-ada'))).to.equal(true);
    expect(h.streams.map((s) => s.stream)).to.deep.equal(USER_CONCERNS.map((c) => `${c.concern}-ada`));
  });

  it('answers null for a user without an account', async function () {
    expect(await loadUserHistory(store, 'nobody')).to.equal(null);
  });

  it('pages through the history with after, each event exactly once, next null on the last page', async function () {
    const h = await history();
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const page = historyPage(h, { limit: 4, ...(after ? { after: parsePosition(after)! } : {}) });
      seen.push(...page.events.map((e) => e.id));
      after = page.next;
      pages += 1;
    } while (after !== null);
    expect(pages).to.equal(2);
    expect(seen).to.deep.equal(h.events.map((e) => e.id));
  });

  it('filters by event types and by an inclusive time range', async function () {
    const h = await history();
    const added = historyPage(h, { limit: 100, types: ['SymbolAddedToWatchlist'] });
    expect(added.events.map((e) => e.data)).to.deep.equal([{ symbol: 'NVDA' }, { symbol: 'AAPL' }, { symbol: 'MSFT' }]);
    const window = historyPage(h, { limit: 100, from: '2026-03-01T11:00:00Z', to: '2026-03-01T12:00:00Z' });
    expect(window.events.map((e) => e.type)).to.deep.equal(['UserSignedIn', 'SymbolRemovedFromWatchlist']);
    expect(window.next).to.equal(null);
  });

  it('answers each event with where, when and who, its hash verified, and the password hash redacted', async function () {
    const [registered] = historyPage(await history(), { limit: 1 }).events;
    expect(registered).to.include({
      stream: 'account-ada',
      type: 'UserRegistered',
      revision: 0,
      at: '2026-03-01T09:00:00.000Z',
      actor: 'user:ada',
      hashOk: true,
    });
    expect(registered!.position).to.match(/^\d+\/\d+$/);
    expect(registered!.data).to.deep.equal({ username: 'ada', passwordHash: REDACTED });
    expect(JSON.stringify(historyPage(await history(), { limit: 100 }))).not.to.contain('scrypt$secret');
  });

  it('redacts secrets at any depth and turns maps and sets into JSON', function () {
    expect(
      redact({ a: [{ password: 'x' }], m: new Map([['k', new Set([1, 2])]]), passwordHash: 'h', u: undefined }),
    ).to.deep.equal({ a: [{ password: REDACTED }], m: { k: [1, 2] }, passwordHash: REDACTED });
  });

  it('folds each concern with its own decider up to a time, and redacts the account password hash', async function () {
    const before = userStateAt(await history(), { at: '2026-03-01T12:30:00Z' });
    expect(before.states.watchlist).to.deep.equal({ symbols: ['AAPL'] });
    expect(before.states.account).to.deep.equal({
      username: 'ada',
      passwordHash: REDACTED,
      roles: ['user'],
      signIns: 1,
    });
    expect(before.eventCount).to.equal(5);
    const start = userStateAt(await history(), { at: '2026-03-01T08:00:00Z' });
    expect(start.states.watchlist).to.deep.equal({ symbols: [] });
    expect(start.through).to.equal(null);
    expect(userStateAt(await history(), null).states.watchlist).to.deep.equal({ symbols: ['AAPL', 'MSFT'] });
  });

  it('folds up to a log position, inclusive', async function () {
    const h = await history();
    const third = h.events[2]!;
    const state = userStateAt(h, { position: third.position });
    expect(state.states.watchlist).to.deep.equal({ symbols: ['NVDA', 'AAPL'] });
    expect(state.through).to.equal(formatPosition(third.position));
    expect(state.states.account).to.deep.include({ signIns: 0 });
  });

  it('never shows an event recorded after an earlier-issued one that is still later in the log', async function () {
    await watch('ada', { type: 'AddSymbolsToWatchlist', data: { symbols: ['IBM'] } }, '2026-03-01T12:45:00.000Z');
    const state = userStateAt(await history(), { at: '2026-03-01T12:50:00Z' });
    // MSFT (13:00) is in the log before IBM (issued 12:45): the state at 12:50 stops before MSFT, so IBM is not shown.
    expect(state.states.watchlist).to.deep.equal({ symbols: ['AAPL'] });
  });

  it('finds every chain intact on an untouched history', async function () {
    const result = verifyUserHistory(await history());
    expect(result).to.deep.include({ intact: true, events: 6, streams: 2, firstBreak: null });
    expect(describeVerification(result)).to.equal('chain intact: 6 events in 2 streams');
  });

  it('names the first altered event in log order across streams, and marks only the altered events', async function () {
    const h = await history();
    // The account stream is walked first, but its altered event (the sign-in) comes later in the log.
    const alter = (e: RecordedEvent): RecordedEvent =>
      e.streamId === 'watchlist-ada' && e.revision === 1
        ? { ...e, data: { symbol: 'TSLA' } }
        : e.streamId === 'account-ada' && e.revision === 1
          ? { ...e, data: { address: '10.0.0.1' } }
          : e;
    const streams = h.streams.map((s) => ({ ...s, events: s.events.map(alter) }));
    const tampered: UserHistory = { ...h, streams, events: h.events.map(alter) };
    const result = verifyUserHistory(tampered);
    const aapl = h.events.find((e) => e.streamId === 'watchlist-ada' && e.revision === 1)!;
    expect(result.intact).to.equal(false);
    expect(result.firstBreak).to.deep.include({ stream: 'watchlist-ada', revision: 1, eventId: aapl.id });
    expect(describeVerification(result)).to.equal(
      `first break: stream watchlist-ada revision 1 (event ${aapl.id}): hash does not match the event: it was altered`,
    );
    const marks = hashMarks(tampered);
    expect(h.events.map((e) => marks.get(e.id))).to.deep.equal([true, true, false, false, true, true]);
  });

  it('names a missing event as a break of the chain', async function () {
    const h = await history();
    const dropped = h.streams.map((s) =>
      s.stream === 'watchlist-ada' ? { ...s, events: s.events.filter((e) => e.revision !== 0) } : s,
    );
    const result = verifyUserHistory({ ...h, streams: dropped });
    expect(result.firstBreak).to.deep.include({ stream: 'watchlist-ada', revision: 1 });
    expect(result.firstBreak!.reason).to.contain('missing');
  });
});
