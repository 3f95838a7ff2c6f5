import { expect } from 'chai';
import type { Role } from '../../domain/accounts/accounts.ts';
import type { Session, SessionStore } from '../../platform/sessions/port.ts';
import { cacheSessions, recallSession } from './sessionCache.ts';

/** A session store in memory that counts its lookups. */
function countingStore(): SessionStore & { gets: number; sessions: Map<string, Session> } {
  const sessions = new Map<string, Session>();
  let n = 0;
  const store = {
    sessions,
    gets: 0,
    create: (userId: string, roles: readonly Role[], ttlMs: number) => {
      const token = `t${++n}`;
      sessions.set(token, { userId, roles, createdAt: 0, expiresAt: ttlMs });
      return Promise.resolve(token);
    },
    get: (token: string) => {
      store.gets += 1;
      return Promise.resolve(sessions.get(token) ?? null);
    },
    delete: (token: string) => {
      sessions.delete(token);
      return Promise.resolve();
    },
    endOthers: (userId: string, keep: string | null) => {
      const ended = [...sessions].filter(([token, s]) => s.userId === userId && token !== keep).map(([t]) => t);
      for (const token of ended) sessions.delete(token);
      return Promise.resolve(ended);
    },
    close: () => Promise.resolve(),
  };
  return store;
}

describe('session cache', function () {
  let clock: number;
  const now = () => clock;
  beforeEach(function () {
    clock = 1000;
  });

  it('answers a session looked up less than ttlMs ago from memory', async function () {
    const store = countingStore();
    const sessions = cacheSessions(store, { ttlMs: 1000, now });
    const token = await sessions.create('ada', ['user'], 10_000);
    expect((await sessions.get(token))?.userId).to.equal('ada');
    clock += 999;
    expect((await sessions.get(token))?.userId).to.equal('ada');
    expect(store.gets).to.equal(1);
  });

  it('asks the store again once ttlMs has passed, and sees a session ended elsewhere', async function () {
    const store = countingStore();
    const sessions = cacheSessions(store, { ttlMs: 1000, now });
    const token = await sessions.create('ada', ['user'], 10_000);
    await sessions.get(token);
    store.sessions.delete(token);
    clock += 1000;
    expect(await sessions.get(token)).to.equal(null);
    expect(store.gets).to.equal(2);
  });

  it('forgets a session ended through it at once', async function () {
    const store = countingStore();
    const sessions = cacheSessions(store, { ttlMs: 60_000, now });
    const token = await sessions.create('ada', ['user'], 10_000);
    await sessions.get(token);
    await sessions.delete(token);
    expect(await sessions.get(token)).to.equal(null);
  });

  it("forgets a user's other sessions ended through it at once, and keeps the one named", async function () {
    const store = countingStore();
    const sessions = cacheSessions(store, { ttlMs: 60_000, now });
    const [kept, other] = [
      await sessions.create('ada', ['user'], 10_000),
      await sessions.create('ada', ['user'], 10_000),
    ];
    const bob = await sessions.create('bob', ['user'], 10_000);
    for (const token of [kept, other, bob]) await sessions.get(token);
    expect(await sessions.endOthers('ada', kept)).to.deep.equal([other]);
    expect(recallSession(sessions, other)).to.equal(undefined);
    expect(await sessions.get(other)).to.equal(null);
    expect(recallSession(sessions, kept)?.userId).to.equal('ada');
    expect(recallSession(sessions, bob)?.userId).to.equal('bob');
  });

  it('never answers a cached session past its own expiry', async function () {
    const store = countingStore();
    const sessions = cacheSessions(store, { ttlMs: 60_000, now });
    const token = await sessions.create('ada', ['user'], 1500);
    expect(await sessions.get(token)).not.to.equal(null);
    clock = 1500;
    expect(await sessions.get(token)).to.equal(null);
  });

  it('does not remember unknown tokens, so made-up ones cannot fill it', async function () {
    const store = countingStore();
    const sessions = cacheSessions(store, { ttlMs: 60_000, now });
    await sessions.get('nope');
    await sessions.get('nope');
    expect(store.gets).to.equal(2);
  });

  it('lets the oldest entry go when full', async function () {
    const store = countingStore();
    const sessions = cacheSessions(store, { ttlMs: 60_000, maxEntries: 2, now });
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => sessions.create('ada', ['user'], 10_000)));
    for (const token of [a!, b!, c!]) await sessions.get(token);
    store.gets = 0;
    await sessions.get(c!);
    await sessions.get(b!);
    await sessions.get(a!);
    expect(store.gets).to.equal(1);
  });

  it('recalls without a promise only what get would answer from memory', async function () {
    const store = countingStore();
    const sessions = cacheSessions(store, { ttlMs: 1000, now });
    const token = await sessions.create('ada', ['user'], 1800);
    expect(recallSession(sessions, token)).to.equal(undefined);
    const session = await sessions.get(token);
    expect(recallSession(sessions, token)).to.equal(session);
    expect(recallSession(store, token), 'a store without the cache').to.equal(undefined);
    clock = 1800;
    expect(recallSession(sessions, token), 'past its expiry').to.equal(null);
    clock = 2000;
    expect(recallSession(sessions, token), 'past ttlMs').to.equal(undefined);
    await sessions.get(token);
    await sessions.delete(token);
    expect(recallSession(sessions, token), 'ended').to.equal(undefined);
    expect(store.gets).to.equal(2);
  });
});
