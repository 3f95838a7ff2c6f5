import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Koa from 'koa';
import { compression, COMPRESS_THRESHOLD_BYTES } from './compression.ts';

const large = Array.from({ length: 200 }, (_, i) => ({ symbol: `S${i}`, price: i * 1.5 }));
const small = { status: 'ok' };

function request(
  url: string,
  path: string,
  acceptEncoding?: string,
): Promise<{ headers: http.IncomingHttpHeaders; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const headers = acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding };
    http
      .get(`${url}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ headers: res.headers, bytes: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

describe('compression of answers', function () {
  let server: http.Server;
  let url: string;
  before(async function () {
    const app = new Koa();
    app.use(compression());
    app.use((ctx) => {
      ctx.body = ctx.path === '/large' ? large : small;
    });
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async function () {
    await new Promise((resolve) => server.close(resolve));
  });

  it('answers JSON over the threshold with Brotli when accepted, else gzip', async function () {
    expect(JSON.stringify(large).length).to.be.above(COMPRESS_THRESHOLD_BYTES);
    const br = await request(url, '/large', 'gzip, deflate, br');
    expect(br.headers['content-encoding']).to.equal('br');
    expect(br.headers.vary).to.equal('Accept-Encoding');
    expect(JSON.parse(brotliDecompressSync(br.bytes).toString('utf8'))).to.deep.equal(large);
    expect(br.bytes.length).to.be.below(JSON.stringify(large).length / 3);
    const gz = await request(url, '/large', 'gzip');
    expect(gz.headers['content-encoding']).to.equal('gzip');
    expect(JSON.parse(gunzipSync(gz.bytes).toString('utf8'))).to.deep.equal(large);
  });

  it('sends answers under the threshold, and answers to requests accepting neither, as they are', async function () {
    const tiny = await request(url, '/small', 'br');
    expect(tiny.headers['content-encoding']).to.equal(undefined);
    expect(JSON.parse(tiny.bytes.toString('utf8'))).to.deep.equal(small);
    for (const accept of [undefined, 'identity', 'deflate']) {
      const plain = await request(url, '/large', accept);
      expect(plain.headers['content-encoding'], String(accept)).to.equal(undefined);
      expect(JSON.parse(plain.bytes.toString('utf8'))).to.deep.equal(large);
    }
  });
});
