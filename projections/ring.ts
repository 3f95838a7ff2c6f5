/**
 * A ring of each user's latest documents in a read model: `kept` slots under `<userId>/#<slot>` (the user before
 * the first `/`, as every per-user key, which is how a commit's writes reach their user's sockets) and, at
 * `<userId>`, how many the user ever had. A new document takes the next slot, replacing its oldest occupant once
 * the ring is full, so a user's reads list at most `kept` documents however long the log grows.
 */
import { isAfter, type LogPosition } from '../platform/eventstore/port.ts';
import type { ConsumerTx } from '../platform/subscriptions/runner.ts';
import type { StoredDocument } from './projection.ts';

/** The document at a user's key: how many documents of theirs the ring ever took. */
export interface RingHead {
  readonly created: number;
}

/** The slot a new document takes: its key, its slot number, and how many the user had before it. */
export interface RingSlot {
  readonly key: string;
  readonly slot: number;
  readonly seq: number;
}

/** The key prefix of every slot of a user's ring: `<userId>/#` (no other key of theirs starts with `#`). */
export function ringPrefix(userId: string): string {
  return `${userId}/#`;
}

/**
 * Takes the next slot of `userId`'s ring in `collection` for the event at `position`, counting it in the user's
 * head within `tx`; answers null when the head reflects that position already (a replay takes nothing).
 */
export async function takeRingSlot(
  tx: ConsumerTx,
  collection: string,
  userId: string,
  position: LogPosition,
  kept: number,
): Promise<RingSlot | null> {
  const head = await tx.get<StoredDocument<RingHead>>(collection, userId);
  if (head && !isAfter(position, head.position)) return null;
  const seq = head?.value.created ?? 0;
  tx.put(collection, userId, { position, value: { created: seq + 1 } } satisfies StoredDocument<RingHead>);
  const slot = seq % kept;
  return { key: ringKey(userId, slot), slot, seq };
}

/** The key of slot `slot` of a user's ring. */
export function ringKey(userId: string, slot: number): string {
  return `${ringPrefix(userId)}${slot}`;
}
