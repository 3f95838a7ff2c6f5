/**
 * The Maint routes of the API: the system's status, and the check that rebuilds every read model from the log
 * and compares it with the live one.
 */
import { z } from './zod.ts';
import { liveFeedAnswer } from './market.ts';
import { route } from './route.ts';

const marketStatus = z.object({
  asOf: z.string(),
  symbols: z.number(),
  bars: z.number(),
  lastTick: z.string().nullable(),
  simulated: z.boolean(),
  from: z.string().nullable(),
  to: z.string().nullable(),
  source: z.enum(['simulated', 'imported', 'mixed']),
  importedSymbols: z.array(z.string()),
});

const statusAnswer = z.object({
  market: marketStatus,
  ticks: z.object({
    source: z.string().nullable(),
    live: z.boolean(),
    /** A provider stream's state and reason (`alpaca-iex auth-failed: …`); null for other sources. */
    health: z.string().nullable(),
    /** The live feed: its name, delay and health; null when this process runs no engine. */
    feed: liveFeedAnswer.nullable(),
    ticksPerSec: z.number(),
    ticks: z.number(),
    armedAlerts: z.number(),
  }),
  projections: z.array(
    z.object({
      name: z.string(),
      position: z.string(),
      behind: z.boolean(),
      lagEvents: z.number(),
      lagMs: z.number(),
    }),
  ),
  events: z.object({ head: z.string() }),
});

const differenceSchema = z.object({
  collection: z.string(),
  key: z.string().nullable(),
  kind: z.enum(['changed', 'missing', 'extra']),
  path: z.string(),
  live: z.unknown().optional(),
  rebuilt: z.unknown().optional(),
});

const rebuildAnswer = z.object({
  jobId: z.string().nullable(),
  state: z.enum(['idle', 'running', 'done', 'failed']),
  processed: z.number(),
  total: z.number(),
  differences: z.array(differenceSchema),
  differenceCount: z.number(),
  collections: z.array(
    z.object({
      collection: z.string(),
      compared: z.number(),
      differences: z.number(),
      skipped: z.number(),
      liveCheckpoint: z.string().nullable(),
      liveBehind: z.boolean(),
    }),
  ),
  head: z.string().nullable(),
  eventsPerSec: z.number().nullable(),
  error: z.string().nullable(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});

/** The maint routes. */
export const maintApi = {
  getMaintStatus: route({
    method: 'GET',
    path: '/api/maint/status',
    summary:
      'Operations status: market data (as-of date, symbols, bars, last tick, simulated or imported), tick source and rate, each projection with its checkpoint and lag, and the head of the log',
    tag: 'maint',
    access: 'user',
    response: statusAnswer,
  }),
  postMaintRebuild: route({
    method: 'POST',
    path: '/api/maint/rebuild',
    summary:
      'Start a rebuild check (operators only): the whole log replayed into scratch read models and compared with the live ones, which are only read; 409 while one runs',
    tag: 'maint',
    access: 'operator',
    status: 202,
    response: z.object({ jobId: z.string(), state: z.literal('running') }),
  }),
  getMaintRebuild: route({
    method: 'GET',
    path: '/api/maint/rebuild',
    summary:
      "The rebuild check running or last run: state, events replayed of the total, and the documents that differ (another user's key and contents shown to auditors only)",
    tag: 'maint',
    access: 'user',
    response: rebuildAnswer,
  }),
};

/** `GET /api/maint/status` as the API answers it. */
export type MaintStatus = z.infer<typeof statusAnswer>;
/** One projection's checkpoint and lag. */
export type ProjectionLag = MaintStatus['projections'][number];
/** `GET /api/maint/rebuild`: the check running or last run. */
export type RebuildJob = z.infer<typeof rebuildAnswer>;

/** The figures of a rebuild check that has replayed nothing yet (or of none at all), each call a fresh copy. */
export function rebuildNotStarted() {
  return {
    processed: 0,
    total: 0,
    differences: [] as never[],
    differenceCount: 0,
    collections: [] as never[],
    head: null,
    eventsPerSec: null,
    error: null,
    finishedAt: null,
  };
}
/** One document that differs between the live read models and the replay. */
export type RebuildDifference = z.infer<typeof differenceSchema>;
