/**
 * Dashboard routes: the layout (save a list, toggle a component), the options (partial changes merged over
 * the defaults) and the dashboard stock list (set, capped at the first 30; add, refused past 30).
 */
import { z } from 'zod';
import {
  DASHBOARD_COMPONENT_MAX,
  DASHBOARD_COMPONENT_MIN,
  DASHBOARD_LAYOUT_CONCERN,
  DASHBOARD_LAYOUT_LIMIT,
  DEFAULT_DASHBOARD_LAYOUT,
  dashboardLayoutDecider,
  type DashboardLayoutState,
} from '../../domain/dashboard/layout.ts';
import {
  DASHBOARD_OPTIONS_CONCERN,
  DASHBOARD_SECTOR_MAX,
  DASHBOARD_SLIDER_MAX,
  DASHBOARD_SLIDER_TYPES,
  DASHBOARD_SUBHEADERS,
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
import { symbolSchema, type SymbolDirectory } from '../http/schemas.ts';
import { inRequestTerms } from '../http/fieldNames.ts';
import { requireKnown } from '../http/schemas.ts';

/** What the dashboard routes need. */
export interface DashboardDeps {
  readonly commands: CommandService;
  readonly readModels: ReadModelStore;
  readonly symbols: SymbolDirectory;
}

/** Most symbols one request to the dashboard stock list may name (the list itself keeps at most 30). */
export const DASHBOARD_STOCKS_REQUEST_MAX = 200;

const layoutConcern = { concern: DASHBOARD_LAYOUT_CONCERN, decider: dashboardLayoutDecider };
const optionsConcern = { concern: DASHBOARD_OPTIONS_CONCERN, decider: dashboardOptionsDecider };
const stocksConcern = { concern: DASHBOARD_STOCKS_CONCERN, decider: dashboardStocksDecider };

const layoutId = z.int().min(1);
const compId = z.int().min(DASHBOARD_COMPONENT_MIN).max(DASHBOARD_COMPONENT_MAX);

const layoutList = z
  .array(z.object({ layoutId, compId: z.array(compId).max(DASHBOARD_COMPONENT_MAX) }))
  .max(DASHBOARD_LAYOUT_LIMIT, `must hold at most ${DASHBOARD_LAYOUT_LIMIT} layouts`)
  .superRefine((layouts, ctx) => {
    const ids = new Set<number>();
    layouts.forEach((layout, i) => {
      if (ids.has(layout.layoutId)) {
        ctx.addIssue({ code: 'custom', message: `layout ${layout.layoutId} appears twice`, path: [i, 'layoutId'] });
      }
      ids.add(layout.layoutId);
      const comps = new Set<number>();
      layout.compId.forEach((comp, j) => {
        if (comps.has(comp)) {
          ctx.addIssue({ code: 'custom', message: `component ${comp} appears twice`, path: [i, 'compId', j] });
        }
        comps.add(comp);
      });
    });
  });

const layoutResponse = z.array(z.object({ layoutId: z.number(), compId: z.array(z.number()) }));

const slider = z.strictObject({
  type: z.enum(DASHBOARD_SLIDER_TYPES),
  val: z.int().min(1).max(DASHBOARD_SLIDER_MAX),
});

const optionsSchema = z.strictObject({
  addstks: z.boolean(),
  subheader: z.enum(DASHBOARD_SUBHEADERS),
  showcarddetail: z.boolean(),
  showcardactions: z.boolean(),
  slider,
  selectedsector: z.int().min(0).max(DASHBOARD_SECTOR_MAX),
  sectorflag: z.boolean(),
});

const stockList = z
  .array(symbolSchema)
  .max(DASHBOARD_STOCKS_REQUEST_MAX, `must name at most ${DASHBOARD_STOCKS_REQUEST_MAX} symbols`);

/** The dashboard routes. */
export function dashboardRoutes(deps: DashboardDeps) {
  return [
    defineRoute({
      method: 'GET',
      path: '/personalize/dashboard',
      summary: "The user's dashboard layout list; the default (1 with [1], 2 with [2], 3 with [3]) when none saved",
      tag: 'dashboard',
      access: 'user',
      response: layoutResponse,
      handle: async ({ userId, ctx }) => {
        const doc = await readDocument<DashboardLayoutState>(deps.readModels, dashboardLayoutProjection, userId);
        markPosition(ctx, doc?.position);
        return doc?.value.layouts ?? DEFAULT_DASHBOARD_LAYOUT;
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/personalize/dashboard',
      summary: `Save the layout list (unique layout ids, components ${DASHBOARD_COMPONENT_MIN}-${DASHBOARD_COMPONENT_MAX} once each, at most ${DASHBOARD_LAYOUT_LIMIT} layouts); answers the saved list`,
      tag: 'dashboard',
      access: 'user',
      body: layoutList,
      response: layoutResponse,
      handle: async ({ body, meta }) => {
        const outcome = await inRequestTerms({ layouts: 'body' }, () =>
          deps.commands.execute(layoutConcern, { type: 'SaveDashboardLayout', data: { layouts: body } }, meta()),
        );
        return outcome.state.layouts;
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/personalize/dashboard/toggle',
      summary: 'Toggle a component in a layout (added when absent, removed when present); answers the layout list',
      tag: 'dashboard',
      access: 'user',
      body: z.strictObject({ layoutId, compId }),
      response: layoutResponse,
      handle: async ({ body, meta }) => {
        const outcome = await inRequestTerms({ layoutId: 'body.layoutId', compId: 'body.compId' }, () =>
          deps.commands.execute(layoutConcern, { type: 'ToggleDashboardComponent', data: body }, meta()),
        );
        return outcome.state.layouts;
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/personalize/dashboardoptions',
      summary: "The user's dashboard options; the defaults when none changed",
      tag: 'dashboard',
      access: 'user',
      response: optionsSchema,
      handle: async ({ userId, ctx }) => {
        const doc = await readDocument<DashboardOptionsState>(deps.readModels, dashboardOptionsProjection, userId);
        markPosition(ctx, doc?.position);
        return doc?.value.options ?? DEFAULT_DASHBOARD_OPTIONS;
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/personalize/dashboardoptions',
      summary: 'Change some dashboard options (the slider is set whole); answers all the options',
      tag: 'dashboard',
      access: 'user',
      body: optionsSchema.partial(),
      response: optionsSchema,
      handle: async ({ body, meta }) => {
        const outcome = await inRequestTerms({ changes: 'body' }, () =>
          deps.commands.execute(optionsConcern, { type: 'ChangeDashboardOptions', data: { changes: body } }, meta()),
        );
        return outcome.state.options;
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/personalize/dashboardstocks',
      summary: "The user's dashboard stock list",
      tag: 'dashboard',
      access: 'user',
      response: z.array(z.string()),
      handle: async ({ userId, ctx }) => {
        const doc = await readDocument<DashboardStocksState>(deps.readModels, dashboardStocksProjection, userId);
        markPosition(ctx, doc?.position);
        return doc?.value.symbols ?? [];
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/personalize/dashboardstocks',
      summary: 'Set the dashboard stock list: repeats dropped, the first 30 kept; answers the list',
      tag: 'dashboard',
      access: 'user',
      body: stockList,
      response: z.array(z.string()),
      handle: async ({ body, meta }) => {
        requireKnown(deps.symbols, body, 'body');
        const outcome = await inRequestTerms({ symbols: 'body' }, () =>
          deps.commands.execute(stocksConcern, { type: 'SetDashboardStocks', data: { symbols: body } }, meta()),
        );
        return outcome.state.symbols;
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/personalize/dashboardstocks/add',
      summary: 'Add symbols to the dashboard stock list (repeats dropped); refused past 30; answers the list',
      tag: 'dashboard',
      access: 'user',
      body: stockList.min(1, 'must name at least one symbol'),
      response: z.array(z.string()),
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
