/**
 * The alert routes of the API: create, change (re-arm), delete and read price and moving-average alerts.
 */
import { z } from './zod.ts';
import { ALERT_SMA_PERIODS, ALERT_THRESHOLD_MAX, thresholdProblem } from '../alerts/alerts.ts';
import { deletedAnswer, idParams, symbolParams, symbolSchema } from './common.ts';
import { route } from './route.ts';
import { alertChannelsField } from './channels.ts';

/** An alert as the API answers it; `period` only on SMA alerts, `threshold` null on them. */
export const alertAnswer = z.object({
  id: z.string(),
  symbol: z.string(),
  threshold: z.number().nullable(),
  alerttype: z.enum(['U', 'D']),
  kind: z.enum(['PRICE', 'SMA']),
  period: z.number().optional(),
  status: z.enum(['armed', 'triggered']),
  createdt: z.string(),
});

/** What the API answers for an alert. */
export type AlertAnswer = z.infer<typeof alertAnswer>;

/** What the API says of a threshold that breaks the rule of {@link thresholdProblem}. */
export const THRESHOLD_MESSAGES = {
  not_a_number: 'must be a number',
  below_minimum: 'must be at least 0.01',
  above_maximum: `must be at most ${ALERT_THRESHOLD_MAX}`,
} as const;

/** The body of `POST /personalize/stockalerts` in its checked form (upper-case codes), as the web app sends it. */
export type AlertRequest = z.output<typeof alertBody>;

const upperCase = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.string().trim().toUpperCase().pipe(z.enum(values));

/**
 * The chart's alert data: `close` is the threshold of a price alert (required, above 0, at most 1,000,000; kept
 * to the cent) and is accepted but ignored on an SMA alert, which needs `period` instead.
 */
const alertBody = z
  .object({
    symbol: symbolSchema,
    close: z.number().nullish(),
    alerttype: upperCase(['U', 'D']),
    id: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters').nullish(),
    update: z.boolean().nullish(),
    kind: upperCase(['PRICE', 'SMA']).nullish(),
    period: z.number().nullish(),
    /** The channels its triggers are delivered to; absent: every channel of the user. */
    channels: alertChannelsField,
  })
  .superRefine((body, ctx) => {
    if (body.update === true && (body.id === null || body.id === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['id'], message: 'is required with update: true' });
    }
    if (body.kind === 'SMA') {
      if (typeof body.period !== 'number' || !(ALERT_SMA_PERIODS as readonly number[]).includes(body.period)) {
        ctx.addIssue({
          code: 'custom',
          path: ['period'],
          message: `must be one of ${ALERT_SMA_PERIODS.join(', ')} for an SMA alert`,
        });
      }
      return;
    }
    const close = body.close;
    if (close === null || close === undefined) {
      ctx.addIssue({ code: 'custom', path: ['close'], message: 'is required for a price alert (the threshold)' });
    } else {
      const problem = thresholdProblem(close);
      if (problem !== null) ctx.addIssue({ code: 'custom', path: ['close'], message: THRESHOLD_MESSAGES[problem] });
    }
  });

/** The alerts routes. */
export const alertsApi = {
  postStockalerts: route({
    method: 'POST',
    path: '/personalize/stockalerts',
    summary: 'Create an alert, or with update: true and an id change one and re-arm it; close is the price threshold',
    tag: 'alerts',
    access: 'user',
    body: alertBody,
    response: alertAnswer,
  }),
  getStockalerts: route({
    method: 'GET',
    path: '/personalize/stockalerts',
    summary: "All the user's alerts, oldest first",
    tag: 'alerts',
    access: 'user',
    response: z.array(alertAnswer),
  }),
  getStockalertsBySymbol: route({
    method: 'GET',
    path: '/personalize/stockalerts/:symbol',
    summary: "The user's alerts on one symbol, oldest first",
    tag: 'alerts',
    access: 'user',
    params: symbolParams,
    response: z.array(alertAnswer),
  }),
  postDeletealertById: route({
    method: 'POST',
    path: '/personalize/deletealert/:id',
    summary: "Delete one of the user's alerts",
    tag: 'alerts',
    access: 'user',
    params: idParams,
    response: deletedAnswer,
  }),
};
