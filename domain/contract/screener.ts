/**
 * The screener routes of the API: the preset searches, and a run of a query of the screener language over the
 * latest row of every stock.
 */
import { z } from './zod.ts';
import { CATEGORY_DEFINITIONS, METRIC_KEYS, metricKeyDefinition, type MetricKey } from '../screener/metrics.ts';
import { MAX_CLAUSES, SCREENER_ROW_COUNT, SORT_FIELDS, type LabelledClause } from '../screener/query.ts';
import { CAP_CLASS_DEFINITION, MARKET_CAP_DEFINITION, SHARES_DEFINITION } from './market.ts';
import { route } from './route.ts';

/** Most rows one run answers. */
export const SCREENER_LIMIT_MAX = 1000;

/** A clause of the screener language with its label (the language itself checks the clause, `screener/query.ts`). */
export const labelledClause = z.object({
  label: z.string(),
  query: z.record(z.string(), z.unknown()),
}) as unknown as z.ZodType<LabelledClause>;

const runBody = z.strictObject(
  {
    query: z
      .array(z.unknown(), { error: 'must be a list of clauses' })
      .max(MAX_CLAUSES, `must hold at most ${MAX_CLAUSES} clauses`),
    limit: z
      .int(`must be a whole number from 0 to ${SCREENER_LIMIT_MAX}`)
      .min(0, `must be a whole number from 0 to ${SCREENER_LIMIT_MAX}`)
      .max(SCREENER_LIMIT_MAX, `must be a whole number from 0 to ${SCREENER_LIMIT_MAX}`)
      .optional(),
    sort: z
      .strictObject({
        field: z.enum(SORT_FIELDS, { error: `must be one of ${SORT_FIELDS.join(', ')}` }),
        dir: z.enum(['asc', 'desc'], { error: 'must be asc or desc' }),
      })
      .optional(),
  },
  { error: 'must be {query, limit?, sort?}' },
);

type RowMetricKey = Exclude<MetricKey, 'changepct'>;

/** The metric columns of a result row, each described by its definition. */
const metricFields = Object.fromEntries(
  METRIC_KEYS.filter((key) => key !== 'changepct').map((key) => [
    key,
    z
      .number()
      .nullable()
      .describe(`${metricKeyDefinition(key)}; null when unknown`),
  ]),
) as { [K in RowMetricKey]: z.ZodNullable<z.ZodNumber> };

/** The screener routes. */
export const screenerApi = {
  getScreenerPresets: route({
    method: 'GET',
    path: '/api/screener/presets',
    summary:
      'The preset searches, as queries of the screener language: the six of the product, then the signals (Top Gainers, Top Losers, New High, New Low, Most Volatile, Most Active, Unusual Volume, Overbought, Oversold, Golden Cross, Death Cross) and one per candlestick pattern',
    tag: 'screener',
    access: 'user',
    response: z.array(z.object({ name: z.string(), query: z.array(labelledClause).readonly() })),
  }),
  postScreenerRun: route({
    method: 'POST',
    path: '/api/screener/run',
    summary: `Run a query (clauses ANDed; an empty list matches every stock) over the latest row of every stock: the first limit rows (default ${SCREENER_ROW_COUNT}) in the sort order (market cap, largest first, by default), and how many matched. Clause types: mcap, close, SMA, rsi, pattern_<name>_, the categories sector and industry (op = or not_like), and the metrics (op >, < or bet) whose definitions the row fields give`,
    tag: 'screener',
    access: 'user',
    body: runBody,
    response: z.object({
      rows: z.array(
        z.object({
          symbol: z.string(),
          name: z.string(),
          sector: z.string().describe(CATEGORY_DEFINITIONS.sector),
          industry: z.string().nullable().describe(CATEGORY_DEFINITIONS.industry),
          close: z.number(),
          changepct: z.number().describe(metricKeyDefinition('changepct')),
          shares: z.number().describe(SHARES_DEFINITION),
          marketcap: z.number().describe(MARKET_CAP_DEFINITION),
          capclass: z.string().describe(CAP_CLASS_DEFINITION),
          SMA_50: z.number().nullable(),
          SMA_200: z.number().nullable(),
          rsi_14: z.number().nullable(),
          patterns: z.array(z.string()),
          ...metricFields,
        }),
      ),
      total: z.number(),
    }),
  }),
};

/** A preset search as `GET /api/screener/presets` answers it. */
export type Preset = z.infer<typeof screenerApi.getScreenerPresets.response>[number];
/** The order of a run's rows: a field and its direction (`POST /api/screener/run`'s `sort`). */
export type ScreenerSort = NonNullable<z.input<typeof screenerApi.postScreenerRun.body>['sort']>;
/** A run's answer: the rows of the page and how many matched. */
export type ScreenerResult = z.infer<typeof screenerApi.postScreenerRun.response>;
