/**
 * The dashboard layout: which components each layout of a user's dashboard shows. Toggling a component adds
 * it when absent and removes it when present; a saved list replaces the whole layout.
 */
import { DomainError, type Decider, type DomainEvent, eventTypes, unknownCommand } from '../decider.ts';

/** The concern name of dashboard-layout streams (`dashboardlayout-<userId>`). */
export const DASHBOARD_LAYOUT_CONCERN = 'dashboardlayout';

/** Most layouts a dashboard may hold. */
export const DASHBOARD_LAYOUT_LIMIT = 12;

/** Lowest component id (1 performance chart, 2 stock cards, 3 alerts, 4 movers, 5 latest patterns). */
export const DASHBOARD_COMPONENT_MIN = 1;

/** Highest component id. */
export const DASHBOARD_COMPONENT_MAX = 5;

/** One layout of the dashboard: its id and the ids of the components it shows, in order. */
export interface DashboardLayoutEntry {
  /** Positive whole number, unique within the dashboard. */
  readonly layoutId: number;
  /** Component ids from 1 to 5, each at most once. */
  readonly compId: readonly number[];
}

/** The layout of a dashboard nobody changed yet: layout 1 with component 1, 2 with 2, 3 with 3. */
export const DEFAULT_DASHBOARD_LAYOUT: readonly DashboardLayoutEntry[] = Object.freeze([
  Object.freeze({ layoutId: 1, compId: Object.freeze([1]) }),
  Object.freeze({ layoutId: 2, compId: Object.freeze([2]) }),
  Object.freeze({ layoutId: 3, compId: Object.freeze([3]) }),
]);

/** Replaces the whole layout with a new list. */
export interface SaveDashboardLayout {
  /** Command type. */
  readonly type: 'SaveDashboardLayout';
  /** The payload. */
  readonly data: {
    /** The new layouts, in the order they are shown. */
    readonly layouts: readonly DashboardLayoutEntry[];
  };
}

/** Adds a component to a layout when it is absent, removes it when it is present. */
export interface ToggleDashboardComponent {
  /** Command type. */
  readonly type: 'ToggleDashboardComponent';
  /** The payload. */
  readonly data: {
    /** The layout to change; it must exist. */
    readonly layoutId: number;
    /** The component to toggle. */
    readonly compId: number;
  };
}

/** Every command of the dashboard layout. */
export type DashboardLayoutCommand = SaveDashboardLayout | ToggleDashboardComponent;

/** The whole layout was replaced by a saved list. */
export type DashboardLayoutSaved = DomainEvent<
  'DashboardLayoutSaved',
  { readonly layouts: readonly DashboardLayoutEntry[] }
>;

/** A component was toggled in a layout; `present` tells whether the layout shows it afterwards. */
export type DashboardComponentToggled = DomainEvent<
  'DashboardComponentToggled',
  { readonly layoutId: number; readonly compId: number; readonly present: boolean }
>;

/** Every event of the dashboard layout. */
export type DashboardLayoutEvent = DashboardLayoutSaved | DashboardComponentToggled;

/** Every event type of the dashboard layout concern. */
export const DASHBOARD_LAYOUT_EVENT_TYPES = eventTypes<DashboardLayoutEvent>()(
  'DashboardLayoutSaved',
  'DashboardComponentToggled',
);

/** A user's dashboard layout; the default until the first change. */
export interface DashboardLayoutState {
  /** The layouts, in the order they are shown. */
  readonly layouts: readonly DashboardLayoutEntry[];
}

function shown(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return typeof value === 'number' ? String(value) : typeof value;
}

function parseLayoutId(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new DomainError(
      'invalid_layout',
      `${field} must be a whole number of at least 1, got ${shown(value)}`,
      field,
    );
  }
  return value;
}

function parseComponentId(value: unknown, field: string): number {
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < DASHBOARD_COMPONENT_MIN ||
    value > DASHBOARD_COMPONENT_MAX
  ) {
    throw new DomainError(
      'invalid_component',
      `${field} must be a whole number from ${DASHBOARD_COMPONENT_MIN} to ${DASHBOARD_COMPONENT_MAX}, got ${shown(value)}`,
      field,
    );
  }
  return value;
}

/**
 * Checks a layout list (at most {@link DASHBOARD_LAYOUT_LIMIT} layouts with unique ids, components 1–5 at most
 * once each) and returns a clean copy, throwing a {@link DomainError} naming the field otherwise.
 */
export function parseDashboardLayouts(layouts: unknown, field = 'layouts'): DashboardLayoutEntry[] {
  if (!Array.isArray(layouts)) throw new DomainError('invalid_layout', `${field} must be a list of layouts`, field);
  if (layouts.length > DASHBOARD_LAYOUT_LIMIT) {
    throw new DomainError(
      'limit',
      `${field} holds ${layouts.length} layouts; at most ${DASHBOARD_LAYOUT_LIMIT}`,
      field,
    );
  }
  const ids = new Set<number>();
  return layouts.map((entry: unknown, i) => {
    const at = `${field}[${i}]`;
    if (typeof entry !== 'object' || entry === null) {
      throw new DomainError('invalid_layout', `${at} must be {layoutId, compId}`, at);
    }
    const { layoutId, compId } = entry as { layoutId?: unknown; compId?: unknown };
    const id = parseLayoutId(layoutId, `${at}.layoutId`);
    if (ids.has(id)) throw new DomainError('duplicate', `${at}.layoutId ${id} appears twice`, `${at}.layoutId`);
    ids.add(id);
    if (!Array.isArray(compId)) {
      throw new DomainError('invalid_component', `${at}.compId must be a list of component ids`, `${at}.compId`);
    }
    const components = new Set<number>();
    compId.forEach((value: unknown, j) => {
      const comp = parseComponentId(value, `${at}.compId[${j}]`);
      if (components.has(comp)) {
        throw new DomainError('duplicate', `${at}.compId[${j}] ${comp} appears twice`, `${at}.compId[${j}]`);
      }
      components.add(comp);
    });
    return { layoutId: id, compId: [...components] };
  });
}

function sameLayouts(a: readonly DashboardLayoutEntry[], b: readonly DashboardLayoutEntry[]): boolean {
  return (
    a.length === b.length &&
    a.every(
      (entry, i) =>
        entry.layoutId === b[i]!.layoutId &&
        entry.compId.length === b[i]!.compId.length &&
        entry.compId.every((comp, j) => comp === b[i]!.compId[j]),
    )
  );
}

function decide(command: DashboardLayoutCommand, state: DashboardLayoutState): DashboardLayoutEvent[] {
  switch (command.type) {
    case 'SaveDashboardLayout': {
      const layouts = parseDashboardLayouts(command.data.layouts, 'layouts');
      return sameLayouts(layouts, state.layouts) ? [] : [{ type: 'DashboardLayoutSaved', data: { layouts } }];
    }
    case 'ToggleDashboardComponent': {
      const layoutId = parseLayoutId(command.data.layoutId, 'layoutId');
      const compId = parseComponentId(command.data.compId, 'compId');
      const layout = state.layouts.find((entry) => entry.layoutId === layoutId);
      if (!layout)
        throw new DomainError('not_found', `layoutId ${layoutId} is not a layout of this dashboard`, 'layoutId');
      return [
        { type: 'DashboardComponentToggled', data: { layoutId, compId, present: !layout.compId.includes(compId) } },
      ];
    }
    default:
      throw unknownCommand(command, 'dashboard-layout');
  }
}

function evolve(state: DashboardLayoutState, event: DashboardLayoutEvent): DashboardLayoutState {
  switch (event.type) {
    case 'DashboardLayoutSaved':
      return { layouts: event.data.layouts.map((entry) => ({ layoutId: entry.layoutId, compId: [...entry.compId] })) };
    case 'DashboardComponentToggled': {
      const { layoutId, compId, present } = event.data;
      return {
        layouts: state.layouts.map((entry) => {
          if (entry.layoutId !== layoutId || entry.compId.includes(compId) === present) return entry;
          return {
            layoutId,
            compId: present ? [...entry.compId, compId] : entry.compId.filter((comp) => comp !== compId),
          };
        }),
      };
    }
    default: {
      // An event type this version does not know leaves the state as it is, so replaying the log never fails.
      const _exhaustive: never = event;
      return state;
    }
  }
}

/** The dashboard layout's rules: the default layout, validation, and toggling in an existing layout. */
export const dashboardLayoutDecider: Decider<DashboardLayoutCommand, DashboardLayoutEvent, DashboardLayoutState> = {
  initialState: Object.freeze({ layouts: DEFAULT_DASHBOARD_LAYOUT }),
  decide,
  evolve,
};
