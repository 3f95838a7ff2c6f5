/**
 * Tamper evidence: every user event carries `prevHash` (the hash of the previous event of its stream, or
 * {@link GENESIS_HASH} for the first) and `hash`, a SHA-256 over the stream, revision, type, data and the
 * rest of the metadata. Changing, removing or reordering a stored event breaks the chain from there on.
 */
import { createHash } from 'node:crypto';
import type { EventData, EventMetadata, RecordedEvent } from '../eventstore/port.ts';

/** `prevHash` of the first event of a stream. */
export const GENESIS_HASH = '0'.repeat(64);

/** JSON with object keys sorted at every level, so equal values always hash alike. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The hash of one event at its place in its stream (`metadata.hash` itself left out). */
export function eventHash(
  stream: string,
  revision: number,
  type: string,
  data: unknown,
  metadata: EventMetadata,
): string {
  const { hash: _ignored, ...rest } = metadata;
  return createHash('sha256')
    .update(canonicalJson({ stream, revision, type, data, metadata: rest }))
    .digest('hex');
}

/** Adds `prevHash` and `hash` to events about to be appended after `previous` (undefined for a new stream). */
export function chainEvents(
  stream: string,
  previous: { revision: number; metadata: EventMetadata } | undefined,
  events: readonly EventData[],
): EventData[] {
  let prevHash = typeof previous?.metadata.hash === 'string' ? previous.metadata.hash : GENESIS_HASH;
  let revision = previous ? previous.revision : -1;
  return events.map((event) => {
    revision += 1;
    const metadata: EventMetadata = { ...(event.metadata ?? {}), prevHash };
    const hash = eventHash(stream, revision, event.type, event.data, metadata);
    prevHash = hash;
    return { ...event, metadata: { ...metadata, hash } };
  });
}

/** Where a chain breaks, and why. */
export interface ChainBreak {
  /** The stream. */
  readonly stream: string;
  /** The revision of the first event that does not verify. */
  readonly revision: number;
  /** The event's id. */
  readonly eventId: string;
  /** What is wrong. */
  readonly reason: string;
}

/** Walks one stream's events in revision order and names the first break, or null when the chain holds. */
export function verifyStream(events: readonly RecordedEvent[]): ChainBreak | null {
  let prevHash = GENESIS_HASH;
  let expectedRevision = 0;
  for (const event of events) {
    const at = { stream: event.streamId, revision: event.revision, eventId: event.id };
    if (event.revision !== expectedRevision) {
      return { ...at, reason: `revision ${event.revision} follows ${expectedRevision - 1}: events are missing` };
    }
    if (event.metadata.prevHash !== prevHash) {
      return { ...at, reason: 'prevHash does not match the hash of the previous event' };
    }
    const hash = eventHash(event.streamId, event.revision, event.type, event.data, event.metadata);
    if (event.metadata.hash !== hash) return { ...at, reason: 'hash does not match the event: it was altered' };
    prevHash = hash;
    expectedRevision += 1;
  }
  return null;
}
