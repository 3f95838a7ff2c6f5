/**
 * A notification in the bell's Alert column: the spec's indicator (green ▲ for `+` in the message, red ▼ for
 * `-`), the type's name and the whole message, wrapping, with the message as its tooltip too.
 */
import { AlertNote } from '../../components/AlertNote.tsx';
import { bellAlertWords } from './bellText.ts';
import type { BellNotification } from './bell.machine.ts';

/** One notification's indicator, type and message. */
export function BellAlert({ notification }: { readonly notification: BellNotification }) {
  const words = bellAlertWords(notification);
  return (
    <span className="bell-alert" title={words.full}>
      {words.direction === 'up' && (
        <span className="indicator up" role="img" aria-label="up">
          ▲
        </span>
      )}
      {words.direction === 'down' && (
        <span className="indicator down" role="img" aria-label="down">
          ▼
        </span>
      )}
      <span className="bell-type">{words.type}</span>
      <span className="bell-message">
        {words.text}
        <AlertNote note={words.note} className="bell-note" />
      </span>
    </span>
  );
}
