import { expect } from 'chai';
import { io as connect, type Socket } from 'socket.io-client';
import { startTestGateway, type TestClient, type TestGateway } from '../testing/harness.ts';

/** Opens a socket of the client's session over `transport`; answers it once connected. */
async function open(gw: TestGateway, client: TestClient, transport: 'websocket' | 'polling'): Promise<Socket> {
  const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const socket = connect(gw.url, {
    transports: [transport],
    reconnection: false,
    forceNew: true,
    extraHeaders: { cookie },
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  return socket;
}

describe('realtime at shutdown', function () {
  it('tells every socket the server disconnected it and closes the connections, long-polling ones too', async function () {
    // The market is built once per test process; on a busy machine that outlasts a test's time.
    this.timeout(180_000);
    const gw = await startTestGateway();
    const sockets: Socket[] = [];
    try {
      const user = await gw.user();
      sockets.push(await open(gw, user, 'polling'), await open(gw, user, 'websocket'));
      const reasons = sockets.map((s) => new Promise<string>((resolve) => s.once('disconnect', resolve)));
      const realtime = gw.running.realtime;
      if (!realtime) throw new Error('the gateway runs no Socket.IO');
      const { engine } = realtime.io;
      expect(engine.clientsCount).to.equal(2);
      await gw.close();
      expect(await Promise.all(reasons)).to.deep.equal(['io server disconnect', 'io server disconnect']);
      // A connection left closing would wait for a poll its client never makes (30 s), holding the process.
      expect(engine.clientsCount).to.equal(0);
    } finally {
      for (const s of sockets) s.close();
    }
  });
});
