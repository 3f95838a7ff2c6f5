/**
 * The machines of the dashboard's panels (components 1, 3, 4 and 5), each a {@link panelWith} with the
 * request it makes and what tells it to read again.
 */
import type { NotificationPush } from '../../../domain/contract/socket.ts';
import type { Quote } from '../../../domain/market/types.ts';
import { get, seg } from '../../services/api.ts';
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
  const answer = await get<{ series: { symbol: string; values: (number | null)[] }[] }>(
    `/api/performance?symbols=${input.symbols.map(seg).join(',')}&months=${input.months}`,
    signal,
  );
  return performanceBars(answer.series);
});

/** A notification as the activity panel lists it. */
export type ActivityNotification = Omit<NotificationPush, 'position'>;

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
      get<CardAlert[]>('/personalize/stockalerts', signal),
      get<ActivityNotification[]>(`/personalize/usernotifications/ALL?limit=${ACTIVITY_NOTIFICATIONS}`, signal),
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

/** A mover: a quote with the company name (`GET /api/market/movers`). */
export interface Mover extends Quote {
  readonly name: string;
}

/** Component 4's document. */
export interface Movers {
  readonly gainers: readonly Mover[];
  readonly losers: readonly Mover[];
  readonly active: readonly Mover[];
}

/** Movers per list. */
export const MOVERS_SHOWN = 5;

/** Milliseconds between two reads of the movers. */
export const MOVERS_REFRESH_MS = 15_000;

/** Component 4: gainers, losers and most active of the universe, read again every few seconds. */
export const moversMachine = panelWith<null, Movers>(
  async (_input, signal) => get<Movers>(`/api/market/movers?limit=${MOVERS_SHOWN}`, signal),
  (notify) => {
    const timer = setInterval(notify, MOVERS_REFRESH_MS);
    return () => clearInterval(timer);
  },
);

/** A stock's latest patterns of one direction (`GET /realtime/stockpatterns/{symbol}`). */
export interface LatestPatterns {
  readonly type: 'bullish' | 'bearish' | 'neutral';
  readonly bullish: boolean | null;
  readonly stock: string;
  readonly date: string;
  readonly patterns: readonly string[];
}

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
      input.symbols.map((symbol) => get<LatestPatterns[]>(`/realtime/stockpatterns/${seg(symbol)}`, signal)),
    );
    return sortLatestPatterns(lists.flat());
  },
);
