/**
 * A loopback HTTP server speaking Alpaca's market data REST API (`GET /v2/stocks/bars`) for tests: it answers
 * queued answers in turn (pages, 429s, refusals, bad rows) and keeps the requests it got.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A daily bar as Alpaca answers it: `t` is midnight New York in UTC. */
export function alpacaRow(date: string, close: number, extra: Record<string, unknown> = {}) {
  return {
    t: `${date}T05:00:00Z`,
    o: close - 1,
    h: close + 1,
    l: close - 2,
    c: close,
    v: 1_000_000,
    n: 12_000,
    vw: close - 0.5,
    ...extra,
  };
}

export interface AlpacaAnswer {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly body: unknown;
}

/** A loopback server speaking `GET /v2/stocks/bars`: it answers the queued answers in turn and keeps the requests. */
export class FakeAlpaca {
  readonly requests: URL[] = [];
  readonly keys: (string | undefined)[] = [];
  private answers: AlpacaAnswer[] = [];
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      this.requests.push(url);
      this.keys.push(req.headers['apca-api-key-id'] as string | undefined);
      const answer = this.answers.shift();
      if (url.pathname !== '/v2/stocks/bars' || answer === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"not found"}');
        return;
      }
      res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
      res.end(JSON.stringify(answer.body));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  answer(...answers: AlpacaAnswer[]): void {
    this.answers.push(...answers);
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
