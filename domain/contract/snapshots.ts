/**
 * The snapshots routes of the API: request and answer schemas, shared by the gateway and the web app.
 */
import { z } from './zod.ts';
import { SNAPSHOT_MAX_BYTES, SNAPSHOT_TITLE_MAX_LENGTH } from '../snapshots/snapshots.ts';
import { deletedAnswer, idParams, symbolSchema } from './common.ts';
import { route } from './route.ts';
import { PLAIN_TEXT_MESSAGE, isPlainText } from '../text.ts';

/** The prefix of the image data URL a save carries. */
export const PNG_DATA_URL_PREFIX = 'data:image/png;base64,';

/** A chart snapshot as the API answers it. */
export const snapshotAnswer = z.object({
  id: z.string(),
  symbol: z.string().nullable(),
  title: z.string(),
  createdt: z.string(),
  bytes: z.number(),
  sha256: z.string(),
});

/** The snapshots routes. */
export const snapshotsApi = {
  postSnapshots: route({
    method: 'POST',
    path: '/personalize/snapshots',
    summary: `Save a chart snapshot: a PNG image as a data URL (data:image/png;base64,…; at most ${SNAPSHOT_MAX_BYTES} bytes decoded, else 413), a title of 1-${SNAPSHOT_TITLE_MAX_LENGTH} characters and optionally the symbol charted`,
    tag: 'snapshots',
    access: 'user',
    body: z.strictObject({
      symbol: symbolSchema.nullish(),
      title: z
        .string({ error: 'must be a text' })
        .refine(isPlainText, PLAIN_TEXT_MESSAGE)
        .trim()
        .min(1, 'must not be empty')
        .max(SNAPSHOT_TITLE_MAX_LENGTH, `must be at most ${SNAPSHOT_TITLE_MAX_LENGTH} characters`),
      image: z
        .string({ error: 'must be a text' })
        .startsWith(PNG_DATA_URL_PREFIX, `must be a PNG data URL (${PNG_DATA_URL_PREFIX}…)`),
    }),
    response: snapshotAnswer,
  }),
  getSnapshots: route({
    method: 'GET',
    path: '/personalize/snapshots',
    summary: "The user's chart snapshots, newest first, without their images",
    tag: 'snapshots',
    access: 'user',
    response: z.array(snapshotAnswer),
  }),
  getSnapshotsByIdImage: route({
    method: 'GET',
    path: '/personalize/snapshots/:id/image',
    summary: "The PNG image of one of the user's snapshots (image/png, cached privately for a year: it never changes)",
    tag: 'snapshots',
    access: 'user',
    params: idParams,
    response: z.string().describe('the PNG bytes, as image/png'),
  }),
  postDelsnapshotById: route({
    method: 'POST',
    path: '/personalize/delsnapshot/:id',
    summary: "Delete one of the user's chart snapshots (its image goes once no snapshot refers to it)",
    tag: 'snapshots',
    access: 'user',
    params: idParams,
    response: deletedAnswer,
  }),
};

/** A chart snapshot as the API answers it. */
export type SnapshotAnswer = z.infer<typeof snapshotAnswer>;
