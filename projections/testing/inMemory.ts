/**
 * For projection tests: recorded events with increasing positions, and a projection run over them on an
 * in-memory document map, through the same consumer the runner uses.
 */
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import { projectionConsumer, type Projection, type StoredDocument } from '../projection.ts';

let position = 0;

/** A recorded event of `userId` at the next log position. */
export function recorded(userId: string, type: string, data: unknown, concern = 'test'): RecordedEvent {
  position++;
  return {
    id: `e${position}`,
    type,
    streamId: `${concern}-${userId}`,
    revision: position,
    position: { commit: position, prepare: position },
    data,
    metadata: { userId },
    created: '2025-03-10T15:00:00.000Z',
  };
}

/**
 * Runs the projection's consumer over the events on a map of stored documents (a new one unless given, so a
 * replay can be applied to the same map) and answers the map; documents are cloned as a store would.
 */
export async function applyToDocuments<D>(
  projection: Projection<D>,
  events: readonly RecordedEvent[],
  docs = new Map<string, StoredDocument<D>>(),
): Promise<Map<string, StoredDocument<D>>> {
  const consumer = projectionConsumer(projection);
  const tx = {
    get: <T>(_collection: string, key: string) => Promise.resolve(docs.get(key) as T | undefined),
    put: (_collection: string, key: string, doc: unknown) =>
      void docs.set(key, structuredClone(doc) as StoredDocument<D>),
    delete: (_collection: string, key: string) => void docs.delete(key),
  };
  for (const event of events) {
    if (projection.handles.includes(event.type)) await consumer.handle(event, tx);
  }
  return docs;
}

/** Runs the projection over the events it handles and answers each document's value by key. */
export async function project<D>(projection: Projection<D>, events: readonly RecordedEvent[]): Promise<Map<string, D>> {
  const docs = await applyToDocuments(projection, events);
  return new Map([...docs].map(([key, stored]) => [key, stored.value]));
}
