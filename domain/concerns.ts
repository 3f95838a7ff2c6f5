/**
 * The registry of user concerns: each concern a user has a stream of (`<concern>-<userId>`), with the decider
 * that folds it. The audit history, the state at a past moment and the hash-chain verification all walk this
 * list, so registering a concern here is the one change that makes it auditable.
 */
import { ACCOUNT_CONCERN, accountDecider, ACCOUNT_EVENT_TYPES } from './accounts/accounts.ts';
import { ALERTS_CONCERN, alertsDecider, ALERT_EVENT_TYPES } from './alerts/alerts.ts';
import { AUDIT_CONCERN, auditDecider, AUDIT_EVENT_TYPES } from './audit/audit.ts';
import { CHANNELS_CONCERN, channelsDecider, CHANNELS_EVENT_TYPES } from './channels/channels.ts';
import { DELIVERIES_CONCERN, deliveriesDecider, DELIVERIES_EVENT_TYPES } from './deliveries/deliveries.ts';
import { COMPANY_STATS_CONCERN, companyStatsDecider, COMPANY_STATS_EVENT_TYPES } from './companystats/companystats.ts';
import { DASHBOARD_LAYOUT_CONCERN, dashboardLayoutDecider, DASHBOARD_LAYOUT_EVENT_TYPES } from './dashboard/layout.ts';
import {
  DASHBOARD_OPTIONS_CONCERN,
  dashboardOptionsDecider,
  DASHBOARD_OPTIONS_EVENT_TYPES,
} from './dashboard/options.ts';
import { DASHBOARD_STOCKS_CONCERN, dashboardStocksDecider, DASHBOARD_STOCKS_EVENT_TYPES } from './dashboard/stocks.ts';
import type { Decider, DomainEvent } from './decider.ts';
import {
  NOTIFICATIONS_CONCERN,
  notificationsDecider,
  NOTIFICATIONS_EVENT_TYPES,
} from './notifications/notifications.ts';
import { PORTFOLIO_CONCERN, portfolioDecider, PORTFOLIO_EVENT_TYPES } from './portfolio/portfolio.ts';
import { PREDICTIONS_CONCERN, predictionsDecider, PREDICTIONS_EVENT_TYPES } from './prediction/predictions.ts';
import { QUERIES_CONCERN, queriesDecider, QUERIES_EVENT_TYPES } from './queries/queries.ts';
import { SECTORS_CONCERN, sectorsDecider, SECTORS_EVENT_TYPES } from './sectors/sectors.ts';
import { SNAPSHOTS_CONCERN, snapshotsDecider, SNAPSHOTS_EVENT_TYPES } from './snapshots/snapshots.ts';
import { WATCHLIST_CONCERN, watchlistDecider, WATCHLIST_EVENT_TYPES } from './watchlist/watchlist.ts';

/** One user concern: its stream category, its decider, and how screens name it. */
export interface UserConcern {
  /** Concern name: the stream category and the key of its state in audit answers (no dashes). */
  readonly concern: string;
  /** The decider whose `evolve` folds the concern's stream into its state. */
  readonly decider: Decider<never, DomainEvent, unknown>;
  /** Every event type its stream may hold. */
  readonly eventTypes: readonly string[];
  /** A short human name, e.g. `watch list`. */
  readonly label: string;
}

/** Every concern a user has a stream of, in the order screens show them. */
export const USER_CONCERNS: readonly UserConcern[] = Object.freeze([
  { concern: ACCOUNT_CONCERN, decider: accountDecider, eventTypes: ACCOUNT_EVENT_TYPES, label: 'account' },
  { concern: WATCHLIST_CONCERN, decider: watchlistDecider, eventTypes: WATCHLIST_EVENT_TYPES, label: 'watch list' },
  {
    concern: PORTFOLIO_CONCERN,
    decider: portfolioDecider,
    eventTypes: PORTFOLIO_EVENT_TYPES,
    label: 'portfolio and lots',
  },
  { concern: ALERTS_CONCERN, decider: alertsDecider, eventTypes: ALERT_EVENT_TYPES, label: 'alerts' },
  {
    concern: NOTIFICATIONS_CONCERN,
    decider: notificationsDecider,
    eventTypes: NOTIFICATIONS_EVENT_TYPES,
    label: 'notifications read',
  },
  { concern: QUERIES_CONCERN, decider: queriesDecider, eventTypes: QUERIES_EVENT_TYPES, label: 'saved queries' },
  {
    concern: DASHBOARD_LAYOUT_CONCERN,
    decider: dashboardLayoutDecider,
    eventTypes: DASHBOARD_LAYOUT_EVENT_TYPES,
    label: 'dashboard layout',
  },
  {
    concern: DASHBOARD_OPTIONS_CONCERN,
    decider: dashboardOptionsDecider,
    eventTypes: DASHBOARD_OPTIONS_EVENT_TYPES,
    label: 'dashboard options',
  },
  {
    concern: DASHBOARD_STOCKS_CONCERN,
    decider: dashboardStocksDecider,
    eventTypes: DASHBOARD_STOCKS_EVENT_TYPES,
    label: 'dashboard stocks',
  },
  {
    concern: COMPANY_STATS_CONCERN,
    decider: companyStatsDecider,
    eventTypes: COMPANY_STATS_EVENT_TYPES,
    label: 'company statistics',
  },
  { concern: SECTORS_CONCERN, decider: sectorsDecider, eventTypes: SECTORS_EVENT_TYPES, label: 'sectors' },
  {
    concern: SNAPSHOTS_CONCERN,
    decider: snapshotsDecider,
    eventTypes: SNAPSHOTS_EVENT_TYPES,
    label: 'chart snapshots',
  },
  {
    concern: PREDICTIONS_CONCERN,
    decider: predictionsDecider,
    eventTypes: PREDICTIONS_EVENT_TYPES,
    label: 'forecasting models',
  },
  { concern: CHANNELS_CONCERN, decider: channelsDecider, eventTypes: CHANNELS_EVENT_TYPES, label: 'delivery channels' },
  { concern: DELIVERIES_CONCERN, decider: deliveriesDecider, eventTypes: DELIVERIES_EVENT_TYPES, label: 'deliveries' },
  { concern: AUDIT_CONCERN, decider: auditDecider, eventTypes: AUDIT_EVENT_TYPES, label: 'audit reads' },
]);

/** Every event type of every concern. */
export const USER_EVENT_TYPES: ReadonlySet<string> = new Set(USER_CONCERNS.flatMap((c) => c.eventTypes));

/** The registered concern of a name, or undefined. */
export function userConcern(
  concern: string,
  concerns: readonly UserConcern[] = USER_CONCERNS,
): UserConcern | undefined {
  return concerns.find((c) => c.concern === concern);
}
