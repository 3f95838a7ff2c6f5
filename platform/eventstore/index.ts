import { join } from 'node:path';
import { loadChainKey, useChainKey } from '../audit/chainKey.ts';
import type { Config } from '../config.ts';
import type { EventStore } from './port.ts';

export * from './port.ts';

/** File name of the embedded event log inside `DATA_DIR`. */
export const EVENTS_FILE = 'events.db';

/**
 * Opens the configured event store, with the log's chain key (`platform/audit/chainKey.ts`): EventStoreDB when
 * `EVENTSTORE_URL` is set, else the SQLite log in `DATA_DIR`. Each adapter is loaded only when chosen, so the embedded mode never loads the gRPC client.
 */
export async function openEventStore(
  config: Pick<Config, 'eventStoreUrl' | 'dataDir' | 'chainKey'>,
): Promise<EventStore> {
  const key = loadChainKey(config);
  let store: EventStore;
  if (config.eventStoreUrl !== null) {
    const { createEsdbEventStore } = await import('./esdb.ts');
    store = createEsdbEventStore(config.eventStoreUrl);
  } else {
    const { openSqliteEventStore } = await import('./sqlite.ts');
    store = openSqliteEventStore({ file: join(config.dataDir, EVENTS_FILE) });
  }
  useChainKey(store, key);
  return store;
}
