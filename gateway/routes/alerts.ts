/**
 * Alert routes: create, change (re-arm), pause, resume, delete and read a user's alerts, and each alert's
 * trigger history.
 */
import { alertsApi } from '../../domain/contract/alerts.ts';
import {
  ALERTS_CONCERN,
  actionReport,
  alertKey,
  alertOf,
  alertsDecider,
  type Alert,
} from '../../domain/alerts/alerts.ts';
import { type AlertAnswer } from '../../domain/contract/alerts.ts';
import { conditionText } from '../../domain/alerts/conditions.ts';
import { STOCKPULSE_NAMESPACE, isUuid, uuidV5 } from '../../domain/ids.ts';
import { isDomainError } from '../../domain/decider.ts';
import { channelsDecider, type ChannelsState } from '../../domain/channels/channels.ts';
import { channelsProjection } from '../../projections/delivery/delivery.projection.ts';
import { comparePositions, type LogPosition } from '../../platform/eventstore/port.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import {
  alertsPrefix,
  alertsProjection,
  readAlertHistory,
  type AlertDocument,
} from '../../projections/alerts/alerts.projection.ts';
import { projectionConsumer, readDocument, type StoredDocument } from '../../projections/projection.ts';
import type { CommandService } from '../commands.ts';
import { notFound } from '../errors.ts';
import { keptAnswer } from '../http/keptAnswer.ts';
import { inRequestTerms } from '../http/fieldNames.ts';
import { defineRoute, markPosition } from '../http/route.ts';
import { requireSymbol, type SymbolDirectory } from '../http/schemas.ts';
import { chooseChannels, readChannels, requireChannels } from './channels.ts';

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

/**
 * The channels an alert named that still exist (its triggers go to those), or null when it named none (every
 * channel of the user).
 */
function namedChannels(channels: ChannelsState, alertId: string): string[] | null {
  const named = channels.alertChannels[alertId];
  return named ? named.filter((id) => channels.channels.some((c) => c.id === id)) : null;
}

/** An alert in the API's shape, with the channels it is delivered to from the user's channels. */
export function alertView(alert: Alert, channels: ChannelsState): AlertAnswer {
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
    // Documents folded before alerts had notes have none.
    note: alert.note ?? null,
    channels: namedChannels(channels, alert.id),
  };
}

/** The alert id a path names, or a 404 naming `params.id`. */
function alertIdOf(id: string): string {
  const alertId = id.toLowerCase();
  if (!isUuid(alertId)) throw notFound(`params.id: no alert ${JSON.stringify(id)}`);
  return alertId;
}

/** The alert command's fields as the body names them (the older body's `close` is the command's threshold). */
const BODY_TERMS: Readonly<Record<string, string>> = {
  symbol: 'body.symbol',
  condition: 'body.condition',
  frequency: 'body.frequency',
  expires: 'body.expires',
  note: 'body.note',
  threshold: 'body.close',
  period: 'body.period',
  alerttype: 'body.alerttype',
  kind: 'body.kind',
};

/**
 * Runs the command of an alert body: a refusal of the rules (a level under a cent, channel bounds that meet
 * once kept to the cent, an expiry already past, an update of an alert that does not exist) names the field
 * as the body has it, as the body's own checks do (`body.condition.upper: …`, `body.id: …`).
 */
async function inBodyTerms<T>(alertId: string, run: () => Promise<T>): Promise<T> {
  try {
    return await inRequestTerms(BODY_TERMS, run);
  } catch (error) {
    if (isDomainError(error) && error.code === 'not_found' && error.field === 'alertId') {
      throw notFound(`body.id: no alert ${alertId}`);
    }
    throw error;
  }
}

/** The name of the alerts projection's checkpoint. */
const ALERTS_CONSUMER = projectionConsumer(alertsProjection).name;

/** A user's alerts, in the order they were created, and the log position the list reflects. */
interface UserAlerts {
  readonly alerts: readonly Alert[];
  /** The user's channels and the alerts that named some. */
  readonly channels: ChannelsState;
  readonly position: LogPosition | undefined;
}

/**
 * A user's alerts from their documents (`<userId>/<alertId>`), in the order they were created. The position is
 * the newest of the projection's checkpoint, read first (every alert event up to it, a deletion included, is in
 * what is listed next), and the documents' own positions (a store shared with other processes may list
 * documents past the checkpoint read).
 */
async function readAlerts(readModels: ReadModelStore, userId: string): Promise<UserAlerts> {
  const checkpoint = await readModels.readCheckpoint(ALERTS_CONSUMER);
  const channels = await readDocument<ChannelsState>(readModels, channelsProjection, userId);
  const listed = await readModels.list<StoredDocument<AlertDocument>>(alertsProjection.name, {
    prefix: alertsPrefix(userId),
  });
  const docs = listed.map((d) => d.doc).sort((a, b) => comparePositions(a.value.created, b.value.created));
  let position = checkpoint?.position;
  for (const doc of docs) {
    if (position === undefined || comparePositions(doc.position, position) > 0) position = doc.position;
  }
  if (channels && (position === undefined || comparePositions(channels.position, position) > 0)) {
    position = channels.position;
  }
  return {
    alerts: docs.map((doc) => doc.value.alert),
    channels: channels?.value ?? channelsDecider.initialState,
    position,
  };
}

/**
 * The alerts answer of a user (all, or one symbol's), kept as sent until a commit writes one of the user's
 * alert documents (any key under `<userId>/`): another user's alerts firing leaves it kept.
 */
function keptAlerts(readModels: ReadModelStore, userId: string, symbol: string | null) {
  return keptAnswer(
    readModels,
    `stockalerts\u0000${userId}\u0000${symbol ?? ''}`,
    { prefixes: [[alertsProjection.name, alertsPrefix(userId)]], documents: [[channelsProjection.name, userId]] },
    async () => {
      const { alerts, channels, position } = await readAlerts(readModels, userId);
      const chosen = symbol === null ? alerts : alerts.filter((a) => a.symbol === symbol);
      return { body: chosen.map((alert) => alertView(alert, channels)), position };
    },
  );
}

/** The alert routes. */
export function alertsRoutes(deps: AlertsDeps) {
  return [
    defineRoute({
      ...alertsApi.postStockalerts,
      handle: async ({ body, meta }) => {
        requireSymbol(deps.symbols, body.symbol, 'body.symbol');
        const m = meta();
        if (body.channels) await requireChannels(deps.readModels, m.userId, body.channels);
        const update = body.update === true;
        // null on an update: every channel again; absent: the alert keeps its choice (a new one: every channel).
        const choice = body.channels === undefined || (body.channels === null && !update) ? undefined : body.channels;
        const alertId = update ? (body.id ?? '').toLowerCase() : uuidV5(`${m.commandId}/alert`, STOCKPULSE_NAMESPACE);
        if (!isUuid(alertId)) throw notFound(`body.id: no alert ${JSON.stringify(body.id)}`);
        const kind = body.kind === 'SMA' ? 'SMA' : 'PRICE';
        // The older body's fields, when it is one (an update sending neither them nor a condition keeps its own).
        const older = (body.condition ?? null) === null && (body.alerttype ?? null) !== null;
        const data = {
          alertId,
          symbol: body.symbol,
          condition: body.condition ?? null,
          frequency: body.frequency ?? null,
          // Absent on an update: the alert keeps its expiry (null makes it open-ended).
          expires: body.expires,
          // Absent on an update: the alert keeps its note (null or blank clears it).
          note: body.note,
          kind: older ? kind : null,
          alerttype: older ? (body.alerttype ?? null) : null,
          threshold: older && kind === 'PRICE' ? (body.close ?? null) : null,
          period: older && kind === 'SMA' ? (body.period ?? null) : null,
          at: m.at,
        } as const;
        const outcome = await inBodyTerms(alertId, () =>
          deps.commands.execute(concern, update ? { type: 'UpdateAlert', data } : { type: 'CreateAlert', data }, m),
        );
        const alert = alertOf(outcome.state, alertId);
        if (!alert) throw notFound(`body.id: no alert ${alertId}`);
        const channels =
          choice === undefined
            ? await readChannels(deps.readModels, m.userId)
            : await chooseChannels(deps.commands, alertId, choice, m);
        return alertView(alert, channels);
      },
    }),
    defineRoute({
      ...alertsApi.getStockalerts,
      handle: ({ userId }) => keptAlerts(deps.readModels, userId, null),
    }),
    defineRoute({
      ...alertsApi.getStockalertsBySymbol,
      handle: ({ params, userId }) => {
        if (deps.symbols.has(params.symbol)) return keptAlerts(deps.readModels, userId, params.symbol);
        // A mistyped symbol is said to be one (it answered an empty list); alerts of a symbol the universe has since
        // dropped are still listed.
        return readAlerts(deps.readModels, userId).then(({ alerts }) => {
          if (!alerts.some((a) => a.symbol === params.symbol))
            requireSymbol(deps.symbols, params.symbol, 'params.symbol');
          return keptAlerts(deps.readModels, userId, params.symbol);
        });
      },
    }),
    ...(['PauseAlert', 'ResumeAlert'] as const).map((type) =>
      defineRoute({
        ...(type === 'PauseAlert' ? alertsApi.postStockalertsPause : alertsApi.postStockalertsResume),
        handle: async ({ params, meta }) => {
          const alertId = alertIdOf(params.id);
          const m = meta();
          const outcome = await deps.commands.execute(concern, { type, data: { alertId, at: m.at } }, m);
          const alert = alertOf(outcome.state, alertId);
          if (!alert) throw notFound(`params.id: no alert ${alertId}`);
          return alertView(alert, await readChannels(deps.readModels, m.userId));
        },
      }),
    ),
    defineRoute({
      ...alertsApi.postStockalertsBulk,
      handle: async ({ body, meta }) => {
        const m = meta();
        const data = { action: body.action, alertIds: body.ids, at: m.at };
        const outcome = await inRequestTerms({ alertIds: 'body.ids' }, () =>
          deps.commands.execute(concern, { type: 'ActOnAlerts', data }, m),
        );
        const { done, refused } = actionReport(data, outcome.state, outcome.events);
        const byId = new Map(outcome.state.alerts.map((alert) => [alert.id, alert]));
        const alerts = body.action === 'delete' ? [] : done.flatMap((id) => byId.get(id) ?? []);
        const channels = alerts.length > 0 ? await readChannels(deps.readModels, m.userId) : null;
        return {
          action: body.action,
          done,
          alerts: channels ? alerts.map((alert) => alertView(alert, channels)) : [],
          failed: refused.map((r) => ({ id: r.alertId, message: r.message })),
        };
      },
    }),
    defineRoute({
      ...alertsApi.getStockalertsHistory,
      handle: async ({ params, userId, ctx }) => {
        const alertId = alertIdOf(params.id);
        const key = alertKey(userId, alertId);
        const alert = await readDocument<AlertDocument>(deps.readModels, alertsProjection, key);
        if (!alert) throw notFound(`params.id: no alert ${alertId}`);
        // Every firing of the alert is an event of its document too, so its position covers the history.
        markPosition(ctx, alert.position);
        return readAlertHistory(deps.readModels, key);
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
