import { expect } from 'chai';
import type { SmaPeriod } from '../../domain/screener/query.ts';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../../domain/ids.ts';
import type { EngineTrigger } from '../../engine/alerts/alertEngine.ts';
import { comparePositions, parsePosition } from '../../platform/eventstore/port.ts';
import { startTestGateway, useTestGateway, type TestClient, type TestGateway } from '../testing/harness.ts';
import type { AlertAnswer } from './alerts.ts';
import type { NotificationAnswer } from './notifications.ts';

type User = TestClient & { readonly username: string };

/** The symbols the tests fire alerts on. */
const SYMBOLS = ['AAPL', 'MSFT', 'NVDA', 'XOM'];

const cents = (price: number): number => Math.round(price * 100) / 100;

describe('notification routes', function () {
  let gw: TestGateway;
  useTestGateway(async (started) => {
    gw = started;
    await gw.openDay(SYMBOLS);
  });

  async function readEvents(username: string): Promise<string[]> {
    const recorded = await gw.running.system.events.readStream(`notifications-${username}`).catch(() => []);
    return recorded.map((e) => e.type);
  }

  /** The previous close a symbol's change on the day is measured from. */
  function prevClose(symbol: string, on: TestGateway = gw): number {
    const close = on.running.system.liveQuotes?.quote(symbol)?.prevClose;
    if (close === null || close === undefined) throw new Error(`no previous close of ${symbol}`);
    return close;
  }

  /** Pushes ticks and answers the one trigger of `user` they fired. */
  async function fired(user: User, ticks: Parameters<TestGateway['pushTicks']>[0], on = gw): Promise<EngineTrigger> {
    const triggers = (await on.pushTicks(ticks)).filter((t) => t.userId === user.username);
    expect(triggers, 'one trigger of the user').to.have.length(1);
    return triggers[0]!;
  }

  /**
   * The time of the last tick {@link notify} pushed: each the clock's, or a millisecond after the last, so that
   * they come in sequence with the ticks the other tests push at the time of arrival (an earlier one would be a
   * late report, which fires nothing).
   */
  let lastTs = 0;
  /**
   * Creates an alert through the API and fires it as production does, with a tick at a price `changepct` away
   * from the previous close (a price alert's threshold is a dollar short of it); answers the notification id,
   * its time, the threshold and the trigger.
   */
  async function notify(
    user: User,
    alert: { symbol?: string; alerttype?: 'U' | 'D'; kind?: 'PRICE' | 'SMA'; period?: SmaPeriod } = {},
    changepct = 1.25,
  ): Promise<{ id: string; at: string; threshold: number; trigger: EngineTrigger }> {
    const symbol = alert.symbol ?? 'AAPL';
    const alerttype = alert.alerttype ?? 'U';
    lastTs = Math.max(Date.now(), lastTs + 1);
    const ts = lastTs;
    let price = cents(prevClose(symbol) * (1 + changepct / 100));
    const threshold = cents(alerttype === 'U' ? price - 1 : price + 1);
    const ticks = [{ symbol, price, ts }];
    if (alert.kind === 'SMA') {
      // An SMA alert fires when the price crosses its average: a tick on the other side first, then across.
      const sma = gw.running.system.engine!.quotes.sma(symbol, alert.period ?? 50)!;
      price = cents(alerttype === 'U' ? sma * 1.2 : sma * 0.8);
      ticks.splice(
        0,
        1,
        { symbol, price: cents(alerttype === 'U' ? sma * 0.8 : sma * 1.2), ts },
        { symbol, price, ts },
      );
    }
    const res = await user.post('/personalize/stockalerts', {
      symbol,
      close: threshold,
      alerttype,
      kind: alert.kind ?? 'PRICE',
      ...(alert.period !== undefined ? { period: alert.period } : {}),
    });
    expect(res.status).to.equal(200, res.text);
    const trigger = await fired(user, ticks);
    expect(trigger.event.data.alertId).to.equal((res.body as AlertAnswer).id);
    return { id: trigger.eventId, at: new Date(ts).toISOString(), threshold, trigger };
  }

  const list = async (user: User, path = '/personalize/usernotifications/ALL') =>
    (await user.get(path)).body as NotificationAnswer[];
  const unread = async (user: User) =>
    ((await user.get('/personalize/usernotifications/unreadcount')).body as { unread: number }).unread;

  describe('listing', function () {
    it('lists a fired alert right after the trigger, in the contract shape', async function () {
      const user = await gw.user();
      const { id, at, threshold, trigger } = await notify(user);
      const changepct = trigger.event.data.changepct;
      expect(changepct).to.be.closeTo(1.25, 0.01);
      const res = await user.get('/personalize/usernotifications/ALL');
      expect(res.status).to.equal(200, res.text);
      expect(res.body).to.deep.equal([
        {
          id,
          symbol: 'AAPL',
          notificationtype: 1,
          notifcationmessage: `AAPL rose above ${threshold.toFixed(2)}: ${trigger.event.data.price.toFixed(2)} (+${changepct.toFixed(2)}% on the day)`,
          createdt: at,
          read: false,
          note: null,
        },
      ]);
      expect(res.headers.get('x-read-model-position')).to.match(/^\d+\/\d+$/);
    });

    it('marks the list with a position at or past every trigger it holds, even an empty list', async function () {
      const user = await gw.user();
      const empty = await user.get('/personalize/usernotifications/ALL');
      expect(empty.headers.get('x-read-model-position')).to.match(/^\d+\/\d+$/);
      const { trigger } = await notify(user);
      const listed = await user.get('/personalize/usernotifications/ALL');
      const position = parsePosition(listed.headers.get('x-read-model-position') ?? '');
      expect(position, 'a position').to.not.equal(null);
      expect(comparePositions(position!, trigger.position!)).to.be.at.least(0);
    });

    it('answers a repeated read with the same bytes, and forgets it on a new notification and on marking read', async function () {
      const user = await gw.user();
      const first = await notify(user);
      const path = '/personalize/usernotifications/ALL';
      const derived = await user.get(path);
      const kept = await user.get(path);
      expect(kept.text).to.equal(derived.text);
      expect(kept.text).to.equal(JSON.stringify(derived.body));
      for (const header of ['content-type', 'content-length', 'x-read-model-position']) {
        expect(kept.headers.get(header), header).to.equal(derived.headers.get(header));
      }
      const second = await notify(user, { symbol: 'MSFT' });
      const listed = (await user.get(path)).body as NotificationAnswer[];
      expect(listed.map((n) => [n.id, n.read])).to.deep.equal([
        [second.id, false],
        [first.id, false],
      ]);
      expect((await user.post('/personalize/readnotifications', { ids: [first.id] })).status).to.equal(200);
      expect((await list(user)).map((n) => [n.id, n.read])).to.deep.equal([
        [second.id, false],
        [first.id, true],
      ]);
    });

    it('answers an empty list to a new user', async function () {
      const user = await gw.user();
      expect(await list(user)).to.deep.equal([]);
      expect(await unread(user)).to.equal(0);
    });

    it('lists newest first and filters by type: ALL, PRICE or 1, SMA or 2, any case', async function () {
      const user = await gw.user();
      const price1 = await notify(user, { symbol: 'AAPL' });
      const sma = await notify(user, { symbol: 'MSFT', kind: 'SMA', period: 50, alerttype: 'D' });
      const price2 = await notify(user, { symbol: 'NVDA', alerttype: 'D' }, -2.1);
      const ids = (items: NotificationAnswer[]) => items.map((n) => n.id);
      expect(ids(await list(user))).to.deep.equal([price2.id, sma.id, price1.id]);
      expect(ids(await list(user, '/personalize/usernotifications/all'))).to.deep.equal([price2.id, sma.id, price1.id]);
      for (const type of ['PRICE', '1', 'price']) {
        expect(ids(await list(user, `/personalize/usernotifications/${type}`))).to.deep.equal([price2.id, price1.id]);
      }
      for (const type of ['SMA', '2']) {
        const items = await list(user, `/personalize/usernotifications/${type}`);
        expect(items.map((n) => [n.id, n.notificationtype])).to.deep.equal([[sma.id, 2]]);
        const level = sma.trigger.event.data.sma!.toFixed(2);
        expect(items[0]!.notifcationmessage).to.match(
          new RegExp(`^MSFT crossed below its 50-day SMA ${level}: [0-9.]+ \\(-`),
        );
      }
    });

    it('pages with limit and before (a notification id or an ISO time)', async function () {
      const user = await gw.user();
      const made = [];
      for (let i = 0; i < 4; i++) made.push(await notify(user, {}, 1 + i / 10));
      const [n0, n1, n2, n3] = made;
      const ids = (items: NotificationAnswer[]) => items.map((n) => n.id);
      expect(ids(await list(user, '/personalize/usernotifications/ALL?limit=2'))).to.deep.equal([n3!.id, n2!.id]);
      expect(ids(await list(user, `/personalize/usernotifications/ALL?limit=2&before=${n2!.id}`))).to.deep.equal([
        n1!.id,
        n0!.id,
      ]);
      expect(ids(await list(user, `/personalize/usernotifications/ALL?before=${n1!.at}`))).to.deep.equal([n0!.id]);
      expect(ids(await list(user, `/personalize/usernotifications/ALL?before=${n0!.id}`))).to.deep.equal([]);
    });

    it('defaults to 50 a page and allows 200', async function () {
      const user = await gw.user();
      const many = 52;
      const price = cents(prevClose('AAPL') * 1.01);
      for (let i = 0; i < many; i++) {
        const res = await user.post('/personalize/stockalerts', { symbol: 'AAPL', close: price - i, alerttype: 'U' });
        expect(res.status).to.equal(200, res.text);
      }
      const triggers = await gw.pushTicks([{ symbol: 'AAPL', price }]);
      expect(triggers.filter((t) => t.userId === user.username)).to.have.length(many);
      expect(await list(user)).to.have.length(50);
      expect(await list(user, '/personalize/usernotifications/ALL?limit=200')).to.have.length(many);
    });

    const badQueries: [string, string, number, string][] = [
      ['an unknown type', '/personalize/usernotifications/MACD', 400, 'params.type'],
      ['a limit of 0', '/personalize/usernotifications/ALL?limit=0', 400, 'query.limit'],
      ['a limit of 201', '/personalize/usernotifications/ALL?limit=201', 400, 'query.limit'],
      ['a limit that is no number', '/personalize/usernotifications/ALL?limit=ten', 400, 'query.limit'],
      ['an empty limit', '/personalize/usernotifications/ALL?limit=', 400, 'query.limit'],
      ['a limit given twice', '/personalize/usernotifications/ALL?limit=1&limit=2', 400, 'query.limit'],
      [
        'a before that is neither id nor time',
        '/personalize/usernotifications/ALL?before=yesterday',
        400,
        'query.before',
      ],
      [
        'a before naming no notification of the caller',
        `/personalize/usernotifications/ALL?before=${uuidV5('none', STOCKPULSE_NAMESPACE)}`,
        404,
        'query.before',
      ],
    ];
    for (const [what, path, status, field] of badQueries) {
      it(`refuses ${what} with ${status} naming ${field}`, async function () {
        const user = await gw.user();
        const res = await user.get(path);
        expect(res.status).to.equal(status, res.text);
        const message = (res.body as { message: string }).message;
        expect(message.startsWith(field), message).to.equal(true);
        // A limit refused says what it must be, not how the server failed to read it (`expected number, received NaN`).
        if (field === 'query.limit') expect(message).to.equal('query.limit: must be a whole number from 1 to 200');
      });
    }
  });

  describe('marking read', function () {
    it('marks notifications read by id and answers how many are still unread', async function () {
      const user = await gw.user();
      const a = await notify(user);
      const b = await notify(user);
      const c = await notify(user);
      expect(await unread(user)).to.equal(3);
      const res = await user.post('/personalize/readnotifications', { ids: [a.id, c.id.toUpperCase()] });
      expect(res.status).to.equal(200, res.text);
      expect(res.body).to.deep.equal({ unread: 1 });
      const items = await list(user);
      expect(items.map((n) => [n.id, n.read])).to.deep.equal([
        [c.id, true],
        [b.id, false],
        [a.id, true],
      ]);
      expect(await unread(user)).to.equal(1);
      expect(await readEvents(user.username)).to.deep.equal(['NotificationsMarkedRead']);
      // Each id with where its trigger is in the log, so the read state can forget it once the bell drops it.
      const [marked] = await gw.running.system.events.readStream(`notifications-${user.username}`);
      const triggers = await gw.running.system.events.readStream(`alerts-${user.username}`);
      const placeOf = (id: string) => {
        const { commit, prepare } = triggers.find((e) => e.id === id)!.position;
        return { commit, prepare };
      };
      expect(marked!.data).to.deep.equal({ ids: [a.id, c.id], positions: [placeOf(a.id), placeOf(c.id)] });
    });

    it('appends nothing when the named notifications are already read', async function () {
      const user = await gw.user();
      const a = await notify(user);
      await user.post('/personalize/readnotifications', { ids: [a.id] });
      const again = await user.post('/personalize/readnotifications', { ids: [a.id, a.id] });
      expect(again.body).to.deep.equal({ unread: 0 });
      expect(await readEvents(user.username)).to.deep.equal(['NotificationsMarkedRead']);
    });

    it('marks all read up to the newest notification; a later one is unread', async function () {
      const user = await gw.user();
      await notify(user);
      await notify(user);
      const res = await user.post('/personalize/readnotifications', { all: true });
      expect(res.status).to.equal(200, res.text);
      expect(res.body).to.deep.equal({ unread: 0 });
      expect((await list(user)).every((n) => n.read)).to.equal(true);
      const later = await notify(user);
      expect(await unread(user)).to.equal(1);
      expect((await list(user))[0]).to.deep.include({ id: later.id, read: false });
      expect((await user.post('/personalize/readnotifications', { all: true })).body).to.deep.equal({ unread: 0 });
      expect(await readEvents(user.username)).to.deep.equal([
        'AllNotificationsMarkedRead',
        'AllNotificationsMarkedRead',
      ]);
    });

    it('appends nothing when marking all read with nothing new', async function () {
      const user = await gw.user();
      expect((await user.post('/personalize/readnotifications', { all: true })).body).to.deep.equal({ unread: 0 });
      await notify(user);
      await user.post('/personalize/readnotifications', { all: true });
      await user.post('/personalize/readnotifications', { all: true });
      expect(await readEvents(user.username)).to.deep.equal(['AllNotificationsMarkedRead']);
    });

    it('appends nothing for a retried mark with the same Idempotency-Key and answers the same', async function () {
      const user = await gw.user();
      const a = await notify(user);
      await notify(user);
      const headers = { 'Idempotency-Key': 'read-a' };
      const first = await user.post('/personalize/readnotifications', { ids: [a.id] }, headers);
      const retried = await user.post('/personalize/readnotifications', { ids: [a.id] }, headers);
      expect(retried.status).to.equal(200);
      expect(retried.body).to.deep.equal(first.body).and.deep.equal({ unread: 1 });
      const allHeaders = { 'Idempotency-Key': 'read-all' };
      const all = await user.post('/personalize/readnotifications', { all: true }, allHeaders);
      const allRetried = await user.post('/personalize/readnotifications', { all: true }, allHeaders);
      expect(allRetried.body).to.deep.equal(all.body).and.deep.equal({ unread: 0 });
      expect(await readEvents(user.username)).to.deep.equal(['NotificationsMarkedRead', 'AllNotificationsMarkedRead']);
    });

    const badBodies: [string, { raw?: string; body?: unknown }, number, string][] = [
      ['an empty object', { body: {} }, 400, 'body'],
      ['an empty list of ids', { body: { ids: [] } }, 400, 'body.ids'],
      ['ids that are no list', { body: { ids: 'all' } }, 400, 'body.ids'],
      ['an id that is no text', { body: { ids: [7] } }, 400, 'body.ids[0]'],
      ['an empty id', { body: { ids: [''] } }, 400, 'body.ids[0]'],
      ['all: false', { body: { all: false } }, 400, 'body.all'],
      ['all as text', { body: { all: 'yes' } }, 400, 'body.all'],
      ['both ids and all', { body: { ids: [uuidV5('x', STOCKPULSE_NAMESPACE)], all: true } }, 400, 'body'],
      ['more than 200 ids', { body: { ids: Array.from({ length: 201 }, (_, i) => `n${i}`) } }, 400, 'body.ids'],
      ['a bare list', { body: [uuidV5('x', STOCKPULSE_NAMESPACE)] }, 400, 'body'],
      ['invalid JSON', { raw: '{"ids":[' }, 400, 'body'],
      ['an id of no notification', { body: { ids: [uuidV5('none', STOCKPULSE_NAMESPACE)] } }, 404, 'body.ids[0]'],
      ['an id that is no notification id', { body: { ids: ['not-an-id'] } }, 404, 'body.ids[0]'],
    ];
    for (const [what, input, status, field] of badBodies) {
      it(`refuses ${what} with ${status} naming ${field}, appending nothing`, async function () {
        const user = await gw.user();
        const res = await user.postInput('/personalize/readnotifications', input);
        expect(res.status).to.equal(status, res.text);
        const message = (res.body as { message: string }).message;
        expect(message.startsWith(field), message).to.equal(true);
        // A limit refused says what it must be, not how the server failed to read it (`expected number, received NaN`).
        if (field === 'query.limit') expect(message).to.equal('query.limit: must be a whole number from 1 to 200');
        expect(await readEvents(user.username)).to.deep.equal([]);
      });
    }
  });

  it('never shows one user the notifications of another, nor lets them mark them', async function () {
    const ada = await gw.user('ada');
    const bob = await gw.user('bob');
    const adas = await notify(ada, { symbol: 'AAPL' });
    const bobs = await notify(bob, { symbol: 'XOM' });
    expect((await list(ada)).map((n) => n.id)).to.deep.equal([adas.id]);
    expect((await list(bob)).map((n) => n.id)).to.deep.equal([bobs.id]);
    const res = await bob.post('/personalize/readnotifications', { ids: [bobs.id, adas.id] });
    expect(res.status).to.equal(404);
    expect((res.body as { message: string }).message).to.match(/^body\.ids\[1\]/);
    expect(await readEvents(bob.username)).to.deep.equal([]);
    expect((await bob.get(`/personalize/usernotifications/ALL?before=${adas.id}`)).status).to.equal(404);
    await bob.post('/personalize/readnotifications', { all: true });
    expect(await unread(ada)).to.equal(1);
    expect(await unread(bob)).to.equal(0);
  });

  it('refuses every notification route without a session', async function () {
    const anonymous = gw.client();
    expect((await anonymous.get('/personalize/usernotifications/ALL')).status).to.equal(401);
    expect((await anonymous.get('/personalize/usernotifications/unreadcount')).status).to.equal(401);
    expect((await anonymous.post('/personalize/readnotifications', { all: true })).status).to.equal(401);
  });

  it('keeps notifications and what was read across a restart', async function () {
    const gw2 = await startTestGateway();
    await gw2.openDay(['AAPL']);
    const user = await gw2.user();
    const price = cents(prevClose('AAPL', gw2) * 1.01);
    const res = await user.post('/personalize/stockalerts', { symbol: 'AAPL', close: price - 1, alerttype: 'U' });
    expect(res.status).to.equal(200, res.text);
    await fired(user, [{ symbol: 'AAPL', price }], gw2);
    await user.post('/personalize/readnotifications', { all: true });
    const before = (await user.get('/personalize/usernotifications/ALL')).body as NotificationAnswer[];
    expect(before).to.have.length(1);
    const dataDir = gw2.dataDir;
    await gw2.close({ keepData: true });
    const restarted = await startTestGateway({ dataDir });
    const again = restarted.client();
    for (const [k, v] of user.cookies) again.cookies.set(k, v);
    expect((await again.get('/personalize/usernotifications/ALL')).body).to.deep.equal(before);
    expect((await again.get('/personalize/usernotifications/unreadcount')).body).to.deep.equal({ unread: 0 });
    await restarted.close();
  });
});
