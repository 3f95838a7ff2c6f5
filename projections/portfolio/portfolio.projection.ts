import type { PortfolioEvent } from '../../domain/portfolio/portfolio.ts';
import type { Projection } from '../projection.ts';

/** What the portfolio read model holds of a user: the symbols only (the lots have their own read model). */
export interface PortfolioDocument {
  /** The symbols, oldest first, without duplicates. */
  readonly symbols: readonly string[];
}

/** `GET /api/userstkpositions`: each user's portfolio symbols. */
export const portfolioProjection: Projection<PortfolioDocument> = {
  name: 'portfolio',
  version: 1,
  handles: [
    'SymbolAddedToPortfolio',
    'SymbolRemovedFromPortfolio',
    'PositionLotAdded',
  ] satisfies PortfolioEvent['type'][],
  evolve: (doc, event) => {
    const symbols = doc?.symbols ?? [];
    const { symbol } = event.data as { symbol?: unknown };
    if (typeof symbol !== 'string') return doc ?? null;
    switch (event.type as PortfolioEvent['type']) {
      // A lot's symbol is added to the portfolio by an event of its own; folding it here too keeps this total.
      case 'SymbolAddedToPortfolio':
      case 'PositionLotAdded':
        return symbols.includes(symbol) ? { symbols } : { symbols: [...symbols, symbol] };
      case 'SymbolRemovedFromPortfolio':
        return { symbols: symbols.filter((s) => s !== symbol) };
      default:
        return doc ?? null;
    }
  },
};
