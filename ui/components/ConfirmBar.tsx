/**
 * The question a destructive action asks before it is sent, in place: what goes with it, the action, and Keep.
 * Keep has the focus (the choice that loses nothing), and Escape keeps too; keeping gives the focus back to what
 * had it when the bar opened (the button that asked), when that is still on the page.
 */
import { useState, type ReactNode } from 'react';

export function ConfirmBar(props: {
  /** The dialog's accessible name ("Delete Tech?"). */
  readonly title: string;
  /** What the action takes with it, in words. */
  readonly question: ReactNode;
  /** The action's button ("Remove AAPL"). */
  readonly confirm: string;
  readonly onConfirm: () => void;
  readonly onKeep: () => void;
  /** A class besides `confirm-bar`, for its place on the screen. */
  readonly className?: string;
}) {
  // Read while rendering the bar the first time, before Keep takes the focus.
  const [opener] = useState(() => document.activeElement);
  const keep = () => {
    if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
    props.onKeep();
  };
  return (
    <div
      className={props.className === undefined ? 'confirm-bar' : `confirm-bar ${props.className}`}
      role="alertdialog"
      aria-label={props.title}
      onKeyDown={(event) => {
        if (event.key === 'Escape') keep();
      }}
    >
      <span>{props.question}</span>
      <button type="button" className="button danger small" onClick={props.onConfirm}>
        {props.confirm}
      </button>
      <button type="button" className="button small" autoFocus onClick={keep}>
        Keep
      </button>
    </div>
  );
}
