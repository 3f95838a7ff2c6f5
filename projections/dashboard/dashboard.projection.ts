/**
 * The dashboard's read models, one per query: its layout, its options and its stock list, each folded with
 * the decider's own `evolve`, so the query side and the command side cannot disagree.
 */
import {
  dashboardLayoutDecider,
  type DashboardLayoutEvent,
  type DashboardLayoutState,
} from '../../domain/dashboard/layout.ts';
import {
  dashboardOptionsDecider,
  type DashboardOptionsEvent,
  type DashboardOptionsState,
} from '../../domain/dashboard/options.ts';
import {
  dashboardStocksDecider,
  type DashboardStocksEvent,
  type DashboardStocksState,
} from '../../domain/dashboard/stocks.ts';
import { deciderProjection, type Projection } from '../projection.ts';

/** `GET /personalize/dashboard`: each user's layout list (absent until the first change: the default). */
export const dashboardLayoutProjection: Projection<DashboardLayoutState> = deciderProjection(
  'dashboardlayout',
  1,
  dashboardLayoutDecider,
  ['DashboardLayoutSaved', 'DashboardComponentToggled'] satisfies DashboardLayoutEvent['type'][],
);

/** `GET /personalize/dashboardoptions`: each user's options (absent until the first change: the defaults). */
export const dashboardOptionsProjection: Projection<DashboardOptionsState> = deciderProjection(
  'dashboardoptions',
  1,
  dashboardOptionsDecider,
  ['DashboardOptionsChanged'] satisfies DashboardOptionsEvent['type'][],
);

/** `GET /personalize/dashboardstocks`: each user's dashboard stock list. */
export const dashboardStocksProjection: Projection<DashboardStocksState> = deciderProjection(
  'dashboardstocks',
  1,
  dashboardStocksDecider,
  ['DashboardStocksSet', 'DashboardStockAdded'] satisfies DashboardStocksEvent['type'][],
);
