/**
 * The words of a notification as the bell's panel shows them: the type's name, the message as the server wrote
 * it, the spec's indicator (green up for a message with `+`, red down for one with `-`: the sign of the day's
 * change in the alerts' messages; the note, the user's own words, does not count), the alert's note, and a
 * warning for each of its deliveries that failed or waits for a retry.
 */
import type { ChannelAnswer, DeliveryAnswer } from '../../../domain/contract/channels.ts';
import { notificationTypeName } from '../../../domain/notifications/notifications.ts';
import { withNote } from '../../components/alertWords.ts';
import { deliveryChannelName, deliveryStatusText } from '../../components/channelWords.ts';
import type { Zone } from '../../services/time.ts';
import { deliveryWarnings, type BellNotification } from './bell.machine.ts';

/** The day's change an alert's message ends with: `(+1.25% on the day)`, `(+, though down 0.50% on the day)`. */
const DAY_CHANGE = /\(([+-]?)[^()]*% on the day\)$/;

/**
 * The indicator a message reads: `+` up, `-` down (the first found wins, as the spec words it), or none. An
 * alert's message carries its sign in the day's change it ends with, and none when that rounds to 0.00%: a `-`
 * of the words before it (`50-day SMA`, `BF-B`, a channel's `-2%`) does not make it a move down.
 */
export function messageDirection(message: string): 'up' | 'down' | null {
  const day = DAY_CHANGE.exec(message);
  if (day) return day[1] === '+' ? 'up' : day[1] === '-' ? 'down' : null;
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

/** A warning under a notification: one of its deliveries, named with its channel and how it stands. */
export interface DeliveryWarning {
  /** The delivery's id. */
  readonly id: string;
  /** Failed for good, or waiting for a retry. */
  readonly status: 'failed' | 'retrying';
  /** In the alert manager's words: `desk (Webhook): failed: answered 503 (6 attempts)`, `…: retrying at 10:05`. */
  readonly text: string;
}

/** A notification as the panel's grid lists it, with the warnings of its deliveries when it has some. */
export type BellRow = BellNotification & { readonly warnings?: readonly DeliveryWarning[] };

/** A delivery's warning; `known` the user's channels, or null (then the channel is named by its kind). */
export function deliveryWarning(
  delivery: DeliveryAnswer,
  known: readonly ChannelAnswer[] | null,
  timeZone: Zone,
): DeliveryWarning {
  return {
    id: delivery.id,
    status: delivery.status === 'failed' ? 'failed' : 'retrying',
    text: `${deliveryChannelName(delivery, known)}: ${deliveryStatusText(delivery, timeZone)}`,
  };
}

/**
 * The grid's rows: each notification with the warnings of its deliveries (joined by the trigger's id), or the
 * notification itself when none of them failed or waits for a retry.
 */
export function bellRows(
  notifications: readonly BellNotification[],
  deliveries: readonly DeliveryAnswer[],
  known: readonly ChannelAnswer[] | null,
  timeZone: Zone,
): readonly BellRow[] {
  const warnings = deliveryWarnings(notifications, deliveries);
  if (warnings.size === 0) return notifications;
  return notifications.map((n) => {
    const troubled = warnings.get(n.id);
    return troubled ? { ...n, warnings: troubled.map((d) => deliveryWarning(d, known, timeZone)) } : n;
  });
}
