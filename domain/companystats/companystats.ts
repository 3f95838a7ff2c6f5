/**
 * Company statistics: which fundamentals a user's company pages show, each with how many figures (`limit`,
 * 0 for all) and of which period (`A` annual, `Q` quarterly). Saving a list records what changed as
 * additions, removals by type, modifications and, when only the order differs, a reordering. A list is never
 * empty: when a user has none, the defaults are stored.
 */
import { DomainError, type Decider, type DomainEvent, eventTypes, unknownCommand } from '../decider.ts';

/** The concern name of company-stats streams (`companystats-<userId>`). */
export const COMPANY_STATS_CONCERN = 'companystats';

/** The statistics there are: the fundamentals the market data provides (revenue, gross profit, net income, EPS). */
export const COMPANY_STAT_TYPES = Object.freeze(['revenue', 'grossprofit', 'income', 'earningspershare'] as const);

/** The periods of a statistic: annual or quarterly. */
export const COMPANY_STAT_PERIODS = Object.freeze(['A', 'Q'] as const);

/** Most figures a statistic may ask for; 0 asks for all. */
export const COMPANY_STAT_LIMIT_MAX = 40;

/** A statistic type. */
export type CompanyStatType = (typeof COMPANY_STAT_TYPES)[number];

/** A statistic period. */
export type CompanyStatPeriod = (typeof COMPANY_STAT_PERIODS)[number];

/** One statistic a user follows. */
export interface CompanyStat {
  /** Which fundamental; unique within a list. */
  readonly type: CompanyStatType;
  /** How many figures, newest first; 0 for all. */
  readonly limit: number;
  /** Annual (`A`) or quarterly (`Q`) figures. */
  readonly period: CompanyStatPeriod;
}

/** The statistics of a user who has none: every type, all figures, annual. */
export const DEFAULT_COMPANY_STATS: readonly CompanyStat[] = Object.freeze(
  COMPANY_STAT_TYPES.map((type) => Object.freeze({ type, limit: 0, period: 'A' as const })),
);

/** Replaces the list; the differences become events. */
export interface SaveCompanyStats {
  /** Command type. */
  readonly type: 'SaveCompanyStats';
  /** The payload. */
  readonly data: {
    /** The new list, in the order it is shown; at least one statistic, each type at most once. */
    readonly stats: readonly CompanyStat[];
  };
}

/** Stores the defaults when the user has no statistics; does nothing otherwise. */
export interface StoreDefaultCompanyStats {
  /** Command type. */
  readonly type: 'StoreDefaultCompanyStats';
  /** The payload (none). */
  readonly data: Record<string, never>;
}

/** Every command of the company statistics. */
export type CompanyStatsCommand = SaveCompanyStats | StoreDefaultCompanyStats;

/** A statistic was put at the end of the list. */
export type CompanyStatAdded = DomainEvent<'CompanyStatAdded', CompanyStat>;

/** The statistic of a type was taken off the list. */
export type CompanyStatRemoved = DomainEvent<'CompanyStatRemoved', { readonly type: CompanyStatType }>;

/** The statistic of a type got a new limit or period. */
export type CompanyStatModified = DomainEvent<'CompanyStatModified', CompanyStat>;

/** The list was put in a new order, given as its types. */
export type CompanyStatsReordered = DomainEvent<
  'CompanyStatsReordered',
  { readonly types: readonly CompanyStatType[] }
>;

/** Every event of the company statistics. */
export type CompanyStatsEvent = CompanyStatAdded | CompanyStatRemoved | CompanyStatModified | CompanyStatsReordered;

/** Every event type of the company statistics concern. */
export const COMPANY_STATS_EVENT_TYPES = eventTypes<CompanyStatsEvent>()(
  'CompanyStatAdded',
  'CompanyStatRemoved',
  'CompanyStatModified',
  'CompanyStatsReordered',
);

/** A user's statistics, in the order they are shown; empty only before the defaults are stored. */
export interface CompanyStatsState {
  /** The statistics. */
  readonly stats: readonly CompanyStat[];
}

function invalid(field: string, rule: string, value: unknown): DomainError {
  const got = value === null ? 'null' : typeof value === 'object' ? 'an object' : JSON.stringify(value);
  return new DomainError('invalid_stat', `${field} must be ${rule}, got ${got}`, field);
}

/**
 * Checks a statistics list (1 to {@link COMPANY_STAT_TYPES}.length entries, known types without repeats,
 * limit 0–{@link COMPANY_STAT_LIMIT_MAX}, period `A` or `Q`) and returns a clean copy, throwing a
 * {@link DomainError} naming the field otherwise.
 */
export function parseCompanyStats(stats: unknown, field = 'stats'): CompanyStat[] {
  if (!Array.isArray(stats)) throw new DomainError('invalid_stat', `${field} must be a list of statistics`, field);
  if (stats.length === 0) throw new DomainError('empty', `${field} must hold at least one statistic`, field);
  const types = new Set<CompanyStatType>();
  return stats.map((entry: unknown, i) => {
    const at = `${field}[${i}]`;
    if (typeof entry !== 'object' || entry === null) throw invalid(at, '{type, limit, period}', entry);
    const { type, limit, period } = entry as { type?: unknown; limit?: unknown; period?: unknown };
    if (!COMPANY_STAT_TYPES.includes(type as CompanyStatType)) {
      throw invalid(`${at}.type`, `one of ${COMPANY_STAT_TYPES.join(', ')}`, type);
    }
    if (types.has(type as CompanyStatType)) {
      throw new DomainError('duplicate', `${at}.type ${JSON.stringify(type)} appears twice`, `${at}.type`);
    }
    types.add(type as CompanyStatType);
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0 || limit > COMPANY_STAT_LIMIT_MAX) {
      throw invalid(`${at}.limit`, `a whole number from 0 to ${COMPANY_STAT_LIMIT_MAX}`, limit);
    }
    if (!COMPANY_STAT_PERIODS.includes(period as CompanyStatPeriod)) {
      throw invalid(`${at}.period`, `one of ${COMPANY_STAT_PERIODS.join(', ')}`, period);
    }
    return { type: type as CompanyStatType, limit, period: period as CompanyStatPeriod };
  });
}

function orderOf(stats: readonly CompanyStat[]): string {
  return stats.map((stat) => stat.type).join(',');
}

function decide(command: CompanyStatsCommand, state: CompanyStatsState): CompanyStatsEvent[] {
  switch (command.type) {
    case 'SaveCompanyStats': {
      const wanted = parseCompanyStats(command.data.stats, 'stats');
      const current = new Map(state.stats.map((stat) => [stat.type, stat]));
      const kept = new Set(wanted.map((stat) => stat.type));
      const events: CompanyStatsEvent[] = state.stats
        .filter((stat) => !kept.has(stat.type))
        .map((stat) => ({ type: 'CompanyStatRemoved', data: { type: stat.type } }));
      for (const stat of wanted) {
        const before = current.get(stat.type);
        if (!before) events.push({ type: 'CompanyStatAdded', data: stat });
        else if (before.limit !== stat.limit || before.period !== stat.period) {
          events.push({ type: 'CompanyStatModified', data: stat });
        }
      }
      const after = events.reduce(evolve, state);
      if (orderOf(after.stats) !== orderOf(wanted)) {
        events.push({ type: 'CompanyStatsReordered', data: { types: wanted.map((stat) => stat.type) } });
      }
      return events;
    }
    case 'StoreDefaultCompanyStats':
      return state.stats.length > 0
        ? []
        : DEFAULT_COMPANY_STATS.map((stat) => ({ type: 'CompanyStatAdded', data: { ...stat } }));
    default:
      throw unknownCommand(command, 'company-stats');
  }
}

function evolve(state: CompanyStatsState, event: CompanyStatsEvent): CompanyStatsState {
  switch (event.type) {
    case 'CompanyStatAdded':
    case 'CompanyStatModified': {
      const { type, limit, period } = event.data;
      const stat = { type, limit, period };
      // An addition of a type already listed updates it in place, and a modification of a missing one adds it.
      return state.stats.some((s) => s.type === type)
        ? { stats: state.stats.map((s) => (s.type === type ? stat : s)) }
        : { stats: [...state.stats, stat] };
    }
    case 'CompanyStatRemoved':
      return { stats: state.stats.filter((stat) => stat.type !== event.data.type) };
    case 'CompanyStatsReordered': {
      const rank = new Map(event.data.types.map((type, i) => [type, i]));
      const unranked = event.data.types.length;
      return {
        stats: state.stats
          .map((stat, i) => ({ stat, key: rank.get(stat.type) ?? unranked + i }))
          .sort((a, b) => a.key - b.key)
          .map(({ stat }) => stat),
      };
    }
    default: {
      // An event type this version does not know leaves the state as it is, so replaying the log never fails.
      const _exhaustive: never = event;
      return state;
    }
  }
}

/** The company statistics' rules: validation, the defaults, and a saved list recorded as its differences. */
export const companyStatsDecider: Decider<CompanyStatsCommand, CompanyStatsEvent, CompanyStatsState> = {
  initialState: Object.freeze({ stats: Object.freeze([]) }),
  decide,
  evolve,
};
