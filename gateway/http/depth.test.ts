import { expect } from 'chai';
import { useTestGateway, type TestGateway } from '../testing/harness.ts';
import { MAX_JSON_DEPTH, jsonDepth } from './depth.ts';

const FEED_TOKEN = 'feed-token-for-depth-tests';

/** Arrays nested `depth` deep around one number, as a hostile client sends them. */
function nestedArrays(depth: number): string {
  return `${'['.repeat(depth)}1${']'.repeat(depth)}`;
}

describe('JSON nesting limit', function () {
  it('counts nesting without counting brackets inside strings', function () {
    expect(jsonDepth('{"a":[{"b":"[[[{{{"}]}')).to.equal(3);
    expect(jsonDepth('"\\"[["')).to.equal(0);
    expect(jsonDepth(nestedArrays(5000))).to.equal(5000);
  });

  describe('over HTTP', function () {
    let gw: TestGateway;
    useTestGateway({ env: { FEED_TOKEN } }, (started) => {
      gw = started;
    });

    const deep = nestedArrays(4125);

    for (const path of [
      '/personalize/stockalertquery',
      '/api/screener/run',
      '/personalize/createwatchlist',
      '/api/register',
    ]) {
      it(`refuses arrays nested 4125 deep on ${path} with 400 naming the body`, async function () {
        const user = await gw.user();
        const res = await user.postInput(path, { raw: deep });
        expect(res.status, res.text).to.equal(400);
        expect(res.body).to.include({
          error: 'bad_request',
          message: `body: nested deeper than ${MAX_JSON_DEPTH} levels`,
        });
      });
    }

    it('refuses a deep query value inside an otherwise valid body', async function () {
      const user = await gw.user();
      const raw = `{"queryname":"deep","query":[{"type":"rsi","param":14,"op":">","val":${nestedArrays(200)}}]}`;
      const res = await user.postInput('/personalize/stockalertquery', { raw });
      expect(res.status, res.text).to.equal(400);
      expect((res.body as { message: string }).message).to.match(/^body: nested deeper/);
    });

    it('validates a body nested exactly as deep as allowed (the field is named, not the depth)', async function () {
      const user = await gw.user();
      const raw = `{"queryname":"deep","query":[{"type":"rsi","param":14,"op":">","val":${nestedArrays(MAX_JSON_DEPTH - 3)}}]}`;
      const res = await user.postInput('/personalize/stockalertquery', { raw });
      expect(res.status, res.text).to.equal(400);
      expect((res.body as { message: string }).message).to.match(/^body\.query/);
    });

    it('refuses deep nesting on the feed ingestion route', async function () {
      const res = await gw.client().postInput('/api/feed/ticks', {
        raw: deep,
        headers: { authorization: `Bearer ${FEED_TOKEN}` },
      });
      expect(res.status, res.text).to.equal(400);
      expect((res.body as { message: string }).message).to.match(/^body: nested deeper/);
    });
  });
});
