/**
 * Portfolio transaction routes: record a buy, sell, dividend or fee; read the ledger; import a transaction
 * file (preview, then commit all or nothing); export transactions and positions as CSV; performance over time.
 */
import type { Context } from 'koa';
import { portfolioApi, IMPORT_BODY_LIMIT } from '../../domain/contract/portfolio.ts';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../../domain/ids.ts';
import {
  GENERIC_COLUMNS,
  lotsCell,
  previewImport,
  type ImportJudgement,
} from '../../domain/portfolio/importFormats.ts';
import { performanceSeries } from '../../domain/portfolio/performance.ts';
import { portfolioPnl } from '../../domain/portfolio/pnl.ts';
import { PORTFOLIO_CONCERN, lotsOf, portfolioDecider, type PortfolioState } from '../../domain/portfolio/portfolio.ts';
import type { Transaction } from '../../domain/portfolio/transactions.ts';
import type { MarketData } from '../../engine/market/marketData.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { ledgerProjection } from '../../projections/portfolio/ledger.projection.ts';
import { readDocument } from '../../projections/projection.ts';
import type { CommandService } from '../commands.ts';
import { ApiError } from '../errors.ts';
import { isDomainError } from '../../domain/decider.ts';
import { inRequestTerms } from '../http/fieldNames.ts';
import { keptDocumentAnswer } from '../http/keptAnswer.ts';
import { defineRoute, markPosition } from '../http/route.ts';
import { requireSymbol } from '../http/schemas.ts';
import { marketTime, readCsv, writeCsv } from '../portfolio/csv.ts';

/** What the portfolio transaction routes need. */
export interface PortfolioLedgerDeps {
  readonly commands: CommandService;
  readonly readModels: ReadModelStore;
  readonly market: Pick<MarketData, 'has' | 'calendar' | 'closesOn' | 'equalWeightIndex' | 'quotes'>;
}

const concern = { concern: PORTFOLIO_CONCERN, decider: portfolioDecider };

/** The id of a transaction a request records: derived from the command id, so a retried request gives the same. */
export function transactionIdFor(commandId: string): string {
  return uuidV5(`${commandId}/transaction/0`, STOCKPULSE_NAMESPACE);
}

/**
 * The ledger as the routes answer it: the transactions by trade date, oldest first, those of one date in the order
 * recorded (the state keeps them in the order recorded, so an older trade recorded later would come last).
 */
function ledgerAnswer(state: PortfolioState) {
  const transactions = [...state.transactions].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  return { symbols: state.symbols, lots: state.lots, transactions, closings: state.closings };
}

/**
 * What a sale left open beyond the long lots it closed: the quantity sold, the long quantity it closed and the
 * short lot it opened (its id is the sale's), or undefined when the sale opened none or none is open any more.
 */
function opensShort(state: PortfolioState, t: Transaction) {
  if (t.kind !== 'sell') return undefined;
  const lot = lotsOf(state, t.symbol).find((l) => l.id === t.id && l.position < 0);
  if (!lot) return undefined;
  const closed = state.closings.filter((c) => c.transactionId === t.id).reduce((sum, c) => sum + c.quantity, 0);
  return { sold: t.quantity, held: Number(closed.toFixed(6)), short: -lot.position };
}

async function readLedger(deps: PortfolioLedgerDeps, userId: string, ctx: Context): Promise<PortfolioState> {
  const doc = await readDocument<PortfolioState>(deps.readModels, ledgerProjection, userId);
  markPosition(ctx, doc?.position);
  return doc?.value ?? portfolioDecider.initialState;
}

function counts(judgement: ImportJudgement) {
  const out = { new: 0, duplicate: 0, skipped: 0, refused: 0 };
  for (const row of judgement.rows) out[row.verdict]++;
  return out;
}

function attachment(ctx: Context, name: string): void {
  ctx.type = 'text/csv; charset=utf-8';
  ctx.set('Content-Disposition', `attachment; filename="${name}"`);
  ctx.set('Cache-Control', 'no-store');
}

/** A refusal of the import command, restated as the line of the file whose row it is about. */
function inFileTerms(error: unknown, judgement: ImportJudgement): unknown {
  if (!isDomainError(error)) return error;
  const index = /^transactions\[(\d+)\]/.exec(error.field ?? '')?.[1];
  const id = index === undefined ? undefined : judgement.toRecord[Number(index)]?.id;
  const row = judgement.rows.find((r) => r.transaction?.id === id);
  const message = error.message.replace(/^transactions\[\d+\][.\s]?/, '');
  return new ApiError(400, 'bad_request', `body.csv: ${row ? `line ${row.line}: ` : ''}${message}`);
}

/** Whole months from a date to the market's last day, rounded up, so a month window starts on or before it. */
function monthsSince(from: string, to: string): number {
  const [fy, fm] = from.split('-').map(Number) as [number, number];
  const [ty, tm] = to.split('-').map(Number) as [number, number];
  return Math.min(60, Math.max(1, (ty - fy) * 12 + (tm - fm) + 1));
}

/** The portfolio transaction, import, export and performance routes. */
export function portfolioLedgerRoutes(deps: PortfolioLedgerDeps) {
  const judge = async (
    userId: string,
    ctx: Context,
    body: { format: 'auto' | ImportJudgement['format']; csv: string },
  ) => {
    const state = await readLedger(deps, userId, ctx);
    // A file in another format is refused naming the field the file came in.
    return inRequestTerms({ csv: 'body.csv' }, () =>
      Promise.resolve(
        previewImport(readCsv(body.csv), {
          format: body.format,
          state,
          at: new Date().toISOString(),
          known: (symbol) => deps.market.has(symbol),
        }),
      ),
    );
  };
  return [
    defineRoute({
      ...portfolioApi.postPortfolioTransactions,
      handle: async ({ body, meta }) => {
        requireSymbol(deps.market, body.symbol, 'body.symbol');
        const m = meta();
        const transaction = {
          ...body,
          ...(body.kind === 'buy' || body.kind === 'sell' ? { fee: body.fee ?? 0 } : {}),
          id: transactionIdFor(m.commandId),
        } as Transaction;
        const outcome = await inRequestTerms({ 'transactions[0]': 'body', transactions: 'body' }, () =>
          deps.commands.execute(
            concern,
            { type: 'RecordTransactions', data: { transactions: [transaction], at: m.at } },
            m,
          ),
        );
        const short = opensShort(outcome.state, transaction);
        return { ...ledgerAnswer(outcome.state), ...(short ? { opensShort: short } : {}) };
      },
    }),
    defineRoute({
      ...portfolioApi.getPortfolioLedger,
      // Kept as sent until the user's ledger changes: a long ledger is megabytes of JSON to derive again.
      handle: ({ userId }) =>
        keptDocumentAnswer(deps.readModels, ledgerProjection, userId, (ledger: PortfolioState | undefined) =>
          ledgerAnswer(ledger ?? portfolioDecider.initialState),
        ),
    }),
    defineRoute({
      ...portfolioApi.postPortfolioImportPreview,
      bodyLimit: IMPORT_BODY_LIMIT,
      handle: async ({ body, userId, ctx }) => {
        const judgement = await judge(userId, ctx, body);
        return { format: judgement.format, rows: judgement.rows, counts: counts(judgement) };
      },
    }),
    defineRoute({
      ...portfolioApi.postPortfolioImport,
      bodyLimit: IMPORT_BODY_LIMIT,
      handle: async ({ body, userId, ctx, meta }) => {
        const judgement = await judge(userId, ctx, body);
        const refused = judgement.rows.find((row) => row.verdict === 'refused');
        if (refused) {
          const where = refused.column === null ? '' : `, column ${refused.column}`;
          throw new ApiError(
            400,
            'bad_request',
            `body.csv: line ${refused.line}${where}: ${refused.message ?? 'refused'}`,
          );
        }
        if (judgement.toRecord.length > 0) {
          const m = meta();
          // Judged on the read model; the command decides again on the stream, so a row refused there is refused here.
          await deps.commands
            .execute(concern, { type: 'RecordTransactions', data: { transactions: judgement.toRecord, at: m.at } }, m)
            .catch((error: unknown) => {
              throw inFileTerms(error, judgement);
            });
        }
        return { format: judgement.format, counts: counts(judgement) };
      },
    }),
    defineRoute({
      ...portfolioApi.getPortfolioExportTransactions,
      handle: async ({ userId, ctx }) => {
        const ledger = await readLedger(deps, userId, ctx);
        attachment(ctx, 'transactions.csv');
        // In the ledger's order, so the file reads as the list does.
        return writeCsv(
          GENERIC_COLUMNS,
          ledgerAnswer(ledger).transactions.map((t) =>
            t.kind === 'dividend' || t.kind === 'fee'
              ? [t.id, t.date, t.kind, t.symbol, null, null, null, t.amount, null]
              : [
                  t.id,
                  t.date,
                  t.kind,
                  t.symbol,
                  t.quantity,
                  t.price,
                  t.fee,
                  null,
                  lotsCell(t.kind === 'sell' ? t.lots : []),
                ],
          ),
        );
      },
    }),
    defineRoute({
      ...portfolioApi.getPortfolioExportPositions,
      handle: async ({ userId, ctx }) => {
        const ledger = await readLedger(deps, userId, ctx);
        // The quotes the portfolio screen values the lots at: live once ticks flow, else the last close.
        const prices: Record<string, number> = {};
        const priceAt: Record<string, string | null> = {};
        for (const quote of deps.market.quotes.quotes(ledger.symbols)) {
          prices[quote.symbol] = quote.price;
          priceAt[quote.symbol] = marketTime(quote.ts);
        }
        const pnl = portfolioPnl(ledger, prices);
        const lotsBySymbol = new Map<string, (typeof pnl.lots)[number][]>();
        for (const lot of pnl.lots) {
          const held = lotsBySymbol.get(lot.symbol);
          if (held) held.push(lot);
          else lotsBySymbol.set(lot.symbol, [lot]);
        }
        attachment(ctx, 'positions.csv');
        return writeCsv(
          [
            'symbol',
            'lot',
            'date',
            'price',
            'quantity',
            'cost',
            'marketPrice',
            'priceAt',
            'value',
            'unrealized',
            'realized',
            'dividends',
            'fees',
            'total',
          ],
          [
            // Each symbol's lots, then its total row, as a spreadsheet reads a position.
            ...pnl.symbols.flatMap((s) => [
              ...(lotsBySymbol.get(s.symbol) ?? []).map((l) => [
                l.symbol,
                l.id,
                l.date,
                l.price,
                l.quantity,
                l.cost,
                prices[l.symbol] ?? null,
                priceAt[l.symbol] ?? null,
                l.value,
                l.unrealized,
                null,
                null,
                null,
                null,
              ]),
              [
                s.symbol,
                'total',
                null,
                null,
                s.quantity,
                s.cost,
                prices[s.symbol] ?? null,
                priceAt[s.symbol] ?? null,
                s.value,
                s.unrealized,
                s.realized,
                s.dividends,
                s.fees,
                s.total,
              ],
            ]),
            [
              '',
              'portfolio',
              null,
              null,
              null,
              pnl.total.cost,
              null,
              null,
              pnl.total.value,
              pnl.total.unrealized,
              pnl.total.realized,
              pnl.total.dividends,
              pnl.total.fees,
              pnl.total.total,
            ],
          ],
        );
      },
    }),
    defineRoute({
      ...portfolioApi.getPortfolioPerformance,
      handle: async ({ query, userId, ctx }) => {
        const benchmark = query.benchmark;
        if (benchmark !== 'EW') requireSymbol(deps.market, benchmark, 'query.benchmark');
        const ledger = await readLedger(deps, userId, ctx);
        const closesOf = (symbol: string, dates: readonly string[]) =>
          deps.market.has(symbol) ? deps.market.closesOn(symbol, dates) : dates.map(() => null);
        const series = performanceSeries({
          transactions: ledger.transactions,
          calendar: deps.market.calendar,
          closes: closesOf,
          benchmark: (dates) => {
            if (benchmark !== 'EW') return closesOf(benchmark, dates);
            if (dates.length === 0) return [];
            const byDate = deps.market.equalWeightIndex(monthsSince(dates[0]!, dates[dates.length - 1]!));
            return dates.map((d) => byDate.get(d) ?? null);
          },
        });
        return {
          benchmark,
          dates: series.dates,
          value: series.value,
          twr: series.twr,
          benchmarkReturn: series.benchmark,
        };
      },
    }),
  ];
}
