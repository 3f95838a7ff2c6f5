/**
 * The dashboard options: how the dashboard looks (sub-header, card details and actions), the period of its
 * charts (the slider) and the sector it shows. A change names only the options it sets; the rest keep their
 * values, which start at the product's defaults.
 */
import { DomainError, type Decider, type DomainEvent, eventTypes } from '../decider.ts';

/** The concern name of dashboard-options streams (`dashboardoptions-<userId>`). */
export const DASHBOARD_OPTIONS_CONCERN = 'dashboardoptions';

/** The sub-header styles a dashboard offers. */
export const DASHBOARD_SUBHEADERS = Object.freeze(['basic', 'detailed'] as const);

/** The slider's units: days, weeks, months, years. */
export const DASHBOARD_SLIDER_TYPES = Object.freeze(['D', 'W', 'M', 'Y'] as const);

/** Most units the slider may span. */
export const DASHBOARD_SLIDER_MAX = 60;

/** Highest selected-sector index (0 up to 11: the 11 sectors of the universe and one more slot). */
export const DASHBOARD_SECTOR_MAX = 11;

/** A sub-header style. */
export type DashboardSubheader = (typeof DASHBOARD_SUBHEADERS)[number];

/** A slider unit. */
export type DashboardSliderType = (typeof DASHBOARD_SLIDER_TYPES)[number];

/** The period of the dashboard's charts: `val` units of `type`, e.g. 3 months. */
export interface DashboardSlider {
  /** The unit. */
  readonly type: DashboardSliderType;
  /** How many units, 1 to {@link DASHBOARD_SLIDER_MAX}. */
  readonly val: number;
}

/** Every option of the dashboard. */
export interface DashboardOptions {
  /** Whether the "add stocks" card is shown. */
  readonly addstks: boolean;
  /** The sub-header style. */
  readonly subheader: DashboardSubheader;
  /** Whether stock cards show their details. */
  readonly showcarddetail: boolean;
  /** Whether stock cards show their actions. */
  readonly showcardactions: boolean;
  /** The period of the charts. */
  readonly slider: DashboardSlider;
  /** The index of the selected sector, 0 to {@link DASHBOARD_SECTOR_MAX}. */
  readonly selectedsector: number;
  /** Whether the dashboard stock list follows the selected sector. */
  readonly sectorflag: boolean;
  /** Whether the dashboard stock list follows the watch list (its first 30, as it changes). */
  readonly watchlistflag: boolean;
}

/** The options of a dashboard nobody changed yet, as the product specifies them. */
export const DEFAULT_DASHBOARD_OPTIONS: DashboardOptions = Object.freeze({
  addstks: true,
  subheader: 'basic',
  showcarddetail: true,
  showcardactions: true,
  slider: Object.freeze({ type: 'M', val: 3 }),
  selectedsector: 0,
  sectorflag: false,
  watchlistflag: false,
});

/** The names of the options, in the order they are listed. */
export const DASHBOARD_OPTION_NAMES: readonly (keyof DashboardOptions)[] = Object.freeze(
  Object.keys(DEFAULT_DASHBOARD_OPTIONS) as (keyof DashboardOptions)[],
);

/** Sets some options; those not named keep their values. */
export interface ChangeDashboardOptions {
  /** Command type. */
  readonly type: 'ChangeDashboardOptions';
  /** The payload. */
  readonly data: {
    /** The options to set; the slider is set whole. */
    readonly changes: Partial<DashboardOptions>;
  };
}

/** Every command of the dashboard options. */
export type DashboardOptionsCommand = ChangeDashboardOptions;

/** Some options took new values; `changes` holds only those that differ from before. */
export type DashboardOptionsChanged = DomainEvent<
  'DashboardOptionsChanged',
  { readonly changes: Partial<DashboardOptions> }
>;

/** Every event of the dashboard options. */
export type DashboardOptionsEvent = DashboardOptionsChanged;

/** Every event type of the dashboard options concern. */
export const DASHBOARD_OPTIONS_EVENT_TYPES = eventTypes<DashboardOptionsEvent>()('DashboardOptionsChanged');

/** A user's dashboard options; the defaults until the first change. */
export interface DashboardOptionsState {
  /** The options. */
  readonly options: DashboardOptions;
}

function invalid(field: string, rule: string, value: unknown): DomainError {
  const got = value === null ? 'null' : typeof value === 'object' ? 'an object' : JSON.stringify(value);
  return new DomainError('invalid_option', `${field} must be ${rule}, got ${got}`, field);
}

function parseBoolean(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw invalid(field, 'true or false', value);
  return value;
}

function parseSlider(value: unknown, field: string): DashboardSlider {
  if (typeof value !== 'object' || value === null) throw invalid(field, '{type, val}', value);
  const { type, val, ...rest } = value as { type?: unknown; val?: unknown };
  const extra = Object.keys(rest)[0];
  if (extra !== undefined) {
    throw new DomainError('invalid_option', `${field}.${extra} is not a slider field (type, val)`, `${field}.${extra}`);
  }
  if (!DASHBOARD_SLIDER_TYPES.includes(type as DashboardSliderType)) {
    throw invalid(`${field}.type`, `one of ${DASHBOARD_SLIDER_TYPES.join(', ')}`, type);
  }
  if (typeof val !== 'number' || !Number.isInteger(val) || val < 1 || val > DASHBOARD_SLIDER_MAX) {
    throw invalid(`${field}.val`, `a whole number from 1 to ${DASHBOARD_SLIDER_MAX}`, val);
  }
  return { type: type as DashboardSliderType, val };
}

/**
 * Checks a partial options object field by field and returns a clean copy, throwing a {@link DomainError}
 * naming the field (e.g. `changes.slider.val`) for an unknown option or a value outside its rule.
 */
export function parseDashboardOptionChanges(changes: unknown, field = 'changes'): Partial<DashboardOptions> {
  if (typeof changes !== 'object' || changes === null || Array.isArray(changes)) {
    throw new DomainError('invalid_option', `${field} must be an object of options`, field);
  }
  const parsed: { -readonly [K in keyof DashboardOptions]?: DashboardOptions[K] } = {};
  for (const [name, value] of Object.entries(changes)) {
    const at = `${field}.${name}`;
    switch (name) {
      case 'addstks':
      case 'showcarddetail':
      case 'showcardactions':
      case 'sectorflag':
      case 'watchlistflag':
        parsed[name] = parseBoolean(value, at);
        break;
      case 'subheader':
        if (!DASHBOARD_SUBHEADERS.includes(value as DashboardSubheader)) {
          throw invalid(at, `one of ${DASHBOARD_SUBHEADERS.join(', ')}`, value);
        }
        parsed.subheader = value as DashboardSubheader;
        break;
      case 'slider':
        parsed.slider = parseSlider(value, at);
        break;
      case 'selectedsector':
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > DASHBOARD_SECTOR_MAX) {
          throw invalid(at, `a whole number from 0 to ${DASHBOARD_SECTOR_MAX}`, value);
        }
        parsed.selectedsector = value;
        break;
      default:
        throw new DomainError(
          'invalid_option',
          `${at} is not a dashboard option (${DASHBOARD_OPTION_NAMES.join(', ')})`,
          at,
        );
    }
  }
  return parsed;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const x = a as DashboardSlider;
    const y = b as DashboardSlider;
    return x.type === y.type && x.val === y.val;
  }
  return a === b;
}

function decide(command: DashboardOptionsCommand, state: DashboardOptionsState): DashboardOptionsEvent[] {
  switch (command.type) {
    case 'ChangeDashboardOptions': {
      const requested = parseDashboardOptionChanges(command.data.changes, 'changes');
      const changes = Object.fromEntries(
        DASHBOARD_OPTION_NAMES.filter(
          (name) => name in requested && !sameValue(requested[name], state.options[name]),
        ).map((name) => [name, requested[name]]),
      ) as Partial<DashboardOptions>;
      return Object.keys(changes).length === 0 ? [] : [{ type: 'DashboardOptionsChanged', data: { changes } }];
    }
    default: {
      const _exhaustive: never = command.type;
      throw new DomainError(
        'unknown_command',
        `type ${JSON.stringify(_exhaustive)} is not a dashboard-options command`,
        'type',
      );
    }
  }
}

function evolve(state: DashboardOptionsState, event: DashboardOptionsEvent): DashboardOptionsState {
  switch (event.type) {
    case 'DashboardOptionsChanged': {
      const known = Object.fromEntries(
        DASHBOARD_OPTION_NAMES.filter((name) => name in event.data.changes).map((name) => [
          name,
          name === 'slider' ? { ...event.data.changes.slider } : event.data.changes[name],
        ]),
      );
      return { options: { ...state.options, ...known } };
    }
    default: {
      // An event type this version does not know leaves the state as it is, so replaying the log never fails.
      const _exhaustive: never = event.type;
      return state;
    }
  }
}

/** The dashboard options' rules: the defaults, a rule per option, and changes that record only differences. */
export const dashboardOptionsDecider: Decider<DashboardOptionsCommand, DashboardOptionsEvent, DashboardOptionsState> = {
  initialState: Object.freeze({ options: DEFAULT_DASHBOARD_OPTIONS }),
  decide,
  evolve,
};
