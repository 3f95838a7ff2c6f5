/**
 * Alert routes: create, change (re-arm), pause, resume, delete and read a user's alerts, and each alert's
 * trigger history.
 */
import { alertsApi } from '../../domain/contract/alerts.ts';
import type { Context } from 'koa';
import { ALERTS_CONCERN, alertsDecider, type Alert, type AlertsState } from '../../domain/alerts/alerts.ts';
import { type AlertAnswer } from '../../domain/contract/alerts.ts';
import { conditionText } from '../../domain/alerts/conditions.ts';
import { STOCKPULSE_NAMESPACE, isUuid, uuidV5 } from '../../domain/ids.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import {
  alertHistoryKey,
  alertHistoryProjection,
  alertsProjection,
  type AlertHistory,
} from '../../projections/alerts/alerts.projection.ts';
import { readDocument } from '../../projections/projection.ts';
import type { CommandService } from '../commands.ts';
import { notFound } from '../errors.ts';
import { defineRoute, markPosition } from '../http/route.ts';
import { requireKnown, type SymbolDirectory } from '../http/schemas.ts';
import { chooseChannels, requireChannels } from './channels.ts';

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

export type { AlertAnswer };

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
    condition: alert.condition,
    conditiontext: conditionText(alert.condition),
    frequency: alert.frequency,
    expires: alert.expires,
    lastfired: alert.lastFired,
    triggercount: alert.triggerCount,
  };
}

/** The alert id a path names, or a 404 naming `params.id`. */
function alertIdOf(id: string): string {
  const alertId = id.toLowerCase();
  if (!isUuid(alertId)) throw notFound(`params.id: no alert ${JSON.stringify(id)}`);
  return alertId;
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
      ...alertsApi.postStockalerts,
      handle: async ({ body, meta }) => {
        requireKnown(deps.symbols, [body.symbol], 'body.symbol');
        const m = meta();
        if (body.channels) await requireChannels(deps.readModels, m.userId, body.channels);
        const update = body.update === true;
        const alertId = update ? (body.id ?? '').toLowerCase() : uuidV5(`${m.commandId}/alert`, STOCKPULSE_NAMESPACE);
        if (!isUuid(alertId)) throw notFound(`body.id: no alert ${JSON.stringify(body.id)}`);
        const kind = body.kind === 'SMA' ? 'SMA' : 'PRICE';
        const hasCondition = body.condition !== null && body.condition !== undefined;
        const data = {
          alertId,
          symbol: body.symbol,
          condition: body.condition ?? null,
          frequency: body.frequency ?? null,
          expires: body.expires ?? null,
          kind: hasCondition ? null : kind,
          alerttype: hasCondition ? null : (body.alerttype ?? null),
          threshold: !hasCondition && kind === 'PRICE' ? (body.close ?? null) : null,
          period: !hasCondition && kind === 'SMA' ? (body.period ?? null) : null,
          at: m.at,
        } as const;
        const outcome = await deps.commands.execute(
          concern,
          update ? { type: 'UpdateAlert', data } : { type: 'CreateAlert', data },
          m,
        );
        const alert = outcome.state.alerts.find((a) => a.id === alertId);
        if (!alert) throw notFound(`body.id: no alert ${alertId}`);
        if (body.channels) await chooseChannels(deps.commands, alertId, body.channels, m);
        return alertView(alert);
      },
    }),
    defineRoute({
      ...alertsApi.getStockalerts,
      handle: async ({ userId, ctx }) => (await readAlerts(userId, ctx)).map(alertView),
    }),
    defineRoute({
      ...alertsApi.getStockalertsBySymbol,
      handle: async ({ params, userId, ctx }) =>
        (await readAlerts(userId, ctx)).filter((a) => a.symbol === params.symbol).map(alertView),
    }),
    ...(['PauseAlert', 'ResumeAlert'] as const).map((type) =>
      defineRoute({
        ...(type === 'PauseAlert' ? alertsApi.postStockalertsPause : alertsApi.postStockalertsResume),
        handle: async ({ params, meta }) => {
          const alertId = alertIdOf(params.id);
          const m = meta();
          const outcome = await deps.commands.execute(concern, { type, data: { alertId, at: m.at } }, m);
          const alert = outcome.state.alerts.find((a) => a.id === alertId);
          if (!alert) throw notFound(`params.id: no alert ${alertId}`);
          return alertView(alert);
        },
      }),
    ),
    defineRoute({
      ...alertsApi.getStockalertsHistory,
      handle: async ({ params, userId, ctx }) => {
        const alertId = alertIdOf(params.id);
        if (!(await readAlerts(userId, ctx)).some((a) => a.id === alertId)) {
          throw notFound(`params.id: no alert ${alertId}`);
        }
        const doc = await readDocument<AlertHistory>(
          deps.readModels,
          alertHistoryProjection,
          alertHistoryKey(userId, alertId),
        );
        return [...(doc?.value.triggers ?? [])].reverse();
      },
    }),
    defineRoute({
      ...alertsApi.postDeletealertById,
      handle: async ({ params, meta }) => {
        const alertId = alertIdOf(params.id);
        await deps.commands.execute(concern, { type: 'DeleteAlert', data: { alertId } }, meta());
        return { id: alertId, deleted: true as const };
      },
    }),
  ];
}
