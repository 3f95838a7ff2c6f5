/**
 * Chart snapshot routes (the Art gallery): save a PNG exported from a chart, list, read back the image, delete.
 * The image bytes are kept content-addressed under `DATA_DIR/snapshots/<sha256>.png`, written to a temporary
 * file and renamed into place, so a crash never leaves a partial image; the log holds only the snapshot's
 * description (id, title, symbol, size, SHA-256). An image no snapshot refers to any more is removed.
 */
import { snapshotsApi, PNG_DATA_URL_PREFIX, type SnapshotAnswer } from '../../domain/contract/snapshots.ts';
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isDomainError } from '../../domain/decider.ts';
import { STOCKPULSE_NAMESPACE, isUuid, uuidV5 } from '../../domain/ids.ts';
import {
  SNAPSHOTS_CONCERN,
  SNAPSHOT_MAX_BYTES,
  findSnapshot,
  snapshotsDecider,
  type Snapshot,
  type SnapshotsState,
} from '../../domain/snapshots/snapshots.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { readDocument } from '../../projections/projection.ts';
import {
  snapshotImagesProjection,
  snapshotsProjection,
  type SnapshotImageRefs,
} from '../../projections/snapshots/snapshots.projection.ts';
import type { CommandService } from '../commands.ts';
import { ApiError, notFound } from '../errors.ts';
import { MAX_BODY_BYTES } from '../http/body.ts';
import { defineRoute, markPosition } from '../http/route.ts';
import { requireSymbol, type SymbolDirectory } from '../http/schemas.ts';

/** What the snapshot routes need. */
export interface SnapshotsDeps {
  /** Runs the commands on the user's stream. */
  readonly commands: CommandService;
  /** The read models the GET routes answer from. */
  readonly readModels: ReadModelStore;
  /** The symbols that exist. */
  readonly symbols: SymbolDirectory;
  /** The data folder; images go to its `snapshots/` folder. The routes answer 503 without it. */
  readonly dataDir?: string | undefined;
}

/** A snapshot as the API answers it. */
export function snapshotView(snapshot: Snapshot): SnapshotAnswer {
  const { id, symbol, title, createdt, bytes, sha256 } = snapshot;
  return { id, symbol, title, createdt, bytes, sha256 };
}

/** The first eight bytes of every PNG file. */
export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Largest body of a save, in bytes: the largest image in base64 (4 characters per 3 bytes) plus room for the
 * data URL prefix, the title and the symbol.
 */
export const SNAPSHOT_BODY_LIMIT = Math.ceil(SNAPSHOT_MAX_BYTES / 3) * 4 + MAX_BODY_BYTES;

/** `Cache-Control` of an image: a snapshot's image never changes, and it is the user's own. */
export const SNAPSHOT_IMAGE_CACHE_CONTROL = 'private, max-age=31536000, immutable';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const concern = { concern: SNAPSHOTS_CONCERN, decider: snapshotsDecider };

/** Images kept content-addressed in one folder, each under its SHA-256. */
export class SnapshotImageStore {
  constructor(
    /** The folder of the images. */
    readonly dir: string,
  ) {}

  /** The file of an image. */
  path(sha256: string): string {
    return join(this.dir, `${sha256}.png`);
  }

  /** Stores an image under its SHA-256 unless an intact copy is there: temporary file, flush, rename. */
  async put(sha256: string, bytes: Buffer): Promise<void> {
    const existing = await this.get(sha256);
    if (existing && createHash('sha256').update(existing).digest('hex') === sha256) return;
    await mkdir(this.dir, { recursive: true });
    const temp = join(this.dir, `.${sha256}.${randomUUID()}.tmp`);
    const file = await open(temp, 'wx');
    try {
      await file.writeFile(bytes);
      await file.sync();
    } finally {
      await file.close();
    }
    try {
      await rename(temp, this.path(sha256));
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  /** The bytes of an image, or undefined when there is none. */
  async get(sha256: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.path(sha256));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** Removes an image; nothing happens when there is none. */
  async remove(sha256: string): Promise<void> {
    await rm(this.path(sha256), { force: true });
  }
}

/**
 * The PNG bytes of an image data URL, refusing what is not base64 (400), an image larger than
 * {@link SNAPSHOT_MAX_BYTES} (413, before decoding) and bytes that do not start like a PNG file (400).
 */
export function decodePngDataUrl(image: string, field = 'body.image'): Buffer {
  const base64 = image.slice(PNG_DATA_URL_PREFIX.length);
  if (base64.length === 0 || base64.length % 4 !== 0 || !BASE64.test(base64)) {
    throw new ApiError(400, 'bad_request', `${field}: the data after ${PNG_DATA_URL_PREFIX} is not valid base64`);
  }
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  const size = (base64.length / 4) * 3 - padding;
  if (size > SNAPSHOT_MAX_BYTES) {
    throw new ApiError(
      413,
      'payload_too_large',
      `${field}: the image is ${size} bytes; at most ${SNAPSHOT_MAX_BYTES} bytes (1.5 MB)`,
    );
  }
  const bytes = Buffer.from(base64, 'base64');
  // A PNG file is its signature, then the IHDR chunk: 4 bytes of length, then the type.
  if (
    bytes.length < 16 ||
    !bytes.subarray(0, 8).equals(PNG_SIGNATURE) ||
    bytes.subarray(12, 16).toString('latin1') !== 'IHDR'
  ) {
    throw new ApiError(400, 'bad_request', `${field}: not a PNG image (it does not start with the PNG signature)`);
  }
  return bytes;
}

/** The chart snapshot routes. */
export function snapshotsRoutes(deps: SnapshotsDeps) {
  const images = deps.dataDir === undefined ? null : new SnapshotImageStore(join(deps.dataDir, 'snapshots'));
  const imageStore = (): SnapshotImageStore => {
    if (!images) throw new ApiError(503, 'unavailable', 'snapshots: this process keeps no data folder');
    return images;
  };
  // Writes and removals of images run one at a time, so a removal never races a save of the same image.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const result = queue.then(work, work);
    queue = result.catch(() => undefined);
    return result;
  };
  // Removes the image once the snapshot read models show that no snapshot of any user refers to it.
  const collect = async (store: SnapshotImageStore, sha256: string): Promise<void> => {
    const refs = await readDocument<SnapshotImageRefs>(deps.readModels, snapshotImagesProjection, sha256);
    if (!refs) await store.remove(sha256);
  };
  const snapshotIdOf = (id: string): string => {
    const snapshotId = id.toLowerCase();
    if (!isUuid(snapshotId)) throw notFound(`params.id: no snapshot ${JSON.stringify(id)}`);
    return snapshotId;
  };
  const userSnapshot = async (userId: string, snapshotId: string): Promise<Snapshot> => {
    const doc = await readDocument<SnapshotsState>(deps.readModels, snapshotsProjection, userId);
    const snapshot = doc && findSnapshot(doc.value, snapshotId);
    if (!snapshot) throw notFound(`params.id: no snapshot ${snapshotId}`);
    return snapshot;
  };

  return [
    defineRoute({
      ...snapshotsApi.postSnapshots,
      bodyLimit: SNAPSHOT_BODY_LIMIT,
      handle: async ({ body, meta }) => {
        const symbol = body.symbol ?? null;
        if (symbol !== null) requireSymbol(deps.symbols, symbol, 'body.symbol');
        const bytes = decodePngDataUrl(body.image);
        const store = imageStore();
        const sha256 = createHash('sha256').update(bytes).digest('hex');
        const m = meta();
        const snapshotId = uuidV5(`${m.commandId}/snapshot`, STOCKPULSE_NAMESPACE);
        return serially(async () => {
          await store.put(sha256, bytes);
          try {
            const outcome = await deps.commands.execute(
              concern,
              {
                type: 'SaveSnapshot',
                data: { snapshotId, symbol, title: body.title, bytes: bytes.length, sha256, at: m.at },
              },
              m,
            );
            const saved = findSnapshot(outcome.state, snapshotId);
            if (!saved) throw notFound(`body: no snapshot ${snapshotId}`);
            // A retry of a save whose snapshot was deleted since must not leave the image behind.
            if (outcome.replayed) await collect(store, sha256);
            return snapshotView(saved);
          } catch (error) {
            await collect(store, sha256);
            throw error;
          }
        });
      },
    }),
    defineRoute({
      ...snapshotsApi.getSnapshots,
      handle: async ({ userId, ctx }) => {
        const doc = await readDocument<SnapshotsState>(deps.readModels, snapshotsProjection, userId);
        markPosition(ctx, doc?.position);
        return (doc?.value.snapshots ?? []).map(snapshotView).reverse();
      },
    }),
    defineRoute({
      ...snapshotsApi.getSnapshotsByIdImage,
      handle: async ({ params, userId, ctx }) => {
        const snapshot = await userSnapshot(userId, snapshotIdOf(params.id));
        const bytes = await imageStore().get(snapshot.sha256);
        if (!bytes) throw notFound(`params.id: the image of snapshot ${snapshot.id} is not kept by this process`);
        ctx.type = 'image/png';
        ctx.set('Cache-Control', SNAPSHOT_IMAGE_CACHE_CONTROL);
        ctx.set('ETag', `"${snapshot.sha256}"`);
        return bytes;
      },
    }),
    defineRoute({
      ...snapshotsApi.postDelsnapshotById,
      handle: async ({ params, meta }) => {
        const snapshotId = snapshotIdOf(params.id);
        const store = imageStore();
        return serially(async () => {
          let outcome;
          try {
            outcome = await deps.commands.execute(concern, { type: 'DeleteSnapshot', data: { snapshotId } }, meta());
          } catch (error) {
            if (isDomainError(error) && error.code === 'not_found') {
              throw notFound(`params.id: no snapshot ${snapshotId}`);
            }
            throw error;
          }
          for (const event of outcome.events) {
            if (event.type === 'SnapshotDeleted') await collect(store, event.data.sha256);
          }
          return { id: snapshotId, deleted: true as const };
        });
      },
    }),
  ];
}
