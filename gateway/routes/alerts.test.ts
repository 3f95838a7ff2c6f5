import { expect } from 'chai';
import fc from 'fast-check';
import { ALERT_FREQUENCIES, ALERT_OPS } from '../../domain/alerts/conditions.ts';
import { ALERTS_LIMIT, alertsDecider, type Alert, type AlertsCommand } from '../../domain/alerts/alerts.ts';
import { fold } from '../../domain/decider.ts';
import { channelsDecider } from '../../domain/channels/channels.ts';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../../domain/ids.ts';
import type { EngineTrigger } from '../../engine/alerts/alertEngine.ts';
import { CommandService } from '../commands.ts';
import { startTestGateway, useTestGateway, type TestGateway } from '../testing/harness.ts';
import { alertView, type AlertAnswer } from './alerts.ts';
import type { AlertsActionAnswer } from '../../domain/contract/alerts.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('alert routes', function () {
  let gw: TestGateway;
  let commands: CommandService;
  useTestGateway(async (started) => {
    gw = started;
    commands = new CommandService(gw.running.system.events, gw.running.system.projections!);
    await gw.openDay(['AAPL']);
  });

  async function events(username: string): Promise<string[]> {
    const recorded = await gw.running.system.events.readStream(`alerts-${username}`).catch(() => []);
    return recorded.map((e) => e.type);
  }

  type User = Awaited<ReturnType<TestGateway['user']>>;
  async function createAlert(user: User, body: Record<string, unknown>): Promise<AlertAnswer> {
    const res = await user.post('/personalize/stockalerts', body);
    expect(res.status).to.equal(200, res.text);
    return res.body as AlertAnswer;
  }

  /** Fires a price alert as production does, with a tick across its threshold; answers the user's triggers. */
  async function fire(username: string, alert: AlertAnswer, ts?: number): Promise<EngineTrigger[]> {
    const price = alert.alerttype === 'U' ? alert.threshold! + 1.5 : alert.threshold! - 1.5;
    const triggers = await gw.pushTicks([{ symbol: alert.symbol, price, ...(ts === undefined ? {} : { ts }) }]);
    return triggers.filter((t) => t.userId === username);
  }

  describe('creating', function () {
    it('creates a price alert and answers it in the contract shape', async function () {
      const user = await gw.user();
      const res = await user.post('/personalize/stockalerts', { symbol: 'AAPL', close: 190, alerttype: 'U' });
      expect(res.status).to.equal(200, res.text);
      const alert = res.body as AlertAnswer;
      expect(Object.keys(alert)).to.have.members([
        'id',
        'symbol',
        'threshold',
        'alerttype',
        'kind',
        'status',
        'createdt',
        'condition',
        'conditiontext',
        'frequency',
        'expires',
        'lastfired',
        'triggercount',
        'note',
        'channels',
      ]);
      expect(alert.id).to.match(UUID);
      expect(alert).to.deep.include({ symbol: 'AAPL', threshold: 190, alerttype: 'U', kind: 'PRICE', status: 'armed' });
      expect(alert.channels).to.equal(null);
      expect(Number.isNaN(Date.parse(alert.createdt))).to.equal(false);
      expect(await events(user.username)).to.deep.equal(['AlertCreated']);
    });

    it('creates an SMA alert with its period, ignoring the close sent along', async function () {
      const user = await gw.user();
      const alert = await createAlert(user, { symbol: 'msft', close: 123.4, alerttype: 'd', kind: 'SMA', period: 50 });
      expect(alert).to.deep.include({
        symbol: 'MSFT',
        threshold: null,
        alerttype: 'D',
        kind: 'SMA',
        period: 50,
        status: 'armed',
      });
      expect(Object.keys(alert)).to.include('period');
    });

    it('keeps the threshold to the cent', async function () {
      const user = await gw.user();
      expect((await createAlert(user, { symbol: 'AAPL', close: 190.005, alerttype: 'U' })).threshold).to.equal(190.01);
    });

    it('accepts a threshold of exactly 1,000,000 and of 0.01', async function () {
      const user = await gw.user();
      expect((await createAlert(user, { symbol: 'NVDA', close: 1_000_000, alerttype: 'D' })).threshold).to.equal(
        1_000_000,
      );
      expect((await createAlert(user, { symbol: 'NVDA', close: 0.01, alerttype: 'U' })).threshold).to.equal(0.01);
    });

    it('creates a new alert, ignoring an id sent without update', async function () {
      const user = await gw.user();
      const first = await createAlert(user, { symbol: 'AAPL', close: 190, alerttype: 'U' });
      const second = await createAlert(user, {
        symbol: 'AAPL',
        close: 200,
        alerttype: 'U',
        id: first.id,
        update: false,
      });
      expect(second.id).not.to.equal(first.id);
      expect((await user.get('/personalize/stockalerts')).body).to.have.length(2);
    });
  });

  it('creates every alert a user sends at once, none refused as a conflict', async function () {
    this.timeout(60_000);
    const user = await gw.user();
    const statuses: number[] = [];
    for (let round = 0; round < 8; round++) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          user.post('/personalize/stockalerts', { symbol: 'AAPL', close: 100 + round * 10 + i, alerttype: 'U' }),
        ),
      );
      statuses.push(...answers.map((res) => res.status));
    }
    expect(statuses.filter((status) => status !== 200)).to.deep.equal([]);
    expect((await user.get('/personalize/stockalerts')).body).to.have.length(80);
    expect(await events(user.username)).to.have.length(80);
  });

  it('answers an unknown symbol naming body.symbol', async function () {
    const user = await gw.user();
    const res = await user.post('/personalize/stockalerts', { symbol: 'ZZZZQ', close: 10, alerttype: 'U' });
    expect(res.status).to.equal(400, res.text);
    expect((res.body as { message: string }).message).to.equal('body.symbol: unknown symbol ZZZZQ');
    // An empty one is missing, not a symbol breaking the rule.
    for (const symbol of ['', '   ']) {
      const blank = await user.post('/personalize/stockalerts', { symbol, close: 10, alerttype: 'U' });
      expect(blank.status).to.equal(400, blank.text);
      expect((blank.body as { message: string }).message).to.equal('body.symbol: is required');
    }
  });

  describe('reading', function () {
    it('reads the alerts back right after a change, by symbol and all, with the position', async function () {
      const user = await gw.user();
      const aapl = await createAlert(user, { symbol: 'AAPL', close: 190, alerttype: 'U' });
      const msft = await createAlert(user, { symbol: 'MSFT', alerttype: 'D', kind: 'SMA', period: 200 });
      const bySymbol = await user.get('/personalize/stockalerts/aapl');
      expect(bySymbol.status).to.equal(200);
      expect(bySymbol.body).to.deep.equal([aapl]);
      expect(bySymbol.headers.get('x-read-model-position')).to.match(/^\d+\/\d+$/);
      expect((await user.get('/personalize/stockalerts')).body).to.deep.equal([aapl, msft]);
      expect((await user.get('/personalize/stockalerts/NVDA')).body).to.deep.equal([]);
    });

    it('answers the list again after any of its alerts changes: fired, paused, resumed, deleted', async function () {
      const user = await gw.user();
      const aapl = await createAlert(user, { symbol: 'AAPL', close: 190, alerttype: 'U' });
      const msft = await createAlert(user, { symbol: 'MSFT', close: 10_000, alerttype: 'U' });
      const list = async (path = '/personalize/stockalerts') => (await user.get(path)).body as AlertAnswer[];
      // Read twice, so the answers are kept when each change comes.
      for (let i = 0; i < 2; i++) {
        expect(await list()).to.deep.equal([aapl, msft]);
        expect(await list('/personalize/stockalerts/AAPL')).to.deep.equal([aapl]);
        // A symbol that is none is said to be one, rather than answered as a symbol without alerts.
        const mistyped = await user.get('/personalize/stockalerts/AAPLL');
        expect(mistyped.status).to.equal(400);
        expect(mistyped.body).to.deep.include({ message: 'params.symbol: unknown symbol AAPLL' });
      }
      await fire(user.username, aapl);
      expect((await list()).map((a) => [a.status, a.triggercount])).to.deep.equal([
        ['triggered', 1],
        ['armed', 0],
      ]);
      expect((await list('/personalize/stockalerts/AAPL'))[0]!.status).to.equal('triggered');
      expect((await user.post(`/personalize/stockalerts/${msft.id}/pause`)).status).to.equal(200);
      expect((await list()).map((a) => a.status)).to.deep.equal(['triggered', 'paused']);
      expect((await user.post(`/personalize/stockalerts/${msft.id}/resume`)).status).to.equal(200);
      expect((await list()).map((a) => a.status)).to.deep.equal(['triggered', 'armed']);
      expect((await user.post(`/personalize/deletealert/${aapl.id}`)).status).to.equal(200);
      expect((await list()).map((a) => a.id)).to.deep.equal([msft.id]);
      expect(await list('/personalize/stockalerts/AAPL')).to.deep.equal([]);
    });

    it('keeps the creation order, whatever the ids, and marks the position of a deletion', async function () {
      const user = await gw.user();
      const made: AlertAnswer[] = [];
      for (let i = 0; i < 12; i++)
        made.push(await createAlert(user, { symbol: 'AAPL', close: 300 + i, alerttype: 'U' }));
      expect(((await user.get('/personalize/stockalerts')).body as AlertAnswer[]).map((a) => a.id)).to.deep.equal(
        made.map((a) => a.id),
      );
      const before = (await user.get('/personalize/stockalerts')).headers.get('x-read-model-position')!;
      await user.post(`/personalize/deletealert/${made[11]!.id}`);
      const after = await user.get('/personalize/stockalerts');
      expect((after.body as AlertAnswer[]).map((a) => a.id)).to.deep.equal(made.slice(0, 11).map((a) => a.id));
      const commitOf = (position: string) => Number(position.split('/')[0]);
      expect(commitOf(after.headers.get('x-read-model-position')!)).to.be.above(commitOf(before));
    });

    it("never lists another user's alerts to a user whose id starts the other's", async function () {
      const short = await gw.user('pf');
      const long = Object.assign(gw.client(), { username: `${short.username}x` });
      expect(
        (await long.post('/api/register', { username: long.username, password: 'correct horse' })).status,
      ).to.equal(201);
      expect((await long.post('/api/login', { username: long.username, password: 'correct horse' })).status).to.equal(
        200,
      );
      const shorts = await createAlert(short, { symbol: 'AAPL', close: 190, alerttype: 'U' });
      expect((await short.get('/personalize/stockalerts')).body).to.deep.equal([shorts]);
      const longs = await createAlert(long, { symbol: 'AAPL', close: 191, alerttype: 'U' });
      expect((await short.get('/personalize/stockalerts')).body).to.deep.equal([shorts]);
      expect((await short.get('/personalize/stockalerts/AAPL')).body).to.deep.equal([shorts]);
      expect((await long.get('/personalize/stockalerts')).body).to.deep.equal([longs]);
      expect((await short.get(`/personalize/stockalerts/${longs.id}/history`)).status).to.equal(404);
    });

    it("rewrites only the fired alert's document of a user with many alerts", async function () {
      this.timeout(60_000);
      const user = await gw.user();
      const at = new Date().toISOString();
      for (let i = 0; i < 100; i++) {
        const command: AlertsCommand = {
          type: 'CreateAlert',
          data: {
            alertId: uuidV5(`many-${user.username}-${i}`, STOCKPULSE_NAMESPACE),
            symbol: 'AAPL',
            kind: 'PRICE',
            alerttype: 'U',
            threshold: 100_000 + i,
            period: null,
            at,
          },
        };
        await commands.execute({ concern: 'alerts', decider: alertsDecider }, command, {
          commandId: `many-${user.username}-${i}`,
          userId: user.username,
          at,
          actor: `user:${user.username}`,
        });
      }
      const alert = await createAlert(user, { symbol: 'AAPL', close: 190, alerttype: 'U' });
      const written: string[] = [];
      const stop = gw.running.system.onReadModelCommit((name, _position, writes) => {
        for (const w of writes) if (w.key.startsWith(`${user.username}/`)) written.push(`${name} ${w.key}`);
      });
      try {
        expect((await fire(user.username, alert)).map((t) => t.event.data.alertId)).to.deep.equal([alert.id]);
      } finally {
        stop();
      }
      const key = `${user.username}/${alert.id}`;
      expect(written.filter((w) => w.startsWith('alerts '))).to.deep.equal([`alerts ${key}`]);
      expect((await user.get('/personalize/stockalerts')).body).to.have.length(101);
    });

    it('answers note null for an alert document folded before alerts had notes', function () {
      const created = alertsDecider.decide(
        {
          type: 'CreateAlert',
          data: {
            alertId: uuidV5('old-doc', STOCKPULSE_NAMESPACE),
            symbol: 'AAPL',
            condition: { op: 'crossing', value: 3 },
            at: '2025-03-03T15:00:00Z',
          },
        },
        alertsDecider.initialState,
      );
      const { note: _note, ...before } = fold(alertsDecider, created).alerts[0]!;
      expect(alertView(before as Alert, channelsDecider.initialState).note).to.equal(null);
    });

    it('answers empty lists to a new user', async function () {
      const user = await gw.user();
      expect((await user.get('/personalize/stockalerts')).body).to.deep.equal([]);
      expect((await user.get('/personalize/stockalerts/AAPL')).body).to.deep.equal([]);
    });

    it('refuses a bad symbol in the path naming params.symbol', async function () {
      const user = await gw.user();
      const res = await user.get('/personalize/stockalerts/BAD%20ONE');
      expect(res.status).to.equal(400);
      expect((res.body as { message: string }).message).to.match(/^params\.symbol:/);
    });
  });

  describe('updating', function () {
    it('changes an alert, keeping its id and creation time', async function () {
      const user = await gw.user();
      const alert = await createAlert(user, { symbol: 'AAPL', close: 190, alerttype: 'U' });
      const changed = await createAlert(user, {
        symbol: 'AAPL',
        close: 180.5,
        alerttype: 'D',
        id: alert.id,
        update: true,
      });
      expect(changed).to.deep.equal({
        ...alert,
        threshold: 180.5,
        alerttype: 'D',
        condition: { ...alert.condition, op: 'less_than', value: 180.5 },
        conditiontext: 'Price is at or below 180.50',
      });
      expect((await user.get('/personalize/stockalerts/AAPL')).body).to.deep.equal([changed]);
      expect(await events(user.username)).to.deep.equal(['AlertCreated', 'AlertUpdated']);
    });

    it('keeps the frequency and the expiry an update leaves out', async function () {
      const user = await gw.user();
      const expires = '2099-01-01T00:00:00.000Z';
      const alert = await createAlert(user, {
        symbol: 'AAPL',
        condition: { op: 'crossing', value: 190 },
        frequency: 'every_time',
        expires,
      });
      const moved = await createAlert(user, {
        symbol: 'AAPL',
        condition: { op: 'crossing', value: 191 },
        id: alert.id,
        update: true,
      });
      expect(moved).to.deep.include({ frequency: 'every_time', expires, conditiontext: 'Price crosses 191.00' });
      const open = await createAlert(user, {
        symbol: 'AAPL',
        condition: { op: 'crossing', value: 191 },
        expires: null,
        id: alert.id,
        update: true,
      });
      expect(open).to.deep.include({ frequency: 'every_time', expires: null });
    });

    it('refuses an update naming another symbol with 400 naming body.symbol, the alert left as it was', async () => {
      const user = await gw.user();
      const alert = await createAlert(user, { symbol: 'AAPL', condition: { op: 'greater_than', value: 700 } });
      const before = (await events(user.username)).length;
      const res = await user.post('/personalize/stockalerts', {
        symbol: 'MSFT',
        note: 'x',
        id: alert.id,
        update: true,
      });
      expect(res.status, res.text).to.equal(400);
      expect((res.body as { message: string }).message).to.equal(
        'body.symbol: the alert is on AAPL; an update keeps its symbol (create an alert on MSFT instead)',
      );
      expect((await events(user.username)).length).to.equal(before);
      const listed = (await user.get('/personalize/stockalerts')).body as AlertAnswer[];
      expect(listed.map((a) => [a.id, a.symbol])).to.deep.equal([[alert.id, 'AAPL']]);
    });

    it('keeps the condition an update leaves out, and answers 404 for such an update of no alert', async function () {
      const user = await gw.user();
      const alert = await createAlert(user, {
        symbol: 'AAPL',
        condition: { op: 'inside_channel', lower: 180, upper: 190 },
        frequency: 'every_time',
      });
      const noted = await createAlert(user, { symbol: 'AAPL', note: 'Range trade', id: alert.id, update: true });
      expect(noted).to.deep.include({
        condition: alert.condition,
        conditiontext: alert.conditiontext,
        frequency: 'every_time',
        note: 'Range trade',
      });
      const older = await createAlert(user, { symbol: 'AAPL', close: 190, alerttype: 'U' });
      const daily = await createAlert(user, { symbol: 'AAPL', frequency: 'once_per_bar', id: older.id, update: true });
      expect(daily).to.deep.include({
        condition: older.condition,
        conditiontext: older.conditiontext,
        frequency: 'once_per_bar',
      });
      const unknown = uuidV5('no-such-alert', STOCKPULSE_NAMESPACE);
      const res = await user.post('/personalize/stockalerts', { symbol: 'AAPL', note: 'x', id: unknown, update: true });
      expect(res.status, res.text).to.equal(404);
      expect((res.body as { message: string }).message).to.equal(`body.id: no alert ${unknown}`);
      // The older body's fields still go together: a threshold without its direction names the direction.
      const half = await user.post('/personalize/stockalerts', {
        symbol: 'AAPL',
        close: 191,
        id: alert.id,
        update: true,
      });
      expect(half.status, half.text).to.equal(400);
      expect((half.body as { message: string }).message).to.match(/^body\.alerttype: is required/);
    });

    it('re-arms a triggered alert', async function () {
      const user = await gw.user();
      const alert = await createAlert(user, { symbol: 'AAPL', close: 190, alerttype: 'U' });
      const [trigger] = await fire(user.username, alert);
      expect((await user.get('/personalize/stockalerts/AAPL')).body).to.deep.equal([
        { ...alert, status: 'triggered', lastfired: trigger!.event.data.at, triggercount: 1 },
      ]);
      const rearmed = await createAlert(user, {
        symbol: 'AAPL',
        close: 190,
        alerttype: 'U',
        id: alert.id,
        update: true,
      });
      expect(rearmed.status).to.equal('armed');
      expect((await user.get('/personalize/stockalerts')).body).to.deep.equal([rearmed]);
    });

    it('answers 404 for an id that is no alert of the caller, appending nothing', async function () {
      const user = await gw.user();
      await createAlert(user, { symbol: 'AAPL', close: 190, alerttype: 'U' });
      for (const id of [uuidV5('nothing', STOCKPULSE_NAMESPACE), 'chart-element-7']) {
        const res = await user.post('/personalize/stockalerts', {
          symbol: 'AAPL',
          close: 1,
          alerttype: 'U',
          id,
          update: true,
        });
        expect(res.status).to.equal(404, res.text);
        expect((res.body as { message: string }).message, res.text).to.match(/^body\.id: no alert /);
      }
      expect(await events(user.username)).to.deep.equal(['AlertCreated']);
    });
  });

  describe('deleting', function () {
    it('deletes an alert and answers {id, deleted: true}', async function () {
      const user = await gw.user();
      const keep = await createAlert(user, { symbol: 'AAPL', close: 190, alerttype: 'U' });
      const drop = await createAlert(user, { symbol: 'AAPL', close: 170, alerttype: 'D' });
      const res = await user.post(`/personalize/deletealert/${drop.id}`);
      expect(res.status).to.equal(200, res.text);
      expect(res.body).to.deep.equal({ id: drop.id, deleted: true });
      expect((await user.get('/personalize/stockalerts/AAPL')).body).to.deep.equal([keep]);
    });

    it('answers 404 when the alert is already deleted or never was', async function () {
      const user = await gw.user();
      const alert = await createAlert(user, { symbol: 'AAPL', close: 190, alerttype: 'U' });
      await user.post(`/personalize/deletealert/${alert.id}`);
      expect((await user.post(`/personalize/deletealert/${alert.id}`)).status).to.equal(404);
      expect((await user.post('/personalize/deletealert/not-an-alert')).status).to.equal(404);
      expect(await events(user.username)).to.deep.equal(['AlertCreated', 'AlertDeleted']);
    });

    it('refuses an id longer than 100 characters naming params.id', async function () {
      const user = await gw.user();
      const res = await user.post(`/personalize/deletealert/${'x'.repeat(101)}`);
      expect(res.status).to.equal(400);
      expect((res.body as { message: string }).message).to.match(/^params\.id:/);
    });
  });

  describe('several at once', function () {
    type ActionAnswer = AlertsActionAnswer;
    const bulk = async (user: User, body: unknown, headers?: Record<string, string>): Promise<ActionAnswer> => {
      const res = await user.post('/personalize/stockalerts/bulk', body, headers);
      expect(res.status).to.equal(200, res.text);
      return res.body as ActionAnswer;
    };

    it('deletes several alerts in one append, answering those done in the order sent and why the rest were not', async function () {
      const user = await gw.user();
      const [a, b, c] = [
        await createAlert(user, { symbol: 'AAPL', close: 190, alerttype: 'U' }),
        await createAlert(user, { symbol: 'AAPL', close: 170, alerttype: 'D' }),
        await createAlert(user, { symbol: 'AAPL', close: 200, alerttype: 'U' }),
      ];
      const unknown = uuidV5('no-such-alert', STOCKPULSE_NAMESPACE);
      const answer = await bulk(user, { action: 'delete', ids: [c.id, unknown, a.id.toUpperCase()] });
      expect(answer).to.deep.equal({
        action: 'delete',
        done: [c.id, a.id],
        alerts: [],
        failed: [{ id: unknown, message: 'no such alert' }],
      });
      expect((await user.get('/personalize/stockalerts')).body).to.deep.equal([b]);
      const recorded = await gw.running.system.events.readStream(`alerts-${user.username}`);
      expect(recorded.map((e) => e.type)).to.deep.equal([
        'AlertCreated',
        'AlertCreated',
        'AlertCreated',
        'AlertDeleted',
        'AlertDeleted',
      ]);
      // One command, one append: both deletions carry the request's command id and are one commit apart at most.
      expect(new Set(recorded.slice(3).map((e) => e.metadata.commandId)).size).to.equal(1);
    });

    it("pauses and resumes several, answering them as they now are; a fired one and another user's are left", async function () {
      const user = await gw.user();
      const other = await gw.user();
      const fired = await createAlert(user, { symbol: 'AAPL', close: 190, alerttype: 'U' });
      await fire(user.username, fired);
      const x = await createAlert(user, { symbol: 'AAPL', condition: { op: 'greater_than', value: 10_000 } });
      const y = await createAlert(user, { symbol: 'AAPL', condition: { op: 'less_than', value: 1 } });
      const theirs = await createAlert(other, { symbol: 'AAPL', condition: { op: 'less_than', value: 2 } });
      const paused = await bulk(user, { action: 'pause', ids: [y.id, fired.id, x.id, theirs.id] });
      expect(paused.done).to.deep.equal([y.id, x.id]);
      expect(paused.alerts.map((alert) => [alert.id, alert.status])).to.deep.equal([
        [y.id, 'paused'],
        [x.id, 'paused'],
      ]);
      expect(paused.failed).to.deep.equal([
        { id: fired.id, message: 'the alert is triggered, not armed' },
        { id: theirs.id, message: 'no such alert' },
      ]);
      // Pausing a paused alert again is done, as its own route has it; resuming re-arms both.
      expect((await bulk(user, { action: ' Pause ', ids: [x.id] })).done).to.deep.equal([x.id]);
      const resumed = await bulk(user, { action: 'resume', ids: [x.id, y.id] });
      expect(resumed.alerts.map((alert) => alert.status)).to.deep.equal(['armed', 'armed']);
      expect(await events(other.username)).to.deep.equal(['AlertCreated']);
      expect(await events(user.username)).to.deep.equal([
        'AlertCreated',
        'AlertTriggered',
        'AlertCreated',
        'AlertCreated',
        'AlertPaused',
        'AlertPaused',
        'AlertResumed',
        'AlertResumed',
      ]);
    });

    it('appends nothing for a retried action with the same Idempotency-Key and answers the same', async function () {
      const user = await gw.user();
      const alert = await createAlert(user, { symbol: 'AAPL', close: 190, alerttype: 'U' });
      const headers = { 'Idempotency-Key': 'bulk-delete-1' };
      const first = await bulk(user, { action: 'delete', ids: [alert.id] }, headers);
      const retried = await bulk(user, { action: 'delete', ids: [alert.id] }, headers);
      expect(retried).to.deep.equal(first);
      expect(first.done).to.deep.equal([alert.id]);
      expect(await events(user.username)).to.deep.equal(['AlertCreated', 'AlertDeleted']);
    });

    it('answers any action body with each id done or failed once, in the order sent, or a 400 naming a field', async function () {
      this.timeout(120_000);
      const user = await gw.user();
      const mine = [
        await createAlert(user, { symbol: 'AAPL', condition: { op: 'greater_than', value: 10_000 } }),
        await createAlert(user, { symbol: 'AAPL', condition: { op: 'less_than', value: 1 } }),
      ].map((alert) => alert.id);
      // Mostly bodies of the right shape (so most runs act: ids of the user's alerts, of none, one in capitals), now
      // and then anything in a field or among the ids.
      const known = [
        ...mine,
        mine[0]!.toUpperCase(),
        ...[1, 2, 3, 4].map((n) => uuidV5(`nobody-${n}`, STOCKPULSE_NAMESPACE)),
      ];
      const odd = fc.oneof(
        fc.constantFrom('x', ' ', '__proto__', mine[1]!),
        fc.string({ maxLength: 120 }),
        fc.jsonValue({ maxDepth: 1 }),
      );
      const ids = fc.oneof(
        {
          arbitrary: fc.uniqueArray(fc.constantFrom(...known), {
            minLength: 1,
            maxLength: 6,
            selector: (v) => v.toLowerCase(),
          }),
          weight: 6,
        },
        { arbitrary: fc.array(fc.oneof(fc.constantFrom(...known), odd), { maxLength: 6 }), weight: 2 },
        { arbitrary: fc.jsonValue({ maxDepth: 1 }), weight: 1 },
      );
      const action = fc.oneof(
        { arbitrary: fc.constantFrom('delete', 'pause', 'resume'), weight: 6 },
        { arbitrary: fc.oneof(fc.constantFrom('PAUSE', ''), fc.jsonValue({ maxDepth: 1 })), weight: 1 },
      );
      const body = fc.oneof(
        { arbitrary: fc.record({ action, ids }), weight: 6 },
        { arbitrary: fc.record({ action: fc.jsonValue(), ids: fc.jsonValue() }, { requiredKeys: [] }), weight: 1 },
      );
      let acted = 0;
      await fc.assert(
        fc.asyncProperty(body, async (sent) => {
          const res = await user.post('/personalize/stockalerts/bulk', sent);
          if (res.status === 400) {
            expect((res.body as { message: string }).message).to.match(/^body(\.(action|ids)|\.ids\[\d+\])?:/);
            return;
          }
          expect(res.status, res.text).to.equal(200);
          const answer = res.body as AlertsActionAnswer;
          const ids = (sent as { ids: string[] }).ids.map((one) => one.trim().toLowerCase());
          const told = [...answer.done, ...answer.failed.map((f) => f.id.trim().toLowerCase())];
          expect([...told].sort()).to.deep.equal([...ids].sort());
          expect(answer.done).to.deep.equal(ids.filter((one) => answer.done.includes(one)));
          acted += 1;
          // A deleted alert stays deleted: later runs find it gone ("no such alert"), as a user would.
        }),
        { numRuns: 60 },
      );
      expect(acted, 'runs answered 200').to.be.above(10);
    });

    for (const [what, body, message] of [
      ['an empty list', { action: 'delete', ids: [] }, 'body.ids: must name at least one alert'],
      ['an alert listed twice', { action: 'pause', ids: ['a', 'b', 'A'] }, 'body.ids[2]: is ids[0] again'],
      ['an unknown action', { action: 'archive', ids: ['a'] }, 'body.action: must be one of delete, pause, resume'],
      ['an action that is not text', { action: 1, ids: ['a'] }, 'body.action: must be one of delete, pause, resume'],
      ['no list', { action: 'delete' }, 'body.ids:'],
      [
        `${ALERTS_LIMIT + 1} alerts`,
        { action: 'delete', ids: Array.from({ length: ALERTS_LIMIT + 1 }, (_, k) => `id-${k}`) },
        `body.ids: must name at most ${ALERTS_LIMIT} alerts`,
      ],
    ] as const) {
      it(`refuses ${what} with 400 naming the field, appending nothing`, async function () {
        const user = await gw.user();
        await createAlert(user, { symbol: 'AAPL', close: 190, alerttype: 'U' });
        const res = await user.post('/personalize/stockalerts/bulk', body);
        expect(res.status).to.equal(400, res.text);
        expect((res.body as { message: string }).message).to.satisfy((m: string) => m.startsWith(message));
        expect(await events(user.username)).to.deep.equal(['AlertCreated']);
      });
    }
  });

  it('never shows one user the alerts of another, nor lets them change or delete them', async function () {
    const ada = await gw.user('ada');
    const bob = await gw.user('bob');
    const adas = await createAlert(ada, { symbol: 'AAPL', close: 190, alerttype: 'U' });
    const bobs = await createAlert(bob, { symbol: 'AAPL', close: 150, alerttype: 'D' });
    expect((await ada.get('/personalize/stockalerts/AAPL')).body).to.deep.equal([adas]);
    expect((await bob.get('/personalize/stockalerts')).body).to.deep.equal([bobs]);
    expect((await bob.post(`/personalize/deletealert/${adas.id}`)).status).to.equal(404);
    const update = { symbol: 'AAPL', close: 1, alerttype: 'U', id: adas.id, update: true };
    expect((await bob.post('/personalize/stockalerts', update)).status).to.equal(404);
    expect(await events(ada.username)).to.deep.equal(['AlertCreated']);
    expect(await events(bob.username)).to.deep.equal(['AlertCreated']);
    expect((await ada.get('/personalize/stockalerts')).body).to.deep.equal([adas]);
  });

  describe('retries', function () {
    it('appends nothing for a retried create with the same Idempotency-Key and answers the same', async function () {
      const user = await gw.user();
      const headers = { 'Idempotency-Key': 'alert-aapl-190' };
      const body = { symbol: 'AAPL', close: 190, alerttype: 'U' };
      const first = await user.post('/personalize/stockalerts', body, headers);
      const retried = await user.post('/personalize/stockalerts', body, headers);
      expect(retried.status).to.equal(200);
      expect(retried.body).to.deep.equal(first.body);
      expect(await events(user.username)).to.deep.equal(['AlertCreated']);
    });

    it('appends nothing for a retried delete with the same Idempotency-Key and answers the same', async function () {
      const user = await gw.user();
      const alert = await createAlert(user, { symbol: 'AAPL', close: 190, alerttype: 'U' });
      const headers = { 'Idempotency-Key': 'delete-1' };
      const first = await user.post(`/personalize/deletealert/${alert.id}`, undefined, headers);
      const retried = await user.post(`/personalize/deletealert/${alert.id}`, undefined, headers);
      expect(retried.status).to.equal(200);
      expect(retried.body).to.deep.equal(first.body);
      expect(await events(user.username)).to.deep.equal(['AlertCreated', 'AlertDeleted']);
    });
  });

  describe('firing (the engine side)', function () {
    it('marks a fired alert triggered; a later tick across the threshold appends nothing', async function () {
      const user = await gw.user();
      const alert = await createAlert(user, { symbol: 'AAPL', close: 190, alerttype: 'U' });
      const ts = Date.now();
      const [trigger, ...more] = await fire(user.username, alert, ts);
      expect(more).to.deep.equal([]);
      expect(trigger!.event.data).to.include({ alertId: alert.id, price: 191.5, at: new Date(ts).toISOString() });
      expect(await fire(user.username, alert, Date.now())).to.deep.equal([]);
      expect(await events(user.username)).to.deep.equal(['AlertCreated', 'AlertTriggered']);
      expect(((await user.get('/personalize/stockalerts')).body as AlertAnswer[])[0]!.status).to.equal('triggered');
    });

    it('records the notification text with the sign of the direction', async function () {
      const user = await gw.user();
      // The price falls below the threshold while it is still up on the day.
      const prevClose = gw.running.system.liveQuotes!.quote('AAPL')!.prevClose!;
      const threshold = Math.round(prevClose * 101) / 100;
      const alert = await createAlert(user, { symbol: 'AAPL', close: threshold, alerttype: 'D' });
      const price = Math.round(prevClose * 100.4) / 100;
      const triggers = (await gw.pushTicks([{ symbol: 'AAPL', price }])).filter((t) => t.userId === user.username);
      expect(triggers.map((t) => t.event.data.alertId)).to.deep.equal([alert.id]);
      const changepct = triggers[0]!.event.data.changepct;
      expect(changepct).to.be.closeTo(0.4, 0.01);
      const recorded = await gw.running.system.events.readStream(`alerts-${user.username}`);
      const data = recorded.at(-1)!.data as { message: string; notificationtype: number };
      expect(data).to.include({
        message: `AAPL fell below ${threshold.toFixed(2)}: ${price.toFixed(2)} (-, though up ${changepct.toFixed(2)}% on the day)`,
        notificationtype: 1,
      });
      expect(recorded.at(-1)!.metadata).to.include({ actor: 'engine', userId: user.username });
    });
  });

  describe('conditions', function () {
    it('creates a channel alert repeating once per bar, with an expiry, and answers it in words', async function () {
      const user = await gw.user();
      const expires = new Date(Date.now() + 86_400_000).toISOString();
      const alert = await createAlert(user, {
        symbol: 'aapl',
        condition: { op: 'ENTERING_CHANNEL', lower: 180.005, upper: 190 },
        frequency: 'once_per_bar',
        expires,
      });
      expect(alert).to.deep.include({
        symbol: 'AAPL',
        kind: 'CONDITION',
        threshold: null,
        alerttype: null,
        status: 'armed',
        frequency: 'once_per_bar',
        expires,
        lastfired: null,
        triggercount: 0,
        conditiontext: 'Price enters the channel 180.01 – 190.00',
      });
      expect(alert.condition).to.deep.equal({
        op: 'entering_channel',
        source: 'price',
        value: null,
        lower: 180.01,
        upper: 190,
        bars: null,
      });
    });

    it('takes a price crossing its 50-day SMA, sent as a condition, for the older SMA alert it is', async function () {
      const user = await gw.user();
      const alert = await createAlert(user, {
        symbol: 'AAPL',
        condition: { op: 'crossing_up', value: { ref: 'SMA:50' } },
      });
      expect(alert).to.deep.include({ kind: 'SMA', alerttype: 'U', period: 50, frequency: 'once' });
      expect(alert.conditiontext).to.equal('Price crosses above the 50-day SMA');
    });

    it('pauses and resumes an alert; pausing twice changes nothing; resuming re-arms it', async function () {
      const user = await gw.user();
      const alert = await createAlert(user, { symbol: 'AAPL', condition: { op: 'greater_than', value: 10_000 } });
      const paused = await user.post(`/personalize/stockalerts/${alert.id}/pause`);
      expect(paused.status).to.equal(200, paused.text);
      expect((paused.body as AlertAnswer).status).to.equal('paused');
      expect((await user.post(`/personalize/stockalerts/${alert.id}/pause`)).status).to.equal(200);
      const resumed = await user.post(`/personalize/stockalerts/${alert.id}/resume`);
      expect((resumed.body as AlertAnswer).status).to.equal('armed');
      expect(await events(user.username)).to.deep.equal(['AlertCreated', 'AlertPaused', 'AlertResumed']);
      expect(((await user.get('/personalize/stockalerts')).body as AlertAnswer[])[0]!.status).to.equal('armed');
    });

    it('refuses to pause a fired once alert (409) and answers 404 for an unknown one', async function () {
      const user = await gw.user();
      const alert = await createAlert(user, { symbol: 'AAPL', close: 190, alerttype: 'U' });
      await fire(user.username, alert);
      const res = await user.post(`/personalize/stockalerts/${alert.id}/pause`);
      expect(res.status).to.equal(409, res.text);
      expect((res.body as { message: string }).message).to.equal('params.id: the alert is triggered, not armed');
      const unknown = uuidV5('no-such-alert', STOCKPULSE_NAMESPACE);
      expect((await user.post(`/personalize/stockalerts/${unknown}/resume`)).status).to.equal(404);
      expect((await user.get(`/personalize/stockalerts/${unknown}/history`)).status).to.equal(404);
    });

    it("lists an alert's firings newest first, and never another user's", async function () {
      const user = await gw.user();
      const alert = await createAlert(user, { symbol: 'AAPL', close: 190, alerttype: 'U' });
      const ts = Date.now();
      await fire(user.username, alert, ts);
      const rearmed = await createAlert(user, {
        symbol: 'AAPL',
        close: 195,
        alerttype: 'U',
        id: alert.id,
        update: true,
      });
      // Stamped now, in sequence with the suite's other ticks (stamped on arrival): a tick older than those would
      // be a late report, which fires nothing.
      const later = Math.max(Date.now(), ts + 1);
      await fire(user.username, rearmed, later);
      const res = await user.get(`/personalize/stockalerts/${alert.id}/history`);
      expect(res.status).to.equal(200, res.text);
      const history = res.body as { at: string; price: number; value: number; message: string }[];
      expect(history.map((h) => [h.at, h.price, h.value])).to.deep.equal([
        [new Date(later).toISOString(), 196.5, 196.5],
        [new Date(ts).toISOString(), 191.5, 191.5],
      ]);
      expect(history[0]!.message).to.match(/^AAPL rose above 195\.00/);
      const other = await gw.user();
      expect((await other.get(`/personalize/stockalerts/${alert.id}/history`)).status).to.equal(404);
    });

    it('keeps a note with the alert and each of its firings: the list, the bell, the history; an update may clear it', async function () {
      const user = await gw.user();
      const note = 'Take half off at 200 — stop 185';
      const alert = await createAlert(user, { symbol: 'AAPL', close: 190, alerttype: 'U', note: `  ${note} ` });
      expect(alert.note).to.equal(note);
      const [trigger] = await fire(user.username, alert, Date.now());
      expect(trigger!.event.data.note).to.equal(note);
      const notifications = (await user.get('/personalize/usernotifications/ALL')).body as { note: string | null }[];
      expect(notifications.map((n) => n.note)).to.deep.equal([note]);
      const history = (await user.get(`/personalize/stockalerts/${alert.id}/history`)).body as { note: unknown }[];
      expect(history.map((h) => h.note)).to.deep.equal([note]);
      // An update that leaves the note out keeps it; one that sends null clears it.
      const kept = await createAlert(user, { symbol: 'AAPL', close: 195, alerttype: 'U', id: alert.id, update: true });
      expect(kept.note).to.equal(note);
      const cleared = await createAlert(user, {
        symbol: 'AAPL',
        close: 195,
        alerttype: 'U',
        id: alert.id,
        update: true,
        note: null,
      });
      expect(cleared.note).to.equal(null);
      const listed = (await user.get('/personalize/stockalerts')).body as AlertAnswer[];
      expect(listed.map((a) => a.note)).to.deep.equal([null]);
    });

    const badConditions: [string, Record<string, unknown>, string][] = [
      ['an unknown operator', { condition: { op: 'crossing_sideways', value: 1 } }, 'body.condition.op:'],
      ['a channel without upper', { condition: { op: 'inside_channel', lower: 1 } }, 'body.condition.upper:'],
      ['a channel upside down', { condition: { op: 'inside_channel', lower: 5, upper: 1 } }, 'body.condition.upper:'],
      [
        'an unknown source',
        { condition: { op: 'greater_than', source: 'sma:33', value: 1 } },
        'body.condition.source:',
      ],
      ['a bad reference', { condition: { op: 'crossing', value: { ref: 'macd' } } }, 'body.condition.value.ref:'],
      ['bars on a level operator', { condition: { op: 'crossing', value: 3, bars: 2 } }, 'body.condition.bars:'],
      ['a window too long', { condition: { op: 'moving_up', value: 3, bars: 10_000 } }, 'body.condition.bars:'],
      ['a price level of 0', { condition: { op: 'less_than', value: 0 } }, 'body.condition.value:'],
      ['a condition that is a string', { condition: 'price > 3' }, 'body.condition:'],
      [
        'an RSI level above 100',
        { condition: { op: 'greater_than', source: 'rsi:14', value: 101 } },
        'body.condition.value:',
      ],
      [
        'the older threshold sent with a condition',
        { condition: { op: 'crossing', value: 3 }, close: 5, alerttype: 'U' },
        'body.close:',
      ],
      ['an unknown frequency', { condition: { op: 'crossing', value: 3 }, frequency: 'hourly' }, 'body.frequency:'],
      ['an expiry that is no time', { condition: { op: 'crossing', value: 3 }, expires: 'soon' }, 'body.expires:'],
      [
        'an expiry in the past',
        { condition: { op: 'crossing', value: 3 }, expires: '2001-01-01T00:00:00Z' },
        'body.expires:',
      ],
      // Refused by the alerts' rules rather than the body's shape: named all the same, as the body has it.
      ['a price level under a cent', { condition: { op: 'crossing', value: 0.004 } }, 'body.condition.value:'],
      ['a move in dollars under a cent', { condition: { op: 'moving_down', value: 0.004 } }, 'body.condition.value:'],
      [
        'an RSI compared with the price',
        { condition: { op: 'less_than', source: 'rsi:14', value: { ref: 'price' } } },
        'body.condition.value:',
      ],
      [
        'a price compared with the RSI',
        { condition: { op: 'greater_than', value: { ref: 'rsi:14' } } },
        'body.condition.value.ref:',
      ],
      [
        'an SMA compared with itself written with a leading zero',
        { condition: { op: 'greater_than', source: 'sma:50', value: { ref: 'sma:050' } } },
        'body.condition.value.ref:',
      ],
      [
        'an expiry on a day that does not exist',
        { condition: { op: 'crossing', value: 3 }, expires: '2099-02-30T00:00:00Z' },
        'body.expires:',
      ],
      [
        'an expiry without its zone',
        { condition: { op: 'crossing', value: 3 }, expires: '2099-02-01T00:00:00' },
        'body.expires:',
      ],
      ['a note that is not text', { condition: { op: 'crossing', value: 3 }, note: 42 }, 'body.note:'],
      ['a note too long', { condition: { op: 'crossing', value: 3 }, note: 'x'.repeat(201) }, 'body.note:'],
      ['a note of two lines', { condition: { op: 'crossing', value: 3 }, note: 'buy\nsell' }, 'body.note:'],
      [
        'channel bounds that meet once kept to the cent',
        { condition: { op: 'inside_channel', lower: 1.001, upper: 1.004 } },
        'body.condition.upper:',
      ],
      // A misspelt field would otherwise make an alert other than the one meant (here one that fires once).
      [
        'a field of no condition',
        { condition: { op: 'less_than', sorce: 'rsi:14', value: 30 } },
        'body.condition.sorce: is not a field of a condition (op, source, value, lower, upper, bars)',
      ],
      [
        'a window misspelt',
        { condition: { op: 'moving_up', value: 5, bar: 3 } },
        'body.condition.bar: is not a field of a condition',
      ],
      [
        'a field of no alert',
        { condition: { op: 'crossing', value: 3 }, frequncy: 'every_time' },
        'body.frequncy: is not a field of this request',
      ],
    ];
    for (const [what, body, field] of badConditions) {
      it(`refuses ${what} with 400 naming ${field.replace(/:$/, '')}, appending nothing`, async function () {
        const user = await gw.user();
        const res = await user.post('/personalize/stockalerts', { symbol: 'AAPL', ...body });
        expect(res.status).to.equal(400, res.text);
        const message = (res.body as { message: string }).message;
        expect(message.startsWith(field), message).to.equal(true);
        expect(await events(user.username)).to.deep.equal([]);
      });
    }

    it('answers any alert body, made or changed, with the alert or a 4xx naming a field of the request', async function () {
      this.timeout(180_000);
      const user = await gw.user();
      const kept = await createAlert(user, { symbol: 'AAPL', condition: { op: 'crossing', value: 150 } });
      const odd = fc.oneof(
        fc.constantFrom(
          null,
          true,
          0,
          -1,
          1e308,
          5e-324,
          '',
          '1e309',
          'NaN',
          '\u0000',
          '__proto__',
          'sma:7',
          'x'.repeat(300),
        ),
        fc.jsonValue({ maxDepth: 2 }),
        fc.double(),
      );
      const level = fc.oneof(
        fc.double({ min: -200, max: 2000, noNaN: true }),
        // Mostly the series a level in dollars may be; RSI, volume and change, which no level may be, now and then.
        fc
          .constantFrom('sma:20', 'sma:50', 'sma:200', 'ema:12', 'ema:26', 'price', 'rsi:14', 'volume', 'changepct')
          .map((ref) => ({ ref })),
      );
      const condition = fc
        .record({
          op: fc.constantFrom(...ALERT_OPS),
          source: fc.constantFrom('price', 'sma:50', 'sma:200', 'ema:2', 'ema:200', 'rsi:14', 'volume', 'changepct'),
          a: level,
          b: fc.double({ min: -200, max: 2000, noNaN: true }),
          bars: fc.option(fc.integer({ min: 0, max: 250 })),
        })
        .map(({ op, source, a, b, bars }) =>
          op.endsWith('_channel')
            ? { op, source, lower: a, upper: b }
            : op.startsWith('moving')
              ? { op, source, value: typeof a === 'number' ? Math.abs(a) : a, bars }
              : { op, source, value: a },
        );
      const body = fc
        .tuple(
          fc.record({
            symbol: fc.constantFrom('AAPL', 'MSFT'),
            condition,
            frequency: fc.constantFrom(...ALERT_FREQUENCIES),
            expires: fc.constantFrom(null, '2100-01-01T00:00:00Z', '2001-01-01T00:00:00Z'),
            note: fc.option(fc.string({ maxLength: 220 })),
          }),
          // Up to two fields (of the body or its condition) replaced by anything.
          fc.array(
            fc.tuple(
              fc.constantFrom(
                'symbol',
                'condition',
                'frequency',
                'expires',
                'note',
                'id',
                'update',
                'close',
                'op',
                'source',
                'value',
                'lower',
                'upper',
                'bars',
              ),
              odd,
            ),
            { maxLength: 2 },
          ),
          fc.boolean(),
        )
        .map(([b, changes, update]) => {
          const out: Record<string, unknown> = { ...b, condition: { ...b.condition } };
          for (const [field, value] of changes) {
            const top = ['symbol', 'condition', 'frequency', 'expires', 'id', 'update', 'close'].includes(field);
            if (top) out[field] = value;
            else if (typeof out.condition === 'object' && out.condition !== null) {
              (out.condition as Record<string, unknown>)[field] = value;
            }
          }
          // An update names its alert's symbol (another is refused, see above) unless a change replaced it.
          if (update && out.symbol === b.symbol) out.symbol = kept.symbol;
          return update ? { id: kept.id, update: true, ...out } : out;
        });
      const named = /^(body|params)(\.[A-Za-z_]+|\[\d+\])*: /;
      let made = 0;
      let refused = 0;
      await fc.assert(
        fc.asyncProperty(body, async (sent) => {
          const before = (await events(user.username)).length;
          const res = await user.post('/personalize/stockalerts', sent);
          const after = (await events(user.username)).length;
          if (res.status === 200) {
            made += 1;
            const alert = res.body as AlertAnswer;
            expect(after, res.text).to.equal(before + 1);
            if (alert.id !== kept.id) {
              expect((await user.post(`/personalize/deletealert/${alert.id}`)).status).to.equal(200);
            }
            return;
          }
          refused += 1;
          expect(res.status, `${JSON.stringify(sent)} -> ${res.text}`).to.be.within(400, 499);
          expect((res.body as { message: string }).message, JSON.stringify(sent)).to.match(named);
          expect(after, res.text).to.equal(before);
        }),
        { numRuns: 220, seed: 20261129 },
      );
      // Both sides of the property were seen.
      expect(made).to.be.above(10);
      expect(refused).to.be.above(10);
    });
  });

  const badInputs: [string, { raw?: string; body?: unknown }, number, string][] = [
    ['a missing symbol', { body: { close: 190, alerttype: 'U' } }, 400, 'body.symbol'],
    ['a symbol breaking the rule', { body: { symbol: 'BAD SYMBOL!', close: 190, alerttype: 'U' } }, 400, 'body.symbol'],
    ['a symbol outside the universe', { body: { symbol: 'ZZZZZZ', close: 190, alerttype: 'U' } }, 400, 'body.symbol'],
    ['a letter upper-cased to I', { body: { symbol: 'ıbm', close: 190, alerttype: 'U' } }, 400, 'body.symbol'],
    ['a missing direction', { body: { symbol: 'AAPL', close: 190 } }, 400, 'body.alerttype'],
    ['an unknown direction', { body: { symbol: 'AAPL', close: 190, alerttype: 'X' } }, 400, 'body.alerttype'],
    ['a price alert without close', { body: { symbol: 'AAPL', alerttype: 'U' } }, 400, 'body.close'],
    ['a threshold of 0', { body: { symbol: 'AAPL', close: 0, alerttype: 'U' } }, 400, 'body.close'],
    ['a negative threshold', { body: { symbol: 'AAPL', close: -5, alerttype: 'U' } }, 400, 'body.close'],
    ['a threshold under a cent', { body: { symbol: 'AAPL', close: 0.004, alerttype: 'U' } }, 400, 'body.close'],
    ['an infinite threshold', { raw: '{"symbol":"AAPL","close":1e400,"alerttype":"U"}' }, 400, 'body.close'],
    [
      'a threshold above 1,000,000',
      { body: { symbol: 'AAPL', close: 1_000_000.01, alerttype: 'U' } },
      400,
      'body.close',
    ],
    ['a threshold as text', { body: { symbol: 'AAPL', close: '190', alerttype: 'U' } }, 400, 'body.close'],
    ['an unknown kind', { body: { symbol: 'AAPL', close: 190, alerttype: 'U', kind: 'RSI' } }, 400, 'body.kind'],
    ['an SMA alert without period', { body: { symbol: 'AAPL', alerttype: 'U', kind: 'SMA' } }, 400, 'body.period'],
    ['an SMA period of 30', { body: { symbol: 'AAPL', alerttype: 'U', kind: 'SMA', period: 30 } }, 400, 'body.period'],
    ['update without an id', { body: { symbol: 'AAPL', close: 190, alerttype: 'U', update: true } }, 400, 'body.id'],
    ['update as text', { body: { symbol: 'AAPL', close: 190, alerttype: 'U', update: 'yes' } }, 400, 'body.update'],
    [
      'an id of 101 characters',
      { body: { symbol: 'AAPL', close: 1, alerttype: 'U', id: 'x'.repeat(101) } },
      400,
      'body.id',
    ],
    ['a list instead of an alert', { body: [{ symbol: 'AAPL', close: 190, alerttype: 'U' }] }, 400, 'body'],
    ['invalid JSON', { raw: '{"symbol":"AAPL"' }, 400, 'body'],
  ];
  for (const [what, input, status, field] of badInputs) {
    it(`refuses ${what} with ${status} naming ${field}, appending nothing`, async function () {
      const user = await gw.user();
      const res = await user.postInput('/personalize/stockalerts', input);
      expect(res.status).to.equal(status, res.text);
      const message = (res.body as { message: string }).message;
      expect(message.startsWith(field), message).to.equal(true);
      expect(await events(user.username)).to.deep.equal([]);
    });
  }

  it(`refuses alert number ${ALERTS_LIMIT + 1} of a user, appending nothing, and deletes all in one request`, async function () {
    this.timeout(60_000);
    const user = await gw.user();
    const at = new Date().toISOString();
    for (let i = 0; i < ALERTS_LIMIT; i++) {
      const command: AlertsCommand = {
        type: 'CreateAlert',
        data: {
          alertId: uuidV5(`limit-${user.username}-${i}`, STOCKPULSE_NAMESPACE),
          symbol: 'AAPL',
          kind: 'PRICE',
          alerttype: 'U',
          threshold: 100 + i,
          period: null,
          at,
        },
      };
      await commands.execute({ concern: 'alerts', decider: alertsDecider }, command, {
        commandId: `seed-${i}`,
        userId: user.username,
        at,
        actor: `user:${user.username}`,
      });
    }
    const res = await user.post('/personalize/stockalerts', { symbol: 'AAPL', close: 190, alerttype: 'U' });
    expect(res.status).to.equal(400, res.text);
    expect(res.body).to.deep.include({ error: 'limit' });
    expect((res.body as { message: string }).message).to.contain(`at most ${ALERTS_LIMIT}`);
    expect(await events(user.username)).to.have.length(ALERTS_LIMIT);
    const all = (await user.get('/personalize/stockalerts')).body as AlertAnswer[];
    expect(all).to.have.length(ALERTS_LIMIT);
    // All of them deleted in one request.
    const deleted = await user.post('/personalize/stockalerts/bulk', { action: 'delete', ids: all.map((a) => a.id) });
    expect(deleted.status).to.equal(200, deleted.text);
    expect((deleted.body as AlertsActionAnswer).done).to.have.length(ALERTS_LIMIT);
    expect((await user.get('/personalize/stockalerts')).body).to.deep.equal([]);
  });

  it('refuses every alert route without a session', async function () {
    const anonymous = gw.client();
    expect((await anonymous.get('/personalize/stockalerts')).status).to.equal(401);
    expect((await anonymous.get('/personalize/stockalerts/AAPL')).status).to.equal(401);
    expect(
      (await anonymous.post('/personalize/stockalerts', { symbol: 'AAPL', close: 1, alerttype: 'U' })).status,
    ).to.equal(401);
    expect((await anonymous.post(`/personalize/deletealert/${uuidV5('x', STOCKPULSE_NAMESPACE)}`)).status).to.equal(
      401,
    );
    const bulk = { action: 'delete', ids: [uuidV5('x', STOCKPULSE_NAMESPACE)] };
    expect((await anonymous.post('/personalize/stockalerts/bulk', bulk)).status).to.equal(401);
  });

  it('keeps the alerts and their status across a restart', async function () {
    const gw2 = await startTestGateway();
    const user = await gw2.user();
    const alert = await createAlert(user, { symbol: 'AAPL', close: 190, alerttype: 'U' });
    const dataDir = gw2.dataDir;
    await gw2.close({ keepData: true });
    const restarted = await startTestGateway({ dataDir });
    const again = restarted.client();
    for (const [k, v] of user.cookies) again.cookies.set(k, v);
    expect((await again.get('/personalize/stockalerts/AAPL')).body).to.deep.equal([alert]);
    await restarted.close();
  });
});
