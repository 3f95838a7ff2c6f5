/**
 * The transactions panel of the portfolio: realized and unrealized P&L, the performance over time against a
 * benchmark, the allocation by sector, the transaction form (buy, sell first in first out or chosen lots,
 * dividend, fee), the transactions, the import wizard and the CSV exports.
 */
import { useMachine } from '@xstate/react';
import type { Config, Data, Layout } from 'plotly.js';
import { memo, useCallback, useId, useMemo, useState, type FormEvent } from 'react';
import { portfolioApi } from '../../../domain/contract/portfolio.ts';
import { formatQuantity } from '../../../domain/format.ts';
import { portfolioPnl } from '../../../domain/portfolio/pnl.ts';
import { TRANSACTION_KINDS, type TransactionKind } from '../../../domain/portfolio/transactions.ts';
import { Dismissible, Empty, LoadState } from '../../components/LoadState.tsx';
import { MoreRows, useRowLimit } from '../../components/MoreRows.tsx';
import { SymbolSearch } from '../../components/SymbolSearch.tsx';
import { formatPrice, formatSigned, signClass } from '../watchlist/quotes.ts';
import { ImportWizard } from './ImportWizard.tsx';
import {
  RANGES,
  feeOf,
  inRange,
  priceOf,
  sizeOf,
  realizedByTransaction,
  type LedgerTransaction,
  sectorAllocation,
  type Ledger,
  type Performance,
  type Range,
  type TransactionForm,
  type TransactionFormErrors,
} from './ledger.ts';
import { EQUAL_WEIGHT, ledgerMachine, type TransactionField } from './ledger.machine.ts';
import { StillChart, useDonut } from './StillChart.tsx';
import { todayStamp, tradingDayTitle } from '../../services/time.ts';
import { tradingDayAxis } from '../../components/dateAxis.ts';
import { refusalMarks } from '../../components/fieldRefusal.ts';

const KIND_LABELS: Readonly<Record<TransactionKind, string>> = {
  buy: 'Buy',
  sell: 'Sell',
  dividend: 'Dividend',
  fee: 'Fee',
};

/**
 * The form that records one transaction; a sell closes the oldest lots unless the user chooses lots. The panel's
 * machine checks what is sent and holds what is wrong with each field; editing a field is told to it.
 */
function TransactionFormView(props: {
  readonly ledger: Ledger;
  readonly recorded: number;
  readonly busy: boolean;
  /** What is wrong with each field: the form's own check or the server's refusal. */
  readonly errors: TransactionFormErrors;
  readonly onRecord: (form: TransactionForm, today: string) => void;
  readonly onEdit: (field: TransactionField | 'kind') => void;
}) {
  const { errors, onEdit } = props;
  const id = useId();
  const today = todayStamp();
  const [kind, setKind] = useState<TransactionKind>('buy');
  const [symbol, setSymbol] = useState('');
  const [date, setDate] = useState(today);
  const [amounts, setAmounts] = useState({ quantity: '', price: '', fee: '', amount: '' });
  const [chooseLots, setChooseLots] = useState(false);
  const [picks, setPicks] = useState<Record<string, string>>({});
  const [cleared, setCleared] = useState(props.recorded);
  if (cleared !== props.recorded) {
    setCleared(props.recorded);
    setAmounts({ quantity: '', price: '', fee: '', amount: '' });
    setPicks({});
  }
  const open = (props.ledger.lots[symbol.trim().toUpperCase()] ?? []).filter((lot) => lot.position > 0);
  const trade = kind === 'buy' || kind === 'sell';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    props.onRecord({ kind, symbol, date, ...amounts, lots: kind === 'sell' && chooseLots ? picks : null }, today);
  };
  const field = (name: keyof TransactionFormErrors) => ({
    id: `${id}-${name}`,
    ...refusalMarks(Boolean(errors[name]), `${id}-${name}-error`),
  });
  const amountInput = (name: 'quantity' | 'price' | 'fee' | 'amount', label: string, placeholder: string) => (
    <label htmlFor={`${id}-${name}`}>
      {label}
      <input
        type="text"
        inputMode="decimal"
        placeholder={placeholder}
        value={amounts[name]}
        onChange={(e) => {
          setAmounts({ ...amounts, [name]: e.target.value });
          onEdit(name);
        }}
        {...field(name)}
      />
    </label>
  );

  return (
    <form className="transaction-form lot-form" onSubmit={submit} noValidate aria-label="Record a transaction">
      <label htmlFor={`${id}-kind`}>
        Transaction
        <select
          id={`${id}-kind`}
          value={kind}
          onChange={(e) => {
            setKind(e.target.value as TransactionKind);
            onEdit('kind');
          }}
        >
          {TRANSACTION_KINDS.map((k) => (
            <option key={k} value={k}>
              {KIND_LABELS[k]}
            </option>
          ))}
        </select>
      </label>
      <SymbolSearch
        label="Symbol"
        placeholder="e.g. AAPL or Apple"
        invalid={errors.symbol ? true : undefined}
        describedBy={field('symbol')['aria-describedby']}
        onType={(text) => {
          setSymbol(text);
          onEdit('symbol');
        }}
        onPick={(hit) => {
          setSymbol(hit.symbol);
          onEdit('symbol');
        }}
      />
      <label htmlFor={`${id}-date`}>
        Date
        <input
          type="date"
          max={today}
          value={date}
          onChange={(e) => {
            setDate(e.target.value);
            onEdit('date');
          }}
          {...field('date')}
        />
      </label>
      {trade ? (
        <>
          {amountInput('quantity', 'Quantity', 'e.g. 10')}
          {amountInput('price', 'Price', 'e.g. 182.50')}
          {amountInput('fee', 'Commission', '0')}
        </>
      ) : (
        amountInput('amount', 'Amount', 'e.g. 12.40')
      )}
      {kind === 'sell' && (
        <fieldset className="sell-method">
          <legend>Lots sold</legend>
          <label>
            <input
              type="radio"
              name={`${id}-method`}
              checked={!chooseLots}
              onChange={() => {
                setChooseLots(false);
                onEdit('lots');
              }}
            />
            First in, first out
          </label>
          <label>
            <input
              type="radio"
              name={`${id}-method`}
              checked={chooseLots}
              onChange={() => {
                setChooseLots(true);
                onEdit('lots');
              }}
            />
            Choose lots
          </label>
          {chooseLots &&
            (open.length === 0 ? (
              <p className="hint">No open lots of {symbol.trim().toUpperCase() || 'this symbol'}.</p>
            ) : (
              <ul className="lot-picks" {...field('lots')}>
                {open.map((lot) => (
                  <li key={lot.id}>
                    <label>
                      {lot.date} · {formatQuantity(lot.position)} at {formatPrice(lot.close)}
                      <input
                        type="text"
                        inputMode="decimal"
                        aria-label={`Quantity sold of the lot bought ${lot.date} at ${lot.close}`}
                        placeholder={`up to ${formatQuantity(lot.position)}`}
                        value={picks[lot.id] ?? ''}
                        onChange={(e) => {
                          setPicks({ ...picks, [lot.id]: e.target.value });
                          onEdit('lots');
                        }}
                      />
                    </label>
                  </li>
                ))}
              </ul>
            ))}
        </fieldset>
      )}
      <button type="submit" className="button primary" disabled={props.busy}>
        Record {KIND_LABELS[kind].toLowerCase()}
      </button>
      {(Object.keys(errors) as (keyof TransactionFormErrors)[]).map((name) => (
        <p key={name} id={`${id}-${name}-error`} className="error lot-form-error" role="alert">
          {errors[name]}
        </p>
      ))}
    </form>
  );
}

const PERFORMANCE_LAYOUT: Partial<Layout> = {
  yaxis: { title: { text: 'Return %' }, ticksuffix: '%', automargin: true },
  yaxis2: { title: { text: 'Value $' }, overlaying: 'y', side: 'right', showgrid: false, automargin: true },
  legend: { orientation: 'h', y: -0.15 },
  margin: { l: 56, r: 64, t: 16, b: 48 },
};

const DONUT_LAYOUT: Partial<Layout> = { margin: { l: 8, r: 8, t: 8, b: 8 }, showlegend: true };
const DONUT_CONFIG: Partial<Config> = { displayModeBar: false };

/**
 * The performance chart: time-weighted return of the portfolio and of the benchmark over the range picked. It is
 * history, so live prices never redraw it; a benchmark the server refuses is said next to its field, what was
 * typed stays there and the chart keeps the benchmark in use.
 */
function PerformanceChart(props: {
  readonly performance: Performance;
  readonly benchmark: string;
  readonly benchmarkError: string | null;
  readonly comparing: boolean;
  readonly onBenchmark: (benchmark: string) => void;
}) {
  const id = useId();
  const [range, setRange] = useState<Range>('All');
  const [typed, setTyped] = useState('');
  const shown = useMemo(() => inRange(props.performance, range), [props.performance, range]);
  const benchmarkName = props.benchmark === EQUAL_WEIGHT ? 'Equal weight (universe)' : props.benchmark;
  const layout = useMemo(
    (): Partial<Layout> => ({ ...PERFORMANCE_LAYOUT, xaxis: tradingDayAxis(shown.dates) }),
    [shown.dates],
  );
  const data = useMemo(
    (): Data[] => [
      { type: 'scatter', mode: 'lines', name: 'Portfolio', x: [...shown.dates], y: [...shown.twr] },
      {
        type: 'scatter',
        mode: 'lines',
        name: benchmarkName,
        x: [...shown.dates],
        y: [...shown.benchmarkReturn],
        line: { dash: 'dot' },
      },
      {
        type: 'scatter',
        mode: 'lines',
        name: 'Value ($)',
        x: [...shown.dates],
        y: [...shown.value],
        yaxis: 'y2',
        line: { width: 1 },
        opacity: 0.5,
      },
    ],
    [shown, benchmarkName],
  );
  const errorId = `${id}-benchmark-error`;
  return (
    <div className="card portfolio-performance" data-testid="portfolio-performance">
      <h2>Performance</h2>
      <div className="performance-controls">
        <div role="group" aria-label="Range">
          {RANGES.map((r) => (
            <button
              key={r}
              type="button"
              className={`button small${r === range ? ' primary' : ''}`}
              aria-pressed={r === range}
              onClick={() => setRange(r)}
            >
              {r}
            </button>
          ))}
        </div>
        <form
          className="benchmark-form"
          aria-busy={props.comparing || undefined}
          onSubmit={(e) => {
            e.preventDefault();
            props.onBenchmark(typed.trim() === '' ? EQUAL_WEIGHT : typed);
          }}
        >
          {/* Searched by symbol or company name; a pick compares at once, Compare takes what is typed. */}
          <SymbolSearch
            label="Benchmark"
            placeholder="Symbol or company (empty: equal weight)"
            invalid={props.benchmarkError ? true : undefined}
            describedBy={props.benchmarkError ? errorId : undefined}
            onType={setTyped}
            onPick={(hit) => {
              setTyped(hit.symbol);
              props.onBenchmark(hit.symbol);
            }}
          />
          <button type="submit" className="button small">
            Compare
          </button>
          {props.benchmarkError && (
            <p id={errorId} className="error benchmark-error" role="alert">
              {props.benchmarkError}
            </p>
          )}
        </form>
      </div>
      {shown.dates.length === 0 ? (
        <Empty>Record a transaction to see how the portfolio did since.</Empty>
      ) : (
        <StillChart
          label={`Time-weighted return of the portfolio against ${benchmarkName}, ${range}`}
          height={300}
          data={data}
          layout={layout}
        />
      )}
    </div>
  );
}

/** How many transactions the table lists at first, and how many more each "Show more" lists. */
export const TRANSACTIONS_STEP = 100;

/**
 * The transactions, newest first, with what each sale realized: drawn again only when the ledger changes, not on
 * each quote that moves the P&L above it (thousands of rows would otherwise be redrawn with every price).
 */
const TransactionTable = memo(function TransactionTable(props: {
  readonly transactions: readonly LedgerTransaction[];
  readonly realized: Readonly<Record<string, number>>;
}) {
  const { realized, transactions } = props;
  const [shown, more] = useRowLimit(TRANSACTIONS_STEP);
  // Newest first: the last `shown` of the transactions (kept oldest first), reversed.
  const rows = useMemo(() => transactions.slice(-shown).reverse(), [transactions, shown]);
  return (
    <div className="lots-scroll">
      <table className="lots transactions">
        <caption className="sr-only">Transactions, newest first</caption>
        <thead>
          <tr>
            <th scope="col">{tradingDayTitle()}</th>
            <th scope="col">Kind</th>
            <th scope="col">Symbol</th>
            <th scope="col" className="num">
              Quantity
            </th>
            <th scope="col" className="num">
              Price
            </th>
            <th scope="col" className="num">
              Commission / amount
            </th>
            <th scope="col" className="num">
              Realized P&amp;L
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((t) => (
            <tr key={t.id} data-kind={t.kind}>
              <td>{t.date}</td>
              <td>{KIND_LABELS[t.kind]}</td>
              <td>{t.symbol}</td>
              <td className="num">{priceOf(t) === null ? '' : formatQuantity(sizeOf(t), '')}</td>
              <td className="num">{priceOf(t) === null ? '' : formatPrice(priceOf(t))}</td>
              <td className="num">{formatPrice(feeOf(t) ?? sizeOf(t))}</td>
              <td className={`num ${signClass(realized[t.id])}`}>
                {realized[t.id] === undefined ? '' : formatSigned(realized[t.id])}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <MoreRows shown={shown} total={transactions.length} noun="transactions" step={TRANSACTIONS_STEP} onMore={more} />
    </div>
  );
});

/** The transactions panel. */
export function TransactionsPanel(props: {
  readonly prices: Readonly<Record<string, number>>;
  readonly sectorOf: (symbol: string) => string | undefined;
}) {
  const [state, send] = useMachine(ledgerMachine);
  const { ledger, performance, benchmark, benchmarkError, recordError, refreshError, recorded, error, notice } =
    state.context;
  const { formErrors } = state.context;
  const pnl = useMemo(() => (ledger ? portfolioPnl(ledger, props.prices) : null), [ledger, props.prices]);
  const realized = useMemo(() => (ledger ? realizedByTransaction(ledger) : {}), [ledger]);
  const sectors = useMemo(() => (pnl ? sectorAllocation(pnl, props.sectorOf) : []), [pnl, props.sectorOf]);
  // The donut is drawn again only when a sector or its value changes, not on every price.
  const sectorData = useDonut(sectors, 'percent');
  const pickBenchmark = useCallback((b: string) => send({ type: 'user.pickBenchmark', benchmark: b }), [send]);
  return (
    <section className="transactions-panel" aria-labelledby="transactions-title">
      <h2 id="transactions-title" className="sr-only">
        Transactions and performance
      </h2>
      <LoadState
        loading={state.matches('loading')}
        error={state.matches('failed') ? (error ?? 'The transactions could not be loaded') : null}
        onRetry={() => send({ type: 'user.retry' })}
        lines={4}
      >
        {ledger && pnl && (
          <>
            <div className="portfolio-summary">
              <div className="card portfolio-totals" role="group" aria-label="Profit and loss">
                <h2>Profit and loss</h2>
                <dl>
                  <div>
                    <dt>Realized</dt>
                    <dd className={signClass(pnl.total.realized)} data-testid="realized-pnl">
                      {formatSigned(pnl.total.realized)}
                    </dd>
                  </div>
                  <div>
                    <dt>Unrealized</dt>
                    <dd className={signClass(pnl.total.unrealized)} data-testid="unrealized-pnl">
                      {formatSigned(pnl.total.unrealized)}
                    </dd>
                  </div>
                  <div>
                    <dt>Dividends − fees</dt>
                    <dd className={signClass(pnl.total.dividends - pnl.total.fees)}>
                      {formatSigned(pnl.total.dividends - pnl.total.fees)}
                    </dd>
                  </div>
                  <div>
                    <dt>Total</dt>
                    <dd className={signClass(pnl.total.total)} data-testid="total-return">
                      {formatSigned(pnl.total.total)}
                    </dd>
                  </div>
                </dl>
              </div>
              <div className="card portfolio-allocation">
                <h2>Allocation by sector</h2>
                {sectors.length === 0 ? (
                  <Empty>Open lots with a price show here by sector.</Empty>
                ) : (
                  <StillChart
                    label={`Allocation by sector: ${sectors.map((s) => s.label).join(', ')}`}
                    height={240}
                    data={sectorData}
                    layout={DONUT_LAYOUT}
                    config={DONUT_CONFIG}
                  />
                )}
              </div>
            </div>
            {performance && (
              <PerformanceChart
                performance={performance}
                benchmark={benchmark}
                benchmarkError={benchmarkError}
                comparing={state.matches({ ready: 'comparing' })}
                onBenchmark={pickBenchmark}
              />
            )}
            <div className="card transactions-card">
              <header className="transactions-header">
                <h2>Transactions</h2>
                <span className="transactions-links">
                  <a className="button small" href={portfolioApi.getPortfolioExportTransactions.path} download>
                    Export transactions
                  </a>
                  <a className="button small" href={portfolioApi.getPortfolioExportPositions.path} download>
                    Export positions
                  </a>
                </span>
              </header>
              {(recordError ?? refreshError) && (
                <Dismissible
                  message={[recordError, refreshError].filter(Boolean).join(' · ')}
                  onDismiss={() => send({ type: 'user.dismissError' })}
                />
              )}
              <TransactionFormView
                ledger={ledger}
                recorded={recorded}
                busy={state.matches({ ready: 'recording' })}
                errors={formErrors}
                onRecord={(form, today) => send({ type: 'user.record', form, today })}
                onEdit={(field) => send({ type: 'user.edit', field })}
              />
              {notice && (
                <p className="hint short-notice" role="status" data-testid="short-notice">
                  {notice}
                </p>
              )}
              {ledger.transactions.length === 0 ? (
                <Empty>No transactions yet: record one above or import a file below.</Empty>
              ) : (
                <TransactionTable transactions={ledger.transactions} realized={realized} />
              )}
            </div>
          </>
        )}
      </LoadState>
      <ImportWizard />
    </section>
  );
}
