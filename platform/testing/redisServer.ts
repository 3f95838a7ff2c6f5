/**
 * For tests: a real `redis-server` on a free loopback port, without persistence, stopped by pid.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

/** A running test Redis. */
export interface TestRedis {
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  /** Its port. */
  readonly port: number;
  /** Stops the server and waits for it to exit. */
  stop(): Promise<void>;
}

/** A free loopback TCP port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('error', () => resolve(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
  });
}

/**
 * Starts `redis-server` (from PATH) on a free port, or on `port` (a server started again where one was stopped),
 * and waits until it answers PING.
 */
export async function startTestRedis(port?: number): Promise<TestRedis> {
  port ??= await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let failed: Error | undefined;
  child.once('error', (error) => (failed = error));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; i < 200 && !(await ping(port)); i++) {
    if (failed) throw new Error(`redis-server could not start: ${failed.message} (apt-get install -y redis-server)`);
    await new Promise((r) => setTimeout(r, 25));
  }
  if (!(await ping(port))) throw new Error(`redis-server did not answer on port ${port}`);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
