/**
 * The analysis routes of the API: closes of symbols on a date, and pattern timelines of symbols.
 */
import { z } from './zod.ts';
import { commaSymbols, dateSchema, wholeNumber } from './common.ts';
import { PATTERN_DAYS_MAX, patternHit as hit } from './patterns.ts';
import { route } from './route.ts';

/** Most symbols one closes request names. */
export const CLOSES_MAX = 500;
/** Most symbols one timelines request names. */
export const TIMELINES_MAX = 100;

/** The analysis routes. */
export const analysisApi = {
  getAnalysisClosesByDate: route({
    method: 'GET',
    path: '/api/analysis/closes/:date',
    summary: `The close of each symbol (1-${CLOSES_MAX}, symbols=A,B) on a date: its last bar on or before that date, null when it has none`,
    tag: 'analysis',
    access: 'user',
    params: z.object({ date: dateSchema }),
    query: z.strictObject({ symbols: commaSymbols(1, CLOSES_MAX) }),
    response: z.array(z.object({ symbol: z.string(), date: z.string().nullable(), close: z.number().nullable() })),
  }),
  getAnalysisTimelinesByLimitDays: route({
    method: 'GET',
    path: '/api/analysis/timelines/:limitDays',
    summary: `The pattern days of each symbol (1-${TIMELINES_MAX}, symbols=A,B) in the market's last N trading days (1-${PATTERN_DAYS_MAX}), oldest first, with the window's first and last trading day`,
    tag: 'analysis',
    access: 'user',
    params: z.object({ limitDays: wholeNumber(1, PATTERN_DAYS_MAX) }),
    query: z.strictObject({ symbols: commaSymbols(1, TIMELINES_MAX) }),
    response: z.object({
      from: z.string().nullable(),
      to: z.string().nullable(),
      timelines: z.array(
        z.object({
          symbol: z.string(),
          days: z.array(z.object({ date: z.string(), stockpatterns: z.array(hit) })),
        }),
      ),
    }),
  }),
};

/** The pattern timelines of symbols, as `GET /api/analysis/timelines/{limitDays}` answers them. */
export type PatternTimelines = z.infer<typeof analysisApi.getAnalysisTimelinesByLimitDays.response>;
/** A pattern day of a timeline. */
export type TimelineDay = PatternTimelines['timelines'][number]['days'][number];
