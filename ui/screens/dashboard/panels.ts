/**
 * The machines of the dashboard's panels (components 1, 3, 4 and 5), each a {@link panelWith} with the
 * request it makes and what tells it to read again.
 */
import { alertsApi } from '../../../domain/contract/alerts.ts';
import { marketApi } from '../../../domain/contract/market.ts';
import { moversApi, type Mover, type Movers } from '../../../domain/contract/movers.ts';
import { notificationsApi, type NotificationAnswer } from '../../../domain/contract/notifications.ts';
import { patternsApi, type LatestPatterns } from '../../../domain/contract/patterns.ts';
import { call } from '../../services/api.ts';
import { live } from '../../services/live.ts';
import type { CardAlert } from './card.machine.ts';
import { performanceBars } from './dashboard.logic.ts';
import { panelWith } from './panel.machine.ts';

/** The input of the performance chart: the shown stocks and the slider's months. */
export interface PerformanceInput {
  readonly symbols: readonly string[];
  readonly months: number;
}

/** One bar of the performance chart. */
export interface PerformanceBar {
  readonly symbol: string;
  readonly pct: number;
}

/** Component 1: the % change of each shown stock over the slider's period, highest first. */
export const performanceMachine = panelWith<PerformanceInput, PerformanceBar[]>(async (input, signal) => {
  if (input.symbols.length === 0) return [];
  const answer = await call(marketApi.getPerformance, {
    query: { symbols: input.symbols.join(','), months: input.months },
    signal,
  });
  return performanceBars(answer.series);
});

/** A notification as the activity panel lists it. */
export type ActivityNotification = NotificationAnswer;

/** Component 3's document: the user's alerts and the newest notifications. */
export interface Activity {
  readonly alerts: readonly CardAlert[];
  readonly notifications: readonly ActivityNotification[];
}

/** Notifications the activity panel lists. */
export const ACTIVITY_NOTIFICATIONS = 8;

/** The read models whose change the activity panel follows. */
export const ACTIVITY_READ_MODELS: readonly string[] = Object.freeze(['alerts', 'notifications']);

/** Component 3: the user's alerts and recent notifications, read again when an alert fires or changes. */
export const activityMachine = panelWith<null, Activity>(
  async (_input, signal) => {
    const [alerts, notifications] = await Promise.all([
      call(alertsApi.getStockalerts, { signal }),
      call(notificationsApi.getUsernotificationsByType, {
        params: { type: 'ALL' },
        query: { limit: ACTIVITY_NOTIFICATIONS },
        signal,
      }),
    ]);
    return { alerts, notifications };
  },
  (notify) => {
    const offPush = live.onNotification(() => notify());
    const offChange = live.onReadModelChanged((change) => {
      if (ACTIVITY_READ_MODELS.includes(change.name)) notify();
    });
    return () => {
      offPush();
      offChange();
    };
  },
);

export type { LatestPatterns, Mover, Movers };

/** Movers per list. */
export const MOVERS_SHOWN = 5;

/** Milliseconds between two reads of the movers. */
export const MOVERS_REFRESH_MS = 15_000;

/** Component 4: gainers, losers and most active of the universe, read again every few seconds. */
export const moversMachine = panelWith<null, Movers>(
  async (_input, signal) => call(moversApi.getMarketMovers, { query: { limit: MOVERS_SHOWN }, signal }),
  (notify) => {
    const timer = setInterval(notify, MOVERS_REFRESH_MS);
    return () => clearInterval(timer);
  },
);

/** The latest patterns of stocks, newest date first, then by symbol and direction. */
export function sortLatestPatterns(groups: readonly LatestPatterns[]): LatestPatterns[] {
  const order = { bullish: 0, bearish: 1, neutral: 2 };
  return [...groups].sort(
    (a, b) =>
      (a.date < b.date ? 1 : a.date > b.date ? -1 : 0) ||
      (a.stock < b.stock ? -1 : a.stock > b.stock ? 1 : 0) ||
      order[a.type] - order[b.type],
  );
}

/** Component 5: the latest patterns detected on each shown stock. */
export const patternsMachine = panelWith<{ readonly symbols: readonly string[] }, LatestPatterns[]>(
  async (input, signal) => {
    const lists = await Promise.all(
      input.symbols.map((symbol) => call(patternsApi.getRealtimeStockpatternsBySymbol, { params: { symbol }, signal })),
    );
    return sortLatestPatterns(lists.flat());
  },
);
