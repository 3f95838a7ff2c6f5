/**
 * The symbols users need, from the read models: those on a watch list, with an armed alert, or held. A provider
 * stream carries these (and not the whole universe); it asks again on each refresh, so changes are followed.
 */
import type { AlertsState } from '../domain/alerts/alerts.ts';
import type { WatchlistState } from '../domain/watchlist/watchlist.ts';
import type { ReadModelStore } from '../platform/readmodels/port.ts';
import type { PositionLotsDocument } from './positions/positions.projection.ts';
import type { StoredDocument } from './projection.ts';

/** Answers the symbols users need now. */
export interface ReadModelDemand {
  /** The symbols on a watch list, with an armed alert, or held. */
  symbols(): Promise<Set<string>>;
}

/** The demand read from `readModels`. */
export function readModelDemand(readModels: ReadModelStore): ReadModelDemand {
  return {
    symbols: async () => {
      const [watchlists, alerts, lots] = await Promise.all([
        readModels.list<StoredDocument<WatchlistState>>('watchlist'),
        readModels.list<StoredDocument<AlertsState>>('alerts'),
        readModels.list<StoredDocument<PositionLotsDocument>>('positionlots'),
      ]);
      const symbols = new Set<string>();
      for (const { doc } of watchlists) for (const symbol of doc.value.symbols) symbols.add(symbol);
      for (const { doc } of alerts)
        for (const alert of doc.value.alerts) if (alert.status === 'armed') symbols.add(alert.symbol);
      for (const { doc } of lots) if (doc.value.positions.length > 0) symbols.add(doc.value.symbol);
      return symbols;
    },
  };
}
