import { expect } from 'chai';
import { io as connect, type Socket } from 'socket.io-client';
import { useTestGateway, type TestClient, type TestGateway } from '../testing/harness.ts';

const PUBLIC_ORIGIN = 'https://stocks.example.com';

/** Opens a socket with the client's cookie and `origin`; answers `connected` or the refusal's message. */
async function handshake(
  gw: TestGateway,
  client: TestClient,
  origin: string | undefined,
  transport: 'websocket' | 'polling',
): Promise<string> {
  const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const socket: Socket = connect(gw.url, {
    transports: [transport],
    reconnection: false,
    forceNew: true,
    extraHeaders: { cookie, ...(origin ? { origin } : {}) },
  });
  try {
    return await new Promise<string>((resolve) => {
      socket.once('connect', () => resolve('connected'));
      socket.once('connect_error', (error) => resolve(error.message));
    });
  } finally {
    socket.close();
  }
}

describe('socket handshake Origin check', function () {
  describe('without a public origin', function () {
    let gw: TestGateway;
    useTestGateway((started) => {
      gw = started;
    });

    for (const transport of ['websocket', 'polling'] as const) {
      it(`refuses a page on another port of the same site (${transport}), with the victim's cookie`, async function () {
        const victim = await gw.user();
        const otherPort = gw.url.replace(/:(\d+)$/, (_m, port: string) => `:${Number(port) + 1}`);
        expect(await handshake(gw, victim, otherPort, transport)).to.equal(
          `forbidden: Origin ${otherPort} may not open a socket here`,
        );
      });

      it(`refuses another site (${transport})`, async function () {
        const victim = await gw.user();
        expect(await handshake(gw, victim, 'https://evil.example', transport)).to.match(/^forbidden: Origin/);
      });

      it(`accepts the app's own origin and clients that send none (${transport})`, async function () {
        const user = await gw.user();
        expect(await handshake(gw, user, gw.url, transport)).to.equal('connected');
        expect(await handshake(gw, user, undefined, transport)).to.equal('connected');
      });
    }
  });

  describe(`with PUBLIC_ORIGIN=${PUBLIC_ORIGIN}`, function () {
    let gw: TestGateway;
    useTestGateway({ env: { PUBLIC_ORIGIN } }, (started) => {
      gw = started;
    });

    it('no longer trusts the Host header: a request naming its own host as Origin is refused', async function () {
      const user = await gw.user();
      const res = await user.post('/personalize/createwatchlist', ['NVDA'], { Origin: gw.url });
      expect(res.status, res.text).to.equal(403);
      expect((res.body as { message: string }).message).to.equal(`Origin ${gw.url} may not change state here`);
      expect(await handshake(gw, user, gw.url, 'websocket')).to.match(/^forbidden: Origin/);
    });

    it('accepts the public origin on REST and on the socket', async function () {
      const user = await gw.user();
      const res = await user.post('/personalize/createwatchlist', ['NVDA'], { Origin: PUBLIC_ORIGIN });
      expect(res.status, res.text).to.equal(200);
      expect(await handshake(gw, user, PUBLIC_ORIGIN, 'websocket')).to.equal('connected');
    });
  });
});
