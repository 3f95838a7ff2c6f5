import { join } from 'node:path';
import { expect } from 'chai';
import { USER_CONCERNS } from '../../domain/concerns.ts';
import { grantRole } from '../auth/grant.ts';
import { useTestGateway, type TestClient, type TestGateway } from '../testing/harness.ts';
import { openSqliteFile } from '../../platform/testing/sqliteFile.ts';

type Client = TestClient & { readonly username: string };

interface AuditedEvent {
  id: string;
  stream: string;
  type: string;
  revision: number;
  position: string;
  at: string;
  actor: string | null;
  data: Record<string, unknown>;
  hashOk?: boolean;
}

interface Page {
  events: AuditedEvent[];
  next: string | null;
}

describe('audit routes', function () {
  let gw: TestGateway;
  let auditor: Client;
  useTestGateway(async (started) => {
    gw = started;
    auditor = await gw.user('aud');
    await grantRole(gw.running.system.events, auditor.username, 'auditor');
    // Sessions keep the roles they were created with: the role counts from the next sign-in.
    const login = await auditor.post('/api/login', { username: auditor.username, password: 'correct horse' });
    expect(login.status).to.equal(200);
  });

  async function auditTrail(username: string): Promise<{ type: string; data: unknown }[]> {
    const events = await gw.running.system.events.readStream(`audit-${username}`).catch(() => []);
    return events.map((e) => ({ type: e.type, data: e.data }));
  }

  async function eventsOf(username: string, query = ''): Promise<Page> {
    const res = await auditor.get(`/api/audit/users/${username}/events${query}`);
    expect(res.status).to.equal(200, res.text);
    return res.body as Page;
  }

  it('refuses every audit route without a session with 401', async function () {
    const anonymous = gw.client();
    for (const path of [
      '/api/audit/users',
      '/api/audit/users/ada/events',
      '/api/audit/users/ada/state',
      '/api/audit/users/ada/verify',
    ]) {
      expect((await anonymous.get(path)).status, path).to.equal(401);
    }
  });

  it('refuses a user who is not an auditor with 403, recording nothing', async function () {
    const user = await gw.user();
    for (const path of [
      '/api/audit/users',
      `/api/audit/users/${user.username}/events`,
      `/api/audit/users/${user.username}/state`,
      `/api/audit/users/${user.username}/verify`,
    ]) {
      const res = await user.get(path);
      expect(res.status, path).to.equal(403);
      expect((res.body as { error: string }).error).to.equal('forbidden');
    }
    expect(await auditTrail(user.username)).to.deep.equal([]);
  });

  it('keeps a session at the roles it was created with until the user signs in again', async function () {
    const user = await gw.user('late');
    await grantRole(gw.running.system.events, user.username, 'auditor');
    expect((await user.get('/api/audit/users')).status).to.equal(403);
    await user.post('/api/login', { username: user.username, password: 'correct horse' });
    expect((await user.get('/api/audit/users')).status).to.equal(200);
  });

  it('lists the accounts for the user picker, optionally by prefix, and records the look', async function () {
    const ada = await gw.user('pick');
    const res = await auditor.get('/api/audit/users?prefix=pick');
    expect(res.status).to.equal(200, res.text);
    const accounts = res.body as { username: string; roles: string[]; registeredAt: string; lastSignInAt: string }[];
    const entry = accounts.find((a) => a.username === ada.username);
    expect(entry).to.include({ username: ada.username });
    expect(entry!.roles).to.deep.equal(['user']);
    expect(Date.parse(entry!.registeredAt)).to.be.a('number').and.not.NaN;
    expect(accounts.every((a) => a.username.startsWith('pick'))).to.equal(true);
    expect(res.text).not.to.contain('scrypt');
    const all = (await auditor.get('/api/audit/users')).body as { username: string; roles: string[] }[];
    expect(all.find((a) => a.username === auditor.username)!.roles).to.deep.equal(['user', 'auditor']);
    expect((await auditTrail(auditor.username)).slice(-2)).to.deep.equal([
      { type: 'UserListViewed', data: { prefix: 'pick' } },
      { type: 'UserListViewed', data: { prefix: null } },
    ]);
  });

  it("answers a user's events across streams in log order, with hashes verified and no password hash", async function () {
    const ada = await gw.user('ada');
    await ada.post('/personalize/createwatchlist', ['NVDA', 'AAPL']);
    await ada.post('/personalize/delstkwatchlist/NVDA');
    const res = await auditor.get(`/api/audit/users/${ada.username}/events`);
    expect(res.status).to.equal(200, res.text);
    const page = res.body as Page;
    expect(page.next).to.equal(null);
    expect(page.events.map((e) => `${e.stream} ${e.type}`)).to.deep.equal([
      `account-${ada.username} UserRegistered`,
      `account-${ada.username} UserSignedIn`,
      `watchlist-${ada.username} SymbolAddedToWatchlist`,
      `watchlist-${ada.username} SymbolAddedToWatchlist`,
      `watchlist-${ada.username} SymbolRemovedFromWatchlist`,
    ]);
    const [registered] = page.events;
    expect(Object.keys(registered!).sort()).to.deep.equal(
      ['actor', 'at', 'data', 'hashOk', 'id', 'position', 'revision', 'stream', 'type'].sort(),
    );
    expect(registered!.data.passwordHash).to.equal('[redacted]');
    expect(res.text).not.to.contain('scrypt');
    expect(page.events.every((e) => e.hashOk === true && e.actor === `user:${ada.username}`)).to.equal(true);
    expect(page.events.map((e) => e.revision)).to.deep.equal([0, 1, 0, 1, 2]);
  });

  it('pages with limit and after, each event once, and filters by types and time', async function () {
    const ada = await gw.user('pg');
    for (const symbol of ['NVDA', 'AAPL', 'MSFT', 'XOM']) await ada.post('/personalize/createwatchlist', [symbol]);
    const first = await eventsOf(ada.username, '?limit=4');
    expect(first.events).to.have.length(4);
    expect(first.next).to.equal(first.events[3]!.position);
    const second = await eventsOf(ada.username, `?limit=4&after=${first.next}`);
    expect(second.events.map((e) => e.data.symbol)).to.deep.equal(['MSFT', 'XOM']);
    expect(second.next).to.equal(null);

    const typed = await eventsOf(ada.username, '?type=UserRegistered,UserSignedIn');
    expect(typed.events.map((e) => e.type)).to.deep.equal(['UserRegistered', 'UserSignedIn']);
    const repeated = await eventsOf(ada.username, '?type=UserRegistered&type=SymbolAddedToWatchlist&limit=2');
    expect(repeated.events.map((e) => e.type)).to.deep.equal(['UserRegistered', 'SymbolAddedToWatchlist']);

    const all = await eventsOf(ada.username);
    const aapl = all.events.find((e) => e.data.symbol === 'AAPL')!;
    const msft = all.events.find((e) => e.data.symbol === 'MSFT')!;
    const window = await eventsOf(ada.username, `?type=SymbolAddedToWatchlist&from=${aapl.at}&to=${msft.at}`);
    // Events recorded in the same millisecond share a time, so the window holds every addition timed within it.
    const within = all.events
      .filter((e) => e.type === 'SymbolAddedToWatchlist' && e.at >= aapl.at && e.at <= msft.at)
      .map((e) => e.data.symbol);
    expect(within).to.include.members(['AAPL', 'MSFT']);
    expect(window.events.map((e) => e.data.symbol)).to.deep.equal(within);
    expect((await auditTrail(auditor.username)).at(-1)).to.deep.equal({
      type: 'UserHistoryViewed',
      data: {
        username: ada.username,
        types: ['SymbolAddedToWatchlist'],
        from: aapl.at,
        to: msft.at,
        after: null,
        limit: 100,
      },
    });
    // A time to the second, as the screens show it, keeps every event of that second, whatever its milliseconds.
    const msftSecond = msft.at.slice(0, 19) + 'Z';
    const toSecond = await eventsOf(ada.username, `?type=SymbolAddedToWatchlist&from=${msftSecond}&to=${msftSecond}`);
    expect(toSecond.events.map((e) => e.data.symbol)).to.include('MSFT');
    expect(toSecond.events.every((e) => e.at.startsWith(msft.at.slice(0, 19)))).to.equal(true);
  });

  it('answers the state at a past time and at a log position, one key per registered concern', async function () {
    const ada = await gw.user('st');
    await ada.post('/personalize/createwatchlist', ['NVDA']);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await ada.post('/personalize/createwatchlist', ['AAPL']);
    const added = (await eventsOf(ada.username, '?type=SymbolAddedToWatchlist')).events;

    const atTime = await auditor.get(`/api/audit/users/${ada.username}/state?at=${added[0]!.at}`);
    expect(atTime.status).to.equal(200, atTime.text);
    const state = atTime.body as Record<string, unknown>;
    expect(state).to.include({ username: ada.username, at: added[0]!.at, through: added[0]!.position });
    expect(state.watchlist).to.deep.equal({ symbols: ['NVDA'] });
    expect(state.account).to.deep.include({ username: ada.username, passwordHash: '[redacted]', roles: ['user'] });
    expect(Object.keys(state).sort()).to.deep.equal(
      ['username', 'at', 'through', 'eventCount', ...USER_CONCERNS.map((c) => c.concern)].sort(),
    );
    expect(atTime.text).not.to.contain('scrypt');

    const atPosition = await auditor.get(`/api/audit/users/${ada.username}/state?position=${added[1]!.position}`);
    expect(atPosition.body).to.deep.include({ position: added[1]!.position, watchlist: { symbols: ['NVDA', 'AAPL'] } });
    const before = await auditor.get(`/api/audit/users/${ada.username}/state?at=2000-01-01T00:00:00Z`);
    expect(before.body).to.deep.include({ through: null, eventCount: 0, watchlist: { symbols: [] } });
    const now = await auditor.get(`/api/audit/users/${ada.username}/state`);
    expect((now.body as { watchlist: unknown }).watchlist).to.deep.equal({ symbols: ['NVDA', 'AAPL'] });
    expect((await auditTrail(auditor.username)).slice(-4)).to.deep.equal([
      { type: 'UserStateViewed', data: { username: ada.username, at: added[0]!.at, position: null } },
      { type: 'UserStateViewed', data: { username: ada.username, at: null, position: added[1]!.position } },
      { type: 'UserStateViewed', data: { username: ada.username, at: '2000-01-01T00:00:00Z', position: null } },
      { type: 'UserStateViewed', data: { username: ada.username, at: null, position: null } },
    ]);
  });

  it('answers portfolio, lots, alerts, queries, dashboard and stats as they were at a past time', async function () {
    const ada = await gw.user('pf');
    await ada.post('/personalize/userstockportfolio', ['AAPL']);
    await ada.post('/personalize/userPositions/AAPL', { date: '2024-06-03', close: 190.5, position: 10 });
    const [lotAdded] = (await eventsOf(ada.username, '?type=PositionLotAdded')).events;
    await new Promise((resolve) => setTimeout(resolve, 5));
    await ada.post('/personalize/stockalerts', { symbol: 'AAPL', close: 250, alerttype: 'U' });
    await ada.post('/personalize/dashboard', [{ layoutId: 1, compId: [1, 2] }]);

    const then = (await auditor.get(`/api/audit/users/${ada.username}/state?at=${lotAdded!.at}`)).body as Record<
      string,
      unknown
    >;
    expect(JSON.stringify(then.portfolio)).to.contain('AAPL').and.contain('190.5');
    expect(JSON.stringify(then.alerts)).to.not.contain('AAPL');
    const now = (await auditor.get(`/api/audit/users/${ada.username}/state`)).body as Record<string, unknown>;
    expect(JSON.stringify(now.alerts)).to.contain('AAPL');
    expect(JSON.stringify(now.dashboardlayout)).to.contain('"compId":[1,2]');
    for (const key of ['queries', 'companystats', 'dashboardoptions', 'dashboardstocks'])
      expect(now).to.have.property(key);
  });

  it('answers 404 for a user that does not exist, recording nothing', async function () {
    const before = (await auditTrail(auditor.username)).length;
    for (const route of ['events', 'state', 'verify']) {
      const res = await auditor.get(`/api/audit/users/nosuchuser/${route}`);
      expect(res.status, route).to.equal(404);
      expect((res.body as { message: string }).message).to.match(/^params\.username:/);
    }
    expect((await auditTrail(auditor.username)).length).to.equal(before);
  });

  const badInputs: [string, string, string][] = [
    ['a limit of 0', 'events?limit=0', 'query.limit'],
    ['a limit above 500', 'events?limit=501', 'query.limit'],
    ['a limit that is not a number', 'events?limit=many', 'query.limit'],
    ['a fractional limit', 'events?limit=2.5', 'query.limit'],
    ['an after that is not a position', 'events?after=yesterday', 'query.after'],
    ['a from that is not a time', 'events?from=monday', 'query.from'],
    ['a time without a zone', 'events?from=2026-03-01T10:00:00', 'query.from'],
    ['a to before from', 'events?from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z', 'query.to'],
    ['an event type in lower case', 'events?type=SymbolAdded,bad', 'query.type[1]'],
    ['an event type no concern has', 'events?type=UserSignedIn,AlertTrigered', 'query.type[1]'],
    ['an unknown query parameter', 'events?types=UserSignedIn', 'query.types'],
    ['both at and position', 'state?at=2026-03-01T00:00:00Z&position=1/1', 'query.position'],
    ['an at that is not a time', 'state?at=2026-13-45T00:00:00Z', 'query.at'],
    ['an at on a day the calendar lacks', 'state?at=2026-11-31T10:00:00Z', 'query.at'],
    ['an at of a date alone, whose day is no zone’s', 'state?at=2026-11-30', 'query.at'],
    ['a to of a date alone', 'events?to=2026-11-30', 'query.to'],
    ['an at at hour 24', 'state?at=2026-03-01T24:00Z', 'query.at'],
    ['a from on February 30', 'events?from=2026-02-30T10:00:00Z', 'query.from'],
    ['a to with an offset of 25 hours', 'events?to=2026-03-01T10:00:00%2B25:00', 'query.to'],
    ['a position that is not one', 'state?position=12', 'query.position'],
  ];
  for (const [what, path, field] of badInputs) {
    it(`refuses ${what} with 400 naming ${field}, recording nothing`, async function () {
      const before = (await auditTrail(auditor.username)).length;
      const res = await auditor.get(`/api/audit/users/${auditor.username}/${path}`);
      expect(res.status).to.equal(400, res.text);
      expect((res.body as { message: string }).message.startsWith(`${field}:`)).to.equal(true, res.text);
      expect((await auditTrail(auditor.username)).length).to.equal(before);
    });
  }

  it('names a misspelt event type and lists the types there are', async function () {
    const res = await auditor.get(`/api/audit/users/${auditor.username}/events?type=AlertTrigered`);
    expect(res.status).to.equal(400, res.text);
    const { message } = res.body as { message: string };
    expect(message).to.match(/^query\.type\[0\]: unknown event type AlertTrigered; the types are /);
    for (const type of ['AlertTriggered', 'SymbolAddedToWatchlist', 'UserHistoryViewed'])
      expect(message).to.include(type);
  });

  it('refuses a username breaking the rule with 400 naming params.username', async function () {
    const res = await auditor.get('/api/audit/users/BAD%20NAME/events');
    expect(res.status).to.equal(400);
    expect((res.body as { message: string }).message).to.match(/^params\.username:/);
  });

  it('records each read with who read, when, and the id of the request as correlation id', async function () {
    await auditor.get('/api/audit/users?prefix=zz');
    const [last] = await gw.running.system.events.readStream(`audit-${auditor.username}`, {
      direction: 'backwards',
      maxCount: 1,
    });
    expect(last!.metadata).to.include({ userId: auditor.username, actor: `user:${auditor.username}` });
    expect(last!.metadata.correlationId).to.match(/^[0-9a-f-]{36}$/);
    expect(last!.metadata.correlationId).not.to.equal(last!.metadata.commandId);
    expect(Date.parse(last!.metadata.at as string)).to.be.closeTo(Date.now(), 60_000);
  });

  it("shows the auditor's own reads in the auditor's history, chained like every user event", async function () {
    const page = await eventsOf(auditor.username, '?type=UserHistoryViewed,UserStateViewed,UserChainVerified');
    expect(page.events.length).to.be.greaterThan(0);
    expect(page.events.every((e) => e.stream === `audit-${auditor.username}` && e.hashOk === true)).to.equal(true);
  });

  it('verifies the hash chain and names the first altered event when the log was tampered with', async function () {
    const ada = await gw.user('tamper');
    await ada.post('/personalize/createwatchlist', ['NVDA', 'AAPL', 'MSFT']);
    const intact = await auditor.get(`/api/audit/users/${ada.username}/verify`);
    expect(intact.status).to.equal(200, intact.text);
    expect(intact.body).to.deep.include({ intact: true, events: 5, streams: 2, firstBreak: null });
    expect((intact.body as { summary: string }).summary).to.equal('chain intact: 5 events in 2 streams');

    const db = openSqliteFile(join(gw.dataDir, 'events.db'));
    db.prepare('UPDATE events SET data = ? WHERE stream = ? AND revision = 1').run(
      JSON.stringify({ symbol: 'TSLA' }),
      `watchlist-${ada.username}`,
    );
    db.close();
    const altered = (await eventsOf(ada.username)).events.find((e) => e.data.symbol === 'TSLA')!;
    expect(altered.hashOk).to.equal(false);
    const broken = await auditor.get(`/api/audit/users/${ada.username}/verify`);
    expect(broken.body).to.deep.include({ intact: false });
    expect((broken.body as { firstBreak: unknown }).firstBreak).to.deep.include({
      stream: `watchlist-${ada.username}`,
      revision: 1,
      eventId: altered.id,
      reason: 'hash does not match the event: it was altered',
    });
    expect((await auditTrail(auditor.username)).at(-1)).to.deep.equal({
      type: 'UserChainVerified',
      data: { username: ada.username, intact: false, events: 5, streams: 2 },
    });
  });
});
