/**
 * The registry of user concerns: each concern a user has a stream of (`<concern>-<userId>`), with the decider
 * that folds it. The audit history, the state at a past moment and the hash-chain verification all walk this
 * list, so registering a concern here is the one change that makes it auditable.
 */
import { ACCOUNT_CONCERN, accountDecider } from './accounts/accounts.ts';
import { ALERTS_CONCERN, alertsDecider } from './alerts/alerts.ts';
import { AUDIT_CONCERN, auditDecider } from './audit/audit.ts';
import { CHANNELS_CONCERN, channelsDecider } from './channels/channels.ts';
import { DELIVERIES_CONCERN, deliveriesDecider } from './deliveries/deliveries.ts';
import { COMPANY_STATS_CONCERN, companyStatsDecider } from './companystats/companystats.ts';
import { DASHBOARD_LAYOUT_CONCERN, dashboardLayoutDecider } from './dashboard/layout.ts';
import { DASHBOARD_OPTIONS_CONCERN, dashboardOptionsDecider } from './dashboard/options.ts';
import { DASHBOARD_STOCKS_CONCERN, dashboardStocksDecider } from './dashboard/stocks.ts';
import type { Decider, DomainEvent } from './decider.ts';
import { NOTIFICATIONS_CONCERN, notificationsDecider } from './notifications/notifications.ts';
import { PORTFOLIO_CONCERN, portfolioDecider } from './portfolio/portfolio.ts';
import { PREDICTIONS_CONCERN, predictionsDecider } from './prediction/predictions.ts';
import { QUERIES_CONCERN, queriesDecider } from './queries/queries.ts';
import { SECTORS_CONCERN, sectorsDecider } from './sectors/sectors.ts';
import { SNAPSHOTS_CONCERN, snapshotsDecider } from './snapshots/snapshots.ts';
import { WATCHLIST_CONCERN, watchlistDecider } from './watchlist/watchlist.ts';

/** One user concern: its stream category, its decider, and how screens name it. */
export interface UserConcern {
  /** Concern name: the stream category and the key of its state in audit answers (no dashes). */
  readonly concern: string;
  /** The decider whose `evolve` folds the concern's stream into its state. */
  readonly decider: Decider<never, DomainEvent, unknown>;
  /** A short human name, e.g. `watch list`. */
  readonly label: string;
}

/** Every concern a user has a stream of, in the order screens show them. */
export const USER_CONCERNS: readonly UserConcern[] = Object.freeze([
  { concern: ACCOUNT_CONCERN, decider: accountDecider, label: 'account' },
  { concern: WATCHLIST_CONCERN, decider: watchlistDecider, label: 'watch list' },
  { concern: PORTFOLIO_CONCERN, decider: portfolioDecider, label: 'portfolio and lots' },
  { concern: ALERTS_CONCERN, decider: alertsDecider, label: 'alerts' },
  { concern: NOTIFICATIONS_CONCERN, decider: notificationsDecider, label: 'notifications read' },
  { concern: QUERIES_CONCERN, decider: queriesDecider, label: 'saved queries' },
  { concern: DASHBOARD_LAYOUT_CONCERN, decider: dashboardLayoutDecider, label: 'dashboard layout' },
  { concern: DASHBOARD_OPTIONS_CONCERN, decider: dashboardOptionsDecider, label: 'dashboard options' },
  { concern: DASHBOARD_STOCKS_CONCERN, decider: dashboardStocksDecider, label: 'dashboard stocks' },
  { concern: COMPANY_STATS_CONCERN, decider: companyStatsDecider, label: 'company statistics' },
  { concern: SECTORS_CONCERN, decider: sectorsDecider, label: 'sectors' },
  { concern: SNAPSHOTS_CONCERN, decider: snapshotsDecider, label: 'chart snapshots' },
  { concern: PREDICTIONS_CONCERN, decider: predictionsDecider, label: 'forecasting models' },
  { concern: CHANNELS_CONCERN, decider: channelsDecider, label: 'delivery channels' },
  { concern: DELIVERIES_CONCERN, decider: deliveriesDecider, label: 'deliveries' },
  { concern: AUDIT_CONCERN, decider: auditDecider, label: 'audit reads' },
]);

/** The registered concern of a name, or undefined. */
export function userConcern(
  concern: string,
  concerns: readonly UserConcern[] = USER_CONCERNS,
): UserConcern | undefined {
  return concerns.find((c) => c.concern === concern);
}
