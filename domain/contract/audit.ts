/**
 * The audit routes of the API (auditors only): the accounts, a user's history, their state at a time or
 * position, and the check of their hash chains.
 */
import { z } from './zod.ts';
import { ROLES, USERNAME_PATTERN, USERNAME_TEXT } from '../accounts/accounts.ts';
import { LOG_POSITION_PATTERN, isCalendarDate } from './common.ts';
import { route } from './route.ts';

/** Most events in one page of a history. */
export const AUDIT_PAGE_MAX = 500;
/** Events in a page when `limit` is not given. */
export const AUDIT_PAGE_DEFAULT = 100;
/** Most accounts in one answer of the user list. */
export const USER_LIST_MAX = 1000;

/**
 * A date and time with `Z` or an offset: a time without a zone would depend on the server, and so would a date
 * alone (the day of which place?).
 */
const ISO_TIME = /^(\d{4}-\d{2}-\d{2})(T(\d{2}):(\d{2})(:(\d{2})(\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2})))$/;

/**
 * Whether a text is such a time naming a real moment: a calendar day (not 2026-02-30, which `Date.parse` would
 * roll over into March), hours to 23, minutes and seconds to 59, an offset within a day.
 */
function isIsoTime(text: string): boolean {
  const match = ISO_TIME.exec(text);
  if (!match || !isCalendarDate(match[1]!)) return false;
  const [hour, minute, second, offsetHours, offsetMinutes] = [3, 4, 6, 9, 10].map((i) => Number(match[i] ?? 0));
  return hour! < 24 && minute! < 60 && second! < 60 && offsetHours! < 24 && offsetMinutes! < 60;
}

/**
 * The last millisecond a time (one {@link isIsoTime} takes) covers at the precision it is written in: the whole
 * second of `…14:30:05Z`, the whole minute of `…14:30Z`, the tenth of a second of `…14:30:05.3Z`. An event
 * shown at 14:30:05 is at or before `to=…14:30:05Z`, whatever its milliseconds.
 */
export function lastInstantOf(time: string): number {
  const start = Date.parse(time);
  const match = ISO_TIME.exec(time);
  if (!match) return start;
  const fraction = match[7];
  if (fraction !== undefined) return fraction.length > 3 ? start : start + 10 ** (4 - fraction.length) - 1;
  return start + (match[6] !== undefined ? 999 : 59_999);
}

const isoTime = z.string().refine(isIsoTime, 'must be an ISO 8601 time with a zone, e.g. 2026-01-31T14:30:00Z');
const position = z.string().regex(LOG_POSITION_PATTERN, 'must be a log position commit/prepare, e.g. 1042/1042');
const stateQuery = z
  .strictObject({ at: isoTime.optional(), position: position.optional() })
  .refine((q) => q.at === undefined || q.position === undefined, {
    message: 'give either at or position, not both',
    path: ['position'],
  });

const eventTypes = z
  .union([z.string(), z.array(z.string())])
  .transform((v) =>
    (Array.isArray(v) ? v : [v])
      .flatMap((s) => s.split(','))
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
  )
  .pipe(
    z
      .array(z.string().regex(/^[A-Z][A-Za-z0-9]{0,99}$/, 'must be an event type, e.g. SymbolAddedToWatchlist'))
      .max(50, 'must name at most 50 event types'),
  );

const usernameParams = z.object({
  username: z.string().regex(USERNAME_PATTERN, `must be ${USERNAME_TEXT}`),
});

const eventsQuery = z
  .strictObject({
    type: eventTypes.optional(),
    from: isoTime.optional(),
    to: isoTime.optional(),
    limit: z.coerce
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(AUDIT_PAGE_MAX, `must be at most ${AUDIT_PAGE_MAX}`)
      .default(AUDIT_PAGE_DEFAULT),
    after: position.optional(),
  })
  .refine((q) => q.from === undefined || q.to === undefined || Date.parse(q.from) <= lastInstantOf(q.to), {
    message: 'must not be before from',
    path: ['to'],
  });

const usersQuery = z.strictObject({
  prefix: z
    .string()
    .regex(/^[a-z0-9_.-]{0,32}$/, 'must be up to 32 characters of a-z 0-9 _ . -')
    .optional(),
  limit: z.coerce
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(USER_LIST_MAX, `must be at most ${USER_LIST_MAX}`)
    .default(USER_LIST_MAX),
});

const auditedEvent = z.object({
  id: z.string(),
  stream: z.string(),
  type: z.string(),
  revision: z.number(),
  position: z.string(),
  at: z.string(),
  actor: z.string().nullable(),
  data: z.unknown(),
  hashOk: z.boolean().optional(),
});

const chainBreak = z.object({
  stream: z.string(),
  revision: z.number(),
  eventId: z.string(),
  reason: z.string(),
  position: z.string(),
});

const account = z.object({
  username: z.string(),
  roles: z.array(z.enum(ROLES as [string, ...string[]])),
  registeredAt: z.string(),
  lastSignInAt: z.string().nullable(),
});

/** The audit routes. */
export const auditApi = {
  getAuditUsers: route({
    method: 'GET',
    path: '/api/audit/users',
    summary: 'The accounts, for the auditor to pick a user (optionally those whose name starts with prefix)',
    tag: 'audit',
    access: 'auditor',
    query: usersQuery,
    response: z.array(account),
  }),
  getAuditUsersByUsernameEvents: route({
    method: 'GET',
    path: '/api/audit/users/:username/events',
    summary:
      "A page of one user's events in log order, filtered by type(s) and time; next is the after of the next page; a type no concern has answers 400 naming query.type[i] and listing the types",
    tag: 'audit',
    access: 'auditor',
    params: usernameParams,
    query: eventsQuery,
    response: z.object({ events: z.array(auditedEvent), next: z.string().nullable() }),
  }),
  getAuditUsersByUsernameState: route({
    method: 'GET',
    path: '/api/audit/users/:username/state',
    summary:
      "One user's state at a time (at) or log position (position), each concern folded with its own decider; now when neither",
    tag: 'audit',
    access: 'auditor',
    params: usernameParams,
    query: stateQuery,
    response: z
      .object({
        username: z.string(),
        at: z.string().optional(),
        position: z.string().optional(),
        through: z.string().nullable(),
        eventCount: z.number(),
      })
      .catchall(z.unknown()),
  }),
  getAuditUsersByUsernameVerify: route({
    method: 'GET',
    path: '/api/audit/users/:username/verify',
    summary: "Walks the hash chain of each of one user's streams and names the first break",
    tag: 'audit',
    access: 'auditor',
    params: usernameParams,
    response: z.object({
      username: z.string(),
      intact: z.boolean(),
      events: z.number(),
      streams: z.number(),
      firstBreak: chainBreak.nullable(),
      summary: z.string(),
    }),
  }),
};

/** An account as `GET /api/audit/users` lists it. */
export type AuditAccount = z.infer<typeof account>;
/** An event of a user's history as the audit routes answer it. */
export type AuditEvent = z.infer<typeof auditedEvent>;
/** `GET /api/audit/users/{u}/events`: one page. */
export type AuditPage = z.infer<typeof auditApi.getAuditUsersByUsernameEvents.response>;
/** `GET /api/audit/users/{u}/state`: each concern's state by name, and what was folded. */
export type AuditState = z.infer<typeof auditApi.getAuditUsersByUsernameState.response>;
/** `GET /api/audit/users/{u}/verify`. */
export type Verification = z.infer<typeof auditApi.getAuditUsersByUsernameVerify.response>;
