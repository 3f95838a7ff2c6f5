/**
 * The portfolio: the totals (cost basis, market value, P&L and P&L % at live prices) with the allocation by
 * market value, then a card per symbol with its live price, its lots (per lot and in total) and a form to add
 * a lot. A symbol search adds a symbol; buttons remove a symbol (its lots and transactions go with it) or a lot
 * (its purchase too when none of it was sold), each once confirmed.
 */
import { useMachine } from '@xstate/react';
import type { Config, Layout } from 'plotly.js';
import { memo, useCallback, useId, useMemo, useState, type FormEvent } from 'react';
import { formatQuantity } from '../../../domain/format.ts';
import type { Quote } from '../../../domain/market/types.ts';
import { ConfirmBar } from '../../components/ConfirmBar.tsx';
import { Link } from '../../components/Link.tsx';
import { MoreRows, useRowLimit } from '../../components/MoreRows.tsx';
import { Dismissible, Empty, LoadState } from '../../components/LoadState.tsx';
import { PriceFlash } from '../../components/PriceFlash.tsx';
import { SymbolChip } from '../../components/SymbolChip.tsx';
import { SymbolSearch } from '../../components/SymbolSearch.tsx';
import type { UniverseHit } from '../../components/symbolSearch.machine.ts';
import { todayStamp, tradingDayTitle } from '../../services/time.ts';
import { formatPercent, formatPrice, formatSigned, signClass } from '../watchlist/quotes.ts';
import { portfolioMachine, UNUSED_LOT_FORM, type LotFormState, type RemovalQuestion } from './portfolio.machine.ts';
import { StillChart, useDonut } from './StillChart.tsx';
import { TransactionsPanel } from './TransactionsPanel.tsx';
import {
  allocation,
  lotFigures,
  portfolioFigures,
  symbolFigures,
  type LotForm as LotFormFields,
  type PositionFigures,
  type PositionLot,
} from './positions.ts';
import './portfolio.css';
import { refusalMarks } from '../../components/fieldRefusal.ts';

const ALLOCATION_LAYOUT: Partial<Layout> = { margin: { l: 8, r: 8, t: 8, b: 8 }, showlegend: false };
const ALLOCATION_CONFIG: Partial<Config> = { displayModeBar: false };

/** What the P&L % is a percentage of, as its header's tooltip says. */
const PNL_PCT_BASIS = 'P&L over what long lots cost plus what short lots were sold for';

/**
 * A card of at most this many lots flashes each lot's market value when the price moves; a longer one flashes
 * only its total, so a table of hundreds of lots is not animated and painted again on every tick.
 */
export const FLASHING_LOTS = 10;

/**
 * How many lots a card lists at first, and how many more each "Show more" lists (the cards stand one above the
 * other, so fewer than the transactions' table).
 */
export const LOTS_STEP = 20;

/**
 * The market cells of a row: market value (flashing when it moves, unless `still`), P&L and P&L %, coloured by
 * sign.
 */
function MarketCells({ figures, still = false }: { readonly figures: PositionFigures; readonly still?: boolean }) {
  const value = formatPrice(figures.marketValue);
  return (
    <>
      <td className="num">{still ? value : <PriceFlash value={figures.marketValue}>{value}</PriceFlash>}</td>
      <td className={`num ${signClass(figures.pnl)}`}>{formatSigned(figures.pnl)}</td>
      <td className={`num ${signClass(figures.pnlPct)}`}>{formatPercent(figures.pnlPct)}</td>
    </>
  );
}

/**
 * The "add a lot" form of a symbol; the screen's machine checks its fields before anything is sent and holds what
 * is wrong with each (`state`), until the field is edited; the price and quantity empty once a lot is sent.
 */
function LotForm(props: {
  readonly symbol: string;
  readonly price: number | null;
  readonly state: LotFormState;
  readonly onAdd: (form: LotFormFields, today: string) => void;
  readonly onEdit: (field: keyof LotFormFields) => void;
}) {
  const id = useId();
  const { errors, sent } = props.state;
  // Today in the zone times are shown in (the market's by default).
  const [date, setDate] = useState(() => todayStamp());
  const [price, setPrice] = useState('');
  const [amount, setAmount] = useState('');
  const [emptiedAt, setEmptiedAt] = useState(sent);
  if (emptiedAt !== sent) {
    setEmptiedAt(sent);
    setPrice('');
    setAmount('');
  }
  const today = todayStamp();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    props.onAdd({ date, price, quantity: amount }, today);
  };

  const field = (name: keyof LotFormFields) => ({
    id: `${id}-${name}`,
    ...refusalMarks(Boolean(errors[name]), `${id}-${name}-error`),
  });

  return (
    <form className="lot-form" onSubmit={submit} noValidate aria-label={`Add a lot of ${props.symbol}`}>
      <label htmlFor={`${id}-date`}>
        Date
        <input
          type="date"
          max={today}
          value={date}
          onChange={(e) => {
            setDate(e.target.value);
            props.onEdit('date');
          }}
          {...field('date')}
        />
      </label>
      <label htmlFor={`${id}-price`}>
        Price paid
        <input
          type="text"
          inputMode="decimal"
          placeholder={props.price === null ? 'e.g. 182.50' : props.price.toFixed(2)}
          value={price}
          onChange={(e) => {
            setPrice(e.target.value);
            props.onEdit('price');
          }}
          {...field('price')}
        />
      </label>
      <label htmlFor={`${id}-quantity`}>
        Quantity
        <input
          type="text"
          inputMode="decimal"
          placeholder="e.g. 10 (−5 short)"
          value={amount}
          onChange={(e) => {
            setAmount(e.target.value);
            props.onEdit('quantity');
          }}
          {...field('quantity')}
        />
      </label>
      <button type="submit" className="button primary">
        Add lot
      </button>
      {(['date', 'price', 'quantity'] as const).map((name) =>
        errors[name] ? (
          <p key={name} id={`${id}-${name}-error`} className="error lot-form-error" role="alert">
            {errors[name]}
          </p>
        ) : null,
      )}
    </form>
  );
}

/** A lot in words: "the lot of 10 AAPL bought 2024-01-10". */
function lotInWords(symbol: string, lot: PositionLot): string {
  return `the lot of ${formatQuantity(lot.position)} ${symbol} bought ${lot.date}`;
}

/** One symbol of the portfolio: header with the live price, the lots table and the lot form. */
function PositionCardView(props: {
  readonly symbol: string;
  readonly company: UniverseHit | undefined;
  readonly quote: Quote | undefined;
  readonly lots: readonly PositionLot[];
  readonly saving: boolean;
  /** The removal of the symbol or of one of its lots that waits for the user to confirm it, or null. */
  readonly confirmingRemoval: RemovalQuestion | null;
  readonly onAskRemoveSymbol: (symbol: string) => void;
  readonly onAskRemoveLot: (symbol: string, id: string) => void;
  readonly onKeep: () => void;
  readonly onRemoveSymbol: (symbol: string) => void;
  /** The card's "add a lot" form, as the screen's machine holds it. */
  readonly lotForm: LotFormState;
  readonly onAddLot: (symbol: string, form: LotFormFields, today: string) => void;
  readonly onEditLot: (symbol: string, field: keyof LotFormFields) => void;
  readonly onRemoveLot: (symbol: string, id: string) => void;
  /** Why the last change of this symbol could not be saved, told in its card, or null. */
  readonly saveError: string | null;
  readonly onDismissError: () => void;
}) {
  const { symbol, quote, lots } = props;
  const price = quote?.price ?? null;
  const total = symbolFigures(lots, price);
  const shares = lots.reduce((sum, lot) => sum + lot.position, 0);
  const titleId = useId();
  const [shownLots, moreLots] = useRowLimit(LOTS_STEP);
  const asked = props.confirmingRemoval;
  // The question is about the symbol, or about one of its lots.
  const askedSymbol = asked !== null && asked.lot === null;
  const askedLot = asked?.lot == null ? undefined : lots.find((lot) => lot.id === asked.lot);
  return (
    <section className="card position-card" aria-labelledby={titleId} data-symbol={symbol}>
      <header className="position-header">
        <h2 id={titleId} aria-label={`${symbol} position`}>
          <SymbolChip symbol={symbol} />
        </h2>
        <span className="position-name">{props.company?.name ?? ''}</span>
        <span className="position-quote" aria-label={`${symbol} price`}>
          <PriceFlash value={price}>{formatPrice(price)}</PriceFlash>{' '}
          <span className={signClass(quote?.changepct)}>{formatPercent(quote?.changepct)}</span>
        </span>
        <span className="position-links">
          <Link to={`/CompanyStats?stock=${encodeURIComponent(symbol)}`} aria-label={`Statistics of ${symbol}`}>
            Statistics
          </Link>
          <button
            type="button"
            className="icon-button small"
            aria-label={`Remove ${symbol} from the portfolio`}
            title="Remove from the portfolio"
            aria-expanded={askedSymbol}
            onClick={() => props.onAskRemoveSymbol(symbol)}
          >
            ✕
          </button>
        </span>
      </header>
      {askedSymbol && (
        <ConfirmBar
          className="position-confirm"
          title={`Remove ${symbol}?`}
          question={`Remove ${symbol} from the portfolio? ${
            lots.length === 0
              ? 'Its transactions go with it.'
              : `Its ${lots.length === 1 ? 'lot' : `${lots.length} lots`} and its transactions go with it.`
          }`}
          confirm={`Remove ${symbol}`}
          onConfirm={() => props.onRemoveSymbol(symbol)}
          onKeep={props.onKeep}
        />
      )}
      {lots.length === 0 ? (
        <p className="empty">No lots yet: add the date, price and quantity of a purchase below.</p>
      ) : (
        <div className="lots-scroll">
          <table className="lots">
            <caption className="sr-only">Lots of {symbol}</caption>
            <thead>
              <tr>
                <th scope="col">{tradingDayTitle()}</th>
                <th scope="col" className="num">
                  Price paid
                </th>
                <th scope="col" className="num">
                  Quantity
                </th>
                <th scope="col" className="num">
                  Cost basis
                </th>
                <th scope="col" className="num">
                  Market value
                </th>
                <th scope="col" className="num">
                  P&amp;L
                </th>
                <th scope="col" className="num" title={PNL_PCT_BASIS}>
                  P&amp;L %
                </th>
                <th scope="col">
                  <span className="sr-only">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {lots.slice(0, shownLots).map((lot) => {
                const figures = lotFigures(lot, price);
                return (
                  <tr key={lot.id}>
                    <td>{lot.date}</td>
                    <td className="num">{formatPrice(lot.close)}</td>
                    <td className="num">{formatQuantity(lot.position)}</td>
                    <td className="num">{formatPrice(figures.costBasis)}</td>
                    <MarketCells figures={figures} still={lots.length > FLASHING_LOTS} />
                    <td>
                      <button
                        type="button"
                        className="icon-button small"
                        aria-label={`Remove ${lotInWords(symbol, lot)}`}
                        title="Remove this lot"
                        aria-expanded={askedLot === lot}
                        onClick={() => props.onAskRemoveLot(symbol, lot.id)}
                      >
                        ✕
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
            <tfoot>
              <tr aria-label={`${symbol} total`}>
                <th scope="row">Total</th>
                <td />
                <td className="num">{formatQuantity(shares)}</td>
                <td className="num" data-testid={`${symbol}-cost-basis`}>
                  {formatPrice(total.costBasis)}
                </td>
                <MarketCells figures={total} />
                <td />
              </tr>
            </tfoot>
          </table>
          <MoreRows shown={shownLots} total={lots.length} noun={`${symbol} lots`} step={LOTS_STEP} onMore={moreLots} />
        </div>
      )}
      {askedLot !== undefined && (
        <ConfirmBar
          className="position-confirm"
          title="Remove this lot?"
          question={`Remove ${lotInWords(symbol, askedLot)}? The trade that opened it leaves the transactions too.`}
          confirm="Remove the lot"
          onConfirm={() => props.onRemoveLot(symbol, askedLot.id)}
          onKeep={props.onKeep}
        />
      )}
      {props.saveError !== null && (
        <Dismissible message={props.saveError} className="position-save-error" small onDismiss={props.onDismissError} />
      )}
      <LotForm
        symbol={symbol}
        price={price}
        state={props.lotForm}
        onAdd={(form, today) => props.onAddLot(symbol, form, today)}
        onEdit={(field) => props.onEditLot(symbol, field)}
      />
      {props.saving && (
        <p className="hint" role="status">
          Saving…
        </p>
      )}
    </section>
  );
}

/**
 * {@link PositionCardView}, drawn again only when one of its props changes: a quote redraws its own symbol's
 * card, not every card (a portfolio of thousands of lots stays responsive between quotes).
 */
const PositionCard = memo(PositionCardView);

/** The portfolio screen. */
export default function PortfolioScreen() {
  const [state, send] = useMachine(portfolioMachine);
  const { symbols, lots, quotes, companies, pending, error, saveError, saveErrorSymbol, confirmingRemoval } =
    state.context;
  const { lotForms } = state.context;
  // A change of a symbol shown is told in its card, where the user acted; any other at the top.
  const errorInCard = saveErrorSymbol !== null && symbols.includes(saveErrorSymbol);
  const dismissError = useCallback(() => send({ type: 'user.dismissError' }), [send]);
  const held = useMemo(() => new Set(symbols), [symbols]);
  const addSymbol = useCallback((hit: UniverseHit) => send({ type: 'user.addSymbol', symbol: hit.symbol }), [send]);
  const askRemoveSymbol = useCallback((symbol: string) => send({ type: 'user.askRemoveSymbol', symbol }), [send]);
  const askRemoveLot = useCallback(
    (symbol: string, id: string) => send({ type: 'user.askRemoveLot', symbol, id }),
    [send],
  );
  const keep = useCallback(() => send({ type: 'user.keep' }), [send]);
  const removeSymbol = useCallback((symbol: string) => send({ type: 'user.removeSymbol', symbol }), [send]);
  const addLot = useCallback(
    (symbol: string, form: LotFormFields, today: string) => send({ type: 'user.addLot', symbol, form, today }),
    [send],
  );
  const editLot = useCallback(
    (symbol: string, field: keyof LotFormFields) => send({ type: 'user.editLot', symbol, field }),
    [send],
  );
  const removeLot = useCallback((symbol: string, id: string) => send({ type: 'user.removeLot', symbol, id }), [send]);

  const prices = useMemo(
    () => Object.fromEntries(Object.values(quotes).map((q) => [q.symbol, q.price])) as Record<string, number>,
    [quotes],
  );
  const totals = useMemo(() => portfolioFigures(symbols, lots, prices), [symbols, lots, prices]);
  const slices = useMemo(() => allocation(symbols, lots, prices), [symbols, lots, prices]);
  // The donut is drawn again only when a symbol or its market value changes, not on every quote.
  const allocationData = useDonut(
    useMemo(() => slices.map((s) => ({ label: s.symbol, value: s.value })), [slices]),
    'label+percent',
  );
  const sectorOf = useCallback((symbol: string) => companies[symbol]?.sector, [companies]);

  return (
    <section className="screen portfolio" aria-labelledby="portfolio-title">
      <div className="portfolio-title">
        <h1 id="portfolio-title">Portfolio</h1>
        {state.matches('ready') && (
          <p className="hint" aria-live="polite">
            {symbols.length === 1 ? '1 symbol' : `${symbols.length} symbols`}
            {state.matches({ ready: 'saving' }) ? ' · saving…' : ' · values at live prices'}
          </p>
        )}
      </div>
      <div className="toolbar">
        <SymbolSearch
          label="Add a symbol to the portfolio"
          placeholder="Symbol or company, e.g. AAPL"
          onPick={addSymbol}
          marked={held}
          markedText="in your portfolio"
        />
      </div>
      {saveError && !errorInCard && (
        <Dismissible message={saveError} className="portfolio-save-error" onDismiss={dismissError} />
      )}
      <LoadState
        loading={state.matches('loading')}
        error={state.matches('failed') ? (error ?? 'The portfolio could not be loaded') : null}
        onRetry={() => send({ type: 'user.retry' })}
        lines={8}
      >
        {symbols.length === 0 ? (
          <Empty>Your portfolio is empty: search a symbol to add it, then add the lots you bought.</Empty>
        ) : (
          <>
            <div className="portfolio-summary">
              <div className="card portfolio-totals" role="group" aria-label="Portfolio totals">
                <h2>Total</h2>
                <dl>
                  <div>
                    <dt>Cost basis</dt>
                    <dd data-testid="total-cost-basis">{formatPrice(totals.costBasis)}</dd>
                  </div>
                  <div>
                    <dt>Market value</dt>
                    <dd data-testid="total-market-value">
                      <PriceFlash value={totals.marketValue}>{formatPrice(totals.marketValue)}</PriceFlash>
                    </dd>
                  </div>
                  <div>
                    <dt>P&amp;L</dt>
                    <dd className={signClass(totals.pnl)} data-testid="total-pnl">
                      {formatSigned(totals.pnl)}
                    </dd>
                  </div>
                  <div>
                    <dt title={PNL_PCT_BASIS}>P&amp;L %</dt>
                    <dd className={signClass(totals.pnlPct)} data-testid="total-pnl-pct">
                      {formatPercent(totals.pnlPct)}
                    </dd>
                  </div>
                </dl>
              </div>
              <div className="card portfolio-allocation">
                <h2>Allocation by market value</h2>
                {slices.length === 0 ? (
                  <Empty>Add lots to see how your money is spread across symbols.</Empty>
                ) : (
                  <StillChart
                    label={`Allocation by market value: ${slices.map((s) => s.symbol).join(', ')}`}
                    height={240}
                    data={allocationData}
                    layout={ALLOCATION_LAYOUT}
                    config={ALLOCATION_CONFIG}
                  />
                )}
              </div>
            </div>
            <div className="positions">
              {symbols.map((symbol) => (
                <PositionCard
                  key={symbol}
                  symbol={symbol}
                  company={companies[symbol]}
                  quote={quotes[symbol]}
                  lots={lots[symbol] ?? []}
                  saving={pending.some((p) => p.symbol === symbol)}
                  confirmingRemoval={confirmingRemoval?.symbol === symbol ? confirmingRemoval : null}
                  onAskRemoveSymbol={askRemoveSymbol}
                  onAskRemoveLot={askRemoveLot}
                  onKeep={keep}
                  onRemoveSymbol={removeSymbol}
                  lotForm={lotForms[symbol] ?? UNUSED_LOT_FORM}
                  onAddLot={addLot}
                  onEditLot={editLot}
                  onRemoveLot={removeLot}
                  saveError={errorInCard && saveErrorSymbol === symbol ? saveError : null}
                  onDismissError={dismissError}
                />
              ))}
            </div>
          </>
        )}
      </LoadState>
      {state.matches('ready') && <TransactionsPanel prices={prices} sectorOf={sectorOf} />}
    </section>
  );
}
