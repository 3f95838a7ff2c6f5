import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ALERTS_CONCERN, alertKey, alertsDecider, type AlertsCommand } from '../domain/alerts/alerts.ts';
import type { CommandMeta } from '../domain/decider.ts';
import { streamName } from '../domain/ids.ts';
import { WATCHLIST_CONCERN, watchlistDecider, type WatchlistState } from '../domain/watchlist/watchlist.ts';
import { handleCommand } from '../platform/commandHandler.ts';
import { openSqliteEventStore, type SqliteEventStore } from '../platform/eventstore/sqlite.ts';
import { openReadModelStore } from '../platform/readmodels/index.ts';
import type { ReadModelStore } from '../platform/readmodels/port.ts';
import { connectRedis, type RedisClient } from '../platform/redis.ts';
import { startTestRedis, type TestRedis } from '../platform/testing/redisServer.ts';
import { alertsProjection, type AlertDocument } from './alerts/alerts.projection.ts';
import { startProjections, type RunningProjections } from './index.ts';
import { readDocument } from './projection.ts';
import { watchlistProjection } from './watchlist/watchlist.projection.ts';

/** Polls `read` until `done` accepts what it answers (a read that fails, Redis being down, is tried again). */
async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    try {
      last = await read();
      if (done(last)) return last;
    } catch {
      // Redis is down or reconnecting: read again.
    }
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms; last read: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('Projections on Redis read models that lose their data', function () {
  this.timeout(60_000);
  let dir: string;
  let events: SqliteEventStore;
  let server: TestRedis;
  let restarted: TestRedis | undefined;
  let client: RedisClient;
  let admin: RedisClient;
  let readModels: ReadModelStore;
  let running: RunningProjections;
  let failures: string[];
  let n = 0;

  const meta = (userId: string): CommandMeta => {
    n += 1;
    return { commandId: `cmd-${n}`, userId, at: new Date().toISOString(), actor: `user:${userId}` };
  };

  async function watch(userId: string, symbols: string[]): Promise<void> {
    const command = { type: 'AddSymbolsToWatchlist' as const, data: { symbols } };
    await handleCommand(events, watchlistDecider, streamName(WATCHLIST_CONCERN, userId), command, meta(userId));
  }

  async function createAlert(userId: string): Promise<string> {
    const alertId = randomUUID();
    const command: AlertsCommand = {
      type: 'CreateAlert',
      data: {
        alertId,
        symbol: 'AAPL',
        kind: 'PRICE',
        alerttype: 'U',
        threshold: 190,
        period: null,
        at: new Date().toISOString(),
      },
    };
    await handleCommand(events, alertsDecider, streamName(ALERTS_CONCERN, userId), command, meta(userId));
    return alertId;
  }

  const symbolsOf = async (userId: string): Promise<readonly string[] | undefined> =>
    (await readDocument<WatchlistState>(readModels, watchlistProjection, userId))?.value.symbols;
  const alertOf = (userId: string, alertId: string) =>
    readDocument<AlertDocument>(readModels, alertsProjection, alertKey(userId, alertId));
  const same = (expected: readonly string[]) => (symbols: readonly string[] | undefined) =>
    JSON.stringify(symbols) === JSON.stringify(expected);

  beforeEach(async function () {
    dir = mkdtempSync(join(tmpdir(), 'sp-redis-recovery-'));
    events = openSqliteEventStore({ file: join(dir, 'events.db') });
    server = await startTestRedis();
    restarted = undefined;
    client = await connectRedis(server.url);
    admin = await connectRedis(server.url);
    // As the projections process opens it with REDIS_URL set: Redis, on a client it shares.
    readModels = openReadModelStore({ dataDir: dir }, client);
    failures = [];
    running = await startProjections(events, readModels, undefined, {
      onError: (name, error) => failures.push(`${name}: ${error.name}: ${error.message}`),
      // Checked often, so a loss with no event after it is seen in a test's time.
      verifyMs: 100,
    });
    await running.caughtUp;
  });

  afterEach(async function () {
    await running?.stop();
    await readModels?.close();
    await events?.close();
    if (client?.isOpen) await client.quit();
    if (admin?.isOpen) await admin.quit();
    await restarted?.stop();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('rebuilds every read model from the log when Redis is flushed, with no event appended after it', async function () {
    await watch('ada', ['AAPL']);
    const alertId = await createAlert('ada');
    await until('ada watches AAPL', () => symbolsOf('ada'), same(['AAPL']));
    const before = new Map(await readModels.listCheckpoints());
    expect([...before.keys()]).to.include('projection:watchlist');

    await admin.flushAll();

    // No event comes: the projections notice the loss themselves and replay the log.
    await until('ada watches AAPL again', () => symbolsOf('ada'), same(['AAPL']));
    await until(
      "ada's alert is back",
      () => alertOf('ada', alertId),
      (doc) => doc !== undefined,
    );
    await until(
      'every checkpoint is back where it was',
      () => readModels.listCheckpoints(),
      (after) => [...before].every(([name, c]) => JSON.stringify(after.get(name)) === JSON.stringify(c)),
    );
    expect(failures.find((f) => f.startsWith('watchlist:'))).to.contain('ReadModelStateLostError');
  });

  it('rebuilds every read model from the log when Redis is flushed, old and new events together', async function () {
    await watch('ada', ['AAPL']);
    await watch('bob', ['TSLA']);
    const alertId = await createAlert('ada');
    await until('ada watches AAPL', () => symbolsOf('ada'), same(['AAPL']));
    await until(
      "ada's alert is in the read model",
      () => alertOf('ada', alertId),
      (doc) => doc !== undefined,
    );

    await admin.flushAll();
    await watch('ada', ['MSFT']);

    await until('ada watches AAPL and MSFT', () => symbolsOf('ada'), same(['AAPL', 'MSFT']));
    await until('bob still watches TSLA', () => symbolsOf('bob'), same(['TSLA']));
    await until(
      "ada's alert is back",
      () => alertOf('ada', alertId),
      (doc) => doc !== undefined,
    );
    expect(failures.some((f) => f.startsWith('watchlist: ReadModelStateLostError'))).to.equal(true);
    expect(failures.find((f) => f.startsWith('watchlist:'))).to.contain('"projection:watchlist"');
    // Read-your-writes holds again once the projections have replayed the log.
    await watch('bob', ['NVDA']);
    const head = await events.headPosition();
    await running.waitFor(head, ['SymbolAddedToWatchlist'], 20_000);
    expect(await symbolsOf('bob')).to.deep.equal(['TSLA', 'NVDA']);
    expect((await running.lags()).filter((lag) => lag.behind)).to.deep.equal([]);
  });

  it('catches up after Redis was down while an event was appended, and came back empty', async function () {
    await watch('ada', ['AAPL']);
    await until('ada watches AAPL', () => symbolsOf('ada'), same(['AAPL']));

    await server.stop();
    await watch('ada', ['MSFT']);
    // Started again where it was, without the data it had.
    restarted = await startTestRedis(server.port);

    await until('ada watches AAPL and MSFT', () => symbolsOf('ada'), same(['AAPL', 'MSFT']));
    await watch('ada', ['NVDA']);
    await running.waitFor(await events.headPosition(), ['SymbolAddedToWatchlist'], 20_000);
    expect(await symbolsOf('ada')).to.deep.equal(['AAPL', 'MSFT', 'NVDA']);
    expect(failures.find((f) => f.startsWith('watchlist:'))).to.contain('ReadModelStateLostError');
  });
});
