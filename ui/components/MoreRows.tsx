/**
 * A long table drawn a page at a time: its first rows, then as many more at each press of "Show more". A portfolio
 * of thousands of lots and transactions would otherwise lay out every row again each time a live price moves, and
 * the screen would freeze for seconds at a time.
 */
import { useCallback, useState } from 'react';
import { formatQuantity } from '../../domain/format.ts';

/** The number of rows a table shows, `step` at first, and the action that shows `step` more. */
export function useRowLimit(step: number): readonly [number, () => void] {
  const [limit, setLimit] = useState(step);
  const more = useCallback(() => setLimit((n) => n + step), [step]);
  return [limit, more];
}

/**
 * Under a table showing `shown` of its `total` rows: how many it shows, and a button that shows the next ones;
 * nothing once every row is shown.
 */
export function MoreRows(props: {
  readonly shown: number;
  readonly total: number;
  /** What the rows are, plural: `transactions`, `lots`. */
  readonly noun: string;
  /** How many more rows the button shows. */
  readonly step: number;
  readonly onMore: () => void;
}) {
  if (props.shown >= props.total) return null;
  const next = Math.min(props.step, props.total - props.shown);
  return (
    <p className="more-rows hint" role="status">
      Showing {formatQuantity(props.shown)} of {formatQuantity(props.total)} {props.noun}.{' '}
      <button type="button" className="small" onClick={props.onMore}>
        Show {formatQuantity(next)} more
      </button>
    </p>
  );
}
