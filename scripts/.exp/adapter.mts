import http from 'node:http';
import { Server } from 'socket.io';
import { io as connect } from 'socket.io-client';
import { createAdapter } from '@socket.io/redis-streams-adapter';
import { startTestRedis } from '../../platform/testing/redisServer.ts';
import { connectRedis } from '../../platform/redis.ts';

const redis = await startTestRedis();
const c1 = await connectRedis(redis.url);
const c2 = await connectRedis(redis.url);
const server = http.createServer();
const io1 = new Server(server, { adapter: createAdapter(c1) });
io1.on('connection', (s) => void s.join('room1'));
await new Promise<void>((r) => server.listen(0, r));
const port = (server.address() as any).port;
const emitter = new Server({ adapter: createAdapter(c2) });
const sock = connect(`http://127.0.0.1:${port}`, { transports: ['websocket'] });
await new Promise((r) => sock.once('connect', r));
await new Promise((r) => setTimeout(r, 300));
const t0 = performance.now();
const got = new Promise((r) => sock.once('hello', r));
emitter.to('room1').emit('hello', { a: 1 });
console.log('got', await got, performance.now() - t0);
const lat: number[] = [];
for (let i = 0; i < 200; i++) {
  const t = performance.now();
  const p = new Promise((r) => sock.once('hello', r));
  emitter.to('room1').emit('hello', i);
  await p;
  lat.push(performance.now() - t);
}
lat.sort((a, b) => a - b);
console.log('p50', lat[100], 'p99', lat[197]);
sock.disconnect();
emitter.close(); io1.close();
await c1.quit(); await c2.quit();
await redis.stop();
process.exit(0);
