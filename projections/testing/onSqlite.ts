/**
 * For projection tests through the path production takes: projections run by their checkpointed runners over a
 * SQLite log, into SQLite read models, both in a directory of their own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventData } from '../../platform/eventstore/port.ts';
import { openSqliteEventStore, type SqliteEventStore } from '../../platform/eventstore/sqlite.ts';
import { openSqliteReadModelStore, type SqliteReadModelStore } from '../../platform/readmodels/sqlite.ts';
import { startProjections, type RunningProjections } from '../index.ts';
import type { Projection } from '../projection.ts';

/** Running projections on their own SQLite files. */
export interface ProjectionsOnSqlite {
  readonly events: SqliteEventStore;
  readonly readModels: SqliteReadModelStore;
  readonly running: RunningProjections;
  /** Appends to a stream and waits until every projection reflects it. */
  append(stream: string, batch: readonly EventData[]): Promise<void>;
  /** Stops the projections, closes the stores and removes their files. */
  close(): Promise<void>;
}

/** Starts `projections` on a new SQLite log and new SQLite read models. */
export async function projectionsOnSqlite(projections: readonly Projection<unknown>[]): Promise<ProjectionsOnSqlite> {
  const dir = mkdtempSync(join(tmpdir(), 'sp-projections-'));
  const events = openSqliteEventStore({ file: join(dir, 'events.db') });
  const readModels = openSqliteReadModelStore({ file: join(dir, 'readmodels.db') });
  const running = await startProjections(events, readModels, projections);
  const handles = [...new Set(projections.flatMap((projection) => projection.handles))];
  return {
    events,
    readModels,
    running,
    append: async (stream, batch) => {
      const { position } = await events.appendToStream(stream, batch);
      await running.waitFor(position, handles);
    },
    close: async () => {
      await running.stop();
      await events.close();
      await readModels.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
