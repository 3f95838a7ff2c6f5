import { expect } from 'chai';
import { io as connect, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, NotificationPush, ServerToClientEvents } from '../../domain/contract/socket.ts';
import type { Quote } from '../../domain/market/types.ts';
import { comparePositions, parsePosition } from '../../platform/eventstore/port.ts';
import { alertsProjection } from '../../projections/alerts/alerts.projection.ts';
import { notificationsProjection } from '../../projections/notifications/notifications.projection.ts';
import { startTestGateway, type TestClient, type TestGateway } from '../testing/harness.ts';

type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

interface ListedNotification {
  readonly id: string;
  readonly symbol: string;
}

function socketOf(url: string, client: TestClient): ClientSocket {
  const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  return connect(url, { transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: { cookie } });
}

/** Resolves once the socket is connected; rejects when it is refused. */
function connected(socket: ClientSocket): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
}

/** The trading days of the next `count` triggers the gateway's engine reports. */
function nextTriggerDays(gw: TestGateway, count: number): Promise<string[]> {
  return new Promise((resolve) => {
    const days: string[] = [];
    const stop = gw.running.system.engine!.onTrigger((trigger) => {
      days.push(trigger.event.data.day ?? '');
      if (days.length < count) return;
      stop();
      resolve(days);
    });
  });
}

describe('alerts on the simulated market (npm start defaults, accelerated clock)', function () {
  this.timeout(90_000);

  it('fires an alert set just above the price as the simulated price crosses it, once, and keeps it after a restart', async function () {
    const env = { TICK_SOURCE: 'simulator', MARKET_CLOCK: 'accelerated:1' };
    const gw = await startTestGateway({ env });
    let dataKept = false;
    try {
      const user = await gw.user('sim');
      const socket = socketOf(gw.url, user);
      const pushed: NotificationPush[] = [];
      // The notification list is a projection of the log: it includes a push once its commit is announced.
      const listedUpTo: string[] = [];
      const announced: (() => void)[] = [];
      socket.on('readmodel:changed', (change) => {
        if (change.name !== notificationsProjection.name) return;
        listedUpTo.push(change.position);
        for (const wake of announced.splice(0)) wake();
      });
      const includes = (position: string): boolean =>
        listedUpTo.some((p) => comparePositions(parsePosition(p)!, parsePosition(position)!) >= 0);
      const listed = (position: string): Promise<void> =>
        new Promise<void>(function check(resolve) {
          if (includes(position)) resolve();
          else announced.push(() => check(resolve));
        });
      const firstPush = new Promise<void>((resolve) =>
        socket.on('notification', (n) => {
          pushed.push(n);
          resolve();
        }),
      );
      await connected(socket);
      // One cent above the price: a random walk in $0.01 steps crosses it within a few ticks.
      const symbols = ['AAPL', 'MSFT', 'NVDA', 'AMZN', 'TSLA'];
      const quotes = (await user.get(`/api/quotes?symbols=${symbols.join(',')}`)).body as Quote[];
      for (const quote of quotes) {
        const threshold = Math.round(quote.price * 100 + 1) / 100;
        const created = await user.post('/personalize/stockalerts', {
          symbol: quote.symbol,
          close: threshold,
          alerttype: 'U',
        });
        expect(created.status).to.equal(200, created.text);
      }
      await firstPush;
      expect(pushed.length, 'a notification pushed on the socket').to.be.greaterThan(0);
      const first = pushed[0]!;
      expect(symbols).to.include(first.symbol);
      expect(first.notificationtype).to.equal(1);
      expect(first.notifcationmessage).to.include('+');
      await listed(first.position);
      socket.disconnect();

      const list = (await user.get('/personalize/usernotifications/ALL')).body as ListedNotification[];
      expect(list.filter((n) => n.id === first.id)).to.have.length(1);

      await gw.close({ keepData: true });
      dataKept = true;
      const again = await startTestGateway({ dataDir: gw.dataDir, env });
      try {
        const client = again.client();
        const login = await client.post('/api/login', { username: user.username, password: 'correct horse' });
        expect(login.status).to.equal(200);
        const after = (await client.get('/personalize/usernotifications/ALL')).body as ListedNotification[];
        expect(after.filter((n) => n.id === first.id)).to.have.length(1);
        expect(new Set(after.map((n) => n.id)).size).to.equal(after.length);
      } finally {
        await again.close();
      }
    } finally {
      if (!dataKept) await gw.close();
    }
  });

  it('fires a once-per-bar alert again in the next demo session, a trading day of its own', async function () {
    // Sessions of three seconds: the condition holds all along, so it fires once in each session.
    const gw = await startTestGateway({ env: { TICK_SOURCE: 'simulator', MARKET_CLOCK: 'accelerated:0.05' } });
    try {
      const user = await gw.user('bars');
      const socket = socketOf(gw.url, user);
      const pushed: NotificationPush[] = [];
      // Two firings pushed, and the history (a projection of the log) holding the second: its commit announced.
      const projected: string[] = [];
      let done: () => void = () => undefined;
      const twice = new Promise<void>((resolve) => (done = resolve));
      const check = (): void => {
        const second = pushed[1]?.position;
        if (second === undefined) return;
        if (projected.some((p) => comparePositions(parsePosition(p)!, parsePosition(second)!) >= 0)) done();
      };
      socket.on('readmodel:changed', (change) => {
        if (change.name !== alertsProjection.name) return;
        projected.push(change.position);
        check();
      });
      socket.on('notification', (n) => {
        pushed.push(n);
        check();
      });
      await connected(socket);
      const created = await user.post('/personalize/stockalerts', {
        symbol: 'AAPL',
        condition: { op: 'greater_than', value: 1 },
        frequency: 'once_per_bar',
      });
      expect(created.status).to.equal(200, created.text);
      const { id } = created.body as { id: string };
      await twice;
      socket.disconnect();
      const history = (await user.get(`/personalize/stockalerts/${id}/history`)).body as { id: string }[];
      expect(history.length, 'fired in two sessions').to.be.at.least(2);
      expect(new Set(history.map((h) => h.id)).size).to.equal(history.length);
      expect(pushed.every((n) => n.symbol === 'AAPL')).to.equal(true);
    } finally {
      await gw.close();
    }
  });

  it('goes on with new trading days after a restart: a once-per-bar alert fires again, on no date it fired before', async function () {
    const env = { TICK_SOURCE: 'simulator', MARKET_CLOCK: 'accelerated:0.05' };
    const gw = await startTestGateway({ env });
    let dataKept = false;
    try {
      const user = await gw.user('restart');
      const before = nextTriggerDays(gw, 2);
      const created = await user.post('/personalize/stockalerts', {
        symbol: 'AAPL',
        condition: { op: 'greater_than', value: 1 },
        frequency: 'once_per_bar',
      });
      expect(created.status).to.equal(200, created.text);
      const days = await before;
      expect(days[1]! > days[0]!, `two sessions: ${days.join(', ')}`).to.equal(true);
      await gw.close({ keepData: true });
      dataKept = true;
      // Restarted on the same data: its sessions are dated after those of the run before, so the alert's first
      // firing is a new trigger, where one on a date of before would be the log's (a replay, notifying nobody).
      const again = await startTestGateway({ dataDir: gw.dataDir, env });
      try {
        const [next] = await nextTriggerDays(again, 1);
        expect(next! > days[1]!, `${next} after ${days[1]}`).to.equal(true);
        expect(again.running.system.engine!.alerts.stats().triggers.replayed, 'firings on a date of before').to.equal(
          0,
        );
      } finally {
        await again.close();
      }
    } finally {
      if (!dataKept) await gw.close();
    }
  });
});
