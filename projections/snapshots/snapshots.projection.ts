import {
  SHA256_PATTERN,
  snapshotsDecider,
  type SnapshotsEvent,
  type SnapshotsState,
} from '../../domain/snapshots/snapshots.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import { deciderProjection, type Projection } from '../projection.ts';

/** `GET /personalize/snapshots`: each user's chart snapshots, folded with the decider's own `evolve`. */
export const snapshotsProjection: Projection<SnapshotsState> = deciderProjection('snapshots', 1, snapshotsDecider, [
  'SnapshotSaved',
  'SnapshotDeleted',
] satisfies SnapshotsEvent['type'][]);

/** How many snapshots, of every user, refer to one stored image. */
export interface SnapshotImageRefs {
  /** Snapshots saved and not deleted whose image has this SHA-256; the document goes when it reaches 0. */
  readonly refs: number;
}

function imageKey(event: RecordedEvent): string | null {
  const sha256 = (event.data as { sha256?: unknown } | null)?.sha256;
  return typeof sha256 === 'string' && SHA256_PATTERN.test(sha256) ? sha256 : null;
}

/**
 * The images still in use, keyed by SHA-256 across all users: an image whose document is gone is referred to by
 * no snapshot, so its bytes may be removed.
 */
export const snapshotImagesProjection: Projection<SnapshotImageRefs> = {
  name: 'snapshotimages',
  version: 1,
  handles: ['SnapshotSaved', 'SnapshotDeleted'] satisfies SnapshotsEvent['type'][],
  key: imageKey,
  evolve: (doc, event) => {
    const refs = (doc?.refs ?? 0) + (event.type === 'SnapshotSaved' ? 1 : -1);
    return refs > 0 ? { refs } : null;
  },
};
