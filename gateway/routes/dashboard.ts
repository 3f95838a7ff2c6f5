/**
 * Dashboard routes: the layout (save a list, toggle a component), the options (partial changes merged over
 * the defaults) and the dashboard stock list (set, capped at the first 30; add, refused past 30).
 */
import { dashboardApi } from '../../domain/contract/dashboard.ts';
import {
  DASHBOARD_LAYOUT_CONCERN,
  DEFAULT_DASHBOARD_LAYOUT,
  dashboardLayoutDecider,
  type DashboardLayoutState,
} from '../../domain/dashboard/layout.ts';
import {
  DASHBOARD_OPTIONS_CONCERN,
  DEFAULT_DASHBOARD_OPTIONS,
  dashboardOptionsDecider,
  type DashboardOptionsState,
} from '../../domain/dashboard/options.ts';
import {
  DASHBOARD_STOCKS_CONCERN,
  dashboardStocksDecider,
  type DashboardStocksState,
} from '../../domain/dashboard/stocks.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import {
  dashboardLayoutProjection,
  dashboardOptionsProjection,
  dashboardStocksProjection,
} from '../../projections/dashboard/dashboard.projection.ts';
import { readDocument } from '../../projections/projection.ts';
import type { CommandService } from '../commands.ts';
import { defineRoute, markPosition } from '../http/route.ts';
import { type SymbolDirectory } from '../http/schemas.ts';
import { inRequestTerms } from '../http/fieldNames.ts';
import { requireKnown } from '../http/schemas.ts';

/** What the dashboard routes need. */
export interface DashboardDeps {
  readonly commands: CommandService;
  readonly readModels: ReadModelStore;
  readonly symbols: SymbolDirectory;
}

const layoutConcern = { concern: DASHBOARD_LAYOUT_CONCERN, decider: dashboardLayoutDecider };
const optionsConcern = { concern: DASHBOARD_OPTIONS_CONCERN, decider: dashboardOptionsDecider };
const stocksConcern = { concern: DASHBOARD_STOCKS_CONCERN, decider: dashboardStocksDecider };

/** The dashboard routes. */
export function dashboardRoutes(deps: DashboardDeps) {
  return [
    defineRoute({
      ...dashboardApi.getDashboard,
      handle: async ({ userId, ctx }) => {
        const doc = await readDocument<DashboardLayoutState>(deps.readModels, dashboardLayoutProjection, userId);
        markPosition(ctx, doc?.position);
        return doc?.value.layouts ?? DEFAULT_DASHBOARD_LAYOUT;
      },
    }),
    defineRoute({
      ...dashboardApi.postDashboard,
      handle: async ({ body, meta }) => {
        const outcome = await inRequestTerms({ layouts: 'body' }, () =>
          deps.commands.execute(layoutConcern, { type: 'SaveDashboardLayout', data: { layouts: body } }, meta()),
        );
        return outcome.state.layouts;
      },
    }),
    defineRoute({
      ...dashboardApi.postDashboardToggle,
      handle: async ({ body, meta }) => {
        const outcome = await inRequestTerms({ layoutId: 'body.layoutId', compId: 'body.compId' }, () =>
          deps.commands.execute(layoutConcern, { type: 'ToggleDashboardComponent', data: body }, meta()),
        );
        return outcome.state.layouts;
      },
    }),
    defineRoute({
      ...dashboardApi.getDashboardoptions,
      handle: async ({ userId, ctx }) => {
        const doc = await readDocument<DashboardOptionsState>(deps.readModels, dashboardOptionsProjection, userId);
        markPosition(ctx, doc?.position);
        // An option added since a user's options were last folded reads as its default.
        return { ...DEFAULT_DASHBOARD_OPTIONS, ...doc?.value.options };
      },
    }),
    defineRoute({
      ...dashboardApi.postDashboardoptions,
      handle: async ({ body, meta }) => {
        const outcome = await inRequestTerms({ changes: 'body' }, () =>
          deps.commands.execute(optionsConcern, { type: 'ChangeDashboardOptions', data: { changes: body } }, meta()),
        );
        return outcome.state.options;
      },
    }),
    defineRoute({
      ...dashboardApi.getDashboardstocks,
      handle: async ({ userId, ctx }) => {
        const doc = await readDocument<DashboardStocksState>(deps.readModels, dashboardStocksProjection, userId);
        markPosition(ctx, doc?.position);
        return doc?.value.symbols ?? [];
      },
    }),
    defineRoute({
      ...dashboardApi.postDashboardstocks,
      handle: async ({ body, meta }) => {
        requireKnown(deps.symbols, body, 'body');
        const outcome = await inRequestTerms({ symbols: 'body' }, () =>
          deps.commands.execute(stocksConcern, { type: 'SetDashboardStocks', data: { symbols: body } }, meta()),
        );
        return outcome.state.symbols;
      },
    }),
    defineRoute({
      ...dashboardApi.postDashboardstocksAdd,
      handle: async ({ body, meta }) => {
        requireKnown(deps.symbols, body, 'body');
        const outcome = await inRequestTerms({ symbols: 'body' }, () =>
          deps.commands.execute(stocksConcern, { type: 'AddDashboardStocks', data: { symbols: body } }, meta()),
        );
        return outcome.state.symbols;
      },
    }),
  ];
}
