/**
 * At each session close, the bars of the symbols imported from a provider are refreshed from it: the day
 * closes on the tick bus (one per trading day, by the calendar) each start a refresh, one after another.
 */
import type { ClosedDay, TickBus } from '../../platform/bus/port.ts';
import type { AlpacaDataOptions } from './alpacaBars.ts';
import { refreshProviderBars, type RefreshResult } from './providerImport.ts';
import type { MarketStore } from './store.ts';

/** Options of {@link refreshBarsAtClose}. */
export interface BarRefreshOptions {
  /** Where the day closes are published. */
  readonly bus: TickBus;
  /** The market store the bars are written to. */
  readonly store: MarketStore;
  /** The provider's REST API. */
  readonly api: AlpacaDataOptions;
  /** A refresh done: the closed day and what it wrote. */
  readonly onRefreshed?: (date: string, result: RefreshResult) => void;
  /** A refresh that failed (the provider refused, an invalid answer): nothing was written. */
  readonly onError?: (date: string, error: unknown) => void;
}

/** Refreshes the provider symbols' bars after each day close on the bus; answers how to stop. */
export function refreshBarsAtClose(options: BarRefreshOptions): { ready: Promise<void>; stop(): Promise<void> } {
  let chain: Promise<void> = Promise.resolve();
  let stopped = false;
  const refresh = (day: ClosedDay): void => {
    chain = chain.then(async () => {
      if (stopped) return;
      try {
        const result = await refreshProviderBars(options.store, options.api, day.date);
        if (!stopped) options.onRefreshed?.(day.date, result);
      } catch (error) {
        options.onError?.(day.date, error);
      }
    });
  };
  const subscription = options.bus.subscribe({ onTicks: () => undefined, onDayClosed: refresh });
  return {
    ready: subscription.ready,
    stop: async () => {
      stopped = true;
      await subscription.unsubscribe();
      await chain;
    },
  };
}
