/**
 * One projection per query: `{name, version, handles, evolve(doc, event)}`. The runner keeps one document per
 * key (usually the user), stamped with the log position it reflects, and applies an event only when its
 * position is past the document's, so a replay is a no-op. A read model that an event changes in several
 * documents (a long history kept in pages) writes them itself with `write(event, tx)`, by the same rules.
 */
import type { Decider, DomainEvent } from '../domain/decider.ts';
import { isAfter, type LogPosition, type RecordedEvent } from '../platform/eventstore/port.ts';
import type { ReadModelStore } from '../platform/readmodels/port.ts';
import type { Consumer, ConsumerTx } from '../platform/subscriptions/runner.ts';

/** What every read model built from the log has. */
interface ProjectionBase {
  /** Unique name; also the collection its documents live in and the consumer's checkpoint name. */
  readonly name: string;
  /** Bumping it rebuilds the read model from the whole log. */
  readonly version: number;
  /** The event types it reads. */
  readonly handles: readonly string[];
}

/** A read model of one document per key, each the fold of its events. */
export interface DocumentProjection<D> extends ProjectionBase {
  /** The key of the document an event changes (the user id by default); null to ignore the event. */
  readonly key?: (event: RecordedEvent) => string | null;
  /** The new document after the event, or null to delete it. */
  evolve(doc: D | undefined, event: RecordedEvent): D | null;
}

/**
 * A read model that writes the documents of an event itself, in its own collection: each as a
 * {@link StoredDocument} stamped with the event's position, an event not past its documents' position
 * changing nothing (a replay is a no-op, and the rebuild check compares them as any other).
 */
export interface WriterProjection extends ProjectionBase {
  write(event: RecordedEvent, tx: ConsumerTx): Promise<void>;
}

/** A read model built from the log. */
export type Projection<D> = DocumentProjection<D> | WriterProjection;

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
  const base = {
    name: `projection:${projection.name}`,
    version: projection.version,
    collections: [projection.name],
    filter: { eventTypes: projection.handles },
  };
  if ('write' in projection) return { ...base, handle: (event, tx) => projection.write(event, tx) };
  const keyOf = projection.key ?? userKey;
  return {
    ...base,
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
