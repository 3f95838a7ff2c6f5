/**
 * Keyboard use of grid cells that hold links or buttons: Tab from the focused cell enters its controls and
 * moves through them before the grid moves on to the next cell.
 */
import type { SuppressKeyboardEventParams } from 'ag-grid-community';

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled])';

/** `suppressKeyboardEvent` of a column with controls: true while Tab should move within the cell. */
export function tabWithinCell(params: Pick<SuppressKeyboardEventParams, 'event'>): boolean {
  const { event } = params;
  if (event.key !== 'Tab') return false;
  const target = event.target instanceof HTMLElement ? event.target : null;
  const cell = target?.closest<HTMLElement>('.ag-cell');
  if (!target || !cell) return false;
  const controls = [...cell.querySelectorAll<HTMLElement>(FOCUSABLE)];
  if (controls.length === 0) return false;
  if (target === cell) return !event.shiftKey;
  const index = controls.indexOf(target);
  if (index === -1) return false;
  return event.shiftKey ? index > 0 : index < controls.length - 1;
}
