import type { PortfolioEvent } from '../../domain/portfolio/portfolio.ts';
import type { Lot } from '../../domain/positions/lots.ts';
import { afterClosings, type Closing } from '../../domain/portfolio/transactions.ts';
import { userKey, type Projection } from '../projection.ts';

/** What the position-lots read model holds of one symbol of one user. */
export interface PositionLotsDocument {
  /** The symbol. */
  readonly symbol: string;
  /** Its lots, in the order they were added. */
  readonly positions: readonly Lot[];
}

/** The key of the document of one symbol of one user: `<userId>/<symbol>` (neither contains `/`). */
export function positionLotsKey(userId: string, symbol: string): string {
  return `${userId}/${symbol}`;
}

/**
 * `GET /personalize/userPositions/{symbol}`: the lots of each symbol of each user, one document per user and
 * symbol, deleted when its last lot or its symbol goes.
 */
export const positionLotsProjection: Projection<PositionLotsDocument> = {
  name: 'positionlots',
  version: 2,
  handles: [
    'PositionLotAdded',
    'PositionLotRemoved',
    'SymbolRemovedFromPortfolio',
    'SharesBought',
    'SharesSold',
    'TradesRematched',
  ] satisfies PortfolioEvent['type'][],
  key: (event) => {
    const userId = userKey(event);
    const { symbol } = event.data as { symbol?: unknown };
    return userId === null || typeof symbol !== 'string' ? null : positionLotsKey(userId, symbol);
  },
  evolve: (doc, event) => {
    const positions = doc?.positions ?? [];
    switch (event.type as PortfolioEvent['type']) {
      case 'PositionLotAdded': {
        const { symbol, lot } = event.data as { symbol: string; lot: Lot };
        if (positions.some((held) => held.id === lot.id)) return doc ?? null;
        const copy = { id: lot.id, date: lot.date, close: lot.close, position: lot.position };
        return { symbol, positions: [...positions, copy] };
      }
      case 'PositionLotRemoved': {
        const { symbol, id } = event.data as { symbol: string; id: string };
        const left = positions.filter((held) => held.id !== id);
        return left.length === 0 ? null : { symbol, positions: left };
      }
      case 'SymbolRemovedFromPortfolio':
        return null;
      // A trade closes parts of open lots and opens one with the rest, whose id is the transaction's.
      case 'SharesBought':
      case 'SharesSold': {
        const { symbol, transaction, closings, opened } = event.data as {
          symbol: string;
          transaction: { id: string; date: string; price: number };
          closings: readonly Closing[];
          opened: number;
        };
        if (positions.some((held) => held.id === transaction.id)) return doc ?? null;
        const left = afterClosings(positions, closings);
        if (opened !== 0)
          left.push({ id: transaction.id, date: transaction.date, close: transaction.price, position: opened });
        return left.length === 0 ? null : { symbol, positions: left };
      }
      // A back-dated trade matched the symbol's trades again: these are its open lots now.
      case 'TradesRematched': {
        const { symbol, lots } = event.data as { symbol: string; lots: readonly Lot[] };
        return lots.length === 0 ? null : { symbol, positions: lots.map((l) => ({ ...l })) };
      }
      default:
        return doc ?? null;
    }
  },
};
