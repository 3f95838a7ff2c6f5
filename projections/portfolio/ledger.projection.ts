import { PORTFOLIO_EVENT_TYPES, portfolioDecider, type PortfolioState } from '../../domain/portfolio/portfolio.ts';
import { deciderProjection } from '../projection.ts';

/** What the ledger read model holds of a user: the portfolio's state, transactions and closed lots included. */
export type LedgerDocument = PortfolioState;

/**
 * `GET /api/portfolio/ledger`, the CSV exports and the performance: each user's transactions, open lots and
 * closed parts of lots, folded with the portfolio decider's own `evolve` (lots added directly fold in as buys,
 * or sells for short lots).
 */
export const ledgerProjection = deciderProjection('portfolioledger', 1, portfolioDecider, PORTFOLIO_EVENT_TYPES);
