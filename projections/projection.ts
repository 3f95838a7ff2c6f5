/**
 * One projection per query: `{name, version, handles, evolve(doc, event)}`. The runner keeps one document per
 * key (usually the user), stamped with the log position it reflects, and applies an event only when its
 * position is past the document's, so a replay is a no-op.
 */
import type { Decider, DomainEvent } from '../domain/decider.ts';
import { isAfter, type LogPosition, type RecordedEvent } from '../platform/eventstore/port.ts';
import type { ReadModelStore } from '../platform/readmodels/port.ts';
import type { Consumer } from '../platform/subscriptions/runner.ts';

/** A read model built from the log. */
export interface Projection<D> {
  /** Unique name; also the collection its documents live in and the consumer's checkpoint name. */
  readonly name: string;
  /** Bumping it rebuilds the read model from the whole log. */
  readonly version: number;
  /** The event types it reads. */
  readonly handles: readonly string[];
  /** The key of the document an event changes (the user id by default); null to ignore the event. */
  readonly key?: (event: RecordedEvent) => string | null;
  /** The new document after the event, or null to delete it. */
  evolve(doc: D | undefined, event: RecordedEvent): D | null;
}

/** A stored read-model document: the value served, and the log position it reflects. */
export interface StoredDocument<D> {
  /** Every event up to this position is reflected. */
  readonly position: LogPosition;
  /** The document. */
  readonly value: D;
}

/** When the event happened: the command's time from its metadata, else when the store recorded it. */
export function eventTime(event: RecordedEvent): string {
  return typeof event.metadata.at === 'string' ? event.metadata.at : event.created;
}

/** The user id of an event (from its metadata), the default document key. */
export function userKey(event: RecordedEvent): string | null {
  const userId = event.metadata.userId;
  return typeof userId === 'string' ? userId : null;
}

/** The projection as a consumer of the checkpointed runner. */
export function projectionConsumer<D>(projection: Projection<D>): Consumer {
  const keyOf = projection.key ?? userKey;
  return {
    name: `projection:${projection.name}`,
    version: projection.version,
    collections: [projection.name],
    filter: { eventTypes: projection.handles },
    handle: async (event, tx) => {
      const key = keyOf(event);
      if (key === null) return;
      const stored = await tx.get<StoredDocument<D>>(projection.name, key);
      if (stored && !isAfter(event.position, stored.position)) return;
      const next = projection.evolve(stored?.value, event);
      if (next === null) tx.delete(projection.name, key);
      else tx.put(projection.name, key, { position: event.position, value: next } satisfies StoredDocument<D>);
    },
  };
}

/** A projection whose document is a decider's state: the query side folds with the command side's `evolve`. */
export function deciderProjection<C, E extends DomainEvent, S>(
  name: string,
  version: number,
  decider: Decider<C, E, S>,
  handles: readonly E['type'][],
): Projection<S> {
  return {
    name,
    version,
    handles,
    evolve: (doc, event) => decider.evolve(doc ?? decider.initialState, { type: event.type, data: event.data } as E),
  };
}

/** Reads one document of a projection. */
export function readDocument<D>(
  readModels: ReadModelStore,
  projection: Pick<Projection<D>, 'name'>,
  key: string,
): Promise<StoredDocument<D> | undefined> {
  return readModels.get<StoredDocument<D>>(projection.name, key);
}
