/**
 * The Predict page: the form of a forecasting model, the fit (walk-forward validation beside the naive
 * baseline, run on the server), and the user's saved models (save the model shown, delete one, open one to fit it
 * again with its parameters). The saved list is read again when it changes elsewhere.
 */
import { predictionApi } from '../../../domain/contract/prediction.ts';
import { assertEvent, assign, fromCallback, fromPromise, not, setup } from 'xstate';
import { call, errorMessage } from '../../services/api.ts';
import { live } from '../../services/live.ts';
import { showToast } from '../../services/toast.ts';
import { findCompany, type UniverseHit } from '../../components/symbolSearch.machine.ts';
import {
  DEFAULT_FORM,
  MODEL_NAME_MAX,
  formFromModel,
  requestFromForm,
  requestOfModel,
  type FitResult,
  type PredictForm,
  type PredictRequest,
  type SavedModel,
} from './predict.logic.ts';

/** The page's state. */
export interface PredictContext {
  /** The form as filled. */
  readonly form: PredictForm;
  /** The symbol the address named (`?stock=`), upper case, checked against the universe on load. */
  readonly addressSymbol: string | null;
  /** The symbol of the address when the market data has no such company (the form then has no symbol). */
  readonly unknownSymbol: string | null;
  /** Why the form cannot be fitted. */
  readonly formError: string | null;
  /** The request being fitted or last fitted. */
  readonly pending: PredictRequest | null;
  /** The fit shown. */
  readonly result: FitResult | null;
  /** The request of the fit shown (what a save saves). */
  readonly fitted: PredictRequest | null;
  /** Why the last fit failed. */
  readonly fitError: string | null;
  /** The saved models, newest first. */
  readonly models: readonly SavedModel[];
  /** Why the saved models could not be loaded. */
  readonly modelsError: string | null;
  /** Why the last save or delete was refused. */
  readonly actionError: string | null;
  /** The model being deleted. */
  readonly deleting: string | null;
}

/** Events of the page. */
export type PredictEvent =
  | { type: 'user.edit'; patch: Partial<PredictForm> }
  | { type: 'user.fit' }
  | { type: 'user.retryFit' }
  | { type: 'user.save'; name: string }
  | { type: 'user.delete'; id: string }
  | { type: 'user.openModel'; id: string }
  | { type: 'user.retryModels' }
  | { type: 'user.dismissError' }
  | { type: 'server.modelsChanged' };

/** What a save sends. */
export type SaveRequest = PredictRequest & { readonly name: string };

/** The check of a model's name before it is sent; null when it is fine. */
export function nameError(name: string, models: readonly SavedModel[]): string | null {
  const trimmed = name.trim();
  if (trimmed === '') return 'Name: enter a name for the model';
  if (trimmed.length > MODEL_NAME_MAX) return `Name: at most ${MODEL_NAME_MAX} characters`;
  const key = trimmed.toLowerCase();
  if (models.some((m) => m.name.trim().toLowerCase() === key))
    return `Name: a saved model is already called ${trimmed}`;
  return null;
}

/** The machine's input: the symbol the page opens with. */
export interface PredictInput {
  readonly symbol: string | null;
}

/** The Predict page's machine. */
export const predictMachine = setup({
  types: {
    context: {} as PredictContext,
    events: {} as PredictEvent,
    input: {} as PredictInput,
  },
  actors: {
    fitModel: fromPromise<FitResult, PredictRequest>(async ({ input, signal }) =>
      call(predictionApi.postPredictionFit, { body: input, signal }),
    ),
    loadModels: fromPromise<SavedModel[]>(async () => call(predictionApi.getPredictions)),
    saveModel: fromPromise<SavedModel, SaveRequest>(async ({ input }) =>
      call(predictionApi.postPredictions, { body: input }),
    ),
    deleteModel: fromPromise<{ id: string }, { id: string }>(async ({ input }) =>
      call(predictionApi.postDelpredictionById, { params: { id: input.id } }),
    ),
    checkSymbol: fromPromise<UniverseHit | null, { symbol: string }>(async ({ input, signal }) =>
      findCompany(input.symbol, signal),
    ),
    liveChanges: fromCallback<PredictEvent>(({ sendBack }) =>
      live.onReadModelChanged((change) => {
        if (change.name === 'predictions') sendBack({ type: 'server.modelsChanged' });
      }),
    ),
  },
  actions: {
    /** Tells the user what happened. */
    notify: (_, params: { text: string }) => showToast(params.text),
    prepareFit: assign(({ context }) => {
      const outcome = requestFromForm(context.form);
      return 'request' in outcome
        ? { pending: outcome.request, formError: null, fitError: null }
        : { formError: outcome.error };
    }),
    openModel: assign(({ context, event }) => {
      assertEvent(event, 'user.openModel');
      const model = context.models.find((m) => m.id === event.id);
      if (!model) return {};
      return { form: formFromModel(model), pending: requestOfModel(model), formError: null, fitError: null };
    }),
  },
  guards: {
    formValid: ({ context }) => 'request' in requestFromForm(context.form),
    hasAddressSymbol: ({ context }) => context.addressSymbol !== null,
    /** The universe has no company of the address's symbol, and the form still holds it. */
    addressSymbolUnknown: ({ context, event }) =>
      'output' in event && event.output === null && context.form.symbol === context.addressSymbol,
    knownModel: ({ context, event }) =>
      event.type === 'user.openModel' && context.models.some((m) => m.id === event.id),
    hasPending: ({ context }) => context.pending !== null,
  },
}).createMachine({
  id: 'predict',
  type: 'parallel',
  context: ({ input }) => {
    const addressSymbol = input.symbol?.trim() ? input.symbol.trim().toUpperCase() : null;
    return {
      form: addressSymbol === null ? DEFAULT_FORM : { ...DEFAULT_FORM, symbol: addressSymbol },
      addressSymbol,
      unknownSymbol: null,
      formError: null,
      pending: null,
      result: null,
      fitted: null,
      fitError: null,
      models: [],
      modelsError: null,
      actionError: null,
      deleting: null,
    };
  },
  invoke: { src: 'liveChanges' },
  on: {
    'user.edit': {
      actions: assign({
        form: ({ context, event }) => ({ ...context.form, ...event.patch }),
        formError: null,
        unknownSymbol: ({ context, event }) => (event.patch.symbol === undefined ? context.unknownSymbol : null),
      }),
    },
    'user.dismissError': { actions: assign({ actionError: null }) },
  },
  states: {
    symbol: {
      initial: 'checking',
      states: {
        checking: {
          always: { guard: not('hasAddressSymbol'), target: 'checked' },
          invoke: {
            src: 'checkSymbol',
            input: ({ context }) => ({ symbol: context.addressSymbol ?? '' }),
            onDone: [
              {
                guard: 'addressSymbolUnknown',
                target: 'unknown',
                actions: assign({
                  unknownSymbol: ({ context }) => context.addressSymbol,
                  form: ({ context }) => ({ ...context.form, symbol: '' }),
                }),
              },
              { target: 'checked' },
            ],
            // Unread (refused, or unreachable): the symbol stays, and a fit says whether the server knows it.
            onError: 'checked',
          },
        },
        checked: {},
        unknown: {},
      },
    },
    fit: {
      initial: 'idle',
      on: {
        'user.fit': [
          { guard: 'formValid', target: '.fitting', reenter: true, actions: 'prepareFit' },
          { actions: 'prepareFit' },
        ],
        'user.openModel': { guard: 'knownModel', target: '.fitting', reenter: true, actions: 'openModel' },
      },
      states: {
        idle: {},
        fitting: {
          invoke: {
            src: 'fitModel',
            input: ({ context }) => context.pending!,
            onDone: {
              target: 'fitted',
              actions: assign({
                result: ({ event }) => event.output,
                fitted: ({ context }) => context.pending,
                fitError: null,
              }),
            },
            onError: { target: 'failed', actions: assign({ fitError: ({ event }) => errorMessage(event.error) }) },
          },
        },
        fitted: {},
        failed: {
          on: { 'user.retryFit': { guard: 'hasPending', target: 'fitting' } },
        },
      },
    },
    models: {
      initial: 'loading',
      states: {
        loading: {
          invoke: {
            src: 'loadModels',
            onDone: { target: 'ready', actions: assign({ models: ({ event }) => event.output, modelsError: null }) },
            onError: { target: 'failed', actions: assign({ modelsError: ({ event }) => errorMessage(event.error) }) },
          },
        },
        failed: {
          on: { 'user.retryModels': 'loading' },
        },
        ready: {
          on: {
            'server.modelsChanged': 'refreshing',
            'user.save': [
              {
                guard: ({ context, event }) =>
                  context.fitted !== null && nameError(event.name, context.models) === null,
                target: 'saving',
              },
              {
                actions: assign({
                  actionError: ({ context, event }) =>
                    context.fitted === null ? 'Fit a model before saving it' : nameError(event.name, context.models),
                }),
              },
            ],
            'user.delete': {
              guard: ({ context, event }) => context.models.some((m) => m.id === event.id),
              target: 'deleting',
              actions: assign({ deleting: ({ event }) => event.id, actionError: null }),
            },
          },
        },
        refreshing: {
          invoke: {
            src: 'loadModels',
            onDone: { target: 'ready', actions: assign({ models: ({ event }) => event.output }) },
            onError: 'ready',
          },
        },
        saving: {
          entry: assign({ actionError: null }),
          invoke: {
            src: 'saveModel',
            input: ({ context, event }) => {
              assertEvent(event, 'user.save');
              return { ...context.fitted!, name: event.name.trim() };
            },
            onDone: {
              target: 'ready',
              actions: [
                assign({
                  models: ({ context, event }) => [
                    event.output,
                    ...context.models.filter((m) => m.id !== event.output.id),
                  ],
                }),
                { type: 'notify', params: ({ event }) => ({ text: `Model “${event.output.name}” saved` }) },
              ],
            },
            onError: { target: 'ready', actions: assign({ actionError: ({ event }) => errorMessage(event.error) }) },
          },
        },
        deleting: {
          invoke: {
            src: 'deleteModel',
            input: ({ context }) => ({ id: context.deleting! }),
            onDone: {
              target: 'ready',
              actions: [
                { type: 'notify', params: ({ context }) => ({ text: deletedText(context) }) },
                assign({
                  models: ({ context }) => context.models.filter((m) => m.id !== context.deleting),
                  deleting: null,
                }),
              ],
            },
            onError: {
              target: 'ready',
              actions: assign({ actionError: ({ event }) => errorMessage(event.error), deleting: null }),
            },
          },
        },
      },
    },
  },
});

function deletedText(context: PredictContext): string {
  const name = context.models.find((m) => m.id === context.deleting)?.name;
  return name ? `Model “${name}” deleted` : 'Model deleted';
}
