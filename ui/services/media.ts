/** Media queries as React state. */
import { useCallback, useSyncExternalStore } from 'react';

/** A phone held upright, or a window as narrow: screens lay their tables out for it. */
export const NARROW_QUERY = '(max-width: 640px)';

/** Whether the media query matches now; the component draws again when that changes (a window resized, a turn). */
export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (onChange: () => void) => {
      const list = window.matchMedia(query);
      list.addEventListener('change', onChange);
      return () => list.removeEventListener('change', onChange);
    },
    [query],
  );
  return useSyncExternalStore(
    subscribe,
    () => window.matchMedia(query).matches,
    () => false,
  );
}
