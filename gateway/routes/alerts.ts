/**
 * Alert routes: create, change (re-arm), delete and read a user's price and moving-average alerts.
 */
import type { Context } from 'koa';
import { z } from 'zod';
import {
  ALERTS_CONCERN,
  ALERT_SMA_PERIODS,
  ALERT_THRESHOLD_MAX,
  alertsDecider,
  toCents,
  type Alert,
  type AlertsState,
} from '../../domain/alerts/alerts.ts';
import { STOCKPULSE_NAMESPACE, isUuid, uuidV5 } from '../../domain/ids.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { alertsProjection } from '../../projections/alerts/alerts.projection.ts';
import { readDocument } from '../../projections/projection.ts';
import type { CommandService } from '../commands.ts';
import { notFound } from '../errors.ts';
import { defineRoute, markPosition } from '../http/route.ts';
import { symbolParams, symbolSchema, type SymbolDirectory } from '../http/schemas.ts';
import { requireKnown } from '../http/schemas.ts';

/** What the alert routes need. */
export interface AlertsDeps {
  /** Runs the commands on the user's stream. */
  readonly commands: CommandService;
  /** The read models the GET routes answer from. */
  readonly readModels: ReadModelStore;
  /** The symbols that exist, so unknown ones are refused. */
  readonly symbols: SymbolDirectory;
}

const concern = { concern: ALERTS_CONCERN, decider: alertsDecider };

/** An alert as the API answers it; `period` only on SMA alerts, `threshold` null on them. */
const alertAnswer = z.object({
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
    } else if (close <= 0 || toCents(close) < 1) {
      ctx.addIssue({ code: 'custom', path: ['close'], message: 'must be at least 0.01' });
    } else if (close > ALERT_THRESHOLD_MAX) {
      ctx.addIssue({ code: 'custom', path: ['close'], message: `must be at most ${ALERT_THRESHOLD_MAX}` });
    }
  });

const idParams = z.object({
  id: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
});

/** An alert in the API's shape. */
export function alertView(alert: Alert): AlertAnswer {
  return {
    id: alert.id,
    symbol: alert.symbol,
    threshold: alert.threshold,
    alerttype: alert.alerttype,
    kind: alert.kind,
    ...(alert.kind === 'SMA' && alert.period !== null ? { period: alert.period } : {}),
    status: alert.status,
    createdt: alert.createdt,
  };
}

/** The alert routes. */
export function alertsRoutes(deps: AlertsDeps) {
  const readAlerts = async (userId: string, ctx: Context): Promise<readonly Alert[]> => {
    const doc = await readDocument<AlertsState>(deps.readModels, alertsProjection, userId);
    markPosition(ctx, doc?.position);
    return doc?.value.alerts ?? [];
  };
  return [
    defineRoute({
      method: 'POST',
      path: '/personalize/stockalerts',
      summary: 'Create an alert, or with update: true and an id change one and re-arm it; close is the price threshold',
      tag: 'alerts',
      access: 'user',
      body: alertBody,
      response: alertAnswer,
      handle: async ({ body, meta }) => {
        requireKnown(deps.symbols, [body.symbol], 'body.symbol');
        const m = meta();
        const update = body.update === true;
        const alertId = update ? (body.id ?? '').toLowerCase() : uuidV5(`${m.commandId}/alert`, STOCKPULSE_NAMESPACE);
        if (!isUuid(alertId)) throw notFound(`body.id: no alert ${JSON.stringify(body.id)}`);
        const kind = body.kind === 'SMA' ? 'SMA' : 'PRICE';
        const data = {
          alertId,
          symbol: body.symbol,
          kind,
          alerttype: body.alerttype,
          threshold: kind === 'PRICE' ? (body.close ?? null) : null,
          period: kind === 'SMA' ? (body.period ?? null) : null,
          at: m.at,
        } as const;
        const outcome = await deps.commands.execute(
          concern,
          update ? { type: 'UpdateAlert', data } : { type: 'CreateAlert', data },
          m,
        );
        const alert = outcome.state.alerts.find((a) => a.id === alertId);
        if (!alert) throw notFound(`body.id: no alert ${alertId}`);
        return alertView(alert);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/personalize/stockalerts',
      summary: "All the user's alerts, oldest first",
      tag: 'alerts',
      access: 'user',
      response: z.array(alertAnswer),
      handle: async ({ userId, ctx }) => (await readAlerts(userId, ctx)).map(alertView),
    }),
    defineRoute({
      method: 'GET',
      path: '/personalize/stockalerts/:symbol',
      summary: "The user's alerts on one symbol, oldest first",
      tag: 'alerts',
      access: 'user',
      params: symbolParams,
      response: z.array(alertAnswer),
      handle: async ({ params, userId, ctx }) =>
        (await readAlerts(userId, ctx)).filter((a) => a.symbol === params.symbol).map(alertView),
    }),
    defineRoute({
      method: 'POST',
      path: '/personalize/deletealert/:id',
      summary: "Delete one of the user's alerts",
      tag: 'alerts',
      access: 'user',
      params: idParams,
      response: z.object({ id: z.string(), deleted: z.literal(true) }),
      handle: async ({ params, meta }) => {
        const alertId = params.id.toLowerCase();
        if (!isUuid(alertId)) throw notFound(`params.id: no alert ${JSON.stringify(params.id)}`);
        await deps.commands.execute(concern, { type: 'DeleteAlert', data: { alertId } }, meta());
        return { id: alertId, deleted: true as const };
      },
    }),
  ];
}
