/**
 * `npm run rebuild`: replays the whole log of the configured event store into fresh read models (a new SQLite
 * file in a temporary folder), compares them with the live read models (the SQLite file in `DATA_DIR`, or
 * Redis when `REDIS_URL` is set), prints every difference and a summary, and exits 1 when a document differs
 * (0 when all match, 2 when there is nothing to compare with). The live read models are only read.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { READ_MODELS_FILE } from '../platform/readmodels/index.ts';
import { loadConfig, type Config } from '../platform/config.ts';
import { formatPosition, isAfter, openEventStore } from '../platform/eventstore/index.ts';
import type { ReadModelStore } from '../platform/readmodels/port.ts';
import { openSqliteReadModelStore } from '../platform/readmodels/sqlite.ts';
import { ALL_PROJECTIONS } from '../projections/index.ts';
import { compareReadModels, rebuildReadModels, type RebuildProgress } from '../projections/rebuild.ts';
import { consoleIo, isMain, type ScriptIo } from './scriptIo.ts';

const BAR_WIDTH = 30;

/** A one-line progress bar: share of the log replayed (by position), events read and the rate so far. */
export function progressBar(progress: RebuildProgress, seconds: number): string {
  const { head, position } = progress;
  const share = head.commit <= 0 ? 1 : Math.min(1, Math.max(0, position.commit / head.commit));
  const filled = Math.round(share * BAR_WIDTH);
  const rate = seconds > 0 ? Math.round(progress.events / seconds) : 0;
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${String(Math.round(share * 100)).padStart(3)}%  ${progress.events.toLocaleString('en-US')} events  ${rate.toLocaleString('en-US')} events/s`;
}

function shown(value: unknown): string {
  const text = value === undefined ? 'absent' : JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

function valueAt(doc: unknown, path: string): unknown {
  if (path === '(document)') return doc;
  let value: unknown = doc;
  for (const part of path.match(/[^.[\]]+/g) ?? []) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** The live read models as the gateway opens them: Redis when `REDIS_URL` is set, else the SQLite file. */
async function openLiveReadModels(config: Config, liveFile: string): Promise<ReadModelStore> {
  if (config.redisUrl === null) return openSqliteReadModelStore({ file: liveFile });
  const { connectRedis } = await import('../platform/redis.ts');
  const { RedisReadModelStore } = await import('../platform/readmodels/redis.ts');
  return new RedisReadModelStore(await connectRedis(config.redisUrl));
}

/** Runs the rebuild and the comparison against what `env` configures; answers the exit code. */
export async function runRebuild(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  io: ScriptIo = consoleIo,
): Promise<number> {
  if (args.length !== 0) {
    io.err('usage: npm run rebuild   (DATA_DIR and EVENTSTORE_URL select the log and the live read models)');
    return 2;
  }
  const config = loadConfig(env);
  const liveFile = join(config.dataDir, READ_MODELS_FILE);
  if (config.redisUrl === null && !existsSync(liveFile)) {
    io.err(`rebuild refused: no live read models at ${liveFile}`);
    return 2;
  }
  const events = await openEventStore(config);
  const live = await openLiveReadModels(config, liveFile).catch(async (error: unknown) => {
    await events.close();
    throw error;
  });
  const work = mkdtempSync(join(tmpdir(), 'sp-rebuild-'));
  const fresh = openSqliteReadModelStore({ file: join(work, READ_MODELS_FILE) });
  try {
    const started = process.hrtime.bigint();
    let drawn = -Infinity;
    const result = await rebuildReadModels(events, fresh, ALL_PROJECTIONS, {
      onProgress: (p) => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        // A redraw every 0.1 s is enough for the eye and keeps the terminal out of the measured replay.
        if (seconds - drawn < 0.1 && isAfter(p.head, p.position)) return;
        drawn = seconds;
        io.progress?.(progressBar(p, seconds));
      },
    });
    io.progress?.('');
    io.out(
      `replayed ${result.events.toLocaleString('en-US')} events up to ${formatPosition(result.head)} through ` +
        `${ALL_PROJECTIONS.length} projections in ${result.seconds.toFixed(2)} s: ` +
        `${result.eventsPerSec.toLocaleString('en-US')} events/s`,
    );
    const comparison = await compareReadModels(live, fresh, result.head, ALL_PROJECTIONS);
    io.out('collection            documents  differences  skipped  live checkpoint');
    for (const c of comparison.collections) {
      io.out(
        `${c.collection.padEnd(20)}  ${String(c.compared).padStart(9)}  ${String(c.differences).padStart(11)}  ` +
          `${String(c.skipped).padStart(7)}  ${c.liveCheckpoint ?? 'none'}${c.liveBehind ? ' (behind the log)' : ''}`,
      );
    }
    for (const d of comparison.differences) {
      const what =
        d.kind === 'missing'
          ? 'missing from the live read models'
          : d.kind === 'extra'
            ? 'in the live read models but not made by the log'
            : `differs at ${d.path}: live ${shown(valueAt(d.live, d.path))}, rebuilt ${shown(valueAt(d.rebuilt, d.path))}`;
      io.out(`difference: ${d.collection} ${JSON.stringify(d.key)} ${what}`);
    }
    const documents = comparison.collections.reduce((n, c) => n + c.compared, 0);
    if (comparison.differences.length === 0) {
      io.out(`read models match the log: ${documents} documents in ${comparison.collections.length} collections`);
      return 0;
    }
    const behind = comparison.collections.filter((c) => c.liveBehind && c.differences > 0).map((c) => c.collection);
    io.out(
      `${comparison.differences.length} of ${documents} documents differ` +
        (behind.length > 0
          ? ` (live ${behind.join(', ')} had not reached the log's head or was of another version: may be lag)`
          : ''),
    );
    return 1;
  } finally {
    await fresh.close();
    await live.close();
    await events.close();
    rmSync(work, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  process.exitCode = await runRebuild(process.argv.slice(2));
}
