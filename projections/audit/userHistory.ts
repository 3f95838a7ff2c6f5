/**
 * One user's history as an auditor reads it: the user's stream of every registered concern, read with
 * `readStream` and merged by log position, so the cost is O(that user's events) on every adapter, never a
 * scan of the whole log.
 */
import { ACCOUNT_CONCERN } from '../../domain/accounts/accounts.ts';
import { USER_CONCERNS, type UserConcern } from '../../domain/concerns.ts';
import { streamName } from '../../domain/ids.ts';
import { chainKeyOf } from '../../platform/audit/chainKey.ts';
import { GENESIS_HASH, eventHash } from '../../platform/audit/hashChain.ts';
import {
  StreamNotFoundError,
  comparePositions,
  formatPosition,
  isSystemEventType,
  type EventStore,
  type LogPosition,
  type RecordedEvent,
} from '../../platform/eventstore/port.ts';
import { lastInstantOf } from '../../domain/contract/audit.ts';
import { eventTime } from '../projection.ts';

/** One concern's stream of the user, in revision order. */
export interface UserStream {
  /** The registered concern. */
  readonly concern: UserConcern;
  /** The stream name, `<concern>-<username>`. */
  readonly stream: string;
  /** Its events (empty when the stream does not exist). */
  readonly events: readonly RecordedEvent[];
}

/** Everything a user did, per stream and merged. */
export interface UserHistory {
  /** The user. */
  readonly username: string;
  /** One entry per registered concern, in registry order. */
  readonly streams: readonly UserStream[];
  /** Every event of those streams in log order. */
  readonly events: readonly RecordedEvent[];
  /** The log's chain key, which keyed hashes are checked with (none for a log without one). */
  readonly chainKey?: Buffer | undefined;
}

/** An event as the audit routes answer it: where it is, who did it when, and whether its hash verifies. */
export interface AuditedEvent {
  /** The event id. */
  readonly id: string;
  /** Its stream. */
  readonly stream: string;
  /** Its type. */
  readonly type: string;
  /** Its revision within the stream. */
  readonly revision: number;
  /** Its log position, `commit/prepare`. */
  readonly position: string;
  /** When it happened (ISO). */
  readonly at: string;
  /** Who caused it (`user:<id>`, `engine`, …), or null when not recorded. */
  readonly actor: string | null;
  /** Its payload, with secrets redacted. */
  readonly data: unknown;
  /** Whether its hash and its link to the previous event verify; absent for an event without a hash. */
  readonly hashOk?: boolean;
}

/** What a redacted secret is replaced with. */
export const REDACTED = '[redacted]';

/** Keys whose values never leave the server, at any depth of a payload or a state (`auth`: a browser's push secret). */
export const REDACTED_KEYS: ReadonlySet<string> = new Set(['password', 'passwordHash', 'auth']);

/** A JSON-safe deep copy with every {@link REDACTED_KEYS} value replaced; Maps become objects, Sets arrays. */
export function redact(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value === undefined ? null : value;
  if (Array.isArray(value)) return value.map(redact);
  if (value instanceof Set) return [...(value as Set<unknown>)].map(redact);
  if (value instanceof Date) return value.toISOString();
  const entries: [string, unknown][] =
    value instanceof Map
      ? [...(value as Map<unknown, unknown>)].map(([k, v]) => [String(k), v])
      : Object.entries(value as Record<string, unknown>);
  const out: Record<string, unknown> = {};
  for (const [key, inner] of entries) {
    if (inner === undefined) continue;
    out[key] = REDACTED_KEYS.has(key) ? REDACTED : redact(inner);
  }
  return out;
}

async function readWholeStream(store: EventStore, stream: string): Promise<RecordedEvent[]> {
  try {
    return (await store.readStream(stream)).filter((e) => !isSystemEventType(e.type));
  } catch (error) {
    if (error instanceof StreamNotFoundError) return [];
    throw error;
  }
}

/**
 * Reads the user's stream of every registered concern and merges them by position; null when the user has
 * no account (the `account-<username>` stream does not exist).
 */
export async function loadUserHistory(
  store: EventStore,
  username: string,
  concerns: readonly UserConcern[] = USER_CONCERNS,
): Promise<UserHistory | null> {
  const streams = await Promise.all(
    concerns.map(async (concern) => {
      const stream = streamName(concern.concern, username);
      return { concern, stream, events: await readWholeStream(store, stream) };
    }),
  );
  const account = streams.find((s) => s.concern.concern === ACCOUNT_CONCERN);
  const exists = account
    ? account.events.length > 0
    : (await readWholeStream(store, streamName(ACCOUNT_CONCERN, username))).length > 0;
  if (!exists) return null;
  const events = streams.flatMap((s) => s.events).sort((a, b) => comparePositions(a.position, b.position));
  return { username, streams, events, chainKey: chainKeyOf(store) };
}

/**
 * Whether each event's hash verifies and links to the stored hash of the event before it (by event id); an
 * event without a hash gets no mark. Only the altered event is marked, not everything after it.
 */
export function hashMarks(history: UserHistory): Map<string, boolean> {
  const marks = new Map<string, boolean>();
  for (const { events } of history.streams) {
    let prevHash: unknown = GENESIS_HASH;
    let expectedRevision = 0;
    for (const event of events) {
      const { hash } = event.metadata;
      if (typeof hash === 'string') {
        const ok =
          event.revision === expectedRevision &&
          event.metadata.prevHash === prevHash &&
          eventHash(event.streamId, event.revision, event.type, event.data, event.metadata, history.chainKey) === hash;
        marks.set(event.id, ok);
      }
      prevHash = hash;
      expectedRevision = event.revision + 1;
    }
  }
  return marks;
}

/** An event in the shape the audit routes answer, secrets redacted. */
export function auditedEvent(event: RecordedEvent, hashOk: boolean | undefined): AuditedEvent {
  const actor = event.metadata.actor;
  return {
    id: event.id,
    stream: event.streamId,
    type: event.type,
    revision: event.revision,
    position: formatPosition(event.position),
    at: eventTime(event),
    actor: typeof actor === 'string' ? actor : null,
    data: redact(event.data),
    ...(hashOk === undefined ? {} : { hashOk }),
  };
}

/** Which events of a history a page shows. */
export interface HistoryFilter {
  /** Only these event types; every type when empty or absent. */
  readonly types?: readonly string[];
  /** Only events at or after this time (ISO). */
  readonly from?: string;
  /** Only events at or before this time (ISO), all of the second (or minute) it names. */
  readonly to?: string;
  /** Only events after this position (the previous page's `next`). */
  readonly after?: LogPosition;
  /** Most events in the page. */
  readonly limit: number;
}

/** One page of a user's history. */
export interface HistoryPage {
  /** The events, in log order. */
  readonly events: readonly AuditedEvent[];
  /** The position to pass as `after` for the next page, or null when this is the last. */
  readonly next: string | null;
}

/** The page of a history that a filter selects, each event marked with whether its hash verifies. */
export function historyPage(history: UserHistory, filter: HistoryFilter): HistoryPage {
  const types = filter.types && filter.types.length > 0 ? new Set(filter.types) : null;
  const from = filter.from === undefined ? -Infinity : Date.parse(filter.from);
  const to = filter.to === undefined ? Infinity : lastInstantOf(filter.to);
  const matching = history.events.filter((event) => {
    if (types && !types.has(event.type)) return false;
    if (filter.after && comparePositions(event.position, filter.after) <= 0) return false;
    const at = Date.parse(eventTime(event));
    return at >= from && at <= to;
  });
  const page = matching.slice(0, filter.limit);
  const marks = hashMarks(history);
  return {
    events: page.map((event) => auditedEvent(event, marks.get(event.id))),
    next: matching.length > page.length ? formatPosition(page[page.length - 1]!.position) : null,
  };
}
