import { join } from 'node:path';
import { expect } from 'chai';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../../domain/ids.ts';
import { formatPosition, type EventData } from '../../platform/eventstore/port.ts';
import { openSqliteEventStore } from '../../platform/eventstore/sqlite.ts';
import { openSqliteReadModelStore } from '../../platform/readmodels/sqlite.ts';
import { ALL_PROJECTIONS } from '../../projections/index.ts';
import { grantRole } from '../auth/grant.ts';
import type { RouteRequest } from '../http/route.ts';
import { startTestGateway, useTestGateway, type TestClient, type TestGateway } from '../testing/harness.ts';
import { maintRoutes } from './maint.ts';
import { openSqliteFile } from '../../platform/testing/sqliteFile.ts';

interface Status {
  market: { asOf: string; symbols: number; bars: number; lastTick: string | null; simulated: boolean };
  ticks: { source: string | null; live: boolean; ticksPerSec: number };
  projections: { name: string; position: string; behind: boolean; lagEvents: number; lagMs: number }[];
  events: { head: string };
}

interface Difference {
  collection: string;
  key: string | null;
  kind: string;
  path: string;
  live?: unknown;
  rebuilt?: unknown;
}

interface Job {
  jobId: string | null;
  state: 'idle' | 'running' | 'done' | 'failed';
  processed: number;
  total: number;
  differences: Difference[];
  differenceCount: number;
  collections: { collection: string; compared: number; differences: number }[];
  error: string | null;
  startedAt: string | null;
  finishedAt: string | null;
}

/** Appends `count` watch-list events straight to the log, in streams of 100, so a replay has work to do. */
async function bulkEvents(gw: TestGateway, count: number): Promise<void> {
  const events = gw.running.system.events;
  for (let stream = 0; stream * 100 < count; stream++) {
    const userId = `bulk${stream}`;
    const batch: EventData[] = Array.from({ length: Math.min(100, count - stream * 100) }, (_, i) => ({
      id: uuidV5(`bulk/${stream}/${i}`, STOCKPULSE_NAMESPACE),
      type: 'SymbolAddedToWatchlist',
      data: { symbol: `S${i}` },
      metadata: { userId },
    }));
    await events.appendToStream(`watchlist-${userId}`, batch);
  }
  const head = await events.headPosition();
  await gw.running.system.projections!.waitFor(head, ['SymbolAddedToWatchlist'], 30_000);
}

/** A signed-in user who holds the operator role. */
async function operator(gw: TestGateway, prefix?: string): Promise<TestClient & { readonly username: string }> {
  const user = await gw.user(prefix);
  await grantRole(gw.running.system.events, user.username, 'operator');
  await user.post('/api/login', { username: user.username, password: 'correct horse' });
  return user;
}

async function untilFinished(client: TestClient): Promise<{ job: Job; seen: Job[] }> {
  const seen: Job[] = [];
  for (;;) {
    const job = (await client.get('/api/maint/rebuild')).body as Job;
    seen.push(job);
    if (job.state !== 'running') return { job, seen };
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

describe('maint routes', function () {
  this.timeout(30_000);

  describe('status', function () {
    let gw: TestGateway;
    useTestGateway((started) => {
      gw = started;
    });

    it('reports the market data, the tick source, every projection and the head of the log', async function () {
      const user = await gw.user();
      await user.post('/personalize/createwatchlist', ['NVDA']);
      const res = await user.get('/api/maint/status');
      expect(res.status).to.equal(200, res.text);
      const status = res.body as Status;
      const market = (await user.get('/api/market/status')).body as { asOf: string; symbols: number; bars: number };
      expect(status.market).to.deep.include({
        asOf: market.asOf,
        symbols: market.symbols,
        bars: market.bars,
        lastTick: null,
        simulated: true,
      });
      expect(status.market.symbols).to.be.greaterThan(300);
      expect(status.ticks).to.deep.include({ source: 'feed', live: true, ticksPerSec: 0 });
      const head = await gw.running.system.events.headPosition();
      expect(status.events.head).to.equal(formatPosition(head));
      expect(status.projections.map((p) => p.name)).to.deep.equal(ALL_PROJECTIONS.map((p) => p.name));
      const watchlist = status.projections.find((p) => p.name === 'watchlist')!;
      expect(watchlist).to.deep.include({ behind: false, lagEvents: 0, lagMs: 0 });
      expect(watchlist.position).to.match(/^\d+\/\d+$/);
    });

    it('shows the time of the last tick once ticks flow', async function () {
      const user = await gw.user();
      const ts = Date.parse('2025-03-10T15:30:00.000Z');
      await gw.pushTicks([{ symbol: 'NVDA', price: 150.25, size: 10, ts }]);
      const status = (await user.get('/api/maint/status')).body as Status;
      expect(status.market.lastTick).to.be.a('string');
      expect(Date.parse(status.market.lastTick!)).to.be.at.least(ts);
    });

    it("shows no projection behind right after an auditor's read, an event no projection applies", async function () {
      const auditor = await gw.user('aud');
      await grantRole(gw.running.system.events, auditor.username, 'auditor');
      expect(
        (await auditor.post('/api/login', { username: auditor.username, password: 'correct horse' })).status,
      ).to.equal(200);
      const read = await auditor.get(`/api/audit/users/${auditor.username}/events`);
      expect(read.status).to.equal(200, read.text);
      const head = await gw.running.system.events.headPosition();
      const last = (await gw.running.system.events.readAll()).at(-1);
      expect(last!.streamId).to.equal(`audit-${auditor.username}`);
      const status = (await auditor.get('/api/maint/status')).body as Status;
      expect(status.events.head).to.equal(formatPosition(head));
      expect(status.projections.filter((p) => p.behind || p.lagEvents > 0).map((p) => p.name)).to.deep.equal([]);
    });

    it('refuses the Maint routes without a session', async function () {
      const anonymous = gw.client();
      expect((await anonymous.get('/api/maint/status')).status).to.equal(401);
      expect((await anonymous.get('/api/maint/rebuild')).status).to.equal(401);
      expect((await anonymous.post('/api/maint/rebuild')).status).to.equal(401);
    });

    it('refuses to start a rebuild check for a user who is not an operator, and starts nothing', async function () {
      const user = await gw.user();
      const before = ((await user.get('/api/maint/rebuild')).body as Job).jobId;
      const res = await user.post('/api/maint/rebuild');
      expect(res.status, res.text).to.equal(403);
      expect(res.body).to.include({ error: 'forbidden', message: 'this route is for operators' });
      expect(((await user.get('/api/maint/rebuild')).body as Job).jobId).to.equal(before);
    });

    it('lists the routes in the API reference', async function () {
      const doc = (await gw.client().get('/api/docs')).body as { paths: Record<string, Record<string, unknown>> };
      expect(doc.paths['/api/maint/status']).to.have.property('get');
      expect(doc.paths['/api/maint/rebuild']).to.have.keys('get', 'post');
    });
  });

  describe('projection lag without running projections', function () {
    it('counts the events each projection has still to apply from its checkpoint', async function () {
      const events = openSqliteEventStore({ file: ':memory:' });
      const readModels = openSqliteReadModelStore({ file: ':memory:' });
      try {
        await events.appendToStream(
          'watchlist-ada',
          ['A', 'B', 'C', 'D', 'E'].map((symbol, i) => ({
            id: uuidV5(`lag/${i}`, STOCKPULSE_NAMESPACE),
            type: 'SymbolAddedToWatchlist',
            data: { symbol },
            metadata: { userId: 'ada' },
          })),
        );
        await readModels.commit('projection:watchlist', { position: { commit: 2, prepare: 2 }, version: 1 }, []);
        const route = maintRoutes({
          events,
          readModels,
          market: {
            status: () => ({
              asOf: '2024-12-31',
              seed: 42,
              symbols: 0,
              bars: 0,
              from: null,
              to: null,
              source: 'simulated',
              importedSymbols: [],
            }),
            quotes: { quote: () => undefined, quotes: () => [] },
            companies: [],
          },
        }).find((r) => r.path === '/api/maint/status')!;
        const status = (await route.handle({} as RouteRequest<never, never, never>)) as Status;
        expect(status.ticks).to.deep.equal({
          source: null,
          live: false,
          health: null,
          feed: null,
          ticksPerSec: 0,
          ticks: 0,
          armedAlerts: 0,
        });
        expect(status.events.head).to.equal('5/5');
        const watchlist = status.projections.find((p) => p.name === 'watchlist')!;
        expect(watchlist).to.deep.include({ position: '2/2', behind: true, lagEvents: 3 });
        expect(watchlist.lagMs).to.be.at.least(0);
        // None of the events is an alert event: the alerts projection has nothing to apply.
        expect(status.projections.find((p) => p.name === 'alerts')).to.deep.include({
          position: '-1/-1',
          behind: false,
          lagEvents: 0,
          lagMs: 0,
        });
      } finally {
        await events.close();
        await readModels.close();
      }
    });
  });

  describe('rebuild check', function () {
    let gw: TestGateway;
    beforeEach(async function () {
      gw = await startTestGateway();
    });
    afterEach(async function () {
      await gw.close();
    });

    it('answers idle before any check', async function () {
      const user = await gw.user();
      expect((await user.get('/api/maint/rebuild')).body).to.deep.include({
        jobId: null,
        state: 'idle',
        processed: 0,
        total: 0,
        differences: [],
        startedAt: null,
        finishedAt: null,
      });
    });

    it('replays the whole log in slices while the gateway keeps answering, one check at a time, and finds no difference', async function () {
      await bulkEvents(gw, 30_000);
      const user = await operator(gw);
      await user.post('/personalize/createwatchlist', ['NVDA', 'AAPL']);
      const started = await user.post('/api/maint/rebuild');
      expect(started.status).to.equal(202, started.text);
      const { jobId } = started.body as { jobId: string; state: string };
      expect(started.body).to.deep.equal({ jobId, state: 'running' });

      const second = await user.post('/api/maint/rebuild');
      expect(second.status).to.equal(409);
      expect((second.body as { message: string }).message).to.contain(jobId);
      const status = await user.get('/api/maint/status');
      expect(status.status).to.equal(200);

      const { job, seen } = await untilFinished(user);
      const progress = seen.filter((j) => j.state === 'running');
      expect(progress.length, 'progress seen while running').to.be.greaterThan(0);
      expect(progress.every((j) => j.jobId === jobId && j.processed <= j.total)).to.equal(true);
      // The replay yields between pages: requests are answered part-way through it.
      expect(progress.some((j) => j.processed > 0 && j.processed < j.total)).to.equal(true);
      expect(job.state).to.equal('done', job.error ?? '');
      const head = await gw.running.system.events.headPosition();
      expect(job.processed).to.be.at.least(30_000);
      expect(job.processed).to.be.at.most(head.commit);
      expect(job.total).to.equal(job.processed);
      expect(job.differences).to.deep.equal([]);
      expect(job.differenceCount).to.equal(0);
      expect(job.collections.map((c) => c.collection)).to.deep.equal(ALL_PROJECTIONS.map((p) => p.name));
      expect(job.collections.find((c) => c.collection === 'watchlist')!.compared).to.be.at.least(301);
      expect(Date.parse(job.finishedAt!)).to.be.at.least(Date.parse(job.startedAt!));

      const next = await user.post('/api/maint/rebuild');
      expect(next.status).to.equal(202);
      expect((next.body as { jobId: string }).jobId).to.not.equal(jobId);
      expect((await untilFinished(user)).job.state).to.equal('done');
    });

    it("reports a damaged document, showing another user's key and contents only to auditors", async function () {
      const ada = await operator(gw, 'ada');
      const bob = await gw.user('bob');
      await ada.post('/personalize/createwatchlist', ['NVDA']);
      await bob.post('/personalize/createwatchlist', ['XOM']);
      const db = openSqliteFile(join(gw.dataDir, 'readmodels.db'));
      for (const username of [ada.username, bob.username]) {
        const row = db
          .prepare('SELECT doc FROM documents WHERE collection = ? AND key = ?')
          .get('watchlist', username) as { doc: string };
        const doc = JSON.parse(row.doc) as { value: { symbols: string[] } };
        db.prepare('UPDATE documents SET doc = ? WHERE collection = ? AND key = ?').run(
          JSON.stringify({ ...doc, value: { symbols: ['TSLA'] } }),
          'watchlist',
          username,
        );
      }
      db.close();

      expect((await ada.post('/api/maint/rebuild')).status).to.equal(202);
      const { job } = await untilFinished(ada);
      expect(job.state).to.equal('done', job.error ?? '');
      expect(job.differenceCount).to.equal(2);
      const own = job.differences.find((d) => d.key === ada.username)!;
      expect(own).to.deep.include({ collection: 'watchlist', kind: 'changed', path: 'value.symbols[0]' });
      expect((own.live as { value: unknown }).value).to.deep.equal({ symbols: ['TSLA'] });
      expect((own.rebuilt as { value: unknown }).value).to.deep.equal({ symbols: ['NVDA'] });
      const other = job.differences.find((d) => d.key !== ada.username)!;
      expect(other).to.deep.equal({ collection: 'watchlist', key: null, kind: 'changed', path: 'value.symbols[0]' });

      const auditor = await gw.user('aud');
      await grantRole(gw.running.system.events, auditor.username, 'auditor');
      await auditor.post('/api/login', { username: auditor.username, password: 'correct horse' });
      const seen = (await auditor.get('/api/maint/rebuild')).body as Job;
      expect(seen.differences.map((d) => d.key).sort()).to.deep.equal([ada.username, bob.username].sort());
      expect(seen.differences.every((d) => d.live !== undefined && d.rebuilt !== undefined)).to.equal(true);
    });
  });
});
