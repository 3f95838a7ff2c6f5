/**
 * Tamper evidence for one user: walks the hash chain of each of the user's streams and names the first break
 * in log order.
 */
import { verifyStream, type ChainBreak } from '../../platform/audit/hashChain.ts';
import { checkSealed, type Seals } from '../../platform/audit/seals.ts';
import { START, comparePositions, formatPosition, type LogPosition } from '../../platform/eventstore/port.ts';
import type { UserHistory } from './userHistory.ts';

/** A break with the log position of the event where it is found. */
export interface LocatedBreak extends ChainBreak {
  /** The event's log position, `commit/prepare`. */
  readonly position: string;
}

/** What a walk of a user's chains found. */
export interface UserVerification {
  /** The user. */
  readonly username: string;
  /** Whether every stream's chain holds. */
  readonly intact: boolean;
  /** Events checked. */
  readonly events: number;
  /** Streams checked (those that exist). */
  readonly streams: number;
  /** The earliest break in log order, or null. */
  readonly firstBreak: LocatedBreak | null;
}

/**
 * Verifies every stream of a user's history, against the log's seals when given (a stream shorter than its last
 * seal, or rewritten before it, is a break too); the first break is the one earliest in the log.
 */
export function verifyUserHistory(history: UserHistory, seals?: Seals): UserVerification {
  let first: { found: ChainBreak; position: LogPosition } | null = null;
  let streams = 0;
  const consider = (found: ChainBreak, position: LogPosition): void => {
    if (!first || comparePositions(position, first.position) < 0) first = { found, position };
  };
  if (seals?.broken) consider(seals.broken, START);
  const check = { key: history.chainKey, keyedSince: seals?.keyedSince ?? null };
  for (const { stream, events } of history.streams) {
    if (events.length > 0) streams += 1;
    const found = verifyStream(events, check) ?? (seals ? checkSealed(stream, events, seals) : null);
    if (!found) continue;
    const position =
      events.find((e) => e.id === found.eventId)?.position ?? seals?.heads.get(stream)?.position ?? START;
    consider(found, position);
  }
  const located = first as { found: ChainBreak; position: LogPosition } | null;
  return {
    username: history.username,
    intact: located === null,
    events: history.events.length,
    streams,
    firstBreak: located ? { ...located.found, position: formatPosition(located.position) } : null,
  };
}

/** The one line an operator reads: `chain intact: N events in K streams` or `first break: …`. */
export function describeVerification(result: UserVerification): string {
  const b = result.firstBreak;
  if (!b) return `chain intact: ${result.events} events in ${result.streams} streams`;
  return `first break: stream ${b.stream} revision ${b.revision} (event ${b.eventId}): ${b.reason}`;
}
