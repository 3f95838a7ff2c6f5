/**
 * `npm run grant -- <username> <role>`: records `RoleGranted` through the accounts decider on the configured
 * event store, granted by `script`. The user's open sessions keep the roles they were created with: the user
 * signs in again to use the new role. Exit codes: 0 granted (or already held), 2 refused.
 */
import { randomUUID } from 'node:crypto';
import { ACCOUNT_CONCERN, ROLES, accountDecider, type Role } from '../domain/accounts/accounts.ts';
import { isDomainError } from '../domain/decider.ts';
import { streamName } from '../domain/ids.ts';
import { handleCommand } from '../platform/commandHandler.ts';
import { loadConfig } from '../platform/config.ts';
import { formatPosition, openEventStore, type EventStore } from '../platform/eventstore/index.ts';
import { consoleIo, isMain, type ScriptIo } from './scriptIo.ts';

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

/** Runs the command line `grant <username> <role>` against the store `env` configures; answers the exit code. */
export async function runGrant(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  io: ScriptIo = consoleIo,
): Promise<number> {
  if (args.length !== 2) {
    io.err(`usage: npm run grant -- <username> <role>   (roles: ${ROLES.join(', ')})`);
    return 2;
  }
  const [username, role] = args as [string, string];
  const events = await openEventStore(loadConfig(env));
  try {
    const outcome = await grantRole(events, username, role);
    io.out(
      outcome.granted
        ? `granted ${role} to ${username} (RoleGranted at ${outcome.position}); ${username} signs in again to use it`
        : `${username} already holds ${role}; nothing recorded`,
    );
    return 0;
  } catch (error) {
    if (error instanceof GrantRefused) {
      io.err(`grant refused: ${error.message}`);
      return 2;
    }
    throw error;
  } finally {
    await events.close();
  }
}

if (isMain(import.meta.url)) {
  process.exitCode = await runGrant(process.argv.slice(2));
}
