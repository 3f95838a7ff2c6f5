/**
 * The line icons of the top bar and the screens' small buttons.
 */
import type { ReactNode } from 'react';

/**
 * A line icon drawn on a 24 × 24 grid in the text's colour, `size` pixels square, hidden from assistive
 * technology (the button holding it carries the label).
 */
export function StrokeIcon(props: { readonly size: number; readonly children: ReactNode }) {
  return (
    <svg
      aria-hidden="true"
      width={props.size}
      height={props.size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
    >
      {props.children}
    </svg>
  );
}
