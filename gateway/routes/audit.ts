/**
 * Audit routes, for auditors only: the list of users, one user's event history (paged, filtered by type and
 * time), that user's state at any past moment, and the verification of the user's hash chains. Every read
 * is itself recorded on the auditor's stream `audit-<auditor>`.
 */
import { z } from 'zod';
import { ROLES, USERNAME_PATTERN } from '../../domain/accounts/accounts.ts';
import { AUDIT_CONCERN, auditDecider, type AuditCommand } from '../../domain/audit/audit.ts';
import type { CommandMeta } from '../../domain/decider.ts';
import { USER_CONCERNS, type UserConcern } from '../../domain/concerns.ts';
import { parsePosition, type EventStore } from '../../platform/eventstore/port.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { accountsProjection, type AccountDocument } from '../../projections/accounts/accounts.projection.ts';
import { loadSeals } from '../../platform/audit/seals.ts';
import { historyPage, loadUserHistory, type UserHistory } from '../../projections/audit/userHistory.ts';
import { userStateAt, type StateCut } from '../../projections/audit/userState.ts';
import { describeVerification, verifyUserHistory } from '../../projections/audit/verifyUser.ts';
import type { StoredDocument } from '../../projections/projection.ts';
import type { CommandService } from '../commands.ts';
import { notFound } from '../errors.ts';
import { defineRoute } from '../http/route.ts';

/** What the audit routes need. */
export interface AuditDeps {
  readonly commands: CommandService;
  readonly events: EventStore;
  readonly readModels: ReadModelStore;
  /** The concerns whose streams make up a user's history; the registry when absent. */
  readonly concerns?: readonly UserConcern[];
}

/** Most events in one page of a history. */
export const AUDIT_PAGE_MAX = 500;
/** Events in a page when `limit` is not given. */
export const AUDIT_PAGE_DEFAULT = 100;
/** Most accounts in one answer of the user list. */
export const USER_LIST_MAX = 1000;

const auditConcern = { concern: AUDIT_CONCERN, decider: auditDecider };

/** A date, or a date and time with `Z` or an offset; a time without a zone would depend on the server. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;
const isoTime = z
  .string()
  .refine(
    (s) => ISO_TIME.test(s) && !Number.isNaN(Date.parse(s)),
    'must be an ISO 8601 time with a zone, e.g. 2026-01-31T14:30:00Z',
  );
const position = z
  .string()
  .refine((s) => parsePosition(s) !== null, 'must be a log position commit/prepare, e.g. 1042/1042');
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
  username: z.string().regex(USERNAME_PATTERN, 'must be 3-32 characters of a-z 0-9 _ . -'),
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
  .refine((q) => q.from === undefined || q.to === undefined || Date.parse(q.from) <= Date.parse(q.to), {
    message: 'must not be before from',
    path: ['to'],
  });

const stateQuery = z
  .strictObject({ at: isoTime.optional(), position: position.optional() })
  .refine((q) => q.at === undefined || q.position === undefined, {
    message: 'give either at or position, not both',
    path: ['position'],
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
export function auditRoutes(deps: AuditDeps) {
  const concerns = deps.concerns ?? USER_CONCERNS;

  async function historyOf(username: string): Promise<UserHistory> {
    const history = await loadUserHistory(deps.events, username, concerns);
    if (!history) throw notFound(`params.username: no user ${username}`);
    return history;
  }

  async function record(command: AuditCommand, meta: CommandMeta): Promise<void> {
    await deps.commands.execute(auditConcern, command, meta);
  }

  return [
    defineRoute({
      method: 'GET',
      path: '/api/audit/users',
      summary: 'The accounts, for the auditor to pick a user (optionally those whose name starts with prefix)',
      tag: 'audit',
      access: 'auditor',
      query: usersQuery,
      response: z.array(account),
      handle: async ({ query, meta }) => {
        const docs = await deps.readModels.list<StoredDocument<AccountDocument>>(accountsProjection.name, {
          ...(query.prefix ? { prefix: query.prefix } : {}),
          limit: query.limit,
        });
        await record({ type: 'ViewUserList', data: { prefix: query.prefix ?? null } }, meta());
        return docs.map(({ doc }) => ({
          username: doc.value.username,
          roles: doc.value.roles,
          registeredAt: doc.value.registeredAt,
          lastSignInAt: doc.value.lastSignInAt,
        }));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/audit/users/:username/events',
      summary:
        "A page of one user's events in log order, filtered by type(s) and time; next is the after of the next page",
      tag: 'audit',
      access: 'auditor',
      params: usernameParams,
      query: eventsQuery,
      response: z.object({ events: z.array(auditedEvent), next: z.string().nullable() }),
      handle: async ({ params, query, meta }) => {
        const history = await historyOf(params.username);
        const page = historyPage(history, {
          limit: query.limit,
          ...(query.type ? { types: query.type } : {}),
          ...(query.from ? { from: query.from } : {}),
          ...(query.to ? { to: query.to } : {}),
          ...(query.after ? { after: parsePosition(query.after)! } : {}),
        });
        await record(
          {
            type: 'ViewUserHistory',
            data: {
              username: params.username,
              types: query.type ?? [],
              from: query.from ?? null,
              to: query.to ?? null,
              after: query.after ?? null,
              limit: query.limit,
            },
          },
          meta(),
        );
        return page;
      },
    }),
    defineRoute({
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
      handle: async ({ params, query, meta }) => {
        const history = await historyOf(params.username);
        const cut: StateCut = query.at
          ? { at: query.at }
          : query.position
            ? { position: parsePosition(query.position)! }
            : null;
        const state = userStateAt(history, cut);
        await record(
          {
            type: 'ViewUserState',
            data: { username: params.username, at: query.at ?? null, position: query.position ?? null },
          },
          meta(),
        );
        return {
          username: params.username,
          ...(query.at ? { at: query.at } : {}),
          ...(query.position ? { position: query.position } : {}),
          through: state.through,
          eventCount: state.eventCount,
          ...state.states,
        };
      },
    }),
    defineRoute({
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
      handle: async ({ params, meta }) => {
        const result = verifyUserHistory(await historyOf(params.username), await loadSeals(deps.events));
        await record(
          {
            type: 'VerifyUserChain',
            data: { username: params.username, intact: result.intact, events: result.events, streams: result.streams },
          },
          meta(),
        );
        return { ...result, summary: describeVerification(result) };
      },
    }),
  ];
}
