import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { expect } from 'chai';
import { SNAPSHOT_MAX_BYTES } from '../../domain/snapshots/snapshots.ts';
import { startTestGateway, useTestGateway, type TestClient, type TestGateway } from '../testing/harness.ts';
import { SNAPSHOT_BODY_LIMIT, SNAPSHOT_IMAGE_CACHE_CONTROL } from './snapshots.ts';

interface SnapshotAnswer {
  id: string;
  symbol: string | null;
  title: string;
  createdt: string;
  bytes: number;
  sha256: string;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A real PNG of `width` × 1 grey pixels whose shade is `seed`, so each seed gives other bytes. */
function png(seed: number, width = 4): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(1, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  const row = Buffer.alloc(width + 1, seed & 0xff);
  row[0] = 0; // no filter
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(row)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A PNG padded with an ancillary chunk to exactly `size` bytes. */
function pngOfSize(size: number): Buffer {
  const base = png(7);
  const iend = base.subarray(base.length - 12);
  const padding = size - base.length - 12;
  return Buffer.concat([base.subarray(0, base.length - 12), chunk('tEXt', Buffer.alloc(padding, 0x61)), iend]);
}

const dataUrl = (bytes: Buffer, type = 'image/png'): string => `data:${type};base64,${bytes.toString('base64')}`;
const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** GET that answers the raw bytes (the test client reads text). */
function getBytes(
  client: TestClient,
  path: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: Buffer }> {
  const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  return new Promise((resolve, reject) => {
    http
      .get(`${client.url}${path}`, { headers: cookie ? { cookie } : {} }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

describe('chart snapshot routes', function () {
  let gw: TestGateway;
  let imagesDir: string;
  useTestGateway((started) => {
    gw = started;
    imagesDir = join(gw.dataDir, 'snapshots');
  });

  let seed = 0;
  const freshPng = (): Buffer => png(++seed, 8 + seed);

  const eventCount = (username: string) => gw.eventCount(`snapshots-${username}`);

  async function save(client: TestClient, body: Record<string, unknown>): Promise<SnapshotAnswer> {
    const res = await client.post('/personalize/snapshots', body);
    expect(res.status).to.equal(200, res.text);
    return res.body as SnapshotAnswer;
  }

  const files = (): string[] => (existsSync(imagesDir) ? readdirSync(imagesDir).sort() : []);

  it('saves a snapshot and answers its description, the image kept under its SHA-256', async function () {
    const user = await gw.user();
    const image = freshPng();
    const before = Date.now();
    const snapshot = await save(user, { symbol: 'nvda', title: '  NVDA 3 months ', image: dataUrl(image) });
    expect(snapshot).to.deep.include({
      symbol: 'NVDA',
      title: 'NVDA 3 months',
      bytes: image.length,
      sha256: sha256(image),
    });
    expect(snapshot.id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Date.parse(snapshot.createdt)).to.be.within(before - 1000, Date.now() + 1000);
    expect(Object.keys(snapshot).sort()).to.deep.equal(['bytes', 'createdt', 'id', 'sha256', 'symbol', 'title']);
    expect(readFileSync(join(imagesDir, `${snapshot.sha256}.png`)).equals(image)).to.equal(true);
    expect(files().filter((f) => !f.endsWith('.png'))).to.deep.equal([]);
  });

  it('lists the snapshots newest first, without image data, right after a save', async function () {
    const user = await gw.user();
    const first = await save(user, { title: 'first', image: dataUrl(freshPng()) });
    const second = await save(user, { symbol: null, title: 'second', image: dataUrl(freshPng()) });
    const res = await user.get('/personalize/snapshots');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal([second, first]);
    expect(first.symbol).to.equal(null);
    expect(res.headers.get('x-read-model-position')).to.match(/^\d+\/\d+$/);
    expect((await (await gw.user()).get('/personalize/snapshots')).body).to.deep.equal([]);
  });

  it('answers the image bytes as they were saved, as a private immutable PNG', async function () {
    const user = await gw.user();
    const image = freshPng();
    const { id } = await save(user, { title: 'bytes', image: dataUrl(image) });
    const res = await getBytes(user, `/personalize/snapshots/${id}/image`);
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.equal('image/png');
    expect(res.headers['cache-control']).to.equal(SNAPSHOT_IMAGE_CACHE_CONTROL);
    expect(res.bytes.equals(image)).to.equal(true);
  });

  it("answers 404 to another user's snapshot, image and deletion, and never lists it", async function () {
    const ada = await gw.user('ada');
    const bob = await gw.user('bob');
    const adas = await save(ada, { title: 'mine', image: dataUrl(freshPng()) });
    expect((await getBytes(bob, `/personalize/snapshots/${adas.id}/image`)).status).to.equal(404);
    const del = await bob.post(`/personalize/delsnapshot/${adas.id}`);
    expect(del.status).to.equal(404);
    expect((del.body as { message: string }).message).to.match(/^params\.id/);
    expect((await bob.get('/personalize/snapshots')).body).to.deep.equal([]);
    expect(await eventCount(bob.username)).to.equal(0);
    expect((await getBytes(ada, `/personalize/snapshots/${adas.id}/image`)).status).to.equal(200);
    expect((await getBytes(ada, '/personalize/snapshots/not-an-id/image')).status).to.equal(404);
  });

  it('deletes a snapshot, and its image once no snapshot of any user refers to it', async function () {
    const ada = await gw.user('ada');
    const bob = await gw.user('bob');
    const image = freshPng();
    const file = join(imagesDir, `${sha256(image)}.png`);
    const adas = await save(ada, { title: 'shared', image: dataUrl(image) });
    const bobs = await save(bob, { title: 'shared too', image: dataUrl(image) });
    expect(bobs.sha256).to.equal(adas.sha256);

    const res = await ada.post(`/personalize/delsnapshot/${adas.id}`);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ id: adas.id, deleted: true });
    expect((await ada.get('/personalize/snapshots')).body).to.deep.equal([]);
    expect((await getBytes(ada, `/personalize/snapshots/${adas.id}/image`)).status).to.equal(404);
    expect(existsSync(file), 'kept for the other user').to.equal(true);
    expect((await getBytes(bob, `/personalize/snapshots/${bobs.id}/image`)).bytes.equals(image)).to.equal(true);

    await bob.post(`/personalize/delsnapshot/${bobs.id}`);
    expect(existsSync(file), 'removed with the last snapshot').to.equal(false);
    expect((await ada.post(`/personalize/delsnapshot/${adas.id}`)).status).to.equal(404);
  });

  it('saves nothing new for a retried POST with the same Idempotency-Key and answers the same', async function () {
    const user = await gw.user();
    const headers = { 'Idempotency-Key': 'save-snapshot-1' };
    const body = { title: 'retried', image: dataUrl(freshPng()) };
    const first = await user.post('/personalize/snapshots', body, headers);
    const retried = await user.post('/personalize/snapshots', body, headers);
    expect(retried.status).to.equal(200, retried.text);
    expect(retried.body).to.deep.equal(first.body);
    expect(await eventCount(user.username)).to.equal(1);
  });

  it(`accepts an image of exactly ${SNAPSHOT_MAX_BYTES} bytes, above the global body limit`, async function () {
    const user = await gw.user();
    const image = pngOfSize(SNAPSHOT_MAX_BYTES);
    const snapshot = await save(user, { title: 'largest', image: dataUrl(image) });
    expect(snapshot.bytes).to.equal(SNAPSHOT_MAX_BYTES);
    expect((await getBytes(user, `/personalize/snapshots/${snapshot.id}/image`)).bytes.equals(image)).to.equal(true);
  });

  const gif = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1');
  const badSaves: [string, () => unknown, number, string][] = [
    [
      'a JPEG data URL',
      () => ({ title: 't', image: dataUrl(Buffer.from([0xff, 0xd8, 0xff, 0xe0]), 'image/jpeg') }),
      400,
      'body.image',
    ],
    ['GIF bytes labelled as PNG', () => ({ title: 't', image: dataUrl(gif) }), 400, 'body.image'],
    [
      'a PNG data URL that is not base64',
      () => ({ title: 't', image: 'data:image/png;base64,iVBO!!==' }),
      400,
      'body.image',
    ],
    ['an empty PNG data URL', () => ({ title: 't', image: 'data:image/png;base64,' }), 400, 'body.image'],
    ['no image', () => ({ title: 't' }), 400, 'body.image'],
    ['no title', () => ({ image: dataUrl(png(1)) }), 400, 'body.title'],
    ['an empty title', () => ({ title: '  ', image: dataUrl(png(1)) }), 400, 'body.title'],
    ['a title of 81 characters', () => ({ title: 't'.repeat(81), image: dataUrl(png(1)) }), 400, 'body.title'],
    ['a bad symbol', () => ({ symbol: 'NOT ONE!', title: 't', image: dataUrl(png(1)) }), 400, 'body.symbol'],
    [
      'a symbol outside the universe',
      () => ({ symbol: 'ZZZZZZ', title: 't', image: dataUrl(png(1)) }),
      400,
      'body.symbol',
    ],
    [
      'an image of 1.5 MB and one byte',
      () => ({ title: 't', image: dataUrl(pngOfSize(SNAPSHOT_MAX_BYTES + 1)) }),
      413,
      'body.image',
    ],
    [
      'a body over the route limit',
      () => ({ title: 't', image: `data:image/png;base64,${'A'.repeat(SNAPSHOT_BODY_LIMIT)}` }),
      413,
      'body',
    ],
  ];
  for (const [what, body, status, field] of badSaves) {
    it(`refuses ${what} with ${status} naming ${field}, saving nothing`, async function () {
      const user = await gw.user();
      const before = files();
      const res = await user.post('/personalize/snapshots', body());
      expect(res.status).to.equal(status, res.text);
      const message = (res.body as { message: string }).message;
      expect(message.startsWith(`${field}:`), message).to.equal(true);
      expect(await eventCount(user.username)).to.equal(0);
      expect(files()).to.deep.equal(before);
    });
  }

  it('says how large the image is and what is allowed when it is too large', async function () {
    const user = await gw.user();
    const res = await user.post('/personalize/snapshots', {
      title: 't',
      image: dataUrl(pngOfSize(SNAPSHOT_MAX_BYTES + 1)),
    });
    expect(res.body).to.include({
      error: 'payload_too_large',
      message: `body.image: the image is ${SNAPSHOT_MAX_BYTES + 1} bytes; at most ${SNAPSHOT_MAX_BYTES} bytes (1.5 MB)`,
      requestId: res.headers.get('x-request-id'),
    });
  });

  it('keeps the global body limit for other routes', async function () {
    const user = await gw.user();
    const res = await user.post('/personalize/createwatchlist', ['x'.repeat(200_000)]);
    expect(res.status).to.equal(413);
    expect((res.body as { message: string }).message).to.equal('body: larger than 65536 bytes');
  });

  it('refuses every snapshot route without a session, a large body included', async function () {
    const anonymous = gw.client();
    const id = '00000000-0000-5000-8000-000000000000';
    expect((await anonymous.get('/personalize/snapshots')).status).to.equal(401);
    expect((await getBytes(anonymous, `/personalize/snapshots/${id}/image`)).status).to.equal(401);
    expect((await anonymous.post(`/personalize/delsnapshot/${id}`)).status).to.equal(401);
    expect((await anonymous.post('/personalize/snapshots', { title: 't', image: dataUrl(png(1)) })).status).to.equal(
      401,
    );
    const large = { title: 't', image: dataUrl(pngOfSize(1_000_000)) };
    expect((await anonymous.post('/personalize/snapshots', large)).status).to.equal(401);
  });

  it('keeps the snapshots and their images across a restart', async function () {
    const gw2 = await startTestGateway();
    const user = await gw2.user();
    const image = freshPng();
    const saved = (await user.post('/personalize/snapshots', { title: 'kept', image: dataUrl(image) }))
      .body as SnapshotAnswer;
    const dataDir = gw2.dataDir;
    await gw2.close({ keepData: true });
    const restarted = await startTestGateway({ dataDir });
    try {
      const again = restarted.client();
      for (const [k, v] of user.cookies) again.cookies.set(k, v);
      expect((await again.get('/personalize/snapshots')).body).to.deep.equal([saved]);
      expect((await getBytes(again, `/personalize/snapshots/${saved.id}/image`)).bytes.equals(image)).to.equal(true);
    } finally {
      await restarted.close();
    }
  });
});
