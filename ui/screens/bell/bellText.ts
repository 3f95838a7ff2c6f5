/**
 * The words of a notification as the bell's panel shows them: the type's name, the message as the server wrote
 * it, the spec's indicator (green up for a message with `+`, red down for one with `-`: the sign of the day's
 * change in the alerts' messages; the note, the user's own words, does not count), and the alert's note.
 */
import { notificationTypeName } from '../../../domain/notifications/notifications.ts';
import { withNote } from '../../components/alertWords.ts';
import type { BellNotification } from './bell.machine.ts';

/** The indicator a message reads: `+` up, `-` down (the first found wins, as the spec words it), or none. */
export function messageDirection(message: string): 'up' | 'down' | null {
  if (message.includes('+')) return 'up';
  if (message.includes('-')) return 'down';
  return null;
}

/** What one notification's Alert cell shows. */
export interface BellAlertWords {
  /** The type's name (`Price`, `SMA`, `EMA`, `RSI`, `Volume`, `Change %`). */
  readonly type: string;
  /** The whole message, as the server wrote it. */
  readonly text: string;
  /** The indicator: up (green), down (red), or none. */
  readonly direction: 'up' | 'down' | null;
  /** The alert's note, or null. */
  readonly note: string | null;
  /** The message and the note: the cell's tooltip and what its CSV holds. */
  readonly full: string;
}

/** What a notification's Alert cell shows. */
export function bellAlertWords(
  notification: Pick<BellNotification, 'notificationtype' | 'notifcationmessage' | 'note'>,
): BellAlertWords {
  const text = notification.notifcationmessage;
  const note = notification.note;
  return {
    type: notificationTypeName(notification.notificationtype),
    text,
    direction: messageDirection(text),
    note,
    full: withNote(text, note),
  };
}
