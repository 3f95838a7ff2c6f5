/**
 * Closing a popup the way every menu and panel of the top bar and the dashboard does: Escape or a pointer
 * down outside it.
 */
import { useEffect, useRef } from 'react';

/**
 * Calls `close` while `open` on Escape (then, with `refocus`, focuses the first button inside, the one that
 * opened it) and on a pointer down outside the returned ref's element.
 */
export function useDismiss(open: boolean, close: () => void, refocus = false) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        close();
        if (refocus) ref.current?.querySelector<HTMLButtonElement>('button')?.focus();
      }
    };
    const onPointer = (event: PointerEvent) => {
      if (ref.current && !ref.current.contains(event.target as Node)) close();
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('pointerdown', onPointer);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('pointerdown', onPointer);
    };
  }, [open, close, refocus]);
  return ref;
}
