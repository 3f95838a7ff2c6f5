import type { Consumer } from '../runner.ts';

/** A consumer for tests: counts events per stream and remembers the ids it applied, so a double apply shows. */
export function countingConsumer(name: string, prefix: string, version = 1): Consumer {
  return {
    name,
    version,
    collections: [`${name}-counts`],
    filter: { streamPrefixes: [prefix] },
    handle: async (event, tx) => {
      const doc = (await tx.get<{ count: number; last: number }>(`${name}-counts`, event.streamId)) ?? {
        count: 0,
        last: -1,
      };
      if (event.revision !== doc.last + 1) {
        throw new Error(`${event.streamId}: revision ${event.revision} applied after ${doc.last}`);
      }
      tx.put(`${name}-counts`, event.streamId, {
        count: doc.count + 1,
        last: event.revision,
      });
    },
  };
}
