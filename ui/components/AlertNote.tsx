/**
 * An alert's note where it is shown under a condition or a message (the manager, its history, the bell, the
 * dashboard): in quotes, in a span of the screen's class; nothing for an alert without one.
 */
import { quotedNote } from './alertWords.ts';

export function AlertNote({ note, className }: { readonly note: string | null; readonly className: string }) {
  return note === null ? null : <span className={className}>{quotedNote(note)}</span>;
}
