import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { setTimeout as delay } from 'node:timers/promises';
import { componentLogger, createLogger, type Logger } from '../../platform/logger.ts';
import { ApiError, errorMapper } from '../errors.ts';
import { requestLog, REQUEST_ID_HEADER } from './requestLog.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Line {
  level: string;
  msg: string;
  requestId?: string;
  req?: { id?: string; method?: string; url?: string; headers?: unknown };
  res?: { statusCode?: number };
}

/** A log destination keeping its lines, with a wait for the lines about one request. */
function capture() {
  const lines: Line[] = [];
  const waiting: { id: string; count: number; resolve: (lines: Line[]) => void }[] = [];
  const about = (id: string) => lines.filter((l) => l.req?.id === id || l.requestId === id);
  const settle = () => {
    for (const w of [...waiting]) {
      if (about(w.id).length < w.count) continue;
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve(about(w.id));
    }
  };
  return {
    destination: {
      write: (text: string) => {
        lines.push(JSON.parse(text) as Line);
        settle();
      },
    },
    all: () => lines,
    linesAbout: (id: string, count: number) =>
      new Promise<Line[]>((resolve) => {
        waiting.push({ id, count, resolve });
        settle();
      }),
  };
}

describe('request logs and ids', function () {
  let server: http.Server;
  let url: string;
  let log: ReturnType<typeof capture>;
  let logger: Logger;

  before(async function () {
    log = capture();
    logger = createLogger({ level: 'info' }, log.destination);
    const worker = componentLogger(logger, 'worker');
    const app = new Koa();
    app.use(requestLog(logger));
    app.use(errorMapper(logger));
    app.use(async (ctx) => {
      if (ctx.path === '/bad') throw new ApiError(400, 'bad_request', 'query.limit: too large');
      if (ctx.path === '/boom') throw new Error('database password is hunter2');
      if (ctx.path === '/work') {
        // Lines written after a timer and after a callback-style step, by a logger made before any request.
        await delay(Number(ctx.query.ms));
        worker.info({ step: 'timer', n: ctx.query.n }, 'working');
        await new Promise<void>((resolve) => setImmediate(resolve));
        worker.warn({ step: 'immediate', n: ctx.query.n }, 'still working');
      }
      ctx.body = { ok: true };
    });
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async function () {
    await new Promise((resolve) => server.close(resolve));
  });

  it('gives every request its own id, in the answer header and its log line', async function () {
    const first = await fetch(`${url}/ok?x=1`, { headers: { cookie: 'sid=secret-session' } });
    const second = await fetch(`${url}/ok`);
    const id = first.headers.get(REQUEST_ID_HEADER) ?? '';
    expect(id).to.match(UUID);
    expect(second.headers.get(REQUEST_ID_HEADER)).to.match(UUID).and.not.equal(id);
    expect(await first.json()).to.deep.equal({ ok: true });
    const [line] = await log.linesAbout(id, 1);
    expect(line!.level).to.equal('info');
    expect(line!.msg).to.match(/^GET \/ok\?x=1 200 \d+ ms$/);
    expect(line!.req).to.deep.equal({ id, method: 'GET', url: '/ok?x=1' });
    expect(JSON.stringify(line)).not.to.include('secret-session');
  });

  it('writes the id in a refusal and logs it as a warning', async function () {
    const res = await fetch(`${url}/bad`);
    const id = res.headers.get(REQUEST_ID_HEADER) ?? '';
    expect(res.status).to.equal(400);
    expect(await res.json()).to.deep.equal({ error: 'bad_request', message: 'query.limit: too large', requestId: id });
    const [line] = await log.linesAbout(id, 1);
    expect(line!.level).to.equal('warn');
    expect(line!.res).to.deep.equal({ statusCode: 400 });
  });

  it('writes the id in a failure, which reveals nothing, and in both of its log lines', async function () {
    const res = await fetch(`${url}/boom`);
    const id = res.headers.get(REQUEST_ID_HEADER) ?? '';
    expect(res.status).to.equal(500);
    expect(await res.json()).to.deep.equal({ error: 'internal', message: 'internal error', requestId: id });
    const lines = await log.linesAbout(id, 2);
    expect(lines.map((l) => l.level)).to.deep.equal(['error', 'error']);
    expect(lines.map((l) => l.msg)).to.include('request failed');
  });

  it('writes the id in every line logged while the request is handled', async function () {
    const res = await fetch(`${url}/work?ms=5&n=1`);
    const id = res.headers.get(REQUEST_ID_HEADER) ?? '';
    expect(id).to.match(UUID);
    const lines = await log.linesAbout(id, 3);
    const work = lines.filter((l) => l.req === undefined);
    expect(work.map((l) => [l.msg, l.requestId, (l as { component?: string }).component])).to.deep.equal([
      ['working', id, 'worker'],
      ['still working', id, 'worker'],
    ]);
  });

  it('keeps the ids of requests handled at the same time apart', async function () {
    // The first request to start finishes last, so their steps interleave.
    const answers = await Promise.all(
      [30, 20, 10, 0].map((ms, n) =>
        fetch(`${url}/work?ms=${ms}&n=${n}`).then((r) => r.headers.get(REQUEST_ID_HEADER)),
      ),
    );
    expect(new Set(answers).size).to.equal(4);
    for (const [n, id] of answers.entries()) {
      const lines = await log.linesAbout(id ?? '', 3);
      const work = lines.filter((l) => l.req === undefined) as (Line & { n?: string })[];
      expect(work.map((l) => l.n)).to.deep.equal([String(n), String(n)]);
    }
  });

  it('writes no request id in a line logged outside any request', function () {
    componentLogger(logger, 'worker').info('between requests');
    const between = log.all().find((l) => l.msg === 'between requests');
    expect(between).to.include({ level: 'info' });
    expect(between).to.not.have.property('requestId');
  });

  it('keeps the ids with a logger that writes nothing', async function () {
    const quiet = capture();
    const logger = createLogger({ level: 'silent' }, quiet.destination);
    const app = new Koa();
    app.use(requestLog(logger));
    app.use(errorMapper(logger));
    app.use(() => {
      throw new ApiError(404, 'not_found', 'no such thing');
    });
    const silent = http.createServer(app.callback());
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(silent.address() as AddressInfo).port}/x`);
      const id = res.headers.get(REQUEST_ID_HEADER) ?? '';
      expect(id).to.match(UUID);
      expect(await res.json()).to.deep.equal({ error: 'not_found', message: 'no such thing', requestId: id });
    } finally {
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
