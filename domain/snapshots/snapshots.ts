/**
 * Chart snapshots: PNG images a user exported from a chart and saved for the Art gallery. The log holds only
 * what describes a snapshot (id, title, symbol, size and the SHA-256 of the image); the image bytes are kept
 * content-addressed outside the log, under their SHA-256.
 */
import { DomainError, type Decider, type DomainEvent, eventTypes, unknownCommand } from '../decider.ts';
import { isUuid } from '../ids.ts';
import { parseSymbol } from '../symbol.ts';

/** The concern name of snapshot streams (`snapshots-<userId>`). */
export const SNAPSHOTS_CONCERN = 'snapshots';

/** Most snapshots one user may keep. */
export const SNAPSHOTS_LIMIT = 100;

/** Largest image accepted, in bytes (1.5 MB). */
export const SNAPSHOT_MAX_BYTES = 1_572_864;

/** Longest snapshot title, in characters once trimmed. */
export const SNAPSHOT_TITLE_MAX_LENGTH = 80;

/** A SHA-256 digest in lower-case hexadecimal. */
export const SHA256_PATTERN = /^[0-9a-f]{64}$/;

/** One saved snapshot, as the gallery lists it. */
export interface Snapshot {
  /** The snapshot id, derived from the id of the command that saved it. */
  readonly id: string;
  /** The symbol charted, or null when the chart was not of one symbol. */
  readonly symbol: string | null;
  /** Its title, 1–80 characters. */
  readonly title: string;
  /** When it was saved (ISO 8601). */
  readonly createdt: string;
  /** The size of the PNG image in bytes. */
  readonly bytes: number;
  /** The SHA-256 of the PNG image (lower-case hexadecimal), the name under which its bytes are kept. */
  readonly sha256: string;
}

/** Saves a snapshot whose image bytes are already stored under `sha256`. */
export type SaveSnapshot = DomainEvent<
  'SaveSnapshot',
  {
    /** The id of the new snapshot (derived from the command id, so a retry names the same snapshot). */
    readonly snapshotId: string;
    /** The symbol charted (any case), or null. */
    readonly symbol: string | null;
    /** The title; surrounding spaces are dropped. */
    readonly title: string;
    /** The image size in bytes. */
    readonly bytes: number;
    /** The image's SHA-256. */
    readonly sha256: string;
    /** When the command was issued (ISO 8601); becomes the snapshot's `createdt`. */
    readonly at: string;
  }
>;

/** Deletes a snapshot. */
export type DeleteSnapshot = DomainEvent<'DeleteSnapshot', { readonly snapshotId: string }>;

/** Every command of the snapshots concern. */
export type SnapshotsCommand = SaveSnapshot | DeleteSnapshot;

/** A snapshot was saved. */
export type SnapshotSaved = DomainEvent<
  'SnapshotSaved',
  {
    readonly snapshotId: string;
    readonly symbol: string | null;
    readonly title: string;
    readonly bytes: number;
    readonly sha256: string;
    readonly createdt: string;
  }
>;

/** A snapshot was deleted; `sha256` names its image, which may go once no snapshot refers to it. */
export type SnapshotDeleted = DomainEvent<'SnapshotDeleted', { readonly snapshotId: string; readonly sha256: string }>;

/** Every event of the snapshots concern. */
export type SnapshotsEvent = SnapshotSaved | SnapshotDeleted;

/** Every event type of the chart snapshots concern. */
export const SNAPSHOTS_EVENT_TYPES = eventTypes<SnapshotsEvent>()('SnapshotSaved', 'SnapshotDeleted');

/** A user's snapshots, oldest first. */
export interface SnapshotsState {
  /** The snapshots, in the order they were saved. */
  readonly snapshots: readonly Snapshot[];
}

/** The snapshot of an id, if the user has it. */
export function findSnapshot(state: SnapshotsState, snapshotId: string): Snapshot | undefined {
  return state.snapshots.find((snapshot) => snapshot.id === snapshotId);
}

function parseSnapshotId(snapshotId: unknown): string {
  if (typeof snapshotId !== 'string' || !isUuid(snapshotId)) {
    throw new DomainError('invalid_id', `snapshotId ${JSON.stringify(snapshotId)} is not a snapshot id`, 'snapshotId');
  }
  return snapshotId.toLowerCase();
}

/** Checks a snapshot title (a text of 1–80 characters once trimmed) and answers it trimmed. */
export function parseSnapshotTitle(title: unknown, field = 'title'): string {
  const text = typeof title === 'string' ? title.trim() : '';
  if (text.length === 0 || text.length > SNAPSHOT_TITLE_MAX_LENGTH) {
    throw new DomainError(
      'invalid_title',
      `${field} must be a text of 1 to ${SNAPSHOT_TITLE_MAX_LENGTH} characters, got ${JSON.stringify(title)}`,
      field,
    );
  }
  return text;
}

function decide(command: SnapshotsCommand, state: SnapshotsState): SnapshotsEvent[] {
  switch (command.type) {
    case 'SaveSnapshot': {
      const { data } = command;
      const snapshotId = parseSnapshotId(data.snapshotId);
      const title = parseSnapshotTitle(data.title);
      const symbol = data.symbol === null ? null : parseSymbol(data.symbol, 'symbol');
      if (typeof data.sha256 !== 'string' || !SHA256_PATTERN.test(data.sha256)) {
        throw new DomainError('invalid_sha256', `sha256 ${JSON.stringify(data.sha256)} is not a SHA-256`, 'sha256');
      }
      if (!Number.isSafeInteger(data.bytes) || data.bytes < 1 || data.bytes > SNAPSHOT_MAX_BYTES) {
        throw new DomainError(
          'invalid_bytes',
          `bytes must be a whole number from 1 to ${SNAPSHOT_MAX_BYTES}, got ${JSON.stringify(data.bytes)}`,
          'bytes',
        );
      }
      if (findSnapshot(state, snapshotId)) {
        throw new DomainError('taken', `snapshotId ${snapshotId}: a snapshot with this id exists`, 'snapshotId');
      }
      if (state.snapshots.length >= SNAPSHOTS_LIMIT) {
        throw new DomainError(
          'limit',
          `snapshots: already ${state.snapshots.length} saved; at most ${SNAPSHOTS_LIMIT}`,
          'snapshots',
        );
      }
      return [
        {
          type: 'SnapshotSaved',
          data: { snapshotId, symbol, title, bytes: data.bytes, sha256: data.sha256, createdt: data.at },
        },
      ];
    }
    case 'DeleteSnapshot': {
      const snapshotId = parseSnapshotId(command.data.snapshotId);
      const snapshot = findSnapshot(state, snapshotId);
      if (!snapshot) throw new DomainError('not_found', `snapshotId ${snapshotId}: no such snapshot`, 'snapshotId');
      return [{ type: 'SnapshotDeleted', data: { snapshotId, sha256: snapshot.sha256 } }];
    }
    default:
      throw unknownCommand(command, 'snapshots');
  }
}

function evolve(state: SnapshotsState, event: SnapshotsEvent): SnapshotsState {
  switch (event.type) {
    case 'SnapshotSaved': {
      const { snapshotId, symbol, title, bytes, sha256, createdt } = event.data;
      return findSnapshot(state, snapshotId)
        ? state
        : { snapshots: [...state.snapshots, { id: snapshotId, symbol, title, createdt, bytes, sha256 }] };
    }
    case 'SnapshotDeleted':
      return findSnapshot(state, event.data.snapshotId)
        ? { snapshots: state.snapshots.filter((snapshot) => snapshot.id !== event.data.snapshotId) }
        : state;
    default: {
      // An event type this version does not know leaves the state as it is, so replaying the log never fails.
      const _exhaustive: never = event;
      return state;
    }
  }
}

/**
 * The snapshots' rules: a title of 1–80 characters, an optional valid symbol, an image of at most
 * {@link SNAPSHOT_MAX_BYTES} named by its SHA-256, and at most {@link SNAPSHOTS_LIMIT} snapshots per user.
 */
export const snapshotsDecider: Decider<SnapshotsCommand, SnapshotsEvent, SnapshotsState> = {
  initialState: Object.freeze({ snapshots: Object.freeze([]) }),
  decide,
  evolve,
};
