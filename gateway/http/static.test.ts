import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import { webApp } from './static.ts';

async function serve(dir: string): Promise<{ url: string; close: () => Promise<void> }> {
  const app = new Koa();
  app.use(webApp(dir, (path) => path.startsWith('/api')));
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function get(url: string, path: string): Promise<{ status: number; type: string; cache: string; text: string }> {
  return new Promise((resolve, reject) => {
    // node:http sends the path as written, so `..` segments reach the server un-normalised.
    http
      .get(`${url}${path}`, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            type: res.headers['content-type'] ?? '',
            cache: res.headers['cache-control'] ?? '',
            text,
          }),
        );
      })
      .on('error', reject);
  });
}

describe('web app files', function () {
  let root: string;
  let dir: string;
  let server: { url: string; close: () => Promise<void> };

  before(async function () {
    root = mkdtempSync(join(tmpdir(), 'sp-static-'));
    dir = join(root, 'dist');
    mkdirSync(join(dir, 'assets'), { recursive: true });
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>app</title>');
    writeFileSync(join(dir, 'assets', 'index-abc.js'), 'console.log(1)');
    writeFileSync(join(root, 'secret.txt'), 'not for the web');
    server = await serve(dir);
  });
  after(async function () {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('serves a hashed asset with a year of caching', async function () {
    const res = await get(server.url, '/assets/index-abc.js');
    expect(res.status).to.equal(200);
    expect(res.type).to.match(/^text\/javascript/);
    expect(res.cache).to.equal('public, max-age=31536000, immutable');
    expect(res.text).to.equal('console.log(1)');
  });

  it('answers a page path with index.html, never cached', async function () {
    const res = await get(server.url, '/PriceCharts?stock=AAPL');
    expect(res.status).to.equal(200);
    expect(res.type).to.match(/^text\/html/);
    expect(res.cache).to.equal('no-cache');
    expect(res.text).to.include('<title>app</title>');
  });

  it('leaves API paths, missing files and paths outside its folder to the rest of the app', async function () {
    expect((await get(server.url, '/api/nothing')).status).to.equal(404);
    expect((await get(server.url, '/assets/missing.js')).status).to.equal(404);
    const escaped = await get(server.url, '/..%2fsecret.txt');
    expect(escaped.status).to.equal(404);
    expect(escaped.text).not.to.include('not for the web');
  });

  it('says how to build the app when it is not built', async function () {
    const empty = await serve(join(root, 'none'));
    try {
      const res = await get(empty.url, '/Dashboard');
      expect(res.status).to.equal(503);
      expect(res.text).to.include('npm run build:ui');
    } finally {
      await empty.close();
    }
  });
});
