/**
 * Navigation over the History API: the current location as an external store for React, and `navigate` for
 * the root to provide to machines as a named action.
 */
import { useSyncExternalStore } from 'react';

/** Where the app is. */
export interface Location {
  /** Path, e.g. `/PriceCharts`. */
  readonly path: string;
  /** Query parameters. */
  readonly params: URLSearchParams;
  /** `path` + search, the store's identity. */
  readonly href: string;
}

const listeners = new Set<() => void>();
let current: Location = read();

function read(): Location {
  const { pathname, search } = window.location;
  return { path: pathname, params: new URLSearchParams(search), href: pathname + search };
}

function emit(): void {
  const next = read();
  if (next.href === current.href) return;
  current = next;
  for (const listener of listeners) listener();
}

window.addEventListener('popstate', emit);

/** Goes to a path (with its query); `replace` keeps the history length. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === current.href) return;
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  emit();
  window.scrollTo(0, 0);
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The current location; re-renders on change. */
export function useLocation(): Location {
  return useSyncExternalStore(subscribe, () => current);
}

/** The path of a symbol's price chart. */
export function chartPath(symbol: string): string {
  return `/PriceCharts?stock=${encodeURIComponent(symbol)}`;
}
