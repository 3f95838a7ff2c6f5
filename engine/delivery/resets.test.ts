/**
 * Connections reset by the other side: a receiver that resets before, during or after answering never crashes
 * the sending process (the attempt fails and is retried), and the test receiver outlives clients that reset.
 */
import { once } from 'node:events';
import net from 'node:net';
import { expect } from 'chai';
import type { Channel } from '../../domain/channels/channels.ts';
import { parseAllowedHosts } from './guard.ts';
import { noticePayload } from './processor.ts';
import { deliverySecrets } from './secrets.ts';
import { webhookSender, type AttemptResult } from './senders.ts';
import { startReceiver } from './testing/receiver.ts';

const secrets = deliverySecrets(Buffer.from('a test key of at least thirty-two characters'));
const send = webhookSender({
  secretOf: (id) => secrets.webhookSecret(id),
  allowedHosts: parseAllowedHosts('127.0.0.1'),
  timeoutMs: 2000,
});

function channel(url: string): Channel {
  return {
    id: 'c1',
    type: 'webhook',
    name: 'reset',
    url,
    address: null,
    subscription: null,
    confirmed: true,
    createdt: new Date().toISOString(),
  };
}

/** A TCP server that reads each connection's request and then does `onRequest` with the socket. */
async function rawServer(onRequest: (socket: net.Socket, index: number) => void) {
  const sockets = new Set<net.Socket>();
  let requests = 0;
  const connections: Promise<unknown>[] = [];
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    connections.push(new Promise((resolve) => socket.once('close', resolve)));
    let seen = '';
    socket.on('data', (chunk: Buffer) => {
      seen += chunk.toString('latin1');
      // Every request of these tests has a short body after its headers.
      while (seen.includes('\r\n\r\n') && seen.includes('}')) {
        seen = seen.slice(seen.indexOf('}') + 1);
        onRequest(socket, requests++);
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests: () => requests,
    /** Resolves once the connection numbered `index` (0-based) has closed. */
    closed: (index: number) => connections[index],
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

const OK = 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\nok';

describe('webhook connections reset by the receiver', function () {
  this.timeout(10_000);
  const uncaught: Error[] = [];
  const record = (error: Error): void => {
    uncaught.push(error);
  };
  before(function () {
    process.on('uncaughtException', record);
  });
  after(function () {
    process.off('uncaughtException', record);
  });
  afterEach(function () {
    expect(uncaught, 'errors nobody handled').to.deep.equal([]);
  });

  const attempt = (url: string, id: string): Promise<AttemptResult> =>
    send({ channel: channel(url), payload: noticePayload(id, 'reset test', new Date().toISOString()) });

  it('fails the attempt, retryably, when the receiver resets before answering', async function () {
    const server = await rawServer((socket) => socket.resetAndDestroy());
    try {
      const result = await attempt(server.url, 'd1');
      expect(result).to.include({ ok: false, status: null, retryable: true });
      expect(result.error).to.match(/ECONNRESET|socket hang up/);
    } finally {
      await server.close();
    }
  });

  it('fails the attempt when the receiver resets in the middle of its answer', async function () {
    const server = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial', () => socket.resetAndDestroy());
    });
    try {
      const result = await attempt(server.url, 'd2');
      expect(result).to.include({ ok: false, retryable: true });
    } finally {
      await server.close();
    }
  });

  it('survives a pooled connection reset while idle, and sends the next attempt', async function () {
    const server = await rawServer((socket, index) => {
      socket.write(OK);
      // The first connection answers, then is reset while it waits in the pool.
      if (index === 0) setTimeout(() => socket.resetAndDestroy(), 20);
    });
    try {
      expect(await attempt(server.url, 'd3')).to.include({ ok: true, status: 200 });
      await server.closed(0);
      const next = await attempt(server.url, 'd4');
      expect(next.ok || next.retryable, JSON.stringify(next)).to.equal(true);
      expect(await attempt(server.url, 'd5')).to.include({ ok: true, status: 200 });
    } finally {
      await server.close();
    }
  });

  it('survives receivers that answer just as the attempt times out', async function () {
    const hasty = webhookSender({
      secretOf: (id) => secrets.webhookSecret(id),
      allowedHosts: parseAllowedHosts('127.0.0.1'),
      timeoutMs: 50,
    });
    const receiver = await startReceiver((index) => ({ status: 200, delayMs: 45 + (index % 10) }));
    try {
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          hasty({
            channel: channel(`${receiver.url}/hook`),
            payload: noticePayload(`t${i}`, 'race', new Date().toISOString()),
          }),
        ),
      );
      for (const result of results) expect(result.ok || result.retryable, JSON.stringify(result)).to.equal(true);
      expect(results.some((r) => !r.ok)).to.equal(true);
      // The late answers are written to connections the sender has closed.
      await receiver.answered(receiver.requests.length);
    } finally {
      await receiver.close();
    }
  });

  it('keeps the test receiver answering after clients reset in the middle of a request', async function () {
    const receiver = await startReceiver();
    try {
      const { port } = new URL(receiver.url);
      for (const partial of ['POST /hook HTTP/1.1\r\nhost: x\r\ncontent-length: 50\r\n\r\n{"half', 'POST /ho']) {
        const socket = net.connect(Number(port), '127.0.0.1');
        socket.on('error', () => undefined);
        await once(socket, 'connect');
        await new Promise<void>((resolve) => socket.write(partial, () => resolve()));
        socket.resetAndDestroy();
        await once(socket, 'close');
      }
      expect(await attempt(`${receiver.url}/hook`, 'd6')).to.include({ ok: true, status: 200 });
      expect(receiver.requests.map((r) => r.headers['idempotency-key'])).to.deep.equal(['d6']);
    } finally {
      await receiver.close();
    }
  });
});
