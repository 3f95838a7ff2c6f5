/**
 * A notification in the bell's Alert column: the spec's indicator (green ▲ for `+` in the message, red ▼ for
 * `-`), the type's name and the whole message, wrapping, with the message as its tooltip too; under it the
 * alert's note, and a warning line for each delivery that failed or waits for a retry.
 */
import { AlertNote } from '../../components/AlertNote.tsx';
import { bellAlertWords, type BellRow } from './bellText.ts';

/** One notification's indicator, type and message, and the warnings of its deliveries. */
export function BellAlert({ notification }: { readonly notification: BellRow }) {
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
        {notification.warnings?.map((warning) => (
          <span key={warning.id} className={`bell-delivery bell-delivery-${warning.status}`} role="note">
            <span aria-hidden="true">⚠ </span>
            {warning.text}
          </span>
        ))}
      </span>
    </span>
  );
}
