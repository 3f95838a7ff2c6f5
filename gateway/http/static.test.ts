import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import Koa from 'koa';
import { webApp } from './static.ts';

const bigAsset = `export const rows = ${JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ row: i })))};`;

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

/** Fetches `path` with an `Accept-Encoding`, answering the headers and the bytes as sent. */
function getEncoded(
  url: string,
  path: string,
  acceptEncoding: string,
): Promise<{ headers: http.IncomingHttpHeaders; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${url}${path}`, { headers: { 'accept-encoding': acceptEncoding } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ headers: res.headers, bytes: Buffer.concat(chunks) }));
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
    // A build's compressed copies of a larger asset, as scripts/buildUi.ts writes them.
    writeFileSync(join(dir, 'assets', 'big-abc.js'), bigAsset);
    writeFileSync(join(dir, 'assets', 'big-abc.js.br'), brotliCompressSync(bigAsset));
    writeFileSync(join(dir, 'assets', 'big-abc.js.gz'), gzipSync(bigAsset));
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

  it('answers a page path whose symbol has a dot with index.html', async function () {
    for (const path of ['/CompanyStats/BRK.B', '/PriceChart/BF.B', '/Predict/brk.b']) {
      const res = await get(server.url, path);
      expect(res.status, path).to.equal(200);
      expect(res.text, path).to.include('<title>app</title>');
    }
  });

  it('leaves API paths, missing files and paths outside its folder to the rest of the app', async function () {
    expect((await get(server.url, '/api/nothing')).status).to.equal(404);
    expect((await get(server.url, '/assets/missing.js')).status).to.equal(404);
    expect((await get(server.url, '/favicon.ICO')).status).to.equal(404);
    const escaped = await get(server.url, '/..%2fsecret.txt');
    expect(escaped.status).to.equal(404);
    expect(escaped.text).not.to.include('not for the web');
  });

  it('sends the Brotli copy to a browser accepting it, else the gzip copy, else the file itself', async function () {
    const br = await getEncoded(server.url, '/assets/big-abc.js', 'gzip, deflate, br');
    expect(br.headers['content-encoding']).to.equal('br');
    expect(br.headers.vary).to.equal('Accept-Encoding');
    expect(br.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
    expect(Number(br.headers['content-length']))
      .to.equal(br.bytes.length)
      .and.be.below(bigAsset.length / 10);
    expect(brotliDecompressSync(br.bytes).toString('utf8')).to.equal(bigAsset);
    const gz = await getEncoded(server.url, '/assets/big-abc.js', 'gzip');
    expect(gz.headers['content-encoding']).to.equal('gzip');
    expect(gunzipSync(gz.bytes).toString('utf8')).to.equal(bigAsset);
    const plain = await getEncoded(server.url, '/assets/big-abc.js', 'identity');
    expect(plain.headers['content-encoding']).to.equal(undefined);
    expect(plain.headers.vary).to.equal('Accept-Encoding');
    expect(plain.bytes.toString('utf8')).to.equal(bigAsset);
  });

  it('sends a file without compressed copies as it is', async function () {
    const res = await getEncoded(server.url, '/assets/index-abc.js', 'br');
    expect(res.headers['content-encoding']).to.equal(undefined);
    expect(res.bytes.toString('utf8')).to.equal('console.log(1)');
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
