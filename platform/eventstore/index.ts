import { join } from 'node:path';
import type { Config } from '../config.ts';
import type { EventStore } from './port.ts';

export * from './port.ts';

/** File name of the embedded event log inside `DATA_DIR`. */
export const EVENTS_FILE = 'events.db';

/**
 * Opens the configured event store: EventStoreDB when `EVENTSTORE_URL` is set, else the SQLite log in
 * `DATA_DIR`. Each adapter is loaded only when chosen, so the embedded mode never loads the gRPC client.
 */
export async function openEventStore(config: Pick<Config, 'eventStoreUrl' | 'dataDir'>): Promise<EventStore> {
  if (config.eventStoreUrl !== null) {
    const { createEsdbEventStore } = await import('./esdb.ts');
    return createEsdbEventStore(config.eventStoreUrl);
  }
  const { openSqliteEventStore } = await import('./sqlite.ts');
  return openSqliteEventStore({ file: join(config.dataDir, EVENTS_FILE) });
}
