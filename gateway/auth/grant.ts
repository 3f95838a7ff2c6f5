/**
 * Granting a role (`auditor`) to an account: `RoleGranted` recorded through the accounts decider, granted by
 * `script`, the operator's command line (`npm run grant`). The user's open sessions keep the roles they were
 * created with: the user signs in again to use the new role.
 */
import { randomUUID } from 'node:crypto';
import { ACCOUNT_CONCERN, ROLES, accountDecider, type Role } from '../../domain/accounts/accounts.ts';
import { isDomainError } from '../../domain/decider.ts';
import { streamName } from '../../domain/ids.ts';
import { handleCommand } from '../../platform/commandHandler.ts';
import { formatPosition, type EventStore } from '../../platform/eventstore/port.ts';

/** Who grants a role from the command line, as recorded in `RoleGranted.grantedBy`. */
export const GRANTED_BY_SCRIPT = 'script';

/** A grant refused before anything was recorded: unknown user or unknown role. */
export class GrantRefused extends Error {
  override readonly name = 'GrantRefused';
}

/** What a grant did. */
export interface GrantOutcome {
  /** True when `RoleGranted` was recorded; false when the user already held the role. */
  readonly granted: boolean;
  /** The log position of the recorded event, `commit/prepare` (null when nothing was recorded). */
  readonly position: string | null;
}

/** Grants `role` to `username` through the accounts decider; refuses unknown users and roles with {@link GrantRefused}. */
export async function grantRole(events: EventStore, username: string, role: string): Promise<GrantOutcome> {
  if (!(ROLES as readonly string[]).includes(role)) {
    throw new GrantRefused(`unknown role ${JSON.stringify(role)}; roles are ${ROLES.join(', ')}`);
  }
  try {
    const outcome = await handleCommand(
      events,
      accountDecider,
      streamName(ACCOUNT_CONCERN, username),
      { type: 'GrantRole', data: { role: role as Role, grantedBy: GRANTED_BY_SCRIPT } },
      {
        commandId: randomUUID(),
        userId: username,
        at: new Date().toISOString(),
        // An operator's command line is neither a user nor the engine; the log names it plainly.
        actor: 'script',
      },
    );
    const granted = outcome.events.length > 0;
    return { granted, position: granted && outcome.position ? formatPosition(outcome.position) : null };
  } catch (error) {
    if (isDomainError(error) && error.code === 'not_found')
      throw new GrantRefused(`no user ${JSON.stringify(username)}`);
    throw error;
  }
}
