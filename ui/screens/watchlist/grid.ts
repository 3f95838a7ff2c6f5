/**
 * How the watch list grid follows the machine: the rows that changed between two of its states, which the grid
 * takes as one transaction (a batch of quotes redraws only the cells whose values moved, not the screen), and the
 * columns' order and widths for the window's width.
 */
import type { WatchlistRow } from './watchlist.machine.ts';

/**
 * Up to this many rows the grid is as tall as its rows, the page scrolling; beyond, it has a height of its own and
 * scrolls within it, drawing only the rows in view (200 rows all drawn, each with its live cells, took seconds to
 * show and kept the page from drawing while the quotes came).
 */
export const AUTO_HEIGHT_ROWS = 30;

/** What the grid is given to go from the rows it shows to the machine's: a transaction, or every row again. */
export type RowChanges =
  | {
      readonly add: WatchlistRow[];
      readonly remove: WatchlistRow[];
      readonly update: WatchlistRow[];
    }
  | { readonly rows: WatchlistRow[] };

const sameRow = (a: WatchlistRow, b: WatchlistRow) =>
  a.name === b.name &&
  a.sector === b.sector &&
  a.price === b.price &&
  a.change === b.change &&
  a.changepct === b.changepct &&
  a.marketcap === b.marketcap &&
  a.volume === b.volume &&
  a.saving === b.saving;

/**
 * The changes from the rows shown to the next rows, by symbol: rows added (at the end, as the list adds them),
 * removed, and those whose figures changed; every row again when the rows kept changed order (a list read again);
 * null when nothing changed.
 */
export function rowChanges(shown: readonly WatchlistRow[], next: readonly WatchlistRow[]): RowChanges | null {
  const before = new Map(shown.map((row) => [row.symbol, row]));
  const after = new Set(next.map((row) => row.symbol));
  const kept = next.filter((row) => before.has(row.symbol));
  const keptBefore = shown.filter((row) => after.has(row.symbol));
  const add = next.filter((row) => !before.has(row.symbol));
  // A transaction adds rows at the end: any other order is given whole.
  const inOrder = kept.every((row, i) => row.symbol === keptBefore[i]?.symbol && next[i] === row);
  if (!inOrder) return { rows: [...next] };
  const remove = shown.filter((row) => !after.has(row.symbol));
  const update = kept.filter((row) => !sameRow(before.get(row.symbol)!, row));
  return add.length + remove.length + update.length === 0 ? null : { add, remove, update };
}

/** The grid's columns. */
export type WatchlistColumn =
  'symbol' | 'name' | 'sector' | 'price' | 'change' | 'changepct' | 'marketcap' | 'volume' | 'actions';

/** Where a column goes in a layout: its width, or a share of the room left (`flex`) with a least width. */
export interface ColumnPlace {
  readonly id: WatchlistColumn;
  readonly width: number;
  readonly flex?: number;
}

const WIDE: readonly ColumnPlace[] = [
  { id: 'symbol', width: 120 },
  { id: 'name', width: 180, flex: 1 },
  { id: 'sector', width: 190 },
  { id: 'price', width: 110 },
  { id: 'change', width: 100 },
  { id: 'changepct', width: 110 },
  { id: 'marketcap', width: 120 },
  { id: 'volume', width: 110 },
  { id: 'actions', width: 130 },
];

/**
 * A phone held upright (390 px): symbol, price, change and % change first, narrow enough to fit its width with
 * the page's margins (with the cells' narrower padding, {@link NARROW_CELL_PADDING}), then the remove button and
 * the rest, which the grid scrolls sideways to.
 */
const NARROW: readonly ColumnPlace[] = [
  { id: 'symbol', width: 88 },
  { id: 'price', width: 80 },
  { id: 'change', width: 80 },
  { id: 'changepct', width: 96 },
  { id: 'actions', width: 120 },
  { id: 'name', width: 180 },
  { id: 'sector', width: 170 },
  { id: 'marketcap', width: 110 },
  { id: 'volume', width: 100 },
];

/** The padding at each end of a cell on a phone held upright, in pixels ("1,234.56" and "% Change" fit then). */
export const NARROW_CELL_PADDING = 8;

/** The columns in the order a layout shows them, with their widths: `narrow` for a phone held upright. */
export function columnPlaces(narrow: boolean): readonly ColumnPlace[] {
  return narrow ? NARROW : WIDE;
}
