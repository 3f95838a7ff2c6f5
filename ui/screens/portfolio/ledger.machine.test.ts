import { expect } from 'chai';
import { createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import type { TransactionFields } from '../../../domain/portfolio/transactions.ts';
import type { Ledger, Performance, Recorded, TransactionForm } from './ledger.ts';
import {
  benchmarkRefusal,
  ledgerMachine,
  transactionRefusal,
  type LedgerEvent,
  type LedgerLoad,
} from './ledger.machine.ts';
import {
  importMachine,
  type ImportCommitAnswer,
  type ImportInput,
  type ImportPreviewAnswer,
} from './import.machine.ts';

const emptyLedger = (): Ledger => ({ symbols: [], lots: {}, transactions: [], closings: [] });
const performance = (benchmark: string): Performance => ({
  benchmark,
  dates: ['2024-01-02'],
  value: [100],
  twr: [0],
  benchmarkReturn: [0],
});

function ledgerPanel(server: { failRecord?: string | undefined; failLoad?: string; unknown?: readonly string[] }) {
  const calls: string[] = [];
  let ledger = emptyLedger();
  let sendBack: ((event: LedgerEvent) => void) | null = null;
  const actor = createActor(
    ledgerMachine.provide({
      actors: {
        loadLedger: fromPromise<LedgerLoad, { benchmark: string }>(async ({ input }) => {
          calls.push(`load ${input.benchmark}`);
          if (server.failLoad) throw new Error(server.failLoad);
          if (server.unknown?.includes(input.benchmark)) {
            throw new Error(`query.benchmark: unknown symbol ${input.benchmark}`);
          }
          return Promise.resolve({ ledger, performance: performance(input.benchmark) });
        }),
        recordTransaction: fromPromise<Recorded, TransactionFields>(async ({ input }) => {
          calls.push(`record ${input.kind} ${input.symbol}`);
          if (server.failRecord) throw new Error(server.failRecord);
          ledger = {
            ...ledger,
            symbols: [input.symbol],
            transactions: [
              ...ledger.transactions,
              {
                kind: 'dividend',
                id: `t${ledger.transactions.length}`,
                symbol: input.symbol,
                date: input.date,
                amount: 1,
              },
            ],
          };
          // A sale of 15 with 10 held opens a short of 5, as the server says.
          const short = input.kind === 'sell' && input.quantity === 15 ? { sold: 15, held: 10, short: 5 } : null;
          return Promise.resolve(short ? { ...ledger, opensShort: short } : ledger);
        }),
        ledgerChanges: fromCallback<LedgerEvent>(({ sendBack: send }) => {
          sendBack = send;
          return () => (sendBack = null);
        }),
      },
    }),
  ).start();
  return { actor, calls, changed: () => sendBack?.({ type: 'server.changed' }) };
}

/** Today, as the form gives it: no transaction may be dated later. */
const TODAY = '2026-01-05';

/** A purchase of 1 AAPL at 10, as typed in the form. */
const buy: TransactionForm = {
  kind: 'buy',
  symbol: 'AAPL',
  date: '2024-01-02',
  quantity: '1',
  price: '10',
  fee: '',
  amount: '',
  lots: null,
};

/** The form sent as typed. */
const record = (form: TransactionForm = buy) => ({ type: 'user.record', form, today: TODAY }) as const;

describe('portfolio ledger machine', () => {
  it('loads the ledger and the performance against the equal-weight benchmark', async () => {
    const { actor, calls } = ledgerPanel({});
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
    expect(calls).to.deep.equal(['load EW']);
    expect(actor.getSnapshot().context.performance?.benchmark).to.equal('EW');
  });

  it('records a transaction, then reads the ledger and performance again', async () => {
    const { actor, calls } = ledgerPanel({});
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
    actor.send(record());
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }) && s.context.recorded === 1);
    expect(calls).to.deep.equal(['load EW', 'record buy AAPL', 'load EW']);
    expect(actor.getSnapshot().context.ledger?.transactions).to.have.length(1);
  });

  it('says a sale that opened a short, until the next transaction', async () => {
    const { actor } = ledgerPanel({});
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
    expect(actor.getSnapshot().context.notice).to.equal(null);
    actor.send(record({ ...buy, kind: 'sell', quantity: '15' }));
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }) && s.context.recorded === 1);
    expect(actor.getSnapshot().context.notice).to.equal('Sold 15 of 10 held: a short of 5 is open');
    actor.send(record());
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }) && s.context.recorded === 2);
    expect(actor.getSnapshot().context.notice).to.equal(null);
  });

  it('keeps a refusal of the whole transaction for the user to read, and records nothing', async () => {
    const { actor } = ledgerPanel({ failRecord: 'The server cannot be reached: check the connection and retry' });
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
    actor.send(record());
    await waitFor(actor, (s) => s.context.recordError !== null);
    expect(actor.getSnapshot().context.recordError).to.equal(
      'The server cannot be reached: check the connection and retry',
    );
    expect(actor.getSnapshot().context.formErrors).to.deep.equal({});
    expect(actor.getSnapshot().context.recorded).to.equal(0);
    actor.send({ type: 'user.dismissError' });
    expect(actor.getSnapshot().context.recordError).to.equal(null);
  });

  it("says the server's refusal of a field next to it in the form's words, until that field is edited", async () => {
    const { actor, calls } = ledgerPanel({ failRecord: 'body.symbol: unknown symbol ZZZZ' });
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
    actor.send(record({ ...buy, symbol: 'ZZZZ' }));
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }) && calls.length === 2);
    expect(actor.getSnapshot().context.formErrors).to.deep.equal({ symbol: 'Symbol: unknown symbol ZZZZ' });
    expect(actor.getSnapshot().context.recordError).to.equal(null);
    actor.send({ type: 'user.edit', field: 'quantity' });
    expect(actor.getSnapshot().context.formErrors).to.deep.equal({ symbol: 'Symbol: unknown symbol ZZZZ' });
    actor.send({ type: 'user.edit', field: 'symbol' });
    expect(actor.getSnapshot().context.formErrors).to.deep.equal({});
    expect(calls).to.deep.equal(['load EW', 'record buy ZZZZ']);
  });

  it("replaces the server's refusal with the next attempt's outcome: the form's refusal, then success", async () => {
    const server: { failRecord?: string | undefined } = { failRecord: 'body.symbol: unknown symbol ZZZZ' };
    const { actor, calls } = ledgerPanel(server);
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
    actor.send(record({ ...buy, symbol: 'ZZZZ' }));
    await waitFor(actor, (s) => s.context.formErrors.symbol !== undefined);
    // Sent again unchanged but for a quantity the form refuses: nothing is sent, only that refusal is said.
    actor.send(record({ ...buy, symbol: 'ZZZZ', quantity: '1e3' }));
    expect(actor.getSnapshot().context.formErrors).to.deep.equal({ quantity: 'Enter a quantity above 0' });
    actor.send(record({ ...buy, quantity: '0' }));
    expect(actor.getSnapshot().context.formErrors).to.deep.equal({ quantity: 'Enter a quantity above 0' });
    server.failRecord = undefined;
    actor.send(record());
    expect(actor.getSnapshot().context.formErrors, 'gone once sent').to.deep.equal({});
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }) && s.context.recorded === 1);
    expect(actor.getSnapshot().context.formErrors).to.deep.equal({});
    expect(actor.getSnapshot().context.recordError).to.equal(null);
    expect(calls).to.deep.equal(['load EW', 'record buy ZZZZ', 'record buy AAPL', 'load EW']);
  });

  it('forgets the refusals of the amounts when the kind changes, not that of the symbol', async () => {
    const { actor, calls } = ledgerPanel({});
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
    actor.send(record({ ...buy, symbol: '', price: '-1' }));
    expect(actor.getSnapshot().context.formErrors).to.deep.equal({
      symbol: 'Enter a symbol, e.g. AAPL',
      price: 'Enter a price above 0',
    });
    actor.send({ type: 'user.edit', field: 'kind' });
    expect(actor.getSnapshot().context.formErrors).to.deep.equal({ symbol: 'Enter a symbol, e.g. AAPL' });
    expect(calls).to.deep.equal(['load EW']);
  });

  it("clears a refusal of the whole transaction at the next attempt, even one the form's check refuses", async () => {
    const { actor } = ledgerPanel({ failRecord: 'Too many attempts: wait a moment and try again' });
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
    actor.send(record());
    await waitFor(actor, (s) => s.context.recordError !== null);
    actor.send(record({ ...buy, date: '2999-01-01' }));
    const { context } = actor.getSnapshot();
    expect(context.recordError).to.equal(null);
    expect(context.formErrors).to.deep.equal({ date: 'Enter a date up to today' });
  });

  it("words the server's refusals of a transaction with the form's labels", () => {
    expect(transactionRefusal(new Error('body.symbol: unknown symbol ZZZZ'))).to.deep.equal({
      field: 'symbol',
      text: 'Symbol: unknown symbol ZZZZ',
    });
    expect(transactionRefusal(new Error('body.lots[0].quantity: is more than the lot holds (4)'))).to.deep.equal({
      field: 'lots',
      text: 'Lots sold: is more than the lot holds (4)',
    });
    expect(transactionRefusal(new Error('body.fee: must be at most 1000000'))).to.deep.equal({
      field: 'fee',
      text: 'Commission: must be at most 1000000',
    });
    expect(transactionRefusal(new Error('body.kind: must be one of buy, sell, dividend, fee'))).to.deep.equal({
      field: null,
      text: 'Transaction: must be one of buy, sell, dividend, fee',
    });
    expect(transactionRefusal(new Error('Not found'))).to.deep.equal({ field: null, text: 'Not found' });
  });

  it('reads the performance again against another benchmark, not the same one twice', async () => {
    const { actor, calls } = ledgerPanel({});
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
    actor.send({ type: 'user.pickBenchmark', benchmark: 'ew' });
    actor.send({ type: 'user.pickBenchmark', benchmark: 'msft' });
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }) && s.context.performance?.benchmark === 'MSFT');
    expect(calls).to.deep.equal(['load EW', 'load MSFT']);
  });

  it('refuses an unknown benchmark in plain words and keeps the previous one in use', async () => {
    const { actor, calls } = ledgerPanel({ unknown: ['ZZZZZZ'] });
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
    actor.send({ type: 'user.pickBenchmark', benchmark: 'msft' });
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }) && s.context.benchmark === 'MSFT');
    actor.send({ type: 'user.pickBenchmark', benchmark: ' zzzzzz ' });
    await waitFor(actor, (s) => s.context.benchmarkError !== null);
    const { context } = actor.getSnapshot();
    expect(actor.getSnapshot().matches({ ready: 'idle' })).to.equal(true);
    expect(context.benchmarkError).to.equal('Benchmark: no company ZZZZZZ');
    expect(context.benchmark).to.equal('MSFT');
    expect(context.performance?.benchmark).to.equal('MSFT');
    expect(context.refreshError).to.equal(null);
    expect(context.recordError).to.equal(null);
    expect(calls).to.deep.equal(['load EW', 'load MSFT', 'load ZZZZZZ']);
  });

  it('reads again against the previous benchmark after a refusal', async () => {
    const { actor, calls, changed } = ledgerPanel({ unknown: ['ZZZZZZ'] });
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
    actor.send({ type: 'user.pickBenchmark', benchmark: 'ZZZZZZ' });
    await waitFor(actor, (s) => s.context.benchmarkError !== null);
    actor.send({ type: 'user.dismissError' });
    actor.send(record());
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }) && s.context.recorded === 1);
    changed();
    await waitFor(actor, () => calls.length === 5);
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
    expect(calls).to.deep.equal(['load EW', 'load ZZZZZZ', 'record buy AAPL', 'load EW', 'load EW']);
    const { context } = actor.getSnapshot();
    expect(context.benchmark).to.equal('EW');
    expect(context.performance?.benchmark).to.equal('EW');
    expect(context.refreshError).to.equal(null);
    expect(context.recordError).to.equal(null);
  });

  it('clears the errors of a failed read and of a refused benchmark once a read succeeds', async () => {
    const server: { failLoad?: string; unknown?: readonly string[] } = { unknown: ['ZZZZZZ'] };
    const { actor, changed } = ledgerPanel(server);
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
    server.failLoad = 'The server cannot be reached';
    changed();
    await waitFor(actor, (s) => s.context.refreshError !== null);
    expect(actor.getSnapshot().context.refreshError).to.equal(
      'Could not read the ledger: The server cannot be reached',
    );
    delete server.failLoad;
    actor.send({ type: 'user.pickBenchmark', benchmark: 'ZZZZZZ' });
    await waitFor(actor, (s) => s.context.benchmarkError !== null);
    actor.send({ type: 'user.pickBenchmark', benchmark: 'MSFT' });
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }) && s.context.benchmark === 'MSFT');
    const { context } = actor.getSnapshot();
    expect(context.refreshError).to.equal(null);
    expect(context.benchmarkError).to.equal(null);
    expect(context.performance?.benchmark).to.equal('MSFT');
  });

  it('waits for a transaction being recorded before reading another benchmark', async () => {
    const { actor, calls } = ledgerPanel({});
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
    actor.send(record());
    actor.send({ type: 'user.pickBenchmark', benchmark: 'MSFT' });
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }) && s.context.benchmark === 'MSFT');
    expect(calls).to.deep.equal(['load EW', 'record buy AAPL', 'load EW', 'load MSFT']);
    expect(actor.getSnapshot().context.recorded).to.equal(1);
  });

  it('says a refused benchmark in words naming the field', () => {
    expect(benchmarkRefusal('ZZZZZZ', new Error('query.benchmark: unknown symbol ZZZZZZ'))).to.equal(
      'Benchmark: no company ZZZZZZ',
    );
    expect(benchmarkRefusal('A B', new Error('query.benchmark: must be a symbol'))).to.equal(
      'Benchmark: must be a symbol',
    );
    expect(benchmarkRefusal('MSFT', new Error('The server cannot be reached'))).to.equal(
      'Could not compare with MSFT: The server cannot be reached',
    );
  });

  it('reads again when the ledger changed elsewhere', async () => {
    const { actor, calls, changed } = ledgerPanel({});
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
    changed();
    await waitFor(actor, () => calls.length === 2);
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
    expect(calls).to.deep.equal(['load EW', 'load EW']);
  });

  it('keeps the message of a failed load and loads again on retry', async () => {
    const server: { failLoad?: string } = { failLoad: 'The server cannot be reached' };
    const { actor } = ledgerPanel(server);
    await waitFor(actor, (s) => s.matches('failed'));
    expect(actor.getSnapshot().context.error).to.equal('The server cannot be reached');
    delete server.failLoad;
    actor.send({ type: 'user.retry' });
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
  });
});

function wizard(answer: (input: ImportInput) => ImportPreviewAnswer, failCommit?: string) {
  const calls: string[] = [];
  const actor = createActor(
    importMachine.provide({
      actors: {
        previewFile: fromPromise<ImportPreviewAnswer, ImportInput>(async ({ input }) => {
          calls.push(`preview ${input.format}`);
          return Promise.resolve(answer(input));
        }),
        commitFile: fromPromise<ImportCommitAnswer, ImportInput>(async ({ input }) => {
          calls.push(`commit ${input.format}`);
          if (failCommit) throw new Error(failCommit);
          const preview = answer(input);
          return Promise.resolve({ format: preview.format, counts: preview.counts });
        }),
      },
    }),
  ).start();
  return { actor, calls };
}

const preview = (counts: Partial<ImportPreviewAnswer['counts']>): ImportPreviewAnswer => ({
  format: 'ibkr',
  rows: [],
  counts: { new: 0, duplicate: 0, skipped: 0, refused: 0, ...counts },
});

describe('portfolio import machine', () => {
  it('says an empty file is empty without asking the server, and previews the next file picked', async () => {
    const { actor, calls } = wizard(() => preview({ new: 1 }));
    for (const csv of ['', '\n\r\n  \n']) {
      actor.send({ type: 'user.pickFile', fileName: 'trades.csv', csv });
      expect(actor.getSnapshot().matches('choosing')).to.equal(true);
      expect(actor.getSnapshot().context.error).to.equal(
        'trades.csv is empty: pick the file your broker exported (CSV)',
      );
      // A format picked then has no file to preview.
      actor.send({ type: 'user.pickFormat', format: 'ibkr' });
      expect(actor.getSnapshot().matches('choosing')).to.equal(true);
    }
    expect(calls).to.deep.equal([]);
    actor.send({ type: 'user.pickFile', fileName: 'other.csv', csv: 'a,b' });
    await waitFor(actor, (s) => s.matches('reviewing'));
    expect(actor.getSnapshot().context.error).to.equal(null);
    expect(calls).to.deep.equal(['preview ibkr']);
  });

  it('previews a picked file, then commits its new rows', async () => {
    const { actor, calls } = wizard(() => preview({ new: 3, skipped: 1 }));
    actor.send({ type: 'user.pickFile', fileName: 'trades.csv', csv: 'a,b' });
    await waitFor(actor, (s) => s.matches('reviewing'));
    actor.send({ type: 'user.commit' });
    await waitFor(actor, (s) => s.matches('done'));
    expect(calls).to.deep.equal(['preview auto', 'commit auto']);
    expect(actor.getSnapshot().context.result?.counts.new).to.equal(3);
  });

  it('does not commit a file with a refused row, or one with nothing new', async () => {
    for (const counts of [{ new: 2, refused: 1 }, { duplicate: 4 }]) {
      const { actor, calls } = wizard(() => preview(counts));
      actor.send({ type: 'user.pickFile', fileName: 'trades.csv', csv: 'a,b' });
      await waitFor(actor, (s) => s.matches('reviewing'));
      actor.send({ type: 'user.commit' });
      expect(actor.getSnapshot().matches('reviewing')).to.equal(true);
      expect(calls).to.deep.equal(['preview auto']);
    }
  });

  it('previews again in the format picked, and starts over on reset', async () => {
    const { actor, calls } = wizard((input) => ({
      ...preview({ new: 1 }),
      format: input.format === 'auto' ? 'generic' : input.format,
    }));
    actor.send({ type: 'user.pickFormat', format: 'schwab' });
    expect(actor.getSnapshot().matches('choosing')).to.equal(true);
    actor.send({ type: 'user.pickFile', fileName: 'history.csv', csv: 'a,b' });
    await waitFor(actor, (s) => s.matches('reviewing'));
    actor.send({ type: 'user.pickFormat', format: 'generic' });
    await waitFor(actor, (s) => s.matches('reviewing') && s.context.preview?.format === 'generic');
    expect(calls).to.deep.equal(['preview schwab', 'preview generic']);
    actor.send({ type: 'user.reset' });
    expect(actor.getSnapshot().matches('choosing')).to.equal(true);
    expect(actor.getSnapshot().context.fileName).to.equal(null);
  });

  it('keeps the refusal of a commit and stays on the preview', async () => {
    const { actor } = wizard(() => preview({ new: 1 }), 'body.csv: line 3, column price: must be above 0');
    actor.send({ type: 'user.pickFile', fileName: 'trades.csv', csv: 'a,b' });
    await waitFor(actor, (s) => s.matches('reviewing'));
    actor.send({ type: 'user.commit' });
    await waitFor(actor, (s) => s.matches('reviewing') && s.context.error !== null);
    expect(actor.getSnapshot().context.error).to.contain('line 3, column price');
  });
});
