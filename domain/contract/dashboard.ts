/**
 * The dashboard routes of the API: request and answer schemas, shared by the gateway and the web app.
 */
import { z } from './zod.ts';
import { DASHBOARD_COMPONENT_MAX, DASHBOARD_COMPONENT_MIN, DASHBOARD_LAYOUT_LIMIT } from '../dashboard/layout.ts';
import {
  DASHBOARD_SECTOR_MAX,
  DASHBOARD_SLIDER_MAX,
  DASHBOARD_SLIDER_TYPES,
  DASHBOARD_SUBHEADERS,
} from '../dashboard/options.ts';
import { symbolSchema } from './common.ts';
import { route } from './route.ts';

/** Most symbols one request to the dashboard stock list may name (the list itself keeps at most 30). */
export const DASHBOARD_STOCKS_REQUEST_MAX = 200;

const layoutId = z.int().min(1);

const compId = z.int().min(DASHBOARD_COMPONENT_MIN).max(DASHBOARD_COMPONENT_MAX);

const layoutList = z
  .array(z.strictObject({ layoutId, compId: z.array(compId).max(DASHBOARD_COMPONENT_MAX) }))
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
  watchlistflag: z.boolean(),
});

const stockList = z
  .array(symbolSchema)
  .max(DASHBOARD_STOCKS_REQUEST_MAX, `must name at most ${DASHBOARD_STOCKS_REQUEST_MAX} symbols`);

/** The dashboard routes. */
export const dashboardApi = {
  getDashboard: route({
    method: 'GET',
    path: '/personalize/dashboard',
    summary: "The user's dashboard layout list; the default (1 with [1], 2 with [2], 3 with [3]) when none saved",
    tag: 'dashboard',
    access: 'user',
    response: layoutResponse,
  }),
  postDashboard: route({
    method: 'POST',
    path: '/personalize/dashboard',
    summary: `Save the layout list (unique layout ids, components ${DASHBOARD_COMPONENT_MIN}-${DASHBOARD_COMPONENT_MAX} once each, at most ${DASHBOARD_LAYOUT_LIMIT} layouts); answers the saved list`,
    tag: 'dashboard',
    access: 'user',
    body: layoutList,
    response: layoutResponse,
  }),
  postDashboardToggle: route({
    method: 'POST',
    path: '/personalize/dashboard/toggle',
    summary: 'Toggle a component in a layout (added when absent, removed when present); answers the layout list',
    tag: 'dashboard',
    access: 'user',
    body: z.strictObject({ layoutId, compId }),
    response: layoutResponse,
  }),
  getDashboardoptions: route({
    method: 'GET',
    path: '/personalize/dashboardoptions',
    summary: "The user's dashboard options; the defaults when none changed",
    tag: 'dashboard',
    access: 'user',
    response: optionsSchema,
  }),
  postDashboardoptions: route({
    method: 'POST',
    path: '/personalize/dashboardoptions',
    summary: 'Change some dashboard options (the slider is set whole); answers all the options',
    tag: 'dashboard',
    access: 'user',
    body: optionsSchema.partial(),
    response: optionsSchema,
  }),
  getDashboardstocks: route({
    method: 'GET',
    path: '/personalize/dashboardstocks',
    summary: "The user's dashboard stock list",
    tag: 'dashboard',
    access: 'user',
    response: z.array(z.string()),
  }),
  postDashboardstocks: route({
    method: 'POST',
    path: '/personalize/dashboardstocks',
    summary: 'Set the dashboard stock list: repeats dropped, the first 30 kept; answers the list',
    tag: 'dashboard',
    access: 'user',
    body: stockList,
    response: z.array(z.string()),
  }),
  postDashboardstocksAdd: route({
    method: 'POST',
    path: '/personalize/dashboardstocks/add',
    summary: 'Add symbols to the dashboard stock list (repeats dropped); refused past 30; answers the list',
    tag: 'dashboard',
    access: 'user',
    body: stockList.min(1, 'must name at least one symbol'),
    response: z.array(z.string()),
  }),
};
