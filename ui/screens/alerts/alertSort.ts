/**
 * The alert manager's "Sort by": the orders it offers, each a column of the grid and a direction, so the alerts
 * can be sorted by any of their columns at every width, also by those a narrower layout folds under the condition
 * or into a card (the grid sorts by a hidden column as by a shown one). A click on a header sorts as well; the
 * choice then names the offered order the grid is in, if any.
 */
import type { ApplyColumnStateParams, ColumnState } from 'ag-grid-community';

/** An order "Sort by" offers. */
export interface AlertSort {
  /** The choice's value. */
  readonly key: string;
  /** What the choice says. */
  readonly label: string;
  /** The grid's column it sorts by. */
  readonly colId: string;
  readonly sort: 'asc' | 'desc';
}

/** The orders offered, the grid's first (the latest firing first) at the top. */
export const ALERT_SORTS: readonly AlertSort[] = [
  { key: 'lastfired', label: 'Last fired, newest first', colId: 'lastfired', sort: 'desc' },
  { key: 'symbol', label: 'Symbol, A to Z', colId: 'symbol', sort: 'asc' },
  { key: 'condition', label: 'Condition, A to Z', colId: 'conditiontext', sort: 'asc' },
  { key: 'status', label: 'Status', colId: 'status', sort: 'asc' },
  { key: 'triggers', label: 'Triggers, most first', colId: 'triggercount', sort: 'desc' },
  { key: 'frequency', label: 'Frequency', colId: 'frequency', sort: 'asc' },
  { key: 'expires', label: 'Expires, soonest first', colId: 'expires', sort: 'asc' },
];

/** The offered order a choice names, if any. */
export function alertSortOf(key: string): AlertSort | undefined {
  return ALERT_SORTS.find((sort) => sort.key === key);
}

/** What the grid's `applyColumnState` takes to sort by `sort` alone. */
export function sortState(sort: AlertSort): ApplyColumnStateParams {
  return { state: [{ colId: sort.colId, sort: sort.sort }], defaultState: { sort: null } };
}

/** The offered order the grid's columns are sorted by, or undefined when they are sorted otherwise. */
export function sortOfColumns(columns: readonly ColumnState[]): AlertSort | undefined {
  const sorted = columns.filter((column) => column.sort);
  if (sorted.length !== 1) return undefined;
  const [only] = sorted;
  return ALERT_SORTS.find((sort) => sort.colId === only!.colId && sort.sort === only!.sort);
}

/**
 * Expiry times in order, an alert without one (open-ended) after every one with one: "soonest first" ends with
 * the alerts that never expire. ISO times; equal ones compare 0.
 */
export function compareExpiry(a: string | null | undefined, b: string | null | undefined): number {
  const at = (value: string | null | undefined) => (value ? Date.parse(value) : Number.POSITIVE_INFINITY);
  const [x, y] = [at(a), at(b)];
  return x === y ? 0 : x < y ? -1 : 1;
}
