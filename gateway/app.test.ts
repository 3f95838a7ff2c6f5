import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createApp, type AppDeps } from './app.ts';
import { createLogger } from '../platform/logger.ts';

interface Running {
  readonly base: string;
  close(): Promise<void>;
}

async function serve(deps: Partial<AppDeps> = {}): Promise<Running> {
  const app = createApp({ logger: createLogger({ level: 'silent' }), ...deps });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}

describe('gateway app', () => {
  let running: Running;
  before(async () => {
    running = await serve();
  });
  after(async () => {
    await running.close();
  });

  it('answers false to /api/loggedinstatus without a session', async () => {
    const res = await fetch(`${running.base}/api/loggedinstatus`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    expect(await res.text()).to.equal('false');
  });

  it('answers true to /api/loggedinstatus when the session lookup finds one', async () => {
    const withSession = await serve({ sessions: { current: () => Promise.resolve({ userId: 'u1' }) } });
    try {
      const res = await fetch(`${withSession.base}/api/loggedinstatus`);
      expect(res.status).to.equal(200);
      expect(await res.json()).to.equal(true);
    } finally {
      await withSession.close();
    }
  });

  it('answers /healthz with status ok', async () => {
    const res = await fetch(`${running.base}/healthz`);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ status: 'ok' });
  });

  for (const path of ['/api/nosuchroute', '/personalize/nosuchroute', '/api']) {
    it(`answers an unknown route ${path} with 404 JSON`, async () => {
      const res = await fetch(`${running.base}${path}`);
      expect(res.status).to.equal(404);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      const body = (await res.json()) as { error: string; message: string };
      expect(body.error).to.equal('not_found');
      expect(body.message).to.contain(path);
    });
  }

  it('answers a wrong method on a known route with 405 JSON', async () => {
    const res = await fetch(`${running.base}/api/loggedinstatus`, { method: 'DELETE' });
    expect(res.status).to.equal(405);
    expect(((await res.json()) as { error: string }).error).to.equal('method_not_allowed');
  });

  it('answers a failing route with 500 JSON that reveals nothing', async () => {
    const failing = await serve({ sessions: { current: () => Promise.reject(new Error('secret detail')) } });
    try {
      const res = await fetch(`${failing.base}/api/loggedinstatus`);
      expect(res.status).to.equal(500);
      expect(await res.json()).to.deep.equal({ error: 'internal', message: 'internal error' });
    } finally {
      await failing.close();
    }
  });

  for (const path of ['/api/loggedinstatus', '/api/nosuchroute', '/healthz']) {
    it(`sets the security headers on ${path}`, async () => {
      const res = await fetch(`${running.base}${path}`);
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(res.headers.get('x-frame-options')).to.equal('DENY');
      expect(res.headers.get('referrer-policy')).to.equal('same-origin');
      expect(res.headers.get('content-security-policy')).to.contain("default-src 'self'");
    });
  }
});
