/**
 * The symbols users need, from the read models: those on a dashboard, a watch list or in a portfolio, with an armed
 * alert, or held. A provider stream carries these (and not the whole universe); it asks again on each refresh, so
 * changes are followed.
 */
import type { DashboardStocksState } from '../domain/dashboard/stocks.ts';
import type { WatchlistState } from '../domain/watchlist/watchlist.ts';
import type { ReadModelStore } from '../platform/readmodels/port.ts';
import type { AlertDocument } from './alerts/alerts.projection.ts';
import type { PortfolioDocument } from './portfolio/portfolio.projection.ts';
import type { PositionLotsDocument } from './positions/positions.projection.ts';
import type { StoredDocument } from './projection.ts';

/** Answers the symbols users need now. */
export interface ReadModelDemand {
  /** The symbols on a dashboard, a watch list or in a portfolio, with an armed alert, or held. */
  symbols(): Promise<Set<string>>;
}

/**
 * The demand read from `readModels`. The symbols with an armed alert come from `armedSymbols` when given (the alert
 * engine's index, which holds them in memory), else from the alerts read model, whose every document (one per
 * alert) is then read on each call.
 */
export function readModelDemand(readModels: ReadModelStore, armedSymbols?: () => Iterable<string>): ReadModelDemand {
  return {
    symbols: async () => {
      const [dashboards, watchlists, portfolios, alerts, lots] = await Promise.all([
        readModels.list<StoredDocument<DashboardStocksState>>('dashboardstocks'),
        readModels.list<StoredDocument<WatchlistState>>('watchlist'),
        readModels.list<StoredDocument<PortfolioDocument>>('portfolio'),
        armedSymbols ? [] : readModels.list<StoredDocument<AlertDocument>>('alerts'),
        readModels.list<StoredDocument<PositionLotsDocument>>('positionlots'),
      ]);
      const symbols = new Set<string>();
      for (const list of [dashboards, watchlists, portfolios])
        for (const { doc } of list) for (const symbol of doc.value.symbols) symbols.add(symbol);
      if (armedSymbols) for (const symbol of armedSymbols()) symbols.add(symbol);
      for (const { doc } of alerts) if (doc.value.alert.status === 'armed') symbols.add(doc.value.alert.symbol);
      for (const { doc } of lots) if (doc.value.positions.length > 0) symbols.add(doc.value.symbol);
      return symbols;
    },
  };
}
