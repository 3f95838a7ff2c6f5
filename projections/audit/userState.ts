/**
 * A user's state as it was at a past moment: each registered concern's stream folded with that concern's own
 * decider (`fold`: its `evolve`, or its `evolveAll` where it has one), the same fold the command side uses, over
 * the user's events up to the moment.
 */
import { fold } from '../../domain/decider.ts';
import {
  comparePositions,
  formatPosition,
  type LogPosition,
  type RecordedEvent,
} from '../../platform/eventstore/port.ts';
import { lastInstantOf } from '../../domain/contract/audit.ts';
import { eventTime } from '../projection.ts';
import { redact, type UserHistory } from './userHistory.ts';

/** Where to stop: a time (the state as it stood then) or a log position (inclusive); now when neither. */
export type StateCut = { readonly at: string } | { readonly position: LogPosition } | null;

/** A user's state at a moment: each concern's state by concern name, and what was folded. */
export interface UserStateAt {
  /** Each registered concern's state (secrets redacted), keyed by concern name. */
  readonly states: Readonly<Record<string, unknown>>;
  /** The position of the last event folded, or null when none was. */
  readonly through: string | null;
  /** How many events were folded. */
  readonly eventCount: number;
}

/**
 * The events a cut keeps: by position, every event at or before it; by time, the longest run of the user's
 * events in log order recorded at or before that time, so an event recorded later is never shown although
 * its command was issued earlier (the state is one that really existed).
 */
export function eventsUpTo(history: UserHistory, cut: StateCut): readonly RecordedEvent[] {
  if (cut === null) return history.events;
  if ('position' in cut) {
    const end = history.events.findIndex((e) => comparePositions(e.position, cut.position) > 0);
    return end < 0 ? history.events : history.events.slice(0, end);
  }
  const limit = lastInstantOf(cut.at);
  const end = history.events.findIndex((e) => Date.parse(eventTime(e)) > limit);
  return end < 0 ? history.events : history.events.slice(0, end);
}

/** Folds each registered concern's events up to the cut with its decider and answers the states by concern. */
export function userStateAt(history: UserHistory, cut: StateCut): UserStateAt {
  const kept = eventsUpTo(history, cut);
  const byStream = new Map<string, RecordedEvent[]>();
  for (const event of kept) {
    const list = byStream.get(event.streamId);
    if (list) list.push(event);
    else byStream.set(event.streamId, [event]);
  }
  const states: Record<string, unknown> = {};
  for (const { concern, stream } of history.streams) {
    const { decider } = concern;
    const events = (byStream.get(stream) ?? []).map((event) => ({ type: event.type, data: event.data }));
    states[concern.concern] = redact(fold(decider, events));
  }
  const last = kept[kept.length - 1];
  return { states, through: last ? formatPosition(last.position) : null, eventCount: kept.length };
}
