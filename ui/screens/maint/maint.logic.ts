/**
 * The Maint page's pure parts: the answers of the Maint and audit routes, the rebuild check's progress and
 * summary, the audit event filter and the state cards of a user at a moment.
 */
import { USER_CONCERNS } from '../../../domain/concerns.ts';
import type { AuditAccount, AuditEvent, AuditPage, AuditState, Verification } from '../../../domain/contract/audit.ts';
import { LOG_POSITION_PATTERN } from '../../../domain/contract/common.ts';
import {
  rebuildNotStarted,
  type MaintStatus,
  type ProjectionLag,
  type RebuildDifference,
  type RebuildJob,
} from '../../../domain/contract/maint.ts';
import { plural } from '../../components/plural.ts';

export type { MaintStatus, ProjectionLag, RebuildDifference, RebuildJob };

/** A job that has just been started, before its first poll. */
export function startedJob(jobId: string): RebuildJob {
  return {
    jobId,
    state: 'running',
    ...rebuildNotStarted(),
    startedAt: null,
  };
}

/** The share of a rebuild check done, 0–1 (0 while the total is unknown; 1 once finished). */
export function rebuildProgress(job: Pick<RebuildJob, 'state' | 'processed' | 'total'>): number {
  if (job.state === 'done') return 1;
  if (job.total <= 0) return 0;
  return Math.min(1, Math.max(0, job.processed / job.total));
}

/** The sentence of a finished check: the read models match the log, or how many documents differ. */
export function rebuildSummary(job: RebuildJob): string {
  if (job.state === 'failed') return `The check failed: ${job.error ?? 'unknown error'}`;
  if (job.state !== 'done') return '';
  const compared = job.collections.reduce((sum, c) => sum + c.compared, 0);
  const scope = `${plural(job.processed, 'event')} replayed, ${plural(compared, 'document')} compared in ${plural(job.collections.length, 'read model')}`;
  if (job.differenceCount === 0) return `The read models match the log: ${scope}.`;
  const shown = job.differences.length < job.differenceCount ? ` (the first ${job.differences.length} listed)` : '';
  return `${plural(job.differenceCount, 'document')} ${job.differenceCount === 1 ? 'differs' : 'differ'} from the log${shown}: ${scope}.`;
}

/** A count for people: a whole number with thousands separators (`1,234,567`), never the display rule's `1.23M`. */
export function countText(count: number): string {
  return Math.round(count).toLocaleString('en-US');
}

/** A delay in milliseconds for people: `0 ms`, `850 ms`, `4.2 s`, `3 min 5 s`. */
export function durationText(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export type { AuditAccount, AuditEvent, AuditPage, AuditState, Verification };

/** The event list's filter: one type (all when empty) and a time range (ISO, open when empty). */
export interface EventFilter {
  readonly type: string;
  readonly from: string;
  /** The last millisecond of the second the To field shows, so every event shown at that second is kept. */
  readonly to: string;
}

/** No filter. */
export const NO_FILTER: EventFilter = Object.freeze({ type: '', from: '', to: '' });

/** The events a filter keeps, in log order. */
export function filterEvents(events: readonly AuditEvent[], filter: EventFilter): readonly AuditEvent[] {
  const from = filter.from === '' ? -Infinity : Date.parse(filter.from);
  const to = filter.to === '' ? Infinity : Date.parse(filter.to);
  return events.filter((event) => {
    if (filter.type !== '' && event.type !== filter.type) return false;
    const at = Date.parse(event.at);
    return at >= from && at <= to;
  });
}

/** A log position's commit and prepare, or null for a text that is none. */
function positionParts(position: string): readonly [bigint, bigint] | null {
  const match = LOG_POSITION_PATTERN.exec(position);
  return match ? [BigInt(match[1]!), BigInt(match[2]!)] : null;
}

/**
 * Log positions (`commit/prepare`) in log order: by commit, then by prepare, as numbers (`9/9` before `43/43`);
 * a text that is no position after every position.
 */
export function comparePositions(a: string, b: string): number {
  const x = positionParts(a);
  const y = positionParts(b);
  if (x === null || y === null) return x !== null ? -1 : y !== null ? 1 : a < b ? -1 : a > b ? 1 : 0;
  const byCommit = x[0] === y[0] ? 0 : x[0] < y[0] ? -1 : 1;
  if (byCommit !== 0) return byCommit;
  return x[1] === y[1] ? 0 : x[1] < y[1] ? -1 : 1;
}

/** An ISO instant moved to the last millisecond of its second (`…02:39:49.999Z`); '' stays ''. */
export function throughSecond(iso: string): string {
  const time = Date.parse(iso);
  if (iso === '' || Number.isNaN(time)) return iso;
  return new Date(Math.floor(time / 1000) * 1000 + 999).toISOString();
}

/** The event types of a history, sorted, each with its count. */
export function eventTypeCounts(events: readonly AuditEvent[]): readonly { type: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const event of events) counts.set(event.type, (counts.get(event.type) ?? 0) + 1);
  return [...counts].map(([type, count]) => ({ type, count })).sort((a, b) => a.type.localeCompare(b.type));
}

/** One concern's state as a card shows it. */
export interface StateCard {
  /** The concern's name (the key in the state answer). */
  readonly concern: string;
  /** How people call it. */
  readonly label: string;
  /** The state. */
  readonly value: unknown;
  /** Whether the state holds anything (an empty list, object or null does not). */
  readonly empty: boolean;
}

const META_KEYS = new Set(['username', 'through', 'eventCount', 'at', 'position']);

function isEmptyValue(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') {
    const entries = Object.values(value as Record<string, unknown>);
    return entries.length === 0 || entries.every(isEmptyValue);
  }
  return false;
}

/** The cards of a state answer, in the registry's order, then any concern the registry does not name. */
export function stateCards(state: AuditState): readonly StateCard[] {
  const keys = Object.keys(state).filter((key) => !META_KEYS.has(key));
  const known = USER_CONCERNS.filter((c) => keys.includes(c.concern)).map((c) => ({
    concern: c.concern,
    label: c.label,
  }));
  const others = keys
    .filter((key) => !USER_CONCERNS.some((c) => c.concern === key))
    .map((key) => ({ concern: key, label: key }));
  return [...known, ...others].map(({ concern, label }) => ({
    concern,
    label,
    value: state[concern],
    empty: isEmptyValue(state[concern]),
  }));
}
