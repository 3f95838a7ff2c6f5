/**
 * The way an alert waits for the source to go (▲, ▼, or ◆ for a crossing either way or a channel), as the
 * dashboard's panel and the price chart's list mark it beside the condition in the server's words.
 */
import { opDirection } from '../../domain/alerts/conditions.ts';
import type { AlertAnswer } from '../../domain/contract/alerts.ts';

/** The way an alert waits for the source to go: `up`, `down`, or null (crossing either way, a channel). */
export function alertWay(alert: Pick<AlertAnswer, 'kind' | 'alerttype' | 'condition'>): 'up' | 'down' | null {
  if (alert.kind !== 'CONDITION' && alert.alerttype !== null) return alert.alerttype === 'U' ? 'up' : 'down';
  return opDirection(alert.condition.op);
}

/**
 * A text and, after it, an alert's note in quotes (`… — “note”`), or the text alone without a note: what a tooltip
 * or a CSV holds where the note is shown under the text.
 */
export const withNote = (text: string, note: string | null): string =>
  note === null ? text : `${text} — ${quotedNote(note)}`;

/** An alert's note as it is shown: in quotes. */
export const quotedNote = (note: string): string => `“${note}”`;

/** ▲, ▼, or ◆ for a crossing either way or a channel (as the price chart's list of alerts marks them). */
export const wayMark = (way: 'up' | 'down' | null): string => (way === 'up' ? '▲' : way === 'down' ? '▼' : '◆');
