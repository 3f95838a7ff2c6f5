/**
 * Short confirmations and failures shown at the bottom of the screen ("NVDA added to your watch list").
 */
import { useSyncExternalStore } from 'react';

/** One message. */
export interface Toast {
  readonly id: number;
  readonly text: string;
  readonly tone: 'info' | 'error';
}

let toasts: readonly Toast[] = [];
let nextId = 1;
const listeners = new Set<() => void>();

function emit(): void {
  for (const listener of listeners) listener();
}

/** Shows a message for a few seconds. */
export function showToast(text: string, tone: Toast['tone'] = 'info'): void {
  const toast = { id: nextId++, text, tone };
  toasts = [...toasts.slice(-3), toast];
  emit();
  setTimeout(() => {
    toasts = toasts.filter((t) => t.id !== toast.id);
    emit();
  }, 4000);
}

/** The messages shown now. */
export function useToasts(): readonly Toast[] {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => toasts,
  );
}
