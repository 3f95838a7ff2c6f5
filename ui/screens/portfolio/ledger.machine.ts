/**
 * The transactions panel of the portfolio screen: the ledger (transactions, open lots, closed parts of lots)
 * and the performance against the benchmark the user picks. A transaction form is checked, then sent (a sale that
 * opened a short is said in `notice`), then the ledger and the performance are read again; a change made
 * elsewhere (an import, another tab) is read again too. A refusal of the form, its own or the server's, is told
 * by field until that field is edited or the form is sent again. A benchmark the user picks is used only once the
 * server answers for it: a refused one leaves the previous benchmark in use.
 */
import { assertEvent, assign, fromCallback, fromPromise, setup } from 'xstate';
import { portfolioApi } from '../../../domain/contract/portfolio.ts';
import type { TransactionFields } from '../../../domain/portfolio/transactions.ts';
import { fieldRefusal } from '../../components/fieldRefusal.ts';
import { call, errorMessage } from '../../services/api.ts';
import { live } from '../../services/live.ts';
import {
  checkTransactionForm,
  shortNotice,
  type Ledger,
  type Performance,
  type Recorded,
  type TransactionForm,
  type TransactionFormErrors,
} from './ledger.ts';

/** The benchmark of the performance chart: `EW` (equal weight of the universe) or a symbol. */
export const EQUAL_WEIGHT = 'EW';

/** What a load answers. */
export interface LedgerLoad {
  readonly ledger: Ledger;
  readonly performance: Performance;
}

/** What the panel holds. */
export interface LedgerContext {
  readonly ledger: Ledger | null;
  readonly performance: Performance | null;
  /** The benchmark in use: the last one the server answered for. */
  readonly benchmark: string;
  /** The benchmark asked for and not answered yet. */
  readonly asked: string | null;
  /** Why the last benchmark asked for was refused, in words naming the field. */
  readonly benchmarkError: string | null;
  /** Whether the ledger changed on the server since it was read. */
  readonly stale: boolean;
  /** Why the ledger could not be loaded. */
  readonly error: string | null;
  /** The fields of the transaction form refused, its own check's words or the server's, until edited or sent. */
  readonly formErrors: TransactionFormErrors;
  /** Why the last transaction was refused, when the refusal is not of one field of the form. */
  readonly recordError: string | null;
  /** What the last transaction recorded did that its form did not say: a sale that opened a short. */
  readonly notice: string | null;
  /** Why the ledger could not be read again (cleared by the next successful read). */
  readonly refreshError: string | null;
  /** How many transactions were recorded from this panel (a form clears itself when it grows). */
  readonly recorded: number;
}

/** A field of the transaction form that may be refused. */
export type TransactionField = keyof TransactionFormErrors;

/** The fields the kind of transaction shows or hides: the amounts of a trade, or the amount of a dividend or fee. */
const KIND_FIELDS: readonly TransactionField[] = ['quantity', 'price', 'fee', 'amount', 'lots'];

/** The fields whose refusal an edit makes stale: the field itself, or those of the kind when the kind changes. */
function editedFields(field: TransactionField | 'kind'): readonly TransactionField[] {
  return field === 'kind' ? KIND_FIELDS : [field];
}

/** Events of the panel. */
export type LedgerEvent =
  /** The form sent as typed, with today's date (no transaction after it). */
  | { type: 'user.record'; form: TransactionForm; today: string }
  | { type: 'user.edit'; field: TransactionField | 'kind' }
  | { type: 'user.pickBenchmark'; benchmark: string }
  | { type: 'user.retry' }
  | { type: 'user.dismissError' }
  | { type: 'server.changed' };

/** A benchmark as the user typed it, as the server names it: trimmed, upper case, `EW` when empty. */
export function benchmarkOf(typed: string): string {
  const symbol = typed.trim().toUpperCase();
  return symbol === '' ? EQUAL_WEIGHT : symbol;
}

/**
 * Why a benchmark was refused, in plain words naming the field: the server's words about `query.benchmark`
 * (`unknown symbol ZZZZZZ`) become `Benchmark: no company ZZZZZZ`; any other failure says what could not be done.
 */
export function benchmarkRefusal(benchmark: string, error: unknown): string {
  const message = errorMessage(error);
  const field = /^query\.benchmark:\s*(.*)$/s.exec(message);
  if (!field) return `Could not compare with ${benchmark}: ${message}`;
  const unknown = /^unknown symbol\s+(\S+)$/i.exec(field[1]!.trim());
  return unknown ? `Benchmark: no company ${unknown[1]!}` : `Benchmark: ${field[1]!.trim()}`;
}

/** The form's labels of the fields the server may refuse, by their names in the request. */
const FIELD_LABELS: Readonly<Record<TransactionField, string>> = {
  symbol: 'Symbol',
  date: 'Date',
  quantity: 'Quantity',
  price: 'Price',
  fee: 'Commission',
  amount: 'Amount',
  lots: 'Lots sold',
};

/** What the form says of a refusal of the transaction: one field's (`Symbol: unknown symbol ZZZZ`), or the whole's. */
export interface TransactionRefusal {
  /** The field refused, or null for a refusal of the whole transaction. */
  readonly field: TransactionField | null;
  readonly text: string;
}

/**
 * The server's refusal of a transaction in the form's words: a field of the form by its label (`body.symbol:
 * unknown symbol ZZZZ` → `Symbol: unknown symbol ZZZZ`), the kind as the "Transaction" choice, anything else as
 * the server says it.
 */
export function transactionRefusal(error: unknown): TransactionRefusal {
  const { own, text } = fieldRefusal(errorMessage(error), { ...FIELD_LABELS, kind: 'Transaction' });
  // The kind is worded as the "Transaction" choice but marks no field of the form.
  return { field: own === 'kind' ? null : own, text };
}

/** The transaction a form spells, or null when its own check refuses it. */
function transactionOf(event: { form: TransactionForm; today: string }): TransactionFields | null {
  return checkTransactionForm(event.form, event.today).transaction ?? null;
}

/** The transactions panel's machine. */
export const ledgerMachine = setup({
  types: { context: {} as LedgerContext, events: {} as LedgerEvent },
  actors: {
    loadLedger: fromPromise<LedgerLoad, { benchmark: string }>(async ({ input }) => {
      const [ledger, performance] = await Promise.all([
        call(portfolioApi.getPortfolioLedger),
        call(portfolioApi.getPortfolioPerformance, { query: { benchmark: input.benchmark } }),
      ]);
      return { ledger, performance };
    }),
    recordTransaction: fromPromise<Recorded, TransactionFields>(({ input }) =>
      call(portfolioApi.postPortfolioTransactions, { body: input }),
    ),
    ledgerChanges: fromCallback<LedgerEvent>(({ sendBack }) =>
      live.onReadModelChanged((change) => {
        if (change.name === 'portfolioledger') sendBack({ type: 'server.changed' });
      }),
    ),
  },
  actions: {
    /** Keeps the benchmark asked for until the server answers; the previous one stays in use meanwhile. */
    ask: assign(({ event }) => {
      assertEvent(event, 'user.pickBenchmark');
      return { asked: benchmarkOf(event.benchmark), benchmarkError: null };
    }),
    /** The form's own refusal of what was typed, replacing whatever the last attempt said. */
    refuseForm: assign(({ event }) => {
      assertEvent(event, 'user.record');
      return { formErrors: checkTransactionForm(event.form, event.today).errors ?? {}, recordError: null };
    }),
    /** A form sent: what was said of the last attempt goes. */
    forgetRefusals: assign({ formErrors: {}, recordError: null }),
    /** The server's refusal: next to the field it names, or above the form. */
    takeRefusal: assign((_, params: { error: unknown }) => {
      const refusal = transactionRefusal(params.error);
      return refusal.field === null
        ? { formErrors: {}, recordError: refusal.text }
        : { formErrors: { [refusal.field]: refusal.text }, recordError: null };
    }),
    /** A field edited: what was said of it is about what was typed before. */
    forgetFieldError: assign({
      formErrors: ({ context, event }) => {
        assertEvent(event, 'user.edit');
        const edited = editedFields(event.field);
        return Object.fromEntries(
          Object.entries(context.formErrors).filter(([name]) => !edited.includes(name as TransactionField)),
        );
      },
    }),
  },
  guards: {
    formChecks: ({ event }) => {
      assertEvent(event, 'user.record');
      return transactionOf(event) !== null;
    },
    fieldRefused: ({ context, event }) => {
      assertEvent(event, 'user.edit');
      return editedFields(event.field).some((field) => context.formErrors[field] !== undefined);
    },
    stale: ({ context }) => context.stale,
    asked: ({ context }) => context.asked !== null,
    otherBenchmark: ({ context, event }) => {
      assertEvent(event, 'user.pickBenchmark');
      const benchmark = benchmarkOf(event.benchmark);
      return benchmark !== context.benchmark || context.asked !== null;
    },
  },
}).createMachine({
  id: 'ledger',
  initial: 'loading',
  context: {
    ledger: null,
    performance: null,
    benchmark: EQUAL_WEIGHT,
    asked: null,
    benchmarkError: null,
    stale: false,
    error: null,
    formErrors: {},
    recordError: null,
    notice: null,
    refreshError: null,
    recorded: 0,
  },
  states: {
    loading: {
      invoke: {
        src: 'loadLedger',
        input: ({ context }) => ({ benchmark: context.benchmark }),
        onDone: {
          target: 'ready',
          actions: assign(({ event }) => ({ ...event.output, error: null })),
        },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => errorMessage(event.error) }) },
      },
    },
    failed: { on: { 'user.retry': 'loading' } },
    ready: {
      invoke: { src: 'ledgerChanges' },
      initial: 'idle',
      on: {
        'server.changed': { actions: assign({ stale: true }) },
        'user.dismissError': { actions: assign({ recordError: null, refreshError: null }) },
        'user.edit': { guard: 'fieldRefused', actions: 'forgetFieldError' },
        // Asked now, read once nothing else is being read or sent.
        'user.pickBenchmark': { guard: 'otherBenchmark', actions: 'ask' },
      },
      states: {
        idle: {
          always: [
            { guard: 'asked', target: 'comparing' },
            { guard: 'stale', target: 'refreshing' },
          ],
          on: {
            'user.record': [
              { guard: 'formChecks', target: 'recording', actions: 'forgetRefusals' },
              { actions: 'refuseForm' },
            ],
          },
        },
        comparing: {
          entry: assign({ stale: false }),
          on: {
            // Another benchmark asked for replaces the one being read.
            'user.pickBenchmark': { guard: 'otherBenchmark', target: 'comparing', reenter: true, actions: 'ask' },
          },
          invoke: {
            src: 'loadLedger',
            input: ({ context }) => ({ benchmark: context.asked ?? context.benchmark }),
            onDone: {
              target: 'idle',
              actions: assign(({ context, event }) => ({
                ...event.output,
                benchmark: context.asked ?? context.benchmark,
                asked: null,
                benchmarkError: null,
                refreshError: null,
              })),
            },
            onError: {
              target: 'idle',
              actions: assign(({ context, event }) => ({
                benchmarkError: benchmarkRefusal(context.asked ?? context.benchmark, event.error),
                asked: null,
              })),
            },
          },
        },
        recording: {
          entry: assign({ notice: null }),
          invoke: {
            src: 'recordTransaction',
            input: ({ event }) => {
              assertEvent(event, 'user.record');
              // Only a form its own check lets through gets here (guard `formChecks`).
              return transactionOf(event)!;
            },
            onDone: {
              target: 'refreshing',
              actions: assign({
                ledger: ({ event }) => event.output,
                recordError: null,
                notice: ({ event }) => shortNotice(event.output),
                recorded: ({ context }) => context.recorded + 1,
              }),
            },
            onError: {
              target: 'idle',
              actions: { type: 'takeRefusal', params: ({ event }) => ({ error: event.error }) },
            },
          },
        },
        refreshing: {
          entry: assign({ stale: false }),
          invoke: {
            src: 'loadLedger',
            input: ({ context }) => ({ benchmark: context.benchmark }),
            onDone: { target: 'idle', actions: assign(({ event }) => ({ ...event.output, refreshError: null })) },
            onError: {
              target: 'idle',
              actions: assign({
                refreshError: ({ event }) => `Could not read the ledger: ${errorMessage(event.error)}`,
              }),
            },
          },
        },
      },
    },
  },
});
