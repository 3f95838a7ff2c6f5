/**
 * Audit routes, for auditors only: the list of users, one user's event history (paged, filtered by type and
 * time), that user's state at any past moment, and the verification of the user's hash chains. Every read
 * is itself recorded on the auditor's stream `audit-<auditor>`.
 */
import { auditApi } from '../../domain/contract/audit.ts';
import { AUDIT_CONCERN, auditDecider, type AuditCommand } from '../../domain/audit/audit.ts';
import type { CommandMeta } from '../../domain/decider.ts';
import { USER_CONCERNS, USER_EVENT_TYPES, type UserConcern } from '../../domain/concerns.ts';
import { parsePosition, type EventStore } from '../../platform/eventstore/port.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { accountsProjection, type AccountDocument } from '../../projections/accounts/accounts.projection.ts';
import { loadSeals } from '../../platform/audit/seals.ts';
import { historyPage, loadUserHistory, type UserHistory } from '../../projections/audit/userHistory.ts';
import { userStateAt, type StateCut } from '../../projections/audit/userState.ts';
import { describeVerification, verifyUserHistory } from '../../projections/audit/verifyUser.ts';
import type { StoredDocument } from '../../projections/projection.ts';
import type { CommandService } from '../commands.ts';
import { ApiError, notFound } from '../errors.ts';
import { defineRoute } from '../http/route.ts';

/** What the audit routes need. */
export interface AuditDeps {
  readonly commands: CommandService;
  readonly events: EventStore;
  readonly readModels: ReadModelStore;
  /** The concerns whose streams make up a user's history; the registry when absent. */
  readonly concerns?: readonly UserConcern[];
}

const auditConcern = { concern: AUDIT_CONCERN, decider: auditDecider };

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
      ...auditApi.getAuditUsers,
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
      ...auditApi.getAuditUsersByUsernameEvents,
      handle: async ({ params, query, meta }) => {
        requireEventTypes(query.type ?? []);
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
      ...auditApi.getAuditUsersByUsernameState,
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
      ...auditApi.getAuditUsersByUsernameVerify,
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

/**
 * Refuses a type filter naming a type no concern has (a misspelt one would answer no events, as if there were
 * none of that type), naming the first such type and listing the types there are.
 */
function requireEventTypes(types: readonly string[]): void {
  const i = types.findIndex((type) => !USER_EVENT_TYPES.has(type));
  if (i < 0) return;
  const known = [...USER_EVENT_TYPES].sort().join(', ');
  throw new ApiError(400, 'bad_request', `query.type[${i}]: unknown event type ${types[i]}; the types are ${known}`);
}
