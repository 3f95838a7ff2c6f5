import { expect } from 'chai';
import { createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import { marketCapOf, type Quote } from '../../../domain/market/types.ts';
import { SCREENER_PRESETS, type LabelledClause } from '../../../domain/screener/query.ts';
import { ApiError } from '../../services/api.ts';
import {
  DEFAULT_ROW_COUNT,
  EMPTY_DRAFT,
  INITIAL_CONTEXT,
  METRIC_COLUMNS,
  SAVED_QUERY_COLOR,
  STREAM_RERUN_MS,
  addClause,
  addClauses,
  applyQuotes,
  checkClause,
  gridSort,
  draftToClause,
  operatorsOf,
  parseAmount,
  queryColumns,
  quickFillOptions,
  removeByLabel,
  resultRows,
  industriesOf,
  keptBeside,
  savedNamed,
  savedText,
  upsertSaved,
  valueProblem,
  withClicked,
  withSelected,
  withoutEntry,
  type SavedQuery,
  type ScreenerResult,
  type ScreenerRow,
} from './search.logic.ts';
import { searchMachine, type ChartBars, type RunInput, type SearchEvent } from './search.machine.ts';

/** Shares outstanding of the companies of the rows. */
const SHARES = 500_000_000;

function row(symbol: string, close = 100, extra: Partial<ScreenerRow> = {}): ScreenerRow {
  return {
    symbol,
    name: `${symbol} Inc.`,
    sector: 'Information Technology',
    close,
    changepct: 1,
    shares: SHARES,
    marketcap: marketCapOf(SHARES, 100),
    capclass: 'large',
    SMA_50: 90,
    SMA_200: 80,
    rsi_14: 55,
    patterns: [],
    industry: 'Software',
    ...Object.fromEntries(METRIC_COLUMNS.map((key) => [key, null])),
    ...extra,
  } as ScreenerRow;
}

function quote(symbol: string, price: number, ts = '2026-01-02T15:00:00Z'): Quote {
  return { symbol, price, change: 1, changepct: 2.5, volume: 100, ts, source: 'simulated' };
}

const rsiLow: LabelledClause = { label: 'RSI low', query: { type: 'rsi', param: 14, op: '<', val: 30 } };
const saved1: SavedQuery = { id: 'q1', queryname: 'Oversold', query: [rsiLow], type: 'custom' };

interface Options {
  saved?: SavedQuery[];
  failLists?: boolean;
  run?: (input: RunInput) => ScreenerRow[];
  runError?: Error;
  failSave?: boolean;
  failDelete?: boolean;
  failBars?: boolean;
}

function screener(options: Options = {}) {
  const calls: {
    runs: RunInput[];
    saves: { queryname: string | null }[];
    deletes: string[];
    bars: string[];
    streams: string[][];
  } = {
    runs: [],
    saves: [],
    deletes: [],
    bars: [],
    streams: [],
  };
  const toasts: string[] = [];
  let pushQuotes: ((event: SearchEvent) => void) | null = null;
  let pushChart: ((event: SearchEvent) => void) | null = null;
  const actor = createActor(
    searchMachine.provide({
      actors: {
        loadLists: fromPromise(async () => {
          if (options.failLists) throw new ApiError(0, 'network', 'The server cannot be reached');
          return Promise.resolve({
            presets: SCREENER_PRESETS.map((p) => ({ ...p })),
            saved: options.saved ?? [],
            industries: ['Banks', 'Semiconductors'],
          });
        }),
        loadSaved: fromPromise(async () => Promise.resolve(options.saved ?? [])),
        runQuery: fromPromise<ScreenerResult, RunInput>(async ({ input }) => {
          calls.runs.push(input);
          if (options.runError) throw options.runError;
          const rows = options.run ? options.run(input) : [row('AAPL'), row('MSFT')];
          return Promise.resolve({ rows: rows.slice(0, input.limit), total: rows.length });
        }),
        saveQuery: fromPromise<SavedQuery, { queryname: string | null; query: readonly LabelledClause[] }>(
          async ({ input }) => {
            calls.saves.push(input);
            if (options.failSave) throw new ApiError(400, 'invalid_queryname', 'body.queryname: must not be empty');
            return Promise.resolve({
              id: 'new-id',
              queryname: input.queryname ?? 'Large cap',
              query: [...input.query],
              type: 'custom',
            });
          },
        ),
        deleteQuery: fromPromise<unknown, { id: string }>(async ({ input }) => {
          calls.deletes.push(input.id);
          if (options.failDelete) throw new ApiError(404, 'not_found', 'params.id: no saved query');
          return Promise.resolve({ id: input.id, deleted: true });
        }),
        loadBars: fromPromise<ChartBars, { symbol: string }>(async ({ input }) => {
          calls.bars.push(input.symbol);
          if (options.failBars) throw new ApiError(404, 'not_found', 'params.symbol: no such symbol');
          const averages = { SMA_20: null, SMA_50: null, SMA_100: null, SMA_200: null, rsi_14: null };
          return Promise.resolve({
            bars: [
              { date: '2025-12-31', open: 1, high: 1.6, low: 0.9, close: 1.4, volume: 9, ...averages },
              { date: '2026-01-02', open: 1, high: 2, low: 0.5, close: 1.5, volume: 10, ...averages },
            ],
            next: { after: '2026-01-02', ...averages },
          });
        }),
        liveQuotes: fromCallback<SearchEvent, { symbols: readonly string[] }>(({ sendBack, input }) => {
          calls.streams.push([...input.symbols]);
          pushQuotes = sendBack;
          return () => {
            pushQuotes = null;
          };
        }),
        chartQuotes: fromCallback<SearchEvent, { symbol: string }>(({ sendBack }) => {
          pushChart = sendBack;
        }),
        liveChanges: fromCallback(() => undefined),
      },
      actions: { notify: (_, params: { text: string }) => void toasts.push(params.text) },
    }),
  ).start();
  return {
    actor,
    calls,
    toasts,
    push: (quotes: Quote[]) => pushQuotes?.({ type: 'server.quotes', quotes }),
    pushChart: (q: Quote) => pushChart?.({ type: 'server.chartQuote', quote: q }),
    streaming: () => pushQuotes !== null,
  };
}

const ready = (actor: ReturnType<typeof screener>['actor']) =>
  waitFor(actor, (s) => s.matches({ lists: 'ready', results: 'ready' }));

describe('search machine', () => {
  it('loads presets and saved queries and runs the empty query for the first 50 rows', async () => {
    const { actor, calls } = screener({ saved: [saved1] });
    expect(actor.getSnapshot().matches({ lists: 'loading', results: 'running' })).to.equal(true);
    await ready(actor);
    const { context } = actor.getSnapshot();
    expect(context.presets.map((p) => p.name)).to.have.length(SCREENER_PRESETS.length);
    expect(context.industries).to.deep.equal(['Banks', 'Semiconductors']);
    expect(context.saved).to.deep.equal([saved1]);
    expect(calls.runs).to.deep.equal([{ query: [], limit: DEFAULT_ROW_COUNT, sort: null }]);
    expect(context.rows.map((r) => r.symbol)).to.deep.equal(['AAPL', 'MSFT']);
    expect(context.clickContext).to.deep.equal(INITIAL_CONTEXT);
    expect(actor.getSnapshot().matches({ bottom: 'hidden', stream: 'off', chart: 'empty' })).to.equal(true);
  });

  it('runs the query again sorted when the grid is sorted, so the rows shown are the first of every match', async () => {
    const { actor, calls } = screener();
    await ready(actor);
    actor.send({ type: 'user.sort', sort: { field: 'changepct', dir: 'desc' } });
    // The rows stay on screen while the sorted ones are read.
    expect(actor.getSnapshot().matches({ results: 'refreshing' })).to.equal(true);
    expect(actor.getSnapshot().context.rows).to.have.length(2);
    await ready(actor);
    expect(calls.runs.at(-1)).to.deep.equal({
      query: [],
      limit: DEFAULT_ROW_COUNT,
      sort: { field: 'changepct', dir: 'desc' },
    });
    // The order stays for the next runs, until the grid is no longer sorted.
    actor.send({ type: 'user.run' });
    await ready(actor);
    expect(calls.runs.at(-1)?.sort).to.deep.equal({ field: 'changepct', dir: 'desc' });
    actor.send({ type: 'user.sort', sort: null });
    await ready(actor);
    expect(calls.runs.at(-1)?.sort).to.equal(null);
  });

  it('keeps the failure of the lists and retries on demand', async () => {
    const { actor } = screener({ failLists: true });
    await waitFor(actor, (s) => s.matches({ lists: 'failed' }));
    expect(actor.getSnapshot().context.listsError).to.equal('The server cannot be reached');
    actor.send({ type: 'user.retryLists' });
    expect(actor.getSnapshot().matches({ lists: 'loading' })).to.equal(true);
  });

  it('applies a preset and runs it', async () => {
    const { actor, calls } = screener();
    await ready(actor);
    const preset = SCREENER_PRESETS[4]!;
    actor.send({ type: 'user.applyQuery', name: preset.name, clauses: preset.query });
    expect(actor.getSnapshot().matches({ results: 'running' })).to.equal(true);
    await ready(actor);
    expect(actor.getSnapshot().context.clauses).to.deep.equal(preset.query);
    expect(actor.getSnapshot().context.queryName).to.equal('14-day RSI below 30');
    expect(calls.runs.at(-1)?.query).to.deep.equal(preset.query);
  });

  it("refuses a value that is not a number in the builder's words, and adds the clause once it is one", async () => {
    const { actor, calls } = screener();
    await ready(actor);
    const rsi = (value: string, value2 = '') =>
      ({ type: 'user.addClause', clause: draftToClause({ ...EMPTY_DRAFT, value, value2 }) }) as const;
    actor.send(rsi('abc'));
    expect(actor.getSnapshot().context.clauseError).to.equal('Value: enter a number');
    actor.send({ type: 'user.addClause', clause: { type: 'rsi', param: 14, op: '>', val: 150 } });
    expect(actor.getSnapshot().context.clauseError, 'replaced by the next refusal').to.equal(
      'Value: must be between 0 and 100 for rsi, got 150',
    );
    actor.send(rsi('1e999'));
    expect(actor.getSnapshot().context.clauseError).to.equal('Value: enter a number');
    actor.send(rsi(''));
    expect(actor.getSnapshot().context.clauseError).to.equal('Value: enter a number');
    expect(actor.getSnapshot().context.clauses).to.deep.equal([]);
    expect(calls.runs).to.have.length(1);
    actor.send(rsi('30'));
    await ready(actor);
    const { context } = actor.getSnapshot();
    expect(context.clauseError).to.equal(null);
    expect(context.clauses.map((c) => c.query)).to.deep.equal([{ type: 'rsi', param: 14, op: '<', val: 30 }]);
  });

  it('names the field of a range or a value that is not a number, and lets clauses without numbers through', () => {
    const draft = { ...EMPTY_DRAFT, op: 'bet' };
    expect(valueProblem(draftToClause({ ...draft, value: 'x', value2: '40' }))).to.equal('From: enter a number');
    expect(valueProblem(draftToClause({ ...draft, value: '20', value2: '4O' }))).to.equal('To: enter a number');
    expect(valueProblem(draftToClause({ ...draft, value: '20', value2: '40' }))).to.equal(null);
    expect(valueProblem(draftToClause({ ...EMPTY_DRAFT, type: 'mcap', op: '>', value: '10 bn' }))).to.equal(
      'Value: enter a number',
    );
    expect(valueProblem(draftToClause({ ...EMPTY_DRAFT, type: 'mcap', op: '>', value: '10B' }))).to.equal(null);
    expect(valueProblem(draftToClause({ ...EMPTY_DRAFT, type: 'volume', op: '<', value: '0,5' }))).to.equal(
      'Value: enter a number',
    );
    expect(valueProblem({ type: 'mcap', op: 'like', val: 'large' })).to.equal(null);
    expect(valueProblem({ type: 'close', op: '<', val: { ref: 'SMA', param: 50 } })).to.equal(null);
    expect(valueProblem({ type: 'sector', op: '=', val: 'Energy' })).to.equal(null);
    expect(valueProblem({ type: 'pattern_hammer_', op: 'like', val: null })).to.equal(null);
  });

  it('adds a valid clause, refuses an invalid one with the message naming the field, and removes by label', async () => {
    const { actor, calls } = screener();
    await ready(actor);
    actor.send({ type: 'user.addClause', clause: { type: 'rsi', param: 14, op: '>', val: 150 } });
    expect(actor.getSnapshot().context.clauseError).to.equal('Value: must be between 0 and 100 for rsi, got 150');
    expect(actor.getSnapshot().context.clauses).to.deep.equal([]);
    expect(calls.runs).to.have.length(1);

    actor.send({
      type: 'user.addClause',
      clause: { type: 'SMA', param: 200, op: '>', val: { ref: 'SMA', param: 50 } },
    });
    actor.send({ type: 'user.addClause', clause: rsiLow.query, label: 'RSI low' });
    await ready(actor);
    const { context } = actor.getSnapshot();
    expect(context.clauseError).to.equal(null);
    expect(context.clauses.map((c) => c.label)).to.deep.equal(['SMA(200) > SMA(50)', 'RSI low']);
    expect(calls.runs.at(-1)?.query).to.have.length(2);

    actor.send({ type: 'user.removeClause', label: 'SMA(200) > SMA(50)' });
    await ready(actor);
    expect(actor.getSnapshot().context.clauses).to.deep.equal([rsiLow]);
    expect(calls.runs.at(-1)?.query).to.deep.equal([rsiLow]);
  });

  it('adds several clauses at once without duplicates', async () => {
    const { actor } = screener();
    await ready(actor);
    actor.send({ type: 'user.addClause', clause: rsiLow.query, label: 'RSI low' });
    actor.send({ type: 'user.addClauses', clauses: [...SCREENER_PRESETS[1]!.query, rsiLow] });
    expect(actor.getSnapshot().context.clauses.map((c) => c.label)).to.deep.equal([
      'RSI low',
      'Close below 50-day average',
    ]);
  });

  it('keeps the server message of a failed run and runs again when the query changes', async () => {
    const { actor } = screener({
      runError: new ApiError(400, 'invalid_query', 'body.query[0] (label "x"): op must be one of >, <, bet for rsi'),
    });
    await waitFor(actor, (s) => s.matches({ results: 'failed' }));
    expect(actor.getSnapshot().context.runError).to.match(/^body\.query\[0\].*op must be/);
    actor.send({ type: 'user.run' });
    expect(actor.getSnapshot().matches({ results: 'running' })).to.equal(true);
  });

  it('changes the row count and runs with it', async () => {
    const { actor, calls } = screener({ run: () => Array.from({ length: 120 }, (_, i) => row(`S${i}`)) });
    await ready(actor);
    expect(actor.getSnapshot().context.rows).to.have.length(50);
    expect(actor.getSnapshot().context.total).to.equal(120);
    actor.send({ type: 'user.setRowCount', count: 100 });
    await ready(actor);
    expect(calls.runs.at(-1)?.limit).to.equal(100);
    expect(actor.getSnapshot().context.rows).to.have.length(100);
  });

  it('saves the query under a name and lists it among the saved ones', async () => {
    const { actor, calls, toasts } = screener({ saved: [saved1] });
    await ready(actor);
    actor.send({ type: 'user.save', name: 'Nothing yet' });
    expect(actor.getSnapshot().context.saveError).to.equal('Add at least one clause before saving the query');
    expect(calls.saves).to.deep.equal([]);

    actor.send({ type: 'user.addClause', clause: { type: 'mcap', op: 'like', val: 'large' } });
    actor.send({ type: 'user.save', name: '  Big caps ' });
    expect(actor.getSnapshot().matches({ saving: 'saving' })).to.equal(true);
    await waitFor(actor, (s) => s.matches({ saving: 'idle' }));
    const { context } = actor.getSnapshot();
    expect(calls.saves).to.deep.equal([{ queryname: 'Big caps', query: context.clauses }]);
    expect(context.saved.map((s) => s.queryname)).to.deep.equal(['Oversold', 'Big caps']);
    expect(context.queryName).to.equal('Big caps');
    expect(toasts).to.deep.equal(['Saved "Big caps"']);
  });

  it('says which saved query a save under a name already held replaced, whatever its case', async () => {
    const { actor, toasts } = screener({ saved: [saved1] });
    await ready(actor);
    actor.send({ type: 'user.addClause', clause: { type: 'mcap', op: 'like', val: 'large' } });
    actor.send({ type: 'user.save', name: 'OVERSOLD' });
    await waitFor(actor, (s) => s.matches({ saving: 'idle' }));
    expect(actor.getSnapshot().context.saved.map((s) => s.queryname)).to.deep.equal(['OVERSOLD']);
    actor.send({ type: 'user.save', name: 'OVERSOLD' });
    await waitFor(actor, (s) => s.matches({ saving: 'idle' }) && toasts.length === 2);
    expect(toasts).to.deep.equal([
      'Saved "OVERSOLD", replacing "Oversold"',
      'Saved "OVERSOLD" over its earlier version',
    ]);
  });

  it('saves a query without a name as none, for the server to name it after its clauses', async () => {
    const { actor, calls } = screener({ saved: [] });
    await ready(actor);
    actor.send({ type: 'user.addClause', clause: { type: 'mcap', op: 'like', val: 'large' } });
    actor.send({ type: 'user.save', name: '   ' });
    await waitFor(actor, (s) => s.matches({ saving: 'idle' }));
    expect(calls.saves.map((s) => s.queryname)).to.deep.equal([null]);
    expect(actor.getSnapshot().context.queryName).to.equal('Large cap');
  });

  it('keeps the message of a refused save, in the words of the form', async () => {
    const { actor } = screener({ failSave: true });
    await ready(actor);
    actor.send({ type: 'user.addClause', clause: rsiLow.query });
    actor.send({ type: 'user.save', name: 'x' });
    await waitFor(actor, (s) => s.matches({ saving: 'idle' }) && s.context.saveError !== null);
    expect(actor.getSnapshot().context.saveError).to.equal('Query name: must not be empty');
  });

  it('asks before deleting a saved query, and keeps it when told to', async () => {
    const { actor, calls } = screener({ saved: [saved1] });
    await ready(actor);
    actor.send({ type: 'user.deleteSaved', id: 'q1' });
    expect(actor.getSnapshot().matches({ saving: 'confirming' })).to.equal(true);
    expect(actor.getSnapshot().context.confirming).to.deep.equal(saved1);
    expect(actor.getSnapshot().context.saved).to.deep.equal([saved1]);
    actor.send({ type: 'user.keepSaved' });
    expect(actor.getSnapshot().matches({ saving: 'idle' })).to.equal(true);
    expect(actor.getSnapshot().context.saved).to.deep.equal([saved1]);
    expect(calls.deletes).to.deep.equal([]);
  });

  it('deletes a saved query locally at once and on the server, and puts it back if the server refuses', async () => {
    const ok = screener({ saved: [saved1] });
    await ready(ok.actor);
    ok.actor.send({ type: 'user.deleteSaved', id: 'q1' });
    ok.actor.send({ type: 'user.confirmDelete' });
    expect(ok.actor.getSnapshot().context.saved).to.deep.equal([]);
    await waitFor(ok.actor, (s) => s.matches({ saving: 'idle' }));
    expect(ok.calls.deletes).to.deep.equal(['q1']);
    expect(ok.toasts).to.deep.equal(['Deleted "Oversold"']);

    const refused = screener({ saved: [saved1], failDelete: true });
    await ready(refused.actor);
    refused.actor.send({ type: 'user.deleteSaved', id: 'q1' });
    refused.actor.send({ type: 'user.confirmDelete' });
    await waitFor(refused.actor, (s) => s.matches({ saving: 'idle' }));
    expect(refused.actor.getSnapshot().context.saved).to.deep.equal([saved1]);
    expect(refused.actor.getSnapshot().context.saveError).to.equal('params.id: no saved query');
  });

  it('streams the result symbols, updates close and change in place with a flash, and stops on toggle', async () => {
    const { actor, calls, push, streaming } = screener();
    await ready(actor);
    actor.send({ type: 'user.toggleStream' });
    expect(actor.getSnapshot().matches({ stream: { on: 'quiet' } })).to.equal(true);
    expect(calls.streams).to.deep.equal([['AAPL', 'MSFT']]);
    push([quote('AAPL', 101.5)]);
    const aapl = actor.getSnapshot().context.rows.find((r) => r.symbol === 'AAPL');
    expect(aapl).to.include({ close: 101.5, changepct: 2.5, flash: 'up', flashSeq: 1 });
    expect(actor.getSnapshot().matches({ stream: { on: 'pending' } })).to.equal(true);
    actor.send({ type: 'user.toggleStream' });
    expect(actor.getSnapshot().matches({ stream: 'off' })).to.equal(true);
    expect(streaming()).to.equal(false);
    expect(actor.getSnapshot().context.quotes).to.deep.equal({});
  });

  it('moves the market cap of a streamed row with its price: shares × the price, over a re-run too', async () => {
    const { actor, push } = screener({ run: () => [row('AAPL'), row('MSFT', 100, { shares: 1e8 })] });
    await ready(actor);
    actor.send({ type: 'user.toggleStream' });
    const rowOf = (symbol: string) => actor.getSnapshot().context.rows.find((r) => r.symbol === symbol);
    push([quote('AAPL', 101.5), quote('MSFT', 101)]);
    expect(rowOf('AAPL')).to.include({ close: 101.5, marketcap: SHARES * 101.5 });
    expect(rowOf('AAPL')?.marketcap).to.equal(marketCapOf(SHARES, 101.5));
    // 10 B exactly is mid; above it the cap class is large, as a clause on the class reads it.
    expect(rowOf('MSFT')).to.include({ close: 101, marketcap: 1e8 * 101, capclass: 'large' });
    actor.send({ type: 'user.run' });
    await waitFor(actor, (s) => s.matches({ results: 'ready' }));
    expect(rowOf('AAPL'), 'the streamed price and its cap are kept over the run').to.include({
      close: 101.5,
      marketcap: SHARES * 101.5,
    });
  });

  it('re-runs the query at most once per 5 seconds while prices move, and follows the new members', async function () {
    this.timeout(STREAM_RERUN_MS + 5000);
    let members = ['AAPL', 'MSFT'];
    const { actor, calls, push } = screener({ run: () => members.map((s) => row(s)) });
    await ready(actor);
    actor.send({ type: 'user.toggleStream' });
    const started = Date.now();
    push([quote('AAPL', 101)]);
    push([quote('AAPL', 102)]);
    push([quote('MSFT', 99)]);
    expect(calls.runs).to.have.length(1);
    members = ['AAPL', 'NVDA'];
    await waitFor(actor, () => calls.runs.length === 2, { timeout: STREAM_RERUN_MS + 2000 });
    expect(Date.now() - started).to.be.at.least(STREAM_RERUN_MS - 50);
    await waitFor(actor, (s) => s.matches({ results: 'ready' }));
    const rows = actor.getSnapshot().context.rows;
    expect(rows.map((r) => r.symbol)).to.deep.equal(['AAPL', 'NVDA']);
    expect(rows[0]?.close, 'the streamed price is kept over the run').to.equal(102);
    expect(calls.streams.at(-1)).to.deep.equal(['AAPL', 'NVDA']);
    expect(actor.getSnapshot().matches({ stream: { on: 'quiet' } })).to.equal(true);
  });

  it('does not re-run for quotes that move no price', async () => {
    const { actor, push } = screener();
    await ready(actor);
    actor.send({ type: 'user.toggleStream' });
    push([quote('AAPL', 100)]);
    expect(actor.getSnapshot().matches({ stream: { on: 'quiet' } })).to.equal(true);
  });

  it('shows the bottom container on a row click, charts the row and moves it to the front of the context', async () => {
    const { actor, calls, pushChart } = screener();
    await ready(actor);
    actor.send({ type: 'user.toggleBottom' });
    expect(actor.getSnapshot().matches({ bottom: 'shown' })).to.equal(true);
    actor.send({ type: 'user.toggleBottom' });
    expect(actor.getSnapshot().matches({ bottom: 'hidden' })).to.equal(true);

    actor.send({ type: 'user.selectRow', symbol: 'MSFT', selected: true });
    actor.send({ type: 'user.clickRow', symbol: 'AAPL' });
    expect(actor.getSnapshot().matches({ bottom: 'shown', chart: 'loading' })).to.equal(true);
    await waitFor(actor, (s) => s.matches({ chart: 'ready' }));
    expect(calls.bars).to.deep.equal(['AAPL']);
    expect(actor.getSnapshot().context.clickContext.map((e) => e.id)).to.deep.equal(['AAPL', 'INTRA_DAY', 'MSFT']);

    pushChart(quote('AAPL', 100.5, '2026-01-02T15:00:01Z'));
    pushChart(quote('AAPL', 100.7, '2026-01-02T15:00:02Z'));
    expect(actor.getSnapshot().context.chartPoints.map((p) => p.price)).to.deep.equal([100.5, 100.7]);
    // The next session's quotes (their change from the last close, 1.50) form its candle on the daily chart, from
    // the open, high and low they say; another symbol's quote changes nothing.
    const session = { ...quote('AAPL', 1.62, '2026-01-05T15:00:00Z'), change: 0.12, open: 1.55, high: 1.7, low: 1.52 };
    pushChart(session);
    pushChart({ ...session, symbol: 'MSFT', price: 9 });
    const { bars } = actor.getSnapshot().context;
    expect(bars).to.have.length(3);
    expect(bars[2]).to.include({ date: '2026-01-05', open: 1.55, high: 1.7, low: 1.52, close: 1.62 });
    actor.send({ type: 'user.pickContext', id: 'INTRA_DAY' });
    expect(actor.getSnapshot().context.chartMode).to.equal('intraday');

    actor.send({ type: 'user.pickContext', id: 'MSFT' });
    await waitFor(actor, (s) => s.matches({ chart: 'ready' }));
    expect(actor.getSnapshot().context.chartSymbol).to.equal('MSFT');
    expect(actor.getSnapshot().context.chartPoints).to.deep.equal([]);
    expect(actor.getSnapshot().context.clickContext.map((e) => e.id)).to.deep.equal(['MSFT', 'AAPL', 'INTRA_DAY']);
  });

  it('keeps the message of a failed chart load and retries', async () => {
    const { actor, calls } = screener({ failBars: true });
    await ready(actor);
    actor.send({ type: 'user.clickRow', symbol: 'AAPL' });
    await waitFor(actor, (s) => s.matches({ chart: 'failed' }));
    expect(actor.getSnapshot().context.chartError).to.equal('params.symbol: no such symbol');
    actor.send({ type: 'user.retryChart' });
    expect(calls.bars).to.deep.equal(['AAPL', 'AAPL']);
  });
});

describe('search logic', () => {
  it('spells the builder fields as clauses of the language, with amounts such as 10B', () => {
    expect(parseAmount('10B')).to.equal(1e10);
    expect(parseAmount('2.5m')).to.equal(2.5e6);
    expect(parseAmount(' 30 ')).to.equal(30);
    expect(parseAmount('')).to.equal(undefined);
    expect(parseAmount('lots')).to.equal('lots');
    // A comma groups thousands; a decimal comma is not read as one (0,5 is not 5), it stays as typed.
    expect(parseAmount('1,250.5')).to.equal(1250.5);
    expect(parseAmount('1,000,000')).to.equal(1e6);
    expect(parseAmount('0,5')).to.equal('0,5');
    expect(parseAmount('12,50')).to.equal('12,50');
    expect(draftToClause({ ...EMPTY_DRAFT, type: 'SMA', param: '200', op: '>', ref: 'SMA:50' })).to.deep.equal({
      type: 'SMA',
      param: 200,
      op: '>',
      val: { ref: 'SMA', param: 50 },
    });
    expect(draftToClause({ ...EMPTY_DRAFT, type: 'mcap', op: 'bet', value: '2B', value2: '10B' })).to.deep.equal({
      type: 'mcap',
      op: 'bet',
      val: [2e9, 1e10],
    });
    expect(draftToClause({ ...EMPTY_DRAFT, type: 'mcap', op: 'not_like', capClass: 'small' })).to.deep.equal({
      type: 'mcap',
      op: 'not_like',
      val: 'small',
    });
    expect(draftToClause({ ...EMPTY_DRAFT, type: 'pattern', pattern: 'hammer', op: 'like' })).to.deep.equal({
      type: 'pattern_hammer_',
      op: 'like',
      val: null,
    });
    expect(draftToClause({ ...EMPTY_DRAFT, type: 'rsi', op: '<', value: '30' })).to.deep.equal({
      type: 'rsi',
      param: 14,
      op: '<',
      val: 30,
    });
  });

  it('checks a clause with the language and labels it with its description unless a label is given', () => {
    expect(checkClause({ type: 'close', op: '<', val: { ref: 'SMA', param: 50 } })).to.deep.equal({
      ok: true,
      clause: { label: 'Close < SMA(50)', query: { type: 'close', op: '<', val: { ref: 'SMA', param: 50 } } },
    });
    expect(checkClause({ type: 'rsi', param: 14, op: 'bet', val: [30, 'x'] })).to.deep.include({ ok: false });
    const bad = checkClause({ type: 'SMA', param: 50, op: '>', val: { ref: 'SMA', param: 50 } });
    expect(bad.ok ? '' : bad.error).to.equal("Compare with: refers to the clause's own column SMA");
    // A number out of the language's range, by the control that holds it.
    const refusal = (clause: unknown) => {
      const check = checkClause(clause);
      return check.ok ? '' : check.error;
    };
    expect(refusal({ type: 'rsi', param: 14, op: 'bet', val: [20, 150] })).to.equal(
      'To: must be between 0 and 100 for rsi, got 150',
    );
    expect(refusal({ type: 'rsi', param: 14, op: 'bet', val: [-5, 50] })).to.equal(
      'From: must be between 0 and 100 for rsi, got -5',
    );
    expect(refusal({ type: 'rsi', param: 14, op: 'bet', val: [50, 20] })).to.equal('To: must not be below From');
    expect(refusal({ type: 'mcap', op: 'like', val: 'huge' })).to.match(/^Cap class: must be one of large, mid, small/);
    expect(refusal({ type: 'close', op: '<', val: -3 })).to.equal(
      'Value: must be a price at or above 0 for close, got -3',
    );
    // A clause the builder does not make keeps the language's words.
    expect(refusal({ type: 'sector', op: '=', val: 'Nope' })).to.match(/^clause: val must be one of the sectors/);
    // A description longer than a label may be (a long industry) is cut, so the server does not refuse the query.
    const industry = 'x'.repeat(98);
    const long = checkClause({ type: 'industry', op: '=', val: industry });
    expect(long.ok && long.clause.label).to.have.length(100);
    expect(long.ok && long.clause.label.endsWith('…')).to.equal(true);
  });

  it('sorts the run by the sorted column of the grid when the server sorts by it', () => {
    expect(gridSort([{ colId: 'symbol' }, { colId: 'changepct', sort: 'desc' }])).to.deep.equal({
      field: 'changepct',
      dir: 'desc',
    });
    expect(gridSort([{ colId: 'rsi_14', sort: 'asc' }])).to.deep.equal({ field: 'rsi_14', dir: 'asc' });
    expect(gridSort([{ colId: 'patterns', sort: 'asc' }])).to.equal(null);
    expect(gridSort([{ colId: 'close', sort: null }])).to.equal(null);
  });

  it('adds without duplicates, numbers a repeated label, and removes by label', () => {
    const other: LabelledClause = { label: 'RSI low', query: { type: 'rsi', param: 14, op: '<', val: 20 } };
    let list = addClause([], rsiLow);
    list = addClause(list, rsiLow);
    list = addClause(list, other);
    expect(list.map((c) => c.label)).to.deep.equal(['RSI low', 'RSI low (2)']);
    expect(addClauses([], [rsiLow, other, rsiLow])).to.deep.equal(list);
    expect(removeByLabel(list, 'RSI low (2)')).to.deep.equal([rsiLow]);
  });

  it('offers presets and saved queries in the quick-fill, saved ones in white, filtered by every word', () => {
    const presets = SCREENER_PRESETS.map((p) => ({ name: p.name, query: p.query }));
    const all = quickFillOptions(presets, [saved1], '');
    expect(all).to.have.length(SCREENER_PRESETS.length + 1);
    expect(all.at(-1)).to.include({ kind: 'saved', name: 'Oversold', color: SAVED_QUERY_COLOR });
    expect(all.filter((o) => o.kind === 'preset').every((o) => o.color !== SAVED_QUERY_COLOR)).to.equal(true);
    expect(quickFillOptions(presets, [saved1], 'rsi 30').map((o) => o.name)).to.deep.equal(['14-day RSI below 30']);
    expect(quickFillOptions(presets, [saved1], 'OVERSOLD rsi').map((o) => o.name)).to.deep.equal(['Oversold']);
  });

  it('offers each industry of the universe once, in alphabetical order', () => {
    const companies = [{ industry: 'Semiconductors' }, { industry: 'Banks' }, { industry: ' ' }, { industry: 'Banks' }];
    expect(industriesOf(companies)).to.deep.equal(['Banks', 'Semiconductors']);
  });

  it('finds the saved query a name would replace: case and spaces aside, none for a blank name', () => {
    expect(savedNamed([saved1], ' oversold ')).to.equal(saved1);
    expect(savedNamed([saved1], 'Oversold 2')).to.equal(undefined);
    expect(savedNamed([saved1], '  ')).to.equal(undefined);
    expect(savedText([saved1], 'Momentum')).to.equal('Saved "Momentum"');
  });

  it('tells a save under a new name of a loaded query makes a copy beside it', () => {
    expect(keptBeside([saved1], 'Oversold', 'Oversold weak')).to.equal(saved1);
    expect(keptBeside([saved1], 'Oversold', ' oversold ')).to.equal(undefined);
    expect(keptBeside([saved1], 'Oversold', '')).to.equal(undefined);
    expect(keptBeside([saved1], '', 'Momentum')).to.equal(undefined);
  });

  it('replaces a saved query of the same id or name', () => {
    const renamed = { ...saved1, id: 'q2', queryname: 'OVERSOLD' };
    expect(upsertSaved([saved1], renamed)).to.deep.equal([renamed]);
    expect(upsertSaved([saved1], { ...saved1, id: 'q3', queryname: 'Other' })).to.have.length(2);
  });

  it('moves a clicked row to the front and a selected row to the end, replacing an entry of the same id', () => {
    let list = withClicked(INITIAL_CONTEXT, 'AAPL');
    list = withSelected(list, 'MSFT');
    list = withClicked(list, 'MSFT');
    expect(list.map((e) => `${e.id}:${e.kind}`)).to.deep.equal(['MSFT:clicked', 'AAPL:clicked', 'INTRA_DAY:INTRA_DAY']);
    list = withSelected(list, 'AAPL');
    expect(list.map((e) => e.id)).to.deep.equal(['MSFT', 'INTRA_DAY', 'AAPL']);
    expect(withoutEntry(list, 'AAPL').map((e) => e.id)).to.deep.equal(['MSFT', 'INTRA_DAY']);
    expect(withoutEntry(list, 'INTRA_DAY')).to.equal(list);
  });

  it('folds quotes into the rows with the direction of the move, and lays streamed quotes over a run', () => {
    const rows = resultRows([row('AAPL', 100), row('MSFT', 50)], {});
    expect(applyQuotes(rows, [quote('AAPL', 100)]).at(0)).to.include({ flash: null, flashSeq: 0 });
    const down = applyQuotes(rows, [quote('MSFT', 49)]);
    expect(down[1]).to.include({ close: 49, flash: 'down', flashSeq: 1 });
    expect(down[0]).to.equal(rows[0]);
    expect(down[1]?.marketcap).to.equal(SHARES * 49);
    expect(resultRows([row('AAPL', 100)], { AAPL: quote('AAPL', 120) })[0]).to.include({
      close: 120,
      marketcap: SHARES * 120,
      flash: null,
    });
  });

  it('names the columns a query reads, references included', () => {
    const columns = queryColumns([
      { label: 'a', query: { type: 'SMA', param: 200, op: '>', val: { ref: 'SMA', param: 50 } } },
      { label: 'b', query: { type: 'mcap', op: 'like', val: 'large' } },
      { label: 'c', query: { type: 'pattern_hammer_', op: 'like', val: null } },
      { label: 'd', query: { type: 'rsi', param: 14, op: 'bet', val: [30, 70] } },
    ]);
    expect([...columns].sort()).to.deep.equal(['SMA_200', 'SMA_50', 'marketcap', 'patterns', 'rsi_14']);
  });

  it('maps metric and category clauses to their columns', () => {
    const columns = queryColumns([
      { label: 'a', query: { type: 'perf', param: '1M', op: '>', val: 0 } },
      { label: 'b', query: { type: 'price_vs_sma', param: 200, op: '<', val: 0 } },
      { label: 'c', query: { type: 'relvolume', op: '>', val: 2 } },
      { label: 'd', query: { type: 'industry', op: '=', val: 'Banks' } },
      { label: 'e', query: { type: 'changepct', op: '<', val: -3 } },
    ]);
    expect([...columns].sort()).to.deep.equal(['changepct', 'industry', 'perf_1M', 'price_vs_sma_200', 'relvolume']);
  });

  it('builds metric and category clauses from the builder fields, checked by the language', () => {
    const perf = draftToClause({ ...EMPTY_DRAFT, type: 'perf', param: 'YTD', op: 'bet', value: '-5', value2: '10' });
    expect(perf).to.deep.equal({ type: 'perf', param: 'YTD', op: 'bet', val: [-5, 10] });
    const vsSma = draftToClause({ ...EMPTY_DRAFT, type: 'price_vs_sma', param: '50', op: '>', value: '2' });
    expect(vsSma).to.deep.equal({ type: 'price_vs_sma', param: 50, op: '>', val: 2 });
    const volume = draftToClause({ ...EMPTY_DRAFT, type: 'volume', op: '>', value: '5M' });
    expect(volume).to.deep.equal({ type: 'volume', op: '>', val: 5e6 });
    const sector = draftToClause({ ...EMPTY_DRAFT, type: 'sector', op: 'not_like', value: 'Energy' });
    expect(sector).to.deep.equal({ type: 'sector', op: 'not_like', val: 'Energy' });
    expect(checkClause(sector)).to.deep.equal({
      ok: true,
      clause: { label: 'Sector is not Energy', query: { type: 'sector', op: 'not_like', val: 'Energy' } },
    });
    const refused = checkClause(draftToClause({ ...EMPTY_DRAFT, type: 'atr', op: '>', value: '-1' }));
    expect(refused).to.deep.equal({ ok: false, error: 'Value: must be at or above 0 for atr ($), got -1' });
    expect(operatorsOf('industry').map((o) => o.op)).to.deep.equal(['=', 'not_like']);
    expect(operatorsOf('beta').map((o) => o.op)).to.deep.equal(['>', '<', 'bet']);
  });
});
