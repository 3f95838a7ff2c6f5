/**
 * Quotes: the price of a symbol now, with its change since the previous close. Routes and sockets read them
 * through {@link QuoteSource}; until live ticks flow, {@link LastCloseQuotes} answers the last daily close.
 */
import type { SymbolSnapshot } from './analysis.ts';
import { closeInstant, round } from './series.ts';
import type { MinuteCandles } from '../../domain/contract/market.ts';
import type { Quote } from '../../domain/market/types.ts';

export type { Quote };

/** The session a live quote's price belongs to: its open and the close its change is measured from. */
export interface SessionOpen {
  /** The price of the session's first tick (the forming bar's open). */
  readonly open: number;
  /** The previous close, or null when the symbol has none. */
  readonly prevClose: number | null;
}

/** Where quotes come from: the last daily bars now, live ticks later. */
export interface QuoteSource {
  /** The quote of a symbol, or undefined when it has none. */
  quote(symbol: string): Quote | undefined;
  /** The quotes of the symbols that have one, in the order asked. */
  quotes(symbols: readonly string[]): Quote[];
  /**
   * The live session of a symbol whose quote is a tick's (its forming bar's open), else undefined; sources of
   * daily closes have none.
   */
  session?(symbol: string): SessionOpen | undefined;
  /** The minute candles of a symbol's live session, when the source keeps them (live quotes); else undefined. */
  minutes?(symbol: string): MinuteCandles | undefined;
}

/** The quote of a latest bar: its close against the previous close, stamped at 16:00 New York on its day. */
export function quoteOfSnapshot(symbol: string, snapshot: SymbolSnapshot): Quote {
  const previous = snapshot.prevClose ?? snapshot.close;
  const change = snapshot.close - previous;
  return {
    symbol,
    price: snapshot.close,
    change: round(change, 4),
    changepct: previous > 0 ? round((change / previous) * 100, 2) : 0,
    volume: snapshot.volume,
    ts: closeInstant(snapshot.date),
    source: 'close',
    open: snapshot.open,
    high: snapshot.high,
    low: snapshot.low,
  };
}

/** Quotes from the latest daily bar of each symbol, computed once. */
export class LastCloseQuotes implements QuoteSource {
  private readonly bySymbol: ReadonlyMap<string, Quote>;

  /** Builds the quotes of the snapshots. */
  constructor(snapshots: ReadonlyMap<string, SymbolSnapshot>) {
    this.bySymbol = new Map([...snapshots].map(([symbol, s]) => [symbol, Object.freeze(quoteOfSnapshot(symbol, s))]));
  }

  /** The quote of a symbol. */
  quote(symbol: string): Quote | undefined {
    return this.bySymbol.get(symbol);
  }

  /** The quotes of symbols, in the order asked, without the unknown ones. */
  quotes(symbols: readonly string[]): Quote[] {
    const out: Quote[] = [];
    for (const symbol of symbols) {
      const q = this.bySymbol.get(symbol);
      if (q !== undefined) out.push(q);
    }
    return out;
  }
}
