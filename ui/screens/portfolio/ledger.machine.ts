/**
 * The transactions panel of the portfolio screen: the ledger (transactions, open lots, closed parts of lots)
 * and the performance against the benchmark the user picks. A transaction is sent, then the ledger and the
 * performance are read again; a change made elsewhere (an import, another tab) is read again too.
 */
import { assertEvent, assign, fromCallback, fromPromise, setup } from 'xstate';
import { portfolioApi } from '../../../domain/contract/portfolio.ts';
import type { TransactionFields } from '../../../domain/portfolio/transactions.ts';
import { call, errorMessage } from '../../services/api.ts';
import { live } from '../../services/live.ts';
import type { Ledger, Performance } from './ledger.ts';

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
  readonly benchmark: string;
  /** Whether the ledger changed on the server since it was read. */
  readonly stale: boolean;
  /** Why the ledger could not be loaded. */
  readonly error: string | null;
  /** Why the last transaction was refused. */
  readonly recordError: string | null;
  /** How many transactions were recorded from this panel (a form clears itself when it grows). */
  readonly recorded: number;
}

/** Events of the panel. */
export type LedgerEvent =
  | { type: 'user.record'; transaction: TransactionFields }
  | { type: 'user.pickBenchmark'; benchmark: string }
  | { type: 'user.retry' }
  | { type: 'user.dismissError' }
  | { type: 'server.changed' };

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
    recordTransaction: fromPromise<Ledger, TransactionFields>(({ input }) =>
      call(portfolioApi.postPortfolioTransactions, { body: input }),
    ),
    ledgerChanges: fromCallback<LedgerEvent>(({ sendBack }) =>
      live.onReadModelChanged((change) => {
        if (change.name === 'portfolioledger') sendBack({ type: 'server.changed' });
      }),
    ),
  },
  guards: {
    stale: ({ context }) => context.stale,
    otherBenchmark: ({ context, event }) => {
      assertEvent(event, 'user.pickBenchmark');
      return event.benchmark.trim().toUpperCase() !== context.benchmark;
    },
  },
}).createMachine({
  id: 'ledger',
  initial: 'loading',
  context: {
    ledger: null,
    performance: null,
    benchmark: EQUAL_WEIGHT,
    stale: false,
    error: null,
    recordError: null,
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
        'user.dismissError': { actions: assign({ recordError: null }) },
        'user.pickBenchmark': {
          guard: 'otherBenchmark',
          target: '.refreshing',
          actions: assign({ benchmark: ({ event }) => event.benchmark.trim().toUpperCase() }),
        },
      },
      states: {
        idle: {
          always: { guard: 'stale', target: 'refreshing' },
          on: { 'user.record': 'recording' },
        },
        recording: {
          invoke: {
            src: 'recordTransaction',
            input: ({ event }) => {
              assertEvent(event, 'user.record');
              return event.transaction;
            },
            onDone: {
              target: 'refreshing',
              actions: assign({
                ledger: ({ event }) => event.output,
                recordError: null,
                recorded: ({ context }) => context.recorded + 1,
              }),
            },
            onError: { target: 'idle', actions: assign({ recordError: ({ event }) => errorMessage(event.error) }) },
          },
        },
        refreshing: {
          entry: assign({ stale: false }),
          invoke: {
            src: 'loadLedger',
            input: ({ context }) => ({ benchmark: context.benchmark }),
            onDone: { target: 'idle', actions: assign(({ event }) => ({ ...event.output })) },
            onError: {
              target: 'idle',
              actions: assign({
                recordError: ({ event }) => `Could not read the ledger: ${errorMessage(event.error)}`,
              }),
            },
          },
        },
      },
    },
  },
});
