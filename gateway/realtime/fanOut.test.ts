import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { io as connect, type Socket as ClientSocket } from 'socket.io-client';
import type { AlertTriggeredData } from '../../domain/alerts/alerts.ts';
import type { NotificationPush, ReadModelChange } from '../../domain/contract/socket.ts';
import type { EngineTrigger } from '../../engine/alerts/alertEngine.ts';
import type { DocumentWrite } from '../../platform/readmodels/port.ts';
import type { ReadModelCommitListener } from '../../projections/index.ts';
import { priceAlertTriggered } from '../../projections/testing/events.ts';
import { startFanOut } from './fanOut.ts';
import { userRoom, type RealtimeServer } from './server.ts';

/** A trigger of `userId`'s alert, as the engine reports it once its `AlertTriggered` is durable. */
function trigger(userId: string, commit: number): EngineTrigger {
  const appended = priceAlertTriggered(userId, `alert-${userId}`, 101, '2026-03-02T15:00:00.000Z');
  return {
    userId,
    eventId: `event-${userId}-${commit}`,
    event: { type: 'AlertTriggered', data: appended.data as AlertTriggeredData },
    position: { commit, prepare: commit },
  };
}

const write = (key: string): DocumentWrite => ({ collection: 'alerts', key, doc: { alerts: [] } });

describe('fan-out to the sockets', function () {
  let server: http.Server;
  let io: RealtimeServer;
  let url: string;
  let emitTrigger: (trigger: EngineTrigger) => void = () => undefined;
  let emitCommit: ReadModelCommitListener = () => undefined;
  let stop: () => void;
  /** The packets the server's adapter was asked to broadcast, by event name. */
  let broadcasts: string[];
  const clients: ClientSocket[] = [];

  beforeEach(async function () {
    server = http.createServer();
    io = new Server(server);
    // Each socket says which user it is; the server joins it to that user's room, as the gateway's handshake does.
    io.on('connection', (socket) => {
      socket.data.userId = String(socket.handshake.auth.user);
      socket.data.catchingUp = null;
      void socket.join(userRoom(socket.data.userId));
      // A round trip: once answered, every packet sent to the socket before it has arrived.
      (socket as unknown as { on(event: 'ping', listener: (ack: () => void) => void): void }).on('ping', (ack) =>
        ack(),
      );
    });
    broadcasts = [];
    const adapter = io.of('/').adapter;
    const broadcast = adapter.broadcast.bind(adapter);
    adapter.broadcast = (packet: { data: readonly unknown[] }, opts) => {
      broadcasts.push(String(packet.data[0]));
      broadcast(packet, opts);
    };
    stop = startFanOut(io, {
      triggers: (listener) => {
        emitTrigger = listener;
        return () => (emitTrigger = () => undefined);
      },
      onReadModelCommit: (listener) => {
        emitCommit = listener;
        return () => (emitCommit = () => undefined);
      },
      shared: false,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(async function () {
    for (const client of clients.splice(0)) client.disconnect();
    stop();
    await io.close();
  });

  async function socketOf(user: string): Promise<ClientSocket> {
    const client = connect(url, { transports: ['websocket'], reconnection: false, forceNew: true, auth: { user } });
    clients.push(client);
    await new Promise<void>((resolve, reject) => {
      client.once('connect', resolve);
      client.once('connect_error', reject);
    });
    return client;
  }

  function heard<T>(client: ClientSocket, event: string): T[] {
    const got: T[] = [];
    client.on(event, (value: T) => got.push(value));
    return got;
  }

  const roundTrip = (client: ClientSocket): Promise<void> =>
    new Promise((resolve) => client.emit('ping', () => resolve()));

  it('tells each user a commit wrote documents of, once, in one packet for all of them', async function () {
    const [alice, bob, carol] = await Promise.all([socketOf('alice'), socketOf('bob'), socketOf('carol')]);
    const aliceGot = heard<ReadModelChange>(alice, 'readmodel:changed');
    const bobGot = heard<ReadModelChange>(bob, 'readmodel:changed');
    const carolGot = heard<ReadModelChange>(carol, 'readmodel:changed');

    emitCommit('alerts', { commit: 7, prepare: 7 }, [write('alice'), write('bob/alert-1'), write('bob/alert-2')]);
    // A user with no socket on this gateway is left out; a commit that wrote no user's document sends nothing.
    emitCommit('alerthistory', { commit: 8, prepare: 8 }, [write('dave/alert-3')]);
    await Promise.all([alice, bob, carol].map(roundTrip));

    const change = { name: 'alerts', position: '7/7' };
    expect(aliceGot).to.deep.equal([change]);
    expect(bobGot).to.deep.equal([change]);
    expect(carolGot).to.deep.equal([]);
    expect(broadcasts).to.deep.equal(['readmodel:changed']);
  });

  it("pushes a trigger's notification to each socket of its user once, and holds it for one catching up", async function () {
    const alice = await socketOf('alice');
    const [bob1, bob2] = await Promise.all([socketOf('bob'), socketOf('bob')]);
    const carol = await socketOf('carol');
    const aliceGot = heard<NotificationPush>(alice, 'notification');
    const bob1Got = heard<NotificationPush>(bob1, 'notification');
    const bob2Got = heard<NotificationPush>(bob2, 'notification');
    const carolGot = heard<NotificationPush>(carol, 'notification');

    emitTrigger(trigger('alice', 11));
    emitTrigger(trigger('bob', 12));
    await Promise.all([alice, bob1, bob2, carol].map(roundTrip));
    expect(aliceGot.map((n) => [n.id, n.position])).to.deep.equal([['event-alice-11', '11/11']]);
    expect(aliceGot[0]).to.include({ symbol: 'AAPL', notificationtype: 1, read: false, note: null });
    expect(bob1Got.map((n) => n.id)).to.deep.equal(['event-bob-12']);
    expect(bob2Got.map((n) => n.id)).to.deep.equal(['event-bob-12']);
    expect(carolGot).to.deep.equal([]);
    // A lone socket is written to directly; the packet for two is encoded once, broadcast to the user's room.
    expect(broadcasts).to.deep.equal(['notification']);

    // A socket still being sent what it missed gets the push after those; its user's other socket at once.
    const catching = [...io.of('/').sockets.values()].find((s) => s.id === bob2.id)!;
    catching.data.catchingUp = [];
    emitTrigger(trigger('bob', 13));
    await Promise.all([bob1, bob2].map(roundTrip));
    expect(bob1Got.map((n) => n.id)).to.deep.equal(['event-bob-12', 'event-bob-13']);
    expect(bob2Got.map((n) => n.id)).to.deep.equal(['event-bob-12']);
    expect(catching.data.catchingUp.map((n) => n.id)).to.deep.equal(['event-bob-13']);
  });
});
