/**
 * The alert manager: every alert of the user, filtered by text and status, created or changed in the condition
 * builder (checked against the contract before it is sent; a server refusal is kept naming its field), paused,
 * resumed, re-armed once fired, or deleted after a confirmation (one alert, or the selected ones at once), and each
 * alert's trigger history. The server's answers are the truth; a change made elsewhere (the chart, another tab, a
 * firing) reads the list again.
 */
import {
  alertsApi,
  type AlertAnswer,
  type AlertTriggerAnswer,
  type AlertsActionAnswer,
} from '../../../domain/contract/alerts.ts';
import { assertEvent, assign, enqueueActions, fromCallback, fromPromise, not, setup, stateIn } from 'xstate';
import {
  bodyProblem,
  draftOf,
  refusalField,
  requestOf,
  type AlertBody,
  type FieldProblem,
} from '../../components/conditionDraft.ts';
import { byChannelType } from '../../components/channelWords.ts';
import { DELIVERY_PAGE, channelsApi, type DeliveryAnswer } from '../../../domain/contract/channels.ts';
import { call, errorMessage } from '../../services/api.ts';
import { live } from '../../services/live.ts';
import { showToast } from '../../services/toast.ts';

/** The statuses an alert may have, and `all`. */
export type StatusFilter = 'all' | AlertAnswer['status'];

/** What the list shows. */
export interface AlertFilter {
  /** Text found in the symbol or the condition in words (any case). */
  readonly text: string;
  readonly status: StatusFilter;
}

/** The builder: closed, creating an alert, or changing the alert `id`. */
export type Editor =
  { readonly mode: 'closed' } | { readonly mode: 'create' } | { readonly mode: 'edit'; readonly id: string };

/** One alert's trigger history as shown, with where its latest triggers were delivered. */
export interface History {
  readonly id: string;
  readonly triggers: readonly AlertTriggerAnswer[];
  /** The alert's latest deliveries (at most {@link DELIVERY_PAGE}'s `max`), newest first. */
  readonly deliveries: readonly DeliveryAnswer[];
}

/** What the history panel reads: the triggers and the alert's deliveries. */
export type HistoryAnswer = Omit<History, 'id'>;

/**
 * The deliveries of one trigger, by channel type (webhook, e-mail, Web Push): none for a trigger kept before
 * triggers were identified, one delivered to no channel (the bell only), or one whose deliveries are older than
 * the latest read.
 */
export function triggerDeliveries(history: History, trigger: AlertTriggerAnswer): DeliveryAnswer[] {
  if (trigger.id === null) return [];
  return history.deliveries.filter((d) => d.triggerId === trigger.id).sort(byChannelType);
}

/** What the manager holds. */
export interface AlertsContext {
  readonly alerts: readonly AlertAnswer[];
  readonly filter: AlertFilter;
  /** Ids of the selected rows. */
  readonly selected: readonly string[];
  readonly editor: Editor;
  /** Why the builder's alert was refused (by the form or the server), naming the field. */
  readonly formProblem: FieldProblem | null;
  /** The alert whose history is open, and its triggers once read. */
  readonly historyId: string | null;
  readonly history: History | null;
  readonly historyError: string | null;
  /** Why the list could not be loaded. */
  readonly error: string | null;
  /** The alerts a delete waits for the user to confirm (none when no delete is asked). */
  readonly toDelete: readonly string[];
  /** Why the last pause, resume, re-arm or delete failed. */
  readonly actionError: string | null;
  /** The list changed on the server while an action was on its way: read it after. */
  readonly stale: boolean;
}

/** Events of the manager. */
export type AlertsEvent =
  | { type: 'user.retry' }
  | { type: 'user.filter'; filter: Partial<AlertFilter> }
  | { type: 'user.select'; ids: readonly string[] }
  | { type: 'user.create' }
  | { type: 'user.edit'; id: string }
  | { type: 'user.closeEditor' }
  | { type: 'user.save'; body: AlertBody }
  | { type: 'user.pause'; ids: readonly string[] }
  | { type: 'user.resume'; ids: readonly string[] }
  | { type: 'user.rearm'; id: string }
  | { type: 'user.delete'; ids: readonly string[] }
  | { type: 'user.confirmDelete' }
  | { type: 'user.cancelDelete' }
  | { type: 'user.showHistory'; id: string }
  | { type: 'user.closeHistory' }
  | { type: 'user.dismissError' }
  | { type: 'server.changed' }
  | { type: 'server.delivered' };

/** A pause or a resume of one alert or several. */
export interface ToggleRequest {
  readonly ids: readonly string[];
  readonly action: 'pause' | 'resume';
}

/** An alert an action on several could not change, and why: as the server's answer lists it. */
export type ActionFailure = AlertsActionAnswer['failed'][number];

/** What a pause or resume of several alerts answers: the alerts as changed, and why the others were not. */
export interface ToggleResult {
  readonly action: ToggleRequest['action'];
  readonly changed: readonly AlertAnswer[];
  readonly failed: readonly ActionFailure[];
}

/** A confirmed delete: the alerts. */
export interface DeleteRequest {
  readonly ids: readonly string[];
}

/** What a delete of several alerts answers: those deleted, and why the others were not. */
export interface DeleteResult {
  readonly deleted: readonly string[];
  readonly failed: readonly ActionFailure[];
}

/** `1 alert`, `3 alerts`. */
export function alertCount(n: number): string {
  return n === 1 ? '1 alert' : `${n} alerts`;
}

/** `paused`, `resumed`. */
const pastOf = (action: ToggleRequest['action']): string => (action === 'pause' ? 'paused' : 'resumed');

/** What the user is told of an action on several alerts that some refused: how many, and the first reason. */
function failureText(failed: readonly ActionFailure[], verb: string): string | null {
  return failed.length === 0 ? null : `${alertCount(failed.length)} could not be ${verb}: ${failed[0]!.message}`;
}

/** The alerts the filter lets through, in the order held. */
export function visibleAlerts(context: Pick<AlertsContext, 'alerts' | 'filter'>): AlertAnswer[] {
  const text = context.filter.text.trim().toLowerCase();
  return context.alerts.filter(
    (a) =>
      (context.filter.status === 'all' || a.status === context.filter.status) &&
      (text === '' ||
        a.symbol.toLowerCase().includes(text) ||
        a.conditiontext.toLowerCase().includes(text) ||
        (a.note ?? '').toLowerCase().includes(text)),
  );
}

/** The selected alerts with `status`, in the order selected. */
export function selectedWith(
  context: Pick<AlertsContext, 'alerts' | 'selected'>,
  status: AlertAnswer['status'],
): string[] {
  return context.selected.filter((id) => context.alerts.some((a) => a.id === id && a.status === status));
}

/** Replaces the alert of the same id, or appends it. */
export function withAlert(alerts: readonly AlertAnswer[], alert: AlertAnswer): AlertAnswer[] {
  return alerts.some((a) => a.id === alert.id)
    ? alerts.map((a) => (a.id === alert.id ? alert : a))
    : [...alerts, alert];
}

/** A refusal of the server as a field problem: the field it names (`body.` left out), or `body`. */
export function refusalProblem(error: unknown): FieldProblem {
  const message = errorMessage(error);
  const field = refusalField(message);
  return field === null
    ? { field: 'body', message }
    : { field, message: message.slice(message.indexOf(':') + 1).trim() };
}

/**
 * The body that re-arms an alert: its own definition sent again as a change (what the builder's "Save and re-arm"
 * sends when nothing is changed), with its expiry exactly as held.
 */
export function rearmBody(alert: AlertAnswer): AlertBody {
  return { ...requestOf(draftOf(alert), alert.id), expires: alert.expires };
}

/** What the builder says when an expired alert is opened to be re-armed. */
export const EXPIRED_PROBLEM: FieldProblem = {
  field: 'expires',
  message: 'has passed; set a later time, or clear it, to re-arm the alert',
};

const findAlert = (context: AlertsContext, id: string) => context.alerts.find((a) => a.id === id);

/** Whether an alert's expiry has passed at `now` (an alert without one never expires). */
export function expiryPassed(alert: Pick<AlertAnswer, 'expires'>, now: number = Date.now()): boolean {
  return alert.expires !== null && Date.parse(alert.expires) <= now;
}

/** The alert manager's machine. */
export const alertsMachine = setup({
  types: { context: {} as AlertsContext, events: {} as AlertsEvent },
  actors: {
    loadAlerts: fromPromise<AlertAnswer[]>(async ({ signal }) => call(alertsApi.getStockalerts, { signal })),
    saveAlert: fromPromise<AlertAnswer, AlertBody>(async ({ input }) =>
      call(alertsApi.postStockalerts, { body: input }),
    ),
    // One request for all of them (`POST /personalize/stockalerts/bulk`): each alert as its own route would treat
    // it, those refused listed with the reason.
    toggleAlerts: fromPromise<ToggleResult, ToggleRequest>(async ({ input }) => {
      const answer = await call(alertsApi.postStockalertsBulk, { body: { action: input.action, ids: [...input.ids] } });
      return { action: input.action, changed: answer.alerts, failed: answer.failed };
    }),
    deleteAlerts: fromPromise<DeleteResult, DeleteRequest>(async ({ input }) => {
      const answer = await call(alertsApi.postStockalertsBulk, { body: { action: 'delete', ids: [...input.ids] } });
      return { deleted: answer.done, failed: answer.failed };
    }),
    loadHistory: fromPromise<HistoryAnswer, { id: string }>(async ({ input, signal }) => {
      const [triggers, deliveries] = await Promise.all([
        call(alertsApi.getStockalertsHistory, { params: { id: input.id }, signal }),
        call(channelsApi.getDeliveries, { query: { alertId: input.id, limit: DELIVERY_PAGE.max }, signal }),
      ]);
      return { triggers, deliveries };
    }),
    listChanges: fromCallback<AlertsEvent>(({ sendBack }) => {
      const offChange = live.onReadModelChanged((change) => {
        if (change.name === 'alerts') sendBack({ type: 'server.changed' });
        // A delivery moved on (sent, failed, retried): the history open shows it.
        if (change.name === 'deliveries') sendBack({ type: 'server.delivered' });
      });
      const offNote = live.onNotification(() => sendBack({ type: 'server.changed' }));
      return () => {
        offChange();
        offNote();
      };
    }),
  },
  actions: {
    /** Tells the user what happened. */
    notify: (_, params: { text: string }) => showToast(params.text, 'info'),
  },
  guards: {
    bodyIsValid: ({ event }) => {
      assertEvent(event, 'user.save');
      return bodyProblem(event.body) === null;
    },
    isEditable: ({ context, event }) => {
      assertEvent(event, 'user.edit');
      return findAlert(context, event.id) !== undefined;
    },
    canPause: ({ context, event }) => {
      assertEvent(event, 'user.pause');
      return event.ids.length > 0 && event.ids.every((id) => findAlert(context, id)?.status === 'armed');
    },
    canResume: ({ context, event }) => {
      assertEvent(event, 'user.resume');
      return event.ids.length > 0 && event.ids.every((id) => findAlert(context, id)?.status === 'paused');
    },
    isTriggered: ({ context, event }) => {
      assertEvent(event, 'user.rearm');
      const alert = findAlert(context, event.id);
      return alert?.status === 'triggered' && !expiryPassed(alert);
    },
    /** Expired, or fired before an expiry that has passed since: either way a later expiry re-arms it. */
    isExpired: ({ context, event }) => {
      assertEvent(event, 'user.rearm');
      const alert = findAlert(context, event.id);
      return alert?.status === 'expired' || (alert?.status === 'triggered' && expiryPassed(alert));
    },
    namesKnownAlerts: ({ context, event }) => {
      assertEvent(event, 'user.delete');
      return event.ids.length > 0 && event.ids.every((id) => findAlert(context, id) !== undefined);
    },
    stale: ({ context }) => context.stale,
  },
}).createMachine({
  id: 'alerts',
  initial: 'loading',
  context: {
    alerts: [],
    filter: { text: '', status: 'all' },
    selected: [],
    editor: { mode: 'closed' },
    formProblem: null,
    historyId: null,
    history: null,
    historyError: null,
    error: null,
    toDelete: [],
    actionError: null,
    stale: false,
  },
  states: {
    loading: {
      invoke: {
        src: 'loadAlerts',
        onDone: { target: 'ready', actions: assign({ alerts: ({ event }) => event.output, error: null }) },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => errorMessage(event.error) }) },
      },
    },
    failed: {
      on: { 'user.retry': 'loading' },
    },
    ready: {
      invoke: { src: 'listChanges' },
      type: 'parallel',
      on: {
        'user.filter': {
          actions: assign({ filter: ({ context, event }) => ({ ...context.filter, ...event.filter }) }),
        },
        'user.select': { actions: assign({ selected: ({ event }) => [...event.ids] }) },
        'user.create': { actions: assign({ editor: { mode: 'create' }, formProblem: null }) },
        'user.edit': {
          guard: 'isEditable',
          actions: assign({ editor: ({ event }) => ({ mode: 'edit', id: event.id }), formProblem: null }),
        },
        'user.closeEditor': { actions: assign({ editor: { mode: 'closed' }, formProblem: null }) },
        'user.dismissError': { actions: assign({ actionError: null }) },
      },
      states: {
        list: {
          initial: 'idle',
          // Each region takes the change for itself: the list is read again once no action is on its way.
          on: { 'server.changed': { guard: not('stale'), actions: assign({ stale: true }) } },
          states: {
            idle: {
              always: { guard: 'stale', target: 'refreshing' },
              on: {
                'user.save': [
                  { guard: 'bodyIsValid', target: 'saving' },
                  {
                    actions: assign({
                      formProblem: ({ event }) => bodyProblem(event.body) ?? { field: 'body', message: 'is refused' },
                    }),
                  },
                ],
                'user.pause': { guard: 'canPause', target: 'toggling' },
                'user.resume': { guard: 'canResume', target: 'toggling' },
                'user.rearm': [
                  { guard: 'isTriggered', target: 'rearming' },
                  // Its expiry has passed: only a later one (or none) re-arms it, chosen in the builder.
                  {
                    guard: 'isExpired',
                    actions: assign({
                      editor: ({ event }) => ({ mode: 'edit', id: event.id }),
                      formProblem: EXPIRED_PROBLEM,
                    }),
                  },
                ],
                'user.delete': {
                  guard: 'namesKnownAlerts',
                  target: 'confirmingDelete',
                  actions: assign({ toDelete: ({ event }) => [...event.ids] }),
                },
              },
            },
            confirmingDelete: {
              on: {
                'user.confirmDelete': 'deleting',
                'user.cancelDelete': { target: 'idle', actions: assign({ toDelete: [] }) },
              },
            },
            refreshing: {
              entry: assign({ stale: false }),
              invoke: {
                src: 'loadAlerts',
                onDone: {
                  target: 'idle',
                  actions: [
                    // An alert deleted elsewhere (another tab, another device) takes its history and its
                    // builder with it: the builder closes saying so, rather than turning into a blank new alert.
                    enqueueActions(({ context, event, enqueue }) => {
                      const { historyId } = context;
                      if (historyId !== null && !event.output.some((a) => a.id === historyId)) {
                        enqueue.raise({ type: 'user.closeHistory' });
                      }
                    }),
                    assign(({ context, event }) => {
                      const here = new Set(event.output.map((a) => a.id));
                      const { editor } = context;
                      const edited = editor.mode === 'edit' && !here.has(editor.id) ? editor.id : null;
                      const gone = context.alerts.find((a) => a.id === edited);
                      return {
                        alerts: event.output,
                        selected: context.selected.filter((id) => here.has(id)),
                        ...(edited === null
                          ? {}
                          : {
                              editor: { mode: 'closed' as const },
                              formProblem: null,
                              actionError: `The alert you were changing${gone ? ` on ${gone.symbol}` : ''} was deleted elsewhere`,
                            }),
                      };
                    }),
                  ],
                },
                onError: 'idle',
              },
            },
            saving: {
              entry: assign({ formProblem: null }),
              invoke: {
                src: 'saveAlert',
                input: ({ event }) => {
                  assertEvent(event, 'user.save');
                  return event.body;
                },
                onDone: {
                  target: 'idle',
                  actions: [
                    assign({
                      alerts: ({ context, event }) => withAlert(context.alerts, event.output),
                      editor: { mode: 'closed' },
                    }),
                    {
                      type: 'notify',
                      params: ({ event }) => ({
                        text: `Alert saved: ${event.output.symbol} ${event.output.conditiontext} (${event.output.status})`,
                      }),
                    },
                  ],
                },
                onError: {
                  target: 'idle',
                  actions: assign({ formProblem: ({ event }) => refusalProblem(event.error) }),
                },
              },
            },
            rearming: {
              entry: assign({ actionError: null }),
              invoke: {
                src: 'saveAlert',
                input: ({ context, event }) => {
                  assertEvent(event, 'user.rearm');
                  // The guard found it triggered in this list.
                  return rearmBody(findAlert(context, event.id)!);
                },
                onDone: {
                  target: 'idle',
                  actions: [
                    assign({ alerts: ({ context, event }) => withAlert(context.alerts, event.output) }),
                    {
                      type: 'notify',
                      params: ({ event }) => ({
                        text: `Alert re-armed: ${event.output.symbol} ${event.output.conditiontext} (${event.output.status})`,
                      }),
                    },
                  ],
                },
                onError: {
                  target: 'idle',
                  actions: assign({
                    actionError: ({ event }) => `The alert could not be re-armed: ${errorMessage(event.error)}`,
                    stale: true,
                  }),
                },
              },
            },
            toggling: {
              entry: assign({ actionError: null }),
              invoke: {
                src: 'toggleAlerts',
                input: ({ event }) => {
                  assertEvent(event, ['user.pause', 'user.resume']);
                  return { ids: event.ids, action: event.type === 'user.pause' ? 'pause' : 'resume' };
                },
                onDone: {
                  target: 'idle',
                  actions: [
                    assign(({ context, event }) => ({
                      alerts: event.output.changed.reduce<readonly AlertAnswer[]>(withAlert, context.alerts),
                      actionError: failureText(event.output.failed, pastOf(event.output.action)),
                      stale: context.stale || event.output.failed.length > 0,
                    })),
                    enqueueActions(({ event, enqueue }) => {
                      const { action, changed } = event.output;
                      // One alert's button shows its new state; several are counted.
                      if (changed.length < 2) return;
                      enqueue({ type: 'notify', params: { text: `${alertCount(changed.length)} ${pastOf(action)}` } });
                    }),
                  ],
                },
                onError: {
                  target: 'idle',
                  actions: assign({
                    actionError: ({ event }) => `The alert could not be changed: ${errorMessage(event.error)}`,
                    stale: true,
                  }),
                },
              },
            },
            deleting: {
              entry: assign({ actionError: null }),
              invoke: {
                src: 'deleteAlerts',
                input: ({ context }) => ({ ids: context.toDelete }),
                onDone: {
                  target: 'idle',
                  actions: [
                    enqueueActions(({ context, event, enqueue }) => {
                      if (context.historyId !== null && event.output.deleted.includes(context.historyId)) {
                        enqueue.raise({ type: 'user.closeHistory' });
                      }
                    }),
                    assign(({ context, event }) => {
                      const gone = new Set(event.output.deleted);
                      const { failed } = event.output;
                      return {
                        alerts: context.alerts.filter((a) => !gone.has(a.id)),
                        selected: context.selected.filter((id) => !gone.has(id)),
                        editor:
                          context.editor.mode === 'edit' && gone.has(context.editor.id)
                            ? { mode: 'closed' as const }
                            : context.editor,
                        toDelete: [],
                        actionError: failureText(failed, 'deleted'),
                        stale: context.stale || failed.length > 0,
                      };
                    }),
                    {
                      type: 'notify',
                      params: ({ event }) => ({
                        text:
                          event.output.deleted.length === 1
                            ? 'Alert deleted'
                            : `${alertCount(event.output.deleted.length)} deleted`,
                      }),
                    },
                  ],
                },
                onError: {
                  target: 'idle',
                  actions: assign({ toDelete: [], actionError: ({ event }) => errorMessage(event.error), stale: true }),
                },
              },
            },
          },
        },
        history: {
          initial: 'closed',
          on: {
            'user.showHistory': {
              target: '.loading',
              reenter: true,
              actions: assign({ historyId: ({ event }) => event.id, historyError: null }),
            },
            'user.closeHistory': {
              target: '.closed',
              actions: assign({ historyId: null, history: null, historyError: null }),
            },
          },
          states: {
            closed: {},
            loading: {
              invoke: {
                src: 'loadHistory',
                input: ({ context }) => ({ id: context.historyId ?? '' }),
                onDone: {
                  target: 'shown',
                  actions: assign({
                    history: ({ context, event }) => ({ id: context.historyId ?? '', ...event.output }),
                  }),
                },
                onError: {
                  target: 'failed',
                  actions: assign({ historyError: ({ event }) => errorMessage(event.error) }),
                },
              },
            },
            shown: {
              // A change while deleting is the deletion itself: the history of a deleted alert is closed after it.
              on: {
                'server.changed': { guard: not(stateIn({ ready: { list: 'deleting' } })), target: 'loading' },
                'server.delivered': { target: 'loading' },
              },
            },
            failed: {},
          },
        },
      },
    },
  },
});
