/**
 * A live number that flashes briefly when it changes: green when it went up, red when it went down.
 */
import { useEffect, useRef, useState, type ReactNode } from 'react';

/** The flash class for a change from `previous` to `next`, or null when there is nothing to show. */
export function flashClass(
  previous: number | null | undefined,
  next: number | null | undefined,
): 'flash-up' | 'flash-down' | null {
  if (previous === null || previous === undefined || next === null || next === undefined) return null;
  if (!Number.isFinite(previous) || !Number.isFinite(next) || previous === next) return null;
  return next > previous ? 'flash-up' : 'flash-down';
}

/** Shows `children` and flashes when `value` changes. */
export function PriceFlash(props: {
  /** The number whose changes flash. */
  readonly value: number | null | undefined;
  /** What is shown (the formatted value). */
  readonly children: ReactNode;
  /** Classes of the wrapper (e.g. `up` or `down`). */
  readonly className?: string;
}) {
  const previous = useRef(props.value);
  const [flash, setFlash] = useState<{ readonly tone: string; readonly count: number } | null>(null);
  useEffect(() => {
    const tone = flashClass(previous.current, props.value);
    previous.current = props.value;
    if (tone) setFlash((current) => ({ tone, count: (current?.count ?? 0) + 1 }));
  }, [props.value]);
  const className = [props.className, flash?.tone].filter(Boolean).join(' ');
  // A new key restarts the CSS animation on every change.
  return (
    <span key={flash?.count ?? 0} className={className || undefined}>
      {props.children}
    </span>
  );
}
