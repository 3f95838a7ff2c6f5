/**
 * For tests and the benchmark: a webhook receiver on loopback that records every request (headers and raw body)
 * and answers what the test says, with a wait for the n-th request instead of a sleep.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the receiver saw it. */
export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  /** The body's bytes. */
  readonly raw: Buffer;
  /** When its body had fully arrived (`performance.now()` of this process). */
  readonly arrivedAt: number;
}

/**
 * The answer to one request: a status, or `hang` to never answer; an object adds a delay, headers, or a promise
 * it waits for (`until`: a receiver held open until the test releases it).
 */
export type ReceiverAnswer =
  | number
  | 'hang'
  | {
      status: number;
      delayMs?: number;
      headers?: Readonly<Record<string, string>>;
      until?: PromiseLike<unknown>;
    };

/** A running receiver. */
export interface TestReceiver {
  /** Its base URL (`http://127.0.0.1:<port>`). */
  readonly url: string;
  /** Every request so far, in arrival order. */
  readonly requests: ReceivedRequest[];
  /** Resolves once `count` requests have arrived (within `timeoutMs`, default 10 s). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** Resolves once `count` answers have been written (to a connection still open or not), and a turn has passed. */
  answered(count: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a receiver whose answer to the request numbered `index` (0-based) is `answer(index, request)`. */
export async function startReceiver(
  answer: (index: number, request: ReceivedRequest) => ReceiverAnswer = () => 200,
): Promise<TestReceiver> {
  const requests: ReceivedRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  let answers = 0;
  const answerWaiters: { count: number; resolve: () => void }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        raw: Buffer.concat(chunks),
        arrivedAt: performance.now(),
      };
      const index = requests.push(request) - 1;
      for (let i = waiters.length - 1; i >= 0; i--) {
        if (requests.length >= waiters[i]!.count) waiters.splice(i, 1)[0]!.resolve();
      }
      const reply = answer(index, request);
      if (reply === 'hang') return;
      const { status, delayMs = 0, headers = {}, until } = typeof reply === 'number' ? { status: reply } : reply;
      const send = (): void => {
        res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(status < 300 ? 'ok' : 'no');
        answers += 1;
        for (let i = answerWaiters.length - 1; i >= 0; i--) {
          if (answers >= answerWaiters[i]!.count) setImmediate(answerWaiters.splice(i, 1)[0]!.resolve);
        }
      };
      const respond = (): void => {
        // Not on a connection closed meanwhile (the receiver closing, or the sender giving up).
        if (res.destroyed) return;
        if (delayMs > 0) setTimeout(send, delayMs);
        else send();
      };
      if (until) until.then(respond, respond);
      else respond();
    });
  });
  // As a typical receiver keeps connections (Node's default): a shorter timeout rounds to `Keep-Alive: timeout=0`
  // in the answers, and the sender's agent then opens a new connection for every request.
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    waitFor: (count, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        if (requests.length >= count) {
          resolve(requests.slice());
          return;
        }
        const timer = setTimeout(
          () => reject(new Error(`the receiver got ${requests.length} requests, not ${count}, within ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(requests.slice());
          },
        });
      }),
    answered: (count) =>
      new Promise<void>((resolve) => {
        if (answers >= count) setImmediate(resolve);
        else answerWaiters.push({ count, resolve });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
